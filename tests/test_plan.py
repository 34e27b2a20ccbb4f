"""The Plan helpers: what plugins build, checked by the core with errors naming the field."""

from __future__ import annotations

import json

import pytest

from mathhammer import PlanError
from mathhammer.plan import (
    AttackPool,
    Attacks,
    Contest,
    ContestSide,
    Effect,
    Group,
    MortalWounds,
    Plan,
    Rounds,
    Save,
    Target,
    Test,
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
