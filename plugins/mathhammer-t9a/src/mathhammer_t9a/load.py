"""Reading a Ninth Age scenario file into :mod:`mathhammer_t9a.model` objects.

The field names are the public scenario format; ``README.md`` documents each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathhammer.exceptions import ScenarioError
from mathhammer.fields import Fields
from mathhammer_t9a.model import Attack, Context, Scenario, Target
from mathhammer_t9a.rules import BEST_SPECIAL_SAVE, REVISION, SPECIAL_SAVES

CHARACTERISTIC = {"min": 0, "max": 10}
"""Off, Def, AP and Arm run from 0 to 10."""


def _attack(f: Fields) -> Attack:
    kind = f.text("type", "melee", choices=("melee", "shooting"))
    strength = f.integer("Str", None, min=1, max=10)
    wounds_on: int | None = None
    if f.has("wounds_on"):
        if strength is not None:
            f.fail("wounds_on", "is for attacks without Strength; this attack has Str, which decides how it wounds")
        if f.data["wounds_on"] == "automatic":
            f.text("wounds_on")
            wounds_on = 0
        else:
            wounds_on = f.roll("wounds_on", best=2, worst=6)
    elif strength is None:
        f.fail(
            "Str",
            "is missing: give the attack's Strength, or for an attack without one say how it wounds, "
            'as in wounds_on = "4+" or wounds_on = "automatic"',
        )
    attack = Attack(
        name=f.text("name"),
        type=kind,
        models=f.integer("models", min=1, max=10_000),
        att=f.dice("Att", "1"),
        off=f.integer("Off", **CHARACTERISTIC) if kind == "melee" else None,
        aim=f.roll("Aim", best=2, worst=6) if kind == "shooting" else None,
        strength=strength,
        wounds_on=wounds_on,
        ap=f.integer("AP", 0, **CHARACTERISTIC),
        attributes=tuple(f.texts("attributes", [])),
        hit_modifier=f.integer("hit_modifier", 0, min=-10, max=10),
    )
    f.done()
    return attack


def _special(f: Fields, name: str, revision: str) -> int | None:
    if not f.has(name):
        return None
    if name not in SPECIAL_SAVES[revision]:
        other = "Regeneration" if name == "Fortitude" else "Fortitude"
        f.fail(
            name,
            f"is a special save of text {'A' if revision == 'B' else 'B'}; under revision {revision!r} the "
            f"special saves are {' and '.join(SPECIAL_SAVES[revision])} (text {revision} calls it {other})",
        )
    best = BEST_SPECIAL_SAVE[revision]
    value: int = f.roll(name, best=1, worst=6)
    if value < best:
        if revision == "A":
            f.fail(
                name,
                f"is {value}+; text A's best possible special save is not verified, so values below 2+ are refused",
            )
        value = best  # text B: a natural 1 or 2 always fails
    return value


def _target(f: Fields, revision: str) -> Target:
    champion = f.flag("champion", False)
    if champion and revision == "B":
        f.fail(
            "champion",
            "is for text A, where the Champion has Health Points of its own; in text B the Champion is a "
            "rank-and-file model in the unit's Health Pool: count it in models",
        )
    models = f.integer("models", min=1, max=10_000)
    if champion and models < 2:
        f.fail("champion", "needs at least one rank-and-file model beside the Champion (models = 2 or more)")
    parry = f.flag("parry", False)
    if parry and revision == "B":
        f.fail("parry", "is a text-A rule (Parry); text B's personal protections do not list it")
    target = Target(
        name=f.text("name"),
        models=models,
        defensive=f.integer("Def", **CHARACTERISTIC),
        resilience=f.integer("Res", min=1, max=10),
        hp=f.integer("HP", 1, min=1, max=100),
        armour=f.integer("Arm", 0, **CHARACTERISTIC),
        aegis=_special(f, "Aegis", revision),
        fortitude=_special(f, "Fortitude", revision),
        regeneration=_special(f, "Regeneration", revision),
        champion=champion,
        fly=f.flag("fly", False),
        flammable=f.flag("flammable", False),
        distracting=f.flag("distracting", False),
        parry=parry,
        hard_target=f.integer("hard_target", 0, min=0, max=10),
    )
    if revision == "A" and target.aegis is not None and target.fortitude is not None:
        f.fail(
            "Fortitude",
            "and Aegis together: whether text A lets a model roll both is not verified, so mathhammer does not "
            "guess; give the target the one that applies",
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
        target=_target(f.table("target"), revision),
        context=_context(f.table("context", None)),
        revision=revision,
        source=source,
    )
    f.done()
    return scenario
