"""Reading a d12 skill-dice scenario file into :mod:`mathhammer_skilldice.model` objects.

The field names are the public scenario format; ``README.md`` documents each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathhammer.plugin import MAX_TOKENS_PER_TRIAL, Fields, ScenarioError, parse_dice
from mathhammer_skilldice.model import Fight, Power, Scenario, Unit, Weapon
from mathhammer_skilldice.rules import models_left

REROLLS = ("none", "attack_roll", "focus", "panic", "ones")
REROLL_WHEN = ("miss", "panic_higher", "focus_higher", "always")
CRITICAL_DAMAGE = ("maximum", "rolled")
MAX_ROUND_ATTACKS = MAX_TOKENS_PER_TRIAL
"""The core's bound on attack dice in one trial, every round of a fight included.
With at most MAX_MODELS models a side it is out of reach today; it stays checked here
so a later raise of MAX_MODELS is refused with the scenario's field."""
MAX_MODELS = 1_000


MAX_ATTACKS_PER_MODEL = 20


def _inflict(f: Fields) -> str | tuple[str, ...] | None:
    """One Inflict effect (text) or several (a list of text)."""
    if "inflict" in f.data and isinstance(f.data["inflict"], list):
        effects = tuple(f.texts("inflict"))
        if not effects:
            f.fail("inflict", "is an empty list; leave it out for a weapon without an Inflict effect")
        return effects
    text: str | None = f.text("inflict", None)
    return text


def _weapon(f: Fields) -> Weapon:
    weapon = Weapon(
        name=f.text("name"),
        models=f.integer("models", min=1, max=MAX_MODELS),
        skill=f.integer("skill", min=-20, max=20),
        damage=f.dice("damage"),
        advantage=f.flag("advantage", False),
        disadvantage=f.flag("disadvantage", False),
        reroll=f.text("reroll", "none", choices=REROLLS),
        reroll_when=tuple(f.texts("reroll_when", [])),
        keywords=tuple(f.texts("keywords", [])),
        inflict=_inflict(f),
        attacks=f.dice("attacks", "1"),
        additional=f.flag("additional", False),
        collective=f.flag("collective", False),
        critical_damage=f.text("critical_damage", "maximum"),
    )
    for when in weapon.reroll_when:
        if when not in REROLL_WHEN:
            f.fail("reroll_when", f"holds {when!r}; expected any of {', '.join(map(repr, REROLL_WHEN))}")
    if weapon.reroll_when and weapon.reroll == "none":
        f.fail("reroll_when", f"is {list(weapon.reroll_when)} but reroll is 'none': say what is re-rolled")
    attacks = parse_dice(weapon.attacks)
    if attacks.min < 1 or attacks.max > MAX_ATTACKS_PER_MODEL:
        f.fail(
            "attacks",
            f"is {weapon.attacks}; a model makes 1 to {MAX_ATTACKS_PER_MODEL} attacks with a weapon "
            f"(this can make {attacks.min} to {attacks.max})",
        )
    if weapon.critical_damage not in CRITICAL_DAMAGE:
        try:
            parse_dice(weapon.critical_damage)
        except ValueError as exc:
            f.fail(
                "critical_damage",
                f"is {weapon.critical_damage!r}: write 'maximum', 'rolled' or a dice expression ({exc})",
            )
    f.done()
    return weapon


def _unit(f: Fields, *, target: bool) -> Unit:
    models = f.integer("models", min=1, max=MAX_MODELS)
    hp_per_model = f.integer("hp_per_model", min=1, max=100)
    unit = Unit(
        name=f.text("name"),
        models=models,
        hp_per_model=hp_per_model,
        dc=f.integer("dc", min=1, max=100) if target else 0,
        minor=f.integer("minor", min=1, max=1000) if target else 0,
        major=f.integer("major", min=1, max=1000) if target else 0,
        hp=f.integer("hp", None, min=1, max=models * hp_per_model),
        damage_reduction=f.integer("damage_reduction", 0, min=0, max=1000) if target else 0,
    )
    # Equal thresholds are allowed: Damage meeting both loses 2 HP at once.
    if target and unit.major < unit.minor:
        f.fail("major", f"is {unit.major}; the Major Threshold must not be below the Minor Threshold ({unit.minor})")
    return unit


def _power(f: Fields) -> Power:
    power = Power(
        name=f.text("name"),
        skill=f.integer("skill", min=-20, max=20),
        difficulty=f.integer("difficulty", min=1, max=100),
        power=f.text("power"),
    )
    f.done()
    return power


