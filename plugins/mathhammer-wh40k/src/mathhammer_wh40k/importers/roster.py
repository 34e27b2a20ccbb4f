"""The roster tree every supported list builder exports, and how its units become 40k profiles.

BattleScribe's ``.ros`` XML, and the JSON exports of NewRecruit and ListForge,
all write one tree: a roster holds forces, a force holds selections, and a
selection (a unit, a model, or a piece of wargear) holds profiles (with
characteristics), costs, categories, rules and further selections. Each format
module turns its file into :class:`Node` objects; :func:`units_of` turns those
into attacker and target tables for the ``wh40k`` ruleset.

A unit is a top-level selection of a force with a ``Unit`` profile:

- its points are the sum of the ``pts`` costs over the selection and everything in it;
- its models are its selections of type ``model`` (their ``number``), or the unit itself for a one-model unit;
- each ``Ranged Weapons`` or ``Melee Weapons`` profile (or a profile of another type that
  prints a weapon's characteristics, such as a C'tan power) becomes a weapon fired by the
  ``number`` of the selection that carries it (so mixed wargear becomes weapon counts),
  with its ``Keywords`` kept as printed;
- the target's Toughness, Wounds and Save come from the ``Unit`` profiles, its
  invulnerable save and Feel No Pain from abilities that state them.

Everything else (other abilities, rules, profiles of other types, a second mode of
one weapon, a weapon the ruleset refuses) is listed as unmapped with its reason. A
rule that only explains a weapon ability printed in a weapon's ``Keywords`` (the
glossary entry for *Sustained Hits*) is read through that weapon, not listed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from mathhammer.plugin import MAX_VALUE, ImportedList, ImportedUnit, ScenarioError, TableCheck, Unmapped
from mathhammer_wh40k.check import MAX_CHARACTERISTIC

UNIT = "unit"
RANGED = "ranged weapons"
MELEE = "melee weapons"

TARGET_KEYWORDS = ("Infantry", "Vehicle", "Monster", "Character", "Mounted", "Beast", "Swarm", "Walker", "Fly")
"""Categories copied to a unit's keywords: those a weapon ability or a rule can refer to."""

_PISTOL = re.compile(r"\bpistol\b", re.IGNORECASE)
_MODE = re.compile(r"^(?P<base>.+?)\s+[-\u2013]\s+(?P<mode>[^-\u2013]+)$")
_ARROW = "\u27a4"
"""The arrow BattleScribe's 40k data prints before each mode of a weapon (``➤ Plasma pistol - standard``)."""
_BY_HAND = "not a characteristic mathhammer reads; add its effect by hand"
_LEADER = "an export does not say which unit a Leader leads: name it with --attach LEADER UNIT (attach= in Python)"
_ROLL = re.compile(r"([2-6])\+")
_FNP = re.compile(r"feel no pain\s*\(?\s*([2-6])\+", re.IGNORECASE)


MAX_DEPTH = 32
"""The deepest a roster may nest selections in selections (or forces in forces); real lists nest five or six."""


def deeper(depth: int, source: str, where: str) -> int:
    """``depth + 1``, the nesting of an element's children.

    Raises:
        ScenarioError: naming the file and the element, past :data:`MAX_DEPTH`
            (a file built to exhaust the reader's stack, not an army list).
    """
    if depth >= MAX_DEPTH:
        raise ScenarioError(
            f"nests selections or forces more than {MAX_DEPTH} deep; an army list nests a few",
            source=source,
            field=where,
        )
    return depth + 1


@dataclass
class Profile:
    """A named set of characteristics of one type (``Unit``, ``Ranged Weapons``, ``Abilities``, ...)."""

    name: str
    type: str
    characteristics: dict[str, str]
    where: str


@dataclass
class Node:
    """One selection of a roster (or a force, for its top-level selections).

    Attributes:
        where: Its path in the file, for messages (``roster.forces[0].selections[2]``).
    """

    name: str
    type: str
    number: int
    where: str
    points: float = 0.0
    profiles: list[Profile] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    selections: list[Node] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        """This node and every selection under it, depth first."""
        yield self
        for child in self.selections:
            yield from child.walk()


