"""The Plan helpers: what plugins build, checked by the core with errors naming the field."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from mathhammer import PlanError, _core
from mathhammer.plan import (
    AttackPool,
    Attacks,
    Compare,
    Contest,
    ContestSide,
    Effect,
    Group,
    Heal,
    Mark,
    MortalWounds,
    Plan,
    RollDie,
    Rounds,
    Save,
    Target,
    Test,
    WhileAlive,
)


def one_pool(**changes: object) -> Plan:
    pool = AttackPool(
        name="Gun",
        attacks=[Attacks(models=2, dice="D3")],
        attacks_counter="attacks",
        steps=[
            Test(
                name="hit",
                target=3,
                natural_fail=1,
                critical=6,
                counter="hits",
                effects=[Effect(on="critical", action="extra", amount="1")],
            )
        ],
        save=Save(ap=-1, counter="failed_saves"),
        damage="D3",
    )
    for k, v in changes.items():
        setattr(pool, k, v)
    return Plan(
        counters=["attacks", "hits", "failed_saves"],
        target=Target(groups=[Group("A", models=5, wounds=2, save=3)], order=[0]),
        sequences=[pool, MortalWounds("Smite", "D3")],
    )


def test_a_plan_round_trips_through_the_core() -> None:
    plan = one_pool()
    data = json.loads(plan.to_json())
    assert data["sequences"][0]["steps"][0]["effects"] == [{"on": "critical", "action": "extra", "amount": "1"}]
    compiled = plan.compile()
    assert compiled.counters == ["attacks", "hits", "failed_saves"]
    assert compiled.groups == ["A"]
    assert compiled.target_models == 5


def test_unknown_counter_names_the_field() -> None:
    plan = one_pool(attacks_counter="swings")
    with pytest.raises(PlanError, match=r"sequences\[0\]\.attacks_counter.*swings"):
        plan.compile()


def test_bad_dice_in_a_plan_is_refused() -> None:
    plan = one_pool(damage="D0")
    with pytest.raises(ValueError, match="D0"):
        plan.compile()


def test_skip_past_the_last_test_is_refused() -> None:
    plan = one_pool()
    pool = plan.sequences[0]
    assert isinstance(pool, AttackPool)
    pool.steps[0].effects = [Effect(on="critical", action="skip", steps=1)]
    with pytest.raises(PlanError, match=r"steps\[0\]\.effects\[0\]\.steps"):
        plan.compile()


def fight(contest: Contest | None = None, *, first_simultaneous: bool = False) -> Plan:
    """Two one-group sides striking each other, the second pool with the first."""

    def pool(against: str, simultaneous: bool) -> AttackPool:
        return AttackPool(
            name=against,
            attacks=[Attacks(models=5, dice="1", alive_of=0)],
            steps=[Test(name="hit", target=4)],
            save=Save(),
            damage="1",
            against=against,  # type: ignore[arg-type]
            simultaneous=simultaneous,
        )

    side = Target(groups=[Group("A", models=5, wounds=1)], order=[0])
    return Plan(
        counters=["rounds", "outcome", "winner", "left"],
        target=side,
        attacker=side,
        sequences=[pool("target", first_simultaneous), pool("attacker", True)],
        rounds=Rounds(max=2, counter="rounds", outcome_counter="outcome", contest=contest),
    )


def contest(**changes: object) -> Contest:
    c = Contest(attacker=ContestSide(hold=7), target=ContestSide(hold=7), winner_counter="winner", left_counter="left")
    for k, v in changes.items():
        setattr(c, k, v)
    return c


def test_a_contest_round_trips_through_the_core() -> None:
    plan = fight(contest(always_holds=2))
    data = json.loads(plan.to_json())
    assert data["rounds"]["contest"]["always_holds"] == 2
    assert data["rounds"]["contest"]["attacker"]["ignore_difference"] == "never"
    assert data["sequences"][1]["simultaneous"] is True
    assert plan.compile().counters == ["rounds", "outcome", "winner", "left"]


@pytest.mark.parametrize(
    ("plan", "field"),
    [
        (fight(contest(), first_simultaneous=True), r"sequences\[0\]\.simultaneous"),
        (fight(contest(dice=0)), r"rounds\.contest\.dice"),
        (fight(contest(sides=1)), r"rounds\.contest\.sides"),
        (fight(contest(always_holds=13)), r"rounds\.contest\.always_holds"),
        (fight(contest(winner_counter="outcome")), r"rounds\.contest\.winner_counter"),
        (fight(contest(left_counter="swings")), r"rounds\.contest\.left_counter"),
        (fight(contest(target=ContestSide(hold=7, rank_width=0))), r"rounds\.contest\.target\.rank_width"),
        (fight(contest(attacker=ContestSide(hold=5000))), r"rounds\.contest\.attacker\.hold"),
    ],
)
def test_a_bad_contest_or_strike_names_the_field(plan: Plan, field: str) -> None:
    with pytest.raises(PlanError, match=field):
        plan.compile()


def fixed_hit(group: Group, damage: str = "3", **test: object) -> Plan:
    """One automatic hit of ``damage``, no save, against ``group`` (its damage carried within it)."""
    pool = AttackPool(
        name="Blow",
        attacks=[Attacks(models=1, dice="1")],
        steps=[Test(name="hit", automatic=True, **test)],  # type: ignore[arg-type]
        save=Save(rolled=False),
        damage=damage,
        excess="group",
    )
    return Plan(counters=[], target=Target(groups=[group], order=[0]), sequences=[pool])


def both(plan: Plan) -> dict[str, tuple[Any, np.ndarray]]:
    """Each number's exact distribution and its simulated frequencies (2,000 trials)."""
    compiled = plan.compile()
    exact = _core.evaluate_exact(compiled)
    simulated = _core.simulate(compiled, 2_000, 7, 0)
    return {
        name: (pmf, np.asarray(hist, dtype=float) / 2_000)
        for name, pmf, hist in zip(compiled.numbers, exact, simulated, strict=True)
    }


