"""Running scenarios from Python: seeds, threads, progress and bad arguments."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

import mathhammer
from mathhammer import Registry, ScenarioError
from mathhammer.testing import ToyScenario


def boltguns() -> ToyScenario:
    """Twenty shots hitting on 3+ into ten two-wound models saving on 4+ (the toy ruleset)."""
    return ToyScenario(attacks="20", hit=3, save=4, damage="1", models=10, wounds=2, keywords=("Extra Hits 1",))


def test_same_seed_same_result_on_any_number_of_threads(registry: Registry) -> None:
    one = mathhammer.simulate(boltguns(), trials=50_000, seed=3, threads=1, registry=registry)
    two = mathhammer.simulate(boltguns(), trials=50_000, seed=3, threads=2, registry=registry)
    assert one.to_dict() | {"seconds": 0} == two.to_dict() | {"seconds": 0}
    other = mathhammer.simulate(boltguns(), trials=50_000, seed=4, registry=registry)
    assert other["hits"].mean != one["hits"].mean


def test_without_a_seed_one_is_chosen_and_reported(registry: Registry) -> None:
    result = mathhammer.simulate(boltguns(), trials=1_000, registry=registry)
    again = mathhammer.simulate(boltguns(), trials=1_000, seed=result.seed, registry=registry)
    assert result["damage"].pmf.tolist() == again["damage"].pmf.tolist()


def test_progress_is_reported_while_running_and_at_the_end(registry: Registry) -> None:
    calls: list[tuple[int, int]] = []
    mathhammer.simulate(
        boltguns(), trials=1_100_000, seed=1, registry=registry, progress=lambda d, t: calls.append((d, t))
    )
    assert calls[-1] == (1_100_000, 1_100_000)
    assert all(a[0] <= b[0] and a[1] == 1_100_000 for a, b in itertools.pairwise(calls))


def test_an_exception_in_progress_stops_the_run(registry: Registry) -> None:
    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        mathhammer.simulate(boltguns(), trials=2_000_000, seed=1, registry=registry, progress=stop)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"trials": 0}, "trials is 0"),
        ({"trials": 2.5}, "trials is 2.5"),
        ({"seed": -1}, "seed is -1"),
        ({"seed": 2**64}, "seed is"),
        ({"threads": -2}, "threads is -2"),
        ({"threads": 10**6}, "threads is 1000000"),
    ],
)
def test_bad_run_arguments_are_named(registry: Registry, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        mathhammer.simulate(boltguns(), registry=registry, **kwargs)  # type: ignore[arg-type]


def test_an_object_without_a_ruleset_is_refused(registry: Registry) -> None:
    with pytest.raises(ScenarioError, match="names no ruleset"):
        mathhammer.simulate(object(), registry=registry, trials=10)


def test_a_path_is_not_a_scenario_and_the_error_says_how_to_load_it() -> None:
    with pytest.raises(ScenarioError, match=r"load_scenario\('examples/boltguns.toml'\)"):
        mathhammer.simulate("examples/boltguns.toml")


def test_more_trials_than_a_run_allows_is_refused_before_the_core() -> None:
    with pytest.raises(ScenarioError, match="from 1 to 1,000,000,000,000"):
        examples = Path(__file__).resolve().parents[1] / "examples"
        mathhammer.simulate(mathhammer.load_scenario(examples / "boltguns.toml"), trials=2**64)
