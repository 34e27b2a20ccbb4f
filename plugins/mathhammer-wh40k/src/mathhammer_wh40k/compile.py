"""Compiling a 40k scenario into a Plan.

The mapping, rule by rule (section names from the specification):

- Gather attack dice: weapons whose attacks are identical (same type, BS/WS,
  S, AP, D, keywords, rule versions and modifiers) pool their dice, whatever
  their A; pools resolve in the order the attacker first lists them.
- Hit roll: unmodified 1 fails, unmodified 6 is a critical hit, else the roll
  plus modifiers (summed, capped to +/-1) must reach BS/WS. A weapon that
  automatically hits rolls nothing and scores no critical hits.
- Wound roll: the S-vs-T table, unmodified 1 fails, unmodified 6 is a critical
  wound, modifiers capped to +/-1.
- Saves: rolled together, lowest first, through the allocation groups in the
  declared order; AP modifies Sv, InSv is unmodified, a 1 always fails. With
  ``Allocation = "10e"`` (or ``edition = "10e"``) each attack is allocated and
  saved in turn instead: a wounded model first, then ``allocation_order``,
  each model with its own Sv/InSv.
- Damage: the D characteristic, rolled per unsaved attack; excess is lost;
  a model's damage reduction and halving apply (halve, subtract, never below 1).
- Mortal wounds "in addition to the normal damage" (weapon field
  ``mortal_wounds``): every attack that wounds queues them; they are inflicted
  after the pool's normal damage, even if that damage was saved.
- Mortal wounds: one at a time, 1 damage each, spilling over, in the 11th
  edition order (wounded non-CHARACTER, non-CHARACTER, wounded CHARACTER,
  CHARACTER); abilities' mortal wounds resolve before the weapons.
- Keywords: each pool calls its keywords' ``apply`` with a
  :class:`~mathhammer_wh40k.keyword_api.WeaponRules`, in the order listed.
  A keyword written ``Name: KEYWORD`` applies only against a target with
  that keyword (``[LETHAL HITS: VEHICLE]``). One string may list several,
  separated by commas (``"[ASSAULT, HEAVY]"``). A keyword that changes
  nothing here (One Shot; Melta out of half range; ``[LETHAL HITS: VEHICLE]``
  against INFANTRY) is listed in the Result under "No effect on this
  calculation", with its reason.
- A weapon that hits automatically (``auto_hit`` or Torrent) needs no BS/WS.
- After Advancing (``[context] advanced``) only Assault weapons shoot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from mathhammer.plugin import (
    AttackPool,
    Attacks,
    Compiled,
    Effect,
    Group,
    KeywordSpec,
    KeywordTable,
    MortalWounds,
    NoEffect,
    Plan,
    Reroll,
    Rule,
    Save,
    ScenarioError,
    Target,
    Test,
    check_choice,
    describe,
    parse_dice,
    split_keywords,
    split_restriction,
)
from mathhammer_wh40k.check import check_scenario
from mathhammer_wh40k.keyword_api import WeaponRules
from mathhammer_wh40k.keywords.psychic import RULE as PSYCHIC
from mathhammer_wh40k.model import DamageReroll, ModelProfile, Scenario, Weapon
from mathhammer_wh40k.rules import (
    HIT_MODIFIER_CAP,
    WOUND_MODIFIER_CAP,
    AllocationGroup,
    allocation_order,
    create_groups,
    wound_target,
)

COUNTERS = ["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"]
LABELS = {
    "attacks": "Attacks",
    "hits": "Hits",
    "wounds": "Wounds",
    "failed_saves": "Failed saves",
    "mortal_wounds": "Mortal wounds",
    "damage": "Damage dealt",
    "models_destroyed": "Models destroyed",
    "attacker_mortal_wounds": "Attacker mortal wounds",
    "attacker_damage": "Attacker damage",
    "attacker_models_destroyed": "Attacker destroyed",
}
RULE_VERSIONS = {
    "attack_sequence": "11e",
    "hit_modifier_cap": "+/-1",
    "mortal_wounds": "spill",
}
"""The ruleset's rules that have one version, always reported."""
RULE_DESCRIPTIONS = {
    "attack_sequence": "specification (11th-edition text): hit, wound, then saves through the allocation groups "
    "in their order, then damage; excess damage of an attack is lost",
    "hit_modifier_cap": "specification: a hit roll is never modified by more than -1 or +1 (11th edition caps wound "
    "rolls the same way)",
    "mortal_wounds": "specification: one at a time, 1 damage each, spilling over to the next model, after the "
    "pool's normal damage; 11th edition's order (a wounded non-CHARACTER first)",
}
MORTAL_WOUNDS_IN_TURN = (
    "specification: one at a time, 1 damage each, spilling over to the next model, after the pool's normal damage; "
    "allocated like an attack (10th edition): a wounded model first, then allocation_order"
)
"""What mortal wounds do when attacks are allocated one at a time (``Allocation = "10e"``)."""
EDITIONS = ("10e", "11e")
"""Edition presets a scenario may name in ``[rules] edition``."""

