"""A pytest plugin for testing mathhammer plugins.

Load it with ``pytest_plugins = "mathhammer.testing"`` in a ``conftest.py``.
Fixtures never read installed entry points, so a test sees exactly the
plugins it asks for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest

from mathhammer.registry import Registry
from mathhammer.result import Stage


@pytest.fixture
def make_registry() -> Callable[..., Registry]:
    """Build a :class:`~mathhammer.registry.Registry` from ``(name, plugin)`` pairs."""

    def make(*plugins: tuple[str, object]) -> Registry:
        return Registry.from_plugins(plugins)

    return make


@pytest.fixture
def plugin_manager(make_registry: Callable[..., Registry]) -> Iterator[Registry]:
    """An empty registry; register more with ``registry.manager.register`` then ``collect()``."""
    registry = make_registry()
    yield registry
    for plugin in list(registry.manager.get_plugins()):
        registry.manager.unregister(plugin)


def assert_mean(stage: Stage, exact: float, *, z: float = 5.0) -> None:
    """Assert a simulated mean is within ``z`` standard errors of an exact value.

    The standard error comes from the run itself; use a fixed seed so the test
    never flakes. A stage whose value never varied must match exactly.
    """
    se = stage.se
    if se == 0.0:
        assert stage.mean == pytest.approx(exact, abs=1e-12), f"{stage.name}: {stage.mean} != {exact}"
        return
    off = (stage.mean - exact) / se
    assert abs(off) < z, f"{stage.name}: mean {stage.mean:.5f} is {off:.1f} standard errors from exact {exact:.5f}"


def plugin_object(**hooks: Callable[..., Any]) -> object:
    """A plugin made of the given hook functions, for registering in tests.

    >>> import mathhammer
    >>> @mathhammer.hookimpl
    ... def mathhammer_register_rulesets(register): ...
    >>> plugin = plugin_object(mathhammer_register_rulesets=mathhammer_register_rulesets)
    """
    return type("Plugin", (), {name: staticmethod(fn) for name, fn in hooks.items()})()


def assert_same_distribution(a: Stage, b: Stage, *, alpha: float = 1e-6) -> None:
    """Assert two simulated stages come from the same distribution.

    A chi-square two-sample test over the values, pooling neighbouring values
    until each cell holds at least 50 trials of the two runs together, at
    significance ``alpha`` (small, so a suite of such checks with fixed seeds
    never flakes). The quantile is Wilson and Hilferty's approximation. Use it
    to hold two implementations of one rule to each other.
    """
    counts_a = np.rint(a.pmf * a.trials)
    counts_b = np.rint(b.pmf * b.trials)
    size = max(len(counts_a), len(counts_b))
    counts_a = np.pad(counts_a, (0, size - len(counts_a)))
    counts_b = np.pad(counts_b, (0, size - len(counts_b)))
    ka, kb = math.sqrt(b.trials / a.trials), math.sqrt(a.trials / b.trials)
    chi2, cells, ca, cb = 0.0, 0, 0.0, 0.0
    for v in range(size):
        ca += counts_a[v]
        cb += counts_b[v]
        if ca + cb >= 50 or v == size - 1:
            if ca + cb > 0:
                chi2 += (ka * ca - kb * cb) ** 2 / (ca + cb)
                cells += 1
            ca = cb = 0.0
    k = max(cells - 1, 1)
    z = NormalDist().inv_cdf(1 - alpha)
    bound = k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3
    assert chi2 < bound, f"{a.name}: chi-square {chi2:.1f} over {cells} cells exceeds {bound:.1f} (alpha {alpha})"
