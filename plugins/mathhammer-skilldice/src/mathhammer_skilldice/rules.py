"""The d12 skill-dice system's rules that the specification leaves open, as
named options, and its arithmetic.

Section names refer to the specification, ``skill-dice-d12.txt``.
"""

from __future__ import annotations

from mathhammer.plugin import Rule

CRITICAL_HITS = Rule(
    "critical_hits",
    versions={
        "always": "the project's reading of the rules (default): a Critical Hit hits whatever the total, since "
        "the rules name it a hit and make any match from 1 + 1 through 12 + 12 one",
        "needs_total": "the other reading: a Critical Hit must also reach the DC to hit; a match that misses is a miss",
    },
    default="always",
)
INFLICT = Rule(
    "inflict",
    versions={
        "on_hit": "the project's reading of the rules (default): Focus > Panic triggers the weapon's Inflict "
        "effect only when the attack hits, as an effect of the attack; only Hazardous is said to apply either way",
        "always": "the other reading: Focus > Panic triggers Inflict whether or not the attack hits",
    },
    default="on_hit",
)
ADVANTAGE_DIE = Rule(
    "advantage_die",
    versions={
        "kept": "the project's reading of the rules (default): re-rolling the Attack Roll re-rolls both Skill "
        "Dice and keeps the Advantage or Disadvantage die, since the d6 is not a Skill Die",
        "rerolled": "the other reading: the Advantage or Disadvantage die is re-rolled with the Skill Dice",
    },
    default="kept",
)
ADVANTAGE_WITH_DISADVANTAGE = Rule(
    "advantage_with_disadvantage",
    versions={
        "both_dice": "the project's reading of the rules (default): Advantage adds 1d6 and Disadvantage subtracts "
        "1d6, so a roll with both rolls both dice",
        "cancel": "the other reading: Advantage and Disadvantage cancel out, and a roll with both rolls neither d6",
    },
    default="both_dice",
)
HEAL = Rule(
    "heal",
    versions={
        "surviving_models": "the project's reading of the rules (default): healing that returns no model restores "
        "HP only up to what the surviving models hold, since a destroyed model's HP went with it",
        "starting_hp": "the literal text: a unit restores HP up to its starting HP, and the survivors hold what the "
        "fallen cannot (no model returns; the unit loses a model only once its HP no longer supports it)",
    },
    default="surviving_models",
)
RULES = {rule.name: rule for rule in (CRITICAL_HITS, INFLICT, ADVANTAGE_DIE, ADVANTAGE_WITH_DISADVANTAGE, HEAL)}
"""The ruleset's rules with versions (keywords may bring their own)."""

SKILL_DIE = 12
ADVANTAGE = 6


def thresholds(minor: int, major: int) -> list[int]:
    """Damage thresholds as HP lost: Minor 1, Major 2, double Major 3 (Attacks & Damage).

    >>> thresholds(3, 6)
    [3, 6, 12]
    """
    return [minor, major, 2 * major]


def hp_lost(damage: int, minor: int, major: int) -> int:
    """HP a unit loses to one attack's Damage.

    >>> [hp_lost(d, 3, 6) for d in (2, 3, 5, 6, 11, 12, 30)]
    [0, 1, 1, 2, 2, 3, 3]
    """
    return sum(damage >= t for t in thresholds(minor, major))


def models_left(hp: int, hp_per_model: int) -> int:
    """Surviving models of a unit at ``hp``: ceil(hp / HP per model).

    >>> [models_left(x, 3) for x in (0, 1, 3, 4, 9)]
    [0, 1, 1, 2, 3]
    """
    return -(-hp // hp_per_model)
