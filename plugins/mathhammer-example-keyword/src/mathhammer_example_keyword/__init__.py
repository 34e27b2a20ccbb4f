"""Rending: a keyword the 40k rules do not have, as a third party would ship it.

Rending: each critical wound also inflicts 1 mortal wound on the target, in
addition to its normal damage (after the pool's normal damage, even if that
damage is saved).

It shows both ways a keyword can change the attack sequence:

- ``Rending`` edits the Plan with data (a ``mortal`` effect on critical
  wounds), so the Rust core runs it at full speed and the exact evaluator can
  handle it. Prefer this whenever the Plan vocabulary can say what you mean.
- ``Rending (batch)`` does the same through a batch hook: a numpy function
  called once per chunk of trials with the pool's numbers as arrays. Use this
  path only for behaviour no primitive expresses: it is slower (the core runs
  the chunk sequence by sequence and rolls every die), and the exact
  evaluator declines Plans that use it.

Only the public API is used: :data:`hookimpl`,
:mod:`mathhammer.plugin` (``KeywordSpec``, ``Effect``), and the ``wh40k``
ruleset's documented ``WeaponRules`` (duck-typed here, so this distribution
does not depend on the ruleset's code).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mathhammer.plugin import Effect, KeywordSpec, hookimpl


def rending_as_data(rules: Any) -> None:
    """One mortal wound per critical wound, spilling over, after normal damage."""
    rules.wound.effects.append(Effect(on="critical", action="mortal", amount="1", spill=True, ends_attack=False))


def rending_hook(arrays: dict[str, Any]) -> Mapping[str, np.ndarray]:
    """Per trial: as many mortal wounds as the wound test rolled criticals."""
    return {"mortal_wounds": np.asarray(arrays["criticals"]["wound"], dtype=np.int64)}


def rending_as_batch(rules: Any) -> None:
    rules.add_batch_hook(rending_hook)


@hookimpl
def mathhammer_register_keywords(register: Any) -> None:
    register(
        KeywordSpec(
            ruleset="wh40k",
            name="Rending",
            apply=rending_as_data,
            description="each critical wound also inflicts 1 mortal wound (example plugin)",
        )
    )
    register(
        KeywordSpec(
            ruleset="wh40k",
            name="Rending (batch)",
            apply=rending_as_batch,
            description="Rending through a numpy batch hook (example plugin)",
        )
    )
