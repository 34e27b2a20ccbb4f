"""1,000,000 trials of the foundation scenario: mathhammer next to numpy.

10 models x 2 attacks, BS3+, S4, AP-1, D1 into 10 models T4 Sv3+ W2.
Each benchmark also checks that its answer is right: the mean of models
destroyed against the exact value, within five standard errors.

Run with ``make bench``; compare the ``min`` column within one run, since the
machine is shared and noisy.
"""

from __future__ import annotations

from math import comb
from pathlib import Path

import numpy as np
import pytest

import mathhammer
from mathhammer import _core

TRIALS = 1_000_000
SCENARIO = Path(__file__).resolve().parents[1] / "examples" / "boltguns.toml"
P_UNSAVED = 4 / 6 * 3 / 6 * 3 / 6
EXACT_DESTROYED = sum(comb(20, k) * P_UNSAVED**k * (1 - P_UNSAVED) ** (20 - k) * (k // 2) for k in range(21))


def numpy_boltguns(trials: int, seed: int) -> dict[str, np.ndarray]:
    """The best vectorised numpy version: binomial draws per stage, no per-die loop."""
    rng = np.random.default_rng(seed)
    hits = rng.binomial(20, 4 / 6, trials)
    wounds = rng.binomial(hits, 3 / 6)
    failed = rng.binomial(wounds, 3 / 6)
    damage = np.minimum(failed, 20)
    destroyed = np.minimum(failed // 2, 10)
    return {
        name: np.bincount(v)
        for name, v in [
            ("hits", hits),
            ("wounds", wounds),
            ("failed_saves", failed),
            ("damage", damage),
            ("models_destroyed", destroyed),
        ]
    }


def check_destroyed(pmf: np.ndarray, trials: int) -> None:
    k = np.arange(len(pmf))
    mean = float(np.dot(k, pmf))
    se = float(np.sqrt(np.dot((k - mean) ** 2, pmf) / trials))
    assert abs(mean - EXACT_DESTROYED) < 5 * se, (mean, EXACT_DESTROYED, se)


@pytest.fixture(scope="module")
def scenario() -> object:
    return mathhammer.load_scenario(SCENARIO)


@pytest.mark.benchmark(group="boltguns-1M")
def test_numpy_vectorised(benchmark: pytest.FixtureDef) -> None:  # type: ignore[type-arg]
    result = benchmark(numpy_boltguns, TRIALS, 1)
    check_destroyed(result["models_destroyed"] / TRIALS, TRIALS)


@pytest.mark.benchmark(group="boltguns-1M")
def test_mathhammer_one_thread(benchmark: pytest.FixtureDef, scenario: object) -> None:  # type: ignore[type-arg]
    result = benchmark(mathhammer.simulate, scenario, trials=TRIALS, seed=1, threads=1)
    check_destroyed(result["models_destroyed"].pmf, TRIALS)


@pytest.mark.benchmark(group="boltguns-1M")
def test_mathhammer_all_cores(benchmark: pytest.FixtureDef, scenario: object) -> None:  # type: ignore[type-arg]
    result = benchmark(mathhammer.simulate, scenario, trials=TRIALS, seed=1, threads=0)
    check_destroyed(result["models_destroyed"].pmf, TRIALS)


@pytest.mark.benchmark(group="boltguns-1M")
def test_mathhammer_die_by_die_one_thread(benchmark: pytest.FixtureDef, scenario: object) -> None:  # type: ignore[type-arg]
    plan = mathhammer.compile_scenario(scenario).plan.compile()
    hists = benchmark(_core.simulate, plan, TRIALS, 1, 1, None, True)
    check_destroyed(hists[plan.numbers.index("models_destroyed")] / TRIALS, TRIALS)
