"""Dice expressions as Python sees them: parsed by the core, errors as DiceError."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer import DiceError, parse_dice


def test_datasheet_expressions_parse() -> None:
    d = parse_dice("2D3+1")
    assert (d.count, d.sides, d.constant, d.min, d.max) == (2, 3, 1, 3, 7)
    assert str(d) == "2D3+1"
    assert parse_dice("d6") == parse_dice("D6")
    assert not parse_dice("3").is_random


def test_distribution_is_exact() -> None:
    pmf = parse_dice("2D6").distribution()
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert pmf[7] == pytest.approx(6 / 36, abs=1e-15)
    assert parse_dice("D3").mean() == pytest.approx(2.0, abs=1e-15)
    assert np.argmax(pmf) == 7


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("D0", "at least 2 sides"),
        ("-1", "negative"),
        ("1000000D6", "at most 100 dice"),
        ("99999999D6", "at most 100 dice"),
        ("D6++", "whole number"),
        ("", "empty"),
    ],
)
def test_nonsense_is_a_value_error_naming_the_expression(text: str, reason: str) -> None:
    with pytest.raises(DiceError, match=reason) as info:
        parse_dice(text)
    assert repr(text).replace("'", '"') in str(info.value)
    assert isinstance(info.value, ValueError)
