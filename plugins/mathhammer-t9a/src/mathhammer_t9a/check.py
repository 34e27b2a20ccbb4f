"""Checks of a Ninth Age scenario that need the whole of it (the text of the
rules in force, the target), run when it compiles, so a scenario built in
Python is held to the same rules as one read from a file.
"""

from __future__ import annotations

from typing import NoReturn

from mathhammer.plugin import MAX_ATTACKS, MAX_MODELS, MAX_ROUNDS, ScenarioError, parse_dice
from mathhammer_t9a.model import Attack, CombatScenario, CombatUnit, Scenario, Target
from mathhammer_t9a.rules import BEST_SPECIAL_SAVE, REVISION, SPECIAL_SAVES

SPECIAL_SAVE_NAMES = ("Aegis", "Fortitude", "Regeneration")
MAX_CHARACTERISTIC = 20
"""The largest Strength and Resilience read. The to-wound table stops at 10, but it is
the difference Str - Res throughout, so values above 10 follow the same rule (this
project's reading; see the README)."""


AnyScenario = Scenario | CombatScenario


def _fail(scenario: AnyScenario, field: str, message: str) -> NoReturn:
    raise ScenarioError(message, source=scenario.source, field=field)


def _within(scenario: AnyScenario, field: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _fail(scenario, field, f"is {value!r}; it must be a whole number from {low} to {high}")


def _check_attack(scenario: AnyScenario, at: str, attack: Attack) -> None:
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


def _check_target(scenario: AnyScenario, t: Target, base: str = "target") -> None:
    revision = scenario.revision
    _within(scenario, f"{base}.models", t.models, 1, MAX_MODELS)
    _within(scenario, f"{base}.Def", t.defensive, 0, 10)
    _within(scenario, f"{base}.Res", t.resilience, 1, MAX_CHARACTERISTIC)
    _within(scenario, f"{base}.HP", t.hp, 1, 100)
    _within(scenario, f"{base}.Arm", t.armour, 0, 10)
    _within(scenario, f"{base}.hard_target", t.hard_target, 0, 10)
    values = {"Aegis": t.aegis, "Fortitude": t.fortitude, "Regeneration": t.regeneration}
    for name, value in values.items():
        if value is None:
            continue
        if name not in SPECIAL_SAVES[revision]:
            other = "A" if revision == "B" else "B"
            _fail(
                scenario,
                f"{base}.{name}",
                f"is a special save of text {other}; under revision {revision!r} the special saves are "
                f"{' and '.join(SPECIAL_SAVES[revision])}",
            )
        _within(scenario, f"{base}.{name}", value, 1, 6)
        if revision == "A" and value < BEST_SPECIAL_SAVE["A"]:
            _fail(
                scenario,
                f"{base}.{name}",
                f"is {value}+; text A's best possible special save is not verified, so values better than "
                f"{BEST_SPECIAL_SAVE['A']}+ are refused",
            )
    if revision == "A" and t.aegis is not None and t.fortitude is not None:
        _fail(
            scenario,
            f"{base}.Fortitude",
            "and Aegis together: whether text A lets a model roll both is not verified, so mathhammer does not "
            "guess; give the target the one that applies",
        )
    if t.champion:
        if revision == "B":
            _fail(
                scenario,
                f"{base}.champion",
                "is for text A, where the Champion keeps Health Points of its own; text B's rules for a "
                "Champion's losses are not verified, so leave champion out (the Champion then counts among the "
                "models of the unit's Health Pool)",
            )
        if t.models < 2:
            _fail(scenario, f"{base}.champion", "needs at least one rank-and-file model beside it (models = 2 or more)")
    if t.parry and revision == "B":
        _fail(scenario, f"{base}.parry", "is a text-A rule (Parry); text B's personal protections do not list it")


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
        _check_attack(scenario, f"attack[{i}]", attack)
    _check_target(scenario, scenario.target)


MAX_SCORE_BONUS = 100
"""The largest static combat-score bonus read."""


def _check_unit(scenario: CombatScenario, base: str, u: CombatUnit) -> None:
    _check_target(scenario, u.unit, base)
    if u.unit.champion:
        _fail(
            scenario,
            f"{base}.champion",
            "is not supported in a close combat: the combat's ranks and Health Pool are the rank-and-file's, and "
            "how a Champion fights and is counted in them is not modelled; leave champion out",
        )
    if u.attack.type != "melee":
        _fail(scenario, f"{base}.attack.type", f"is {u.attack.type!r}; a close combat is fought with melee attacks")
    _check_attack(scenario, f"{base}.attack", u.attack)
    _within(scenario, f"{base}.Agi", u.agility, 0, 10)
    _within(scenario, f"{base}.Disc", u.discipline, 0, 10)
    _within(scenario, f"{base}.width", u.width, 1, MAX_MODELS)
    _within(scenario, f"{base}.supporting_attacks", u.supporting_attacks, 0, 10)
    _within(scenario, f"{base}.supporting_ranks", u.supporting_ranks, 0, 10)
    if u.steadfast not in ("ranks", "always", "never"):
        _fail(scenario, f"{base}.steadfast", f'is {u.steadfast!r}; expected "ranks", "always" or "never"')
    for name in ("ranks", "standard", "charge", "other"):
        _within(scenario, f"{base}.combat_score.{name}", getattr(u.score, name), 0, MAX_SCORE_BONUS)


def check_combat(scenario: CombatScenario) -> None:
    """Refuse a close combat the rules in force or the project's conventions do not allow.

    Raises:
        ScenarioError: naming the field and what would be right.
    """
    REVISION.check(scenario.revision, source=scenario.source, field="rules.revision")
    c = scenario.combat
    _within(scenario, "combat.rounds", c.rounds, 1, MAX_ROUNDS)
    if c.strike_order not in ("agility", "attacker", "target", "simultaneous"):
        _fail(
            scenario,
            "combat.strike_order",
            f'is {c.strike_order!r}; expected "agility", "attacker", "target" or "simultaneous"',
        )
    _check_unit(scenario, "attacker", scenario.attacker)
    _check_unit(scenario, "target", scenario.target)
    if scenario.attacker.unit.name == scenario.target.unit.name:
        _fail(
            scenario,
            "target.name",
            f"is {scenario.target.unit.name!r}, the attacker's too; give each unit its own name",
        )
