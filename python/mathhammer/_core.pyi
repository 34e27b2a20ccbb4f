"""Type stubs for the Rust extension ``mathhammer._core``.

Written by hand; ``make lint`` checks them against the built module with stubtest.
"""

from collections.abc import Callable, Sequence
from typing import Any, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "CHUNK_TRIALS",
    "MAX_ATTACKS",
    "MAX_CONSTANT",
    "MAX_DICE",
    "MAX_MODELS",
    "MAX_MODIFIER",
    "MAX_ROLL_COMBINATIONS",
    "MAX_ROUNDS",
    "MAX_SIDES",
    "MAX_TOKENS_PER_TRIAL",
    "MAX_TRIALS",
    "MAX_VALUE",
    "PLAN_VERSION",
    "CompiledPlan",
    "DeclinedError",
    "DiceError",
    "DiceExpr",
    "HookError",
    "InternalError",
    "MathhammerError",
    "PlanError",
    "ScriptError",
    "_panic_for_tests",
    "chunk_count",
    "evaluate_exact",
    "merge_histograms",
    "parse_dice",
    "replay",
    "replay_seeded",
    "simulate",
    "simulate_chunks",
]

PLAN_VERSION: int
"""Version of the Plan format this core runs."""
CHUNK_TRIALS: int
"""Trials per chunk; chunk ``k`` draws from the stream seeded by ``(seed, k)``."""
MAX_DICE: int
"""The most dice one dice expression may roll."""
MAX_SIDES: int
"""The most sides a die may have."""
MAX_CONSTANT: int
"""The largest constant term of a dice expression."""
MAX_MODELS: int
"""The most models a side (or one attack term) may hold."""
MAX_ATTACKS: int
"""The most attack dice one trial's attacks may roll, before extra hits."""
MAX_TOKENS_PER_TRIAL: int
"""The most attack dice one trial may create, extra hits included."""
MAX_VALUE: int
"""The largest value any reported number (counter, damage, wounds of a side) may reach in one trial."""
MAX_MODIFIER: int
"""The largest modifier, AP or bonus, either way."""
MAX_ROUNDS: int
"""The most rounds a fight may last."""
MAX_ROLL_COMBINATIONS: int
"""The most combinations of faces a roll of several dice may have."""
MAX_TRIALS: int
"""The most trials one run may ask for."""

class MathhammerError(Exception):
    """Base class of every error mathhammer raises."""

class DiceError(MathhammerError, ValueError):
    """A dice expression that cannot be rolled, such as ``D0`` or ``1000000D6``.

    Raised by the core, it has ``expression`` (the text) and ``reason`` (the message after it).
    """

class PlanError(MathhammerError, ValueError):
    """A Plan that is not well-formed; the message names the field.

    Raised by the core, it has ``field`` (a dotted path into the Plan) and ``reason``,
    and ``limit`` when the Plan is well-formed but past one of the core's limits.
    """

class ScriptError(MathhammerError):
    """Scripted dice ran out or did not fit the die rolled."""

class HookError(MathhammerError):
    """A batch hook failed or handed back arrays that do not fit."""

class InternalError(MathhammerError):
    """A bug in mathhammer, such as a panic in the Rust core; the message asks for a report."""

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
        """Names of the histograms ``simulate`` returns: counters, damage, models destroyed, the attacker's,
        then ``destroyed:<group>`` for each of the target's groups, then ``damage:<weapon>`` and
        ``mortal_wounds:<weapon>`` for each name of ``credited``."""
    @property
    def groups(self) -> list[str]: ...
    @property
    def group_models(self) -> list[int]:
        """Models each of the target's groups starts the trial with, by index (models destroyed count from there)."""
    @property
    def credited(self) -> list[str]:
        """Names of the sequences (attack pools, mortal-wound sources) aimed at the target, in order: the last two
        numbers per name are the wounds the target lost to it and the mortal wounds it inflicted."""
    @property
    def target_models(self) -> int:
        """Models the target starts the trial with (models destroyed count from there)."""
    def uses_fast_path(self) -> bool:
        """Whether Monte Carlo draws pool outcomes from exact tables instead of rolling every die."""
    def why_die_by_die(self) -> str | None:
        """Why Monte Carlo rolls every die of this Plan (the pool and the reason ``docs/architecture.md`` names),
        or ``None`` when it takes the fast path."""