COVER = Rule(
    "Cover",
    versions={
        "11e": "11th edition: ranged attacks against a target in cover worsen BS by one step, outside the +/-1 hit cap",
        "11e-modifier": "11th edition, another calculator's reading: cover is a -1 hit modifier, inside the +/-1 cap",
        "10e": "10th edition: +1 to the armour save against ranged attacks, not for Sv 3+ or better against AP 0; "
        "a save is never improved by more than 1",
    },
    default="11e",
    editions={"10e": "10e", "11e": "11e"},
)
STEALTH = Rule(
    "Stealth",
    versions={
        "11e": "11th edition: a target with Stealth has the Benefit of Cover against ranged attacks",
        "10e": "10th edition: ranged attacks against a target whose models all have Stealth get -1 to hit",
    },
    default="11e",
    editions={"10e": "10e", "11e": "11e"},
)
ALLOCATION = Rule(
    "Allocation",
    versions={
        "11e": "specification (11th-edition text): the wounds of a pool are saved together, lowest roll first, "
        "through the allocation groups in the declared order",
        "10e": "10th edition, the order among models this project's reading: attacks are allocated one at a time, "
        "each to a model already wounded if there is one, else in allocation_order, and saved with that model's "
        "own Sv/InSv before the next",
    },
    default="11e",
    editions={"10e": "10e", "11e": "11e"},
)
RULESET_RULES = {rule.name: rule for rule in (COVER, STEALTH, PSYCHIC, ALLOCATION)}
"""The ruleset's own rules with versions (keywords bring theirs)."""

REROLL_BREADTH: tuple[Reroll, ...] = ("none", "ones", "failures", "non_critical")
"""Re-roll policies from narrowest to broadest: each re-rolls everything the previous one does."""

Resolved = list[tuple[KeywordSpec, Mapping[str, Any], str]]
"""A weapon's keywords that apply: each spec, its parameters and the spelling the scenario used."""


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
        tuple(sorted(w.rules.items())),
        w.modifiers,
    )


