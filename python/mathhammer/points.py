"""What each group of a target is worth, for the points-removed metrics of ``compare``.

A list prices a unit, and sometimes a part of it on its own: an attached Leader
costs its own points, its bodyguard theirs. A group of a target's Plan may say
what its models cost together (:attr:`mathhammer.plan.Group.points`); the
unit's ``points`` not claimed by any group are spread evenly over the models
of the groups that say nothing. A model destroyed removes its own share.

When every model is worth the same, the points removed are the models
destroyed times that worth, and nothing more is asked of the core. Otherwise
the distribution of points removed needs the joint distribution of the models
destroyed in each group, trial by trial: the core reports it as its
``value_destroyed`` number, given a whole-number value per model of each group
(:attr:`mathhammer.plan.Group.value`). The values are chosen here so that every
value destroyed means one number of points: a mixed-radix index of the models
destroyed per group where that index stays small, else the points themselves
scaled to whole numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from mathhammer.exceptions import ScenarioError
from mathhammer.plan import Group

MAX_JOINT = 1 << 16
"""The most outcomes (products of models + 1 over the groups) the core's number counts as a joint index."""

MAX_SCALED = 1 << 20
"""The most a scaled-points value destroyed may reach (the core's own limit on its histogram)."""

SAME_POINTS = 1e-9
"""Points removed closer than this are one entry of the distribution."""


@dataclass(frozen=True)
class GroupPoints:
    """What each group of a target costs, in the order of its Plan's groups.

    Attributes:
        names: The groups' names.
        models: Each group's models.
        points: What each group's models cost together.
        shared: Some group's points are a share of the unit's points, spread evenly over the models of the
            groups that gave none.
    """

    names: tuple[str, ...]
    models: tuple[int, ...]
    points: tuple[float, ...]
    shared: bool = False

    @property
    def total(self) -> float:
        """What the whole target costs."""
        return math.fsum(self.points)

    @property
    def per_model(self) -> tuple[float, ...]:
        """What one model of each group costs."""
        return tuple(p / m for p, m in zip(self.points, self.models, strict=True))

    @property
    def uniform(self) -> bool:
        """Is every model worth the same, so that the points removed follow from the models destroyed?"""
        first = self.per_model[0]
        return all(abs(p - first) <= SAME_POINTS * max(1.0, abs(first)) for p in self.per_model)

    def values(self) -> tuple[list[int], npt.NDArray[np.float64]]:
        """The core's value per model of each group, and the points each value destroyed stands for.

        Raises:
            ScenarioError: for a target of so many groups, at such points, that neither form fits the core.
        """
        radix = [math.prod(m + 1 for m in self.models[:g]) for g in range(len(self.models))]
        outcomes = math.prod(m + 1 for m in self.models)
        if outcomes <= MAX_JOINT:
            index = np.arange(outcomes)
            points = np.zeros(outcomes)
            for g, (r, m) in enumerate(zip(radix, self.models, strict=True)):
                points += (index // r) % (m + 1) * self.per_model[g]
            return radix, points
        shares = [Fraction(p).limit_denominator(10_000) / m for p, m in zip(self.points, self.models, strict=True)]
        scale = math.lcm(*(s.denominator for s in shares))
        values = [int(s * scale) for s in shares]
        most = sum(v * m for v, m in zip(values, self.models, strict=True))
        if most > MAX_SCALED:
            raise ScenarioError(
                f"the points of groups {', '.join(self.names)} are too fine to tell apart over their "
                f"{sum(self.models)} models; give whole points per group",
                field="points",
            )
        return values, np.arange(most + 1) / scale


def group_points(groups: Sequence[Group], unit_points: float | None, target: str) -> GroupPoints | None:
    """What each group costs: its own ``points`` where its Plan group gives them, else a share of what is left of
    ``unit_points`` (spread evenly over those groups' models); ``None`` without any points.

    Raises:
        ScenarioError: naming the target, for groups' points that add up past the unit's, or for some groups
            with points and no unit points to share among the others.
    """
    given = [g.points for g in groups]
    if all(p is None for p in given):
        if unit_points is None:
            return None
        return GroupPoints(
            tuple(g.name for g in groups),
            tuple(g.models for g in groups),
            tuple(unit_points * g.models / sum(g.models for g in groups) for g in groups),
            shared=True,
        )
    claimed = math.fsum(p for p in given if p is not None)
    rest = [g for g, p in zip(groups, given, strict=True) if p is None]
    if unit_points is not None and claimed > unit_points + SAME_POINTS:
        raise ScenarioError(
            f"target {target!r}: its models' points add up to {claimed:g}, more than its points = {unit_points:g};"
            " give the unit's points as the sum, or leave points out of the models",
            field="points",
        )
    if rest and unit_points is None:
        raise ScenarioError(
            f"target {target!r}: groups {', '.join(repr(g.name) for g in rest)} give no points and the unit has "
            "none to share among them; add points = N to the target (the whole unit) or to every model entry",
            field="points",
        )
    if not rest and unit_points is not None and abs(claimed - unit_points) > SAME_POINTS * max(1.0, unit_points):
        raise ScenarioError(
            f"target {target!r}: its models' points add up to {claimed:g}, not its points = {unit_points:g};"
            " make them agree, or leave one of them out",
            field="points",
        )
    left = 0.0 if unit_points is None else max(unit_points - claimed, 0.0)
    spread = sum(g.models for g in rest)
    points = tuple(p if p is not None else left * g.models / spread for g, p in zip(groups, given, strict=True))
    return GroupPoints(tuple(g.name for g in groups), tuple(g.models for g in groups), points, shared=bool(rest))


def distribution(
    points: npt.NDArray[np.float64], pmf: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The distribution of points removed from ``pmf[k]``, the chance of the value destroyed ``k`` that stands for
    ``points[k]``: each number of points that occurs once, ascending, with the chance of any value that gives it."""
    possible = np.flatnonzero(pmf > 0)
    order = possible[np.argsort(points[possible], kind="stable")]
    sorted_points = points[order]
    sorted_p = pmf[order]
    starts = np.flatnonzero(np.diff(sorted_points, prepend=-math.inf) > SAME_POINTS)
    return sorted_points[starts], np.add.reduceat(sorted_p, starts)
