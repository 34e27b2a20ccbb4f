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

from collections.abc import Mapping
from typing import Literal

from mathhammer.plugin import (
    AttackPool,
    Attacks,
    Chance,
    Check,
    Compare,
    Compiled,
    Effect,
    Group,
    Heal,
    KeywordSpec,
    KeywordTable,
    Mark,
    Plan,
    Reroll,
    RerollWhen,
    RollDie,
    Rounds,
    Save,
    ScenarioError,
    Target,
    Test,
    TopThreshold,
    VersionChoice,
    Vocabulary,
    check_choice,
    describe,
    split_keywords,
)
from mathhammer_skilldice.keyword_api import (
    FOCUS_HIGHER,
    PANIC_HIGHER,
    AttackRules,
    BattleShockRules,
    PowerRules,
    advantage_mark,
    shaken_mark,
)
from mathhammer_skilldice.model import Power, Scenario, Unit, Weapon
from mathhammer_skilldice.rules import ADVANTAGE, RULES, SKILL_DIE, thresholds

INFLICT_PREFIX = "Inflict "
POWER_PREFIX = "Power "
SHOCK_PREFIX = "Battle Shock "
COUNTERS = ["attacks", "hits", "critical_hits", "inflicts", "hazardous", "battle_shock"]
LABELS = {
    "attacks": "Attacks",
    "hits": "Hits",
    "critical_hits": "Critical Hits",
    "inflicts": "Inflicts",
    "hazardous": "Panic > Focus (Hazardous)",
    "battle_shock": "Battle Shock tests",
    "damage": "HP lost",
    "models_destroyed": "Models removed",
    "attacker_damage": "Attacker HP lost",
    "attacker_models_destroyed": "Attacker models removed",
}
VOCABULARY = Vocabulary(
    attack_dice=("Attack Roll", "Attack Rolls"),
    mortal_wounds=("Direct Damage", "Direct Damage"),
    wounds=("HP", "HP"),
    damage="Damage",
    critical="Critical Hit",
    thresholds=("Minor", "Major", "double Major"),
    classes={"first_higher": "Focus > Panic", "equal": "Focus = Panic", "second_higher": "Panic > Focus"},
    modifiers="Skill",
    no_save="",
    top_threshold="a Battle Shock test",
    lost="HP lost",
    made="made",
    removed="removed",
    mortal_resolved=("HP lost directly, no thresholds", "HP lost directly by one model, no thresholds"),
)
"""The system's own words for what reports tell (Attacks & Damage)."""

REROLL: dict[str, Reroll] = {
    "none": "none",
    "attack_roll": "failures",
    "focus": "failures",
    "panic": "failures",
    "ones": "ones",
}
REROLL_WHEN: dict[str, list[RerollWhen]] = {
    "miss": ["fail"],
    "panic_higher": ["second_higher"],
    "focus_higher": ["first_higher"],
    # Any roll but a Critical Hit, which the core never re-rolls this way.
    "always": ["fail", "success"],
}


def _side(unit: Unit, target: Unit | None = None) -> Target:
    """A unit as one health pool of its models, with the target's thresholds.

    Damage reduction may take Damage to 0 (the text gives no floor, and Damage below the
    Minor Threshold loses nothing); Direct Damage is mortal wounds, never reduced."""
    group = Group(
        name=unit.name,
        models=unit.models,
        wounds=unit.hp_per_model,
        thresholds=thresholds(target.minor, target.major) if target else [],
        damage_reduction=unit.damage_reduction,
        reduction_floor=0,
        wounds_lost=unit.hp_lost,
    )
    return Target(groups=[group], order=[0])


def _resolve(
    spec_text: str, keywords: KeywordTable, scenario: Scenario, field: str
) -> tuple[KeywordSpec, dict[str, object]]:
    kind = next((p for p in (INFLICT_PREFIX, POWER_PREFIX, SHOCK_PREFIX) if spec_text.startswith(p)), "")
    names = [n for n in keywords.names() if (kind and n.startswith(kind)) or (not kind and not _prefixed(n))]
    what = {
        INFLICT_PREFIX: "an Inflict effect",
        POWER_PREFIX: "a power's effect",
        SHOCK_PREFIX: "a Battle Shock effect",
    }.get(kind, "a keyword of ruleset 'skilldice'")
    hint = " (pip install mathhammer-inflict)" if kind == INFLICT_PREFIX and not names else ""
    return keywords.lookup(
        spec_text.removeprefix(kind),
        source=scenario.source,
        field=field,
        prefix=kind,
        known=names,
        what=what,
        known_as="",
        hint=hint,
    )


