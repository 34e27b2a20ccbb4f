"""The Plan vocabulary: documented helpers that build what the Rust core runs.

A ruleset compiles a scenario into a :class:`Plan`; keywords edit it (add an
:class:`Effect`, change a :class:`Test`'s numbers) before it is frozen into a
:class:`mathhammer._core.CompiledPlan`.
Everything here is plain data: the core dispatches on the kind of each
primitive and never on a keyword's or a ruleset's name.
``docs/architecture.md`` describes the semantics; the field names here match it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, NoReturn

import numpy as np

from mathhammer import _core
from mathhammer.exceptions import PlanError, ScenarioError

Outcome = Literal["fail", "success", "critical"]
Class = Literal["first_higher", "equal", "second_higher"]
"""Which of two compared dice of a roll is higher (see :class:`Compare`)."""
BatchHook = Callable[[dict[str, Any]], Mapping[str, Any]]
"""A batch hook: arrays for a chunk of trials in, changed arrays out (see :meth:`Plan.add_hook`)."""
Reroll = Literal["none", "ones", "failures", "non_critical"]
RerollWhen = Literal["fail", "success", "first_higher", "equal", "second_higher"]
"""A condition under which a roll of several dice is re-rolled (see :attr:`Test.reroll_when`)."""


@dataclass
class Group:
    """Models of the target that take damage the same way.

    Damage always goes to the group's wounded model first, so at most one of
    its models is ever partly wounded.
    Lower ``tier`` groups are allocated before higher ones.
    Normal damage allocated to the group is divided by ``damage_divisor``
    (rounded up), then reduced by ``damage_reduction``, never below
    ``reduction_floor`` (1, or 0 in games where reduced damage may do nothing).
    With ``wounds_lost`` the group starts the trial with that many wounds gone:
    whole models first, the rest on one model (a unit starting below full).
    """

    name: str
    models: int
    wounds: int
    tier: int = 0
    save: int | None = None
    invulnerable: int | None = None
    feel_no_pain: int | None = None
    feel_no_pain_mortal: int | None = None
    damage_divisor: int = 1
    damage_reduction: int = 0
    thresholds: list[int] = field(default_factory=list)
    """Normal damage converts to the number of these it meets, ascending (damage
    thresholds, equal ones met together); empty: damage is wounds lost. Mortal
    wounds are never converted."""
    reduction_floor: int = 1
    wounds_lost: int = 0
    value: int = 0
    """What each model of the group destroyed adds to the trial's ``value_destroyed`` number, which the
    core reports when any group of the target gives a value (a whole number; 0 adds nothing)."""
    points: float | None = None
    """What the group's models cost together, when the scenario says: read by ``compare`` for the
    points-removed metrics (which turn it into :attr:`value`), never sent to the core."""


@dataclass
class Target:
    """The unit attacked: its groups and their preferred allocation order."""

    groups: list[Group]
    order: list[int]
    wounded_groups_first: bool = False


@dataclass
class Effect:
    """When a token gets outcome ``on`` at a test, do ``action``.

    ``extra``: ``amount`` more tokens enter the next test as plain successes.
    ``skip``: the token skips the next ``steps`` tests (counted as plain successes).
    ``mortal``: the token inflicts ``amount`` mortal wounds (default: the
    pool's damage) after the pool's normal damage; ``spill`` lets excess carry
    over, ``ends_attack`` removes the token from the sequence, ``reduced``
    lets the model's damage modifiers change the amount.
    ``unsaved``: the token leaves the sequence and inflicts the pool's damage
    with no save allowed, as normal damage.
    ``own_save``: the token leaves the sequence and, after the pool's saves,
    takes ``save`` instead of the pool's save (its own AP, modifiers and
    special saves); failing it, it inflicts the pool's damage.
    ``unsaved`` and ``own_save`` deal ``damage`` (a dice expression) instead
    of the pool's damage when it is given; with ``maximize`` the damage takes
    its largest value instead of rolling, and ``bonus`` is added to it (never
    below 0). A critical wound with a better AP, more damage or other damage
    dice is an ``own_save`` with that save and damage.
    ``count``: the token is counted in ``counter`` (a status whose chance the
    Result reports) and goes on.
    ``after_all`` (``mortal``, ``unsaved``) waits until every sequence of the
    Plan is resolved. ``mortal`` with ``against="attacker"`` hurts the
    attacking unit instead (a hazard of the attack).
    With ``class``, the effect also needs the roll's class (tests that compare
    two dice: :class:`Compare`).
    """

    on: Outcome
    action: Literal["extra", "skip", "mortal", "unsaved", "own_save", "count"]
    amount: str | None = None
    steps: int | None = None
    spill: bool | None = None
    ends_attack: bool | None = None
    after_all: bool | None = None
    reduced: bool | None = None
    focus: bool | None = None
    """``mortal`` only: the pool's focus group (if alive) takes them first."""
    save: Save | None = None
    """``own_save`` only: the save the token takes."""
    maximize: bool | None = None
    bonus: int | None = None
    damage: str | None = None
    """``unsaved`` and ``own_save`` only: the token's damage dice instead of the pool's."""
    counter: str | None = None
    against: Literal["target", "attacker"] | None = None
    class_: Class | None = None
    """The class of the roll the effect also needs (``class`` in the Plan)."""

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if v is not None and k not in ("save", "class_")}
        if self.save is not None:
            d["save"] = self.save.to_dict()
        if self.class_ is not None:
            d["class"] = self.class_
        return d


