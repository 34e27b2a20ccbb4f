"""Close combat between two Ninth Age units, against hand-worked fractions.

The rules text gives no close-combat rules; the machinery follows the
project's conventions (``docs/t9a-combat.md``): strikes in Agility order
(equal Agility together), front rank and supporting ranks counted from the
survivors, a combat score of wounds caused plus static bonuses, and the
loser's break test, 2D6 at most Discipline less the score difference. Each
test's units are tiny so that the fractions can be worked by hand (in the
docstring); the exact evaluator must match them to 1e-12, and Monte Carlo
within 5 standard errors.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import mathhammer
from mathhammer import DeclinedError, Registry, Result
from mathhammer.plugin import ScenarioError
from mathhammer.testing import assert_mean, run_cli

from .conftest import EXAMPLES

TRIALS = 200_000

# One attack killing a one-HP model on a hit of 4+ (Off 4 against Def 4) and
# a wound of 4+ (Str 3 against Res 3), without armour: 1/2 x 1/2 = 1/4.
KILL = Fraction(1, 4)
ATTACK = {"name": "Blades", "Att": 1, "Off": 4, "Str": 3}


def unit(name: str, models: int, **fields: Any) -> dict[str, Any]:
    """A unit whose every attack takes a wound with chance 1/4, one model wide, without supporting attacks."""
    base = {"name": name, "models": models, "width": 1, "Agi": 4, "Disc": 7, "Def": 4, "Res": 3}
    base["supporting_attacks"] = 0
    base.update(fields)
    base["attack"] = {**ATTACK, **fields.get("attack", {})}
    return base


def combat(attacker: dict[str, Any], target: dict[str, Any], **settings: Any) -> dict[str, Any]:
    return {"ruleset": "t9a", "combat": settings, "attacker": attacker, "target": target}


def both(registry: Registry, data: dict[str, Any], seed: int = 17) -> tuple[Result, Result]:
    """The exact Result and a Monte Carlo one of a combat."""
    scenario = mathhammer.scenario_from_data(data, source="combat.toml", registry=registry)
    exact = mathhammer.evaluate_exact(scenario, registry=registry)
    simulated = mathhammer.simulate(scenario, trials=TRIALS, seed=seed, registry=registry)
    return exact, simulated


def pmf_is(result: Result, stage: str, expected: dict[int, Fraction]) -> None:
    """The stage's exact pmf is ``expected`` (values left out have chance 0)."""
    pmf = result[stage].pmf
    for value in range(max(len(pmf), max(expected) + 1)):
        got = float(pmf[value]) if value < len(pmf) else 0.0
        assert got == pytest.approx(float(expected.get(value, 0)), abs=1e-12), f"{stage} = {value}"


def agrees(simulated: Result, stage: str, expected: dict[int, Fraction]) -> None:
    """Every value's simulated chance is within 5 standard errors of ``expected``."""
    pmf = simulated[stage].pmf
    for value in range(max(len(pmf), max(expected) + 1)):
        p = float(expected.get(value, 0))
        got = float(pmf[value]) if value < len(pmf) else 0.0
        se = math.sqrt(p * (1 - p) / TRIALS)
        assert abs(got - p) <= max(5 * se, 1e-12), f"{stage} = {value}: {got} against {p}"


def evaluators_agree(exact: Result, simulated: Result) -> None:
    """Every chance the combat reports within 5 standard errors, and the mean HP lost and rounds fought."""
    assert exact.evaluator == "exact"
    for chance in exact.chances:
        p, _ = chance.of(exact.stages)
        q, se = chance.of(simulated.stages)
        assert abs(p - q) <= max(5 * se, 1e-12), chance.label
    for stage in ("damage", "attacker_damage", "rounds"):
        assert_mean(simulated[stage], exact[stage].mean)


def check(registry: Registry, data: dict[str, Any], expected: dict[str, dict[int, Fraction]]) -> Result:
    exact, simulated = both(registry, data)
    assert exact.evaluator == "exact"
    for stage, pmf in expected.items():
        pmf_is(exact, stage, pmf)
        agrees(simulated, stage, pmf)
    return exact


def test_the_faster_unit_strikes_first_and_the_dead_do_not_strike_back(registry: Registry) -> None:
    """One model each, Agility 5 against 4: the attacker kills with 1/4; only if it fails (3/4) does the
    target strike back, killing with 1/4. Outcome 1 (target destroyed) 1/4, 2 (attacker) 3/16, 3 never."""
    data = combat(unit("Knights", 1, Agi=5), unit("Guards", 1))
    check(
        registry,
        data,
        {
            "outcome": {0: Fraction(9, 16), 1: KILL, 2: Fraction(3, 16)},
            "winner": {0: Fraction(9, 16), 1: KILL, 2: Fraction(3, 16)},
        },
    )
    slower = combat(unit("Knights", 1, Agi=3), unit("Guards", 1))
    check(registry, slower, {"outcome": {0: Fraction(9, 16), 1: Fraction(3, 16), 2: KILL}})


