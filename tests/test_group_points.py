"""Points removed from a target whose models differ in worth: an attached Leader and its bodyguard.

The two-group example, by hand: a Leader (CHARACTER, W4, 100 points) leads five 1-wound models
(100 points for the five, 20 each). Ten shots hit on 2+ and wound on 2+ (S8 against T4); AP-4
leaves no save, so each removes one wound with p = 5/6 * 5/6 = 25/36, and the wounds lost are
X ~ Binomial(10, 25/36). The bodyguard goes first, then the Leader, who dies at 4 more:

    points removed = 20 * min(X, 5) + 100 * [X >= 9]

Spreading the unit's 200 points evenly over its 6 models would count the Leader as 33 points.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathhammer import points as points_module
from mathhammer.compare import Comparison, Profile, compare, read_profiles
from mathhammer.exceptions import ScenarioError
from mathhammer.plan import Group
from mathhammer.points import GroupPoints, group_points
from mathhammer.result import VALUE_STAGE
from mathhammer.testing import run_cli

GUN = {"weapons": [{"name": "Gun", "attacks": "10", "skill": "2+", "strength": 8, "ap": -4, "damage": "1"}]}
ATTACHED: dict[str, Any] = {
    "name": "Leader + Guard",
    "toughness": 4,
    "models": [
        {"name": "Guard", "count": 5, "wounds": 1, "save": "6+"},
        {"name": "Leader", "wounds": 4, "save": "6+", "character": True, "points": 100},
    ],
}
P = Fraction(25, 36)


def _binomial(k: int, n: int = 10) -> Fraction:
    return math.comb(n, k) * P**k * (1 - P) ** (n - k)


def _by_hand() -> dict[int, Fraction]:
    """P(points removed = v), from the formula in the module's docstring."""
    out: dict[int, Fraction] = {}
    for x in range(11):
        value = 20 * min(x, 5) + (100 if x >= 9 else 0)
        out[value] = out.get(value, Fraction(0)) + _binomial(x)
    return out


def _compare(evaluator: str, **options: object) -> Comparison:
    return compare(
        [Profile("gun", "wh40k", GUN, points=100)],
        [Profile("attached", "wh40k", ATTACHED, points=200)],
        evaluator=evaluator,  # type: ignore[arg-type]
        **options,  # type: ignore[arg-type]
    )


def test_exact_points_removed_match_the_hand_computation() -> None:
    comparison = _compare("exact")
    assert comparison.results["gun", "attached"].evaluator == "exact"
    points, probability = comparison.points_removed("gun", "attached")
    hand = _by_hand()
    assert points.tolist() == sorted(hand)
    np.testing.assert_allclose(probability, [float(hand[v]) for v in sorted(hand)], rtol=0, atol=1e-12)
    mean = sum(v * p for v, p in hand.items())
    assert comparison.value("gun", "attached", "points_removed") == pytest.approx(float(mean / 200), abs=1e-12)
    assert comparison.value("gun", "attached", "points_removed_per_100") == pytest.approx(float(mean), abs=1e-9)
    # Killing the Leader removes half the unit's points, not a sixth.
    assert points[-1] == 200.0 and probability[-1] == pytest.approx(float(_binomial(9) + _binomial(10)), abs=1e-12)


def test_monte_carlo_tally_holds_to_the_exact_one() -> None:
    trials = 400_000
    simulated = _compare("monte_carlo", trials=trials, seed=16)
    exact = _compare("exact")
    assert simulated.results["gun", "attached"].evaluator == "monte_carlo"
    mc_points, mc_p = simulated.points_removed("gun", "attached")
    ex_points, ex_p = exact.points_removed("gun", "attached")
    assert mc_points.tolist() == ex_points.tolist()
    for p_mc, p_ex in zip(mc_p, ex_p, strict=True):
        se = math.sqrt(p_ex * (1 - p_ex) / trials)
        assert abs(p_mc - p_ex) <= 5 * se + 1e-12
    mean = float(ex_points @ ex_p)
    sd = math.sqrt(float((ex_points - mean) ** 2 @ ex_p))
    got = simulated.value("gun", "attached", "points_removed") * 200
    assert abs(got - mean) <= 5 * sd / math.sqrt(trials)


def test_the_scaled_form_gives_what_the_joint_index_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    joint = _compare("exact").points_removed("gun", "attached")
    monkeypatch.setattr(points_module, "MAX_JOINT", 1)
    scaled = _compare("exact").points_removed("gun", "attached")
    np.testing.assert_array_equal(joint[0], scaled[0])
    np.testing.assert_allclose(joint[1], scaled[1], rtol=0, atol=1e-12)


