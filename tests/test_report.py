"""The terminal report: what a player reads after ``mathhammer simulate``."""

from __future__ import annotations

import io

import numpy as np
from rich.console import Console

from mathhammer import Result
from mathhammer.face import report
from mathhammer.result import probability


def toy(evaluator: str = "monte_carlo") -> Result:
    # Damage 0, 1 or 2 with probabilities 1/4, 1/2, 1/4; one model, destroyed half the time.
    return Result.from_pmfs(
        [np.array([0.0, 0.0, 1.0]), np.array([0.25, 0.5, 0.25]), np.array([0.5, 0.5])],
        ["attacks", "damage", "models_destroyed"],
        {"attacks": "Attacks", "damage": "Damage dealt", "models_destroyed": "Models destroyed"},
        ruleset="toy",
        ruleset_version="1.2",
        evaluator=evaluator,
        trials=0 if evaluator == "exact" else 1000,
        seed=None if evaluator == "exact" else 7,
        target_models=1,
        rule_versions={"cover": "11e", "toy": "v2"},
        rule_descriptions={"cover": "11th edition: cover worsens BS by one step"},
        seconds=0.25,
    )


def printed(result: Result, *, terminal: bool = False) -> str:
    out = io.StringIO()
    Console(file=out, width=100, force_terminal=terminal, highlight=False).print(report.render(result))
    return out.getvalue()


def test_the_first_line_says_how_the_result_was_made() -> None:
    assert toy().description == "toy 1.2 · Monte Carlo, 1,000 trials, seed 7 · 0.25 s"
    assert toy("exact").description == "toy 1.2 · exact · 0.25 s"


def test_the_report_shows_stages_distributions_and_rule_versions() -> None:
    text = printed(toy())
    assert "Attacks" in text and "± se" in text and "P(unit destroyed) = 0.5000" in text
    assert "Damage dealt" in text and "P(≥k)" in text and "Rules that ran:" in text
    # Each rule version in words; one whose plugin said nothing, by its version alone.
    assert "  cover (11e): 11th edition: cover worsens BS by one step" in text and "  toy: v2" in text
    # The damage row for k = 1: P(=1) = 0.5, P(>=1) = 0.75, and the longest bar.
    assert any(line.split()[:3] == ["1", "0.5000", "0.7500"] and "█" * 30 in line for line in text.splitlines())


def test_an_exact_result_has_no_standard_error_column() -> None:
    assert "± se" not in printed(toy("exact"))


def test_no_escape_codes_unless_the_output_is_a_terminal() -> None:
    assert "\x1b[" not in printed(toy())
    assert "\x1b[" in printed(toy(), terminal=True)


def test_bars_are_drawn_to_an_eighth_of_a_character() -> None:
    assert report.bar(1.0, width=4) == "████"
    assert report.bar(0.5, width=4) == "██"
    assert report.bar(1 / 32, width=4) == "▏"
    assert report.bar(0.0) == ""


def test_negligible_tails_are_left_out() -> None:
    result = Result.from_pmfs(
        [np.array([0.5, 0.49996, 0.00003, 0.00001]), np.array([1.0])],
        ["damage", "models_destroyed"],
        {},
        ruleset="toy",
        evaluator="exact",
        trials=0,
        seed=None,
        target_models=1,
    )
    assert [row.label for row in report.shown_rows(result["damage"])] == ["0", "1"]


def test_probabilities_never_round_a_possibility_away() -> None:
    assert probability(0.0) == "0.0000" and probability(1.0) == "1.0000"
    assert probability(3e-7) == "<0.0001" and probability(1 - 3e-7) == ">0.9999"
    assert probability(0.123456) == "0.1235"
