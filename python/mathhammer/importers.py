"""Army lists in, profile libraries out: what every list importer shares.

A list importer reads one list builder's export and returns an
:class:`ImportedList`: named attacker and target tables in a ruleset's scenario
format, each unit's points, and every item it could not map, with the reason.
Importers are provided by ruleset plugins through the
``mathhammer_register_importers`` hook, since only a ruleset knows what a
list's characteristics mean; this module knows no format and no game.

The helpers here are the safe way for an importer to open a user's file:

- :func:`read_list` refuses anything but a regular file of at most
  :data:`MAX_LIST_BYTES`;
- :func:`parse_xml` parses with ``defusedxml``, which refuses entity
  declarations (the "billion laughs" expansion) and external entities;
- :func:`unzip_one` opens a zipped export and refuses, before inflating it,
  one whose members would unpack past :data:`MAX_UNPACKED_BYTES`, and stops
  inflating once it passes, whatever the archive's directory claims (a zip bomb).

:meth:`ImportedList.to_toml` writes a profile library that ``compare`` reads.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import re
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from xml.etree.ElementTree import Element

from mathhammer.exceptions import ScenarioError
from mathhammer.files import decode, read_bytes

if TYPE_CHECKING:
    from mathhammer.registry import Registry

MAX_LIST_BYTES = 16 * 1024 * 1024
"""The largest army-list export read (16 MiB); a 2,000-point list with every rule's text is under 2 MiB."""

MAX_UNPACKED_BYTES = 16 * 1024 * 1024
"""The most a zipped export (``.rosz``) may unpack to (16 MiB); more is refused as a zip bomb."""

MAX_ZIP_MEMBERS = 16
"""The most files a zipped export may hold; a ``.rosz`` holds one."""


@dataclass(frozen=True)
class Unmapped:
    """Something in a list that did not become part of a profile, and why.

    Attributes:
        unit: The unit it belongs to (or the list's part, for an item outside units).
        item: What it is: a weapon, an ability, a characteristic, a selection.
        reason: Why it was not mapped.
        leads: Whether it is what lets ``unit`` lead another unit (a Leader ability), which naming the pair in
            ``attach`` maps: :func:`import_list` then drops it.
    """

    unit: str
    item: str
    reason: str
    leads: bool = False

    def __str__(self) -> str:
        return f"{self.unit}: {self.item}: {self.reason}"


@dataclass(frozen=True)
class ImportedUnit:
    """One unit of a list, as a ruleset's attacker and target tables.

    Attributes:
        name: The name its target shows (unique in its list).
        attackers: ``attacker`` tables of a scenario by name: one per way the
            unit attacks (its ranged and its melee weapons are used in different
            phases), none for a unit with no weapon.
        target: The ``target`` table of a scenario; ``None`` for a unit that is
            part of an attached unit (whose target holds its models).
        points: What the unit costs, or ``None`` when the list gives no points.
        models: How many models it has.
        parts: For an attached unit, the units it is made of (leader first); else empty.
        notes: What the importer decided that a user should know, such as how an attached unit's points are
            shared among its models; :func:`import_list` adds each to :attr:`ImportedList.notes`.
        can_lead: Whether the list says the unit can lead another into an attached unit (a Leader); an
            importer's :meth:`Importer.attach` refuses to attach a unit that cannot.
    """

    name: str
    attackers: Mapping[str, Mapping[str, Any]]
    target: Mapping[str, Any] | None
    points: float | None
    models: int
    parts: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    can_lead: bool = False


