"""Running scenarios from Python: seeds, threads, progress and bad arguments."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mathhammer
from mathhammer import PlanError, Registry, ScenarioError, _core
from mathhammer.plan import AttackPool
from mathhammer.simulate import prepare
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


# -------------------------------------------------------------------------
# Parts of a run: chunks [first, last) on their own, merged
# -------------------------------------------------------------------------


def _parts(core: _core.CompiledPlan, trials: int, seed: int, cuts: list[int], **kwargs: Any) -> list[Any]:
    return [
        _core.simulate_chunks(core, trials, seed, first, last, 1, None, **kwargs)
        for first, last in itertools.pairwise(cuts)
    ]


@pytest.mark.parametrize("die_by_die", [False, True])
def test_parts_of_a_run_merge_into_the_whole_run_count_for_count(registry: Registry, die_by_die: bool) -> None:
    core = prepare(boltguns(), registry=registry).core
    trials = 6 * _core.CHUNK_TRIALS + 77
    assert _core.chunk_count(trials) == 7
    whole = _core.simulate(core, trials, 9, 2, None, die_by_die)
    for cuts in ([0, 7], [0, 1, 7], [0, 2, 3, 6, 7]):
        parts = _parts(core, trials, 9, cuts, die_by_die=die_by_die)
        for backwards in (False, True):
            merged = _core.merge_histograms(parts[::-1] if backwards else parts)
            assert [h.tolist() for h in merged] == [h.tolist() for h in whole], cuts
        assert sum(int(p[0].sum()) for p in parts) == trials
    assert int(_parts(core, trials, 9, [6, 7])[0][0].sum()) == 77


def test_parts_of_a_run_with_a_batch_hook_merge_into_the_whole_run(registry: Registry) -> None:
    # A hooked pool runs a chunk sequence by sequence: another path through the core, cut the same way.
    def unchanged(arrays: dict[str, Any]) -> dict[str, Any]:
        return {}

    plan = prepare(boltguns(), registry=registry).compiled.plan
    pool = plan.sequences[0]
    assert isinstance(pool, AttackPool)
    pool.batch_hook = plan.add_hook(unchanged)
    core = plan.compile()
    assert core.has_batch_hooks
    trials = 3 * _core.CHUNK_TRIALS
    whole = _core.simulate(core, trials, 4, 1)
    merged = _core.merge_histograms(_parts(core, trials, 4, [0, 2, 3]))
    assert [h.tolist() for h in merged] == [h.tolist() for h in whole]


def test_a_part_reports_progress_over_its_own_trials(registry: Registry) -> None:
    core = prepare(boltguns(), registry=registry).core
    calls: list[tuple[int, int]] = []
    _core.simulate_chunks(core, 3 * _core.CHUNK_TRIALS + 5, 1, 2, 4, 1, lambda d, t: calls.append((d, t)))
    assert calls[-1] == (_core.CHUNK_TRIALS + 5, _core.CHUNK_TRIALS + 5)


@pytest.mark.parametrize(("first", "last"), [(0, 0), (2, 1), (0, 3), (3, 4)])
def test_chunks_outside_the_run_are_refused_by_name(registry: Registry, first: int, last: int) -> None:
    core = prepare(boltguns(), registry=registry).core
    with pytest.raises(PlanError, match=rf"chunks: are {first}\.\.{last}; a run of 32768 trials has chunks 0\.\.2"):
        _core.simulate_chunks(core, 2 * _core.CHUNK_TRIALS, 1, first, last)


def test_merging_refuses_parts_of_different_runs() -> None:
    one = [np.array([1, 2], dtype=np.uint64), np.array([3], dtype=np.uint64)]
    with pytest.raises(ValueError, match="parts: part 1 has 1 histograms, but part 0 has 2"):
        _core.merge_histograms([one, one[:1]])
    with pytest.raises(ValueError, match="parts: is empty"):
        _core.merge_histograms([])
    merged = _core.merge_histograms([one, [np.array([0, 0, 5], dtype=np.uint64), np.array([], dtype=np.uint64)]])
    assert [h.tolist() for h in merged] == [[1, 2, 5], [3]]
    strided = np.arange(6, dtype=np.uint64)[::2]  # not contiguous, as arrays that came over a network may be
    assert [h.tolist() for h in _core.merge_histograms([[strided], [strided]])] == [[0, 4, 8]]
