"""BattleScribe rosters: ``.ros`` (XML) and ``.rosz`` (the same XML, zipped).

The XML is ``<roster>`` > ``<forces>`` > ``<force>`` > ``<selections>`` >
``<selection name= number= type=>``, each selection holding ``<profiles>`` >
``<profile name= typeName=>`` > ``<characteristics>`` > ``<characteristic
name=>text</characteristic>``, ``<costs>`` > ``<cost name="pts" value=>``,
``<categories>`` > ``<category name=>``, ``<rules>`` > ``<rule name=>`` and
nested ``<selections>``. Namespaces are ignored. The XML is parsed with
entity declarations refused, and a ``.rosz`` is unpacked within
:data:`mathhammer.importers.MAX_UNPACKED_BYTES`.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

from mathhammer.plugin import ImportedList, ImportedUnit, ScenarioError, TableCheck, parse_xml, read_list, unzip_one
from mathhammer_wh40k.importers.roster import Node, Profile, attach, cost, deeper, number, units_of


def _tag(element: Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


def _children(element: Element, group: str, item: str) -> list[Element]:
    """The ``<item>`` elements of ``element``'s ``<group>`` child."""
    return [c for g in element if _tag(g) == group for c in g if _tag(c) == item]


def _required(element: Element, attribute: str, source: str, where: str) -> str:
    value = element.get(attribute)
    if value is None:
        raise ScenarioError(f"<{_tag(element)}> has no {attribute}= attribute", source=source, field=where)
    return value


def _node(element: Element, source: str, where: str, depth: int = 0) -> Node:
    name = _required(element, "name", source, where)
    where = f'{where} "{name}"'
    node = Node(
        name=name,
        type=(element.get("type") or "").lower(),
        number=number(element.get("number", "1"), source, where),
        where=where,
    )
    for i, c in enumerate(_children(element, "costs", "cost")):
        if (c.get("name") or "").strip().lower() == "pts":
            node.points += cost(c.get("value"), source, f"{where}/costs/cost[{i}]")
    for i, p in enumerate(_children(element, "profiles", "profile")):
        at = f"{where}/profiles/profile[{i}]"
        chars = {}
        for j, ch in enumerate(_children(p, "characteristics", "characteristic")):
            chars[_required(ch, "name", source, f"{at}/characteristics/characteristic[{j}]")] = ch.text or ""
        node.profiles.append(Profile(_required(p, "name", source, at), p.get("typeName") or "", chars, at))
    node.categories = [c.get("name") or "" for c in _children(element, "categories", "category")]
    node.rules = [r.get("name") or "" for r in _children(element, "rules", "rule")]
    below = deeper(depth, source, where)
    node.selections = [
        _node(s, source, f"{where}/selections/selection[{i}]", below)
        for i, s in enumerate(_children(element, "selections", "selection"))
    ]
    return node


def _forces(element: Element, source: str, where: str, depth: int = 0) -> list[Node]:
    out = []
    for i, force in enumerate(_children(element, "forces", "force")):
        at = f"{where}/forces/force[{i}]"
        below = deeper(depth, source, at)
        node = Node(name=force.get("catalogueName") or force.get("name") or "force", type="force", number=1, where=at)
        node.selections = [
            _node(s, source, f"{at}/selections/selection[{j}]", below)
            for j, s in enumerate(_children(force, "selections", "selection"))
        ]
        out.append(node)
        out += _forces(force, source, at, below)
    return out


def read_roster_xml(data: bytes, source: str, title: str, check: TableCheck) -> ImportedList:
    """The units of the BattleScribe roster XML in ``data``."""
    root = parse_xml(data, source)
    if _tag(root) != "roster":
        raise ScenarioError(f"has a <{_tag(root)}> where a BattleScribe roster has <roster>", source=source, field="/")
    forces = _forces(root, source, "roster")
    if not forces:
        raise ScenarioError("holds no <forces>/<force>: an empty or truncated roster", source=source, field="roster")
    return units_of(forces, source, title, check)


class Ros:
    """BattleScribe roster, XML (``.ros``)."""

    name = "battlescribe"
    title = "BattleScribe roster (.ros)"
    ruleset = "wh40k"

    def recognises(self, path: str, head: bytes) -> bool:
        text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        return path.lower().endswith(".ros") or (text.startswith(b"<") and b"<roster" in text)

    def attach(self, leader: ImportedUnit, bodyguard: ImportedUnit) -> ImportedUnit:
        return attach(leader, bodyguard)

    def read(self, path: str, check: TableCheck) -> ImportedList:
        return read_roster_xml(read_list(path), path, self.title, check)


class Rosz:
    """BattleScribe roster, zipped (``.rosz``): a zip archive holding one ``.ros``."""

    name = "battlescribe-zip"
    title = "BattleScribe zipped roster (.rosz)"
    ruleset = "wh40k"

    def recognises(self, path: str, head: bytes) -> bool:
        return head.startswith(b"PK\x03\x04") or path.lower().endswith(".rosz")

    def attach(self, leader: ImportedUnit, bodyguard: ImportedUnit) -> ImportedUnit:
        return attach(leader, bodyguard)

    def read(self, path: str, check: TableCheck) -> ImportedList:
        member, data = unzip_one(read_list(path), path, (".ros",))
        return read_roster_xml(data, f"{path}!{member}", self.title, check)
