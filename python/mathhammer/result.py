"""What a simulation found: per-stage statistics and whole distributions."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

from mathhammer.extras import require
from mathhammer.keywords import NoEffect

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

DISTRIBUTION_STAGES = ("damage", "models_destroyed")
"""Stages whose whole distribution the Result reports in tables and JSON."""

NO_EFFECT_TITLE = "No effect on this calculation"
"""The heading above the keywords accepted that changed nothing, in every report."""

RULES_TITLE = "Rules that ran"
"""The heading above the rule versions used and what each does, in every report."""

GROUP_STAGE = "destroyed:"
"""The prefix of the stages counting models destroyed in one group of the target: ``destroyed:Captain``."""

VALUE_STAGE = "value_destroyed"
"""The stage of the core's number summing, over the target's groups, each group's value times its models
destroyed; reported only when the groups give values (``compare`` does, for the points removed), and hidden."""

WEAPON_DAMAGE = "damage:"
"""The prefix of the stages counting the wounds the target lost to one weapon (one attack pool, or one ability
inflicting mortal wounds): ``damage:Lascannon``. Wounds lost, as ``damage`` counts them: removed from models after
Feel No Pain, never damage wasted on a model already destroyed."""

WEAPON_MORTAL = "mortal_wounds:"
"""The prefix of the stages counting the mortal wounds one weapon inflicted on the target, before Feel No Pain:
``mortal_wounds:Lascannon``."""

SHOWN_TAIL = 5e-5
"""Tables of a distribution stop where P(>= k) falls below this (it would print as 0.0000)."""

MAX_ROWS = 60
"""The most rows a table of one distribution shows; a wider one is shown in bins of several values."""


@dataclass(frozen=True)
class Row:
    """One row of a distribution table: the values ``low`` to ``high`` (one value when equal).

    Attributes:
        low: The first value of the row.
        high: The last value of the row.
        p: P(low <= number <= high).
        p_at_least: P(number >= low).
    """

    low: int
    high: int
    p: float
    p_at_least: float

    @property
    def label(self) -> str:
        """``"7"`` for one value, ``"40-59"`` for a bin."""
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


@dataclass(frozen=True)
class Chance:
    """A probability a ruleset reports beside its stages.

    ``P(stage = exactly)``, ``P(stage >= at_least)``, or with ``per`` the mean
    of ``stage`` per unit of stage ``per`` (P(hit) per attack: hits per attack).
    With ``outcome``, the chance is one of the run's mutually exclusive ends
    (who wins a fight), which charts draw together (:attr:`Result.outcomes`).
    """

    label: str
    stage: str
    at_least: int | None = None
    exactly: int | None = None
    per: str | None = None
    outcome: bool = False

    def of(self, stages: Mapping[str, Stage]) -> tuple[float, float]:
        """The chance and its Monte Carlo standard error (0 when exact)."""
        stage = stages[self.stage]
        if self.per is not None:
            per = stages[self.per].mean
            return (stage.mean / per, stage.se / per) if per else (0.0, 0.0)
        pmf = stage.pmf
        if self.exactly is not None:
            p = float(pmf[self.exactly]) if self.exactly < len(pmf) else 0.0
        else:
            p = float(pmf[self.at_least or 0 :].sum())
        p = min(max(p, 0.0), 1.0)
        se = math.sqrt(p * (1 - p) / stage.trials) if stage.trials else 0.0
        return p, se


@dataclass(frozen=True, slots=True)
class Stage:
    """One reported number (attacks, hits, ..., damage, models destroyed) over all trials.

    Attributes:
        name: Machine name, such as ``failed_saves``.
        label: Human label, such as "Failed saves".
        pmf: ``pmf[k]`` is the probability the number was exactly ``k``.
        trials: Trials behind the estimate (0 for an exact evaluator).
    """

    name: str
    label: str
    pmf: npt.NDArray[np.float64]
    trials: int
    known_mean: float | None = None
    """The exact mean of a number whose distribution the exact evaluator does not work out (the wounds lost to
    one of several weapons: it follows their sum); its :attr:`pmf` is then empty."""

    @property
    def distribution_known(self) -> bool:
        """Whether :attr:`pmf` is the number's distribution (false when only its mean is known)."""
        return self.known_mean is None

    @property
    def mean(self) -> float:
        if self.known_mean is not None:
            return self.known_mean
        return float(np.dot(np.arange(len(self.pmf)), self.pmf))

    @property
    def sd(self) -> float:
        """Standard deviation of the number itself (sample-corrected for Monte Carlo); NaN when only the mean is
        known."""
        if self.known_mean is not None:
            return math.nan
        k = np.arange(len(self.pmf))
        var = float(np.dot((k - self.mean) ** 2, self.pmf))
        if self.trials > 1:
            var *= self.trials / (self.trials - 1)
        return math.sqrt(max(var, 0.0))

    @property
    def se(self) -> float:
        """Monte Carlo standard error of :attr:`mean` (0 when exact)."""
        return self.sd / math.sqrt(self.trials) if self.trials else 0.0

    @overload
    def p_at_least(self) -> npt.NDArray[np.float64]: ...

    @overload
    def p_at_least(self, k: int | np.integer[Any]) -> float: ...

    def p_at_least(self, k: int | np.integer[Any] | None = None) -> npt.NDArray[np.float64] | float:
        """P(number >= ``k``) for one ``k``; without ``k``, every one: ``p_at_least()[k]`` is P(number >= k).

        ``stage.p_at_least(3)`` is the chance of 3 or more; it is 1 for any
        ``k`` of 0 or less and 0 past the largest possible value.

        Raises:
            TypeError: for a ``k`` that is not a whole number.
        """
        if k is None:
            return _probabilities(np.cumsum(self.pmf[::-1])[::-1])
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"k is {k!r}; P(number >= k) needs a whole number k")
        return min(max(float(self.pmf[max(int(k), 0) :].sum()), 0.0), 1.0)

    def last_shown(self, tail: float = SHOWN_TAIL) -> int:
        """The largest ``k`` with P(number >= k) of at least ``tail``: where a table or chart may stop."""
        above = np.nonzero(self.p_at_least() >= tail)[0]
        return int(above[-1]) if len(above) else 0

    def rows(self, max_rows: int | None = MAX_ROWS, tail: float = SHOWN_TAIL) -> list[Row]:
        """The rows of a table of this distribution: each ``k`` from 0 to :meth:`last_shown`, or bins.

        When that is more than ``max_rows`` rows, the values from the first
        with P(<= k) of at least ``tail`` to :meth:`last_shown` are grouped in
        bins of equal width, with one row before them (0 to the first value)
        and one after (the rest of the upper tail), at most ``max_rows`` in all.
        ``max_rows=None`` shows every value.
        """
        pmf = self.pmf
        at_least = self.p_at_least()
        last = self.last_shown(tail)
        if max_rows is None or last + 1 <= max_rows:
            return [Row(k, k, float(pmf[k]), float(at_least[k])) for k in range(min(last + 1, len(pmf)))]
        first = min(int(np.searchsorted(np.cumsum(pmf), tail)), last)
        rows = [Row(0, first - 1, float(1 - at_least[first]), 1.0)] if first > 0 else []
        width = math.ceil((last - first + 1) / max(1, max_rows - len(rows) - 1))
        for low in range(first, last + 1, width):
            high = min(low + width - 1, last)
            rows.append(Row(low, high, float(pmf[low : high + 1].sum()), float(at_least[low])))
        if last + 1 < len(pmf):
            rest = float(at_least[last + 1])
            rows.append(Row(last + 1, len(pmf) - 1, rest, rest))
        return rows

    def percentile(self, q: float) -> int:
        """Smallest ``k`` with P(number <= k) >= ``q``/100."""
        cdf = np.cumsum(self.pmf)
        return int(np.searchsorted(cdf, q / 100.0 - 1e-12))

    def to_pandas(self) -> pd.DataFrame:
        """The distribution as a DataFrame indexed by ``k``: columns ``p`` (exactly k) and ``p_at_least``.

        Raises:
            MissingDependencyError: when pandas is not installed (``pip install 'mathhammer[pandas]'``).
        """
        pandas = require("pandas", "pandas", feature="to_pandas()")
        frame: pd.DataFrame = pandas.DataFrame(
            {"p": self.pmf, "p_at_least": self.p_at_least()},
            index=pandas.RangeIndex(len(self.pmf), name="k"),
        )
        return frame

    def to_dict(self, *, with_pmf: bool) -> dict[str, Any]:
        if self.known_mean is not None:
            return {"mean": self.mean, "se": 0.0, "sd": None, "distribution_known": False}
        d: dict[str, Any] = {"mean": self.mean, "se": self.se, "sd": self.sd}
        if with_pmf:
            d["pmf"] = [float(p) for p in self.pmf]
            d["p_at_least"] = [float(p) for p in self.p_at_least()]
        return d