def _prefixed(name: str) -> bool:
    return name.startswith((INFLICT_PREFIX, POWER_PREFIX, SHOCK_PREFIX))


def _advantage_dice(
    weapon: Weapon, versions: Mapping[str, str], granted: str | None, shaken: str | None
) -> list[RollDie]:
    """The Advantage d6 (added) and the Disadvantage d6 (subtracted) of an Attack Roll.

    Either is a state (it does not stack with itself); each comes from the weapon or from
    a mark set this round (``granted`` by a power, ``shaken`` by Battle Shock). A roll
    with both rolls both, or, under ``advantage_with_disadvantage = "cancel"``, neither:
    each die is then rolled only while the other's condition does not hold.
    """
    # Only a re-rolled Attack Roll may re-roll the d6 (natural 1s and a named die name Skill Dice alone).
    rerolled = versions["advantage_die"] == "rerolled" and weapon.reroll == "attack_roll"
    cancel = versions["advantage_with_disadvantage"] == "cancel"
    dice = []
    # (always, mark, subtract) for Advantage, then Disadvantage.
    sides = [(weapon.advantage, granted, False), (weapon.disadvantage, shaken, True)]
    for (always, mark, subtract), (other_always, other_mark, _) in zip(sides, sides[::-1], strict=True):
        if not (always or mark is not None) or (cancel and other_always):
            continue
        dice.append(
            RollDie(
                ADVANTAGE,
                subtract=subtract,
                rerolled=rerolled,
                when=None if always else mark,
                unless=other_mark if cancel else None,
                label="Disadvantage" if subtract else "Advantage",
            )
        )
    return dice


def _attack_roll(
    weapon: Weapon,
    target: Unit,
    versions: Mapping[str, str],
    prefix: str,
    granted: str | None = None,
    shaken: str | None = None,
) -> Test:
    """The Attack Roll. ``granted`` names the mark of a power granting Advantage this round,
    ``shaken`` that of a Battle Shock giving Disadvantage."""
    # A re-roll naming one Skill Die re-rolls that die alone.
    dice = [
        RollDie(SKILL_DIE, rerolled=weapon.reroll != "panic", label="Focus"),
        RollDie(SKILL_DIE, rerolled=weapon.reroll != "focus", label="Panic"),
        *_advantage_dice(weapon, versions, granted, shaken),
    ]
    when = sorted({w for name in weapon.reroll_when for w in REROLL_WHEN[name]})
    return Test(
        name="Attack Roll",
        target=target.dc,
        modifiers=[weapon.skill] if weapon.skill else [],
        dice=dice,
        compare=Compare((0, 1), equal_is_critical=True),
        critical_requires_success=versions["critical_hits"] == "needs_total",
        reroll=REROLL[weapon.reroll],
        reroll_when=when,
        counter=prefix + "hits",
        effects=[
            Effect(on="critical", action="count", counter=prefix + "critical_hits"),
            _critical_damage(weapon),
        ],
    )


def _critical_damage(weapon: Weapon) -> Effect:
    """A Critical Hit deals the largest Damage instead of rolling it, unless a rule says
    otherwise: rolled as usual, or other Damage."""
    if weapon.critical_damage == "maximum":
        return Effect(on="critical", action="unsaved", maximize=True)
    if weapon.critical_damage == "rolled":
        return Effect(on="critical", action="unsaved")
    return Effect(on="critical", action="unsaved", damage=weapon.critical_damage)


def _pool(index: int, weapon: Weapon, scenario: Scenario, keywords: KeywordTable, rules: AttackRules) -> None:
    side = "target" if rules.prefix else "attacker"
    field = f"{side}.weapons[{index}]"
    listed = [(j, text) for j, written in enumerate(weapon.keywords) for text in split_keywords(written)]
    for j, text in listed:
        spec, params = _resolve(text, keywords, scenario, f"{field}.keywords[{j}]")
        if _prefixed(spec.name):
            where = "inflict" if spec.name.startswith(INFLICT_PREFIX) else "a power's power field"
            raise ScenarioError(
                f"{text!r} is {spec.name.split()[0].lower()} effect: name it in {where}, not keywords",
                source=scenario.source,
                field=f"{field}.keywords[{j}]",
            )
        _apply(keywords, spec, params, rules, f"{field}.keywords[{j}]")
    several = not isinstance(weapon.inflict, str)
    for j, effect in enumerate(weapon.inflicts):
        where = f"{field}.inflict[{j}]" if several else f"{field}.inflict"
        spec, params = _resolve(INFLICT_PREFIX + effect, keywords, scenario, where)
        _apply(keywords, spec, params, rules, where)