def number(text: Any, source: str, where: str) -> int:
    """A selection's ``number``: a count written as an integer (``5`` or ``"5"`` or ``"5.0"``), 0 to 10,000.

    Raises:
        ScenarioError: naming the file and the element, for anything else.
    """
    return int(_numeric(text, source, where, "number", "a count", 10_000, whole=True))


def cost(text: Any, source: str, where: str) -> float:
    """A cost's ``value``: a number of points, 0 to 1,000,000.

    Raises:
        ScenarioError: naming the file and the element, for anything else.
    """
    return _numeric(text, source, where, "value", "points", 1_000_000, whole=False)


def _numeric(text: Any, source: str, where: str, key: str, what: str, most: int, *, whole: bool) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if math.isnan(value) or (whole and not value.is_integer()) or not 0 <= value <= most:
        raise ScenarioError(f"{key} is {text!r}; expected {what} from 0 to {most:,}", source=source, field=where)
    return value


def units_of(forces: list[Node], source: str, title: str, check: TableCheck) -> ImportedList:
    """The units of ``forces`` (each a Node whose selections are the force's), as profiles."""
    out = ImportedList(source=source, format=title, ruleset="wh40k")
    names: dict[str, int] = {}
    roster = [n for force in forces for n in force.walk()]
    for force in forces:
        for selection in force.selections:
            if not _profiles(selection, UNIT, deep=True):
                out.unmapped.append(Unmapped(force.name, selection.name, "not a unit: it has no Unit profile"))
                continue
            base = selection.name
            names[base] = names.get(base, 0) + 1
            name = base if names[base] == 1 else f"{base} ({names[base]})"
            unit = _unit(selection, name, source, check, out.unmapped, roster)
            out.units.append(unit)
    if not out.units:
        raise ScenarioError(
            "holds no unit: no selection of any force has a Unit profile (is this a 40k roster?)", source=source
        )
    return out


def _profiles(node: Node, kind: str, *, deep: bool) -> list[Profile]:
    nodes = node.walk() if deep else iter([node])
    return [p for n in nodes for p in n.profiles if p.type.strip().lower() == kind]


def _char(profile: Profile, *names: str) -> str | None:
    """The first of the characteristics ``names`` (case-insensitive), stripped."""
    lowered = {k.strip().lower(): v for k, v in profile.characteristics.items()}
    for n in names:
        if n.lower() in lowered:
            return lowered[n.lower()].strip()
    return None


def _unit(
    selection: Node, name: str, source: str, check: TableCheck, unmapped: list[Unmapped], roster: list[Node]
) -> ImportedUnit:
    points = sum(n.points for n in selection.walk())
    categories = {c.strip().lower() for n in selection.walk() for c in n.categories}
    keywords = [k for k in TARGET_KEYWORDS if k.lower() in categories]
    target = _target(selection, name, keywords, source, unmapped)
    models = sum(m["count"] for m in target["models"])
    weapons, variants = _weapons(selection, name, keywords, target, check, unmapped, roster)
    _unread(selection, name, unmapped)
    attacker_keywords = [k for k in keywords if k in ("Vehicle", "Monster")]
    head = {"keywords": attacker_keywords} if attacker_keywords else {}
    ways = _ways(weapons, attacker_keywords)
    attackers = {f"{name} ({way})": {**head, "weapons": chosen} for way, chosen in ways.items() if chosen}
    notes: list[str] = []
    if points and len(target["models"]) > 1:
        # The list prices the unit, not its models (10th-edition data puts the cost on any one selection).
        notes.append(
            f"the {points:g} points of the unit are spread evenly over its {models} models, whatever their profile;"
            " give a model entry of the target points = N to count its models for their own worth"
        )
    for _, label, switched in variants:
        # The way (ranged, pistols, melee) whose weapons the mode changes gets one more attacker.
        for way, chosen in _ways(switched, attacker_keywords).items():
            if chosen and chosen != ways[way]:
                attackers[f"{name} ({way}, {label})"] = {**head, "weapons": chosen}
                notes.append(
                    f"{label!r} is another mode of a weapon: {name} ({way}, {label}) fires it; {name} ({way}) fires"
                    " each weapon's first mode"
                )
    leads = any(_is_leader(r) for n in selection.walk() for r in n.rules) or any(
        _is_leader(p.name) for n in selection.walk() for p in n.profiles if _is_abilities(p)
    )
    return ImportedUnit(name, attackers, target, points or None, models, notes=tuple(notes), can_lead=leads)