def test_models_of_one_worth_ask_the_core_for_nothing_more() -> None:
    even = {**ATTACHED, "models": [{**m} for m in ATTACHED["models"]]}
    del even["models"][1]["points"]
    comparison = compare(
        [Profile("gun", "wh40k", GUN, points=100)], [Profile("even", "wh40k", even, points=200)], evaluator="exact"
    )
    result = comparison.results["gun", "even"]
    assert VALUE_STAGE not in result.stages
    assert comparison.group_points["even"].uniform and comparison.group_points["even"].shared
    points, _ = comparison.points_removed("gun", "even")
    assert points[1] == pytest.approx(200 / 6)
    assert VALUE_STAGE in _compare("exact").results["gun", "attached"].stages


def test_the_value_stage_stays_out_of_reports() -> None:
    result = _compare("exact").results["gun", "attached"]
    assert VALUE_STAGE not in {s.name for s in result.shown}
    assert "Value destroyed" not in result.to_text()


def test_points_on_every_model_need_no_unit_points() -> None:
    both = {**ATTACHED, "models": [{**ATTACHED["models"][0], "points": 100}, ATTACHED["models"][1]]}
    comparison = compare([Profile("gun", "wh40k", GUN)], [Profile("t", "wh40k", both)], evaluator="exact")
    assert comparison.target_points == {"t": 200.0}
    assert comparison.points_removed("gun", "t")[0][-1] == 200.0


def _groups(*points: float | None) -> list[Group]:
    return [Group("Guard", 5, 1, points=points[0]), Group("Leader", 1, 4, tier=1, points=points[1])]


def test_group_points_share_what_the_groups_leave() -> None:
    costs = group_points(_groups(None, 100), 200, "t")
    assert costs == GroupPoints(("Guard", "Leader"), (5, 1), (100.0, 100), shared=True)
    assert costs.per_model == (20.0, 100.0) and not costs.uniform
    assert group_points(_groups(None, None), None, "t") is None
    assert group_points(_groups(None, None), 60, "t") == GroupPoints(("Guard", "Leader"), (5, 1), (50.0, 10.0), True)


@pytest.mark.parametrize(
    ("points", "unit", "message"),
    [
        ((None, 300), 200, "add up to 300, more than its points = 200"),
        ((None, 100), None, "groups 'Guard' give no points and the unit has none"),
        ((50, 100), 200, "add up to 150, not its points = 200"),
    ],
)
def test_group_points_that_disagree_are_refused(
    points: tuple[float | None, ...], unit: float | None, message: str
) -> None:
    with pytest.raises(ScenarioError, match=message):
        group_points(_groups(*points), unit, "t")


def test_a_library_target_with_disagreeing_points_names_its_field(tmp_path: Path) -> None:
    path = tmp_path / "units.toml"
    path.write_text(
        """ruleset = "wh40k"
[attackers.gun]
[[attackers.gun.weapons]]
name = "Gun"
attacks = 1
skill = "3+"
strength = 4
damage = 1
[targets.t]
points = 50
toughness = 4
[[targets.t.models]]
name = "Leader"
wounds = 4
character = true
points = 100
""",
        encoding="utf-8",
    )
    profiles = read_profiles([path])
    with pytest.raises(ScenarioError, match=r"units\.toml, field targets\.t\.points: .*more than its points = 50"):
        compare(list(profiles.attackers.values()), list(profiles.targets.values()), evaluator="exact")


def test_model_entries_of_one_group_give_points_on_both_or_neither() -> None:
    mixed = {
        "name": "Squad",
        "toughness": 4,
        "models": [{"name": "Sergeant", "wounds": 1, "points": 20}, {"name": "Trooper", "count": 4, "wounds": 1}],
    }
    with pytest.raises(ScenarioError, match=r"models\[1\]\.points.*only one of them gives points"):
        compare([Profile("gun", "wh40k", GUN)], [Profile("t", "wh40k", mixed, points=100)], evaluator="exact")


def test_the_command_line_prints_the_points_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "units.toml"
    path.write_text(
        """ruleset = "wh40k"
[attackers.gun]
points = 100
[[attackers.gun.weapons]]
name = "Gun"
attacks = 10
skill = "2+"
strength = 8
ap = -4
damage = 1
[targets.attached]
points = 200
toughness = 4
[[targets.attached.models]]
name = "Guard"
count = 5
wounds = 1
save = "6+"
[[targets.attached.models]]
name = "Leader"
wounds = 4
save = "6+"
character = true
points = 100
""",
        encoding="utf-8",
    )
    assert run_cli(["compare", str(path), "--exact", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["target_points"] == {"attached": 200.0}
    assert printed["target_group_points"] == {"attached": {"Guard": 100.0, "Leader": 100}}
    (cell,) = printed["cells"]
    hand = _by_hand()
    assert cell["points_removed"]["points"] == sorted(hand)
    np.testing.assert_allclose(
        cell["points_removed"]["probability"], [float(hand[v]) for v in sorted(hand)], atol=1e-12
    )
    mean = float(sum(v * p for v, p in hand.items()))
    assert cell["efficiency"]["points_removed_per_100"] == pytest.approx(mean, abs=1e-9)