def test_equal_thresholds_are_met_together() -> None:
    """Thresholds 2, 2, 4 (a Minor equal to the Major): Damage 3 meets two, 2 wounds lost."""
    numbers = both(fixed_hit(Group("A", models=1, wounds=10, thresholds=[2, 2, 4])))
    exact, simulated = numbers["damage"]
    assert exact[2] == pytest.approx(1.0, abs=1e-12)
    assert simulated[2] == 1.0
    with pytest.raises(PlanError, match=r"target\.groups\[0\]\.thresholds.*\[3, 2\]"):
        fixed_hit(Group("A", models=1, wounds=10, thresholds=[3, 2])).compile()


def test_reduced_damage_stops_at_the_floor() -> None:
    """Reduction 3 takes Damage 2 to 1 (the floor of 1 unless given) or to 0 with ``reduction_floor`` 0."""
    for floor, lost in [(1, 1), (0, 0)]:
        group = Group("A", models=1, wounds=10, damage_reduction=3, reduction_floor=floor)
        exact, simulated = both(fixed_hit(group, damage="2"))["damage"]
        assert exact[lost] == pytest.approx(1.0, abs=1e-12)
        assert simulated[lost] == 1.0
    with pytest.raises(PlanError, match=r"reduction_floor"):
        fixed_hit(Group("A", models=1, wounds=10, reduction_floor=2)).compile()


def test_a_group_starting_below_full() -> None:
    """3 models of 2 wounds with 3 lost: one model gone before the trial (not counted in it), the
    next with 1 wound left, so a blow of 1 removes a model; exactly and simulated."""
    plan = fixed_hit(Group("A", models=3, wounds=2, wounds_lost=3), damage="1")
    compiled = plan.compile()
    assert compiled.target_models == 2
    assert compiled.group_models == [2]
    numbers = both(plan)
    for name in ("damage", "models_destroyed", "destroyed:A"):
        exact, simulated = numbers[name]
        assert exact[1] == pytest.approx(1.0, abs=1e-12), name
        assert simulated[1] == 1.0, name
    with pytest.raises(PlanError, match=r"wounds_lost.*is 6"):
        fixed_hit(Group("A", models=3, wounds=2, wounds_lost=6)).compile()


