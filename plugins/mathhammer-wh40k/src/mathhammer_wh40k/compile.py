"""Compiling a 40k scenario into a Plan.

The mapping, rule by rule (section names from the specification):

- Gather attack dice: weapons whose attacks are identical (same type, BS/WS,
  S, AP, D, keywords and modifiers) pool their dice, whatever their A; pools
  resolve in the order the attacker first lists them.
- Hit roll: unmodified 1 fails, unmodified 6 is a critical hit, else the roll
  plus modifiers (summed, capped to +/-1) must reach BS/WS. A weapon that
  automatically hits rolls nothing and scores no critical hits.
- Wound roll: the S-vs-T table, unmodified 1 fails, unmodified 6 is a critical
  wound, modifiers capped to +/-1.
- Saves: rolled together, lowest first, through the allocation groups in the
  declared order; AP modifies Sv, InSv is unmodified, a 1 always fails.
- Damage: the D characteristic, rolled per unsaved attack; excess is lost.
- Mortal wounds "in addition to the normal damage" (weapon field
  ``mortal_wounds``): every attack that wounds queues them; they are inflicted
  after the pool's normal damage, even if that damage was saved.
- Mortal wounds: one at a time, 1 damage each, spilling over, in the 11th
  edition order (wounded non-CHARACTER, non-CHARACTER, wounded CHARACTER,
  CHARACTER); abilities' mortal wounds resolve before the weapons.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathhammer import _core
from mathhammer.exceptions import PluginError, ScenarioError, UnknownKeywordError
from mathhammer.keywords import KeywordSpec, KeywordTable
from mathhammer.plan import AttackPool, Attacks, Effect, Group, MortalWounds, Plan, Reroll, Save, Target, Test
from mathhammer.ruleset import Compiled
from mathhammer_wh40k.check import check_scenario
from mathhammer_wh40k.keyword_api import WeaponRules
from mathhammer_wh40k.model import Scenario, Weapon
from mathhammer_wh40k.rules import HIT_MODIFIER_CAP, WOUND_MODIFIER_CAP, allocation_order, create_groups, wound_target

COUNTERS = ["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"]
LABELS = {
    "attacks": "Attacks",
    "hits": "Hits",
    "wounds": "Wounds",
    "failed_saves": "Failed saves",
    "mortal_wounds": "Mortal wounds",
    "damage": "Damage dealt",
    "models_destroyed": "Models destroyed",
}
RULE_VERSIONS = {
    "attack_sequence": "11e (specification)",
    "hit_modifier_cap": "+/-1 (specification)",
    "mortal_wounds": "spill over (specification); 11e allocation order",
}


def _pool_key(w: Weapon) -> tuple[object, ...]:
    """What makes two weapons' attacks identical for pooling."""
    return (
        w.type,
        w.skill,
        w.strength,
        w.ap,
        w.damage,
        w.auto_hit,
        w.mortal_wounds,
        tuple(sorted(w.keywords)),
        w.modifiers,
    )


REROLL_BREADTH: tuple[Reroll, ...] = ("none", "ones", "failures", "non_critical")
"""Re-roll policies from narrowest to broadest: each re-rolls everything the previous one does."""


def _resolve_keywords(
    scenario: Scenario, keywords: KeywordTable
) -> dict[int, list[tuple[KeywordSpec, Mapping[str, Any]]]]:
    """Each weapon's keywords, resolved; an unknown spelling is an error listing the known ones."""
    resolved: dict[int, list[tuple[KeywordSpec, Mapping[str, Any]]]] = {}
    for i, w in enumerate(scenario.attacker.weapons):
        found = resolved.setdefault(i, [])
        for j, text in enumerate(w.keywords):
            match = keywords.resolve(text)
            if match is None:
                known = ", ".join(keywords.names()) or "none are installed"
                raise UnknownKeywordError(
                    f"{text!r} is not a keyword of ruleset 'wh40k'; known keywords: {known}",
                    source=scenario.source,
                    field=f"attacker.weapons[{i}].keywords[{j}]",
                )
            # The same ability listed twice (in any spelling) applies once.
            if not any(spec is match[0] and params == match[1] for spec, params in found):
                found.append(match)
    return resolved