def test_equal_agility_strikes_simultaneously(registry: Registry) -> None:
    """Agility 4 each: both strike with the model alive at the start; both die together with 1/16."""
    data = combat(unit("Knights", 1), unit("Guards", 1))
    check(
        registry,
        data,
        {
            "outcome": {0: Fraction(9, 16), 1: Fraction(3, 16), 2: Fraction(3, 16), 3: Fraction(1, 16)},
            # Both lose one wound in the 1/16: equal scores, a draw.
            "winner": {0: Fraction(10, 16), 1: Fraction(3, 16), 2: Fraction(3, 16)},
        },
    )
    # strike_order overrides Agility: "attacker" makes it the ordered combat above.
    ordered = combat(unit("Knights", 1), unit("Guards", 1), strike_order="attacker")
    check(registry, ordered, {"outcome": {0: Fraction(9, 16), 1: KILL, 2: Fraction(3, 16)}})


def test_supporting_attacks_come_from_the_survivors(registry: Registry) -> None:
    """Two Knights one wide (a front-rank model and a supporting one) strike a 3-HP Troll after it strikes
    (Agility 3 against 5). If the Troll kills one Knight (1/4), the one left fights alone:
    P(Troll loses 2) = 3/4 x 1/16 = 3/64; 1: 3/4 x 6/16 + 1/4 x 1/4 = 22/64; 0: 39/64 (mean 7/16)."""
    knights = unit("Knights", 2, Agi=3, supporting_attacks=1)
    troll = unit("Troll", 1, Agi=5, HP=3)
    exact = check(
        registry,
        combat(knights, troll),
        {"damage": {0: Fraction(39, 64), 1: Fraction(22, 64), 2: Fraction(3, 64)}},
    )
    assert exact["damage"].mean == pytest.approx(7 / 16, abs=1e-12)
    # Striking first, both Knights fight: 2 x 1/4.
    first = combat({**knights, "Agi": 6}, troll)
    check(registry, first, {"damage": {0: Fraction(9, 16), 1: Fraction(6, 16), 2: Fraction(1, 16)}})


def test_only_the_front_rank_and_the_supporting_ranks_fight(registry: Registry) -> None:
    """Ten Knights two wide, with one supporting rank: 2 front-rank models with Att 2 and 2 supporting
    attacks, 6 attacks at 1/4 against 20 HP: mean 6/4. Two supporting ranks: 8 attacks, mean 2."""
    knights = unit("Knights", 10, width=2, supporting_attacks=1, attack={"Att": 2})
    troll = unit("Troll", 1, HP=20, Agi=3, attack={"Off": 0, "Str": 1})
    for ranks, attacks in ((1, 6), (2, 8), (0, 4)):
        exact, simulated = both(registry, combat({**knights, "supporting_ranks": ranks}, troll))
        expected = attacks * KILL
        assert exact["damage"].mean == pytest.approx(float(expected), abs=1e-12)
        assert_mean(simulated["damage"], float(expected))


# Two four-model units, one wide, without supporting attacks: each makes one attack a round (1/4 to kill)
# and they strike together. The attacker's combat score has +1 (a standard): the target loses by 1 when
# nobody or both kill (9/16 + 1/16), by 2 when only the attacker kills (3/16), and draws when only it kills.
TWO_2D6_AT_MOST = {n: Fraction(sum(1 for a in range(1, 7) for b in range(1, 7) if a + b <= n), 36) for n in range(13)}


def standoff(disc: int, models: int = 4, **target: Any) -> dict[str, Any]:
    attacker = unit("Knights", 4, combat_score={"standard": 1})
    return combat(attacker, unit("Guards", models, Disc=disc, **target))


def test_the_round_is_won_by_the_higher_combat_score(registry: Registry) -> None:
    """Winner 1 (the attacker) 13/16, a draw 3/16; the target never wins."""
    check(registry, standoff(7), {"winner": {0: Fraction(3, 16), 1: Fraction(13, 16)}})


