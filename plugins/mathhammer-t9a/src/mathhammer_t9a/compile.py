"""Compiling a Ninth Age scenario into a Plan.

The mapping, step by step (rule sections of the published rules):

- Attacks: each attacking model makes ``Att`` attacks (or shots); the
  scenario's attacks resolve in the order listed, against one unit.
- Rolling to hit, melee: the Off - Def table of the chosen text; Parry (text A)
  raises Def to the higher of Def + 1 and the attacker's Off; Distracting is
  -1, ignored (A) when the attack already has another negative modifier, or
  (B) when it would make the roll worse than 5+. A natural 1 always misses
  and a natural 6 always hits.
- Rolling to hit, shooting: Aim, less the modifiers (Long Range, Moving and
  Shooting with Accurate, Quick to Fire and Unwieldy, Stand and Shoot in text
  A, Soft and Hard Cover, Hard Target). A roll needing 7+: text A rolls each 6
  again and hits on 4+ (Hopeless Shots), 8+ cannot hit; text B cannot hit.
- To-wound: the Str - Res table (natural 6 always wounds, natural 1 always
  fails); an attack without Strength wounds as the scenario says.
- Saves: Armour (7 - Arm + AP on a D6, natural 1 fails; text B caps Arm at 6),
  then, if failed, one special save: the best the target has that the attack
  does not deny.
- Health Points: each unsaved wound costs 1 HP (Multiple Wounds: more).
  Rank-and-file models share one Health Pool, losses carrying from model to
  model; text A: once they are gone, losses pass to the Champion; text B:
  losses beyond the pool are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathhammer.plugin import (
    AttackPool,
    Attacks,
    Chance,
    Compiled,
    Contest,
    ContestSide,
    Effect,
    Group,
    KeywordSpec,
    KeywordTable,
    Plan,
    Rounds,
    Save,
    ScenarioError,
    SpecialSave,
    Target,
    Test,
    Vocabulary,
    describe,
    split_keywords,
)
from mathhammer_t9a.check import check_combat, check_scenario
from mathhammer_t9a.keyword_api import AttackRules
from mathhammer_t9a.model import Attack, CombatScenario, CombatUnit, Scenario
from mathhammer_t9a.model import Target as TargetUnit
from mathhammer_t9a.rules import (
    BEST_SPECIAL_SAVE,
    REVISION,
    SPECIAL_SAVES,
    armour,
    melee_to_hit,
    special_pass,
    to_wound,
)

COUNTERS = ["attacks", "hits", "wounds", "unsaved_wounds"]
LABELS = {
    "attacks": "Attacks",
    "hits": "Hits",
    "wounds": "Wounds",
    "unsaved_wounds": "Unsaved wounds",
    "damage": "HP lost",
    "models_destroyed": "Models removed",
}
VOCABULARY = Vocabulary(
    attack_dice=("attack", "attacks"),
    made="made",
    removed="removed",
    mortal_wounds=("HP lost with no saves", "HP lost with no saves"),
    wounds=("HP", "HP"),
    lost="HP lost",
    saves=("Armour Save", "special save"),
    unsaved="is not saved",
)
"""The game's words for what reports tell: Health Points, Armour Saves, to-hit and to-wound rolls."""
ARMOUR_TARGET = 7
"""The armour save needs 7 - Arm + AP: a save of 7 - Arm (Arm up to 6), the roll less AP."""
ARMOUR_IN_SAVE = 6
"""Armour beyond 6 (text A adds sources up) becomes a bonus to the roll: a save cannot be below 1+."""


def _armour_save(arm: int) -> int | None:
    """The group's save characteristic: 7 - Arm, for Arm 1 to 6."""
    return ARMOUR_TARGET - min(arm, ARMOUR_IN_SAVE) if arm > 0 else None


def _target(scenario: Scenario) -> Target:
    return _unit(scenario.target, scenario.revision)


def _unit(t: TargetUnit, revision: str) -> Target:
    """A unit's models as the Plan allocates losses to them."""
    save = _armour_save(armour(t.armour, revision))
    rank_and_file = Group(name=t.name, models=t.models - int(t.champion), wounds=t.hp, save=save)
    if not t.champion:
        return Target(groups=[rank_and_file], order=[0])
    champion = Group(name="Champion", models=1, wounds=t.hp, tier=1, save=save)
    return Target(groups=[rank_and_file, champion], order=[0, 1])


Resolved = list[tuple[KeywordSpec, Mapping[str, Any], int, int]]
"""Each attribute an attack lists: spec, parameters, instances, and where it is first listed."""


