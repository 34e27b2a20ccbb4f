"""Checks of a Ninth Age scenario that need the whole of it (the text of the
rules in force, the target), run when it compiles, so a scenario built in
Python is held to the same rules as one read from a file.
"""

from __future__ import annotations

from typing import NoReturn

from mathhammer.plugin import MAX_ATTACKS, MAX_MODELS, ScenarioError, parse_dice
from mathhammer_t9a.model import Attack, Scenario, Target
from mathhammer_t9a.rules import BEST_SPECIAL_SAVE, REVISION, SPECIAL_SAVES

SPECIAL_SAVE_NAMES = ("Aegis", "Fortitude", "Regeneration")
MAX_CHARACTERISTIC = 20
"""The largest Strength and Resilience read. The to-wound table stops at 10, but it is
the difference Str - Res throughout, so values above 10 follow the same rule (this
project's reading; see the README)."""


def _fail(scenario: Scenario, field: str, message: str) -> NoReturn:
    raise ScenarioError(message, source=scenario.source, field=field)


def _within(scenario: Scenario, field: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _fail(scenario, field, f"is {value!r}; it must be a whole number from {low} to {high}")


def _check_attack(scenario: Scenario, i: int, attack: Attack) -> None:
    at = f"attack[{i}]"
    if attack.type not in ("melee", "shooting"):
        _fail(scenario, f"{at}.type", f'is {attack.type!r}; expected "melee" or "shooting"')
    _within(scenario, f"{at}.models", attack.models, 1, MAX_MODELS)
    if attack.type == "melee":
        if attack.off is None:
            _fail(scenario, f"{at}.Off", "is required for a melee attack (Offensive Skill, 0 to 10)")
        _within(scenario, f"{at}.Off", attack.off, 0, 10)
    else:
        if attack.aim is None:
            _fail(scenario, f"{at}.Aim", 'is required for a shooting attack (the roll a shot needs, as in "3+")')
        _within(scenario, f"{at}.Aim", attack.aim, 2, 6)
    if attack.strength is None:
        if attack.wounds_on is None:
            _fail(
                scenario,
                f"{at}.Str",
                "is missing: give the attack's Strength, or for an attack without one say how it wounds, "
                'as in wounds_on = "4+" or wounds_on = "automatic"',
            )
        if attack.wounds_on != "automatic":
            _within(scenario, f"{at}.wounds_on", attack.wounds_on, 2, 6)
        elif attack.wound_modifier != 0:
            _fail(
                scenario,
                f"{at}.wound_modifier",
                f"is {attack.wound_modifier!r}, but this attack wounds automatically and rolls no to-wound roll "
                "to modify; leave it out",
            )
    else:
        _within(scenario, f"{at}.Str", attack.strength, 1, MAX_CHARACTERISTIC)
        if attack.wounds_on is not None:
            _fail(
                scenario,
                f"{at}.wounds_on",
                "is for attacks without Strength; this attack's Str decides how it wounds",
            )
    _within(scenario, f"{at}.AP", attack.ap, 0, 10)
    _within(scenario, f"{at}.hit_modifier", attack.hit_modifier, -10, 10)
    _within(scenario, f"{at}.wound_modifier", attack.wound_modifier, -10, 10)
    if not isinstance(attack.attributes, tuple) or not all(isinstance(a, str) for a in attack.attributes):
        _fail(scenario, f"{at}.attributes", "must be a list of attribute names")
    try:
        att = parse_dice(attack.att)
    except ValueError as exc:
        _fail(scenario, f"{at}.Att", str(exc))
    if att.min < 1:
        _fail(scenario, f"{at}.Att", f"can roll {att.min}; every attacking model makes at least one attack")
    if attack.models * att.max > MAX_ATTACKS:
        _fail(
            scenario,
            f"{at}.Att",
            f"{attack.models} models making up to {att.max} attacks each is more than the "
            f"{MAX_ATTACKS:,} attacks one run allows",
        )


def _check_target(scenario: Scenario, t: Target) -> None:
    revision = scenario.revision
    _within(scenario, "target.models", t.models, 1, MAX_MODELS)
    _within(scenario, "target.Def", t.defensive, 0, 10)
    _within(scenario, "target.Res", t.resilience, 1, MAX_CHARACTERISTIC)
    _within(scenario, "target.HP", t.hp, 1, 100)
    _within(scenario, "target.Arm", t.armour, 0, 10)
    _within(scenario, "target.hard_target", t.hard_target, 0, 10)
    values = {"Aegis": t.aegis, "Fortitude": t.fortitude, "Regeneration": t.regeneration}
    for name, value in values.items():
        if value is None:
            continue
        if name not in SPECIAL_SAVES[revision]:
            other = "A" if revision == "B" else "B"
            _fail(
                scenario,
                f"target.{name}",
                f"is a special save of text {other}; under revision {revision!r} the special saves are "
                f"{' and '.join(SPECIAL_SAVES[revision])}",
            )
        _within(scenario, f"target.{name}", value, 1, 6)
        if revision == "A" and value < BEST_SPECIAL_SAVE["A"]:
            _fail(
                scenario,
                f"target.{name}",
                f"is {value}+; text A's best possible special save is not verified, so values better than "
                f"{BEST_SPECIAL_SAVE['A']}+ are refused",
            )
    if revision == "A" and t.aegis is not None and t.fortitude is not None:
        _fail(
            scenario,
            "target.Fortitude",
            "and Aegis together: whether text A lets a model roll both is not verified, so mathhammer does not "
            "guess; give the target the one that applies",
        )
    if t.champion:
        if revision == "B":
            _fail(
                scenario,
                "target.champion",
                "is for text A, where the Champion keeps Health Points of its own; text B's rules for a "
                "Champion's losses are not verified, so leave champion out (the Champion then counts among the "
                "models of the unit's Health Pool)",
            )
        if t.models < 2:
            _fail(scenario, "target.champion", "needs at least one rank-and-file model beside it (models = 2 or more)")
    if t.parry and revision == "B":
        _fail(scenario, "target.parry", "is a text-A rule (Parry); text B's personal protections do not list it")


def check_scenario(scenario: Scenario) -> None:
    """Refuse what the rules in force do not allow or do not verify.

    Raises:
        ScenarioError: naming the field and what would be right.
    """
    REVISION.check(scenario.revision, source=scenario.source, field="rules.revision")
    if scenario.context.cover not in ("none", "soft", "hard"):
        _fail(scenario, "context.cover", f'is {scenario.context.cover!r}; expected "none", "soft" or "hard"')
    if not scenario.attacks:
        _fail(scenario, "attack", "needs at least one [[attack]]")
    for i, attack in enumerate(scenario.attacks):
        _check_attack(scenario, i, attack)
    _check_target(scenario, scenario.target)
