"""Reading a Ninth Age scenario file into :mod:`mathhammer_t9a.model` objects.

The field names are the public scenario format; ``README.md`` documents each.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import Any, Literal

from mathhammer.plugin import Fields, ScenarioError
from mathhammer_t9a.check import check_combat, check_scenario
from mathhammer_t9a.model import (
    Attack,
    AttackType,
    Combat,
    CombatScenario,
    CombatScore,
    CombatUnit,
    Context,
    Scenario,
    Target,
)
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


def _attack(f: Fields, models: int | None = None) -> Attack:
    """An attack; in a close combat (``models`` given, the unit's) it is melee and its models are the unit's."""
    kind: AttackType = "melee" if models is not None else f.text("type", "melee", choices=("melee", "shooting"))
    if models is not None:
        for name, why in (("type", "a close combat is fought with melee attacks"), ("models", _RANKS)):
            if f.has(name):
                f.fail(name, f"is not read in a close combat: {why}")
    attack = Attack(
        name=f.text("name"),
        type=kind,
        models=f.integer("models") if models is None else models,
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


_RANKS = "the unit's models alive in its front rank fight, and those of its supporting ranks support them"


def _target(f: Fields) -> Target:
    target = _models(f)
    f.done()
    return target


def _models(f: Fields) -> Target:
    """A unit's models as they are attacked (the caller checks the table for other fields)."""
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
    return target


def _score(f: Fields | None) -> CombatScore:
    if f is None:
        return CombatScore()
    score = CombatScore(**{name: f.integer(name, 0) for name in ("ranks", "standard", "charge", "other")})
    f.done()
    return score


def _combat_only(f: Fields) -> tuple[Any, ...]:
    """The default of a field a combat requires, as the description gives it: none while describing, so the
    fields of a combat are described as optional and a form of attacks on a unit asks for none of them."""
    return (None,) if f.describing else ()


def _combat_unit(f: Fields) -> CombatUnit:
    unit = _models(f)
    unit_fields = CombatUnit(
        unit=unit,
        attack=_attack(f.table("attack", *_combat_only(f)), unit.models),
        agility=f.integer("Agi", *_combat_only(f)),
        discipline=f.integer("Disc", *_combat_only(f)),
        width=f.integer("width", 5),
        supporting_attacks=f.integer("supporting_attacks", 1),
        supporting_ranks=f.integer("supporting_ranks", 1),
        steadfast=f.text("steadfast", "ranks", choices=("ranks", "always", "never")),
        score=_score(f.table("combat_score", None)),
    )
    f.done()
    return unit_fields


def _combat(f: Fields | None) -> Combat:
    if f is None:
        return Combat()
    combat = Combat(
        rounds=f.integer("rounds", 1),
        strike_order=f.text("strike_order", "agility", choices=("agility", "attacker", "target", "simultaneous")),
        double_one_passes=f.flag("double_one_passes", True),
    )
    f.done()
    return combat


def load_combat(f: Fields, revision: str, source: str | None) -> CombatScenario:
    """A close combat between ``[attacker]`` and ``[target]``, each with its ``attack``."""
    for name in ("attack", "context"):
        if f.has(name):
            f.fail(name, "is not read in a close combat: each unit's own [attacker.attack] and [target.attack] are")
    scenario = CombatScenario(
        combat=_combat(f.table("combat", None)),
        attacker=_combat_unit(f.table("attacker", *_combat_only(f))),
        target=_combat_unit(f.table("target")),
        revision=revision,
        source=source,
    )
    f.done()
    check_combat(scenario)
    return scenario


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


def _attacks(f: Fields, revision: str, source: str | None) -> Scenario:
    """Attacks resolved in order against ``[target]``."""
    # Described as optional, as a close combat reads none: a form then sends none for a combat.
    attacks = f.tables("attack", *_combat_only(f))
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


def load(data: Mapping[str, Any], source: str | None) -> Scenario | CombatScenario:
    """Validate a parsed scenario file: attacks on a unit, or with a ``[combat]`` table a close combat.

    Raises:
        ScenarioError: naming the file, the field and the value.
    """
    f = Fields(data, "", source)
    f.text("ruleset")
    revision = _revision(f.table("rules", None), source)
    if f.describing:
        # Both kinds of file are described (attacks first: the combat's checks for [[attack]] only ask
        # whether it is there); the checks refuse the values a description gives back.
        for kind in (_attacks, load_combat):
            with contextlib.suppress(ScenarioError):
                kind(f, revision, source)
    if f.has("combat"):
        return load_combat(f, revision, source)
    return _attacks(f, revision, source)
