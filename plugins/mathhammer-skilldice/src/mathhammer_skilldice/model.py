"""What a d12 skill-dice scenario holds: the attacking unit's weapons and the target unit."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Weapon:
    """A weapon profile and the models attacking with it (each makes one attack).

    Attributes:
        name: What the attacks are called in tables.
        models: Models attacking with it: ``3`` is three attacks ("x3"), never one
            attack with tripled damage.
        skill: Added to the two Skill Dice.
        damage: Damage of a hit: a number or dice expression (a Critical Hit
            deals its largest value unless ``critical_damage`` says otherwise).
        advantage: Roll a d6 and add it (Advantage).
        disadvantage: Roll a d6 and subtract it (Disadvantage); with both, both dice are rolled.
        reroll: What a re-roll re-rolls: ``"none"``, ``"attack_roll"`` (both Skill Dice),
            ``"focus"`` or ``"panic"`` (the die a rule names), or ``"ones"`` (a Skill
            Die showing a natural 1).
        reroll_when: When the player takes the re-roll: any of ``"miss"``,
            ``"panic_higher"`` (a hit too, to avoid Hazardous), ``"focus_higher"``
            and ``"always"``; empty for the default (a miss, or for ``"ones"``
            every roll showing a 1). Never on a Critical Hit.
        keywords: Weapon keywords, such as ``"Hazardous 2"``.
        inflict: The weapon's Inflict effect, such as ``"Direct Damage 2"``, or
            several (a tuple), all triggered by one Inflict.
        attacks: Attack Rolls each model makes with it (a rule granting
            additional attacks): a number or dice expression.
        additional: Its models also attack with another weapon (a rule lets them
            attack with several): they are not counted again among the unit's models.
        collective: Its models make ``attacks`` attacks together, not each (a
            unit-level or collective attack a rule grants).
        critical_damage: A Critical Hit's damage: ``"maximum"`` (the rule's
            default), ``"rolled"`` (rolled as usual), or a dice expression a rule gives.
    """

    name: str
    models: int
    skill: int
    damage: str
    advantage: bool = False
    disadvantage: bool = False
    reroll: str = "none"
    keywords: tuple[str, ...] = ()
    inflict: str | tuple[str, ...] | None = None
    attacks: str = "1"
    additional: bool = False
    collective: bool = False
    reroll_when: tuple[str, ...] = ()
    critical_damage: str = "maximum"

    @property
    def inflicts(self) -> tuple[str, ...]:
        """The weapon's Inflict effects, none, one or several."""
        if self.inflict is None:
            return ()
        return (self.inflict,) if isinstance(self.inflict, str) else tuple(self.inflict)


@dataclass(frozen=True)
class Power:
    """A Psychic Power one model of the unit attempts instead of its normal attack.

    Attributes:
        name: What the power is called.
        skill: The caster's Skill, added to 1d12.
        difficulty: The total the roll must reach to manifest the power.
        power: What it does, as the power's plugin spells it
            (``"Damage D6"``, ``"Direct Damage 2"``, ``"Heal 2"``, ``"Restore 2"``).
    """

    name: str
    skill: int
    difficulty: int
    power: str


@dataclass(frozen=True)
class Unit:
    """A unit: its models and Health Points, and as a target its DC and thresholds.

    Attributes:
        models: Models in the unit at full HP.
        hp_per_model: HP each model supports; the unit has models times this, and at
            HP x has ceil(x / hp_per_model) models.
        dc: The DC an Attack Roll must reach to hit it.
        minor, major: Its Minor and Major Thresholds (Major at least Minor).
        hp: The HP it starts with, when below full (None: full).
        damage_reduction: Normal Damage against it is reduced by this, to no
            less than 0, before the thresholds (an ability); Direct Damage is not.
    """

    name: str
    models: int
    hp_per_model: int
    dc: int = 0
    minor: int = 0
    major: int = 0
    hp: int | None = None
    damage_reduction: int = 0

    @property
    def full_hp(self) -> int:
        return self.models * self.hp_per_model

    @property
    def hp_lost(self) -> int:
        """HP it has lost before the attack or fight starts."""
        return 0 if self.hp is None else self.full_hp - self.hp


@dataclass(frozen=True)
class Fight:
    """Two units taking turns attacking, each with its surviving models.

    Attributes:
        rounds: At most this many rounds; the fight stops when a unit is destroyed.
        first: Which side strikes first each round: ``"attacker"`` or ``"target"``.
    """

    rounds: int = 10
    first: str = "attacker"


@dataclass(frozen=True)
class Scenario:
    """One unit's attack on another (or, with ``fight``, a fight between them),
    under chosen readings of the open points.

    ``target_weapons`` are the target's, for striking back in a fight.
    """

    weapons: tuple[Weapon, ...]
    attacker: Unit
    target: Unit
    rules: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    ruleset: str = "skilldice"
    target_weapons: tuple[Weapon, ...] = ()
    fight: Fight | None = None
    powers: tuple[Power, ...] = ()
    target_powers: tuple[Power, ...] = ()
    battle_shock: str | None = None
    """The Battle Shock test's effect, as its plugin spells it (the rules give none)."""