def _ways(weapons: list[dict[str, Any]], attacker_keywords: list[str]) -> dict[str, list[dict[str, Any]]]:
    """``weapons`` by the way the unit attacks with them: its ranged weapons, its pistols, its melee weapons.

    A model shoots its Pistols or its other ranged weapons, not both; a MONSTER or VEHICLE fires its Pistols
    with its other weapons, and a unit whose ranged weapons are all Pistols has them as its ranged weapons.
    """
    ranged = [w for w in weapons if w["type"] == "ranged"]
    pistols = [w for w in ranged if _PISTOL.search(" ".join(w.get("keywords", [])))]
    if attacker_keywords or len(pistols) == len(ranged):
        pistols = []
    return {
        "ranged": [w for w in ranged if w not in pistols],
        "pistols": pistols,
        "melee": [w for w in weapons if w["type"] == "melee"],
    }


def _target(selection: Node, name: str, keywords: list[str], source: str, unmapped: list[Unmapped]) -> dict[str, Any]:
    unit_profiles = _profiles(selection, UNIT, deep=True)
    by_name = {p.name.strip().lower(): p for p in unit_profiles}
    model_nodes = [n for n in selection.walk() if n.type == "model" and n is not selection] or [selection]
    abilities = [p for n in selection.walk() for p in n.profiles if _is_abilities(p)]
    invulnerable, fnp = _defences(abilities, selection, name, unmapped)
    counts: dict[str, int] = {}
    chosen: dict[str, Profile] = {}
    for node in model_nodes:
        own = _profiles(node, UNIT, deep=False)
        profile = own[0] if own else by_name.get(node.name.strip().lower(), unit_profiles[0])
        counts[profile.name] = counts.get(profile.name, 0) + (node.number if node is not selection else 1)
        chosen[profile.name] = profile
    models = []
    toughness: dict[int, int] = {}
    character = "character" in {k.lower() for k in keywords}
    for profile_name, count in counts.items():
        profile = chosen[profile_name]
        t, w, sv = (_char(profile, *keys) for keys in (("T",), ("W",), ("SV", "Save")))
        tough = _whole(t, "T", MAX_CHARACTERISTIC, name, profile, source)
        wounds = _whole(w, "W", MAX_VALUE, name, profile, source)
        toughness[tough] = toughness.get(tough, 0) + count
        model: dict[str, Any] = {"name": profile.name, "count": count, "wounds": wounds}
        save = _ROLL.fullmatch(sv or "")
        if save:
            model["save"] = f"{save.group(1)}+"
        elif sv not in (None, "-", ""):
            unmapped.append(Unmapped(name, f"Save {sv!r} of {profile.name}", "not a roll from 2+ to 6+; no save"))
        if invulnerable:
            model["invulnerable"] = invulnerable
        if fnp:
            model["feel_no_pain"] = fnp
        if character:
            model["character"] = True
        models.append(model)
    most = max(toughness, key=lambda t: toughness[t])
    if len(toughness) > 1:
        unmapped.append(
            Unmapped(name, "Toughness", f"models differ ({sorted(toughness)}); the target uses the majority's, {most}")
        )
    target: dict[str, Any] = {"name": name, "toughness": most}
    if keywords:
        target["keywords"] = keywords
    target["models"] = models
    return target


def _whole(text: str | None, characteristic: str, most: int, unit: str, profile: Profile, source: str) -> int:
    """The unit characteristic ``characteristic`` (T or W) of ``profile``, a whole number from 1 to ``most``.

    Raises:
        ScenarioError: naming the unit, its Unit profile and the characteristic with its value. A target with
            no Toughness or Wounds cannot be attacked, and every weapon of the unit would be blamed for it.
    """
    try:
        value = int(text or "")
    except ValueError:
        value = 0
    if not 1 <= value <= most:
        raise ScenarioError(
            f"unit {unit!r}: Unit profile {profile.name!r} has {characteristic} {text!r}; {characteristic} must be"
            f" a whole number from 1 to {most}",
            source=source,
            field=f"{profile.where}/characteristics/{characteristic}",
        )
    return value