def _resolve_keywords(
    scenario: Scenario, keywords: KeywordTable
) -> tuple[dict[int, Resolved], dict[int, list[NoEffect]]]:
    """Each weapon's keywords that apply to this target, resolved, and those that do not, with the reason.

    An unknown spelling is an error listing the known ones. One string may
    list several keywords separated by commas. ``Name: KEYWORD`` applies only
    when the target has KEYWORD; otherwise it is reported as having no effect.
    The same ability listed twice with the same parameters applies once:
    abilities do not stack.
    """
    target_keywords = {k.casefold() for k in scenario.target.keywords}
    resolved: dict[int, Resolved] = {}
    idle: dict[int, list[NoEffect]] = {}
    for i, w in enumerate(scenario.attacker.weapons):
        found = resolved.setdefault(i, [])
        for j, listed in enumerate(w.keywords):
            field = f"attacker.weapons[{i}].keywords[{j}]"
            for text in split_keywords(listed):
                spelling, restriction = split_restriction(text)
                if restriction == "":  # "Lethal Hits: " restricts to nothing: a slip, not a rule
                    raise ScenarioError(
                        f"{text!r} names no target keyword after ':'; write {spelling + ': INFANTRY'!r}"
                        f" to apply it only against INFANTRY, or {spelling!r} to apply it always",
                        source=scenario.source,
                        field=field,
                    )
                spec, params = keywords.lookup(spelling, source=scenario.source, field=field)
                if restriction and restriction.casefold() not in target_keywords:
                    reason = f"applies only against {restriction.upper()}, and the target is not {restriction.upper()}"
                    idle.setdefault(i, []).append(NoEffect(text.strip(), reason))
                    continue
                same = [other_params for other, other_params, _ in found if other is spec]
                if params in same:
                    continue
                if same and not spec.repeatable:
                    raise ScenarioError(
                        f"{text!r} repeats {spec.name!r} with another value; the same ability from two "
                        "sources does not stack (11th edition 24.02): list only the one that applies",
                        source=scenario.source,
                        field=field,
                    )
                found.append((spec, params, text.strip()))
    return resolved, idle


def known_rules(keywords: KeywordTable) -> dict[str, Rule]:
    """Every rule with versions: the ruleset's own and the registered keywords'."""
    rules = dict(RULESET_RULES)
    rules.update({spec.rule.name: spec.rule for spec in keywords.specs.values() if spec.rule is not None})
    return rules


def _group(g: AllocationGroup) -> Group:
    p = g.profile
    return Group(
        name=g.name,
        models=g.models,
        wounds=p.wounds,
        tier=1 if g.character else 0,
        save=p.save,
        invulnerable=p.invulnerable,
        feel_no_pain=p.feel_no_pain,
        feel_no_pain_mortal=p.feel_no_pain_mortal,
        damage_divisor=2 if p.halve_damage else 1,
        damage_reduction=p.damage_reduction,
        points=g.points,
    )


def _side(
    models: tuple[ModelProfile, ...], order: tuple[str, ...], source: str | None
) -> tuple[Target, list[ModelProfile]]:
    """A side's groups and allocation order, and the model profile of each group."""
    from mathhammer_wh40k.model import Target as Unit

    unit = Unit("", toughness=1, models=models, allocation_order=order)
    groups = create_groups(unit, source)
    side = Target(
        groups=[_group(g) for g in groups],
        order=allocation_order(unit, groups, source),
        wounded_groups_first=True,
    )
    return side, [g.profile for g in groups]


