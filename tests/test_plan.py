"""The Plan helpers: what plugins build, checked by the core with errors naming the field."""

from __future__ import annotations

import json

import pytest

from mathhammer import PlanError
from mathhammer.plan import AttackPool, Attacks, Effect, Group, MortalWounds, Plan, Save, Target, Test


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