@pytest.mark.parametrize(
    ("return_models", "up_to_start", "healed", "lost", "destroyed"),
    [(False, False, 0, 1, 1), (False, True, 1, 0, 1), (True, False, 1, 0, 0)],
)
def test_a_side_starting_below_full_heals_no_higher_than_it_started(
    return_models: bool, up_to_start: bool, healed: int, lost: int, destroyed: int
) -> None:
    """3 models of 2 wounds with 1 lost (5 wounds) lose their wounded model to a blow of 1, then
    heal 2: the survivors hold only what they support (4), or up to the 5 it started with (not the
    6 of a whole unit, so wounds lost never count below zero), or the model returns."""
    plan = fixed_hit(Group("A", models=3, wounds=2, wounds_lost=1), damage="1")
    plan.counters = ["healed"]
    plan.sequences.append(
        Heal("Mend", side="target", amount="2", return_models=return_models, up_to_start=up_to_start, counter="healed")
    )
    numbers = both(plan)
    for name, value in [("healed", healed), ("damage", lost), ("models_destroyed", destroyed)]:
        exact, simulated = numbers[name]
        assert exact[value] == pytest.approx(1.0, abs=1e-12), name
        assert simulated[value] == 1.0, name


def test_reroll_when_needs_a_roll_of_several_dice_a_policy_and_a_class_to_name() -> None:
    plan = one_pool()
    pool = plan.sequences[0]
    assert isinstance(pool, AttackPool)
    pool.steps[0].reroll_when = ["fail"]
    with pytest.raises(PlanError, match=r"steps\[0\]\.reroll_when.*needs dice"):
        plan.compile()
    pool.steps[0] = Test(
        name="roll", target=13, dice=[RollDie(6), RollDie(6)], reroll="failures", reroll_when=["second_higher"]
    )
    with pytest.raises(PlanError, match=r"steps\[0\]\.reroll_when.*needs compare"):
        plan.compile()


def test_while_alive_names_a_group_of_its_side() -> None:
    plan = fixed_hit(Group("A", models=3, wounds=2))
    plan.marks = ["boon"]
    plan.sequences.append(Mark("Boon", "boon", while_alive=WhileAlive(side="target", group=1)))
    with pytest.raises(PlanError, match=r"sequences\[1\]\.while_alive\.group"):
        plan.compile()
    plan.sequences[1] = Mark("Boon", "boon", while_alive=WhileAlive(side="attacker"))
    with pytest.raises(PlanError, match=r"sequences\[1\]\.while_alive\.side"):
        plan.compile()


def test_a_re_roll_taken_on_a_class_is_exact_in_both_evaluators() -> None:
    """Two d6 against 13 pass only on a match (a critical). Re-rolling both dice when the second
    is higher (15 rolls of 36) makes P(critical) 6/36 + 15/36 x 6/36, exactly and simulated."""
    roll = Test(
        name="roll",
        target=13,
        dice=[RollDie(6), RollDie(6)],
        compare=Compare((0, 1), equal_is_critical=True),
        reroll="failures",
        reroll_when=["second_higher"],
        counter="hits",
    )
    pool = AttackPool(name="Roll", attacks=[Attacks(models=1, dice="1")], steps=[roll], save=Save(), damage="1")
    plan = Plan(counters=["hits"], target=Target(groups=[Group("A", models=1, wounds=10)], order=[0]), sequences=[pool])
    compiled = plan.compile()
    exact = dict(zip(compiled.numbers, _core.evaluate_exact(compiled), strict=True))["hits"]
    assert not isinstance(exact, float)  # a whole distribution, not only a mean
    p = 6 / 36 + 15 / 36 * 6 / 36
    assert exact[1] == pytest.approx(p, abs=1e-12)
    trials = 200_000
    simulated = dict(zip(compiled.numbers, _core.simulate(compiled, trials, 11, 0), strict=True))["hits"]
    assert abs(simulated[1] / trials - p) < 5 * (p * (1 - p) / trials) ** 0.5


@pytest.mark.parametrize(("more_than", "healed"), [(1, 1), (2, 1), (3, 0)])
def test_an_effect_waiting_on_its_caster_is_exact(more_than: int, healed: int) -> None:
    """3 models of 2 wounds take a blow of 1 and heal 1 while more than ``more_than`` of them stand:
    all three do, so the caster heals unless it needs more than three."""
    plan = fixed_hit(Group("A", models=3, wounds=2), damage="1")
    plan.counters = ["healed"]
    caster = WhileAlive(side="target", more_than=more_than)
    plan.sequences.append(Heal("Mend", side="target", amount="1", while_alive=caster, counter="healed"))
    exact, simulated = both(plan)["healed"]
    assert exact[healed] == pytest.approx(1.0, abs=1e-12)
    assert simulated[healed] == 1.0
