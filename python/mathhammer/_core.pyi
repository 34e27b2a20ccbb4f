"""Type stubs for the Rust extension ``mathhammer._core``.

Written by hand; ``make lint`` checks them against the built module with stubtest.
"""

from collections.abc import Callable, Sequence
from typing import Any, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "CHUNK_TRIALS",
    "MAX_DICE",
    "MAX_MODELS",
    "MAX_TOKENS_PER_TRIAL",
    "MAX_VALUE",
    "PLAN_VERSION",
    "CompiledPlan",
    "DeclinedError",
    "DiceError",
    "DiceExpr",
    "HookError",
    "MathhammerError",
    "PlanError",
    "ScriptError",
    "evaluate_exact",
    "parse_dice",
    "replay",
    "simulate",
]

PLAN_VERSION: int
"""Version of the Plan format this core runs."""
CHUNK_TRIALS: int
"""Trials per chunk; chunk ``k`` draws from the stream seeded by ``(seed, k)``."""
MAX_DICE: int
"""The most dice one dice expression may roll."""
MAX_MODELS: int
"""The most models a target (or one attack term) may hold."""
MAX_TOKENS_PER_TRIAL: int
"""The most attack dice, extra ones included, one trial may create."""
MAX_VALUE: int
"""The largest value any reported number (counter, damage, wounds of a target) may reach in one trial."""

class MathhammerError(Exception):
    """Base class of every error mathhammer raises."""

class DiceError(ValueError):
    """A dice expression that cannot be rolled, such as ``D0`` or ``1000000D6``."""

class PlanError(ValueError):
    """A Plan that is not well-formed; the message names the field."""

class ScriptError(MathhammerError):
    """Scripted dice ran out or did not fit the die rolled."""

class HookError(MathhammerError):
    """A batch hook failed or handed back arrays that do not fit."""

class DeclinedError(MathhammerError):
    """The exact evaluator cannot evaluate this Plan exactly; the message says why."""

@final
class DiceExpr:
    """A parsed dice expression: ``count`` dice of ``sides`` sides plus ``constant``."""

    @property
    def count(self) -> int: ...
    @property
    def sides(self) -> int: ...
    @property
    def constant(self) -> int: ...
    @property
    def min(self) -> int: ...
    @property
    def max(self) -> int: ...
    @property
    def is_random(self) -> bool: ...
    def mean(self) -> float: ...
    def distribution(self) -> npt.NDArray[np.float64]:
        """Exact distribution: element ``v`` is P(value = v)."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def parse_dice(text: str) -> DiceExpr:
    """Parse ``3``, ``D3``, ``D6+1``, ``2D6``, ``2D3+1``; raises :class:`DiceError` for nonsense."""

@final
class CompiledPlan:
    """A checked Plan (JSON text in the format of ``docs/architecture.md``), ready to run."""

    def __new__(
        cls, plan_json: str, hooks: Sequence[Callable[[dict[str, Any]], object]] | None = None
    ) -> CompiledPlan: ...
    @property
    def has_batch_hooks(self) -> bool:
        """Whether a pool calls a Python batch hook (Monte Carlo then runs a chunk at a time)."""
    @property
    def counters(self) -> list[str]: ...
    @property
    def numbers(self) -> list[str]:
        """Names of the histograms ``simulate`` returns: counters, damage, models destroyed, then the attacker's."""
    @property
    def groups(self) -> list[str]: ...
    @property
    def target_models(self) -> int: ...
    def uses_fast_path(self) -> bool:
        """Whether Monte Carlo draws pool outcomes from exact tables instead of rolling every die."""

def simulate(
    plan: CompiledPlan,
    trials: int,
    seed: int,
    threads: int = 0,
    progress: Callable[[int, int], object] | None = None,
    die_by_die: bool = False,
) -> list[npt.NDArray[np.uint64]]:
    """Run ``trials`` trials; one histogram per name in ``plan.numbers``."""

def replay(plan: CompiledPlan, dice: list[object]) -> dict[str, object]:
    """Resolve one trial with the given dice; returns counters, damage, models destroyed, events."""

def evaluate_exact(
    plan: CompiledPlan, progress: Callable[[int, int], object] | None = None
) -> list[npt.NDArray[np.float64]]:
    """Exact distributions, one pmf per name in ``plan.numbers``; raises :class:`DeclinedError` saying why.

    ``progress(0, 0)`` is called about ten times a second; an exception it raises stops the evaluation
    and is raised here (the way to cancel an evaluation running off the main thread).
    """