def _attributes(attack: Attack, index: int, scenario: Scenario, keywords: KeywordTable) -> Resolved:
    """The attack's attributes, resolved; an unknown spelling lists the known ones."""
    found: Resolved = []
    listed = [(j, text) for j, written in enumerate(attack.attributes) for text in split_keywords(written)]
    for j, text in listed:
        field = f"attack[{index}].attributes[{j}]"
        spec, params = keywords.lookup(
            text,
            source=scenario.source,
            field=field,
            what="an attack attribute of ruleset 't9a'",
            known_as="attributes",
        )
        same = [i for i, entry in enumerate(found) if entry[0] is spec]
        if same:
            first = found[same[0]]
            if not spec.repeatable or first[1] != params:
                raise ScenarioError(
                    f"{text!r} lists {spec.name!r} again; only attributes whose rules count instances "
                    "(Poison Attacks) may be listed twice",
                    source=scenario.source,
                    field=field,
                )
            found[same[0]] = (spec, params, first[2] + 1, first[3])
            continue
        found.append((spec, params, 1, j))
    return found


def _melee_target(rules: AttackRules) -> int:
    attack, target = rules.attack, rules.scenario.target
    assert attack.off is not None
    defensive = max(target.defensive + 1, attack.off) if target.parry else target.defensive
    needed = melee_to_hit(attack.off, defensive, rules.revision) - attack.hit_modifier
    if target.distracting:
        if rules.revision == "A" and attack.hit_modifier >= 0:
            needed += 1
        elif rules.revision == "B" and needed + 1 <= 5:
            needed += 1
    return min(max(needed, 2), 6)


def _shooting_needed(rules: AttackRules) -> int:
    """The roll a shot needs once every modifier applied (may be 7 or more)."""
    attack, context, target = rules.attack, rules.scenario.context, rules.scenario.target
    assert attack.aim is not None
    modifier = attack.hit_modifier - target.hard_target
    if context.long_range and "accurate" not in rules.flags:
        modifier -= 1
    if context.moved:
        quick, unwieldy = "quick_to_fire" in rules.flags, "unwieldy" in rules.flags
        if rules.revision == "A":
            modifier -= {(False, False): 1, (True, False): 0, (False, True): 2, (True, True): 1}[(quick, unwieldy)]
        else:
            modifier -= (0 if quick else 1) + rules.unwieldy
    if context.stand_and_shoot and rules.revision == "A":
        modifier -= 1
    modifier -= {"none": 0, "soft": 1, "hard": 2}[context.cover]
    return max(attack.aim - modifier, 2)


def _set_to_hit(rules: AttackRules, field: str) -> list[Test]:
    """The to-hit tests, once every attribute applied."""
    hit = rules.hit
    if rules.attack.type == "melee":
        hit.target = _melee_target(rules)
        return [hit]
    needed = _shooting_needed(rules)
    if needed <= 6:
        hit.target = needed
        return [hit]
    if needed >= 8 or rules.revision == "B":
        hit.target = 7  # cannot hit: no D6 reaches it
        hit.critical = None
        return [hit]
    # Text A, Hopeless Shots: a 6, then a 4+.
    if hit.critical is not None or hit.effects or hit.reroll != "none":
        raise ScenarioError(
            "needs 7+ to hit (text A's Hopeless Shots: a 6, then 4+); how rules keyed on the to-hit roll "
            "(Poison Attacks, Fury, re-rolls) combine with it is not verified, so mathhammer does not guess",
            source=rules.scenario.source,
            field=field,
        )
    first = Test(name="to-hit (a 6)", target=6, natural_fail=1)
    hit.target = 4
    hit.name = "to-hit (then 4+)"
    return [first, hit]


def _special(rules: AttackRules, denied: set[str]) -> SpecialSave | None:
    """The best special save the target may use against the attack."""
    target = rules.scenario.target
    values = {"Aegis": target.aegis, "Fortitude": target.fortitude, "Regeneration": target.regeneration}
    best = BEST_SPECIAL_SAVE[rules.revision]
    usable = [
        SpecialSave(max(value, best), reroll_successes=name in rules.rerolled_saves)
        for name, value in values.items()
        if value is not None and name not in denied and name in SPECIAL_SAVES[rules.revision]
    ]
    if not usable:
        return None
    return max(usable, key=lambda s: special_pass(s.target, s.reroll_successes))


