"""The 40k scenario as Python objects: what a TOML scenario file loads into."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from mathhammer.plugin import VersionChoice, accept_rolls

Reroll = Literal["none", "ones", "failures", "non_critical"]
DamageReroll = Literal["none", "ones", "below_average"]
SaveReroll = Literal["none", "ones", "failures"]


@dataclass(frozen=True)
class Modifiers:
    """Modifiers to rolls and characteristics, and re-rolls, of a weapon or of the whole scenario.

    A weapon's and the scenario's are combined: numbers are summed (then
    capped where the rules cap them), the broader re-roll and the better
    threshold apply. Characteristics are modified in the rules' order:
    multiply first, then add or subtract; S, A and D never drop below 1, and
    AP never goes above 0.
    """

    hit: int = 0
    wound: int = 0
    save: int = 0
    reroll_hits: Reroll = "none"
    reroll_wounds: Reroll = "none"
    critical_hit: int = 6
    """Unmodified hit rolls at or above this are critical hits (abilities such as "critical hits on 5+")."""
    critical_wound: int = 6
    """Unmodified wound rolls at or above this are critical wounds."""
    ap: int = 0
    """Added to the weapon's AP: -1 improves AP -1 to AP -2, +1 worsens it (AP never goes above 0)."""
    strength: int = 0
    """Added to S, after ``strength_multiplier``."""
    strength_multiplier: int = 1
    """2 doubles S (before any ``strength`` bonus); 1 leaves it."""
    attacks: int = 0
    """Added to each model's A (after rolling a random A; never below 1)."""
    damage: int = 0
    """Added to each attack's D, after ``damage_multiplier`` (never below 1)."""
    damage_multiplier: int = 1
    """2 doubles each attack's D (before any ``damage`` bonus); 1 leaves it."""
    reroll_damage: DamageReroll = "none"
    """Re-roll damage dice showing 1 (``"ones"``), or a damage roll below the dice's average (``"below_average"``)."""
    reroll_saves: SaveReroll = "none"
    """The defender re-rolls saving throws of 1 (``"ones"``) or every failed save (``"failures"``)."""
    minus_one_to_wound_if_s_above_t: bool = False
    """The defender's ability: -1 to the wound roll when the attack's (modified) S is greater than T."""
    wounds_on: int | None = None
    """The wound roll needs this (as 2 for "2+") instead of the S-against-T result, against ``wounds_on_keyword``."""
    wounds_on_keyword: str | None = None
    """The target keyword ``wounds_on`` applies against; unset, it applies against any target."""
    reroll_one_hit: bool = False
    """Weapons only: the unit's one re-roll of a single hit roll, on this weapon's first failed hit roll."""
    reroll_one_wound: bool = False
    """Weapons only: the unit's one re-roll of a single wound roll, on this weapon's first failed wound roll."""
    reroll_one_damage: bool = False
    """Weapons only: the unit's one re-roll of a single damage roll, on this weapon's first roll below average."""

    def __post_init__(self) -> None:
        accept_rolls(self, "critical_hit", "critical_wound")


@dataclass(frozen=True)
class Weapon:
    """One weapon profile, fired by ``count`` models.

    ``skill`` is BS for ranged weapons and WS for melee ones, as the lowest
    roll that hits: 3, or ``"3+"`` as a scenario file writes it; ``None``
    only for a weapon that automatically hits. ``attacks`` and ``damage`` are dice expressions.
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
    rules: Mapping[str, str] = field(default_factory=dict)
    """Rule versions for this weapon only (rule name to version), over the scenario's."""

    def __post_init__(self) -> None:
        accept_rolls(self, "skill")


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
    feel_no_pain_psychic: int | None = None
    """Feel No Pain against Psychic Attacks only: the damage and mortal wounds of weapons with Psychic."""
    character: bool = False
    damage_reduction: int = 0
    """Subtract this from the Damage of each attack allocated to the model (never below 1)."""
    halve_damage: bool = False
    """Halve the Damage of each attack allocated to the model (rounding up), before any reduction."""
    points: int | None = None
    """What these ``count`` models cost together, when known (an attached Leader's own points): the
    points-removed metrics of ``compare`` count each model destroyed for its own share of them."""

    def __post_init__(self) -> None:
        accept_rolls(self, "save", "invulnerable", "feel_no_pain", "feel_no_pain_mortal")


@dataclass(frozen=True)
class MortalWoundsAbility:
    """An ability that inflicts ``amount`` mortal wounds on the target."""

    name: str
    amount: str


@dataclass(frozen=True)
class Attacker:
    """The attacking unit: its weapons, abilities, keywords and (optionally) its models and name.

    Without a ``name`` reports and charts call it after its weapons (:meth:`label`).
    """

    weapons: tuple[Weapon, ...]
    mortal_wounds: tuple[MortalWoundsAbility, ...] = ()
    models: tuple[ModelProfile, ...] = ()
    keywords: tuple[str, ...] = ()
    name: str = ""

    def label(self) -> str:
        """The name, else its weapons' and abilities' names (``"Bolt rifle + Bolt pistol"``), at most three."""
        if self.name:
            return self.name
        names = list(dict.fromkeys([w.name for w in self.weapons] + [m.name for m in self.mortal_wounds]))
        return " + ".join(names[:3]) + (" + ..." if len(names) > 3 else "")


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
    """Situational facts that rules read. Every field defaults to the plain case."""

    half_range: bool = False
    """The target is within half the weapon's range (Melta, Rapid Fire)."""
    stationary: bool = False
    """10th: the attacking unit Remained Stationary. 11th: no model moved more than 3"
    and the unit was not set up this turn (Heavy, Indirect Fire)."""
    charged: bool = False
    """The attacking unit made a charge move this turn (Lance)."""
    in_cover: bool = False
    """The target has the Benefit of Cover against ranged attacks."""
    engaged: bool = False
    """The attacking unit is within Engagement Range of the target (Blast, Pistol)."""
    target_visible: bool = True
    """Any attacking model can see the target (Indirect Fire)."""
    spotted: bool = False
    """11th, Indirect Fire: a friendly unit can see the target."""
    character_visible: bool = True
    """A CHARACTER in the target is visible to the attacker (Precision)."""
    advanced: bool = False
    """The attacking unit Advanced this turn: only its Assault weapons shoot (Assault)."""
    beyond_conversion_range: bool = False
    """The target is farther away than the distance the weapon's Conversion ability names
    (more than 12" or 24", as its datasheet says): unmodified hits of 4+ are critical (Conversion)."""
    wounds_remaining: int | None = None
    """Wounds the attacking model has left (Damaged X: -1 to hit at X or fewer); unset, it is undamaged."""


@dataclass(frozen=True)
class Scenario:
    """One unit attacking another under the 40k rules."""

    attacker: Attacker
    target: Target
    modifiers: Modifiers = field(default_factory=Modifiers)
    context: Context = field(default_factory=Context)
    rules: VersionChoice = field(default_factory=VersionChoice)
    """The edition preset and per-rule versions the scenario asks for."""
    ruleset: str = "wh40k"
    source: str | None = field(default=None, compare=False)
    """The file the scenario was loaded from, named in error messages."""