def probability(p: float) -> str:
    """``p`` to four places, but never a possible outcome shown as 0.0000 or a possible failure as 1.0000."""
    if 0 < p < 5e-5:
        return "<0.0001"
    if 1 - 5e-5 < p < 1:
        return ">0.9999"
    return f"{p:.4f}"


@dataclass(frozen=True)
class GroupResult:
    """One group of the target (the Captain leading a squad, the squad itself): how many of its models died.

    Attributes:
        name: The group's name, as the target lists it.
        models: Models in the group.
        destroyed: The stage ``destroyed:<name>``: the distribution of the group's models destroyed.
    """

    name: str
    models: int
    destroyed: Stage

    @property
    def pmf(self) -> npt.NDArray[np.float64]:
        """``pmf[k]`` is the probability that exactly ``k`` of the group's models were destroyed."""
        return self.destroyed.pmf

    @property
    def p_destroyed(self) -> float:
        """Probability that every model of the group was destroyed: P(the Captain dies) for a group of one."""
        pmf = self.destroyed.pmf
        return float(pmf[self.models]) if len(pmf) > self.models else 0.0

    @property
    def p_destroyed_se(self) -> float:
        """Monte Carlo standard error of :attr:`p_destroyed` (0 when exact)."""
        trials = self.destroyed.trials
        return math.sqrt(self.p_destroyed * (1 - self.p_destroyed) / trials) if trials else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "models": self.models,
            "p_destroyed": self.p_destroyed,
            "p_destroyed_se": self.p_destroyed_se,
            **self.destroyed.to_dict(with_pmf=True),
        }