@dataclass
class ImportedList:
    """An army list, read: its units and all it could not map.

    Attributes:
        source: The file it was read from.
        format: The importer's title (``BattleScribe roster (.ros)``).
        ruleset: The ruleset its tables are written for.
        units: Every unit, in list order.
        unmapped: Every item left out of a profile, with its reason.
    """

    source: str
    format: str
    ruleset: str
    units: list[ImportedUnit] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the import decided that is worth knowing (how an attached unit's points are shared)."""

    def to_toml(self) -> str:
        """The list as a profile library: every unit as a target, and its ways of attacking as attackers.

        Each profile carries the unit's ``points``; an attacker also carries the
        unit's ``models`` (a target's models give their own counts).
        """
        lines = [
            f"# Imported by mathhammer from {_comment(Path(self.source).name)} ({_comment(self.format)}).",
        ]
        if self.unmapped:
            lines.append("# Not mapped:")
            lines += [f"#   {_comment(str(u))}" for u in self.unmapped]
        if self.notes:
            lines.append("# Notes:")
            lines += [f"#   {_comment(note)}" for note in self.notes]
        lines += [f"ruleset = {_string(self.ruleset)}", ""]
        for unit in self.units:
            for name, attacker in unit.attackers.items():
                _table(lines, ["attackers", name], {**_points(unit), "models": unit.models, **attacker})
        for unit in self.units:
            if unit.target is not None:
                _table(lines, ["targets", unit.name], {**_points(unit), **unit.target})
        return "\n".join(lines).rstrip("\n") + "\n"

    def write(self, path: str | Path) -> None:
        """Write :meth:`to_toml` to ``path``."""
        Path(path).write_text(self.to_toml(), encoding="utf-8")


def _points(unit: ImportedUnit) -> dict[str, Any]:
    if unit.points is None:
        return {}
    return {"points": int(unit.points) if float(unit.points).is_integer() else unit.points}


@runtime_checkable
class Importer(Protocol):
    """What a list importer provides.

    Attributes:
        name: A short identifier, unique among importers (``battlescribe``).
        title: What the format is called, for messages (``BattleScribe roster (.ros)``).
        ruleset: The ruleset whose scenario tables it writes.
    """

    name: str
    title: str
    ruleset: str

    def recognises(self, path: str, head: bytes) -> bool:
        """Whether the file at ``path``, starting with the bytes ``head``, is in this importer's format."""
        ...

    def attach(self, leader: ImportedUnit, bodyguard: ImportedUnit) -> ImportedUnit:
        """The attached unit ``leader`` leads ``bodyguard`` into, as a target (named ``Leader + Bodyguard``).

        Raises:
            ScenarioError: for a pair that cannot be one unit.
        """
        ...

    def read(self, path: str, check: TableCheck) -> ImportedList:
        """Read the list at ``path``; ``check(attacker, target)`` raises ScenarioError for tables the ruleset refuses.

        An importer checks what it builds (each weapon, each ability) with ``check``
        and lists what fails in :attr:`ImportedList.unmapped`, with the message.

        Raises:
            ScenarioError: naming the file and the element, for an export that is malformed or truncated.
        """
        ...


TableCheck = Callable[[Mapping[str, Any], Mapping[str, Any]], None]
"""Loads and compiles an attacker table against a target table with the importer's ruleset; raises ScenarioError."""

ImporterRegistrar = Callable[[Importer], None]
"""The ``register`` callable passed to ``mathhammer_register_importers``."""

_HEAD_BYTES = 4096


def import_list(
    path: str | Path,
    *,
    format: str | None = None,
    registry: Registry | None = None,
    attach: Sequence[tuple[str, str]] = (),
) -> ImportedList:
    """Read the army list at ``path`` with the installed importer that recognises it (or the one named ``format``).

    Each ``(leader, bodyguard)`` of ``attach`` names two units of the list that
    fight as one attached unit: they become one target, ``Leader + Bodyguard``,
    with both units' models and points; each keeps its attackers. The leader's
    unmapped Leader ability (:attr:`Unmapped.leads`) is then mapped, and dropped.

    Raises:
        ScenarioError: naming the file, for one no importer recognises (listing
            the formats known), an unknown ``format``, a malformed export,
            an ``attach`` naming a unit the list lacks (listing those it has),
            or a pair the importer refuses (a leader that is no Leader).
    """
    importer, imported = _read(path, format, registry or _default())
    imported.notes.extend(f"{u.name}: {note}" for u in imported.units for note in u.notes)
    for leader, bodyguard in attach:
        by_name = {u.name: u for u in imported.units if u.target is not None}
        missing = [n for n in (leader, bodyguard) if n not in by_name]
        if missing or leader == bodyguard:
            known = ", ".join(by_name) or "none"
            raise ScenarioError(
                f"is {leader!r} leading {bodyguard!r}; name two different units of the list that are not yet"
                f" attached: {known}",
                source=str(path),
                field="attach",
            )
        try:
            combined = importer.attach(by_name[leader], by_name[bodyguard])
        except ScenarioError as exc:
            raise ScenarioError(exc.message, source=exc.source or str(path), field=exc.field or "attach") from None
        # What let the leader lead is now mapped: the attached unit is what it describes.
        imported.unmapped = [u for u in imported.unmapped if not (u.leads and u.unit == leader)]
        imported.units = [
            dataclasses.replace(u, target=None) if u.name in (leader, bodyguard) else u for u in imported.units
        ]
        imported.units.append(dataclasses.replace(combined, parts=(leader, bodyguard)))
        imported.notes.extend(f"{combined.name}: {note}" for note in combined.notes)
    return imported


def _default() -> Registry:
    from mathhammer.registry import default_registry

    return default_registry()


def _read(path: str | Path, format: str | None, registry: Registry) -> tuple[Importer, ImportedList]:
    source = str(path)
    importers = registry.importers
    if format is not None:
        if format not in importers:
            known = ", ".join(importers) or "none (install a ruleset plugin that provides one)"
            raise ScenarioError(f"is {format!r}; the list formats known are: {known}", field="format")
        return importers[format], importers[format].read(source, checker(importers[format].ruleset, registry))
    head = read_bytes(path, MAX_LIST_BYTES, "an army list")[:_HEAD_BYTES]
    for importer in importers.values():
        if importer.recognises(source, head):
            return importer, importer.read(source, checker(importer.ruleset, registry))
    known = "; ".join(f"{i.title} ({name})" for name, i in importers.items()) or "none"
    raise ScenarioError(f"is in no army-list format mathhammer knows; the formats known are: {known}", source=source)


def checker(ruleset: str, registry: Registry) -> TableCheck:
    """A :data:`TableCheck` for ``ruleset``: the tables loaded as a scenario and compiled, as ``compare`` would."""
    from mathhammer.scenario import scenario_from_data
    from mathhammer.simulate import prepare

    def check(attacker: Mapping[str, Any], target: Mapping[str, Any]) -> None:
        data = {"ruleset": ruleset, "attacker": attacker, "target": target}
        prepare(scenario_from_data(data, registry=registry), registry=registry)

    return check


def read_list(path: str | Path) -> bytes:
    """The bytes of the export at ``path``: a regular file of at most :data:`MAX_LIST_BYTES`.

    Raises:
        ScenarioError: naming the file, for one missing, unreadable, not a regular file, or too large.
    """
    return read_bytes(path, MAX_LIST_BYTES, "an army list")


def parse_json(data: bytes, source: str) -> Any:
    """The JSON document in ``data``.

    Raises:
        ScenarioError: naming the file, with the line and column where it stops being JSON (a truncated file).
    """
    text = decode(data, source)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(
            f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); is the export truncated?",
            source=source,
        ) from None
    except RecursionError:
        raise ScenarioError("nests its JSON too deeply to be an army list", source=source) from None


