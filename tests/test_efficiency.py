"""Points and efficiency: per-100-point metrics, points removed, rankings, and the CLI's list-against-targets.

The two-unit example, by hand (no saves, T4 everywhere, hits on 4+):

- Bolters (50 pts): 2 shots, S4 wounds on 4+: each removes 1 wound with p = 1/2 * 1/2 = 1/4.
- Lascannon (100 pts): 1 shot, S12 wounds on 2+: p = 1/2 * 5/6 = 5/12, for 2 damage.
- Squad (80 pts): 4 models of 1 wound; Brute (40 pts): 1 model of 2 wounds.

Bolters against Squad: models destroyed ~ Binomial(2, 1/4), mean 1/2; against Brute it dies
only if both succeed, 1/16. The Lascannon destroys one model (of either) with p = 5/12.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from mathhammer.compare import EFFICIENCY_METRICS, Comparison, compare, read_profiles
from mathhammer.exceptions import ScenarioError
from mathhammer.face import cli

LIBRARY = """
ruleset = "wh40k"

[attackers.Bolters]
points = 50
models = 2
[[attackers.Bolters.weapons]]
name = "Boltgun"
count = 2
attacks = 1
skill = "4+"
strength = 4
damage = 1

[attackers.Lascannon]
points = 100
[[attackers.Lascannon.weapons]]
name = "Lascannon"
attacks = 1
skill = "4+"
strength = 12
damage = 2

[targets.Squad]
points = 80
toughness = 4
[[targets.Squad.models]]
name = "Trooper"
count = 4
wounds = 1