def compile_scenario(scenario: Scenario, keywords: KeywordTable) -> Compiled:
    """Compile a scenario into a Plan; every error names the scenario's file and field."""
    check_scenario(scenario)
    source = scenario.source
    versioned = known_rules(keywords)
    check_choice(scenario.rules, versioned, EDITIONS, source=source)
    for i, w in enumerate(scenario.attacker.weapons):
        for name, chosen in w.rules.items():
            if name not in versioned:
                names = ", ".join(repr(n) for n in sorted(versioned))
                raise ScenarioError(
                    f"{name!r} is not a rule with versions; rules: {names}",
                    source=source,
                    field=f"attacker.weapons[{i}].rules.{name}",
                )
            versioned[name].check(chosen, source=source, field=f"attacker.weapons[{i}].rules.{name}")
    resolved, idle = _resolve_keywords(scenario, keywords)
    target, group_profile = _side(scenario.target.models, scenario.target.allocation_order, source)
    attacker = _side(scenario.attacker.models, (), source)[0] if scenario.attacker.models else None
    plan = Plan(counters=list(COUNTERS), target=target, attacker=attacker)
    _name_group_sources(plan, scenario)
    for i, ability in enumerate(scenario.attacker.mortal_wounds):
        plan.sources[f"sequences[{len(plan.sequences)}]"] = f"attacker.mortal_wounds[{i}].amount"
        plan.sequences.append(MortalWounds(ability.name, _dice(ability.amount), counter="mortal_wounds"))
    pools: dict[tuple[object, ...], list[int]] = {}
    for i, w in enumerate(scenario.attacker.weapons):
        pools.setdefault(_pool_key(w), []).append(i)
    versions = dict(RULE_VERSIONS)
    used: dict[str, list[str]] = {}

    printed_notes: dict[str, list[str]] = {}

    def version_of(rule: Rule, *, weapon: int, printed: str | None = None, spelling: str = "") -> str:
        """The version of ``rule`` the weapon follows: as the scenario chooses, else the one that prints
        the weapon's ``spelling`` (``printed``, when only one does), else the rule's default."""
        w = scenario.attacker.weapons[weapon]
        where = f"attacker.weapons[{weapon}]."
        chosen = scenario.rules.resolve(rule, weapon=w.rules, source=source, where=where)
        if printed is not None and chosen != printed:
            by = scenario.rules.chosen_by(rule, weapon=w.rules, where=where)
            if by is not None:
                field, value = by
                raise ScenarioError(
                    f"is {value!r}, which selects {rule.name} version {chosen!r}, and that version has no "
                    f"{spelling!r} (weapon {w.name!r}): only version {printed!r} prints it "
                    f"({rule.versions[printed]}). Write the ability as version {chosen!r} prints it, "
                    f"or choose {printed!r}",
                    source=source,
                    field=field,
                )
            chosen = printed
            note = (
                f"{w.name} prints {spelling!r}, which only version {printed!r} has "
                f"(the default, {rule.default!r}, applies to weapons that do not)"
            )
            if note not in printed_notes.setdefault(rule.name, []):
                printed_notes[rule.name].append(note)
        if chosen not in used.setdefault(rule.name, []):
            used[rule.name].append(chosen)
        return chosen

    after_attacks: list[MortalWounds] = []
    in_turn = False
    no_effect: list[NoEffect] = []
    described: dict[str, list[str]] = {}
    for members in pools.values():
        weapons = [scenario.attacker.weapons[i] for i in members]
        pool, hit, wound = _pool(weapons, scenario)
        described.setdefault(pool.name, []).extend(describe_modifiers(weapons[0], scenario))
        finalizers: list[Any] = []
        flags: set[str] = set()
        # Pooled weapons list the same keywords: report the pool's once, under its name.
        no_effect += [NoEffect(n.keyword, n.reason, pool.name) for n in idle.get(members[0], [])]
        for spec, params, spelling in resolved[members[0]]:
            version = None
            if spec.rule is not None:
                printed = spec.printed_in(params) if spec.printed_in is not None else None
                version = version_of(spec.rule, weapon=members[0], printed=printed, spelling=spelling)
            rules = WeaponRules(
                weapons=weapons,
                scenario=scenario,
                pool=pool,
                hit=hit,
                wound=wound,
                params=params,
                rule_versions=versions,
                version=version,
                context=scenario.context,
                after_attacks=after_attacks,
                finalizers=finalizers,
                target_groups=target.groups,
                flags=flags,
                counters=plan.counters,
                hooks=plan.hooks,
            )
            reason = keywords.apply(spec, rules, source=source, field=f"attacker.weapons[{members[0]}].keywords")
            if reason is not None:
                no_effect.append(NoEffect(spelling, reason, pool.name))
        for finish in finalizers:
            finish()
        if weapons[0].skill is None and not hit.automatic:
            what = "BS" if weapons[0].type == "ranged" else "WS"
            raise ScenarioError(
                f"is missing; give the weapon's {what}, unless it hits automatically (Torrent, or auto_hit = true)",
                source=source,
                field=f"attacker.weapons[{members[0]}].skill",
            )
        in_cover = _situation(pool, hit, weapons[0], scenario, flags, partial(version_of, weapon=members[0]), target)
        if "psychic" in flags:
            # A Psychic Attack: Feel No Pain against those ignores its damage and its mortal wounds.
            psychic_fnp = [group_profile[i].feel_no_pain_psychic for i in range(len(target.groups))]
            if any(v is not None for v in psychic_fnp):
                pool.feel_no_pain = psychic_fnp
                described.setdefault(pool.name, []).append(
                    "a Psychic Attack: the target's Feel No Pain against Psychic Attacks applies"
                )
        # 10th edition allocates and saves one attack at a time (a wounded model
        # first, as the core always does), not the whole pool lowest first.
        pool.save.in_turn = version_of(ALLOCATION, weapon=members[0]) == "10e"
        in_turn = in_turn or pool.save.in_turn
        no_effect += _idle_in_situation(resolved[members[0]], hit, in_cover, pool.name, no_effect)
        _name_pool_sources(plan, members)
        plan.sequences.append(pool)
    plan.sequences += after_attacks
    versions.update({rule: ", ".join(v) for rule, v in used.items()})
    return Compiled(
        plan=plan,
        rule_versions=versions,
        rule_descriptions={
            **RULE_DESCRIPTIONS,
            # The same models, in the same order: 10th edition allocates a mortal wound like an attack.
            **({"mortal_wounds": MORTAL_WOUNDS_IN_TURN} if in_turn else {}),
            **{
                rule: "; ".join([said, *(f"chosen as {n}" for n in printed_notes.get(rule, []))])
                for rule, said in describe(versioned, used).items()
            },
        },
        attacker=scenario.attacker.label(),
        target=scenario.target.name,
        stage_labels=dict(LABELS),
        no_effect=no_effect,
        modifiers={name: texts for name, texts in described.items() if texts},
    )