def _side(f: Fields, *, target: bool, fight: bool) -> tuple[Unit, tuple[Weapon, ...], tuple[Power, ...]]:
    """A unit, its weapons and powers; in a fight every unit attacks and is attacked."""
    tables = f.tables("weapons", [])
    weapons = tuple(_weapon(w) for w in tables)
    powers = tuple(_power(p) for p in f.tables("powers", []))
    for table, weapon in zip(tables, weapons, strict=True):
        # The text allows 0 damage on a weapon that inflicts an effect, or whose
        # keywords (Hazardous) act, or beside the unit's powers (the models that
        # do not cast still attack); anything else is listed and does nothing.
        if not (weapon.inflict or weapon.keywords or powers) and parse_dice(weapon.damage).max < 1:
            table.fail("damage", f"is {weapon.damage}: a weapon of no damage and no inflict effect does nothing")
    if target and powers and not fight:
        f.fail("powers", "are the target's own; it attempts them only in a fight (add a [fight] table)")
    if not weapons and (fight or not target):
        f.fail("weapons", "needs at least one [[...weapons]] table: every model attacks with a weapon")
    if weapons and target and not fight:
        f.fail("weapons", "are the target's own; it strikes back only in a fight (add a [fight] table)")
    unit = _unit(f, target=target or fight)
    attacking = sum(w.models for w in weapons if not w.additional) + len(powers)
    if weapons and all(w.additional for w in weapons):
        f.fail("weapons", "are all additional; the models' own weapon is the one without additional = true")
    standing = unit.models if unit.hp is None else models_left(unit.hp, unit.hp_per_model)
    for table, weapon in zip(tables, weapons, strict=True):
        # In a fight the models alive decide who attacks; outside one, those standing at the start.
        limit = (unit.models if fight else standing) - len(powers)
        if weapon.additional and weapon.models > limit:
            table.fail(
                "models",
                f"is {weapon.models}; the unit has {limit} models attacking (casters cast "
                "instead), and an additional weapon is carried by some of them",
            )
    if fight and attacking != unit.models:
        f.fail(
            "weapons",
            f"arm {attacking} of the unit's {unit.models} models (casters included); in a fight every model "
            "attacks or casts, so give the weapons all the models that are not casting",
        )
    if not fight and standing < unit.models and attacking > standing:
        f.fail(
            "weapons",
            f"arm {attacking} models (casters of powers included) but at {unit.hp} HP the unit has {standing} "
            "models left",
        )
    if attacking > unit.models:
        f.fail(
            "weapons",
            f"arm {attacking} models (casters of powers included) but the unit has {unit.models}: every model "
            "attacks once, with one weapon, or attempts a power instead, unless a rule grants more "
            "(additional = true for a weapon its models carry besides their own)",
        )
    f.done()
    return unit, weapons, powers


def _fight(f: Fields | None) -> Fight | None:
    if f is None:
        return None
    fight = Fight(
        rounds=f.integer("rounds", 10, min=1, max=100),
        first=f.text("first", "attacker", choices=("attacker", "target")),
    )
    f.done()
    return fight


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
    fight = _fight(f.table("fight", None))
    battle_shock = f.text("battle_shock", None)
    attacker, weapons, powers = _side(f.table("attacker"), target=False, fight=fight is not None)
    target, target_weapons, target_powers = _side(f.table("target"), target=True, fight=fight is not None)
    if fight is not None and target.name == attacker.name:
        f.fail("target", f"is named {target.name!r} like the attacker; give the two units different names")
    if fight is not None:
        per_round = (
            sum((1 if w.collective else w.models) * parse_dice(w.attacks).max for w in weapons + target_weapons)
            + len(powers)
            + len(target_powers)
        )
        if per_round * fight.rounds > MAX_ROUND_ATTACKS:
            raise ScenarioError(
                f"is {fight.rounds}: {per_round} attacks a round for {fight.rounds} rounds is more than the "
                f"{MAX_ROUND_ATTACKS:,} attacks one run allows; fight fewer rounds",
                source=source,
                field="fight.rounds",
            )
    f.done()
    return Scenario(
        weapons=weapons,
        attacker=attacker,
        target=target,
        rules=rules,
        source=source,
        target_weapons=target_weapons,
        fight=fight,
        powers=powers,
        target_powers=target_powers,
        battle_shock=battle_shock,
    )
