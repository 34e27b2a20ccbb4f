"""The Ninth Age's rules that are pure arithmetic: the to-hit and to-wound
tables, armour, and the two texts of the 2022 rules.

Section names are the published rules' (see ``README.md`` for sources).
"""

from __future__ import annotations

from mathhammer.plugin import Rule

REVISION = Rule(
    "revision",
    versions={
        "B": "2022 rules, text B (the default, which the NewRecruit army-builder data encodes): 'Melee Attacks', "
        "Health Pools and Regeneration",
        "A": "2022 rules, text A: 'Close Combat Attacks', Fortitude and Hopeless Shots",
    },
    default="B",
)
"""Which of the two texts of the 2022 rules to follow where they disagree."""

SPECIAL_SAVES = {"A": ("Aegis", "Fortitude"), "B": ("Aegis", "Regeneration")}
"""The special saves each text names."""

BEST_SPECIAL_SAVE = {"A": 3, "B": 3}
"""Text B: a natural 1 or 2 always fails a special save, so 3+ is the best
(better values count as 3+); text A's best value is not verified, so values
better than 3+, where the texts could differ, are refused."""

ARMOUR_MAX = {"A": None, "B": 6}
"""Text B: Armour can never exceed 6. Text A states no limit."""


def to_wound(strength: int, resilience: int) -> int:
    """The roll needed to wound, from Strength minus Resilience (To-Wound Rolls).

    >>> [to_wound(s, 4) for s in (2, 3, 4, 5, 6, 9)]
    [6, 5, 4, 3, 2, 2]
    """
    difference = strength - resilience
    if difference >= 2:
        return 2
    return {1: 3, 0: 4, -1: 5}.get(difference, 6)


def melee_to_hit(offensive: int, defensive: int, revision: str) -> int:
    """The roll needed to hit in melee, from Offensive minus Defensive Skill.

    Both texts share the bands down to -7; at -8 or less text A needs 6+ and
    text B stays at 5+ (B has no 6+ band).

    >>> [melee_to_hit(o, 4, "A") for o in (8, 5, 4, 1, 0, 3 - 8)]
    [2, 3, 4, 4, 5, 6]
    >>> melee_to_hit(1, 9, "B")
    5
    """
    difference = offensive - defensive
    if difference >= 4:
        return 2
    if difference >= 1:
        return 3
    if difference >= -3:
        return 4
    if difference >= -7 or revision == "B":
        return 5
    return 6


def armour(value: int, revision: str) -> int:
    """The Armour a model saves with: text B caps it at 6.

    The save then needs 7 - Armour + AP on a D6, a natural 1 always failing,
    so Armour - AP of 0 or less cannot be saved and 5 or more saves on 2+.
    """
    cap = ARMOUR_MAX[revision]
    return value if cap is None else min(value, cap)


def special_pass(target: int, rerolled: bool) -> float:
    """The chance a special save of ``target``+ saves, when successes are re-rolled or not."""
    p = max(0, 7 - target) / 6
    return p * p if rerolled else p
