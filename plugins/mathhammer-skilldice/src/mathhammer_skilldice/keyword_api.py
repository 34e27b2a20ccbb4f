"""What a skill-dice keyword's or Inflict effect's ``apply`` receives.

A keyword is registered with :class:`mathhammer.KeywordSpec` for ruleset
``"skilldice"``; a weapon lists it in ``keywords``. A Psychic Power's effect
is a keyword named ``"Power <Effect>"`` whose ``apply`` receives a
:class:`PowerRules` instead. An Inflict effect is a
keyword whose name starts with ``Inflict`` (``"Inflict Direct Damage"``); a
weapon names it in ``inflict`` without the prefix (``inflict = "Direct Damage
2"``). While a scenario compiles, each weapon calls ``spec.apply(rules)``
once per keyword and once for its Inflict effect, with an
:class:`AttackRules`. ``apply`` adds Plan effects to ``rules.attack_roll``
with the helpers below, which key them on the roll's outcome classes the way
the scenario's readings of the rules say.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mathhammer.plugin import (
    AttackPool,
    Attacks,
    Check,
    Class,
    Effect,
    Heal,
    Mark,
    Outcome,
    RollDie,
    Save,
    ScenarioError,
    Test,
    WhileAlive,
)
from mathhammer_skilldice.model import Power, Scenario, Weapon


def advantage_mark(side: str) -> str:
    """The mark a power granting ``side`` Advantage sets."""
    return f"{side}_advantage"


def shaken_mark(side: str) -> str:
    """The mark a Battle Shock effect making ``side`` shaken sets."""
    return f"{side}_shaken"


FOCUS_HIGHER: Class = "first_higher"
PANIC_HIGHER: Class = "second_higher"


@dataclass
class AttackRules:
    """One weapon's attacks while they compile.

    Attributes:
        weapon: The weapon profile.
        scenario: The whole scenario.
        pool: The Plan's attack pool (one attack per model).
        attack_roll: The Attack Roll: two d12 (Focus first, Panic second) and
            any Advantage die, compared Focus against Panic.
        params: What the keyword's ``parse`` returned for the weapon's spelling.
        versions: The reading of each open rule in force (``"inflict"``: ``"on_hit"`` or ``"always"``).
        counters: The Plan's counters; :meth:`add_counter` adds one.
        labels: Counter name to the label the Result shows.
    """

    weapon: Weapon
    scenario: Scenario
    pool: AttackPool
    attack_roll: Test
    versions: Mapping[str, str]
    params: Mapping[str, Any] = field(default_factory=dict)
    counters: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    prefix: str = ""
    """Prefix of this side's counter names in a fight (``"return_"`` for the target's strikes)."""
    label_prefix: str = ""

    def add_counter(self, name: str, label: str) -> str:
        """Report a new stage (a status inflicted, say); returns its name."""
        name = self.prefix + name
        if name not in self.counters:
            self.counters.append(name)
            self.labels[name] = self.label_prefix + label
        return name

    def on_inflict(self, effect: Effect, *, hits_only: bool = False) -> None:
        """Run ``effect`` when Focus is higher than Panic: on a hit, or on any
        roll when the scenario reads Inflict as not needing one. With
        ``hits_only`` (effects that change the hit, such as extra damage) only
        on a hit, whatever the reading."""
        hit_needed = hits_only or self.versions["inflict"] == "on_hit"
        outcomes: tuple[Outcome, ...] = ("success",) if hit_needed else ("success", "fail")
        self._on(effect, outcomes, FOCUS_HIGHER)

    def on_panic(self, effect: Effect) -> None:
        """Run ``effect`` when Panic is higher than Focus, hit or miss (Hazardous)."""
        self._on(effect, ("success", "fail"), PANIC_HIGHER)

    def _on(self, effect: Effect, outcomes: tuple[Outcome, ...], cls: Class) -> None:
        for outcome in outcomes:
            new = replace(effect, on=outcome, class_=cls)
            same = next(
                (
                    e
                    for e in self.attack_roll.effects
                    if new.action == e.action == "unsaved" and (e.on, e.class_) == (outcome, cls)
                ),
                None,
            )
            if same is None:
                self.attack_roll.effects.append(new)
                continue
            # A hit leaves the roll once, so several effects changing it (two Inflict
            # effects of Damage +X) make one: their bonuses add up.
            if (same.damage, same.maximize) != (new.damage, new.maximize):
                raise ScenarioError(
                    f"two of weapon {self.weapon.name!r}'s effects each set the Damage of the same hit",
                    source=self.scenario.source,
                )
            same.bonus = (same.bonus or 0) + (new.bonus or 0)


@dataclass
class PowerRules:
    """One Psychic Power while it compiles: ``apply`` adds what it does when manifested.

    Attributes:
        power: The power as the scenario gives it (name, caster's Skill, Difficulty).
        params: What the power keyword's ``parse`` returned.
        side: Whose power it is: ``"attacker"`` or ``"target"``.
        fight: Whether the scenario is a fight (the caster attempts it each round while the unit stands).
        sequences: The Plan sequences the power adds; use :meth:`strike` and :meth:`heal`.
        manifested: The counter of manifested powers of this side.
        rank: Which of the side's casters attempts it (0 first): in a fight casters
            fall in turn, the first listed last of all.
        versions: The reading of each open rule in force (``"heal"``: ``"surviving_models"`` or
            ``"starting_hp"``).
    """

    power: Power
    params: Mapping[str, Any]
    side: str
    fight: bool
    manifested: str
    versions: Mapping[str, str] = field(default_factory=dict)
    rank: int = 0
    sequences: list[AttackPool | Heal | Mark] = field(default_factory=list)
    marks: list[str] = field(default_factory=list)
    """Marks the power sets; the ruleset adds them to the Plan."""

    def caster(self) -> WhileAlive | None:
        """In a fight, the caster who must stand for the power to be attempted (the unit's
        first caster falls last, with the unit, and needs no condition)."""
        if not self.fight or self.rank == 0:
            return None
        return WhileAlive(side="target" if self.side == "target" else "attacker", more_than=self.rank)

    def psychic_test(self) -> Test:
        """1d12 + Skill against the Difficulty (Psychic Powers)."""
        return Test(
            name=f"{self.power.name} (psychic test)",
            target=self.power.difficulty,
            modifiers=[self.power.skill] if self.power.skill else [],
            dice=[RollDie(12, label="d12")],
            counter=self.manifested,
        )

    def strike(self, damage: str, effects: list[Effect] | None = None) -> AttackPool:
        """The power hits the enemy unit when manifested: ``damage`` against its thresholds, or
        whatever ``effects`` (keyed on ``"success"``) do."""
        test = self.psychic_test()
        test.effects = list(effects or [])
        pool = AttackPool(
            name=self.power.name,
            attacks=[
                Attacks(
                    models=1,
                    dice="1",
                    alive_of=0 if self.fight else None,
                    reserve=self.rank if self.fight else 0,
                )
            ],
            steps=[test],
            save=Save(rolled=False),
            damage=damage,
            excess="group",
            against="attacker" if self.side == "target" else "target",
        )
        self.sequences.append(pool)
        return pool

    def grant_advantage(self) -> Mark:
        """When manifested, the caster's unit rolls its Attack Rolls this round with Advantage
        (a weapon with Disadvantage then rolls both dice; one with Advantage gains nothing more)."""
        mark = Mark(
            name=self.power.name,
            mark=advantage_mark(self.side),
            check=Check(die=12, target=self.power.difficulty, modifier=self.power.skill),
            while_alive=self.caster(),
        )
        if mark.mark not in self.marks:
            self.marks.append(mark.mark)
        self.sequences.append(mark)
        return mark

    def heal(self, amount: str, *, return_models: bool = False) -> Heal:
        """The caster's unit restores ``amount`` HP when the power is manifested: without
        ``return_models`` up to what its survivors hold, or under ``heal = "starting_hp"`` up to
        its starting HP."""
        heal = Heal(
            name=self.power.name,
            side="attacker" if self.side == "attacker" else "target",
            amount=amount,
            return_models=return_models,
            up_to_start=not return_models and self.versions.get("heal") == "starting_hp",
            check=Check(die=12, target=self.power.difficulty, modifier=self.power.skill),
            while_alive=self.caster(),
        )
        self.sequences.append(heal)
        return heal


@dataclass
class BattleShockRules:
    """What a Battle Shock effect's ``apply`` receives: the rules say a unit losing 3 HP to one
    attack makes a Battle Shock test, not what the test does, so a scenario may choose an effect
    (``battle_shock = "..."``) a plugin provides; it applies to every unit that takes one.

    Attributes:
        params: What the effect keyword's ``parse`` returned.
        lose: HP (a dice expression) the unit loses, spilling over, straight after the attack.
        test: With ``lose``: the d12 roll (plus nothing) at or above which the unit passes and loses none.
        shaken: The unit makes its Attack Rolls with Disadvantage for the rest of the round.
    """

    params: Mapping[str, Any]
    lose: str | None = None
    test: int | None = None
    shaken: bool = False