def compile_scenario(scenario: Scenario, keywords: KeywordTable) -> Compiled:
    """Compile a scenario into a Plan; every error names the scenario's file and field."""
    check_scenario(scenario)
    resolved = _resolve_keywords(scenario, keywords)
    source = scenario.source
    groups = create_groups(scenario.target, source)
    order = allocation_order(scenario.target, groups, source)
    target = Target(
        groups=[
            Group(
                name=g.name,
                models=g.models,
                wounds=g.profile.wounds,
                tier=1 if g.character else 0,
                save=g.profile.save,
                invulnerable=g.profile.invulnerable,
                feel_no_pain=g.profile.feel_no_pain,
                feel_no_pain_mortal=g.profile.feel_no_pain_mortal,
            )
            for g in groups
        ],
        order=order,
        wounded_groups_first=True,
    )
    plan = Plan(counters=list(COUNTERS), target=target)
    for ability in scenario.attacker.mortal_wounds:
        plan.sequences.append(MortalWounds(ability.name, _dice(ability.amount), counter="mortal_wounds"))
    pools: dict[tuple[object, ...], list[int]] = {}
    for i, w in enumerate(scenario.attacker.weapons):
        pools.setdefault(_pool_key(w), []).append(i)
    versions = dict(RULE_VERSIONS)
    for members in pools.values():
        weapons = [scenario.attacker.weapons[i] for i in members]
        pool, hit, wound = _pool(weapons, scenario)
        for spec, params in resolved[members[0]]:
            rules = WeaponRules(weapons, scenario, pool, hit, wound, params, versions)
            _apply(spec, rules, keywords, scenario, members[0])
        plan.sequences.append(pool)
    return Compiled(plan=plan, rule_versions=versions, stage_labels=dict(LABELS))


def _apply(spec: KeywordSpec, rules: WeaponRules, keywords: KeywordTable, scenario: Scenario, weapon: int) -> None:
    """Let a keyword edit the pool; its failure names the keyword and its plugin."""
    try:
        spec.apply(rules)
    except ScenarioError:
        raise
    except Exception as exc:
        raise PluginError(
            f"keyword {spec.name!r} (plugin {keywords.origin.get(spec.name, '?')!r}) failed on "
            f"attacker.weapons[{weapon}] {rules.weapon.name!r}: {type(exc).__name__}: {exc}"
        ) from exc


def _dice(value: str | int) -> str:
    """The canonical spelling of a (checked) dice expression."""
    return str(_core.parse_dice(str(value)))


def _broadest(*policies: Reroll) -> Reroll:
    """The broadest re-roll policy of those given (each includes the narrower ones)."""
    return max(policies, key=REROLL_BREADTH.index)


def _pool(weapons: list[Weapon], scenario: Scenario) -> tuple[AttackPool, Test, Test]:
    w = weapons[0]
    mods = w.modifiers
    common = scenario.modifiers
    if w.auto_hit:
        hit = Test(name="hit", automatic=True, counter="hits")
    else:
        assert w.skill is not None  # checked: only automatic hits may omit it
        hit = Test(
            name="hit",
            target=w.skill,
            modifiers=[mods.hit, common.hit],
            modifier_min=-HIT_MODIFIER_CAP,
            modifier_max=HIT_MODIFIER_CAP,
            natural_fail=1,
            critical=6,
            reroll=_broadest(mods.reroll_hits, common.reroll_hits),
            counter="hits",
        )
    wound = Test(
        name="wound",
        target=wound_target(w.strength, scenario.target.toughness),
        modifiers=[mods.wound, common.wound],
        modifier_min=-WOUND_MODIFIER_CAP,
        modifier_max=WOUND_MODIFIER_CAP,
        natural_fail=1,
        critical=6,
        reroll=_broadest(mods.reroll_wounds, common.reroll_wounds),
        counter="wounds",
    )
    if w.mortal_wounds is not None:
        # "In addition to the normal damage": the token goes on to its save,
        # and the mortal wounds are inflicted after the pool's normal damage.
        wound.effects += [
            Effect(on=outcome, action="mortal", amount=_dice(w.mortal_wounds), spill=True, ends_attack=False)
            for outcome in ("success", "critical")
        ]
    pool = AttackPool(
        name=" + ".join(dict.fromkeys(x.name for x in weapons)),
        attacks=[Attacks(models=x.count, dice=_dice(x.attacks)) for x in weapons],
        attacks_counter="attacks",
        steps=[hit, wound],
        save=Save(ap=w.ap, modifiers=[mods.save, common.save], natural_fail=1, counter="failed_saves"),
        damage=_dice(w.damage),
        mortal_counter="mortal_wounds",
    )
    return pool, hit, wound