@dataclass
class RollDie:
    """One die of a roll of several dice; ``subtract`` counts it negative.

    ``rerolled`` False keeps the die as it fell when the roll is re-rolled.
    """

    sides: int
    subtract: bool = False
    rerolled: bool = True
    when: str | None = None
    """The die is part of the roll only while this mark is set (see :class:`Mark`)."""
    unless: str | None = None
    """The die is part of the roll only while this mark is not set."""
    label: str | None = None
    """What reports call the die ("Focus"); for narration only, not sent to the core."""


@dataclass
class Compare:
    """Two dice of a roll (indices) compared: which is higher puts the roll in
    a class effects can key on; with ``equal_is_critical`` a match is a
    critical (a success, unless ``critical_requires_success`` and the total misses)."""

    dice: tuple[int, int]
    equal_is_critical: bool = False


@dataclass
class Test:
    """Roll one die per token and classify it by the first rule that applies.

    Unmodified ``<= natural_fail``: fail. Unmodified ``>= critical``: critical
    (a success). Unmodified plus the sum of ``modifiers`` (capped to
    ``[modifier_min, modifier_max]``) ``>= target``: success. Otherwise fail.
    ``automatic`` tests roll nothing and every token succeeds, never critically.
    With ``dice`` the test rolls several dice together: their sum plus the
    modifiers must reach ``target``; ``compare`` classes the roll and makes
    its criticals (``natural_fail`` and ``critical`` do not apply). A
    ``failures`` or ``non_critical`` re-roll re-rolls every die marked
    ``rerolled``; ``ones`` re-rolls those showing 1, never on a critical.
    With ``reroll_one``, once per pool (per round in a fight), the first die
    that fails and was not re-rolled already is rolled again (a re-roll of one
    die granted to the unit; tests of one die only).
    With ``dice``, ``reroll_when`` says when the roll is re-rolled instead of
    the policy's own condition: on an outcome (``"fail"``, ``"success"``) or a
    class of :class:`Compare` listed there, never on a critical; the dice
    re-rolled stay the policy's (a re-roll taken to avoid a side effect).
    """

    __test__ = False  # a Plan primitive, not a pytest test class

    name: str
    target: int = 0
    die: int = 6
    automatic: bool = False
    modifiers: list[int] = field(default_factory=list)
    modifier_min: int | None = None
    modifier_max: int | None = None
    natural_fail: int = 0
    critical: int | None = None
    critical_requires_success: bool = False
    reroll: Reroll = "none"
    counter: str | None = None
    effects: list[Effect] = field(default_factory=list)
    dice: list[RollDie] = field(default_factory=list)
    compare: Compare | None = None
    reroll_one: bool = False
    reroll_when: list[RerollWhen] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if v is not None and k not in ("effects", "dice", "compare")}
        if not self.reroll_one:
            del d["reroll_one"]
        if not self.reroll_when:
            del d["reroll_when"]
        d["effects"] = [e.to_dict() for e in self.effects]
        if self.dice:
            d["dice"] = [{k: v for k, v in asdict(die).items() if v is not None and k != "label"} for die in self.dice]
        if self.compare is not None:
            d["compare"] = {"dice": list(self.compare.dice), "equal_is_critical": self.compare.equal_is_critical}
        return d