def simulate(
    plan: CompiledPlan,
    trials: int,
    seed: int,
    threads: int = 0,
    progress: Callable[[int, int], object] | None = None,
    die_by_die: bool = False,
) -> list[npt.NDArray[np.uint64]]:
    """Run ``trials`` trials; one histogram per name in ``plan.numbers``."""

def simulate_chunks(
    plan: CompiledPlan,
    trials: int,
    seed: int,
    first: int,
    last: int,
    threads: int = 0,
    progress: Callable[[int, int], object] | None = None,
    die_by_die: bool = False,
) -> list[npt.NDArray[np.uint64]]:
    """Run chunks ``first`` to ``last`` (excluded) of a run of ``trials`` trials: one histogram per name in
    ``plan.numbers``, over those chunks' trials only.

    Chunk ``k`` draws from the stream ``(seed, k)`` wherever it runs, so parts covering
    ``range(chunk_count(trials))`` between them, merged with :func:`merge_histograms`, equal
    ``simulate(plan, trials, seed)`` count for count. ``progress(done, total)`` counts the part's trials.
    Raises :class:`PlanError` naming ``chunks`` for a range that is empty or past the run's last chunk.
    """

def merge_histograms(parts: Sequence[Sequence[npt.NDArray[np.uint64]]]) -> list[npt.NDArray[np.uint64]]:
    """Add up the histograms of parts of one run (as :func:`simulate_chunks` returns them), in any order.

    Any sequences of whole numbers are taken, so arrays that came over a network (unaligned, or not
    contiguous) merge as well as local ones.

    Raises ``ValueError`` for no parts, or parts with different numbers of histograms.
    """

def chunk_count(trials: int) -> int:
    """The chunks a run of ``trials`` trials has: ``CHUNK_TRIALS`` trials each, the last one maybe fewer."""

def replay(plan: CompiledPlan, dice: list[object]) -> dict[str, object]:
    """Resolve one trial with the given dice; returns counters, damage, models destroyed, ``by_sequence`` (per
    sequence aimed at the target, its ``damage`` and ``mortal_wounds``), events."""

def replay_seeded(plan: CompiledPlan, seed: int, trial: int = 0) -> dict[str, object]:
    """Replay trial ``trial`` of a die-by-die run with ``seed`` (``simulate(..., die_by_die=True)``).

    Returns what :func:`replay` returns, plus ``dice``: every die drawn, in order.
    """

def evaluate_exact(
    plan: CompiledPlan, progress: Callable[[int, int], object] | None = None
) -> list[npt.NDArray[np.float64] | float]:
    """Exact distributions, one pmf per name in ``plan.numbers``; raises :class:`DeclinedError` saying why.

    A number whose distribution the evaluator does not work out (the wounds lost to one of several weapons) is
    given as its exact mean, a float.

    ``progress(0, 0)`` is called before it starts and, past a millisecond or two of work, about ten times a
    second; an exception it raises stops the evaluation and is raised here (the way to cancel an evaluation
    running off the main thread).
    """

def _panic_for_tests(site: str, plan: CompiledPlan | None = None) -> None:
    """Panic on purpose, for tests only, at ``site``.

    ``"caller"`` panics on the calling thread and ``"worker"`` in a batch hook of ``plan`` (which must call one)
    on the Monte Carlo worker threads: both raise :class:`InternalError`.
    ``"unguarded"`` panics past the guard, so PyO3 raises its ``PanicException``.
    """
