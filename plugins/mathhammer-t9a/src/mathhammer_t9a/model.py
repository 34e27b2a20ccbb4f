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


StrikeOrder = Literal["agility", "attacker", "target", "simultaneous"]
Steadfast = Literal["ranks", "always", "never"]


@dataclass(frozen=True)
class CombatScore:
    """Static combat-score bonuses a unit adds to the wounds it caused (project conventions, given as inputs).

    Attributes:
        ranks: Added every round (the bonus for ranks, as the players count it before the combat).
        standard: Added every round (standards, Battle Standard and the like).
        charge: Added in the first round only (the charge).
        other: Added every round (anything else).
    """

    ranks: int = 0
    standard: int = 0
    charge: int = 0
    other: int = 0

    @property
    def every_round(self) -> int:
        """The bonus added to every round's score."""
        return self.ranks + self.standard + self.other


@dataclass(frozen=True)
class CombatUnit:
    """One unit of a close combat: its models and defence, its attack, and how it fights and holds.

    Attributes:
        unit: The models, as they are attacked (``name``, ``models``, ``Def``, ``Res``, ``HP``, saves).
        attack: The attack each of its fighting models makes (its ``models`` is the unit's).
        agility: Agility (``Agi``): the higher strikes first (see :class:`Combat`).
        discipline: Discipline (``Disc``): its break test needs 2D6 at most this, less the score difference.
        width: Models in the front rank; those alive fight with ``attack``.
        supporting_attacks: Attacks each model of a supporting rank makes.
        supporting_ranks: Ranks behind the front rank that make supporting attacks.
        steadfast: When it ignores the score difference in its break test: ``"ranks"`` (more full ranks
            than the winner after the round), ``"always"`` or ``"never"``.
        score: Its static combat-score bonuses.
    """

    unit: Target
    attack: Attack
    agility: int
    discipline: int
    width: int = 5
    supporting_attacks: int = 1
    supporting_ranks: int = 1
    steadfast: Steadfast = "ranks"
    score: CombatScore = field(default_factory=CombatScore)


@dataclass(frozen=True)
class Combat:
    """How the close combat is fought and settled (project conventions; ``docs/t9a-combat.md``).

    Attributes:
        rounds: At most this many rounds; the combat ends when a unit breaks or is destroyed.
        strike_order: ``"agility"`` (higher Agility first, equal Agility together), ``"attacker"`` or
            ``"target"`` (that unit first), ``"simultaneous"`` (both together).
        double_one_passes: A break-test roll of double 1 always passes.
    """

    rounds: int = 1
    strike_order: StrikeOrder = "agility"
    double_one_passes: bool = True


@dataclass(frozen=True)
class CombatScenario:
    """Two units in close combat, each striking the other, under one text of the rules."""

    attacker: CombatUnit
    target: CombatUnit
    combat: Combat = field(default_factory=Combat)
    revision: str = "B"
    source: str | None = None
    ruleset: str = "t9a"