def _situation(
    pool: AttackPool,
    hit: Test,
    weapon: Weapon,
    scenario: Scenario,
    flags: set[str],
    version_of: Callable[[Rule], str],
    target: Target,
) -> bool:
    """The ruleset's own rules that read the situation, after the keywords:
    shooting while engaged, cover, Stealth, then Psychic's disregard of harmful
    hit modifiers (last, so it sees every other modifier). Returns whether the
    target would have the Benefit of Cover against the pool (before Ignores Cover)."""
    ranged = weapon.type == "ranged"
    context = scenario.context
    attacker_keywords = {k.casefold() for k in scenario.attacker.keywords}
    if ranged and context.advanced and "assault" not in flags:
        raise ScenarioError(
            f"{weapon.name!r} is not an Assault weapon: a unit that Advanced shoots only with its Assault weapons; "
            "leave the others out, or set advanced = false",
            source=scenario.source,
            field="context.advanced",
        )
    if ranged and context.engaged and "pistol" not in flags:
        if not attacker_keywords & {"monster", "vehicle"}:
            raise ScenarioError(
                f"{weapon.name!r} is not a Pistol: only Pistol weapons can shoot at a unit within Engagement "
                "Range, unless the firing models are MONSTERS or VEHICLES",
                source=scenario.source,
                field="context.engaged",
            )
        hit.modifiers.append(-1)  # Big guns: -1 to hit when firing a non-Pistol weapon while engaged
    target_keywords = {k.casefold() for k in scenario.target.keywords}
    stealth = version_of(STEALTH) if ranged and "stealth" in target_keywords else None
    if stealth == "10e":
        hit.modifiers.append(-1)
    in_cover = ranged and (context.in_cover or "grants_cover" in flags or stealth == "11e")
    psychic = "psychic" in flags and version_of(PSYCHIC) == "11e"
    if in_cover and "ignores_cover" not in flags:
        cover = version_of(COVER)
        if cover == "11e" and not hit.automatic and not psychic:
            hit.target = min(6, hit.target + 1)
        elif cover == "11e-modifier":
            hit.modifiers.append(-1)
        elif cover == "10e":
            pool.save.group_modifiers = [
                0 if (g.save is not None and g.save <= 3 and pool.save.ap == 0) else 1 for g in target.groups
            ]
            pool.save.modifier_max = 1
    if "no_hit_rerolls" in flags:
        hit.reroll = "none"
    if weapon.mortal_wounds is not None:
        # "Each attack that wounds": a critical hit that skips the wound roll
        # (Lethal Hits) wounds too, so it inflicts them as well.
        for e in list(hit.effects):
            if e.action == "skip" and not any(x.action == "mortal" and x.on == e.on for x in hit.effects):
                hit.effects.append(
                    Effect(on=e.on, action="mortal", amount=_dice(weapon.mortal_wounds), spill=True, ends_attack=False)
                )
    if psychic:
        hit.modifiers = [m for m in hit.modifiers if m > 0]
    return in_cover


