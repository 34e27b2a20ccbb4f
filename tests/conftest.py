"""Shared fixtures. ``mathhammer.testing`` (plugin fixtures) loads through its pytest11 entry point.

The framework's own tests run on the toy ruleset of :mod:`mathhammer.testing`
and import no game's plugin: what they check must hold for any ruleset.
Tests of the command line, the examples and the docs read the example files,
which are 40k scenarios; they reach the 40k ruleset as a user does, through the
installed plugins' entry points (``installed``), never by importing it.
A test that needs a 40k scenario built in Python belongs in
``plugins/mathhammer-wh40k/tests``.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

from mathhammer.registry import Registry, default_registry
from mathhammer.testing import toy_registry

# ``--hypothesis-profile=fuzz``: the fuzz tests (tests/test_fuzz.py) for about half an hour on a 2-core machine.
# Registered here, before pytest reads the option.
settings.register_profile("fuzz", max_examples=25_000)


@pytest.fixture
def registry() -> Registry:
    """The toy ruleset and its keywords, built without reading entry points."""
    return toy_registry()


@pytest.fixture
def installed() -> Registry:
    """The installed plugins, found through their entry points, for tests of the example files."""
    return default_registry()


@pytest.fixture
def slow_exact() -> Callable[[str], str]:
    """The text of a 40k scenario file that the exact evaluator works on for seconds until its work limit declines
    it, with its target named as given: ``SLOW_EXACT`` of ``benches/interrupts.py``, for tests of cancelling an
    exact run."""
    path = Path(__file__).resolve().parents[1] / "benches" / "interrupts.py"
    spec = importlib.util.spec_from_file_location("interrupt_cases", path)
    assert spec is not None and spec.loader is not None
    bench = sys.modules.get(spec.name) or importlib.util.module_from_spec(spec)
    if spec.name not in sys.modules:
        sys.modules[spec.name] = bench  # dataclasses look their module up
        spec.loader.exec_module(bench)
    text: str = bench.SLOW_EXACT
    assert 'name = "Mob"' in text
    return lambda target: text.replace('name = "Mob"', f'name = "{target}"')
