"""The to-hit, to-wound and armour tables, cell by cell.

The to-wound grid is the specification's (``t9a-to-wound.txt``: To-Wound
Rolls), copied row by row: Res 1 to 10 down, Str 1 to 10 across.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import mathhammer
from mathhammer_t9a.rules import armour, melee_to_hit, to_wound

from .conftest import scenario_data, t9a_registry

TO_WOUND = """
Res 1  | 4+ | 3+ | 2+ | 2+ | 2+ | 2+ | 2+ | 2+ | 2+ | 2+
Res 2  | 5+ | 4+ | 3+ | 2+ | 2+ | 2+ | 2+ | 2+ | 2+ | 2+
Res 3  | 6+ | 5+ | 4+ | 3+ | 2+ | 2+ | 2+ | 2+ | 2+ | 2+
Res 4  | 6+ | 6+ | 5+ | 4+ | 3+ | 2+ | 2+ | 2+ | 2+ | 2+
Res 5  | 6+ | 6+ | 6+ | 5+ | 4+ | 3+ | 2+ | 2+ | 2+ | 2+
Res 6  | 6+ | 6+ | 6+ | 6+ | 5+ | 4+ | 3+ | 2+ | 2+ | 2+
Res 7  | 6+ | 6+ | 6+ | 6+ | 6+ | 5+ | 4+ | 3+ | 2+ | 2+
Res 8  | 6+ | 6+ | 6+ | 6+ | 6+ | 6+ | 5+ | 4+ | 3+ | 2+
Res 9  | 6+ | 6+ | 6+ | 6+ | 6+ | 6+ | 6+ | 5+ | 4+ | 3+
Res 10 | 6+ | 6+ | 6+ | 6+ | 6+ | 6+ | 6+ | 6+ | 5+ | 4+
"""
CELLS = [
    (strength, resilience, int(cell.strip().rstrip("+")))
    for resilience, row in enumerate(TO_WOUND.strip().splitlines(), start=1)
    for strength, cell in enumerate(row.split("|")[1:], start=1)
]


def test_the_grid_has_every_cell() -> None:
    assert len(CELLS) == 100


@pytest.mark.parametrize(("strength", "resilience", "needed"), CELLS)
def test_to_wound_cell_by_cell(strength: int, resilience: int, needed: int) -> None:
    assert to_wound(strength, resilience) == needed


@pytest.mark.parametrize(
    ("difference", "text_a", "text_b"),
    [
        (6, 2, 2),
        (4, 2, 2),
        (3, 3, 3),
        (1, 3, 3),
        (0, 4, 4),
        (-3, 4, 4),
        (-4, 5, 5),
        (-7, 5, 5),
        (-8, 6, 5),
        (-10, 6, 5),
    ],
)
def test_melee_to_hit_bands_of_each_text(difference: int, text_a: int, text_b: int) -> None:
    """Off - Def: text A has a 6+ band at -8 or less, text B stops at 5+ (notes, section 1)."""
    offensive, defensive = max(difference, 0), max(-difference, 0)
    assert melee_to_hit(offensive, defensive, "A") == text_a
    assert melee_to_hit(offensive, defensive, "B") == text_b


def test_text_b_caps_armour_at_6_and_text_a_adds_it_up() -> None:
    assert armour(8, "A") == 8
    assert armour(8, "B") == 6
    assert armour(4, "B") == 4


def test_strength_and_resilience_past_the_table() -> None:
    """The table is Str - Res throughout, so past 10 the same difference rule applies."""
    assert [to_wound(s, 12) for s in (10, 11, 12, 13, 14, 20)] == [6, 5, 4, 3, 2, 2]
    assert to_wound(15, 20) == 6


def test_to_wound_modifiers_keep_natural_6_and_natural_1() -> None:
    """The to-wound roll's faces: a natural 1 fails and a natural 6 wounds, whatever the modifier."""
    from mathhammer_t9a.compile import _to_wound_roll

    penalised = _to_wound_roll(4, -3)
    assert (penalised.target, penalised.modifiers, penalised.critical, penalised.natural_fail) == (4, [-3], 6, 1)
    helped = _to_wound_roll(2, 3)
    assert (helped.natural_fail, helped.critical) == (1, None)


DIFFERENCE_TABLE = {2: 2, 1: 3, 0: 4, -1: 5, -2: 6}
"""The text's first table: Str - Res of 2 or more, 1, 0, -1, -2 or less, to the roll needed."""


@pytest.mark.parametrize(("strength", "resilience", "needed"), CELLS)
def test_both_tables_present_the_same_relation(strength: int, resilience: int, needed: int) -> None:
    """ "Both tables present the same relation": each cell of the grid is the difference table's row."""
    assert DIFFERENCE_TABLE[max(-2, min(2, strength - resilience))] == needed


def test_every_cell_wounds_each_hit_on_one_d6_through_the_exact_evaluator() -> None:
    """To-Wound Rolls, through the whole evaluator: a D6 for each hit, a wound on the cell's roll or
    better. One attack hitting on 4+ (Off 4 against Def 4) wounds with chance 1/2 x (7 - needed)/6,
    exactly, in each of the 100 cells; two attacks wound 0, 1 or 2 times binomially."""
    registry = t9a_registry()
    for strength, resilience, needed in CELLS:
        data = scenario_data({"models": 1, "Str": strength}, {"Res": resilience})
        result = mathhammer.evaluate_exact(mathhammer.scenario_from_data(data, registry=registry), registry=registry)
        wound = Fraction(1, 2) * Fraction(7 - needed, 6)
        assert result["wounds"].pmf[1] == pytest.approx(float(wound), abs=1e-12), (strength, resilience)
    data = scenario_data({"models": 2, "Str": 3}, {"Res": 4})  # 5+: each attack wounds with chance 1/2 x 2/6
    result = mathhammer.evaluate_exact(mathhammer.scenario_from_data(data, registry=registry), registry=registry)
    w = Fraction(1, 6)
    for k, expected in enumerate([(1 - w) ** 2, 2 * w * (1 - w), w**2]):
        assert result["wounds"].pmf[k] == pytest.approx(float(expected), abs=1e-12)