CRITICAL_HIT_KEYWORDS = frozenset({"Sustained Hits", "Lethal Hits", "Conversion"})
"""Abilities that act only on critical hits, which a weapon hitting automatically never scores."""


def _idle_in_situation(
    keywords: Resolved, hit: Test, in_cover: bool, where: str, reported: list[NoEffect]
) -> list[NoEffect]:
    """Abilities that changed nothing once every rule has applied, with the reason (unless already reported):
    critical-hit abilities on a weapon that hits automatically, Ignores Cover with no cover to ignore."""
    seen = {(n.keyword, n.where) for n in reported}
    idle = []
    for spec, _, spelling in keywords:
        if (spelling, where) in seen:
            continue
        if spec.name in CRITICAL_HIT_KEYWORDS and hit.automatic:
            idle.append(NoEffect(spelling, "the weapon hits automatically, so it scores no critical hits", where))
        elif spec.name == "Ignores Cover" and not in_cover:
            reason = "the target has no Benefit of Cover here (context.in_cover, Stealth or Indirect Fire)"
            idle.append(NoEffect(spelling, reason, where))
    return idle


def _dice(value: str | int) -> str:
    """The canonical spelling of a (checked) dice expression."""
    return str(parse_dice(str(value)))


def _broadest(*policies: Reroll) -> Reroll:
    """The broadest re-roll policy of those given (each includes the narrower ones)."""
    return max(policies, key=REROLL_BREADTH.index)


def _name_pool_sources(plan: Plan, members: list[int]) -> None:
    """Map the next pool's Plan fields to the weapons it pools, so the core's errors name them."""
    at = f"sequences[{len(plan.sequences)}]"
    first = f"attacker.weapons[{members[0]}]"
    plan.sources[at] = first if len(members) == 1 else "attacker.weapons"
    plan.sources[f"{at}.attacks"] = f"{first}.attacks" if len(members) == 1 else "attacker.weapons"
    plan.sources[f"{at}.damage"] = f"{first}.damage"
    for k, i in enumerate(members):
        plan.sources[f"{at}.attacks[{k}].dice"] = f"attacker.weapons[{i}].attacks"
        plan.sources[f"{at}.attacks[{k}].models"] = f"attacker.weapons[{i}].count"


def _name_group_sources(plan: Plan, scenario: Scenario) -> None:
    """Map each side's groups to the model profiles they hold, so the core's errors name them."""
    for side, unit, models in (
        ("target", plan.target, scenario.target.models),
        ("attacker", plan.attacker, scenario.attacker.models),
    ):
        if unit is None:
            continue
        where = f"{side}.models" if side == "target" else "attacker.models"
        plan.sources[f"{side}.groups"] = where
        for gi, group in enumerate(unit.groups):
            j = next((j for j, m in enumerate(models) if m.name == group.name), None)
            if j is not None:
                plan.sources[f"{side}.groups[{gi}]"] = f"{where}[{j}]"
                plan.sources[f"{side}.groups[{gi}].models"] = f"{where}[{j}].count"
                plan.sources[f"{side}.groups[{gi}].wounds"] = f"{where}[{j}].wounds"


def modified_strength(w: Weapon, scenario: Scenario) -> int:
    """The attack's S after its modifiers: multiplied, then added to, never below 1."""
    mods, common = w.modifiers, scenario.modifiers
    return max(1, w.strength * mods.strength_multiplier * common.strength_multiplier + mods.strength + common.strength)


def modified_ap(w: Weapon, scenario: Scenario) -> int:
    """The attack's AP after its modifiers (negative improves it), never above 0."""
    return min(0, w.ap + w.modifiers.ap + scenario.modifiers.ap)