def _defences(
    abilities: list[Profile], selection: Node, name: str, unmapped: list[Unmapped]
) -> tuple[str | None, str | None]:
    """The invulnerable save and Feel No Pain the unit's abilities state; every other ability listed as unmapped."""
    invulnerable = fnp = None
    for ability in abilities:
        text = " ".join([ability.name, *ability.characteristics.values()])
        if "invulnerable" in ability.name.lower():
            found = _ROLL.search(" ".join(ability.characteristics.values()) or ability.name)
            if found:
                invulnerable = f"{found.group(1)}+"
                continue
        found_fnp = _FNP.search(text)
        if found_fnp is not None and "feel no pain" in ability.name.lower():
            fnp = f"{found_fnp.group(1)}+"
            continue
        unmapped.append(_unmapped(name, f"ability {ability.name!r}", ability.name))
    for rule in dict.fromkeys(r for n in selection.walk() for r in n.rules):
        match = _FNP.search(rule)
        if match:
            fnp = fnp or f"{match.group(1)}+"
    return invulnerable, fnp


def _is_leader(ability: str) -> bool:
    """Whether an ability or rule named ``ability`` is the Leader ability (the unit can lead another)."""
    return ability.strip().lower() == "leader"


def _unmapped(unit: str, item: str, ability: str) -> Unmapped:
    """The ability or rule ``ability`` of ``unit`` (shown as ``item``), not mapped, with why."""
    if _is_leader(ability):
        return Unmapped(unit, item, _LEADER, leads=True)
    return Unmapped(unit, item, _BY_HAND)


def _unread(selection: Node, name: str, unmapped: list[Unmapped]) -> None:
    """List the unit's rules that say nothing read elsewhere, and its profiles of types nothing reads.

    A rule read elsewhere states a Feel No Pain, or explains a weapon ability that a
    weapon of the unit prints in its ``Keywords`` (``Sustained Hits`` for
    ``Sustained Hits 2``, ``Anti-`` for ``Anti-FLY 4+``): that ability is read, or
    refused and listed, with its weapon.
    """
    printed = [
        part.strip().lower()
        for n in selection.walk()
        for p in n.profiles
        if weapon_kind(p) is not None
        for part in (_char(p, "Keywords", "Abilities") or "").split(",")
        if part.strip() not in ("", "-")
    ]
    for rule in dict.fromkeys(r for n in selection.walk() for r in n.rules):
        head = rule.strip().lower()
        if _FNP.search(rule) or (head and any(part.startswith(head) for part in printed)):
            continue
        unmapped.append(_unmapped(name, f"rule {rule!r}", rule))
    for n in selection.walk():
        for p in n.profiles:
            kind = p.type.strip().lower()
            if kind != UNIT and not _is_abilities(p) and weapon_kind(p) is None:
                unmapped.append(Unmapped(name, f"{p.type.strip() or 'untyped'} profile {p.name!r}", _BY_HAND))


Modes = dict[tuple[str, str], dict[str, dict[str, Any]]]
"""One selection's weapons: by (kind, weapon), each mode the ruleset accepts by its label, the first first."""