def _apply(
    keywords: KeywordTable, spec: KeywordSpec, params: dict[str, object], rules: AttackRules, field: str
) -> None:
    rules.params = params
    keywords.apply(spec, rules, source=rules.scenario.source, field=field)


def _acts_on_focus(pool: AttackPool) -> bool:
    """Does something of the weapon's act when Focus is higher than Panic (an Inflict effect,
    or a keyword acting on Inflicts)?"""
    return any(e.class_ == FOCUS_HIGHER for t in pool.steps for e in t.effects)


def _count_inflicts(rules: AttackRules, pool: AttackPool) -> None:
    """Count Inflicts of a weapon that has one, whatever it does: the text gives the Inflict
    effect "if it has one", so a weapon without one has no Inflicts stage. The stage is
    listed after the side's Critical Hits, where the system tells of it."""
    if not _acts_on_focus(pool):
        return
    name = rules.prefix + "inflicts"
    if name not in rules.counters:
        rules.counters.insert(rules.counters.index(rules.prefix + "critical_hits") + 1, name)
        rules.labels[name] = rules.label_prefix + LABELS["inflicts"]
    rules.on_inflict(Effect(on="success", action="count", counter=name))


def _acts_on_panic(pool: AttackPool) -> bool:
    """Does something of the weapon's act when Panic is higher than Focus (Hazardous)?"""
    return any(e.class_ == PANIC_HIGHER and e.action != "count" for t in pool.steps for e in t.effects)


def _count_hazardous(rules: AttackRules, pool: AttackPool) -> None:
    """Count Hazardous rolls (Panic higher than Focus) of a weapon they do something to:
    a weapon without Hazardous has no Hazardous stage."""
    if _acts_on_panic(pool):
        rules.add_counter("hazardous", LABELS["hazardous"])
        rules.on_panic(Effect(on="success", action="count", counter=rules.prefix + "hazardous"))


def _strikes(
    index: int,
    weapon: Weapon,
    defender: Unit,
    scenario: Scenario,
    keywords: KeywordTable,
    rules: AttackRules,
    against: Literal["target", "attacker"],
    marks: list[str],
    shock: BattleShockRules | None,
) -> AttackPool:
    """One side's attacks with one weapon: a pool, its keywords and Inflict effect applied."""
    prefix = rules.prefix
    for name in COUNTERS:
        if name not in ("inflicts", "hazardous"):
            rules.add_counter(name, LABELS[name])
    pool = AttackPool(
        name=weapon.name,
        attacks=[_attacks(index, weapon, scenario, rules.prefix)],
        attacks_counter=prefix + "attacks",
        steps=[],
        save=Save(rolled=False),
        damage=weapon.damage,
        excess="group",
        top_threshold_counter=prefix + "battle_shock",
        against=against,
    )
    # A power of this side granting Advantage (compiled before the strikes) set its mark;
    # a Battle Shock effect making units shaken set theirs.
    side = "target" if prefix else "attacker"
    granted, shaken = advantage_mark(side), shaken_mark(side)
    roll = _attack_roll(
        weapon,
        defender,
        rules.versions,
        prefix,
        granted if granted in marks else None,
        shaken if shaken in marks else None,
    )
    pool.steps = [roll]
    pool.top_threshold = _shock_consequence(shock, "attacker" if side == "target" else "target")
    rules.pool, rules.attack_roll, rules.weapon = pool, roll, weapon
    _pool(index, weapon, scenario, keywords, rules)
    _count_inflicts(rules, pool)
    _count_hazardous(rules, pool)
    return pool


def _attacks(index: int, weapon: Weapon, scenario: Scenario, prefix: str) -> Attacks:
    """A weapon's Attack Rolls: ``attacks`` by each of its models, or, collective, by them together.

    In a fight only the survivors attack, and the unit's models fall in an order the
    rules leave open; here casters fall last (in the order their powers are listed, the
    first last of all), then the models of the weapons listed first, so the last listed
    weapon loses its models first. An additional weapon is carried by the non-casters
    that fall last.
    """
    weapons = scenario.target_weapons if prefix else scenario.weapons
    powers = len(scenario.target_powers if prefix else scenario.powers)
    # Models that fall after this weapon's: the casters and the weapons listed before it.
    reserve = powers if weapon.additional else powers + sum(w.models for w in weapons[:index] if not w.additional)
    return Attacks(
        models=1 if weapon.collective else weapon.models,
        dice=weapon.attacks,
        alive_of=0 if scenario.fight else None,
        reserve=reserve if scenario.fight else 0,
    )