def _wound_target(w: Weapon, strength: int, scenario: Scenario) -> int:
    """The wound roll needed: a fixed roll against its keyword (the better of the weapon's and the
    scenario's that apply), else S against T."""
    target_keywords = {k.casefold() for k in scenario.target.keywords}
    fixed = [
        m.wounds_on
        for m in (w.modifiers, scenario.modifiers)
        if m.wounds_on is not None
        and (m.wounds_on_keyword is None or m.wounds_on_keyword.casefold() in target_keywords)
    ]
    return min(fixed) if fixed else wound_target(strength, scenario.target.toughness)


def _pool(weapons: list[Weapon], scenario: Scenario) -> tuple[AttackPool, Test, Test]:
    w = weapons[0]
    mods = w.modifiers
    common = scenario.modifiers
    if w.auto_hit:
        hit = Test(name="hit", automatic=True, counter="hits")
    else:
        # Without a skill the weapon must hit automatically (Torrent): the
        # compiler refuses it once its keywords have applied, if it does not.
        hit = Test(
            name="hit",
            target=w.skill if w.skill is not None else 6,
            modifiers=[mods.hit, common.hit],
            modifier_min=-HIT_MODIFIER_CAP,
            modifier_max=HIT_MODIFIER_CAP,
            natural_fail=1,
            critical=min(mods.critical_hit, common.critical_hit),
            reroll=_broadest(mods.reroll_hits, common.reroll_hits),
            reroll_one=mods.reroll_one_hit,
            counter="hits",
        )
    strength = modified_strength(w, scenario)
    wound_modifiers = [mods.wound, common.wound]
    if (mods.minus_one_to_wound_if_s_above_t or common.minus_one_to_wound_if_s_above_t) and (
        strength > scenario.target.toughness
    ):
        wound_modifiers.append(-1)
    wound = Test(
        name="wound",
        target=_wound_target(w, strength, scenario),
        modifiers=wound_modifiers,
        modifier_min=-WOUND_MODIFIER_CAP,
        modifier_max=WOUND_MODIFIER_CAP,
        natural_fail=1,
        critical=min(mods.critical_wound, common.critical_wound),
        reroll=_broadest(mods.reroll_wounds, common.reroll_wounds),
        reroll_one=mods.reroll_one_wound,
        counter="wounds",
    )
    if w.mortal_wounds is not None:
        # "In addition to the normal damage": the token goes on to its save,
        # and the mortal wounds are inflicted after the pool's normal damage.
        wound.effects += [
            Effect(on=outcome, action="mortal", amount=_dice(w.mortal_wounds), spill=True, ends_attack=False)
            for outcome in ("success", "critical")
        ]
    saves = (mods.reroll_saves, common.reroll_saves)  # the broader applies: failures include ones
    damage_reroll = _damage_reroll(mods.reroll_damage, common.reroll_damage, scenario.source)
    pool = AttackPool(
        name=" + ".join(dict.fromkeys(x.name for x in weapons)),
        attacks=[_attacks(x, scenario) for x in weapons],
        attacks_counter="attacks",
        steps=[hit, wound],
        save=Save(
            ap=modified_ap(w, scenario),
            modifiers=[mods.save, common.save],
            natural_fail=1,
            counter="failed_saves",
            reroll="failures" if "failures" in saves else "ones" if "ones" in saves else "none",
        ),
        damage=_dice(w.damage),
        mortal_counter="mortal_wounds",
        damage_reroll=damage_reroll,
        damage_multiplier=mods.damage_multiplier * common.damage_multiplier,
        damage_bonus=mods.damage + common.damage,
        damage_minimum=1,  # D never drops below 1 (11th edition)
        damage_reroll_one=mods.reroll_one_damage and damage_reroll == "none",
    )
    return pool, hit, wound


def _attacks(w: Weapon, scenario: Scenario) -> Attacks:
    """One weapon's attack dice: each model's A plus the Attacks modifiers, never below 1."""
    bonus = w.modifiers.attacks + scenario.modifiers.attacks
    dice = _dice(w.attacks)
    low = parse_dice(dice).min + bonus
    return Attacks(models=w.count, dice=dice, bonus=bonus, minimum=1 if low < 1 else None)