[targets.Brute]
points = 40
toughness = 4
[[targets.Brute.models]]
name = "Brute"
wounds = 2
"""

# E[models destroyed], by hand: (attacker, target) -> value.
MODELS = {
    ("Bolters", "Squad"): 1 / 2,
    ("Bolters", "Brute"): 1 / 16,
    ("Lascannon", "Squad"): 5 / 12,
    ("Lascannon", "Brute"): 5 / 12,
}
POINTS = {"Bolters": 50, "Lascannon": 100, "Squad": 80, "Brute": 40}
MODEL_COUNT = {"Squad": 4, "Brute": 1}


def _hand(attacker: str, target: str, metric: str) -> float:
    models = MODELS[attacker, target]
    fraction = models / MODEL_COUNT[target]
    return {
        "models_destroyed_per_100": models * 100 / POINTS[attacker],
        "damage_per_100": {("Bolters", "Squad"): 1 / 2, ("Bolters", "Brute"): 1 / 2}.get((attacker, target), math.nan)
        * 100
        / POINTS[attacker],
        "p_unit_destroyed_per_100": (0.0 if target == "Squad" else models) * 100 / POINTS[attacker],
        "points_removed": fraction,
        "points_removed_per_100": fraction * POINTS[target] * 100 / POINTS[attacker],
    }[metric]


@pytest.fixture
def library(tmp_path: Path) -> Path:
    path = tmp_path / "units.toml"
    path.write_text(LIBRARY, encoding="utf-8")
    return path


def _compare(library: Path, **options: object) -> Comparison:
    profiles = read_profiles([library])
    return compare(list(profiles.attackers.values()), list(profiles.targets.values()), **options)  # type: ignore[arg-type]


def test_profiles_carry_points_and_models(library: Path) -> None:
    profiles = read_profiles([library])
    assert profiles.attackers["Bolters"].points == 50 and profiles.attackers["Bolters"].models == 2
    assert profiles.attackers["Lascannon"].models is None and profiles.targets["Brute"].points == 40
    assert "points" not in profiles.targets["Squad"].table


@pytest.mark.parametrize("metric", list(EFFICIENCY_METRICS))
def test_efficiency_matches_the_hand_computation_exactly(library: Path, metric: str) -> None:
    comparison = _compare(library, evaluator="exact")
    for (attacker, target), result in comparison.results.items():
        assert result.evaluator == "exact"
        expected = _hand(attacker, target, metric)
        if math.isnan(expected):  # the Lascannon's 2 damage into 1-wound models: not computed by hand
            continue
        assert comparison.value(attacker, target, metric) == pytest.approx(expected, abs=1e-12), (attacker, target)


def test_efficiency_matches_the_hand_computation_by_monte_carlo(library: Path) -> None:
    comparison = _compare(library, evaluator="monte_carlo", trials=200_000, seed=2024)
    for (attacker, target), result in comparison.results.items():
        se = result["models_destroyed"].se
        assert se > 0
        per_100 = 100 / POINTS[attacker]
        value = comparison.value(attacker, target, "models_destroyed_per_100")
        assert abs(value - MODELS[attacker, target] * per_100) < 5 * se * per_100
        scale = POINTS[target] / MODEL_COUNT[target] * per_100
        value = comparison.value(attacker, target, "points_removed_per_100")
        assert abs(value - MODELS[attacker, target] * scale) < 5 * se * scale


def test_points_removed_distribution(library: Path) -> None:
    comparison = _compare(library, evaluator="exact")
    points, p = comparison.points_removed("Bolters", "Squad")
    # 0, 1 or 2 troopers of 20 points each, Binomial(2, 1/4).
    assert points[:3].tolist() == [0.0, 20.0, 40.0]
    np.testing.assert_allclose(p[:3], [9 / 16, 6 / 16, 1 / 16], atol=1e-12)
    assert p[3:].sum() == pytest.approx(0.0, abs=1e-12)
    points, p = comparison.points_removed("Lascannon", "Brute")
    np.testing.assert_allclose(p[:2], [7 / 12, 5 / 12], atol=1e-12)
    assert points[1] == 40.0
    # The JSON output carries the same distribution, cell by cell.
    cells = {(c["attacker"], c["target"]): c for c in json.loads(json.dumps(comparison.to_dict()))["cells"]}
    shown = cells["Bolters", "Squad"]["points_removed"]
    assert shown["points"][:3] == [0.0, 20.0, 40.0]
    np.testing.assert_allclose(shown["probability"][:3], [9 / 16, 6 / 16, 1 / 16], atol=1e-12)


def test_rankings(library: Path) -> None:
    comparison = _compare(library, evaluator="exact")
    assert comparison.rank_metric() == "points_removed_per_100"
    ranking = {row[0]: row for row in comparison.ranking("points_removed_per_100")}
    assert ranking["Bolters"][1::2] == ("Squad", "Brute")
    assert ranking["Bolters"][2] == pytest.approx(20.0, abs=1e-12)
    assert ranking["Bolters"][4] == pytest.approx(5.0, abs=1e-12)
    assert ranking["Lascannon"][1::2] == ("Brute", "Squad")
    assert ranking["Lascannon"][2] == pytest.approx(50 / 3, abs=1e-12)
    best = {
        target: (attacker, value) for target, attacker, value in comparison.best_attackers("points_removed_per_100")
    }
    assert best["Squad"][0] == "Bolters" and best["Squad"][1] == pytest.approx(20.0, abs=1e-12)
    assert best["Brute"][0] == "Lascannon" and best["Brute"][1] == pytest.approx(50 / 3, abs=1e-12)


def test_without_points_the_efficiency_is_not_a_number(tmp_path: Path) -> None:
    path = tmp_path / "free.toml"
    path.write_text(LIBRARY.replace("points = 50\n", "").replace("points = 80\n", ""), encoding="utf-8")
    comparison = _compare(path, evaluator="exact")
    assert math.isnan(comparison.value("Bolters", "Squad", "models_destroyed_per_100"))
    assert math.isnan(comparison.value("Lascannon", "Squad", "points_removed_per_100"))
    # The Squad has no points to remove: not the fraction of its models (1/8) under the points' name.
    assert math.isnan(comparison.value("Bolters", "Squad", "points_removed"))
    assert comparison.value("Bolters", "Brute", "points_removed") == pytest.approx(1 / 16, abs=1e-12)
    assert comparison.rank_metric() == "models_destroyed"
    with pytest.raises(ScenarioError, match="target 'Squad' has no points"):
        comparison.points_removed("Bolters", "Squad")
    frame = comparison.to_pandas()
    assert frame["models_destroyed_per_100"].isna().tolist() == [True, True, False, False]  # the Bolters rows
    cells = comparison.to_dict()["cells"]
    assert cells[0]["efficiency"]["models_destroyed_per_100"] is None


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ("points = -5", "attackers.Bolters.points", "is -5; write what the unit costs"),
        ('points = "80"', "attackers.Bolters.points", "is '80'; write what the unit costs"),
        ("models = 0", "attackers.Bolters.models", "is 0; write how many models"),
    ],
)
def test_bad_points_are_named(tmp_path: Path, text: str, field: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(LIBRARY.replace("points = 50\nmodels = 2", text), encoding="utf-8")
    with pytest.raises(ScenarioError, match=rf"bad\.toml, field {field}: {message}"):
        read_profiles([path])


def test_compare_with_a_target_library_ranks(library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    targets = tmp_path / "targets.toml"
    targets.write_text(
        LIBRARY.split("[targets.Squad]")[0].split("[attackers.Bolters]")[0]
        + "[targets.Squad]"
        + LIBRARY.split("[targets.Squad]")[1],
        encoding="utf-8",
    )
    attackers = tmp_path / "army.toml"
    attackers.write_text(LIBRARY.split("[targets.Squad]")[0], encoding="utf-8")
    assert cli.main(["compare", str(attackers), "--target-library", str(targets)]) == 0
    out = capsys.readouterr().out
    assert "Expected target points removed per 100 points" in out
    assert "Best and worst targets by expected target points removed per 100 points" in out
    assert "Which attacker most efficiently removes each target" in out
    line = next(x for x in out.splitlines() if x.startswith("Bolters") and "Squad" in x and "Brute" in x)
    assert line.split()[1:] == ["Squad", "20.0", "Brute", "5.0"]
    assert cli.main(["compare", str(attackers), "--target-library", str(targets), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["target_points"] == {"Squad": 80.0, "Brute": 40.0}


def test_a_heatmap_of_a_metric_without_points_shows_dashes(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "free.toml"
    path.write_text(LIBRARY.replace("points = 50\n", "").replace("points = 100\n", ""), encoding="utf-8")
    comparison = _compare(path, evaluator="exact")
    figure = comparison.plot(["models_destroyed_per_100", "points_removed"])
    panels = [[t.get_text() for t in ax.texts] for ax in figure.axes if ax.texts]  # not the colour bars
    assert panels == [["-"] * 4, ["12.5%", "6.2%", "10.4%", "41.7%"]]


def test_targets_without_points_show_no_points_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "free-targets.toml"
    path.write_text(LIBRARY.replace("points = 80\n", "").replace("points = 40\n", ""), encoding="utf-8")
    assert "points_removed" not in _compare(path, evaluator="exact").default_metrics()
    assert cli.main(["compare", str(path), "--exact"]) == 0
    out = capsys.readouterr().out
    assert "Expected models destroyed per 100 points" in out
    assert "points removed" not in out  # no fraction of models titled as the target's points
    assert cli.main(["compare", str(path), "--exact", "--metric", "points_removed"]) == 0
    out = capsys.readouterr().out
    assert "Bolters" in out and "%" not in out  # every cell "-": nothing to remove, nothing to rank by