def test_the_loser_breaks_on_2d6_above_discipline_less_the_difference(registry: Registry) -> None:
    """Discipline 7, never Steadfast: losing by 1 (10/16) breaks on more than 6 (21/36), by 2 (3/16) on more
    than 5 (26/36): P(break) = 10/16 x 21/36 + 3/16 x 26/36 = 1/2."""
    expected = Fraction(10, 16) * (1 - TWO_2D6_AT_MOST[6]) + Fraction(3, 16) * (1 - TWO_2D6_AT_MOST[5])
    assert expected == Fraction(1, 2)
    exact = check(registry, standoff(7, steadfast="never"), {"broken": {0: 1 - expected, 1: expected}})
    assert exact.chance("P(the loser breaks)") == pytest.approx(0.5, abs=1e-12)
    assert exact.chance("P(Guards breaks)") == pytest.approx(0.5, abs=1e-12)
    assert exact.chance("P(Knights wins the round)") == pytest.approx(13 / 16, abs=1e-12)


def test_steadfast_ignores_the_difference(registry: Registry) -> None:
    """Steadfast always: whenever it loses (13/16) it breaks on more than 7 (15/36). With "ranks", eight
    Guards one wide have more full ranks than the Knights whatever happens, so it is the same; four
    Guards never have more, so it is as without Steadfast (1/2)."""
    steadfast = Fraction(13, 16) * (1 - TWO_2D6_AT_MOST[7])
    check(registry, standoff(7, steadfast="always"), {"broken": {0: 1 - steadfast, 1: steadfast}})
    check(registry, standoff(7, models=8), {"broken": {0: 1 - steadfast, 1: steadfast}})
    half = Fraction(1, 2)
    check(registry, standoff(7, steadfast="ranks"), {"broken": {0: half, 1: half}})


def test_double_one_passes_any_break_test_when_chosen(registry: Registry) -> None:
    """Discipline 2, losing by 1 or 2, leaves nothing but double 1 (1/36) to pass, and only with
    double_one_passes: P(break) = 13/16 x 35/36, or 13/16 without it."""
    with_double_one = Fraction(13, 16) * Fraction(35, 36)
    check(registry, standoff(2, steadfast="never"), {"broken": {0: 1 - with_double_one, 1: with_double_one}})
    data = standoff(2, steadfast="never")
    data["combat"]["double_one_passes"] = False
    check(registry, data, {"broken": {0: Fraction(3, 16), 1: Fraction(13, 16)}})


def test_several_rounds_to_a_result_with_the_charge_bonus_in_the_first_only(registry: Registry) -> None:
    """The standoff's +1 as a charge bonus, two rounds, Discipline 7, never Steadfast. Round 1 is as above:
    the Guards break with 1/2. Round 2 has no bonus: each side loses by 1 with 3/16 and then breaks on more
    than 6 (21/36). P(Guards break) = 1/2 + 1/2 x 3/16 x 21/36; P(Knights break) = 1/2 x 3/16 x 21/36;
    neither: the rest, 1/2 - 2 x 1/2 x 3/16 x 21/36."""
    data = combat(unit("Knights", 4, combat_score={"charge": 1}), unit("Guards", 4, steadfast="never"), rounds=2)
    late = Fraction(1, 2) * Fraction(3, 16) * (1 - TWO_2D6_AT_MOST[6])
    check(
        registry,
        data,
        {
            "broken": {0: Fraction(1, 2) - 2 * late, 1: Fraction(1, 2) + late, 2: late},
            "rounds": {1: Fraction(1, 2), 2: Fraction(1, 2)},
        },
    )


def test_the_example_combat_agrees_between_the_evaluators(registry: Registry) -> None:
    """examples/t9a-combat.toml, several rounds: every chance it reports, exact against Monte Carlo."""
    scenario = mathhammer.load_scenario(EXAMPLES / "t9a-combat.toml", registry=registry)
    exact = mathhammer.evaluate_exact(scenario, registry=registry)
    simulated = mathhammer.simulate(scenario, trials=TRIALS, seed=5, registry=registry)
    evaluators_agree(exact, simulated)
    assert sum(exact.chance(f"P({s} breaks)") for s in ("Greatswords", "Spearmen")) == pytest.approx(
        exact.chance("P(the loser breaks)"), abs=1e-12
    )
    assert np.isclose(exact["broken"].pmf.sum(), 1.0, atol=1e-12)


def test_the_break_test_dice_come_after_the_round(registry: Registry) -> None:
    """Scripted dice, in the order of docs/architecture.md: the Knights hit (6) and wound (6), the save die
    (1) fails; the Guards miss (1); the Guards lose 2 to 0 and roll 3 + 3 = 6 against 7 - 2 = 5: they break."""
    scenario = mathhammer.scenario_from_data(standoff(7, steadfast="never"), registry=registry)
    replay = mathhammer.replay(scenario, [6, 6, 1, 1, 3, 3], registry=registry)
    contest = [e for e in replay["events"] if e["event"] == "contest"]
    assert contest == [
        {
            "event": "contest",
            "attacker_score": 2,
            "target_score": 0,
            "loser": "target",
            "roll": 6,
            "hold_at_most": 5,
            "held": False,
        }
    ]
    assert replay["counters"] == {"rounds": 1, "outcome": 0, "winner": 1, "broken": 1}


