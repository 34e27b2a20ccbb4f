"""The roster tree as JSON, which NewRecruit and ListForge both export.

``{"roster": {"forces": [...]}}``; a force has ``selections`` (and maybe
nested ``forces``); a selection has ``name``, ``number``, ``type``, ``costs``
(``[{"name": "pts", "value": 80}]``), ``profiles`` (``[{"name", "typeName",
"characteristics": [{"name": "T", "$text": "4"}]}]``), ``categories``
(``[{"name"}]``), ``rules`` (``[{"name"}]``) and nested ``selections``.
A characteristic's value is its ``$text`` (or ``value``). Each element is checked
as it is read, and an error names its path (``roster.forces[0].selections[2]``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mathhammer.plugin import ImportedList, ImportedUnit, ScenarioError, TableCheck, parse_json, read_list
from mathhammer_wh40k.importers.roster import Node, Profile, attach, cost, deeper, number, units_of


def _table(value: Any, source: str, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(f"is {_kind(value)}; expected an object", source=source, field=where)
    return value


def _list(parent: Mapping[str, Any], key: str, source: str, where: str) -> list[Any]:
    value = parent.get(key, [])
    if not isinstance(value, list):
        raise ScenarioError(f"is {_kind(value)}; expected a list", source=source, field=f"{where}.{key}")
    return value


def _text(parent: Mapping[str, Any], key: str, source: str, where: str, default: str | None = None) -> str:
    value = parent.get(key, default)
    if value is None:
        raise ScenarioError(
            f"is missing; every {where.rsplit('.', 1)[-1].split('[')[0]} has a {key}",
            source=source,
            field=f"{where}.{key}",
        )
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ScenarioError(f"is {_kind(value)}; expected text", source=source, field=f"{where}.{key}")
    return str(value)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), f"the number {value!r}" if isinstance(value, int | float) else type(value).__name__
    )


def _node(data: Any, source: str, where: str, depth: int = 0) -> Node:
    sel = _table(data, source, where)
    name = _text(sel, "name", source, where)
    node = Node(
        name=name,
        type=_text(sel, "type", source, where, "").lower(),
        number=number(sel.get("number", 1), source, f"{where}.number"),
        where=where,
    )
    for i, c in enumerate(_list(sel, "costs", source, where)):
        at = f"{where}.costs[{i}]"
        c = _table(c, source, at)
        if _text(c, "name", source, at, "").strip().lower() == "pts":
            node.points += cost(c.get("value"), source, f"{at}.value")
    for i, p in enumerate(_list(sel, "profiles", source, where)):
        at = f"{where}.profiles[{i}]"
        p = _table(p, source, at)
        chars = {}
        for j, ch in enumerate(_list(p, "characteristics", source, at)):
            cat = f"{at}.characteristics[{j}]"
            ch = _table(ch, source, cat)
            key = "$text" if "$text" in ch else "value"
            chars[_text(ch, "name", source, cat)] = _text(ch, key, source, cat, "")
        node.profiles.append(Profile(_text(p, "name", source, at), _text(p, "typeName", source, at, ""), chars, at))
    node.categories = [
        _text(_table(c, source, f"{where}.categories[{i}]"), "name", source, f"{where}.categories[{i}]")
        for i, c in enumerate(_list(sel, "categories", source, where))
    ]
    node.rules = [
        _text(_table(r, source, f"{where}.rules[{i}]"), "name", source, f"{where}.rules[{i}]")
        for i, r in enumerate(_list(sel, "rules", source, where))
    ]
    below = deeper(depth, source, where)
    node.selections = [
        _node(s, source, f"{where}.selections[{i}]", below)
        for i, s in enumerate(_list(sel, "selections", source, where))
    ]
    return node


def _forces(parent: Mapping[str, Any], source: str, where: str, depth: int = 0) -> list[Node]:
    out = []
    for i, f in enumerate(_list(parent, "forces", source, where)):
        at = f"{where}.forces[{i}]"
        below = deeper(depth, source, at)
        force = _table(f, source, at)
        name = _text(force, "catalogueName", source, at, "") or _text(force, "name", source, at, "force")
        node = Node(name=name, type="force", number=1, where=at)
        node.selections = [
            _node(s, source, f"{at}.selections[{j}]", below)
            for j, s in enumerate(_list(force, "selections", source, at))
        ]
        out.append(node)
        out += _forces(force, source, at, below)
    return out


def roster_of(document: Any, source: str) -> Mapping[str, Any]:
    """The ``roster`` object of a JSON export.

    Raises:
        ScenarioError: naming the file, when the document has none.
    """
    if not isinstance(document, Mapping) or not isinstance(document.get("roster"), Mapping):
        raise ScenarioError(
            'has no "roster" object at its top level, which a NewRecruit or ListForge export has',
            source=source,
            field="roster",
        )
    roster: Mapping[str, Any] = document["roster"]
    return roster


def read_roster_json(path: str, title: str, check: TableCheck) -> ImportedList:
    """The units of the JSON roster export at ``path``."""
    roster = roster_of(parse_json(read_list(path), path), path)
    forces = _forces(roster, path, "roster")
    if not forces:
        raise ScenarioError("holds no forces: an empty or truncated roster", source=path, field="roster.forces")
    return units_of(forces, path, title, check)


class JsonExport:
    """A list builder's JSON export of the roster tree, recognised by what its ``generatedBy`` says.

    ``made_by(generated_by)`` says whether an export whose ``generatedBy`` is
    ``generated_by`` (lowercased; empty when it has none) is this builder's. The
    field is read at the document's top level (where ListForge writes it) or in
    its ``roster`` (where NewRecruit does).
    """

    ruleset = "wh40k"

    def __init__(self, name: str, title: str, made_by: Callable[[str], bool]) -> None:
        self.name = name
        self.title = title
        self.made_by = made_by

    def recognises(self, path: str, head: bytes) -> bool:
        said = generator(path, head)
        return said is not None and self.made_by(said)

    def attach(self, leader: ImportedUnit, bodyguard: ImportedUnit) -> ImportedUnit:
        return attach(leader, bodyguard)

    def read(self, path: str, check: TableCheck) -> ImportedList:
        return read_roster_json(path, self.title, check)


def generator(path: str, head: bytes) -> str | None:
    """What made the JSON export at ``path`` (its ``generatedBy``, lowercased, or ``""``), or ``None`` for no export.

    ``head`` (the file's first bytes) decides whether the file is a JSON roster at
    all; the whole document is then read for ``generatedBy``, which may follow a
    long roster. A document that does not parse is judged by ``head`` alone, so
    that its reader reports where it breaks.
    """
    text = head.decode("utf-8", "replace").lower()
    if not text.lstrip("\ufeff \t\r\n").startswith("{") or '"roster"' not in text:
        return None
    try:
        document = parse_json(read_list(path), path)
    except ScenarioError:
        at = text.find('"generatedby"')
        return text[at : at + 200] if at >= 0 else ""
    if not isinstance(document, Mapping):
        return ""
    roster = document.get("roster")
    said = document.get("generatedBy") or (roster.get("generatedBy") if isinstance(roster, Mapping) else None)
    return said.lower() if isinstance(said, str) else ""


def names_listforge(generated_by: str) -> bool:
    """Whether a (lowercased) ``generatedBy`` names ListForge: ``list forge``, ``listforge.club``."""
    return "listforge" in generated_by.replace(" ", "")
