"""The Result: statistics from histograms, JSON shape, text report."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import sys

import numpy as np
import pytest

from mathhammer import MissingDependencyError, Result


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


def test_jupyter_shows_an_html_table_with_the_distributions() -> None:
    page = make()._repr_html_()
    assert page.startswith("<div class='mathhammer-result'>") and page.endswith("</div>")
    assert "toy · Monte Carlo, 4 trials, seed 5" in page and "<th>± se</th>" in page
    assert "P(unit destroyed) = 0.5000" in page
    # Damage: P(=1) = 0.5 and P(>=1) = 0.75, with the widest bar.
    assert (
        "<tr><td>1</td><td>0.5000</td><td>0.7500</td><td><div style='background:#4c78a8; height:0.8em; width:160px'>"
        in page
    )


def test_html_escapes_names() -> None:
    hists = [np.array([1], dtype=np.uint64), np.array([1], dtype=np.uint64)]
    r = Result.from_histograms(
        hists, ["damage", "models_destroyed"], {"damage": "<script>"}, ruleset="toy", evaluator="exact",
        trials=1, seed=None, target_models=1,
    )  # fmt: skip
    assert "<script>" not in r._repr_html_() and "&lt;script&gt;" in r._repr_html_()


def test_to_pandas_gives_stage_statistics_and_distributions() -> None:
    frame = make().to_pandas()
    assert list(frame.index) == ["attacks", "damage", "models_destroyed"]
    assert list(frame.columns) == ["label", "mean", "se", "sd"]
    assert frame.loc["damage", "mean"] == 1.0 and frame.loc["attacks", "label"] == "Attacks"
    damage = make()["damage"].to_pandas()
    assert damage.index.name == "k"
    assert damage["p"].tolist() == [0.25, 0.5, 0.25] and damage["p_at_least"].tolist() == [1.0, 0.75, 0.25]


def test_plot_returns_a_figure_of_each_distribution_and_its_tail() -> None:
    figure = make().plot()
    titles = [ax.get_title() for ax in figure.axes]
    assert titles == [
        "Damage: P(exactly k)",
        "Damage: P(at least k)",
        "Models destroyed: P(exactly k)",
        "Models destroyed: P(at least k)",
    ]


@pytest.mark.parametrize(
    ("module", "call", "extra"), [("pandas", "to_pandas", "pandas"), ("matplotlib", "plot", "plot")]
)
def test_a_missing_extra_names_the_pip_install(
    monkeypatch: pytest.MonkeyPatch, module: str, call: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes "import module" raise ImportError
    monkeypatch.delitem(sys.modules, "matplotlib.figure", raising=False)
    with pytest.raises(MissingDependencyError, match=re.escape(f"pip install 'mathhammer[{extra}]'")):
        getattr(make(), call)()


def test_p_at_least_answers_for_one_k_as_well_as_for_every_k() -> None:
    damage = make()["damage"]  # damage 0, 1, 1, 2 in four trials
    assert list(damage.p_at_least()) == [1.0, 0.75, 0.25]
    assert [damage.p_at_least(k) for k in (-1, 0, 1, 2, 3)] == [1.0, 1.0, 0.75, 0.25, 0.0]
    assert damage.p_at_least(np.int64(2)) == 0.25
    with pytest.raises(TypeError, match=r"k is 1.5; P\(number >= k\) needs a whole number k"):
        damage.p_at_least(1.5)  # type: ignore[call-overload]


def test_a_result_is_named_after_its_attacker_and_target() -> None:
    r = make()
    assert r.name == "toy" and r.how == "Monte Carlo, 4 trials"
    named = dataclasses.replace(r, attacker="Lascannons", target="Rhino")
    assert named.name == "Lascannons vs Rhino" and named.to_dict()["target"] == "Rhino"
