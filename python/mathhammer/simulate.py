"""Running a scenario: compile with its ruleset, run in the core, build a Result."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt

from mathhammer import _core, limits
from mathhammer.exceptions import DeclinedError, PlanError, PluginError, RulesetError, ScenarioError
from mathhammer.plan import Plan
from mathhammer.registry import Registry, default_registry
from mathhammer.result import DISTRIBUTION_STAGES, GROUP_STAGE, VALUE_STAGE, WEAPON_DAMAGE, Result, default_labels
from mathhammer.ruleset import Compiled

DEFAULT_TRIALS = 1_000_000
MAX_TRIALS = limits.MAX_TRIALS
"""The most trials one run may ask for (the core refuses more): more is a typing mistake."""
MAX_SEED = 2**64 - 1
MAX_THREADS = 1024


def compile_scenario(scenario: Any, *, registry: Registry | None = None) -> Compiled:
    """Compile a scenario object with the ruleset it names (its ``ruleset`` attribute).

    A rule version the ruleset recorded without saying what it does gets the
    sentence of the keyword rule of that name, when a registered keyword of
    the ruleset has one: every keyword plugin's versions are described in the
    reports, whichever ruleset compiled them.
    """
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
    table = registry.keyword_table(name)
    compiled = ruleset.compile(scenario, table)
    rules = {spec.rule.name: spec.rule for spec in table.specs.values() if spec.rule is not None}
    for rule, ran in compiled.rule_versions.items():
        known = rules.get(rule)
        if rule not in compiled.rule_descriptions and known is not None and ran in known.versions:
            compiled.rule_descriptions[rule] = known.versions[ran]
    return compiled


def freeze(scenario: Any, compiled: Compiled, *, registry: Registry | None = None) -> _core.CompiledPlan:
    """Check a compiled scenario's Plan in the core and freeze it for running.

    The Plan is the ruleset's and its keywords' work, never the scenario's, so
    a Plan the core rejects is blamed on the plugin that made it: the keyword
    without whose ``apply`` the Plan is accepted, else the ruleset.

    A limit crossed (too many attack dice, say) is the scenario's, not a plugin's:
    where the ruleset named the scenario field behind the Plan field
    (:attr:`Plan.sources`), it is a :class:`ScenarioError` naming that field.

    Raises:
        ScenarioError: for a limit crossed, naming the scenario field.
        KeywordError: naming the keyword, its plugin and its distribution, and the core's reason.
        RulesetError: naming the ruleset, its plugin and its distribution, when no one keyword is to blame.
    """
    try:
        return core_plan(compiled.plan)
    except ScenarioError as exc:  # a limit crossed, named by the scenario field (see Plan.sources)
        if exc.source is not None or getattr(scenario, "source", None) is None:
            raise
        raise ScenarioError(exc.message, source=scenario.source, field=exc.field) from None
    except PlanError as exc:
        raise _blame(scenario, registry or default_registry(), _named_field(f"{exc}", compiled.plan)) from exc


_JSON_POSITION = re.compile(r"^plan field \(json\): (.*) at line 1 column (\d+)$", re.DOTALL)


def _named_field(reason: str, plan: Plan) -> str:
    """The core's reason, with a position in the Plan's JSON replaced by the field's path.

    The core reads a Plan as JSON; a value it cannot even read (an unknown
    field, a dice expression that cannot be rolled) is reported by position,
    which means nothing to a plugin's author. The Python side wrote that JSON,
    so it can say which field the position falls in.
    """
    match = _JSON_POSITION.match(reason)
    if match is None:
        return reason
    spans: list[tuple[int, int, str]] = []
    text = _json_with_spans(plan.to_dict(), "", spans)
    assert text == plan.to_json()  # the same writer json.dumps is, so the positions agree
    column = int(match.group(2)) - 1
    inside = [(end - start, start, end, path) for start, end, path in spans if start <= column <= end and path]
    if not inside:
        return reason
    _, first, last, path = min(inside)
    # The core reads some values whole before checking them (a sequence's kind
    # decides how the rest reads), so the position may be that of the
    # enclosing value: look inside it for the field or value the reason names.
    values = {json.dumps(v) for v in re.findall(r'"([^"]*)"', match.group(1))}
    keys = set(re.findall(r"^unknown field `(\w+)`", match.group(1)))
    exact = [
        p
        for start, end, p in spans
        if first <= start and end <= last and (text[start:end] in values or p.rsplit(".", 1)[-1] in keys)
    ]
    return f"plan field {exact[0] if len(exact) == 1 else path}: {match.group(1)}"


def _json_with_spans(value: Any, path: str, spans: list[tuple[int, int, str]], at: int = 0) -> str:
    """``json.dumps(value)``, recording where each value at a dotted ``path`` starts and ends."""
    if isinstance(value, dict):
        parts, offset = [], at + 1
        for key, item in value.items():
            head = f"{json.dumps(key)}: "
            body = _json_with_spans(item, f"{path}.{key}" if path else key, spans, offset + len(head))
            parts.append(head + body)
            offset += len(head) + len(body) + 2
        text = "{" + ", ".join(parts) + "}"
    elif isinstance(value, list):
        parts, offset = [], at + 1
        for i, item in enumerate(value):
            body = _json_with_spans(item, f"{path}[{i}]", spans, offset)
            parts.append(body)
            offset += len(body) + 2
        text = "[" + ", ".join(parts) + "]"
    else:
        text = json.dumps(value)
    spans.append((at, at + len(text), path))
    return text


def _skip(rules: Any) -> None:
    """An ``apply`` that does nothing, to find out which keyword broke a Plan."""


def _blame(scenario: Any, registry: Registry, reason: str) -> PluginError:
    """The error naming whoever made a Plan the core rejected for ``reason``.

    Each keyword of the ruleset is left out in turn (its ``apply`` skipped) and
    the scenario compiled again: the keyword whose absence makes the Plan
    acceptable is the one to blame. This runs only on the error path, and a
    keyword the scenario does not use changes nothing, so it is never blamed.
    """
    name = scenario.ruleset
    ruleset = registry.ruleset(name)
    table = registry.keyword_table(name)
    for key, spec in table.specs.items():
        without = table.replacing(key, dataclasses.replace(spec, apply=_skip))
        try:
            ruleset.compile(scenario, without).plan.compile()
        except Exception:  # still broken, or broken another way without it: not this one alone
            continue
        return table.error(spec, reason)
    plugin = registry.ruleset_origin.get(name, "?")
    dist = registry.distribution(plugin) or "none, registered in-process"
    return RulesetError(f"ruleset {name} (plugin {plugin}, distribution {dist}) produced an invalid plan: {reason}")


def _from_ruleset(compiled: Compiled) -> dict[str, Any]:
    """What a Result takes from the compiled scenario whichever evaluator ran."""
    return {
        "rule_versions": compiled.rule_versions,
        "rule_descriptions": compiled.rule_descriptions,
        "attacker": compiled.attacker,
        "target": compiled.target,
        "chances": tuple(compiled.chances),
        "distributions": (*DISTRIBUTION_STAGES, *compiled.distributions),
        "hidden": (*compiled.hidden, VALUE_STAGE),
        "no_effect": tuple(compiled.no_effect),
        "weapon_measures": compiled.vocabulary.weapon_measures,
    }


def _labels(compiled: Compiled, core: _core.CompiledPlan) -> dict[str, str]:
    """The ruleset's stage labels, each group's stage and each weapon's two stages named in its words
    (``Models destroyed: G``, ``Damage: X`` and ``Mortal wounds: X`` unless its vocabulary says otherwise:
    ``Models removed: G``, ``HP lost: X``, ``Direct Damage: X``)."""
    words = compiled.vocabulary
    labels = {f"{GROUP_STAGE}{group}": f"Models {words.removed}: {group}" for group in _group_models(core)}
    lost = words.lost or words.damage
    weapons = _weapon_stages(core)
    for weapon, (damage, mortal) in weapons.items():
        labels[damage] = f"{lost[:1].upper()}{lost[1:]}: {weapon}"
        labels[mortal] = f"{words.mortal_wounds[1][:1].upper()}{words.mortal_wounds[1][1:]}: {weapon}"
    # Every number labelled here, so that no Result works a default out again.
    return {**default_labels(core.numbers, weapons), **labels, **compiled.stage_labels}


def _group_models(core: _core.CompiledPlan) -> dict[str, int]:
    """Models in each group of the target, by the name its stage ``destroyed:<name>`` gives it."""
    models = core.group_models
    end = _credited_end(core) - 2 * len(core.credited)
    names = core.numbers[end - len(models) : end]
    return {name.removeprefix(GROUP_STAGE): m for name, m in zip(names, models, strict=True)}


def _credited_end(core: _core.CompiledPlan) -> int:
    """Where the weapons' stages end: the last number, or the one before the value destroyed when the target's
    groups give values (the core reports it last)."""
    return len(core.numbers) - (core.numbers[-1] == VALUE_STAGE)


def _weapon_stages(core: _core.CompiledPlan) -> dict[str, tuple[str, str]]:
    """Each weapon aimed at the target, by the name its stage ``damage:<name>`` gives it: its two stages."""
    credited = len(core.credited)
    end = _credited_end(core)
    names = core.numbers[end - 2 * credited : end] if credited else []
    return {names[2 * i].removeprefix(WEAPON_DAMAGE): (names[2 * i], names[2 * i + 1]) for i in range(credited)}


def _ruleset_version(scenario: Any, registry: Registry | None) -> str:
    """The version of the plugin providing the scenario's ruleset, for the Result."""
    return str((registry or default_registry()).ruleset(scenario.ruleset).version)