@dataclass
class Attacks:
    """Each of ``models`` rolls ``dice``, adds ``bonus``, is raised to ``minimum``.

    With ``maximize`` the dice are not rolled and count as their largest value.
    """

    models: int
    dice: str
    bonus: int = 0
    minimum: int | None = None
    maximize: bool = False
    alive_of: int | None = None
    """In a fight: the attacking side's group whose models alive now make these attacks (at most ``models``)."""
    reserve: int = 0
    """With ``alive_of``: models alive that do something else instead (attempt a power) and do not attack."""


@dataclass
class SpecialSave:
    """A save rolled only after a failed save: unmodified, ``target`` or more saves.

    With ``reroll_successes`` a success is rolled again and the second roll
    stands (rules that make the defender re-roll successful saves).
    """

    target: int
    reroll_successes: bool = False


@dataclass
class Save:
    """The pool's wounds are rolled together and resolved lowest first (or, with ``in_turn``, one at a time).

    A roll saves when it is above ``natural_fail`` and either reaches the
    current group's invulnerable save unmodified, or reaches its armour save
    after adding ``ap``, ``modifiers`` and the group's entry of
    ``group_modifiers`` (one per group, or none), the total capped at
    ``modifier_max``. A roll that fails is rolled again once when ``reroll``
    says so (``"failures"``: any failed roll; ``"ones"``: a roll of 1), against
    the same group, and if it still fails is followed by the group's entry of
    ``special`` (one per group, or none), if it has one. ``counter`` counts
    the attacks that fail them all.
    """

    ap: int = 0
    modifiers: list[int] = field(default_factory=list)
    die: int = 6
    natural_fail: int = 1
    counter: str | None = None
    group_modifiers: list[int] = field(default_factory=list)
    modifier_max: int | None = None
    special: list[SpecialSave | None] = field(default_factory=list)
    rolled: bool = True
    """False for attacks no save applies to: nothing is rolled, every token is unsaved."""
    reroll: Literal["none", "ones", "failures"] = "none"
    in_turn: bool = False
    """True to save the wounds one at a time instead, each rolled against the group current then and its damage
    dealt before the next is rolled (attacks allocated one by one, as in 40k's 10th edition)."""

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if v is not None and k != "special"}
        if self.reroll == "none":
            del d["reroll"]
        if self.special:
            d["special"] = [None if s is None else asdict(s) for s in self.special]
        return d


Excess = Literal["lost", "group", "unit"]


@dataclass
class TopThreshold:
    """What an attack meeting a group's highest damage threshold does straight after its damage.

    Sets ``mark`` (see :class:`Mark`), and inflicts ``mortal`` wounds on the
    models hit, spilling over, after ``check`` fails when given.
    """

    mark: str | None = None
    mortal: str | None = None
    check: Check | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {k: v for k, v in (("mark", self.mark), ("mortal", self.mortal)) if v is not None}
        if self.check is not None:
            d["check"] = asdict(self.check)
        return d


