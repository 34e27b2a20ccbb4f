"""Checks on a 40k scenario, shared by files and Python objects.

A scenario built in Python skips the file loader, so everything the rules and
the core need is checked here: types, ranges, dice expressions, and the
limits the core enforces, reported against the scenario's own field names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from mathhammer.plugin import (
    MAX_ATTACKS,
    MAX_MODELS,
    MAX_VALUE,
    DiceError,
    DiceExpr,
    ScenarioError,
    VersionChoice,
    parse_dice,
)
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

MAX_CHARACTERISTIC = 30
REROLLS = ("none", "ones", "failures", "non_critical")
DAMAGE_REROLLS = ("none", "ones", "below_average")
SAVE_REROLLS = ("none", "ones", "failures")
ONE_DIE_REROLLS = ("reroll_one_hit", "reroll_one_wound", "reroll_one_damage")
"""Re-rolls of a single die, which the unit attaches to one weapon."""
MAX_BONUS = 100
"""The largest bonus or penalty to A or D a modifier may give."""


class _Checker:
    def __init__(self, source: str | None) -> None:
        self.source = source

    def fail(self, field: str, message: str) -> NoReturn:
        raise ScenarioError(message, source=self.source, field=field)

    def kind(self, field: str, value: Any, cls: type, what: str) -> None:
        if not isinstance(value, cls):
            self.fail(field, f"must be {what}, not {type(value).__name__} {value!r}")

    def items(self, field: str, value: Any, cls: type, what: str) -> Sequence[Any]:
        if isinstance(value, str) or not isinstance(value, (tuple, list)):
            self.fail(field, f"must be a list of {what}, not {type(value).__name__} {value!r}")
        for i, item in enumerate(value):
            self.kind(f"{field}[{i}]", item, cls, what)
        return value

    def integer(self, field: str, value: Any, low: int, high: int, what: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(field, f"is {value!r}; {what} must be a whole number from {low} to {high}")

    def roll(self, field: str, value: Any, *, optional: bool, what: str) -> None:
        if value is None and optional:
            return
        if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= 6:
            self.fail(field, f'is {value!r}; {what} must be a roll from 2+ to 6+ (written "3+")')

    def dice(self, field: str, value: Any, what: str) -> DiceExpr:
        """A dice expression whose lowest value is at least 1 (11th edition: A and D never drop below 1)."""
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            self.fail(field, f'must be a number or a dice expression such as "D6+1", not {value!r}')
        try:
            expr = parse_dice(str(value))
        except DiceError as exc:
            self.fail(field, str(exc))
        if expr.min < 1:
            self.fail(field, f"is {value!r}, which can be {expr.min}; {what} is at least 1")
        return expr

    def modifiers(self, base: str, m: Any) -> None:
        self.kind(base, m, Modifiers, "a Modifiers")
        for name in ("hit", "wound", "save"):
            self.integer(f"{base}.{name}", getattr(m, name), -6, 6, "a modifier")
        for name in ("reroll_hits", "reroll_wounds"):
            if getattr(m, name) not in REROLLS:
                self.fail(f"{base}.{name}", f"is {getattr(m, name)!r}; expected one of {', '.join(REROLLS)}")
        self.roll(f"{base}.critical_hit", m.critical_hit, optional=False, what="a critical hit threshold")
        self.roll(f"{base}.critical_wound", m.critical_wound, optional=False, what="a critical wound threshold")
        self.integer(f"{base}.ap", m.ap, -6, 6, "an AP modifier (-1 improves AP by one)")
        self.integer(f"{base}.strength", m.strength, -MAX_CHARACTERISTIC, MAX_CHARACTERISTIC, "a Strength modifier")
        self.integer(f"{base}.attacks", m.attacks, -MAX_BONUS, MAX_BONUS, "an Attacks modifier")
        self.integer(f"{base}.damage", m.damage, -MAX_BONUS, MAX_BONUS, "a Damage modifier")
        for name, what in (("strength_multiplier", "Strength"), ("damage_multiplier", "Damage")):
            value = getattr(m, name)
            if isinstance(value, bool) or value not in (1, 2):
                self.fail(
                    f"{base}.{name}",
                    f"is {value!r}; the rules only double {what}: write 2 to double it, or 1 (the default) to leave it",
                )
        for name, choices in (("reroll_damage", DAMAGE_REROLLS), ("reroll_saves", SAVE_REROLLS)):
            if getattr(m, name) not in choices:
                self.fail(f"{base}.{name}", f"is {getattr(m, name)!r}; expected one of {', '.join(choices)}")
        self.kind(f"{base}.minus_one_to_wound_if_s_above_t", m.minus_one_to_wound_if_s_above_t, bool, "true or false")
        self.roll(f"{base}.wounds_on", m.wounds_on, optional=True, what="a fixed wound roll")
        for name in ONE_DIE_REROLLS:
            self.kind(f"{base}.{name}", getattr(m, name), bool, "true or false")
        if m.reroll_one_damage and m.reroll_damage != "none":
            self.fail(
                f"{base}.reroll_one_damage",
                f"is true and reroll_damage is {m.reroll_damage!r}: a damage roll is re-rolled only once; give one",
            )
        if m.wounds_on_keyword is not None:
            self.kind(f"{base}.wounds_on_keyword", m.wounds_on_keyword, str, "a target keyword")
            if m.wounds_on is None:
                self.fail(
                    f"{base}.wounds_on_keyword", 'is set without wounds_on; give the roll, as in wounds_on = "2+"'
                )

    def names(self, field: str, value: Any) -> None:
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            self.fail(field, f"must map rule names to version names, not {value!r}")

    def model(self, base: str, m: Any) -> None:
        self.kind(base, m, ModelProfile, "a ModelProfile")
        self.kind(f"{base}.name", m.name, str, "text")
        self.integer(f"{base}.count", m.count, 1, MAX_MODELS, "a model count")
        self.integer(f"{base}.wounds", m.wounds, 1, MAX_VALUE, "W")
        self.roll(f"{base}.save", m.save, optional=True, what="Sv")
        self.roll(f"{base}.invulnerable", m.invulnerable, optional=True, what="InSv")
        self.roll(f"{base}.feel_no_pain", m.feel_no_pain, optional=True, what="Feel No Pain")
        self.roll(f"{base}.feel_no_pain_mortal", m.feel_no_pain_mortal, optional=True, what="Feel No Pain")
        self.roll(f"{base}.feel_no_pain_psychic", m.feel_no_pain_psychic, optional=True, what="Feel No Pain")
        self.kind(f"{base}.character", m.character, bool, "true or false")
        self.integer(f"{base}.damage_reduction", m.damage_reduction, 0, 1000, "a damage reduction")
        self.kind(f"{base}.halve_damage", m.halve_damage, bool, "true or false")

    def weapon(self, base: str, w: Any) -> int:
        """Check one weapon; return the most attack dice it can make."""
        self.kind(base, w, Weapon, "a Weapon")
        self.kind(f"{base}.name", w.name, str, "text")
        if w.type not in ("ranged", "melee"):
            self.fail(f"{base}.type", f"is {w.type!r}; expected 'ranged' or 'melee'")
        self.integer(f"{base}.count", w.count, 1, MAX_MODELS, "a model count")
        attacks = self.dice(f"{base}.attacks", w.attacks, "A")
        self.kind(f"{base}.auto_hit", w.auto_hit, bool, "true or false")
        # A missing skill is refused when compiling, unless the weapon hits
        # automatically (auto_hit, or a keyword such as Torrent).
        self.roll(f"{base}.skill", w.skill, optional=True, what="BS" if w.type == "ranged" else "WS")
        self.integer(f"{base}.strength", w.strength, 1, MAX_CHARACTERISTIC, "S")
        self.integer(f"{base}.ap", w.ap, -6, 0, "AP (written as 0 or negative, as in -1)")
        self.dice(f"{base}.damage", w.damage, "D")
        if w.mortal_wounds is not None:
            self.dice(f"{base}.mortal_wounds", w.mortal_wounds, "a number of mortal wounds")
        self.items(f"{base}.keywords", w.keywords, str, "keyword text")
        self.modifiers(f"{base}.modifiers", w.modifiers)
        self.names(f"{base}.rules", w.rules)
        return int(w.count) * int(attacks.max)


def check_scenario(s: Scenario, source: str | None = None) -> None:
    """Raise :class:`ScenarioError` for the first value the rules or the core do not allow."""
    c = _Checker(source if source is not None else getattr(s, "source", None))
    c.kind("scenario", s, Scenario, "a mathhammer_wh40k.Scenario")
    c.kind("attacker", s.attacker, Attacker, "an Attacker")
    c.kind("attacker.name", s.attacker.name, str, "text")
    c.kind("target", s.target, Target, "a Target")
    weapons = c.items("attacker.weapons", s.attacker.weapons, Weapon, "Weapon")
    abilities = c.items("attacker.mortal_wounds", s.attacker.mortal_wounds, MortalWoundsAbility, "MortalWoundsAbility")
    if not weapons and not abilities:
        c.fail("attacker.weapons", "is empty; list at least one weapon ([[attacker.weapons]])")
    attack_dice = sum(c.weapon(f"attacker.weapons[{i}]", w) for i, w in enumerate(weapons))
    if attack_dice > MAX_ATTACKS:
        c.fail(
            "attacker.weapons",
            f"can make up to {attack_dice} attacks at once; at most {MAX_ATTACKS} are allowed",
        )
    for i, a in enumerate(abilities):
        c.kind(f"attacker.mortal_wounds[{i}].name", a.name, str, "text")
        c.dice(f"attacker.mortal_wounds[{i}].amount", a.amount, "a number of mortal wounds")
    for i, m in enumerate(c.items("attacker.models", s.attacker.models, ModelProfile, "ModelProfile")):
        c.model(f"attacker.models[{i}]", m)
    c.items("attacker.keywords", s.attacker.keywords, str, "keyword text")
    c.kind("context", s.context, Context, "a Context")
    for name, value in vars(s.context).items():
        if name == "wounds_remaining":
            if value is not None:
                c.integer("context.wounds_remaining", value, 1, MAX_VALUE, "wounds remaining")
        else:
            c.kind(f"context.{name}", value, bool, "true or false")
    if s.context.advanced and s.context.stationary:
        c.fail("context.advanced", "and context.stationary are both true; a unit that Advanced did not hold still")
    c.kind("rules", s.rules, VersionChoice, "a VersionChoice")
    c.names("rules", s.rules.rules)
    t = s.target
    c.kind("target.name", t.name, str, "text")
    c.integer("target.toughness", t.toughness, 1, MAX_CHARACTERISTIC, "T")
    c.items("target.keywords", t.keywords, str, "keyword text")
    c.items("target.allocation_order", t.allocation_order, str, "model names")
    models = c.items("target.models", t.models, ModelProfile, "ModelProfile")
    if not models:
        c.fail("target.models", "is empty; list the target's models ([[target.models]])")
    for i, m in enumerate(models):
        c.model(f"target.models[{i}]", m)
    count = sum(m.count for m in models)
    if count > MAX_MODELS:
        c.fail("target.models", f"hold {count} models in all; at most {MAX_MODELS} are allowed")
    wounds = sum(m.count * m.wounds for m in models)
    if wounds > MAX_VALUE:
        c.fail("target.models", f"hold {wounds} wounds in all; at most {MAX_VALUE} are allowed")
    c.modifiers("modifiers", s.modifiers)
    for name in ONE_DIE_REROLLS:
        if getattr(s.modifiers, name):
            c.fail(
                f"modifiers.{name}",
                "re-rolls one die of one weapon's attacks: set it in that weapon's [attacker.weapons.modifiers]",
            )
        taking = [i for i, w in enumerate(weapons) if getattr(w.modifiers, name)]
        if len(taking) > 1:
            c.fail(
                f"attacker.weapons[{taking[1]}].modifiers.{name}",
                f"is true, and so it is for attacker.weapons[{taking[0]}]: the unit re-rolls one such die; "
                "give it to one weapon",
            )
    for i, w in enumerate(weapons):
        for name, what in (("strength_multiplier", "Strength"), ("damage_multiplier", "Damage")):
            if getattr(w.modifiers, name) == 2 and getattr(s.modifiers, name) == 2:
                c.fail(
                    f"attacker.weapons[{i}].modifiers.{name}",
                    f"is 2 and so is modifiers.{name}: doubling {what} twice is not a rule; keep the one that applies",
                )
