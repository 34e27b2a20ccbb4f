"""Shared fixtures. ``mathhammer.testing`` (plugin fixtures) loads through its pytest11 entry point."""

from __future__ import annotations

import pytest

from mathhammer.registry import Registry


@pytest.fixture
def registry() -> Registry:
    """A registry holding only the 40k ruleset, built without reading entry points."""
    from mathhammer_wh40k import plugin

    return Registry.from_plugins([("wh40k", plugin)])
