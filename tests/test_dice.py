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


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("D6 1", 4),  # not D61
        ("1 0", 3),  # not 10
        ("D6+1 0", 6),  # not D6+10
        ("2 D6", 3),
        ("D 6", 2),
        ("2D6+1+1", 6),
        ("D6+-1", 4),
        ("+3", 1),
        ("3+1", 2),
        ("-1", 1),
        ("06", 1),
        ("D0", 2),
        ("0D6", 1),
        ("99999999D6", 1),
        ("D\u0666", 2),  # an Arabic-Indic 6 is a digit to Python, not to the grammar
        ("D\uff16", 2),  # a full-width 6
        ("D6\u00a0+1", 3),  # a no-break space is not a blank
        ("D6\n", 3),
        ("D6 + ", 6),
        ("1d6d6", 4),
    ],
)
def test_everything_outside_the_grammar_is_refused_at_its_column(text: str, column: int) -> None:
    with pytest.raises(DiceError, match=f"at column {column},") as info:
        parse_dice(text)
    message = str(info.value)
    assert message.startswith('dice expression "') and text.strip("\n")[:2] in message  # quoted


@pytest.mark.parametrize(
    ("text", "canonical"), [(" 2D3 + 1 ", "2D3+1"), ("\td6\t-\t1", "D6-1"), ("0", "0"), ("D6+0", "D6")]
)
def test_blanks_are_allowed_around_the_expression_and_its_sign(text: str, canonical: str) -> None:
    assert str(parse_dice(text)) == canonical