def _weapons(
    selection: Node,
    name: str,
    keywords: list[str],
    target: Mapping[str, Any],
    check: TableCheck,
    unmapped: list[Unmapped],
    roster: list[Node],
) -> tuple[list[dict[str, Any]], list[tuple[str, str, list[dict[str, Any]]]]]:
    """Every weapon of the unit the ruleset accepts, with the count of models bearing it, each in its first
    mode; and each other mode of a weapon as ``(kind, label, weapons)``: the unit's weapons with every weapon of
    that name firing that mode.

    Weapon profiles of one selection that share a name before " - " are modes of one weapon (a plasma
    pistol's standard and supercharge, a missile launcher's blast and focused): a model fires one at a time,
    so each mode is a way of firing the unit's weapons of its own. Profiles of other names are other weapons of
    the selection (a Sagitaur's missile launcher beside its L7 missile launcher). Several profiles of another
    type in one selection (a Tesseract Vault's C'tan Powers) are alternatives the same way: the model picks one
    each phase.

    A piece of wargear whose selection prints no profile of its own (a Theyn's ion blaster, when the
    warriors' selection of the same weapon prints it) fires the profiles :func:`_borrowed` finds for it.
    """
    nodes: list[Modes] = []
    seen = False
    for node in selection.walk():
        modes: Modes = {}
        printed = _borrowed(node, selection, name, roster, unmapped) if _bare_leaf(node, selection) else node.profiles
        for profile in printed:
            kind = weapon_kind(profile)
            if kind is None:
                continue
            seen = True
            standard = profile.type.strip().lower() in (RANGED, MELEE)
            base = _mode_base(profile.name) if standard else profile.type.strip()
            weapon = _weapon(profile, kind, node.number, name, unmapped)
            if weapon is not None:
                weapon = _checked(weapon, name, keywords, target, check, unmapped)
            if weapon is not None:
                modes.setdefault((kind, base), {})[_bare(profile.name)] = weapon
        nodes.append(modes)
    weapons = _merged(nodes, None)
    if not weapons:
        why = "every weapon profile of the unit is refused (each listed)" if seen else "the unit has no weapon profile"
        unmapped.append(Unmapped(name, "weapons", f"{why}; it is a target only"))
    others: dict[tuple[str, str, str], None] = {}
    for modes in nodes:
        for (kind, base), labels in modes.items():
            others.update(dict.fromkeys((kind, base, label) for label in list(labels)[1:]))
    variants = [(kind, label, _merged(nodes, (kind, base, label))) for kind, base, label in others]
    return weapons, variants


def _bare_leaf(node: Node, selection: Node) -> bool:
    """Whether ``node`` is a piece of wargear of ``selection`` that prints nothing: no profile, no selection."""
    return node is not selection and not node.profiles and not node.selections and node.number > 0


def _key(name: str) -> str:
    """A selection's or weapon's name as compared: no mode arrow, no trailing ``*``, case and spaces folded."""
    return " ".join(_bare(name).rstrip("*").split()).lower()


def _borrowed(node: Node, selection: Node, unit: str, roster: list[Node], unmapped: list[Unmapped]) -> list[Profile]:
    """The weapon profiles a selection that prints none fires: those of a selection of the same name in its
    unit, else elsewhere in the list, else weapon profiles of that name (or modes of it).

    BattleScribe data prints a weapon's profile once where several models of a unit take it, so a sergeant's
    ion blaster can be a bare selection beside the warriors' one that carries the profile. A selection for
    which nothing is found is listed as unmapped (it is a weapon the list does not describe, or something
    that is no weapon, such as *Warlord*), never dropped in silence.
    """
    wanted = _key(node.name)
    for scope in (list(selection.walk()), roster):
        for other in scope:
            found = [p for p in other.profiles if weapon_kind(p) is not None]
            if found and _key(other.name) == wanted:
                return found
        found = [p for other in scope for p in other.profiles if weapon_kind(p) is not None]
        named = [p for p in found if _key(_mode_base(p.name)) == wanted or _key(p.name) == wanted]
        if named:
            return list({id(p): p for p in named}.values())
    unmapped.append(
        Unmapped(
            unit,
            f"selection {node.name!r}",
            "prints no profile, and no weapon of that name is printed in the unit or the list; if it is a weapon,"
            " add it by hand",
        )
    )
    return []


def _merged(nodes: list[Modes], mode: tuple[str, str, str] | None) -> list[dict[str, Any]]:
    """The unit's weapons, each in its first mode, or in ``mode`` (kind, weapon, label) for that weapon where its
    selection has that mode; weapons alike (all but their count) are one, their counts added."""
    weapons: dict[tuple[str, ...], dict[str, Any]] = {}
    for modes in nodes:
        for key, labels in modes.items():
            chosen = labels.get(mode[2]) if mode is not None and mode[:2] == key else None
            weapon = chosen or next(iter(labels.values()))
            alike = tuple(str(v) for k, v in weapon.items() if k != "count")
            if alike in weapons:
                weapons[alike] = {**weapons[alike], "count": weapons[alike]["count"] + weapon["count"]}
            else:
                weapons[alike] = weapon
    return [w for w in weapons.values() if w["count"] > 0]