def test_attributes_and_health_pools_of_several_hp_agree_between_the_evaluators(registry: Registry) -> None:
    """Trolls (3 HP, Regeneration) against Knights with Lethal Strike and Multiple Wounds (D3), capped at the
    HP and carried through the Health Pool: the chain's one-die losses, summed, against Monte Carlo."""
    knights = unit(
        "Knights",
        8,
        width=4,
        Arm=3,
        supporting_attacks=1,
        attack={"Att": 2, "Str": 5, "AP": 1, "attributes": ["Lethal Strike", "Multiple Wounds (D3)"]},
        combat_score={"charge": 1, "standard": 1},
    )
    trolls = unit("Trolls", 4, width=2, HP=3, Arm=2, Regeneration="5+", Agi=2, steadfast="always", attack={"Att": 3})
    exact, simulated = both(registry, combat(knights, trolls, rounds=4))
    evaluators_agree(exact, simulated)


def test_the_command_line_reports_the_round_and_the_break_test(capsys: pytest.CaptureFixture[str]) -> None:
    """`mathhammer simulate --exact` prints each side's chance to win the round and the loser's to break;
    `--json` carries them under chances."""
    example = str(EXAMPLES / "t9a-combat.toml")
    assert run_cli(["simulate", example, "--exact"]) == 0
    text = capsys.readouterr().out
    for line in (
        "P(Greatswords wins the last round fought) = ",
        "P(Spearmen wins the last round fought) = ",
        "P(the loser breaks) = ",
        "P(Spearmen breaks) = ",
        "Greatswords: HP lost (wounds Spearmen caused)",
    ):
        assert line in text
    assert run_cli(["simulate", example, "--exact", "--json"]) == 0
    chances = json.loads(capsys.readouterr().out)["chances"]
    assert chances["P(the loser breaks)"]["p"] == pytest.approx(
        chances["P(Spearmen breaks)"]["p"] + chances["P(Greatswords breaks)"]["p"], abs=1e-12
    )


@pytest.mark.parametrize(
    ("edit", "field", "says"),
    [
        ({"combat": {"strike_order": "charger"}}, "combat.strike_order", "agility"),
        ({"combat": {"rounds": 0}}, "combat.rounds", "1 to 100"),
        ({"attacker": {"width": 0}}, "attacker.width", "1 to"),
        ({"target": {"Disc": 11}}, "target.Disc", "0 to 10"),
        ({"target": {"steadfast": "sometimes"}}, "target.steadfast", "ranks"),
        ({"attacker": {"champion": True}, "rules": {"revision": "A"}}, "attacker.champion", "Champion"),
        ({"attacker": {"attack": {**ATTACK, "models": 5}}}, "attacker.attack.models", "front rank"),
        ({"attacker": {"attack": {**ATTACK, "Off": 11}}}, "attacker.attack.Off", "0 to 10"),
        ({"attack": [ATTACK]}, "attack", "[attacker.attack]"),
        ({"target": {"combat_score": {"banner": 1}}}, "target.combat_score.banner", ""),
        ({"target": {"name": "Knights"}}, "target.name", "own name"),
    ],
)
def test_bad_combat_input_names_the_field(registry: Registry, edit: dict[str, Any], field: str, says: str) -> None:
    data = combat(unit("Knights", 4), unit("Guards", 4))
    for key, value in edit.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
    with pytest.raises(ScenarioError) as info:
        mathhammer.compile_scenario(
            mathhammer.scenario_from_data(data, source="combat.toml", registry=registry), registry=registry
        )
    assert info.value.field == field
    assert says in str(info.value)


def test_a_combat_too_large_to_chain_is_declined_and_simulated(registry: Registry) -> None:
    """Two units of 500 one-HP models: 501 x 501 states is past the chain's limit; Monte Carlo runs it."""
    data = combat(unit("Knights", 500, width=10), unit("Guards", 500, width=10))
    scenario = mathhammer.scenario_from_data(data, registry=registry)
    with pytest.raises(DeclinedError, match="states"):
        mathhammer.evaluate_exact(scenario, registry=registry)
    assert mathhammer.evaluate(scenario, registry=registry, trials=2_000, seed=1).evaluator == "monte_carlo"
