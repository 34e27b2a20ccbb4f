"""A pytest plugin for testing mathhammer plugins.

Load it with ``pytest_plugins = "mathhammer.testing"`` in a ``conftest.py``.
Fixtures never read installed entry points, so a test sees exactly the
plugins it asks for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

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