def weapon_kind(profile: Profile) -> str | None:
    """:data:`RANGED`, :data:`MELEE`, or ``None`` for a profile that is no weapon.

    A ``Ranged Weapons`` or ``Melee Weapons`` profile is one; so is a profile of
    another type that prints a weapon's characteristics (``A``, ``BS`` or ``WS``,
    ``S``, ``AP``, ``D``), as a Tesseract Vault's ``C'tan Powers`` do: melee if
    it has ``WS`` or a ``Range`` of ``Melee``, else ranged.
    """
    kind = profile.type.strip().lower()
    if kind in (RANGED, MELEE):
        return kind
    if kind == UNIT or _is_abilities(profile):
        return None
    names = {k.strip().lower() for k in profile.characteristics}
    if not ({"a", "s", "ap", "d"} <= names and names & {"bs", "ws"}):
        return None
    melee = "ws" in names or (_char(profile, "Range") or "").lower() == "melee"
    return MELEE if melee else RANGED


def _mode_base(profile_name: str) -> str:
    """The weapon a profile is a mode of: ``Plasma pistol`` for ``➤ Plasma pistol - supercharge``."""
    bare = _bare(profile_name)
    match = _MODE.match(bare)
    return match.group("base").strip() if match else bare


def _bare(profile_name: str) -> str:
    """A profile's name without the mode arrow BattleScribe's data prints before it."""
    return profile_name.strip().lstrip(_ARROW).strip()


def _is_abilities(profile: Profile) -> bool:
    """Whether ``profile`` is of an abilities type (``Abilities``, a faction's ``Triarch Abilities``)."""
    return "abilit" in profile.type.strip().lower()


def _weapon(profile: Profile, kind: str, count: int, unit: str, unmapped: list[Unmapped]) -> dict[str, Any] | None:
    label = f"weapon {profile.name!r}"
    attacks = _char(profile, "A", "Attacks")
    skill = _char(profile, "BS", "WS", "Skill")
    strength = _char(profile, "S", "Strength")
    ap = _char(profile, "AP")
    damage = _char(profile, "D", "Damage")
    missing = [n for n, v in (("A", attacks), ("BS/WS", skill), ("S", strength), ("AP", ap), ("D", damage)) if not v]
    if missing:
        unmapped.append(Unmapped(unit, label, f"has no {', '.join(missing)} characteristic"))
        return None
    assert attacks and skill and strength and ap and damage
    weapon: dict[str, Any] = {"name": _bare(profile.name), "type": "melee" if kind == MELEE else "ranged"}
    weapon["count"] = count
    weapon["attacks"] = attacks
    if skill.upper() not in ("N/A", "-"):
        weapon["skill"] = skill
    try:
        weapon["strength"] = int(strength)
        weapon["ap"] = int(ap.replace("\u2212", "-")) if ap not in ("-", "0") else 0
    except ValueError:
        unmapped.append(Unmapped(unit, label, f"S {strength!r} or AP {ap!r} is not a whole number"))
        return None
    weapon["damage"] = damage
    printed = _char(profile, "Keywords", "Abilities") or ""
    if printed.strip() not in ("", "-"):
        weapon["keywords"] = [printed.strip()]
    return weapon


def _checked(
    weapon: dict[str, Any],
    unit: str,
    keywords: list[str],
    target: Mapping[str, Any],
    check: TableCheck,
    unmapped: list[Unmapped],
) -> dict[str, Any] | None:
    """``weapon`` as the ruleset accepts it: without the abilities it refuses (each listed), or ``None``."""
    label = f"weapon {weapon['name']!r}"
    attacker_keywords = [k for k in keywords if k in ("Vehicle", "Monster")]

    def fails(w: Mapping[str, Any]) -> str | None:
        try:
            check({"weapons": [w], "keywords": attacker_keywords}, target)
        except ScenarioError as exc:
            return _named(exc, weapon["type"], unit)
        except ValueError as exc:
            return str(exc)
        return None

    error = fails(weapon)
    if error is None:
        return weapon
    bare = {k: v for k, v in weapon.items() if k != "keywords"}
    if "keywords" in weapon and fails(bare) is None:
        parts = [p.strip() for p in weapon["keywords"][0].strip("[]").split(",") if p.strip()]
        kept: list[str] = []
        for part in parts:
            why = fails({**bare, "keywords": [*kept, part]})
            if why is None:
                kept.append(part)
            else:
                unmapped.append(Unmapped(unit, f"ability {part!r} of {label}", why))
        return {**bare, "keywords": kept} if kept else bare
    unmapped.append(Unmapped(unit, label, error))
    return None