def _save(rules: AttackRules, ap: int, denied: set[str], groups: int) -> Save:
    beyond = max(armour(rules.scenario.target.armour, rules.revision) - ARMOUR_IN_SAVE, 0)
    special = _special(rules, denied)
    return Save(
        ap=-ap,
        group_modifiers=[beyond] * groups if beyond else [],
        counter="unsaved_wounds",
        special=[special] * groups if special else [],
    )


def _to_wound_roll(needed: int, modifier: int) -> Test:
    """The to-wound roll: a natural 1 always fails and a natural 6 always wounds (To-Wound
    Rolls), whatever the modifiers add up to; they are not capped."""
    return Test(
        name="to-wound",
        target=needed,
        natural_fail=1,
        # A natural 6 is a success however far the modifiers push the roll needed.
        critical=6 if modifier < 0 else None,
        modifiers=[modifier] if modifier else [],
        modifier_min=-10,
        modifier_max=10,
        counter="wounds",
    )


def _pool(
    index: int, attack: Attack, scenario: Scenario, keywords: KeywordTable, groups: int, field: str | None = None
) -> AttackPool:
    field = field or f"attack[{index}]"
    t = scenario.target
    if attack.wounds_on == "automatic":
        wound = Test(name="to-wound", automatic=True, counter="wounds")
    else:
        needed = to_wound(attack.strength, t.resilience) if attack.strength is not None else int(attack.wounds_on or 0)
        wound = _to_wound_roll(needed, attack.wound_modifier)
    hit = Test(name="to-hit", natural_fail=1, counter="hits")
    pool = AttackPool(
        name=attack.name,
        attacks=[Attacks(models=attack.models, dice=attack.att)],
        attacks_counter="attacks",
        steps=[],
        save=Save(),
        damage="1",
        excess="unit" if t.champion else "group",
    )
    rules = AttackRules(attack=attack, scenario=scenario, revision=scenario.revision, pool=pool, hit=hit, wound=wound)
    for spec, params, instances, j in _attributes(attack, index, scenario, keywords):
        rules.params, rules.instances = params, instances
        keywords.apply(spec, rules, source=scenario.source, field=f"{field}.attributes[{j}]")
    pool.steps = [*_set_to_hit(rules, f"{field}.{'Off' if attack.type == 'melee' else 'Aim'}"), wound]
    pool.save = _save(rules, attack.ap, rules.denied_saves, groups)
    if rules.critical_wound is not None:
        own = _save(rules, rules.critical_wound.ap, rules.denied_saves | rules.critical_wound.denied, groups)
        wound.effects.append(Effect(on="critical", action="own_save", save=own))
    return pool


def compile_scenario(scenario: Scenario, keywords: KeywordTable) -> Compiled:
    """The Plan for a scenario, its attributes applied.

    Raises:
        ScenarioError: for what the rules in force do not allow or verify (see :mod:`mathhammer_t9a.check`).
    """
    check_scenario(scenario)
    target = _target(scenario)
    plan = Plan(
        counters=list(COUNTERS),
        target=target,
        sequences=[_pool(i, a, scenario, keywords, len(target.groups)) for i, a in enumerate(scenario.attacks)],
    )
    return Compiled(
        plan=plan,
        rule_versions={"revision": scenario.revision},
        rule_descriptions=describe({"revision": REVISION}, {"revision": [scenario.revision]}),
        attacker=" + ".join(dict.fromkeys(a.name for a in scenario.attacks)),
        target=scenario.target.name,
        stage_labels=dict(LABELS),
        vocabulary=VOCABULARY,
    )


COMBAT_COUNTERS = ["rounds", "outcome", "winner", "broken"]
IGNORE_DIFFERENCE = {"ranks": "more_ranks", "always": "always", "never": "never"}
DOUBLE_ONE = 2
"""A 2D6 roll of double 1 is the only one summing to 2 or less."""


def _silent(pool: AttackPool) -> AttackPool:
    """The pool with its stage counters removed: a combat reports each round's wounds and result, not its dice."""
    pool.attacks_counter = None
    pool.save.counter = None
    for test in pool.steps:
        test.counter = None
    for effect in (e for test in pool.steps for e in test.effects):
        if effect.save is not None:
            effect.save.counter = None
    return pool


def _fighters(side: CombatUnit) -> list[Attacks]:
    """The front rank's models alive, with the unit's Att each, then each supporting rank's, as attack terms
    counted from the survivors: a rank holds ``width`` models and casualties come from the rear."""
    front = Attacks(models=side.width, dice=side.attack.att, alive_of=0)
    support = [
        Attacks(models=side.width, dice=str(side.supporting_attacks), alive_of=0, reserve=side.width * rank)
        for rank in range(1, side.supporting_ranks + 1)
    ]
    return [front, *(support if side.supporting_attacks else [])]