def checked_run(trials: int, seed: int | None, threads: int) -> int:
    """Check a Monte Carlo run's arguments; the seed to use (one is picked
    when ``seed`` is None).

    Raises:
        ScenarioError: naming the argument that is out of range.
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
    return seed


_Frozen = TypeVar("_Frozen")


@dataclass(frozen=True)
class Prepared:
    """A scenario compiled once, by its ruleset and by the core, so that
    ``auto`` and ``compare`` can try the exact evaluator and then Monte Carlo
    without compiling it twice."""

    scenario: Any
    compiled: Compiled
    core: _core.CompiledPlan
    ruleset_version: str
    numbers: tuple[str, ...] = dataclasses.field(init=False, repr=False, compare=False)
    """The numbers the core reports (``core.numbers``, which builds its list on every read)."""
    labels: dict[str, str] = dataclasses.field(init=False, repr=False, compare=False)
    """Each stage's label in the ruleset's words."""
    reported: dict[str, Any] = dataclasses.field(init=False, repr=False, compare=False)
    """What every Result of this Plan reports besides its distributions and labels (groups, weapons, the
    ruleset's facts). Both are worked out once here rather than on every run, where they cost as much as a
    small exact evaluation."""

    def __post_init__(self) -> None:
        compiled, core = self.compiled, self.core
        object.__setattr__(self, "numbers", tuple(core.numbers))
        object.__setattr__(self, "labels", _labels(compiled, core))
        reported = {
            "target_models": core.target_models,
            "group_models": _group_models(core),
            "weapon_stages": _weapon_stages(core),
            **_from_ruleset(compiled),
            "ruleset_version": self.ruleset_version,
        }
        object.__setattr__(self, "reported", reported)

    def result_fields(self) -> dict[str, Any]:
        """:attr:`reported`, its tables copied: each Result owns the groups and weapons it holds."""
        reported = self.reported
        return {
            **reported,
            "group_models": dict(reported["group_models"]),
            "weapon_stages": dict(reported["weapon_stages"]),
        }

    def with_scenario(self, scenario: Any) -> Prepared:
        """This Prepared for ``scenario``, a scenario equal to its own: the same Plan, and what it reports
        kept rather than worked out again (``compare`` builds equal scenarios afresh for every cell)."""
        return shallow_replace(self, scenario=scenario)


def shallow_replace(frozen: _Frozen, **changes: Any) -> _Frozen:
    """A shallow copy of the frozen dataclass ``frozen`` with ``changes``, made without running its
    ``__init__`` and ``__post_init__`` again, as :func:`dataclasses.replace` does: for a change that leaves
    what they work out valid, where the rebuild costs as much as a small exact evaluation."""
    other = copy.copy(frozen)
    for name, value in changes.items():
        object.__setattr__(other, name, value)
    return other


_PREPARED: OrderedDict[tuple[type, str], tuple[Registry, Prepared]] = OrderedDict()
_PREPARED_LOCK = threading.Lock()
PREPARED_CACHE = 64
"""How many prepared scenarios are kept for reuse, most recently used first."""


def prepare(scenario: Any, *, registry: Registry | None = None) -> Prepared:
    """Compile ``scenario`` for the evaluators.

    What an equal scenario compiled to with the same
    registry is reused: a short run of a reused Scenario then costs the run,
    not its ruleset's compile. Scenarios are frozen dataclasses: one is known
    by its type and its ``repr`` (every field, nested ones too). Other
    scenarios, and those whose Plan has batch hooks (the hooks hold state),
    are compiled every time. The Prepared returned may be shared: copy its Plan
    before changing it.

    Raises:
        ScenarioError: for a scenario its ruleset rejects.
        KeywordError: for a keyword that raised or built a Plan the core rejects (see :func:`freeze`).
    """
    registry = registry or default_registry()
    params = getattr(type(scenario), "__dataclass_params__", None)
    frozen = params is not None and params.frozen
    key = (type(scenario), repr(scenario)) if frozen else None
    if key is not None:
        with _PREPARED_LOCK:
            cached = _PREPARED.get(key)
            if cached is not None and cached[0] is registry:
                _PREPARED.move_to_end(key)
                if cached[1].scenario is not scenario:
                    # An equal scenario: the entry is now this one's, as the next call is likely to pass it again.
                    cached = (registry, cached[1].with_scenario(scenario))
                    _PREPARED[key] = cached
                return cached[1]
    compiled = compile_scenario(scenario, registry=registry)
    prepared = Prepared(
        scenario, compiled, freeze(scenario, compiled, registry=registry), _ruleset_version(scenario, registry)
    )
    if key is not None and not compiled.plan.hooks:
        with _PREPARED_LOCK:
            _PREPARED[key] = (registry, prepared)
            while len(_PREPARED) > PREPARED_CACHE:
                _PREPARED.popitem(last=False)
    return prepared


_CORE_PLANS: OrderedDict[str, _core.CompiledPlan] = OrderedDict()
_CORE_PLANS_LOCK = threading.Lock()
CORE_PLAN_CACHE = 64
"""How many compiled core plans are kept for reuse, most recently used first."""


def core_plan(plan: Plan) -> _core.CompiledPlan:
    """The core's compiled form of ``plan``, reused when the same Plan was
    compiled recently: the core keeps what depends only on the Plan (the fast
    path's tables) in it, so a repeated short run does not rebuild them.
    Plans with batch hooks are compiled afresh (their hooks hold state)."""
    if plan.hooks:
        return plan.compile()
    key = plan.to_json()
    with _CORE_PLANS_LOCK:
        cached = _CORE_PLANS.get(key)
        if cached is not None:
            _CORE_PLANS.move_to_end(key)
            return cached
    compiled = plan.compile()
    with _CORE_PLANS_LOCK:
        _CORE_PLANS[key] = compiled
        while len(_CORE_PLANS) > CORE_PLAN_CACHE:
            _CORE_PLANS.popitem(last=False)
    return compiled


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
    seed = checked_run(trials, seed, threads)
    return simulate_prepared(prepare(scenario, registry=registry), trials, seed, threads, progress)


def simulate_prepared(
    prepared: Prepared,
    trials: int,
    seed: int,
    threads: int,
    progress: Callable[[int, int], object] | None,
    *,
    die_by_die: bool = False,
) -> Result:
    """:func:`simulate` on a prepared scenario, its arguments already checked (``die_by_die`` rolls every die)."""
    start = time.perf_counter()
    histograms = _core.simulate(prepared.core, trials, seed, threads, progress, die_by_die)
    seconds = time.perf_counter() - start
    return simulated_result(prepared, histograms, trials, seed, die_by_die=die_by_die, seconds=seconds)


def simulated_result(
    prepared: Prepared,
    histograms: Sequence[npt.NDArray[np.uint64]],
    trials: int,
    seed: int,
    *,
    die_by_die: bool = False,
    seconds: float = 0.0,
) -> Result:
    """The Result of a Monte Carlo run of ``prepared`` from the core's histograms: those of
    ``_core.simulate``, or of its parts (``_core.simulate_chunks``) merged with ``_core.merge_histograms``."""
    return Result.from_histograms(
        histograms,
        prepared.numbers,
        prepared.labels,
        ruleset=prepared.scenario.ruleset,
        evaluator="monte_carlo",
        trials=trials,
        seed=seed,
        **prepared.result_fields(),
        fast_path=not die_by_die and prepared.core.uses_fast_path(),
        seconds=seconds,
    )


Evaluator = Literal["auto", "exact", "monte_carlo"]


def evaluate_exact(
    scenario: Any, *, registry: Registry | None = None, progress: Callable[[int, int], object] | None = None
) -> Result:
    """The exact distributions of ``scenario``, without sampling.

    Args:
        scenario: A ruleset's scenario object.
        progress: Called as ``progress(0, 0)`` before the core evaluates and,
            for an evaluation past a millisecond or two, about ten times a
            second while it does; an exception it raises stops the evaluation
            and propagates. On the main thread Ctrl-C stops it anyway; on another
            thread this is how to cancel it.

    Raises:
        DeclinedError: saying why, when the exact evaluator cannot evaluate
            the scenario's Plan exactly (it never approximates).
    """
    return evaluate_exact_prepared(prepare(scenario, registry=registry), progress=progress)


def evaluate_exact_prepared(prepared: Prepared, *, progress: Callable[[int, int], object] | None = None) -> Result:
    """:func:`evaluate_exact` on a prepared scenario."""
    start = time.perf_counter()
    # The core clamps each probability to [0, 1].
    pmfs = _core.evaluate_exact(prepared.core, progress)
    return Result._from_probabilities(
        pmfs,
        prepared.numbers,
        prepared.labels,
        ruleset=prepared.scenario.ruleset,
        evaluator="exact",
        trials=0,
        seed=None,
        **prepared.result_fields(),
        seconds=time.perf_counter() - start,
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
    seed = checked_run(trials, seed, threads)
    prepared = prepare(scenario, registry=registry)
    if evaluator != "monte_carlo":
        try:
            return evaluate_exact_prepared(prepared)
        except DeclinedError:
            if evaluator == "exact":
                raise
    return simulate_prepared(prepared, trials, seed, threads, progress)


def replay(scenario: Any, dice: list[int], *, registry: Registry | None = None) -> dict[str, Any]:
    """Resolve one trial of ``scenario`` with the given dice, step by step.

    The dice are used in the order ``docs/architecture.md`` gives; the result
    holds the counters, damage, models destroyed and one event per step.

    Raises:
        ScriptError: if the dice run out or a value does not fit its die.
    """
    return _core.replay(prepare(scenario, registry=registry).core, list(dice))