_PRINTED = {
    "attacks": "A",
    "strength": "S",
    "ap": "AP",
    "damage": "D",
    "toughness": "T",
    "wounds": "W",
    "save": "SV",
    "invulnerable": "invulnerable save",
    "feel_no_pain": "Feel No Pain",
}
"""The characteristic a list prints for each field of a weapon or target table (``skill`` is BS or WS)."""


def _named(exc: ScenarioError, kind: str, unit: str) -> str:
    """The message of ``exc``, raised checking a weapon, led by the characteristic it is about (``BS is
    'banana'; ...``), as the list prints it.

    Raises:
        ScenarioError: for a fault of the unit's target rather than of the weapon, naming the unit: the
            target is checked with each weapon, and every weapon would otherwise be blamed for it.
    """
    field = exc.field or ""
    last = re.sub(r"\[\d+\]$", "", field.rsplit(".", 1)[-1])
    printed = ("WS" if kind == "melee" else "BS") if last == "skill" else _PRINTED.get(last)
    if field.startswith("target"):
        raise ScenarioError(
            f"unit {unit!r}: its target table is refused at {field}: {printed or last} {exc.message}",
            source=exc.source,
            field=field,
        )
    return f"{printed} {exc.message}" if printed and not exc.message.startswith(printed) else exc.message


def attach(leader: ImportedUnit, bodyguard: ImportedUnit) -> ImportedUnit:
    """``leader`` attached to ``bodyguard``: one target with the bodyguard's Toughness and keywords,
    every model of both (the leader's as CHARACTER models), and both units' points.

    Raises:
        ScenarioError: naming both units, for a ``leader`` without the Leader ability, or a unit already
            part of an attached unit.

    The leader's models carry the leader's own points, so that destroying them removes those (shared
    among its model entries by their counts, in whole points); the bodyguard's points, which a list gives
    for the whole unit, are spread evenly over its models, as the note returned says.
    """
    if leader.target is None or bodyguard.target is None:
        raise ScenarioError(f"{leader.name!r} or {bodyguard.name!r} is already part of an attached unit")
    if not leader.can_lead:
        raise ScenarioError(
            f"is {leader.name!r} leading {bodyguard.name!r}, but the list gives {leader.name!r} no Leader ability:"
            " only a Leader leads a unit; name the Leader first (--attach LEADER UNIT)",
            field="attach",
        )
    name = f"{leader.name} + {bodyguard.name}"
    leader_models = [{**m, "character": True} for m in leader.target["models"]]
    notes: list[str] = []
    if leader.points is not None and bodyguard.points is not None:
        leader_models = _priced(leader_models, leader.points, leader.models)
        notes.append(
            f"the {leader.points:g} points of {leader.name} go to its own models; the {bodyguard.points:g} points"
            f" of {bodyguard.name}, given for the whole unit, are spread evenly over its {bodyguard.models} models"
        )
    target: dict[str, Any] = {**bodyguard.target, "name": name, "models": [*bodyguard.target["models"], *leader_models]}
    points = (
        None if leader.points is None and bodyguard.points is None else (leader.points or 0) + (bodyguard.points or 0)
    )
    return ImportedUnit(name, {}, target, points, leader.models + bodyguard.models, notes=tuple(notes))


def _priced(models: list[dict[str, Any]], points: float, count: int) -> list[dict[str, Any]]:
    """``models`` each with its share of ``points`` by its ``count``, in whole points, the last taking what
    rounding leaves, so that they add up to ``points``."""
    out = []
    left = round(points)
    for i, m in enumerate(models):
        share = left if i == len(models) - 1 else round(points * m["count"] / count)
        left -= share
        out.append({**m, "points": share})
    return out
