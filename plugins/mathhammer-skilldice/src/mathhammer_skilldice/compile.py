"""Compiling a d12 skill-dice scenario into a Plan.

The mapping (specification sections of ``skill-dice-d12.txt``):

- Attacks & Damage: every model attacking with a weapon makes one Attack
  Roll: two d12 (Focus, Panic) + Skill, + a d6 with Advantage or - a d6 with
  Disadvantage; the attack hits when the total reaches the target's DC.
- Focus > Panic: Inflict (the weapon's Inflict effect). Focus = Panic: a
  Critical Hit, dealing the Damage's largest value, and neither Inflict nor
  Hazardous. Panic > Focus: Hazardous X deals X Direct Damage to the
  attacking unit after the attack, hit or miss.
- Re-rolls: re-rolling the Attack Roll re-rolls both Skill Dice (a missed
  roll is re-rolled); re-rolling natural 1s re-rolls only a Skill Die
  showing one; the second result stands.
- Damage against the thresholds: below Minor 0 HP, Minor 1, Major 2, double
  Major 3 and a Battle Shock test. Direct Damage removes HP directly.
- Health Points: the unit's HP is one pool, each model supporting
  ``hp_per_model``; at HP x it has ceil(x / hp_per_model) models.
"""

from __future__ import annotations

from mathhammer.exceptions import ScenarioError, UnknownKeywordError
from mathhammer.keywords import KeywordSpec, KeywordTable
from mathhammer.plan import AttackPool, Attacks, Compare, Effect, Group, Plan, Reroll, RollDie, Save, Target, Test
from mathhammer.ruleset import Compiled
from mathhammer.versions import VersionChoice, check_choice
from mathhammer_skilldice.keyword_api import AttackRules
from mathhammer_skilldice.model import Scenario, Unit, Weapon
from mathhammer_skilldice.rules import ADVANTAGE, RULES, SKILL_DIE, thresholds

INFLICT_PREFIX = "Inflict "
COUNTERS = ["attacks", "hits", "critical_hits", "inflicts", "hazardous", "battle_shock"]
LABELS = {
    "attacks": "Attacks",
    "hits": "Hits",
    "critical_hits": "Critical Hits",
    "inflicts": "Inflicts",
    "hazardous": "Hazardous rolls",
    "battle_shock": "Battle Shock tests",
    "damage": "HP lost",
    "models_destroyed": "Models removed",
    "attacker_damage": "Attacker HP lost",
    "attacker_models_destroyed": "Attacker models removed",
}
REROLL: dict[str, Reroll] = {"none": "none", "attack_roll": "failures", "ones": "ones"}


def _side(unit: Unit, target: Unit | None = None) -> Target:
    """A unit as one health pool of its models, with the target's thresholds."""
    group = Group(
        name=unit.name,
        models=unit.models,
        wounds=unit.hp_per_model,
        thresholds=thresholds(target.minor, target.major) if target else [],
    )
    return Target(groups=[group], order=[0])


def _resolve(
    spec_text: str, keywords: KeywordTable, scenario: Scenario, field: str
) -> tuple[KeywordSpec, dict[str, object]]:
    try:
        match = keywords.resolve(spec_text)
    except ValueError as exc:
        raise ScenarioError(f"{spec_text!r}: {exc}", source=scenario.source, field=field) from None
    if match is None:
        inflict = spec_text.startswith(INFLICT_PREFIX)
        names = [n for n in keywords.names() if n.startswith(INFLICT_PREFIX) == inflict]
        known = ", ".join(n.removeprefix(INFLICT_PREFIX) for n in names) or "none are installed"
        what = "an Inflict effect" if inflict else "a keyword of ruleset 'skilldice'"
        shown = spec_text.removeprefix(INFLICT_PREFIX) if inflict else spec_text
        hint = " (pip install mathhammer-inflict)" if inflict and not names else ""
        raise UnknownKeywordError(f"{shown!r} is not {what}; known: {known}{hint}", source=scenario.source, field=field)
    return match[0], dict(match[1])