def parse_xml(data: bytes, source: str) -> Element:
    """The root element of the XML document in ``data``, parsed with entity declarations refused.

    Raises:
        ScenarioError: naming the file, for XML that declares entities (entity
            expansion), refers to external ones, or is malformed or truncated
            (with the line and column).
    """
    import defusedxml
    from defusedxml import ElementTree as SafeTree

    try:
        root: Element = SafeTree.fromstring(data, forbid_dtd=True)
    except defusedxml.DTDForbidden:
        raise ScenarioError(
            "declares a document type (<!DOCTYPE>), which an army list never needs; refused, since its"
            " entities could expand without bound",
            source=source,
        ) from None
    except defusedxml.EntitiesForbidden as exc:
        raise ScenarioError(
            f"declares the XML entity {exc.name!r}; refused, since entities can expand without bound",
            source=source,
        ) from None
    except defusedxml.DefusedXmlException as exc:
        raise ScenarioError(f"uses an XML feature refused for safety: {exc}", source=source) from None
    except SafeTree.ParseError as exc:
        line, column = exc.position
        raise ScenarioError(
            f"is not well-formed XML (line {line}, column {column + 1}); is the export truncated?", source=source
        ) from None
    return root


def unzip_one(data: bytes, source: str, suffixes: Sequence[str]) -> tuple[str, bytes]:
    """The name and bytes of the one member of the zip archive ``data`` whose name ends with one of ``suffixes``.

    Raises:
        ScenarioError: naming the file (and the member), for an archive that is
            not a zip or is damaged, holds more than :data:`MAX_ZIP_MEMBERS`
            files, holds no such member or more than one, or would unpack past :data:`MAX_UNPACKED_BYTES`.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ScenarioError(f"is not a readable zip archive ({exc}); is the export truncated?", source=source) from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_ZIP_MEMBERS:
            raise ScenarioError(
                f"holds {len(members):,} files; a zipped army list holds one (at most {MAX_ZIP_MEMBERS} are read)",
                source=source,
            )
        claimed = sum(m.file_size for m in members)
        if claimed > MAX_UNPACKED_BYTES:
            raise _bomb(source, f"its directory says it unpacks to {claimed:,} bytes")
        wanted = [m for m in members if m.filename.lower().endswith(tuple(suffixes))]
        if not wanted:
            names = ", ".join(m.filename for m in members) or "nothing"
            raise ScenarioError(f"holds no {' or '.join(suffixes)} file (it holds {names})", source=source)
        if len(wanted) > 1:
            names = ", ".join(m.filename for m in wanted)
            raise ScenarioError(
                f"holds {len(wanted)} {' or '.join(suffixes)} files ({names}); a zipped army list holds one, and"
                " which is meant cannot be guessed: unzip it and import each file on its own",
                source=source,
            )
        member = wanted[0]
        try:
            with archive.open(member) as stream:
                # Read one byte past the limit: a directory that lies about sizes cannot make us inflate more.
                content = stream.read(MAX_UNPACKED_BYTES + 1)
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
            raise ScenarioError(
                f"cannot be unpacked ({exc}); is the export truncated?", source=source, field=member.filename
            ) from None
        if len(content) > MAX_UNPACKED_BYTES:
            raise _bomb(source, f"{member.filename} unpacks past it")
        return member.filename, content


def _bomb(source: str, what: str) -> ScenarioError:
    return ScenarioError(
        f"is refused: {what}, over the {MAX_UNPACKED_BYTES:,} bytes a zipped army list may unpack to",
        source=source,
    )


# -------------------------------------------------------------------------
# A small TOML writer: strings, numbers, booleans, arrays of those, tables and arrays of tables
# -------------------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _comment(text: str) -> str:
    return " ".join(text.split())


def _string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, except that TOML has no ``\\/`` (never produced)."""
    return json.dumps(text, ensure_ascii=False)


def _key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else _string(name)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} to TOML")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Sequence):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write a {type(value).__name__} to TOML")


def _is_tables(value: Any) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and bool(value)
        and all(isinstance(v, Mapping) for v in value)
    )


def _table(lines: list[str], path: list[str], table: Mapping[str, Any]) -> None:
    """``table`` at ``path``: its plain keys, then sub-tables and arrays of tables."""
    header = ".".join(_key(p) for p in path)
    lines.append(f"[{header}]")
    nested: list[tuple[str, Any]] = []
    for key, value in table.items():
        if (isinstance(value, Mapping) and value) or _is_tables(value):
            nested.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    lines.append("")
    for key, value in nested:
        if isinstance(value, Mapping):
            _table(lines, [*path, key], value)
            continue
        for item in value:
            lines.append(f"[[{header}.{_key(key)}]]")
            for k, v in item.items():
                lines.append(f"{_key(k)} = {_value(v)}")
            lines.append("")
