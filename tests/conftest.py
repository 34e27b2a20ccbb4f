"""Shared fixtures. ``mathhammer.testing`` (plugin fixtures) loads through its pytest11 entry point."""

from __future__ import annotations

import pytest
from hypothesis import settings

from mathhammer.registry import Registry

# ``--hypothesis-profile=fuzz``: the fuzz tests (tests/test_fuzz.py) for about half an hour on a 2-core machine.
# Registered here, before pytest reads the option.
settings.register_profile("fuzz", max_examples=25_000)


@pytest.fixture
def registry() -> Registry:
    """A registry holding only the 40k ruleset, built without reading entry points."""
    from mathhammer_wh40k import plugin

    return Registry.from_plugins([("wh40k", plugin)])