def _damage_reroll(weapon: DamageReroll, common: DamageReroll, source: str | None) -> DamageReroll:
    """The damage re-roll of the weapon or the scenario; two different ones are refused, since
    neither includes the other (``ones`` re-rolls single dice, ``below_average`` the whole roll)."""
    if weapon != "none" and common != "none" and weapon != common:
        raise ScenarioError(
            f"is {common!r} and a weapon's is {weapon!r}; a damage roll is re-rolled once, so give only one",
            source=source,
            field="modifiers.reroll_damage",
        )
    return weapon if weapon != "none" else common


def describe_modifiers(w: Weapon, scenario: Scenario) -> list[str]:
    """The characteristic and roll modifiers in force for a weapon's attacks, in words (for narration)."""
    mods, common = w.modifiers, scenario.modifiers
    said: list[str] = []

    def changed(name: str, was: object, now: object, how: list[str]) -> None:
        said.append(f"{name} {was} → {name} {now} ({' '.join(h for h in how if h)})")

    def bonus(n: int) -> str:
        return f"{n:+d}" if n else ""

    multiplier = mods.strength_multiplier * common.strength_multiplier
    strength = modified_strength(w, scenario)
    if multiplier != 1 or mods.strength or common.strength:
        how = ["x2" if multiplier == 2 else "", bonus(mods.strength + common.strength)]
        changed("S", w.strength, strength, [" ".join(h for h in how if h) + "; at least 1"])
    if mods.ap or common.ap:
        changed("AP", w.ap, modified_ap(w, scenario), [bonus(mods.ap + common.ap) + "; never above AP 0"])
    if mods.attacks or common.attacks:
        said.append(f"A {w.attacks} {mods.attacks + common.attacks:+d} per model (at least 1)")
    multiplier = mods.damage_multiplier * common.damage_multiplier
    if multiplier != 1 or mods.damage or common.damage:
        how = ["x2" if multiplier == 2 else "", bonus(mods.damage + common.damage)]
        said.append(f"D {w.damage} {' '.join(h for h in how if h)} (multiply, then add; at least 1)")
    damage_reroll = _damage_reroll(mods.reroll_damage, common.reroll_damage, scenario.source)
    if damage_reroll == "ones":
        said.append("damage dice showing 1 are re-rolled")
    elif damage_reroll == "below_average":
        said.append("a damage roll below its average is re-rolled")
    saves = {mods.reroll_saves, common.reroll_saves}
    if "failures" in saves:
        said.append("the target re-rolls failed saves")
    elif "ones" in saves:
        said.append("the target re-rolls saves of 1")
    for roll, name in (("hit", "reroll_one_hit"), ("wound", "reroll_one_wound")):
        if getattr(mods, name):
            said.append(f"the unit re-rolls one {roll} roll: the first of this weapon's that fails")
    if mods.reroll_one_damage:
        if damage_reroll == "none":
            said.append("the unit re-rolls one damage roll: the first of this weapon's below its average")
        else:
            said.append("the unit's one damage re-roll adds nothing: every damage roll is re-rolled already")
    toughness = scenario.target.toughness
    if mods.minus_one_to_wound_if_s_above_t or common.minus_one_to_wound_if_s_above_t:
        if strength > toughness:
            said.append(f"-1 to wound: S {strength} is greater than T {toughness} (the target's ability)")
        else:
            said.append(f"no -1 to wound: S {strength} is not greater than T {toughness}")
    fixed = _wound_target(w, strength, scenario)
    if fixed != wound_target(strength, toughness):
        said.append(f"wounds on {fixed}+ instead of the S-against-T roll")
    for what, threshold in (
        ("hits", min(mods.critical_hit, common.critical_hit)),
        ("wounds", min(mods.critical_wound, common.critical_wound)),
    ):
        if threshold < 6:
            said.append(f"critical {what} on an unmodified {threshold}+")
    return said