@dataclass(frozen=True)
class WeaponResult:
    """What one weapon (one attack pool, or one ability inflicting mortal wounds) did to the target.

    Attributes:
        name: The pool's name, as the Result lists it (pooled weapons are named together: ``"Bolt rifle +
            Bolt pistol"``).
        damage: The stage ``damage:<name>``: the wounds the target lost to this weapon (removed from models after
            Feel No Pain; damage wasted on a model already destroyed does not count).
        mortal_wounds: The stage ``mortal_wounds:<name>``: the mortal wounds it inflicted, before Feel No Pain.

    Monte Carlo gives each distribution. The exact evaluator gives the exact mean of both, and their
    distributions where it works them out (mortal wounds mostly; damage for the first weapon, when no harm is
    held until every attack is resolved, or the only one): ``stage.distribution_known`` says which.
    """

    name: str
    damage: Stage
    mortal_wounds: Stage

    @property
    def mean_damage(self) -> float:
        """The mean wounds the target lost to this weapon."""
        return self.damage.mean

    def to_dict(self) -> dict[str, Any]:
        return {
            "damage": self.damage.to_dict(with_pmf=True),
            "mortal_wounds": self.mortal_wounds.to_dict(with_pmf=True),
        }


@dataclass(frozen=True, slots=True)
class Result:
    """Everything a run reports.

    Attributes:
        ruleset: Name of the ruleset that compiled the scenario.
        ruleset_version: Version of the plugin that provides the ruleset ("" when unknown).
        evaluator: ``"monte_carlo"`` or ``"exact"``.
        trials: Number of trials simulated (0 for the exact evaluator).
        seed: Seed of the run; the same seed gives the same Result (``None`` when exact).
        stages: Reported numbers in order: the ruleset's counters, then
            ``damage`` (wounds actually removed) and ``models_destroyed``, then
            ``destroyed:<group>`` for each group of the target (see :meth:`group`), then
            ``damage:<weapon>`` and ``mortal_wounds:<weapon>`` for each weapon (see :meth:`weapon`).
        target_models: Models the target unit starts with (models destroyed count from there).
        rule_versions: Which version of each rule was used.
        rule_descriptions: What the version of each rule that was used does, in words.
        attacker: The attacking side's name ("" when the ruleset gave none).
        target: The target's name ("" when the ruleset gave none).
        fast_path: Whether pool outcomes were drawn from exact tables.
        seconds: Wall time of the run.
    """

    ruleset: str
    evaluator: str
    trials: int
    seed: int | None
    stages: Mapping[str, Stage]
    target_models: int
    rule_versions: Mapping[str, str] = field(default_factory=dict)
    fast_path: bool = False
    seconds: float = 0.0
    ruleset_version: str = ""
    chances: Sequence[Chance] = ()
    """Probabilities the ruleset reports beside the stages (see :meth:`chance`)."""
    distributions: Sequence[str] = DISTRIBUTION_STAGES
    """Stages whose whole distribution tables and JSON show (the ruleset may add some)."""
    hidden: Sequence[str] = ()
    """Stages whose mean means nothing (a code the ruleset reads through :attr:`chances`): kept in
    the Result and JSON, left out of the per-stage tables."""
    no_effect: Sequence[NoEffect] = ()
    """Keywords the scenario lists that change nothing in this calculation, each with its reason
    (One Shot, or Melta when the target is not within half range): accepted, and said so."""
    group_models: Mapping[str, int] = field(default_factory=dict)
    """Models in each group of the target, by group name, in the target's order; each group has
    the stage ``destroyed:<name>``."""
    rule_descriptions: Mapping[str, str] = field(default_factory=dict)
    attacker: str = ""
    target: str = ""
    weapon_stages: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Each weapon (attack pool, or ability inflicting mortal wounds) aimed at the target, in order: its
    stages ``damage:<name>`` and ``mortal_wounds:<name>``."""
    weapon_measures: tuple[str, str] = ("damage (wounds lost)", "mortal wounds")
    """What those two stages count, in the ruleset's words (``Vocabulary.weapon_measures``): the weapons
    chart heads its two panels with them ("HP lost" and "Direct Damage" in the d12 system)."""

    @property
    def name(self) -> str:
        """``"<attacker> vs <target>"``, else the one name the ruleset gave, else the ruleset's: what charts call it."""
        return " vs ".join(n for n in (self.attacker, self.target) if n) or self.ruleset

    @property
    def how(self) -> str:
        """How it was evaluated, in a few words: ``"exact"`` or ``"Monte Carlo, 200,000 trials"``."""
        return "exact" if self.evaluator == "exact" else f"Monte Carlo, {self.trials:,} trials"

    @property
    def rule_lines(self) -> list[str]:
        """One line per rule version that ran: its name, the version, and what it does in words.

        ``Blast (spec): specification (9th-edition text): at least 3 attacks against 6-10 models; ...``;
        a rule whose plugin gave no sentence shows only its version.
        """
        lines = []
        for rule, version in self.rule_versions.items():
            said = self.rule_descriptions.get(rule)
            lines.append(f"{rule} ({version}): {said}" if said else f"{rule}: {version}")
        return lines

    @property
    def weapons(self) -> list[WeaponResult]:
        """Each weapon aimed at the target, in the order they attack, with what it did."""
        return [self.weapon(name) for name in self.weapon_stages]

    def weapon(self, name: str) -> WeaponResult:
        """The weapon (attack pool) called ``name``: ``result.weapon("Lascannon").mean_damage`` is the mean
        wounds the target lost to it."""
        if name not in self.weapon_stages:
            known = ", ".join(repr(w) for w in self.weapon_stages) or "none"
            raise KeyError(f"{name!r} is not a weapon of this Result; its weapons are {known}")
        damage, mortal = self.weapon_stages[name]
        return WeaponResult(name, self.stages[damage], self.stages[mortal])

    @property
    def groups(self) -> list[GroupResult]:
        """Each group of the target, in the target's order, with its models destroyed."""
        return [self.group(name) for name in self.group_models]

    def group(self, name: str) -> GroupResult:
        """The group of the target called ``name``: ``result.group("Captain").p_destroyed`` is P(the Captain dies)."""
        if name not in self.group_models:
            known = ", ".join(repr(g) for g in self.group_models) or "none"
            raise KeyError(f"{name!r} is not a group of the target; its groups are {known}")
        return GroupResult(name, self.group_models[name], self.stages[GROUP_STAGE + name])

    @property
    def shown(self) -> list[Stage]:
        """The stages the per-stage tables show: a group's models destroyed only when the target has several, a
        weapon's damage only when several weapons attack, and its mortal wounds only when it inflicted some."""
        one_group = len(self.group_models) <= 1
        one_weapon = len(self.weapon_stages) <= 1
        mortal = {m for _, m in self.weapon_stages.values()}
        return [
            s
            for name, s in self.stages.items()
            if name not in self.hidden
            and not (one_group and self._is_group_stage(name))
            and not (self._is_weapon_stage(name) and (one_weapon or (name in mortal and s.mean == 0)))
        ]

    @property
    def mean_only_note(self) -> str | None:
        """A line saying why some rows show no spread: stages the exact evaluator knows only by their mean."""
        if all(stage.distribution_known for stage in self.shown):
            return None
        return (
            "- : only the exact mean is known (what one weapon did, where it depends on what the others left);"
            " Monte Carlo gives the distribution"
        )

    @property
    def group_lines(self) -> list[str]:
        """``P(<group> destroyed) = p`` for each group when the target has several (with ``± se`` when simulated)."""
        if len(self.group_models) <= 1:
            return []
        lines = []
        for g in self.groups:
            se = f" ± {g.p_destroyed_se:.4f}" if g.p_destroyed_se else ""
            lines.append(f"P({g.name} destroyed) = {probability(g.p_destroyed)}{se}")
        return lines

    @classmethod
    def from_histograms(
        cls,
        histograms: Sequence[npt.NDArray[np.uint64]],
        names: Sequence[str],
        labels: Mapping[str, str],
        **fields: Any,
    ) -> Result:
        """Build from the core's histograms (one per name, in order)."""
        trials = int(fields["trials"])
        # A count over the trials is within [0, 1] as divided.
        pmfs = [np.asarray(hist, dtype=np.float64) / trials for hist in histograms]
        return cls._from_probabilities(pmfs, names, labels, **fields)

    @classmethod
    def from_pmfs(
        cls,
        pmfs: Sequence[npt.NDArray[np.float64] | float],
        names: Sequence[str],
        labels: Mapping[str, str],
        **fields: Any,
    ) -> Result:
        """Build from distributions, one pmf per name in order: exact ones
        (``trials=0``) or a simulation's (``trials`` behind each estimate). A float in place of a pmf is an
        exact mean whose distribution is not known. Each value is clamped to [0, 1]."""
        clamped = [p if isinstance(p, float) else _probabilities(np.asarray(p, dtype=np.float64)) for p in pmfs]
        return cls._from_probabilities(clamped, names, labels, **fields)

    @classmethod
    def _from_probabilities(
        cls,
        pmfs: Sequence[npt.NDArray[np.float64] | float],
        names: Sequence[str],
        labels: Mapping[str, str],
        **fields: Any,
    ) -> Result:
        """:meth:`from_pmfs` of pmfs known to be within [0, 1], as the core's exact ones and a simulation's
        counts over its trials are: clamping a pmf costs more than building its Stage, a dozen a Result."""
        trials = int(fields["trials"])
        if any(name not in labels for name in names):
            labels = {**default_labels(names, fields.get("weapon_stages", {})), **labels}
        stages = {}
        for name, pmf in zip(names, pmfs, strict=True):
            label = labels[name]
            if isinstance(pmf, float):
                # The exact evaluator knows only this number's mean.
                stages[name] = Stage(name, label, np.zeros(0), trials, known_mean=pmf)
            else:
                stages[name] = Stage(name, label, np.asarray(pmf, dtype=np.float64), trials)
        return cls(stages=stages, **fields)

    def __getitem__(self, name: str) -> Stage:
        return self.stages[name]

    @property
    def outcomes(self) -> list[Chance]:
        """The chances that are the run's mutually exclusive ends (who wins a fight), in order."""
        return [c for c in self.chances if c.outcome]

    def chance(self, label: str) -> float:
        """The ruleset's reported probability called ``label``, such as "P(attacker wins)"."""
        for c in self.chances:
            if c.label == label:
                return c.of(self.stages)[0]
        known = ", ".join(repr(c.label) for c in self.chances) or "none"
        raise KeyError(f"{label!r} is not a chance this Result reports; it reports {known}")

    @property
    def p_unit_destroyed(self) -> float:
        """Probability that every model of the target is destroyed."""
        pmf = self.stages["models_destroyed"].pmf
        return min(float(pmf[self.target_models]), 1.0) if len(pmf) > self.target_models else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: run facts, one object per stage, under ``groups`` one per group of the target,
        under ``weapons`` one per weapon, and under ``labels`` each stage's name in the ruleset's words."""
        d: dict[str, Any] = {
            "ruleset": self.ruleset,
            "ruleset_version": self.ruleset_version,
            "evaluator": self.evaluator,
            "trials": self.trials,
            "seed": self.seed,
            "rule_versions": dict(self.rule_versions),
            "rule_descriptions": dict(self.rule_descriptions),
            "attacker": self.attacker,
            "target": self.target,
            "target_models": self.target_models,
            "p_unit_destroyed": self.p_unit_destroyed,
            "fast_path": self.fast_path,
            "seconds": self.seconds,
            "stages": [
                name for name in self.stages if not self._is_group_stage(name) and not self._is_weapon_stage(name)
            ],
            # Keys are identifiers scripts read, the same in every ruleset; the labels say them in the
            # ruleset's words ("mortal_wounds:Rifle" is "Direct Damage: Rifle" in the d12 system).
            "labels": {name: stage.label for name, stage in self.stages.items()},
            "chances": {c.label: dict(zip(("p", "se"), c.of(self.stages), strict=True)) for c in self.chances},
            "no_effect": [n.to_dict() for n in self.no_effect],
            "groups": {g.name: g.to_dict() for g in self.groups},
            "weapons": {w.name: w.to_dict() for w in self.weapons},
        }
        for name, stage in self.stages.items():
            if not self._is_group_stage(name) and not self._is_weapon_stage(name):
                d[name] = stage.to_dict(with_pmf=name in self.distributions)
        return d

    def _is_group_stage(self, name: str) -> bool:
        """Is ``name`` a group's ``destroyed:<group>`` stage (reported under ``groups`` in JSON)?"""
        return name.startswith(GROUP_STAGE) and name.removeprefix(GROUP_STAGE) in self.group_models

    def _is_weapon_stage(self, name: str) -> bool:
        """Is ``name`` a weapon's ``damage:`` or ``mortal_wounds:`` stage (reported under ``weapons`` in JSON)?"""
        return any(name in pair for pair in self.weapon_stages.values())

    @property
    def description(self) -> str:
        """One line saying how the Result was made: ruleset and version, evaluator, trials and seed, time."""
        ruleset = f"{self.ruleset} {self.ruleset_version}".strip()
        if self.evaluator == "monte_carlo":
            how = f"Monte Carlo, {self.trials:,} trials, seed {self.seed}"
            if self.fast_path:
                how += " (fast path)"
        else:
            how = "exact"
        return f"{ruleset} · {how} · {self.seconds:.2f} s"

    def to_pandas(self) -> pd.DataFrame:
        """Per-stage statistics as a DataFrame indexed by stage name: ``label``, ``mean``, ``se``, ``sd``.

        Each stage's whole distribution is ``result[name].to_pandas()``.

        Raises:
            MissingDependencyError: when pandas is not installed (``pip install 'mathhammer[pandas]'``).
        """
        pandas = require("pandas", "pandas", feature="to_pandas()")
        rows = [{"label": s.label, "mean": s.mean, "se": s.se, "sd": s.sd} for s in self.shown]
        frame: pd.DataFrame = pandas.DataFrame(rows, index=pandas.Index([s.name for s in self.shown], name="stage"))
        return frame

    def plot(self, stages: Sequence[str] | None = None) -> Figure:
        """A matplotlib Figure: for each of ``stages``, P(exactly k) and P(at least k).

        Its title names the attacker, the target, the evaluator and, for Monte Carlo, the trials.

        Raises:
            MissingDependencyError: when matplotlib is not installed (``pip install 'mathhammer[plot]'``).
        """
        from mathhammer.plotting import distribution_figure

        return distribution_figure({self.name: self}, self.distributions if stages is None else stages)

    def plot_weapons(self) -> Figure:
        """A matplotlib Figure: the mean damage and mortal wounds of each weapon, as bars.

        Raises:
            MissingDependencyError: when matplotlib is not installed (``pip install 'mathhammer[plot]'``).
        """
        from mathhammer.plotting import weapons_figure

        return weapons_figure(self)

    def _repr_html_(self) -> str:
        """An HTML report for Jupyter: per-stage statistics and the distributions with bars, self-contained."""
        exact = self.evaluator == "exact"
        head = "<tr><th>stage</th><th>mean</th>" + ("" if exact else "<th>± se</th>") + "<th>sd</th></tr>"
        rows = []
        for stage in self.shown:
            se = "" if exact else f"<td>{stage.se:.4f}</td>"
            sd = f"{stage.sd:.3f}" if stage.distribution_known else "-"
            rows.append(
                f"<tr><td style='text-align:left'>{html.escape(stage.label)}</td>"
                f"<td>{stage.mean:.3f}</td>{se}<td>{sd}</td></tr>"
            )
        parts = [
            "<div class='mathhammer-result'>",
            f"<p><b>{html.escape(self.description)}</b></p>",
            f"<table>{head}{''.join(rows)}</table>",
            f"<p><b>P(unit destroyed) = {self.p_unit_destroyed:.4f}</b></p>",
            *(f"<p>{html.escape(line)}</p>" for line in self.group_lines),
            *(f"<p>{html.escape(c.label)} = {c.of(self.stages)[0]:.4f}</p>" for c in self.chances),
            "<div style='display:flex; gap:2em; align-items:flex-start'>",
        ]
        for name in self.distributions:
            if name in self.stages:
                parts.append(_distribution_html(self.stages[name]))
        parts.append("</div>")
        if self.rule_versions:
            items = "".join(f"<li>{html.escape(line)}</li>" for line in self.rule_lines)
            parts.append(f"<p>{RULES_TITLE}:</p><ul>{items}</ul>")
        if self.no_effect:
            items = "".join(f"<li>{html.escape(str(n))}</li>" for n in self.no_effect)
            parts.append(f"<p>{NO_EFFECT_TITLE}:</p><ul>{items}</ul>")
        parts.append("</div>")
        return "\n".join(parts)

    def to_text(self) -> str:
        """A plain-text report: per-stage means, then the distributions."""
        width = max(18, *(len(s.label) + 2 for s in self.shown))
        how = (
            f"{self.trials:,} trials, seed {self.seed}, monte_carlo{' (fast path)' if self.fast_path else ''}"
            if self.evaluator == "monte_carlo"
            else "exact"
        )
        lines = [
            f"{self.ruleset}: {how}, {self.seconds:.2f} s",
            "",
            f"{'stage':<{width}}{'mean':>10}{'± se':>10}",
        ]
        for stage in self.shown:
            lines.append(f"{stage.label:<{width}}{stage.mean:>10.3f}{stage.se:>10.4f}")
        if self.mean_only_note:
            lines.append(self.mean_only_note)
        lines.append(f"{'P(unit destroyed)':<{width}}{self.p_unit_destroyed:>10.4f}")
        if len(self.group_models) > 1:
            for g in self.groups:
                lines.append(f"{f'P({g.name} destroyed)':<{width}}{g.p_destroyed:>10.4f}{g.p_destroyed_se:>10.4f}")
        lines += [f"{c.label} = {c.of(self.stages)[0]:.4f}" for c in self.chances]
        for name in self.distributions:
            stage = self.stages[name]
            rows = stage.rows()
            width_k = max(4, *(len(row.label) + 1 for row in rows))
            lines += ["", f"{stage.label}:", f"{'k':>{width_k}}{'P(=k)':>10}{'P(>=k)':>10}"]
            for row in rows:
                bar = "#" * round(row.p * 40)
                lines.append(f"{row.label:>{width_k}}{row.p:>10.4f}{row.p_at_least:>10.4f}  {bar}")
        if self.rule_versions:
            lines += ["", f"{RULES_TITLE}:", *(f"  {line}" for line in self.rule_lines)]
        if self.no_effect:
            lines += ["", f"{NO_EFFECT_TITLE}:", *(f"  {n}" for n in self.no_effect)]
        return "\n".join(lines)


