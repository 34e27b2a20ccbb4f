"""Reading a d12 skill-dice scenario file into :mod:`mathhammer_skilldice.model` objects.

The field names are the public scenario format; ``README.md`` documents each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathhammer.exceptions import ScenarioError
from mathhammer.fields import Fields
from mathhammer_skilldice.model import Scenario, Unit, Weapon

REROLLS = ("none", "attack_roll", "ones")
MAX_MODELS = 1_000


def _weapon(f: Fields) -> Weapon:
    advantage = f.flag("advantage", False)
    disadvantage = f.flag("disadvantage", False)
    weapon = Weapon(
        name=f.text("name"),
        models=f.integer("models", min=1, max=MAX_MODELS),
        skill=f.integer("skill", min=-20, max=20),
        damage=f.dice("damage"),
        # Advantage and Disadvantage together cancel out (README, Decisions).
        advantage=int(advantage) - int(disadvantage),
        reroll=f.text("reroll", "none", choices=REROLLS),
        keywords=tuple(f.texts("keywords", [])),
        inflict=f.text("inflict", None),
    )
    f.done()
    return weapon


def _unit(f: Fields, *, target: bool) -> Unit:
    unit = Unit(
        name=f.text("name"),
        models=f.integer("models", min=1, max=MAX_MODELS),
        hp_per_model=f.integer("hp_per_model", min=1, max=100),
        dc=f.integer("dc", min=1, max=100) if target else 0,
        minor=f.integer("minor", min=1, max=1000) if target else 0,
        major=f.integer("major", min=1, max=1000) if target else 0,
    )
    if target and unit.major <= unit.minor:
        f.fail("major", f"is {unit.major}; the Major Threshold must be above the Minor Threshold ({unit.minor})")
    return unit


def load(data: Mapping[str, Any], source: str | None) -> Scenario:
    """Validate a parsed scenario file.

    Raises:
        ScenarioError: naming the file, the field and the value.
    """
    f = Fields(data, "", source)
    f.text("ruleset")
    rules_table = f.table("rules", None)
    rules: dict[str, str] = {}
    if rules_table is not None:
        rules = {key: rules_table.text(key) for key in list(rules_table.data)}
        rules_table.done()
    attacker_fields = f.table("attacker")
    weapons = attacker_fields.tables("weapons")
    if not weapons:
        raise ScenarioError("needs at least one [[attacker.weapons]]", source=source, field="attacker.weapons")
    attacker = _unit(attacker_fields, target=False)
    loaded = tuple(_weapon(w) for w in weapons)
    attacking = sum(w.models for w in loaded)
    if attacking > attacker.models:
        attacker_fields.fail(
            "weapons",
            f"arm {attacking} models but the unit has {attacker.models}: every model attacks once, with one "
            "weapon, unless a rule grants more (list such attacks as extra models of the weapon)",
        )
    attacker_fields.done()
    target_fields = f.table("target")
    target = _unit(target_fields, target=True)
    target_fields.done()
    f.done()
    return Scenario(weapons=loaded, attacker=attacker, target=target, rules=rules, source=source)
