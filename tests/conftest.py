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

from collections.abc import Callable

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
    """A 40k scenario file's text, its target named as given, that the exact evaluator works on for seconds
    until its work limit declines it: three pools of several D6 attacks with Sustained Hits and Devastating
    Wounds, into a unit of two groups. For tests of cancelling an exact run."""

    def text(target: str) -> str:
        weapon = (
            '[[attacker.weapons]]\nname = "W{i}"\ntype = "ranged"\ncount = 3\nattacks = "D6"\nskill = "3+"\n'
            'strength = 5\nap = -1\ndamage = "D3"\nkeywords = ["Devastating Wounds", "Sustained Hits 1"]\n\n'
        )
        groups = "".join(
            f'[[target.models]]\nname = "M{i}"\ncount = 10\nwounds = 3\nsave = "{save}"\n\n'
            for i, save in enumerate(("3+", "4+"))
        )
        return (
            'ruleset = "wh40k"\n\n'
            + "".join(weapon.format(i=i) for i in range(3))
            + f'[target]\nname = "{target}"\ntoughness = 4\n\n'
            + groups
        )

    return text
