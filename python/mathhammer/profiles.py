"""Attackers and targets by name: the profiles a comparison or a sweep pairs up.

A profile is the ``attacker`` or ``target`` table of a scenario, with a name.
Profiles come from scenario files (each gives one of each, named after the
file and the target) or from a profile library, a TOML file of many named
ones::

    ruleset = "wh40k"
    [context]                      # optional: scenario keys every pairing shares
    half_range = true

    [attackers.lascannons]         # the attacker table of a scenario
    [[attackers.lascannons.weapons]]
    ...
    [attackers.lascannons.scenario]  # optional: scenario keys for this attacker's pairings
    context = { stationary = true }

    [targets.rhino]                # the target table of a scenario
    ...

Each pairing becomes an ordinary scenario, loaded and checked by its ruleset,
so a library holds exactly the fields a scenario file does, and two more:
``points`` (what the unit costs) on any profile, and ``models`` (how many
models the unit has) on an attacker. They are the comparison's, not the
ruleset's: the efficiency metrics (per 100 points, points removed) use them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mathhammer.exceptions import ScenarioError
from mathhammer.profile_format import (
    attacker_data,
    attacker_field,
    library_attacker,
    profile_format,
    refuse_cells,
    scenario_attacker,
)
from mathhammer.registry import Registry, default_registry
from mathhammer.ruleset import ProfileFormat
from mathhammer.scenario import read_toml, scenario_from_data


@dataclass(frozen=True)
class Profile:
    """A named attacker or target table, and where it came from.

    Attributes:
        name: The name rows and columns show.
        ruleset: The ruleset its file names.
        table: The ``attacker`` or ``target`` table itself.
        scenario: Other scenario keys that go with it (``rules``, ``context``, ...).
        source: The file it came from.
        field: Its dotted path in that file (``attackers.lascannons``, or ``attacker``).
        points: What the unit costs, when the file says (``points = 80``).
        models: How many models an attacking unit has, when the file says (``models = 5``).
    """

    name: str
    ruleset: str
    table: Mapping[str, Any]
    scenario: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None
    field: str = ""
    points: float | None = None
    models: int | None = None


@dataclass
class Profiles:
    """Attackers and targets gathered from scenario files and libraries, by name, in the order read."""

    attackers: dict[str, Profile] = field(default_factory=dict)
    targets: dict[str, Profile] = field(default_factory=dict)

    def add(self, kind: Literal["attacker", "target"], profile: Profile) -> None:
        """Add a profile; two with one name is an error naming both files."""
        into = self.attackers if kind == "attacker" else self.targets
        if profile.name in into:
            first = into[profile.name]
            raise ScenarioError(
                f"is a second {kind} named {profile.name!r} (the first is in {first.source}, at {first.field});"
                " rename one",
                source=profile.source,
                field=profile.field,
            )
        into[profile.name] = profile

    def select(self, kind: Literal["attacker", "target"], names: Sequence[str] | None) -> list[Profile]:
        """The named profiles, in the order given; all of them when ``names`` is empty or ``None``."""
        have = self.attackers if kind == "attacker" else self.targets
        if not names:
            return list(have.values())
        unknown = [n for n in names if n not in have]
        if unknown:
            known = ", ".join(have) or "none"
            raise ScenarioError(f"no {kind} named {', '.join(map(repr, unknown))}; the {kind}s read are: {known}")
        return [have[n] for n in names]


def is_library(path: str | Path) -> bool:
    """Whether the TOML file at ``path`` is a profile library (``[attackers.NAME]`` or ``[targets.NAME]`` tables).

    Raises:
        ScenarioError: naming the file, when it cannot be read or is not TOML.
    """
    data = read_toml(path)
    return "attackers" in data or "targets" in data


def read_profiles(
    paths: Sequence[str | Path], into: Profiles | None = None, *, registry: Registry | None = None
) -> Profiles:
    """Read attackers and targets from scenario files and profile libraries.

    ``registry`` gives each file's ruleset (the installed plugins by default), whose
    :class:`~mathhammer.ruleset.ProfileFormat` says where its attacker is.

    Raises:
        ScenarioError: naming the file (and field) for a file that is neither,
            a scenario that cannot be a comparison's cell, or a name used twice.
    """
    profiles = into if into is not None else Profiles()
    for path in paths:
        add_profiles(read_toml(path), str(path), profiles, stem=Path(path).stem, registry=registry)
    return profiles


def add_profiles(
    data: Mapping[str, Any],
    source: str,
    profiles: Profiles,
    *,
    stem: str | None = None,
    registry: Registry | None = None,
) -> None:
    """Add the attackers and targets of one parsed file (a scenario or a profile library) to ``profiles``.

    ``stem`` names a scenario file's attacker and target when they have no
    ``name`` of their own; it defaults to ``source``.

    Raises:
        ScenarioError: naming ``source`` (and the field) for data that is neither, a scenario that cannot
            be a comparison's cell (a fight), or a name used twice.
    """
    stem = source if stem is None else stem
    ruleset = data.get("ruleset")
    if not isinstance(ruleset, str):
        raise ScenarioError(
            'is required: name the ruleset, for example ruleset = "wh40k"', source=source, field="ruleset"
        )
    fmt = profile_format(ruleset, registry)
    refuse_cells(fmt, data, source)
    side = scenario_attacker(fmt, data)
    if "attackers" in data or "targets" in data:
        _read_library(data, ruleset, source, profiles, fmt)
    elif side is not None or "target" in data:
        shared = {k: v for k, v in data.items() if k not in (fmt.attacker_key, "target")}
        if side is not None:
            where = "attacker" if fmt.attacker_key == "attacker" else ""
            attacker, points, models = _costs(side, "attacker", source, where, fmt)
            name = attacker.get("name", stem) if where and isinstance(attacker, Mapping) else stem
            profiles.add("attacker", Profile(str(name), ruleset, attacker, shared, source, where, points, models))
        if "target" in data:
            target, points, _ = _costs(data["target"], "target", source, "target", fmt)
            name = target.get("name", stem) if isinstance(target, Mapping) else stem
            profiles.add("target", Profile(str(name), ruleset, target, {}, source, "target", points))
    else:
        raise ScenarioError(
            "holds no [attacker] or [target] (a scenario file) and no [attackers.NAME] or [targets.NAME]"
            " (a profile library); see examples/profiles.toml",
            source=source,
        )


def _read_library(data: Mapping[str, Any], ruleset: str, source: str, profiles: Profiles, fmt: ProfileFormat) -> None:
    shared = {k: v for k, v in data.items() if k not in ("attackers", "targets")}
    kinds: tuple[tuple[str, Literal["attacker", "target"]], ...] = (("attackers", "attacker"), ("targets", "target"))
    for plural, kind in kinds:
        entries = data.get(plural, {})
        if not isinstance(entries, Mapping):
            raise ScenarioError(f"must be tables named after each {kind}: [{plural}.NAME]", source=source, field=plural)
        for name, table in entries.items():
            where = f"{plural}.{name}"
            if not isinstance(table, Mapping):
                raise ScenarioError(f"must be a table ([{where}]), not {table!r}", source=source, field=where)
            costed, points, models = _costs(table, kind, source, where, fmt)
            own = dict(costed)
            extra = own.pop("scenario", {}) if kind == "attacker" else {}
            if not isinstance(extra, Mapping):
                raise ScenarioError("must be a table of scenario keys", source=source, field=f"{where}.scenario")
            refuse_cells(fmt, extra, source, f"{where}.scenario.")
            if kind == "attacker":
                library_attacker(fmt, own, source, where)
            merged = {**shared, **{k: _merge(shared.get(k), v) for k, v in extra.items()}}
            profiles.add(kind, Profile(str(name), ruleset, own, merged, source, where, points, models))


MAX_POINTS = 100_000
"""The most points a profile may cost; a whole army is a few thousand."""


def _costs(
    table: Any, kind: Literal["attacker", "target"], source: str, where: str, fmt: ProfileFormat | None = None
) -> tuple[Any, float | None, int | None]:
    """``table`` without its ``points`` (and an attacker's ``models``, unless ``fmt`` says the ruleset's table
    holds its own: it stays there, and is read), and those two, checked.

    Raises:
        ScenarioError: naming the field, for points that are not a number from 0
            to :data:`MAX_POINTS`, or models that are not a count of at least 1.
    """
    if not isinstance(table, Mapping):
        return table, None, None
    own = dict(table)
    points = own.pop("points", None)
    if points is not None and (
        isinstance(points, bool) or not isinstance(points, int | float) or not 0 <= points <= MAX_POINTS
    ):
        raise ScenarioError(
            f"is {points!r}; write what the unit costs, a number from 0 to {MAX_POINTS:,}",
            source=source,
            field=f"{where}.points" if where else "points",
        )
    models = None
    if kind == "attacker" and fmt is not None and fmt.models:
        # The ruleset's own field, which its checks name when wrong; the comparison reads a valid count.
        count = own.get("models")
        models = count if isinstance(count, int) and not isinstance(count, bool) and count >= 1 else None
    elif kind == "attacker" and not isinstance(own.get("models"), list):
        # A list is the ruleset's own [[attacker.models]] tables (the attacker's models, for Hazardous).
        models = own.pop("models", None)
        if models is not None and (isinstance(models, bool) or not isinstance(models, int) or models < 1):
            raise ScenarioError(
                f"is {models!r}; write how many models the unit has, a whole number from 1",
                source=source,
                field=f"{where}.models" if where else "models",
            )
    return own, None if points is None else float(points), models


def _merge(base: Any, over: Any) -> Any:
    """``over`` on top of ``base``, key by key when both are tables."""
    if isinstance(base, Mapping) and isinstance(over, Mapping):
        return {**base, **over}
    return over


def pairing(attacker: Profile, target: Profile, *, registry: Registry | None = None) -> Any:
    """The scenario of ``attacker`` attacking ``target``, loaded by their ruleset.

    Raises:
        ScenarioError: naming the file and field of the profile at fault.
    """
    return Pairings(registry)(attacker, target)


class Pairings:
    """:func:`pairing` for many cells, each profile read once.

    Scenarios are frozen and their loaders read nothing but the data, so an
    equal pairing loaded before is the same scenario: pairings are kept, and
    known by the text of their data (a sweep repeated in one process loads
    each once). That text is worked out a profile at a time, not a cell at a
    time, so a grid of A attackers and T targets writes A + T texts, not A x T.
    A Pairings is for one grid: it remembers the profiles it has read as they
    were then.
    """

    def __init__(self, registry: Registry | None = None) -> None:
        self.registry = registry or default_registry()
        self._attackers: dict[int, tuple[Profile, dict[str, Any], str]] = {}
        self._targets: dict[int, tuple[Profile, str]] = {}

    def __call__(self, attacker: Profile, target: Profile) -> Any:
        """The scenario of ``attacker`` attacking ``target``, as :func:`pairing` gives it.

        Raises:
            ScenarioError: naming the file and field of the profile at fault.
        """
        if attacker.ruleset != target.ruleset:
            raise ScenarioError(
                f"attacker {attacker.name!r} is {attacker.ruleset} but target {target.name!r} is {target.ruleset};"
                " compare profiles of one ruleset",
                source=attacker.source,
            )
        fmt = profile_format(attacker.ruleset, self.registry)
        side, attacker_text = self._attacker(attacker, fmt)
        key = (attacker_text, self._target(target), attacker.source)
        with _PAIRINGS_LOCK:
            cached = _PAIRINGS.get(key)
            if cached is not None and cached[0] is self.registry:
                _PAIRINGS.move_to_end(key)
                return cached[1]
        data = {**attacker.scenario, "ruleset": attacker.ruleset, **side, "target": target.table}
        try:
            scenario = scenario_from_data(data, source=attacker.source, registry=self.registry)
        except ScenarioError as exc:
            raise relocated(exc, attacker, target, fmt) from None
        with _PAIRINGS_LOCK:
            _PAIRINGS[key] = (self.registry, scenario)
            while len(_PAIRINGS) > PAIRINGS_CACHE:
                _PAIRINGS.popitem(last=False)
        return scenario

    def _attacker(self, attacker: Profile, fmt: ProfileFormat) -> tuple[dict[str, Any], str]:
        """The scenario keys ``attacker`` gives a pairing, and their text."""
        known = self._attackers.get(id(attacker))
        if known is None or known[0] is not attacker:
            refuse_cells(fmt, attacker.scenario, attacker.source)
            side = attacker_data(fmt, attacker.table)
            known = (attacker, side, repr((attacker.scenario, attacker.ruleset, side)))
            self._attackers[id(attacker)] = known
        return known[1], known[2]

    def _target(self, target: Profile) -> str:
        """The text of ``target``'s table."""
        known = self._targets.get(id(target))
        if known is None or known[0] is not target:
            known = (target, repr(target.table))
            self._targets[id(target)] = known
        return known[1]


_PAIRINGS: OrderedDict[tuple[str, str, str | None], tuple[Registry, Any]] = OrderedDict()
_PAIRINGS_LOCK = threading.Lock()
PAIRINGS_CACHE = 1024
"""How many loaded pairings are kept for reuse, most recently used first."""


def relocated(
    exc: ScenarioError, attacker: Profile, target: Profile, fmt: ProfileFormat | None = None
) -> ScenarioError:
    """The error pointed at the profile's own file and field, not at the pairing's."""
    field_ = exc.field or ""
    own = attacker_field(fmt or profile_format(attacker.ruleset), field_, attacker.field)
    if own is not None:
        return type(exc)(exc.message, source=attacker.source, field=own)
    if field_ == "target" or field_.startswith(("target.", "target[")):
        return type(exc)(exc.message, source=target.source, field=target.field + field_[len("target") :])
    where = f"{attacker.name} against {target.name}: "
    return type(exc)(where + exc.message, source=exc.source, field=exc.field)
