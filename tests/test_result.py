"""The Result: statistics from histograms, JSON shape, text report."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mathhammer import Result


def make(trials: int = 4) -> Result:
    # Four trials: damage 0, 1, 1, 2; models destroyed 0, 0, 1, 1 of 1.
    hists = [
        np.array([0, 0, 4], dtype=np.uint64),
        np.array([1, 2, 1], dtype=np.uint64),
        np.array([2, 2], dtype=np.uint64),
    ]
    return Result.from_histograms(
        hists,
        ["attacks", "damage", "models_destroyed"],
        {"attacks": "Attacks"},
        ruleset="toy",
        evaluator="monte_carlo",
        trials=trials,
        seed=5,
        target_models=1,
    )


def test_statistics_come_from_the_histograms() -> None:
    r = make()
    assert r["attacks"].mean == 2.0 and r["attacks"].se == 0.0
    damage = r["damage"]
    assert damage.mean == 1.0
    assert damage.sd == pytest.approx(math.sqrt(2 / 3))  # sample variance of 0,1,1,2
    assert damage.se == pytest.approx(math.sqrt(2 / 3) / 2)
    assert damage.p_at_least().tolist() == [1.0, 0.75, 0.25]
    assert damage.percentile(50) == 1
    assert r.p_unit_destroyed == 0.5


def test_json_has_the_documented_keys() -> None:
    d = json.loads(json.dumps(make().to_dict()))
    for key in ("ruleset", "evaluator", "trials", "seed", "attacks", "damage", "models_destroyed"):
        assert key in d
    assert d["damage"]["pmf"] == [0.25, 0.5, 0.25]
    assert set(d["attacks"]) == {"mean", "se", "sd"}


def test_text_report_shows_stages_and_distributions() -> None:
    text = make().to_text()
    assert "Attacks" in text and "P(unit destroyed)" in text and "Models destroyed:" in text