@dataclass
class AttackPool:
    """A pool of identical attack dice: tests, then save, then damage.

    ``attacks`` holds one term per weapon profile pooled here; their dice add up.
    ``focus`` lists groups the attacker may make current, in preference: the
    first still alive when the saves are resolved stays current until
    destroyed, and takes the pool's mortal wounds first.
    Damage beyond what the model has left is lost (``excess="lost"``, 40k),
    carries to the group's next model (``"group"``, a health pool) or on
    through the allocation order (``"unit"``). With ``cap_at_wounds`` one
    attack's damage never exceeds the models' wounds characteristic.
    The damage roll is re-rolled as ``damage_reroll`` says (``"ones"``: each
    die showing 1; ``"below_average"``: the whole roll when its dice sum to
    less than their average), then multiplied by ``damage_multiplier``,
    increased by ``damage_bonus`` (never below 0) and raised to
    ``damage_minimum``, before the group's own damage modifiers.
    """

    name: str
    attacks: list[Attacks]
    steps: list[Test]
    save: Save
    damage: str
    attacks_counter: str | None = None
    mortal_counter: str | None = None
    focus: list[int] = field(default_factory=list)
    batch_hook: int | None = None
    """Index into :attr:`Plan.hooks` of a batch hook run between the tests and the save."""
    excess: Excess = "lost"
    cap_at_wounds: bool = False
    top_threshold_counter: str | None = None
    """Counts attacks whose damage meets the highest of the group's thresholds."""
    top_threshold: TopThreshold | None = None
    """What such an attack does besides (a Battle Shock test's effect)."""
    against: Literal["target", "attacker"] = "target"
    """Whose models the pool attacks: the attacker's in a fight's return blows."""
    feel_no_pain: list[int | None] = field(default_factory=list)
    """Per group of the side attacked (or none): a Feel No Pain against this pool's harm only (its damage and
    the mortal wounds it inflicts, as "against Psychic Attacks"); the better of it and the group's own applies."""
    damage_reroll: Literal["none", "ones", "below_average"] = "none"
    damage_multiplier: int = 1
    damage_bonus: int = 0
    damage_minimum: int = 0
    damage_reroll_one: bool = False
    """Once per pool, the first damage roll below its dice's average is rolled again (not with ``damage_reroll``)."""
    simultaneous: bool = False
    """The pool strikes together with the sequence before it: its attack terms with ``alive_of`` count the
    models alive when that sequence began, and it strikes even if that sequence destroyed a side."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "attack",
            "name": self.name,
            "attacks": [{k: v for k, v in asdict(a).items() if v is not None} for a in self.attacks],
            **({"attacks_counter": self.attacks_counter} if self.attacks_counter else {}),
            "steps": [t.to_dict() for t in self.steps],
            "save": self.save.to_dict(),
            "damage": {
                "dice": self.damage,
                "excess": self.excess,
                "cap_at_wounds": self.cap_at_wounds,
                **({"reroll": self.damage_reroll} if self.damage_reroll != "none" else {}),
                **({"multiplier": self.damage_multiplier} if self.damage_multiplier != 1 else {}),
                **({"bonus": self.damage_bonus} if self.damage_bonus else {}),
                **({"minimum": self.damage_minimum} if self.damage_minimum else {}),
                **({"reroll_one": True} if self.damage_reroll_one else {}),
                **({"top_threshold_counter": self.top_threshold_counter} if self.top_threshold_counter else {}),
                **({"top_threshold": self.top_threshold.to_dict()} if self.top_threshold else {}),
            },
            **({"mortal_counter": self.mortal_counter} if self.mortal_counter else {}),
            **({"focus": list(self.focus)} if self.focus else {}),
            **({"batch_hook": self.batch_hook} if self.batch_hook is not None else {}),
            **({"against": self.against} if self.against != "target" else {}),
            **({"feel_no_pain": list(self.feel_no_pain)} if self.feel_no_pain else {}),
            **({"simultaneous": True} if self.simultaneous else {}),
        }


@dataclass
class Rolls:
    """``count`` dice of ``die`` sides; one showing ``fail_at_most`` or less fails."""

    count: int
    fail_at_most: int
    die: int = 6


@dataclass
class MortalWounds:
    """Mortal wounds from an ability, one at a time.

    With ``rolls`` (a hazard test), each failed roll inflicts ``amount``;
    otherwise ``amount`` is inflicted once. ``against`` is ``"target"`` or
    ``"attacker"`` (the attacker's own models, only counted when the Plan does
    not list them). ``spill`` lets excess carry to the next model.
    """

    name: str
    amount: str
    counter: str | None = None
    rolls: Rolls | None = None
    against: Literal["target", "attacker"] = "target"
    spill: bool = True
    feel_no_pain: bool = True
    """False for rules that destroy a model outright (written as mortal wounds equal to its wounds)."""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "kind": "mortal_wounds",
            "name": self.name,
            "amount": self.amount,
            "against": self.against,
            "spill": self.spill,
            "feel_no_pain": self.feel_no_pain,
        }
        if self.counter:
            d["counter"] = self.counter
        if self.rolls:
            d["rolls"] = asdict(self.rolls)
        return d


@dataclass
class Check:
    """One ``die`` plus ``modifier`` reaching ``target`` succeeds."""

    target: int
    die: int = 6
    modifier: int = 0


@dataclass
class WhileAlive:
    """A model a :class:`Heal` or :class:`Mark` needs standing (its caster): the sequence
    runs only while ``side``'s group ``group`` has more than ``more_than`` models alive.

    Several casters of one unit fall in turn, the one with ``more_than`` 0 last.
    """

    side: Literal["target", "attacker"]
    group: int = 0
    more_than: int = 0


def _check_and_counter(
    check: Check | None, counter: str | None, while_alive: WhileAlive | None = None
) -> dict[str, Any]:
    """The optional ``check``, ``counter`` and ``while_alive`` of a Heal or Mark, as the Plan spells them."""
    return {
        **({"check": asdict(check)} if check is not None else {}),
        **({"counter": counter} if counter else {}),
        **({"while_alive": asdict(while_alive)} if while_alive is not None else {}),
    }


@dataclass
class Heal:
    """Restore ``amount`` wounds to a side (only if ``check`` succeeds, when given).

    Never above the wounds it starts the trial with (fewer than full with a
    group's ``wounds_lost``); with ``return_models`` destroyed models
    return as the wounds support them, otherwise only models alive heal, up to
    what they hold, or with ``up_to_start`` up to the starting wounds (the
    front model holding what the others cannot; no model returns).
    """

    name: str
    side: Literal["target", "attacker"]
    amount: str
    return_models: bool = False
    check: Check | None = None
    counter: str | None = None
    up_to_start: bool = False
    while_alive: WhileAlive | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": "heal", "name": self.name, "side": self.side, "amount": self.amount}
        d |= {"return_models": self.return_models, "up_to_start": self.up_to_start}
        extra = _check_and_counter(self.check, self.counter, self.while_alive)
        return {**d, **extra}


@dataclass
class Mark:
    """Set ``mark`` for the rest of the round (the trial, outside a fight), when ``check`` succeeds if given.

    Dice of later rolls may depend on it (:attr:`RollDie.when`): a power granting Advantage.
    """

    name: str
    mark: str
    check: Check | None = None
    counter: str | None = None
    while_alive: WhileAlive | None = None

    def to_dict(self) -> dict[str, Any]:
        extra = _check_and_counter(self.check, self.counter, self.while_alive)
        return {"kind": "mark", "name": self.name, "mark": self.mark, **extra}


@dataclass
class Rounds:
    """A fight: the sequences repeated, round after round, until a side is destroyed or ``max`` rounds pass.

    ``counter`` counts rounds begun; ``outcome_counter`` ends as 0 (both
    stand), 1 (the target is destroyed), 2 (the attacker is) or 3 (both).
    """

    max: int
    counter: str | None = None
    outcome_counter: str | None = None
    contest: Contest | None = None
    """A contest settled at the end of every round, which may end the fight before a side is destroyed."""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {k: v for k, v in asdict(self).items() if v is not None and k != "contest"}
        if self.contest is not None:
            d["contest"] = self.contest.to_dict()
        return d


@dataclass
class ContestSide:
    """One side's terms in a :class:`Contest`.

    Its score each round is the wounds the other side lost in it, plus ``bonus``, plus ``first_round_bonus`` in
    the first round. Losing, it holds when its roll is at most ``hold`` less the difference of the scores, or
    ``hold`` alone when it ignores the difference: ``"always"``, or ``"more_ranks"`` when after the round it has
    more full ranks (models alive divided by ``rank_width``, rounded down) than the winner.
    """

    hold: int
    bonus: int = 0
    first_round_bonus: int = 0
    ignore_difference: Literal["never", "always", "more_ranks"] = "never"
    rank_width: int = 1


@dataclass
class Contest:
    """Settled at the end of every round of a fight in which both sides stand: the side with the lower score
    rolls ``dice`` dice of ``sides`` sides and leaves the fight unless it holds (see :class:`ContestSide`); a sum
    at or below ``always_holds`` always holds. ``winner_counter`` ends as the last round's winner: 0 (equal
    scores), 1 (the attacker), 2 (the target); ``left_counter`` as 1 (the target left) or 2 (the attacker did).
    """

    attacker: ContestSide
    target: ContestSide
    dice: int = 2
    sides: int = 6
    always_holds: int = 0
    winner_counter: str | None = None
    left_counter: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if v is not None}
        d["attacker"] = asdict(self.attacker)
        d["target"] = asdict(self.target)
        return d


@dataclass
class Plan:
    """Who is hit, by what, in which order; what the Result counts.

    ``attacker`` lists the attacking unit's own models, for rules that hurt
    the attacker; the Result then also reports ``attacker_damage`` and
    ``attacker_models_destroyed``.
    """

    counters: list[str]
    target: Target
    sequences: list[AttackPool | MortalWounds | Heal | Mark] = field(default_factory=list)
    attacker: Target | None = None
    rounds: Rounds | None = None
    marks: list[str] = field(default_factory=list)
    """Names of the marks :class:`Mark` sequences set and dice depend on."""
    hooks: list[BatchHook] = field(default_factory=list)
    """Batch hooks the pools name by index (see :meth:`add_hook`)."""
    sources: dict[str, str] = field(default_factory=dict)
    """Plan field to the scenario field it was compiled from, such as
    ``"sequences[0].attacks"`` to ``"attacker.weapons[0].attacks"``, so that the
    core's errors name what the user wrote (see :meth:`scenario_field`)."""

    def add_hook(self, hook: BatchHook) -> int:
        """Register a batch hook and return the index a pool's ``batch_hook`` names.

        The hook is called once per chunk of trials with a dict of numpy int64
        arrays, one entry per trial: ``attacks``; ``passed`` and ``criticals``
        (dicts by test name); ``to_save``; ``mortal_wounds`` (zeros). It returns
        a mapping with ``to_save`` and/or ``mortal_wounds`` arrays of the same
        length (values 0 or more); missing keys keep their values. The exact
        evaluator cannot run a Plan with hooks.
        """
        if hook not in self.hooks:
            self.hooks.append(hook)
        return self.hooks.index(hook)

    def _checked_hooks(self) -> list[Callable[[dict[str, Any]], Mapping[str, Any]]]:
        return [_checked(i, hook) for i, hook in enumerate(self.hooks)]

    def to_dict(self) -> dict[str, Any]:
        d = {
            "version": _core.PLAN_VERSION,
            "counters": list(self.counters),
            "target": _side(self.target),
            "sequences": [s.to_dict() for s in self.sequences],
        }
        if self.attacker is not None:
            d["attacker"] = _side(self.attacker)
        if self.rounds is not None:
            d["rounds"] = self.rounds.to_dict()
        if self.marks:
            d["marks"] = list(self.marks)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def scenario_field(self, plan_field: str) -> str | None:
        """The scenario field :attr:`sources` gives for ``plan_field`` or the nearest field holding it."""
        path = plan_field
        while path:
            if path in self.sources:
                return self.sources[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[: max(cut, 0)]
        return None

    def compile(self, *, source: str | None = None) -> _core.CompiledPlan:
        """Check the Plan in the core and freeze it for running.

        Args:
            source: The scenario's file, for errors mapped to a scenario field.

        Raises:
            ScenarioError: for a Plan past one of the core's limits (:mod:`mathhammer.limits`), naming the
                scenario field when :attr:`sources` maps the Plan field at fault.
            PlanError: naming the Plan field that is wrong, otherwise.
            DiceError: for a dice expression that cannot be rolled.
        """
        try:
            return _core.CompiledPlan(self.to_json(), self._checked_hooks() or None)
        except PlanError as exc:
            # Only a limit crossed is the scenario's doing; any other error in a
            # Plan is the work of whoever built it, and stays a PlanError.
            where = self.scenario_field(getattr(exc, "field", "")) if getattr(exc, "limit", None) else None
            if where is None:
                raise
            raise ScenarioError(getattr(exc, "reason", str(exc)), source=source, field=where) from None


def _group(g: Group) -> dict[str, Any]:
    """A group as the core reads it: no ``points`` (the core never reads them) and no value of 0."""
    return {k: v for k, v in asdict(g).items() if v is not None and k != "points" and not (k == "value" and v == 0)}


def _side(t: Target) -> dict[str, Any]:
    return {
        "groups": [_group(g) for g in t.groups],
        "order": list(t.order),
        "wounded_groups_first": t.wounded_groups_first,
    }


HOOK_KEYS = ("to_save", "mortal_wounds")


def _checked(index: int, hook: BatchHook) -> Callable[[dict[str, Any]], Mapping[str, Any]]:
    """Wrap a batch hook so that whatever it returns is checked and converted
    to int64 arrays, and every problem is a HookError naming the hook."""
    name = getattr(hook, "__qualname__", repr(hook))

    def call(arrays: dict[str, Any]) -> Mapping[str, Any]:
        returned = hook(arrays)
        trials = len(arrays["to_save"])

        def fail(message: str) -> NoReturn:
            raise _core.HookError(f"batch hook {index} ({name}) {message}")

        if not isinstance(returned, Mapping):
            fail(f"must return a mapping with {' and/or '.join(HOOK_KEYS)}, not {type(returned).__name__}")
        unknown = sorted(set(returned) - set(HOOK_KEYS))
        if unknown:
            fail(f"returned unknown keys {unknown}; it may return {', '.join(HOOK_KEYS)}")
        out: dict[str, Any] = {}
        for key, value in returned.items():
            array = np.asarray(value)
            if array.shape != (trials,):
                fail(f"returned {key} of shape {array.shape}; expected ({trials},), one value per trial")
            if array.dtype.kind not in "iub" and not (
                array.dtype.kind == "f" and np.all(np.isfinite(array)) and np.all(array == np.round(array))
            ):
                fail(f"returned {key} of dtype {array.dtype}; expected whole numbers")
            if trials and array.min() < 0:
                fail(f"returned {key} holding {array.min()}; values must be 0 or more")
            if trials and array.max() > _core.MAX_VALUE:
                fail(f"returned {key} holding {array.max()}; values must be at most {_core.MAX_VALUE}")
            out[key] = array.astype(np.int64)
        return out

    # The core names a hook by these when Ctrl-C interrupts it.
    call.__qualname__ = name
    call.__module__ = getattr(hook, "__module__", None) or call.__module__
    return call
