"""What a Ninth Age scenario holds: the attacks, the target and the situation.

Field names follow the game's own characteristics (Off, Str, AP, Att, Def,
Res, HP, Arm, Aim); ``README.md`` documents every scenario-file field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from mathhammer.plugin import accept_rolls

AttackType = Literal["melee", "shooting"]
Cover = Literal["none", "soft", "hard"]


@dataclass(frozen=True)
class Attack:
    """One kind of attack: ``models`` models each making ``att`` of them.

    Attributes:
        name: What the attacks are called in tables.
        type: ``"melee"`` (to hit by Off against Def) or ``"shooting"`` (by Aim).
        models: Models making the attack.
        att: Attacks (or shots) per model: a number or dice expression.
        off: Offensive Skill (melee).
        aim: The roll a shot needs before modifiers (shooting), as in Longbow (3+).
        strength: Strength (``Str``); ``None`` for an attack without Strength, which says
            how it wounds in ``wounds_on``.
        wounds_on: For an attack without Strength: the roll that wounds, or
            ``"automatic"`` for an attack that wounds automatically.
        ap: Armour Penetration.
        attributes: Attack attributes (``"Poison Attacks"``, ``"Multiple Wounds (D3)"``).
        hit_modifier: Other to-hit modifiers that apply, summed (``-1`` is a penalty).
        wound_modifier: To-wound modifiers that apply, summed (``-1`` is a penalty); a
            natural 6 still wounds and a natural 1 still fails, whatever they add up to.
    """

    name: str
    type: AttackType
    models: int
    att: str
    off: int | None = None
    aim: int | None = None
    strength: int | None = None
    wounds_on: int | Literal["automatic"] | None = None
    ap: int = 0
    attributes: tuple[str, ...] = ()
    hit_modifier: int = 0
    wound_modifier: int = 0

    def __post_init__(self) -> None:
        accept_rolls(self, "aim", "wounds_on")


@dataclass(frozen=True)
class Target:
    """The unit attacked: rank-and-file models, and in text A a Champion.

    Attributes:
        models: Models in the unit (the Champion among them, when it has one).
        defensive: Defensive Skill (``Def``).
        resilience: Resilience (``Res``).
        hp: Health Points per model (``HP``).
        armour: Armour (``Arm``), from every source added up.
        aegis, fortitude, regeneration: Special saves (the roll that saves), if any.
        champion: Text A: one of the models is a Champion with its own Health Points.
        fly: The models have Fly (for Multiple Wounds with Clipped Wings).
        flammable: The models are Flammable (text A: Flaming Attacks re-roll failed to-wound rolls).
        distracting: The unit has Distracting (-1 to hit it in melee, with each text's limit).
        parry: Text A: the models have Parry and are attacked in their Front Facing.
        hard_target: Hard Target (X): -X to hit it with shooting.
    """

    name: str
    models: int
    defensive: int
    resilience: int
    hp: int = 1
    armour: int = 0
    aegis: int | None = None
    fortitude: int | None = None
    regeneration: int | None = None
    champion: bool = False
    fly: bool = False
    flammable: bool = False
    distracting: bool = False
    parry: bool = False
    hard_target: int = 0

    def __post_init__(self) -> None:
        accept_rolls(self, "aegis", "fortitude", "regeneration")


@dataclass(frozen=True)
class Context:
    """Shooting situation: range, movement, cover."""

    long_range: bool = False
    moved: bool = False
    stand_and_shoot: bool = False
    cover: Cover = "none"


@dataclass(frozen=True)
class Scenario:
    """Attacks resolved in order against one target, under one text of the rules."""

    attacks: tuple[Attack, ...]
    target: Target
    context: Context = field(default_factory=Context)
    revision: str = "B"
    source: str | None = None
    ruleset: str = "t9a"
