"""Several attackers against several targets: a matrix of Results.

Attackers and targets are *profiles* (:mod:`mathhammer.profiles`): the
``attacker`` or ``target`` table of a scenario, with a name, read from
scenario files and profile libraries. Each pairing becomes an ordinary
scenario, loaded and checked by its ruleset; the efficiency metrics (per 100
points, points removed) use the profiles' ``points`` and ``models``.
"""

from __future__ import annotations

import copy
import dataclasses
import html
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from mathhammer.exceptions import DeclinedError, ScenarioError
from mathhammer.extras import require
from mathhammer.points import GroupPoints, group_points
from mathhammer.points import distribution as points_distribution
from mathhammer.profile_format import (
    profile_format,
)

# The profiles a comparison pairs, importable from here as before they had a module of their own.
from mathhammer.profiles import MAX_POINTS as MAX_POINTS
from mathhammer.profiles import Pairings as Pairings
from mathhammer.profiles import Profile as Profile
from mathhammer.profiles import Profiles as Profiles
from mathhammer.profiles import add_profiles as add_profiles
from mathhammer.profiles import is_library as is_library
from mathhammer.profiles import pairing as pairing
from mathhammer.profiles import read_profiles as read_profiles
from mathhammer.profiles import relocated
from mathhammer.registry import Registry, default_registry
from mathhammer.result import GROUP_STAGE, VALUE_STAGE, WEAPON_DAMAGE, WEAPON_MORTAL, Result
from mathhammer.ruleset import Vocabulary
from mathhammer.simulate import (
    DEFAULT_TRIALS,
    MAX_THREADS,
    Evaluator,
    Prepared,
    checked_run,
    evaluate_exact_prepared,
    freeze,
    prepare,
    simulate_prepared,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

Metric = str
"""A number a comparison reports: a key of :data:`METRICS`, ``destroyed:<group>`` for P(that group destroyed),
``damage:<weapon>`` for the mean wounds lost to one weapon, or ``mortal_wounds:<weapon>`` for its mortal wounds."""


class Percent:
    """Formats a probability as a percentage that never rounds a possibility away:
    ``<0.1%`` and ``>99.9%`` rather than 0.0% and 100.0%."""

    def format(self, value: float) -> str:
        if math.isnan(value):
            return "-"
        if 0 < value < 0.001:
            return "<0.1%"
        if 0.999 < value < 1:
            return ">99.9%"
        return f"{value:.1%}"


METRICS: dict[Metric, tuple[str, str | Percent]] = {
    "models_destroyed": ("Expected models destroyed", "{:.2f}"),
    "damage": ("Expected damage", "{:.2f}"),
    "p_unit_destroyed": ("P(unit destroyed)", Percent()),
}
"""The numbers a comparison reports by default: their titles and how a cell prints them."""

PER_100 = "_per_100"
"""The suffix of a metric divided by the attacker's points and multiplied by 100."""

EFFICIENCY_METRICS: dict[Metric, tuple[str, str | Percent]] = {
    "models_destroyed_per_100": ("Expected models destroyed per 100 points", "{:.2f}"),
    "damage_per_100": ("Expected damage per 100 points", "{:.2f}"),
    "p_unit_destroyed_per_100": ("P(unit destroyed) per 100 points", Percent()),
    "points_removed": ("Expected fraction of the target's points removed", Percent()),
    "points_removed_per_100": ("Expected target points removed per 100 points", "{:.1f}"),
}
"""Metrics that use the profiles' ``points``: NaN (printed ``-``) where a profile has none.

``points_removed`` is the expected fraction of the target's points destroyed
(NaN for a target without points, not the fraction of its models), each model
destroyed counting for its own worth (:mod:`mathhammer.points`: an
attached Leader's own points, the rest of a unit's spread evenly over its other
models); when every model is worth the same this is E[models destroyed] / models.
``points_removed_per_100`` is the expected target points destroyed for each
100 points of the attacker.
"""

ALL_METRICS: dict[Metric, tuple[str, str | Percent]] = {**METRICS, **EFFICIENCY_METRICS}


def metric_info(metric: Metric, words: Vocabulary | None = None) -> tuple[str, str | Percent]:
    """The title and cell format of ``metric``: one of :data:`METRICS`, ``destroyed:<group>``,
    ``damage:<weapon>`` or ``mortal_wounds:<weapon>``; titled in the ruleset's ``words`` when given
    ("Expected HP lost" in the d12 system; :func:`worded_title`).

    Raises:
        ScenarioError: naming the metric and those known, for one that is none of these.
    """
    if words is not None and words != Vocabulary():
        title, fmt = metric_info(metric)
        return worded_title(metric, words) or title, fmt
    if metric in ALL_METRICS:
        return ALL_METRICS[metric]
    group = metric.removeprefix(GROUP_STAGE)
    if metric.startswith(GROUP_STAGE) and group:
        return (f"P({group} destroyed)", Percent())
    weapon = metric.removeprefix(WEAPON_DAMAGE)
    if metric.startswith(WEAPON_DAMAGE) and weapon:
        return (f"Expected damage: {weapon}", "{:.2f}")
    weapon = metric.removeprefix(WEAPON_MORTAL)
    if metric.startswith(WEAPON_MORTAL) and weapon:
        return (f"Expected mortal wounds: {weapon}", "{:.2f}")
    known = ", ".join(ALL_METRICS)
    raise ScenarioError(
        f"is {metric!r}; expected one of {known}, or {GROUP_STAGE}<group> (P(that group destroyed), such as"
        f" {GROUP_STAGE}Captain), {WEAPON_DAMAGE}<weapon> (the mean wounds lost to that weapon, such as"
        f" {WEAPON_DAMAGE}Lascannon) or {WEAPON_MORTAL}<weapon>",
        field="metric",
    )


def worded_title(metric: Metric, words: Vocabulary) -> str | None:
    """The title of ``metric`` in the ruleset's words, for those whose words a game changes: what the target
    loses (``lost``, else ``damage``), its mortal wounds and its models' fate (``removed``); ``None`` for
    the rest. The default words give the titles of :data:`METRICS` back."""
    lost = words.lost or words.damage
    base = metric.removesuffix(PER_100) if metric in EFFICIENCY_METRICS else metric
    per_100 = " per 100 points" if base != metric else ""
    if base == "models_destroyed":
        return f"Expected models {words.removed}{per_100}"
    if base == "damage":
        return f"Expected {lost}{per_100}"
    for prefix, measure in ((WEAPON_DAMAGE, lost), (WEAPON_MORTAL, words.mortal_wounds[1])):
        weapon = metric.removeprefix(prefix)
        if metric.startswith(prefix) and weapon and metric not in ALL_METRICS:
            return f"Expected {measure}: {weapon}"
    return None


@dataclass(frozen=True)
class Comparison:
    """Results of every attacker against every target.

    Attributes:
        attackers: Row names, in order.
        targets: Column names, in order.
        results: The Result of each (attacker, target).
        seconds: Wall time of the whole comparison.
        attacker_points: What each attacker costs, for those whose profile says.
        target_points: What each target costs, for those whose profile says.
        vocabulary: The ruleset's words, in which :meth:`metric_info` titles the metrics.
    """

    attackers: list[str]
    targets: list[str]
    results: dict[tuple[str, str], Result]
    seconds: float = 0.0
    attacker_points: Mapping[str, float] = field(default_factory=dict)
    target_points: Mapping[str, float] = field(default_factory=dict)
    group_points: Mapping[str, GroupPoints] = field(default_factory=dict)
    """What each group of a target costs, for the targets with points (:func:`mathhammer.points.group_points`)."""
    vocabulary: Vocabulary = field(default_factory=Vocabulary)

    def metric_info(self, metric: Metric) -> tuple[str, str | Percent]:
        """The title and cell format of ``metric`` in the ruleset's words (see :func:`metric_info`).

        Raises:
            ScenarioError: naming the metric and those known, for one that is not known.
        """
        return metric_info(metric, self.vocabulary)

    def titles(self) -> dict[Metric, str]:
        """The title of each metric of :data:`ALL_METRICS`, then of each group's and each weapon's metrics
        the cells can report (``destroyed:<group>``, ``damage:<weapon>``, ``mortal_wounds:<weapon>``), in the
        ruleset's words: JSON and pandas carry them, so a script reading a metric by its name finds its title."""
        metrics: dict[Metric, None] = dict.fromkeys(ALL_METRICS)
        for result in self.results.values():
            metrics.update(dict.fromkeys(GROUP_STAGE + g.name for g in result.groups))
            for w in result.weapons:
                metrics.update(dict.fromkeys((WEAPON_DAMAGE + w.name, WEAPON_MORTAL + w.name)))
        return {metric: self.metric_info(metric)[0] for metric in metrics}

    def value(self, attacker: str, target: str, metric: Metric) -> float:
        """``metric`` of ``attacker`` against ``target``; NaN where it needs points a profile lacks."""
        result = self.results[attacker, target]
        if metric.startswith("points_removed"):
            fraction = self._fraction_removed(attacker, target)
            if metric == "points_removed":
                return fraction
            return _per_100(fraction * self.target_points.get(target, math.nan), self.attacker_points.get(attacker))
        if metric.endswith(PER_100) and metric in EFFICIENCY_METRICS:
            return _per_100(cell(result, metric.removesuffix(PER_100)), self.attacker_points.get(attacker))
        return cell(result, metric)

    def points_removed(self, attacker: str, target: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The distribution of the target's points removed: ``(points, probabilities)``, one entry per models
        destroyed when every model is worth the same, else one per number of points that occurs (from the joint
        distribution of models destroyed per group).

        Raises:
            ScenarioError: when the target's profile gives no points.
        """
        if target not in self.target_points:
            raise ScenarioError(f"target {target!r} has no points; add points = N to its profile", field="points")
        result = self.results[attacker, target]
        priced = self.group_points.get(target)
        if priced is not None and not priced.uniform:
            # Models of differing worth: from the joint tally of models destroyed per group, trial by trial.
            pmf = np.asarray(result[VALUE_STAGE].pmf, dtype=np.float64)
            return points_distribution(priced.values()[1], pmf)
        pmf = np.asarray(result["models_destroyed"].pmf, dtype=np.float64)
        per_model = self.target_points[target] / result.target_models
        return np.arange(len(pmf), dtype=np.float64) * per_model, pmf

    def _fraction_removed(self, attacker: str, target: str) -> float:
        """The expected fraction of ``target``'s points removed (NaN without its points): E[models destroyed] /
        models when every model is worth the same, else the mean of :meth:`points_removed` over the points.

        A target without points has no points to remove: the fraction of its models destroyed would be another
        metric under this one's name, so it is NaN (printed ``-``), as every efficiency metric is without points.
        """
        if target not in self.target_points:
            return math.nan
        priced = self.group_points.get(target)
        result = self.results[attacker, target]
        if priced is None or priced.uniform:
            return float(result["models_destroyed"].mean / result.target_models)
        points, probability = self.points_removed(attacker, target)
        return float(points @ probability) / priced.total

    def ranking(self, metric: Metric) -> list[tuple[str, str, float, str, float]]:
        """Each attacker's best and worst target by ``metric``: ``(attacker, best, value, worst, value)``.

        Best is the highest value (most destroyed, most points removed); NaN cells are left out.
        """
        values = self.matrix(metric)
        rows = []
        for i, a in enumerate(self.attackers):
            row = values[i]
            known = [j for j in range(len(self.targets)) if not math.isnan(row[j])]
            if not known:
                rows.append((a, "-", math.nan, "-", math.nan))
                continue
            best = max(known, key=lambda j: row[j])
            worst = min(known, key=lambda j: row[j])
            rows.append((a, self.targets[best], float(row[best]), self.targets[worst], float(row[worst])))
        return rows

    def best_attackers(self, metric: Metric) -> list[tuple[str, str, float]]:
        """For each target, the attacker with the highest ``metric`` against it: ``(target, attacker, value)``."""
        values = self.matrix(metric)
        rows = []
        for j, t in enumerate(self.targets):
            column = values[:, j]
            known = [i for i in range(len(self.attackers)) if not math.isnan(column[i])]
            if not known:
                rows.append((t, "-", math.nan))
                continue
            best = max(known, key=lambda i: column[i])
            rows.append((t, self.attackers[best], float(column[best])))
        return rows

    def matrix(self, metric: Metric) -> npt.NDArray[np.float64]:
        """One number per cell: ``matrix[i, j]`` is attacker ``i`` against target ``j``.

        For ``destroyed:<group>`` a cell is P(that group destroyed), NaN where the target has no such group.

        Raises:
            ScenarioError: for a metric :func:`metric_info` does not know.
        """
        metric_info(metric)
        out = np.zeros((len(self.attackers), len(self.targets)))
        for i, a in enumerate(self.attackers):
            for j, t in enumerate(self.targets):
                out[i, j] = self.value(a, t, metric)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: the names, then one entry per cell with its efficiency metrics, the distribution
        of the target's points removed (where the target has points) and its whole Result."""
        return {
            "attackers": list(self.attackers),
            "targets": list(self.targets),
            "seconds": self.seconds,
            "attacker_points": dict(self.attacker_points),
            "target_points": dict(self.target_points),
            "titles": self.titles(),
            "target_group_points": {t: dict(zip(p.names, p.points, strict=True)) for t, p in self.group_points.items()},
            "cells": [
                {
                    "attacker": a,
                    "target": t,
                    "efficiency": {m: _json_number(self.value(a, t, m)) for m in EFFICIENCY_METRICS},
                    **({"points_removed": self._points_removed_dict(a, t)} if t in self.target_points else {}),
                    "result": self.results[a, t].to_dict(),
                }
                for a in self.attackers
                for t in self.targets
            ],
        }

    def _points_removed_dict(self, attacker: str, target: str) -> dict[str, list[float]]:
        """:meth:`points_removed` as plain lists: ``points`` and ``probability``."""
        points, probability = self.points_removed(attacker, target)
        return {"points": points.tolist(), "probability": probability.tolist()}

    def to_pandas(self) -> pd.DataFrame:
        """One row per (attacker, target): every metric, the evaluator and the standard errors.

        Raises:
            MissingDependencyError: when pandas is not installed.
        """
        pandas = require("pandas", "pandas", feature="to_pandas()")
        rows = []
        for (a, t), r in self.results.items():
            rows.append(
                {
                    "attacker": a,
                    "target": t,
                    "models_destroyed": r["models_destroyed"].mean,
                    "models_destroyed_se": r["models_destroyed"].se,
                    "damage": r["damage"].mean,
                    "damage_se": r["damage"].se,
                    "p_unit_destroyed": r.p_unit_destroyed,
                    **{m: self.value(a, t, m) for m in EFFICIENCY_METRICS},
                    "evaluator": r.evaluator,
                }
            )
        frame: pd.DataFrame = pandas.DataFrame(rows).set_index(["attacker", "target"])
        frame.attrs["titles"] = self.titles()
        return frame

    def _repr_html_(self) -> str:
        """HTML tables for Jupyter: one per metric, attackers down and targets across."""
        parts = ["<div class='mathhammer-comparison'>"]
        head = "<tr><th></th>" + "".join(f"<th>{html.escape(t)}</th>" for t in self.targets) + "</tr>"
        shown = {**METRICS, **(EFFICIENCY_METRICS if self.attacker_points or self.target_points else {})}
        for metric in shown:
            title, fmt = self.metric_info(metric)
            values = self.matrix(metric)
            rows = [
                f"<tr><th style='text-align:left'>{html.escape(a)}</th>"
                + "".join(f"<td>{'-' if math.isnan(v) else fmt.format(v)}</td>" for v in values[i])
                + "</tr>"
                for i, a in enumerate(self.attackers)
            ]
            parts.append(f"<p><b>{html.escape(title)}</b></p><table>{head}{''.join(rows)}</table>")
        parts.append("</div>")
        return "\n".join(parts)

    def default_metrics(self) -> list[Metric]:
        """The metrics to show when none are asked for: :data:`METRICS`, then those the profiles' points allow."""
        metrics = list(METRICS)
        if self.attacker_points:
            metrics += ["models_destroyed_per_100", "p_unit_destroyed_per_100"]
        if self.target_points:
            metrics.append("points_removed")
            if self.attacker_points:
                metrics.append("points_removed_per_100")
        return metrics

    def rank_metric(self) -> Metric:
        """The metric that says which attacker is most efficient: target points removed per 100 points when
        every profile has points, else models destroyed per 100 points when the attackers have, else models
        destroyed."""
        if set(self.attackers) <= set(self.attacker_points):
            if set(self.targets) <= set(self.target_points):
                return "points_removed_per_100"
            return "models_destroyed_per_100"
        return "models_destroyed"

    def plot(self, metrics: Sequence[Metric] = tuple(METRICS)) -> Figure:
        """Heatmaps of ``metrics``, attackers down and targets across.

        Raises:
            MissingDependencyError: when matplotlib is not installed.
        """
        from mathhammer.plotting import chart_title, heatmap_figure

        panels = [(self.metric_info(m)[0], self.matrix(m), self.metric_info(m)[1]) for m in metrics]
        return heatmap_figure(panels, self.attackers, self.targets, title=chart_title(list(self.results.values())))

    def plot_distributions(self, stages: Sequence[str] | None = None) -> Figure:
        """The distributions of every pairing, as charts a reader can follow.

        Up to :data:`~mathhammer.plotting.MAX_OVERLAID` pairings share one
        chart per stage (P(exactly k) and P(at least k)), each named in the
        legend; more, such as a whole profile library, are drawn as small
        multiples of models destroyed (else the first stage), one panel per pairing, attackers down
        and targets across (:func:`~mathhammer.plotting.small_multiples_figure`).

        Args:
            stages: Stages to chart; by default every stage the Results show as a distribution.

        Raises:
            MathhammerError: for more than :data:`~mathhammer.plotting.MAX_PANELS` pairings: pick fewer.
            MissingDependencyError: when matplotlib is not installed.
        """
        from mathhammer.plotting import MAX_OVERLAID, distribution_figure, legend_names, small_multiples_figure

        results = list(self.results.values())
        if stages is None:
            stages = list(dict.fromkeys(name for r in results for name in r.distributions))
        if len(results) > MAX_OVERLAID:
            # One stage fits a grid: models destroyed, what a player asks first, when it is among them.
            stage = "models_destroyed" if "models_destroyed" in stages or not stages else stages[0]
            return small_multiples_figure(self.results, stage)
        # Profile names are what the rows and columns of the comparison show.
        names = [a if len(self.targets) == 1 else f"{a} vs {t}" for a, t in self.results]
        if len(set(names)) < len(names):
            names = legend_names(results)
        return distribution_figure(dict(zip(names, results, strict=True)), stages)


def _per_100(value: float, points: float | None) -> float:
    """``value`` for each 100 points of an attacker costing ``points``: NaN without points (or for 0)."""
    if points is None or points <= 0:
        return math.nan
    return value * 100.0 / points


def _json_number(value: float) -> float | None:
    """``value`` for JSON, which has no NaN: ``None`` in its place."""
    return None if math.isnan(value) else value


def cell(result: Result, metric: Metric) -> float:
    """``metric`` of one Result: a mean, P(unit destroyed), P(group destroyed) (NaN without that group), or a
    weapon's mean damage or mortal wounds (NaN when that attacker has no such weapon)."""
    if metric == "p_unit_destroyed":
        return result.p_unit_destroyed
    if metric.startswith(GROUP_STAGE) and metric not in METRICS:
        group = metric.removeprefix(GROUP_STAGE)
        return result.group(group).p_destroyed if group in result.group_models else math.nan
    for prefix, which in ((WEAPON_DAMAGE, 0), (WEAPON_MORTAL, 1)):
        if metric.startswith(prefix) and metric not in METRICS:
            stages = result.weapon_stages.get(metric.removeprefix(prefix))
            return result[stages[which]].mean if stages else math.nan
    return result[metric].mean


ProgressFactory = Callable[[str, str], Callable[[int, int], object] | None]
"""Called with (attacker, target) before a Monte Carlo cell; returns its progress callback or ``None``."""


def compare(
    attackers: Sequence[Profile],
    targets: Sequence[Profile],
    *,
    evaluator: Evaluator = "auto",
    trials: int = DEFAULT_TRIALS,
    seed: int | None = None,
    threads: int = 0,
    registry: Registry | None = None,
    progress: ProgressFactory | None = None,
    pairings: Callable[[int, int], object] | None = None,
    poll: Callable[[], object] | None = None,
) -> Comparison:
    """Evaluate every attacker against every target, on every core.

    Exact evaluations (one core each) run side by side on a thread pool of
    ``threads`` workers (every core when 0); cells the exact evaluator
    declines (or all, with ``evaluator="monte_carlo"``) are then simulated one
    after another, each on every core. With a ``seed``, Monte Carlo cell ``n``
    (row by row) uses ``seed + n``, so a comparison is reproducible.
    ``pairings(done, total)`` is called as each cell is finished, for a progress bar over the sweep.

    Profiles come from files through :func:`read_profiles` and
    :meth:`Profiles.select`, or are built directly. One lascannon (hits on
    3+, wounds T9 on 3+, the Rhino's 3+ save fails against AP -3 on 1-5) does
    2/3 x 2/3 x 5/6 x 4.5 = 5/3 damage on average, and destroys no Rhino:

    >>> from mathhammer.compare import Profile, compare
    >>> gun = {"weapons": [{"name": "Lascannon", "attacks": "1", "skill": "3+", "strength": 12, "ap": -3,
    ...                     "damage": "D6+1"}]}
    >>> rhino = {"name": "Rhino", "toughness": 9, "models": [{"name": "Rhino", "wounds": 10, "save": "3+"}]}
    >>> comparison = compare([Profile("lascannon", "wh40k", gun)], [Profile("rhino", "wh40k", rhino)])
    >>> comparison.attackers, comparison.targets
    (['lascannon'], ['rhino'])
    >>> comparison.matrix("damage").round(4)  # attackers down, targets across
    array([[1.6667]])
    >>> comparison.matrix("p_unit_destroyed")
    array([[0.]])
    >>> comparison.results["lascannon", "rhino"].evaluator
    'exact'

    Args:
        attackers: The attacking profiles: the rows, in order.
        targets: The target profiles: the columns, in order.
        evaluator: ``"auto"`` (exact where it can be, else Monte Carlo),
            ``"exact"`` or ``"monte_carlo"``.
        trials: Trials of each Monte Carlo cell.
        seed: Seed of the first Monte Carlo cell (``None`` picks one).
        threads: Worker threads; 0 uses every core.
        registry: The plugins to use (the installed ones by default).
        progress: Called with (attacker, target) before each Monte Carlo cell;
            returns that cell's progress callback.
        poll: Called about ten times a second, on the threads evaluating, while any cell is
            evaluated, exactly or by Monte Carlo (only before an exact cell shorter than a
            millisecond or two); an exception it raises stops every evaluation and propagates.
            On the main thread Ctrl-C stops a comparison anyway; on another thread (a web
            page's job) this is how to cancel it.

    Returns:
        A :class:`Comparison`: ``matrix(metric)`` (a metric of :data:`METRICS`
        or ``destroyed:<group>``), ``results``, ``to_pandas()``, ``plot()``
        (heatmaps) and ``plot_distributions()``.

    Raises:
        ScenarioError: naming the profile's file and field, for a pairing its ruleset rejects.
        DeclinedError: with ``evaluator="exact"``, for a cell that cannot be evaluated exactly.
    """
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= MAX_THREADS:
        raise ScenarioError(
            f"threads is {threads!r}; it must be 0 (every core) or a count up to {MAX_THREADS}", field="threads"
        )
    registry = registry or default_registry()
    start = time.perf_counter()
    names_a = [a.name for a in attackers]
    names_t = [t.name for t in targets]
    profiles = {(a.name, t.name): (a, t) for a in attackers for t in targets}
    load = Pairings(registry)
    scenarios = {key: load(a, t) for key, (a, t) in profiles.items()}
    prepared: dict[tuple[str, str], Prepared] = {}
    priced: dict[str, GroupPoints] = {}
    for key, scenario in scenarios.items():
        target = profiles[key][1]
        try:
            prepared[key] = _priced(prepare(scenario, registry=registry), target, priced, registry)
        except ScenarioError as exc:
            attacker = profiles[key][0]
            raise relocated(exc, attacker, target, profile_format(attacker.ruleset, registry)) from None
    results: dict[tuple[str, str], Result] = {}
    if evaluator != "monte_carlo":
        exact = _exact_cells(prepared, workers=threads or os.cpu_count() or 1, pairings=pairings, poll=poll)
        for key, outcome in exact.items():
            if isinstance(outcome, Result):
                results[key] = outcome
            elif evaluator == "exact":
                raise DeclinedError(f"{key[0]} against {key[1]}: {outcome}")
    for n, key in enumerate(scenarios):
        if key in results:
            continue
        cell_seed = checked_run(trials, None if seed is None else (seed + n) % 2**64, threads)
        callback = _polled(progress(*key) if progress else None, poll)
        results[key] = simulate_prepared(prepared[key], trials, cell_seed, threads, callback)
        if pairings is not None:
            pairings(len(results), len(scenarios))
    # Each Result is named as its row and column are, for charts and JSON. The Results were made above for
    # this call alone and nothing else holds them yet, so they are named where they stand, not copied.
    for (a, t), result in results.items():
        object.__setattr__(result, "attacker", a)
        object.__setattr__(result, "target", t)
    ordered = {(a, t): results[a, t] for a in names_a for t in names_t}
    return Comparison(
        names_a,
        names_t,
        ordered,
        time.perf_counter() - start,
        attacker_points={a.name: a.points for a in attackers if a.points is not None},
        target_points={name: p.total for name, p in priced.items()},
        group_points=priced,
        vocabulary=_vocabulary(prepared.values()),
    )


def _vocabulary(prepared: Iterable[Prepared]) -> Vocabulary:
    """The words of the comparison's ruleset (every pairing is of one): those its first pairing compiled with."""
    return next((cell.compiled.vocabulary for cell in prepared), Vocabulary())


def _priced(cell: Prepared, target: Profile, priced: dict[str, GroupPoints], registry: Registry) -> Prepared:
    """A pairing ready to run with the target's points: note what each group of ``target`` costs in
    ``priced`` and, when its models differ in worth, run a copy of the Plan whose groups carry the values
    by which the core tallies the points removed. Left as prepared otherwise, so that a target whose
    models are all worth the same costs nothing more, and the prepared pairing stays the one a later
    call of the same scenario reuses."""
    plan = cell.compiled.plan
    try:
        costs = group_points(plan.target.groups, target.points, target.name)
    except ScenarioError as exc:
        raise ScenarioError(exc.message, source=target.source, field=f"{target.field}.points") from None
    if costs is None:
        return cell
    priced[target.name] = costs
    if costs.uniform:
        return cell
    plan = copy.deepcopy(plan)
    for group, value in zip(plan.target.groups, costs.values()[0], strict=True):
        group.value = value
    compiled = dataclasses.replace(cell.compiled, plan=plan)
    return dataclasses.replace(cell, compiled=compiled, core=freeze(cell.scenario, compiled, registry=registry))


def _polled(
    callback: Callable[[int, int], object] | None, poll: Callable[[], object] | None
) -> Callable[[int, int], object] | None:
    """A progress callback (a Monte Carlo cell's, or none) that calls ``poll`` first, so an exception of ``poll``
    stops the evaluation; ``callback`` itself when there is nothing to poll."""
    if poll is None:
        return callback

    def polled(done: int, total: int) -> None:
        poll()
        if callback is not None:
            callback(done, total)

    return polled


def _exact_cells(
    prepared: Mapping[tuple[str, str], Prepared],
    *,
    workers: int,
    pairings: Callable[[int, int], object] | None = None,
    poll: Callable[[], object] | None = None,
) -> dict[tuple[str, str], Result | DeclinedError]:
    """Exact Results by cell, or the DeclinedError saying why not.

    The core releases the GIL while it evaluates, so the threads run in parallel.
    Ctrl-C reaches only the main thread: when it (or anything else) ends the
    wait, each evaluation still running is stopped through its progress
    callback within a tenth of a second, so the process does not linger on
    worker threads the interpreter would wait for at exit. ``poll`` is called
    from that callback too: its exception stops the evaluation it was called
    from, ends the wait, and so stops the others.
    """
    out: dict[tuple[str, str], Result | DeclinedError] = {}
    if workers == 1:
        # One at a time on this thread: no hand-over to a worker and back
        # per cell (on a busy machine each costs a wait for a time slice).
        # Ctrl-C reaches the core's own check here, on the main thread, with
        # or without a callback to call.
        callback = _polled(None, poll)
        for key, cell in prepared.items():
            try:
                out[key] = evaluate_exact_prepared(cell, progress=callback)
            except DeclinedError as exc:
                out[key] = exc
            if pairings is not None:
                pairings(sum(isinstance(v, Result) for v in out.values()), len(prepared))
        return out
    stop = threading.Event()

    def check(done: int, total: int) -> None:
        if stop.is_set():
            raise _Cancelled
        if poll is not None:
            poll()

    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures: dict[Future[Result], tuple[str, str]] = {
            pool.submit(evaluate_exact_prepared, cell, progress=check): key for key, cell in prepared.items()
        }
        pending = set(futures)
        while pending:
            # A short timeout keeps the main thread responsive to Ctrl-C.
            done, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    out[futures[future]] = future.result()
                except DeclinedError as exc:
                    out[futures[future]] = exc
            if pairings is not None and done:
                pairings(sum(isinstance(v, Result) for v in out.values()), len(prepared))
    finally:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
    return out


class _Cancelled(Exception):
    """Raised in a worker's progress callback to stop an exact evaluation no one waits for."""