def default_labels(names: Sequence[str], weapon_stages: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """Each number's label when its ruleset gives none: ``Models destroyed: G`` for a group's stage,
    ``Damage: X`` and ``Mortal wounds: X`` for weapon X's two, else the name in words (``Failed saves``)."""
    damage = {d: w for w, (d, _) in weapon_stages.items()}
    mortal = {m: w for w, (_, m) in weapon_stages.items()}
    labels = {}
    for name in names:
        if name.startswith(GROUP_STAGE):
            labels[name] = f"Models destroyed: {name.removeprefix(GROUP_STAGE)}"
        elif name in damage:
            labels[name] = f"Damage: {damage[name]}"
        elif name in mortal:
            labels[name] = f"Mortal wounds: {mortal[name]}"
        else:
            labels[name] = name.replace("_", " ").capitalize()
    return labels


def _probabilities(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``values`` clamped to [0, 1]: sums of floating-point terms can stray past either end by an ulp or
    two (an exact P(unit destroyed) of 1.0000000000000049), and a probability must never be shown so."""
    # np.clip's dispatch costs twice these two ufuncs on the short arrays a Result holds.
    clipped: npt.NDArray[np.float64] = np.minimum(np.maximum(values, 0.0), 1.0)
    return clipped


def _distribution_html(stage: Stage, *, bar_px: int = 160) -> str:
    shown = stage.rows()
    peak = max((row.p for row in shown), default=0.0)
    rows = []
    for row in shown:
        width = round(bar_px * row.p / peak) if peak else 0
        bar = f"<div style='background:#4c78a8; height:0.8em; width:{width}px'></div>"
        rows.append(f"<tr><td>{row.label}</td><td>{row.p:.4f}</td><td>{row.p_at_least:.4f}</td><td>{bar}</td></tr>")
    return (
        f"<table><caption style='text-align:left'><b>{html.escape(stage.label)}</b></caption>"
        "<tr><th>k</th><th>P(=k)</th><th>P(≥k)</th><th></th></tr>" + "".join(rows) + "</table>"
    )
