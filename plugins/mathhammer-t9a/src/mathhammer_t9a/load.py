"""Reading a Ninth Age scenario file into :mod:`mathhammer_t9a.model` objects.

The field names are the public scenario format; ``README.md`` documents each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from mathhammer.plugin import Fields, ScenarioError
from mathhammer_t9a.check import check_scenario
from mathhammer_t9a.model import Attack, Context, Scenario, Target
from mathhammer_t9a.rules import REVISION


def _wounds_on(f: Fields) -> int | Literal["automatic"] | None:
    if not f.has("wounds_on"):
        return None
    value = f.data["wounds_on"]
    if isinstance(value, str) and value.strip().casefold() == "automatic":
        f.text("wounds_on")
        return "automatic"
    if isinstance(value, str) and not re.fullmatch(r"\s*\d+\s*\+?\s*", value):
        f.fail("wounds_on", f'is {value!r}; write the roll that wounds, such as "4+", or "automatic"')
    result: int = f.roll("wounds_on", best=2, worst=6)
    return result


def _attack(f: Fields) -> Attack:
    kind = f.text("type", "melee", choices=("melee", "shooting"))
    attack = Attack(
        name=f.text("name"),
        type=kind,
        models=f.integer("models"),
        att=f.dice("Att", "1"),
        off=f.integer("Off") if kind == "melee" else None,
        aim=f.roll("Aim", best=2, worst=6) if kind == "shooting" else None,
        strength=f.integer("Str", None),
        wounds_on=_wounds_on(f),
        ap=f.integer("AP", 0),
        attributes=tuple(f.texts("attributes", [])),
        hit_modifier=f.integer("hit_modifier", 0),
        wound_modifier=f.integer("wound_modifier", 0),
    )
    f.done()
    return attack


def _target(f: Fields) -> Target:
    special = {name: f.roll(name, None, best=1, worst=6) for name in ("Aegis", "Fortitude", "Regeneration")}
    target = Target(
        name=f.text("name"),
        models=f.integer("models"),
        defensive=f.integer("Def"),
        resilience=f.integer("Res"),
        hp=f.integer("HP", 1),
        armour=f.integer("Arm", 0),
        aegis=special["Aegis"],
        fortitude=special["Fortitude"],
        regeneration=special["Regeneration"],
        champion=f.flag("champion", False),
        fly=f.flag("fly", False),
        flammable=f.flag("flammable", False),
        distracting=f.flag("distracting", False),
        parry=f.flag("parry", False),
        hard_target=f.integer("hard_target", 0),
    )
    f.done()
    return target


def _context(f: Fields | None) -> Context:
    if f is None:
        return Context()
    context = Context(
        long_range=f.flag("long_range", False),
        moved=f.flag("moved", False),
        stand_and_shoot=f.flag("stand_and_shoot", False),
        cover=f.text("cover", "none", choices=("none", "soft", "hard")),
    )
    f.done()
    return context


def _revision(f: Fields | None, source: str | None) -> str:
    if f is None:
        return REVISION.default
    value: str = f.text("revision", REVISION.default)
    f.done()
    return REVISION.check(value, source=source, field="rules.revision")


def load(data: Mapping[str, Any], source: str | None) -> Scenario:
    """Validate a parsed scenario file.

    Raises:
        ScenarioError: naming the file, the field and the value.
    """
    f = Fields(data, "", source)
    f.text("ruleset")
    revision = _revision(f.table("rules", None), source)
    attacks = f.tables("attack")
    if not attacks:
        raise ScenarioError("needs at least one [[attack]]", source=source, field="attack")
    scenario = Scenario(
        attacks=tuple(_attack(a) for a in attacks),
        target=_target(f.table("target")),
        context=_context(f.table("context", None)),
        revision=revision,
        source=source,
    )
    f.done()
    check_scenario(scenario)
    return scenario
