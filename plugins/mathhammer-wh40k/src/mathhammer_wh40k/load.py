"""Reading a 40k scenario file into :mod:`mathhammer_wh40k.model` objects.

The field names are the public scenario format; ``README.md`` documents each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathhammer.plugin import Fields, VersionChoice
from mathhammer_wh40k.check import check_scenario
from mathhammer_wh40k.model import (
    Attacker,
    Context,
    ModelProfile,
    Modifiers,
    MortalWoundsAbility,
    Scenario,
    Target,
    Weapon,
)

REROLLS = ("none", "ones", "failures", "non_critical")
DAMAGE_REROLLS = ("none", "ones", "below_average")
SAVE_REROLLS = ("none", "ones", "failures")


def _modifiers(f: Fields | None) -> Modifiers:
    if f is None:
        return Modifiers()
    m = Modifiers(
        hit=f.integer("hit", 0),
        wound=f.integer("wound", 0),
        save=f.integer("save", 0),
        reroll_hits=f.text("reroll_hits", "none", choices=REROLLS),
        reroll_wounds=f.text("reroll_wounds", "none", choices=REROLLS),
        critical_hit=f.roll("critical_hit", 6, best=2, worst=6),
        critical_wound=f.roll("critical_wound", 6, best=2, worst=6),
        ap=f.integer("ap", 0),
        strength=f.integer("strength", 0),
        strength_multiplier=f.integer("strength_multiplier", 1),
        attacks=f.integer("attacks", 0),
        damage=f.integer("damage", 0),
        damage_multiplier=f.integer("damage_multiplier", 1),
        reroll_damage=f.text("reroll_damage", "none", choices=DAMAGE_REROLLS),
        reroll_saves=f.text("reroll_saves", "none", choices=SAVE_REROLLS),
        minus_one_to_wound_if_s_above_t=f.flag("minus_one_to_wound_if_s_above_t", False),
        wounds_on=f.roll("wounds_on", None, best=2, worst=6),
        wounds_on_keyword=f.text("wounds_on_keyword", None),
        reroll_one_hit=f.flag("reroll_one_hit", False),
        reroll_one_wound=f.flag("reroll_one_wound", False),
        reroll_one_damage=f.flag("reroll_one_damage", False),
    )
    f.done()
    return m


def _weapon(f: Fields) -> Weapon:
    w = Weapon(
        name=f.text("name"),
        type=f.text("type", "ranged", choices=("ranged", "melee")),
        count=f.integer("count", 1),
        attacks=f.dice("attacks"),
        skill=f.roll("skill", None, best=1, worst=99),
        strength=f.integer("strength"),
        ap=f.integer("ap", 0),
        damage=f.dice("damage"),
        keywords=tuple(f.texts("keywords", [])),
        auto_hit=f.flag("auto_hit", False),
        mortal_wounds=f.dice("mortal_wounds", None),
        modifiers=_modifiers(f.table("modifiers", None)),
        rules=_rule_names(f.table("rules", None)),
    )
    f.done()
    return w


def _rule_names(f: Fields | None) -> dict[str, str]:
    """A table of rule name to version name (checked against the rules when compiling)."""
    if f is None:
        return {}
    names = {key: f.text(key) for key in list(f.data)}
    f.done()
    return names


def _versions(f: Fields | None) -> VersionChoice:
    if f is None:
        return VersionChoice()
    edition = f.text("edition", None)
    rules = {key: f.text(key) for key in list(f.data) if key != "edition"}
    f.done()
    return VersionChoice(edition=edition, rules=rules)


def _context(f: Fields | None) -> Context:
    if f is None:
        return Context()
    c = Context(
        **{
            name: f.integer(name, None, min=1) if name == "wounds_remaining" else f.flag(name, default)
            for name, default in vars(Context()).items()
        }
    )
    f.done()
    return c


MAX_MODEL_POINTS = 100_000
"""The most a model entry's ``points`` may be, as for a whole profile's."""


def _model(f: Fields) -> ModelProfile:
    def optional_roll(key: str) -> int | None:
        value: int | None = f.roll(key, None, best=1, worst=99)
        return value

    m = ModelProfile(
        name=f.text("name"),
        count=f.integer("count", 1),
        wounds=f.integer("wounds"),
        save=optional_roll("save"),
        invulnerable=optional_roll("invulnerable"),
        feel_no_pain=optional_roll("feel_no_pain"),
        feel_no_pain_mortal=optional_roll("feel_no_pain_mortal"),
        feel_no_pain_psychic=optional_roll("feel_no_pain_psychic"),
        character=f.flag("character", False),
        damage_reduction=f.integer("damage_reduction", 0),
        halve_damage=f.flag("halve_damage", False),
        points=f.integer("points", None, min=0, max=MAX_MODEL_POINTS),
    )
    f.done()
    return m


def _mortal_wounds(f: Fields) -> MortalWoundsAbility:
    m = MortalWoundsAbility(name=f.text("name"), amount=f.dice("amount"))
    f.done()
    return m


def load(data: Mapping[str, Any], source: str | None) -> Scenario:
    """Build and check a :class:`Scenario` from a parsed TOML document."""
    root = Fields(data, "", source)
    root.text("ruleset")
    a = root.table("attacker")
    attacker = Attacker(
        weapons=tuple(_weapon(w) for w in a.tables("weapons", [])),
        mortal_wounds=tuple(_mortal_wounds(m) for m in a.tables("mortal_wounds", [])),
        models=tuple(_model(m) for m in a.tables("models", [])),
        keywords=tuple(a.texts("keywords", [])),
        name=a.text("name", ""),
    )
    a.done()
    t = root.table("target")
    target = Target(
        name=t.text("name", "target"),
        toughness=t.integer("toughness"),
        keywords=tuple(t.texts("keywords", [])),
        models=tuple(_model(m) for m in t.tables("models")),
        allocation_order=tuple(t.texts("allocation_order", [])),
    )
    t.done()
    scenario = Scenario(
        attacker=attacker,
        target=target,
        modifiers=_modifiers(root.table("modifiers", None)),
        context=_context(root.table("context", None)),
        rules=_versions(root.table("rules", None)),
        source=source,
    )
    root.done()
    check_scenario(scenario, source)
    return scenario