def _attack_roll(weapon: Weapon, target: Unit, versions: dict[str, str]) -> Test:
    dice = [RollDie(SKILL_DIE), RollDie(SKILL_DIE)]
    if weapon.advantage:
        dice.append(RollDie(ADVANTAGE, subtract=weapon.advantage < 0, rerolled=versions["advantage_die"] == "rerolled"))
    return Test(
        name="attack roll",
        target=target.dc,
        modifiers=[weapon.skill] if weapon.skill else [],
        dice=dice,
        compare=Compare((0, 1), equal_is_critical=True),
        critical_requires_success=versions["critical_hits"] == "needs_total",
        reroll=REROLL[weapon.reroll],
        counter="hits",
        effects=[
            Effect(on="critical", action="count", counter="critical_hits"),
            # A Critical Hit deals the largest Damage instead of rolling it.
            Effect(on="critical", action="unsaved", maximize=True),
        ],
    )


def _pool(index: int, weapon: Weapon, scenario: Scenario, keywords: KeywordTable, rules: AttackRules) -> None:
    field = f"attacker.weapons[{index}]"
    for j, text in enumerate(weapon.keywords):
        spec, params = _resolve(text, keywords, scenario, f"{field}.keywords[{j}]")
        if spec.name.startswith(INFLICT_PREFIX):
            raise ScenarioError(
                f"{text!r} is an Inflict effect: name it in inflict, not keywords",
                source=scenario.source,
                field=f"{field}.keywords[{j}]",
            )
        _apply(spec, params, rules, f"{field}.keywords[{j}]")
    if weapon.inflict is not None:
        spec, params = _resolve(INFLICT_PREFIX + weapon.inflict, keywords, scenario, f"{field}.inflict")
        _apply(spec, params, rules, f"{field}.inflict")


def _apply(spec: KeywordSpec, params: dict[str, object], rules: AttackRules, field: str) -> None:
    rules.params = params
    try:
        spec.apply(rules)
    except ValueError as exc:
        raise ScenarioError(str(exc), source=rules.scenario.source, field=field) from None


def _count_classes(rules: AttackRules) -> None:
    """Count Inflicts and Hazardous rolls whatever the weapon does with them."""
    rules.on_inflict(Effect(on="success", action="count", counter="inflicts"))
    rules.on_panic(Effect(on="success", action="count", counter="hazardous"))


def compile_scenario(scenario: Scenario, keywords: KeywordTable) -> Compiled:
    """The Plan for a loaded scenario, its keywords and Inflict effects applied."""
    check_choice(VersionChoice(rules=scenario.rules), RULES, (), source=scenario.source)
    versions = {name: VersionChoice(rules=scenario.rules).resolve(rule) for name, rule in RULES.items()}
    counters, labels = list(COUNTERS), dict(LABELS)
    plan = Plan(counters=counters, target=_side(scenario.target, scenario.target), attacker=_side(scenario.attacker))
    for i, weapon in enumerate(scenario.weapons):
        pool = AttackPool(
            name=weapon.name,
            attacks=[Attacks(models=weapon.models, dice="1")],
            attacks_counter="attacks",
            steps=[],
            save=Save(rolled=False),
            damage=weapon.damage,
            excess="group",
            top_threshold_counter="battle_shock",
        )
        roll = _attack_roll(weapon, scenario.target, versions)
        pool.steps = [roll]
        rules = AttackRules(
            weapon=weapon,
            scenario=scenario,
            pool=pool,
            attack_roll=roll,
            versions=versions,
            counters=counters,
            labels=labels,
        )
        _count_classes(rules)
        _pool(i, weapon, scenario, keywords, rules)
        plan.sequences.append(pool)
    return Compiled(plan=plan, rule_versions=versions, stage_labels=labels)
