"""Running a scenario: compile with its ruleset, run in the core, build a Result."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from pathlib import PurePath
from typing import Any, Literal

from mathhammer import _core
from mathhammer.exceptions import DeclinedError, ScenarioError
from mathhammer.registry import Registry, default_registry
from mathhammer.result import DISTRIBUTION_STAGES, Result
from mathhammer.ruleset import Compiled

DEFAULT_TRIALS = 1_000_000
MAX_TRIALS = 1_000_000_000_000
"""The most trials one run may ask for (the core refuses more): more is a typing mistake."""
MAX_SEED = 2**64 - 1
MAX_THREADS = 1024


def compile_scenario(scenario: Any, *, registry: Registry | None = None) -> Compiled:
    """Compile a scenario object with the ruleset it names (its ``ruleset`` attribute)."""
    registry = registry or default_registry()
    name = getattr(scenario, "ruleset", None)
    if isinstance(scenario, (str, PurePath)):
        raise ScenarioError(
            f"{str(scenario)!r} is a path, not a scenario: load it first, as in "
            f"mathhammer.simulate(mathhammer.load_scenario({str(scenario)!r}))"
        )
    if not isinstance(name, str):
        raise ScenarioError(f"{type(scenario).__name__} names no ruleset (it has no 'ruleset' attribute)")
    ruleset = registry.ruleset(name)
    return ruleset.compile(scenario, registry.keyword_table(name))


def _from_ruleset(compiled: Compiled) -> dict[str, Any]:
    """What a Result takes from the compiled scenario whichever evaluator ran."""
    return {
        "rule_versions": compiled.rule_versions,
        "chances": tuple(compiled.chances),
        "distributions": (*DISTRIBUTION_STAGES, *compiled.distributions),
        "hidden": tuple(compiled.hidden),
    }


def _ruleset_version(scenario: Any, registry: Registry | None) -> str:
    """The version of the plugin providing the scenario's ruleset, for the Result."""
    return str((registry or default_registry()).ruleset(scenario.ruleset).version)


def simulate(
    scenario: Any,
    *,
    trials: int = DEFAULT_TRIALS,
    seed: int | None = None,
    threads: int = 0,
    registry: Registry | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> Result:
    """Simulate ``scenario`` by Monte Carlo and return its :class:`Result`.

    Args:
        scenario: A ruleset's scenario object, from :func:`mathhammer.load_scenario`
            or built from the ruleset's classes.
        trials: Number of trials (at least 1).
        seed: Seed of the random streams; ``None`` picks one (reported in the Result).
            The same seed gives the same Result on any number of threads.
        threads: Worker threads; 0 uses every core.
        progress: Called as ``progress(done, total)`` between waves of trials.

    Raises:
        ScenarioError: for a scenario its ruleset rejects.
        KeyboardInterrupt: when interrupted; the run stops between chunks.
    """
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
        raise ScenarioError(f"trials is {trials!r}; it must be a whole number from 1 to {MAX_TRIALS:,}", field="trials")
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ScenarioError(f"seed is {seed!r}; it must be a whole number from 0 to 2**64-1", field="seed")
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= MAX_THREADS:
        raise ScenarioError(
            f"threads is {threads!r}; it must be 0 (every core) or a count up to {MAX_THREADS}", field="threads"
        )
    compiled = compile_scenario(scenario, registry=registry)
    core_plan = compiled.plan.compile()
    start = time.perf_counter()
    histograms = _core.simulate(core_plan, trials, seed, threads, progress)
    seconds = time.perf_counter() - start
    return Result.from_histograms(
        histograms,
        core_plan.numbers,
        compiled.stage_labels,
        ruleset=scenario.ruleset,
        evaluator="monte_carlo",
        trials=trials,
        seed=seed,
        target_models=core_plan.target_models,
        **_from_ruleset(compiled),
        fast_path=core_plan.uses_fast_path(),
        seconds=seconds,
        ruleset_version=_ruleset_version(scenario, registry),
    )


Evaluator = Literal["auto", "exact", "monte_carlo"]


def evaluate_exact(
    scenario: Any, *, registry: Registry | None = None, progress: Callable[[int, int], object] | None = None
) -> Result:
    """The exact distributions of ``scenario``, without sampling.

    Args:
        scenario: A ruleset's scenario object.
        progress: Called as ``progress(0, 0)`` about ten times a second while
            the core evaluates; an exception it raises stops the evaluation and
            propagates. On the main thread Ctrl-C stops it anyway; on another
            thread this is how to cancel it.

    Raises:
        DeclinedError: saying why, when the exact evaluator cannot evaluate
            the scenario's Plan exactly (it never approximates).
    """
    compiled = compile_scenario(scenario, registry=registry)
    core_plan = compiled.plan.compile()
    start = time.perf_counter()
    pmfs = _core.evaluate_exact(core_plan, progress)
    return Result.from_pmfs(
        pmfs,
        core_plan.numbers,
        compiled.stage_labels,
        ruleset=scenario.ruleset,
        evaluator="exact",
        trials=0,
        seed=None,
        target_models=core_plan.target_models,
        **_from_ruleset(compiled),
        seconds=time.perf_counter() - start,
        ruleset_version=_ruleset_version(scenario, registry),
    )


def evaluate(
    scenario: Any,
    *,
    evaluator: Evaluator = "auto",
    trials: int = DEFAULT_TRIALS,
    seed: int | None = None,
    threads: int = 0,
    registry: Registry | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> Result:
    """Evaluate ``scenario``: exactly when ``evaluator`` is ``"exact"``, by
    Monte Carlo when ``"monte_carlo"``, and with ``"auto"`` exactly when the
    exact evaluator can, else by Monte Carlo. The Result says which ran.
    """
    if evaluator not in ("auto", "exact", "monte_carlo"):
        raise ScenarioError(f"evaluator is {evaluator!r}; expected 'auto', 'exact' or 'monte_carlo'", field="evaluator")
    if evaluator != "monte_carlo":
        try:
            return evaluate_exact(scenario, registry=registry)
        except DeclinedError:
            if evaluator == "exact":
                raise
    return simulate(scenario, trials=trials, seed=seed, threads=threads, registry=registry, progress=progress)


def replay(scenario: Any, dice: list[int], *, registry: Registry | None = None) -> dict[str, Any]:
    """Resolve one trial of ``scenario`` with the given dice, step by step.

    The dice are used in the order ``docs/architecture.md`` gives; the result
    holds the counters, damage, models destroyed and one event per step.

    Raises:
        ScriptError: if the dice run out or a value does not fit its die.
    """
    compiled = compile_scenario(scenario, registry=registry)
    return _core.replay(compiled.plan.compile(), list(dice))