def _powers(
    powers: tuple[Power, ...],
    side: str,
    scenario: Scenario,
    keywords: KeywordTable,
    rules: AttackRules,
    marks: list[str],
    shock: BattleShockRules | None,
) -> list[AttackPool | Heal | Mark]:
    """Each power a model of the side attempts (instead of its attack): what it does when manifested."""
    sequences: list[AttackPool | Heal | Mark] = []
    for i, power in enumerate(powers):
        field = f"{side}.powers[{i}].power"
        spec, params = _resolve(POWER_PREFIX + power.power, keywords, scenario, field)
        if not spec.name.startswith(POWER_PREFIX):
            raise ScenarioError(f"{power.power!r} is not a power's effect", source=scenario.source, field=field)
        manifested = rules.add_counter("powers_manifested", "Powers manifested")
        power_rules = PowerRules(
            power=power,
            params=params,
            side=side,
            fight=scenario.fight is not None,
            manifested=manifested,
            versions=rules.versions,
            rank=i,
        )
        keywords.apply(spec, power_rules, source=scenario.source, field=field)
        for seq in power_rules.sequences:
            if isinstance(seq, AttackPool):
                seq.attacks_counter = rules.add_counter("power_attempts", "Power attempts")
                # A power's damage meets the thresholds like an attack's.
                seq.top_threshold_counter = rules.add_counter("battle_shock", LABELS["battle_shock"])
                seq.top_threshold = _shock_consequence(shock, "attacker" if side == "target" else "target")
            elif isinstance(seq, Heal):
                seq.counter = rules.add_counter("hp_healed", "HP restored")
            else:
                seq.counter = rules.add_counter("advantage_granted", "Advantage granted")
        sequences += power_rules.sequences
        for mark in power_rules.marks:
            if mark not in marks:
                marks.append(mark)
    return sequences


def _shock_consequence(shock: BattleShockRules | None, defender: str) -> TopThreshold | None:
    """What a Battle Shock test does to ``defender``, as the scenario's chosen effect says."""
    if shock is None or not (shock.lose or shock.shaken):
        return None
    return TopThreshold(
        mark=shaken_mark(defender) if shock.shaken else None,
        mortal=shock.lose,
        check=Check(die=12, target=shock.test) if shock.test is not None else None,
    )


def _battle_shock(scenario: Scenario, keywords: KeywordTable) -> BattleShockRules | None:
    """The scenario's chosen Battle Shock effect, if any (the rules give the test none)."""
    if scenario.battle_shock is None:
        return None
    spec, params = _resolve(SHOCK_PREFIX + scenario.battle_shock, keywords, scenario, "battle_shock")
    if not spec.name.startswith(SHOCK_PREFIX):
        raise ScenarioError(
            f"{scenario.battle_shock!r} is not a Battle Shock effect", source=scenario.source, field="battle_shock"
        )
    shock = BattleShockRules(params=params)
    keywords.apply(spec, shock, source=scenario.source, field="battle_shock")
    return shock


def _chances(prefix: str, label: str, defender: str, pools: list[AttackPool]) -> list[Chance]:
    """Per attack P(hit), P(Critical Hit), and P(Inflict) or P(Hazardous) when every weapon of
    the side has an Inflict effect or Hazardous (else "per attack" would count attacks that
    cannot Inflict or be Hazardous); P(at least one Battle Shock test)."""
    per = prefix + "attacks"
    inflict = bool(pools) and all(_acts_on_focus(p) for p in pools)
    hazardous = bool(pools) and all(_acts_on_panic(p) for p in pools)
    return [
        Chance(f"{label}P(hit) per attack", prefix + "hits", per=per),
        Chance(f"{label}P(Critical Hit) per attack", prefix + "critical_hits", per=per),
        *([Chance(f"{label}P(Inflict) per attack", prefix + "inflicts", per=per)] if inflict else []),
        *(
            [Chance(f"{label}P(Panic > Focus: Hazardous) per attack", prefix + "hazardous", per=per)]
            if hazardous
            else []
        ),
        Chance(f"P(Battle Shock test for {defender})", prefix + "battle_shock", at_least=1),
    ]


def _harms_the_attacker(sequences: list[AttackPool | Heal | Mark]) -> bool:
    """Can the attacking unit lose HP in a single attack: does an effect strike it (Hazardous)?"""
    pools = [s for s in sequences if isinstance(s, AttackPool)]
    return any(e.against == "attacker" for pool in pools for test in pool.steps for e in test.effects)