def _strike(
    side: CombatUnit, foe: CombatUnit, scenario: CombatScenario, keywords: KeywordTable, base: str
) -> AttackPool:
    """The pool of ``side``'s blows at ``foe``, its attack compiled as in any other scenario."""
    alone = Scenario(attacks=(side.attack,), target=foe.unit, revision=scenario.revision, source=scenario.source)
    pool = _silent(_pool(0, side.attack, alone, keywords, 1, field=f"{base}.attack"))
    pool.attacks = _fighters(side)
    return pool


def _order(scenario: CombatScenario, forward: AttackPool, back: AttackPool) -> list[AttackPool]:
    """The strikes in order; a pool striking together with the one before is marked simultaneous."""
    order = scenario.combat.strike_order
    if order == "agility":
        a, t = scenario.attacker.agility, scenario.target.agility
        order = "simultaneous" if a == t else "attacker" if a > t else "target"
    if order == "simultaneous":
        back.simultaneous = True
        return [forward, back]
    return [forward, back] if order == "attacker" else [back, forward]


def _contest_side(side: CombatUnit) -> ContestSide:
    return ContestSide(
        hold=side.discipline,
        bonus=side.score.every_round,
        first_round_bonus=side.score.charge,
        ignore_difference=IGNORE_DIFFERENCE[side.steadfast],  # type: ignore[arg-type]
        rank_width=side.width,
    )


def _combat_chances(scenario: CombatScenario) -> list[Chance]:
    a, t = scenario.attacker.unit.name, scenario.target.unit.name
    rounds = scenario.combat.rounds
    the_round = "the round" if rounds == 1 else "the last round fought"
    return [
        Chance(f"P({a} wins {the_round})", "winner", exactly=1),
        Chance(f"P({t} wins {the_round})", "winner", exactly=2),
        Chance(f"P({the_round} is a draw)", "winner", exactly=0),
        Chance("P(the loser breaks)", "broken", at_least=1),
        Chance(f"P({t} breaks)", "broken", exactly=1),
        Chance(f"P({a} breaks)", "broken", exactly=2),
        Chance(f"P({t} destroyed)", "outcome", exactly=1),
        Chance(f"P({a} destroyed)", "outcome", exactly=2),
        Chance("P(both destroyed)", "outcome", exactly=3),
    ]


def compile_combat(scenario: CombatScenario, keywords: KeywordTable) -> Compiled:
    """The Plan of a close combat: both units' strikes in order each round, then the combat result and the
    loser's break test, under the conventions ``docs/t9a-combat.md`` sets out.

    Raises:
        ScenarioError: for what the rules in force or the conventions do not allow.
    """
    check_combat(scenario)
    attacker, target = scenario.attacker, scenario.target
    forward = _strike(attacker, target, scenario, keywords, "attacker")
    back = _strike(target, attacker, scenario, keywords, "target")
    back.against = "attacker"
    contest = Contest(
        attacker=_contest_side(attacker),
        target=_contest_side(target),
        always_holds=DOUBLE_ONE if scenario.combat.double_one_passes else 0,
        winner_counter="winner",
        left_counter="broken",
    )
    plan = Plan(
        counters=list(COMBAT_COUNTERS),
        target=_unit(target.unit, scenario.revision),
        attacker=_unit(attacker.unit, scenario.revision),
        sequences=list(_order(scenario, forward, back)),
        rounds=Rounds(max=scenario.combat.rounds, counter="rounds", outcome_counter="outcome", contest=contest),
    )
    a, t = attacker.unit.name, target.unit.name
    labels = {
        "rounds": "Rounds fought",
        "damage": f"{t}: HP lost (wounds {a} caused)",
        "models_destroyed": f"{t}: models removed",
        "attacker_damage": f"{a}: HP lost (wounds {t} caused)",
        "attacker_models_destroyed": f"{a}: models removed",
    }
    return Compiled(
        plan=plan,
        rule_versions={"revision": scenario.revision},
        rule_descriptions=describe({"revision": REVISION}, {"revision": [scenario.revision]}),
        attacker=a,
        target=t,
        stage_labels=labels,
        chances=_combat_chances(scenario),
        distributions=["rounds", "attacker_damage"],
        hidden=["outcome", "winner", "broken"],
        vocabulary=VOCABULARY,
    )
