"""The 40k scenario as Python objects: what a TOML scenario file loads into."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Reroll = Literal["none", "ones", "failures", "non_critical"]


@dataclass(frozen=True)
class Modifiers:
    """Hit, wound and save modifiers and re-rolls (summed with the scenario's, then capped)."""

    hit: int = 0
    wound: int = 0
    save: int = 0
    reroll_hits: Reroll = "none"
    reroll_wounds: Reroll = "none"


@dataclass(frozen=True)
class Weapon:
    """One weapon profile, fired by ``count`` models.

    ``skill`` is BS for ranged weapons and WS for melee ones, as the lowest
    roll that hits (3 for "3+"); ``None`` only for a weapon that automatically
    hits. ``attacks`` and ``damage`` are dice expressions.
    """

    name: str
    attacks: str
    skill: int | None
    strength: int
    damage: str
    ap: int = 0
    type: Literal["ranged", "melee"] = "ranged"
    count: int = 1
    keywords: tuple[str, ...] = ()
    auto_hit: bool = False
    mortal_wounds: str | None = None
    """Each attack that wounds also inflicts this many mortal wounds, in
    addition to its normal damage: they are resolved after the pool's normal
    damage and suffered even if that damage was saved."""
    modifiers: Modifiers = field(default_factory=Modifiers)


@dataclass(frozen=True)
class ModelProfile:
    """``count`` identical models of a unit."""

    name: str
    wounds: int
    count: int = 1
    save: int | None = None
    invulnerable: int | None = None
    feel_no_pain: int | None = None
    feel_no_pain_mortal: int | None = None
    character: bool = False


@dataclass(frozen=True)
class MortalWoundsAbility:
    """An ability that inflicts ``amount`` mortal wounds on the target."""

    name: str
    amount: str


@dataclass(frozen=True)
class Attacker:
    weapons: tuple[Weapon, ...]
    mortal_wounds: tuple[MortalWoundsAbility, ...] = ()
    models: tuple[ModelProfile, ...] = ()


@dataclass(frozen=True)
class Target:
    """The unit attacked. ``allocation_order`` lists model names, first group first."""

    name: str
    toughness: int
    models: tuple[ModelProfile, ...]
    keywords: tuple[str, ...] = ()
    allocation_order: tuple[str, ...] = ()


@dataclass(frozen=True)
class Context:
    """Situational facts rules may read (filled in by the keywords that need them)."""


@dataclass(frozen=True)
class Scenario:
    """One unit attacking another under the 40k rules."""

    attacker: Attacker
    target: Target
    modifiers: Modifiers = field(default_factory=Modifiers)
    ruleset: str = "wh40k"
    source: str | None = field(default=None, compare=False)
    """The file the scenario was loaded from, named in error messages."""