def compile_scenario(scenario: Scenario, keywords: KeywordTable) -> Compiled:
    """The Plan for a loaded scenario, its keywords and Inflict effects applied."""
    check_choice(VersionChoice(rules=scenario.rules), RULES, (), source=scenario.source)
    versions = {name: VersionChoice(rules=scenario.rules).resolve(rule) for name, rule in RULES.items()}
    counters: list[str] = []
    labels = {k: v for k, v in LABELS.items() if k not in COUNTERS}
    fight = scenario.fight
    attacker, target = scenario.attacker, scenario.target
    plan = Plan(
        counters=counters,
        target=_side(target, target),
        attacker=_side(attacker, attacker if fight else None),
    )

    def rules_for(prefix: str, label_prefix: str) -> AttackRules:
        weapon = scenario.weapons[0]
        return AttackRules(
            weapon=weapon,
            scenario=scenario,
            pool=AttackPool(name="", attacks=[], steps=[], save=Save(), damage="1"),
            attack_roll=Test(name=""),
            versions=versions,
            counters=counters,
            labels=labels,
            prefix=prefix,
            label_prefix=label_prefix,
        )

    shock = _battle_shock(scenario, keywords)
    if shock is not None and shock.shaken:
        plan.marks += [shaken_mark("attacker"), shaken_mark("target")]
    mine = rules_for("", f"{attacker.name}: " if fight else "")
    powers = _powers(scenario.powers, "attacker", scenario, keywords, mine, plan.marks, shock)
    strikes: list[AttackPool | Heal | Mark] = [
        *powers,
        *(
            _strikes(i, w, target, scenario, keywords, mine, "target", plan.marks, shock)
            for i, w in enumerate(scenario.weapons)
        ),
    ]
    weapons = [s for s in strikes if isinstance(s, AttackPool) and s.against == "target"]
    hidden: list[str] = []
    chances = _chances("", f"{attacker.name}: " if fight else "", target.name, weapons)
    distributions = ["attacker_damage"]
    if fight is not None:
        theirs = rules_for("return_", f"{target.name}: ")
        their_powers = _powers(scenario.target_powers, "target", scenario, keywords, theirs, plan.marks, shock)
        powers += their_powers
        back: list[AttackPool | Heal | Mark] = [
            *their_powers,
            *(
                _strikes(i, w, attacker, scenario, keywords, theirs, "attacker", plan.marks, shock)
                for i, w in enumerate(scenario.target_weapons)
            ),
        ]
        plan.sequences = [*strikes, *back] if fight.first == "attacker" else [*back, *strikes]
        counters += ["rounds", "outcome"]
        labels.update(
            rounds="Rounds fought",
            outcome="How the fight ended",
            damage=f"{target.name}: HP lost",
            models_destroyed=f"{target.name}: models removed",
            attacker_damage=f"{attacker.name}: HP lost",
            attacker_models_destroyed=f"{attacker.name}: models removed",
        )
        plan.rounds = Rounds(max=fight.rounds, counter="rounds", outcome_counter="outcome")
        chances = [
            Chance(f"P({attacker.name} wins)", "outcome", exactly=1, outcome=True),
            Chance(f"P({target.name} wins)", "outcome", exactly=2, outcome=True),
            Chance(f"P(both stand after {fight.rounds} rounds)", "outcome", exactly=0, outcome=True),
            Chance("P(both destroyed)", "outcome", exactly=3, outcome=True),
            *chances,
            *_chances(
                "return_",
                f"{target.name}: ",
                attacker.name,
                [s for s in back if isinstance(s, AttackPool) and s.against == "attacker"],
            ),
        ]
        distributions = ["rounds", "attacker_damage"]
    else:
        plan.sequences = list(strikes)
        if not _harms_the_attacker(strikes):
            # No Hazardous (nor a third party's harm to the attacker): no line for what cannot happen.
            distributions = []
            hidden = ["attacker_damage", "attacker_models_destroyed"]
    return Compiled(
        plan=plan,
        rule_versions=versions,
        rule_descriptions=describe(RULES, {name: [version] for name, version in versions.items()}),
        attacker=attacker.name,
        target=target.name,
        stage_labels=labels,
        chances=chances,
        distributions=distributions,
        hidden=["outcome"] if fight is not None else hidden,
        vocabulary=VOCABULARY,
        kinds={i: "Psychic Power" for i, seq in enumerate(plan.sequences) if any(seq is p for p in powers)},
    )
