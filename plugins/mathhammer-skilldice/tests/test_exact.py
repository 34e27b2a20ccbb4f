"""The d12 skill-dice system evaluated exactly: against fractions enumerated by hand here
(independently of the core) to 1e-12, and against Monte Carlo within five standard errors.

An attack's harm lands in the order Monte Carlo resolves it: the damage of every hit that is
not a Critical Hit first, then, attack by attack, Critical Hits, Direct Damage and Hazardous.
A Battle Shock test is counted only while the unit stands, so that order decides the count.
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer import Result
from mathhammer.testing import assert_mean, run_cli
from mathhammer_skilldice.rules import hp_lost

from .conftest import EXAMPLES, scenario_data
from .test_skilldice import attack_roll

README = Path(__file__).resolve().parents[1] / "README.md"
Pmf = dict[int, Fraction]


def evaluate(data: dict[str, Any], registry: mathhammer.Registry, evaluator: str = "exact") -> Result:
    scenario = mathhammer.scenario_from_data(data, registry=registry)
    if evaluator == "monte_carlo":
        return mathhammer.simulate(scenario, trials=200_000, seed=2026, registry=registry)
    return mathhammer.evaluate(scenario, evaluator="exact", registry=registry)


def assert_pmf(result: Result, stage: str, expected: Pmf) -> None:
    got = result[stage].pmf
    for v in range(max(len(got), max(expected) + 1)):
        want = float(expected.get(v, Fraction(0)))
        have = float(got[v]) if v < len(got) else 0.0
        assert have == pytest.approx(want, abs=1e-12), f"{stage}[{v}]: {have} vs {want}"


def assert_agree(exact: Result, simulated: Result) -> None:
    """Every stage's simulated mean within five standard errors of the exact one."""
    assert exact.evaluator == "exact"
    for name, stage in exact.stages.items():
        assert sum(stage.pmf) == pytest.approx(1.0, abs=1e-12), name
        assert_mean(simulated[name], stage.mean)


# One attack of a Skill 3 model with a D6 rifle against DC 15: its outcomes, by hand.
# ("hit", damage rolled) goes through the thresholds with the other hits; ("critical",) deals the
# rifle's largest Damage after them; ("direct",) is the Inflict's Direct Damage 1 after them;
# ("hazard",) costs the attacker 1 HP.
Token = tuple[tuple[str, ...], ...]


def tokens() -> Iterator[tuple[Token, Fraction]]:
    """Each way one attack can go, with its chance: Hazardous 1, Inflict Direct Damage 1."""
    for (hit, cls), chance in attack_roll().items():
        if cls == "=":
            yield (("critical",),), chance
            continue
        if not hit:
            yield ((("hazard",),) if cls == "P" else ()), chance
            continue
        held = ("direct",) if cls == "F" else ("hazard",)
        for d in range(1, 7):
            yield (("hit", str(d)), held), chance / 6


def resolve(attacks: tuple[Token, ...], hp: int, held_first: bool = False) -> tuple[int, int, int]:
    """HP lost, Battle Shock tests and attacker HP lost by attacks against a unit of ``hp`` HP
    (Minor 2, Major 3): hits' damage first, then the held harm in attack order (or, with
    ``held_first``, the other way round)."""
    hits = [int(part[1]) for token in attacks for part in token if part[0] == "hit"]
    held = [part[0] for token in attacks for part in token if part[0] != "hit"]
    left, shock, hazard = hp, 0, 0

    def damage(d: int) -> None:
        nonlocal left, shock
        if left == 0:
            return
        shock += d >= 6
        left = max(0, left - hp_lost(d, 2, 3))

    def harm(what: str) -> None:
        nonlocal left, hazard
        if what == "critical":
            damage(6)
        elif what == "direct":
            left = max(0, left - 1)
        else:
            hazard += 1

    def all_hits() -> None:
        for d in hits:
            damage(d)

    def all_held() -> None:
        for what in held:
            harm(what)

    for step in (all_held, all_hits) if held_first else (all_hits, all_held):
        step()
    return hp - left, shock, hazard


def outcomes(n: int, hp: int, held_first: bool = False) -> dict[str, Pmf]:
    """The pmfs of HP lost, Battle Shock tests and attacker HP lost by n attacks, by enumeration."""
    out: dict[str, Pmf] = {"damage": {}, "battle_shock": {}, "attacker_damage": {}}
    ways = list(tokens())
    for combo in itertools.product(ways, repeat=n):
        chance = Fraction(1)
        for _, c in combo:
            chance *= c
        lost, shock, hazard = resolve(tuple(t for t, _ in combo), hp, held_first)
        for stage, v in zip(out, (lost, shock, hazard), strict=True):
            out[stage][v] = out[stage].get(v, Fraction(0)) + chance
    return out


def rifle(models: int, target_models: int, hp_per_model: int) -> dict[str, Any]:
    data = scenario_data(
        {"models": models, "keywords": ["Hazardous 1"], "inflict": "Direct Damage 1"},
        {"models": target_models, "hp_per_model": hp_per_model},
    )
    data["attacker"].update(models=models, hp_per_model=2)
    return data


def test_a_single_attack_exactly(registry: mathhammer.Registry) -> None:
    """One attack against a unit it cannot destroy: every stage's whole distribution."""
    expected = outcomes(1, 100)
    result = evaluate(rifle(1, 100, 1), registry)
    for stage, pmf in expected.items():
        assert_pmf(result, stage, pmf)
    hit = sum((c for (hits, _), c in attack_roll().items() if hits), Fraction(0))
    assert_pmf(result, "hits", {0: 1 - hit, 1: hit})
    assert_pmf(result, "critical_hits", {0: Fraction(132, 144), 1: Fraction(12, 144)})


def test_a_two_model_unit_counts_battle_shock_in_monte_carlo_order(registry: mathhammer.Registry) -> None:
    """Three attacks on two models of 2 HP (4 HP): once the unit is destroyed no test is counted,
    so the count depends on the order harm lands; exact and Monte Carlo both follow hits first,
    then Critical Hits and Direct Damage, and the other order would give another count."""
    expected = outcomes(3, 4)
    data = rifle(3, 2, 2)
    exact = evaluate(data, registry)
    for stage, pmf in expected.items():
        assert_pmf(exact, stage, pmf)
    models = {m: Fraction(0) for m in range(3)}
    for lost, chance in expected["damage"].items():
        models[2 - -(-(4 - lost) // 2)] += chance
    assert_pmf(exact, "models_destroyed", models)
    simulated = evaluate(data, registry, "monte_carlo")
    assert_agree(exact, simulated)
    other = outcomes(3, 4, held_first=True)["battle_shock"]
    mean = float(sum(v * c for v, c in expected["battle_shock"].items()))
    other_mean = float(sum(v * c for v, c in other.items()))
    # The other order's count is off by far more than the 1e-12 the exact pmf is held to.
    assert abs(other_mean - mean) > 1e-3, "the order must matter here"


@pytest.mark.parametrize("first", ["attacker", "target"])
def test_a_duel_exactly_for_either_first_striker(registry: mathhammer.Registry, first: str) -> None:
    """One model a side, every hit destroys: the first striker wins with its P(hit) times
    1 + m + ... + m^9, m = P(both miss a round), the second with its miss first."""
    from .test_skilldice import duel, p

    red, blue = p(attack_roll(skill=3), hit=True), p(attack_roll(skill=1), hit=True)
    m = (1 - red) * (1 - blue)
    rounds = sum((m**k for k in range(10)), Fraction(0))
    a, b = (red, blue) if first == "attacker" else (blue, red)
    first_wins, second_wins = a * rounds, (1 - a) * b * rounds
    red_wins, blue_wins = (first_wins, second_wins) if first == "attacker" else (second_wins, first_wins)
    result = evaluate(duel(first), registry)
    for label, expected in [
        ("P(Red wins)", red_wins),
        ("P(Blue wins)", blue_wins),
        ("P(both stand after 10 rounds)", m**10),
        ("P(both destroyed)", Fraction(0)),
    ]:
        assert result.chance(label) == pytest.approx(float(expected), abs=1e-12), label
    # A fight of k rounds ends in round k, or lasts all ten.
    ends = {k: m ** (k - 1) * (1 - m) for k in range(1, 10)} | {10: m**9}
    assert_pmf(result, "rounds", ends)


def heal_fight(power: str, heal: str) -> dict[str, Any]:
    """Red (2 models of 1 HP) heals each round (Difficulty 1: always) while Blue's sure blows cost it
    1 HP a round; Red's weapon does nothing."""
    from .test_skilldice import duel

    data = duel(rounds=10)
    data["attacker"].update(models=2, dc=1)
    data["attacker"]["weapons"][0].update(damage="0")
    data["attacker"]["powers"] = [{"name": "Mend", "skill": 0, "difficulty": 1, "power": power}]
    data["target"]["weapons"][0].update(skill=20, damage="1")
    data["rules"] = {"heal": heal}
    return data


@pytest.mark.parametrize("evaluator", ["exact", "monte_carlo"])
@pytest.mark.parametrize(
    ("power", "heal", "chance", "healed", "models"),
    [
        # Heal cannot bring back the fallen model nor give the survivor more than its 1 HP: Red
        # falls in round 2 (round 1's heal finds it unhurt).
        ("Heal 1", "surviving_models", "P(Blue wins)", 0, 2),
        # Up to the starting HP, the survivor holds the second HP: each round's heal undoes the blow.
        ("Heal 1", "starting_hp", "P(both stand after 10 rounds)", 9, 1),
        # Restore returns the model with the HP (the last blow of round 10 removes it again).
        ("Restore 1", "surviving_models", "P(both stand after 10 rounds)", 9, 1),
    ],
)
def test_healing_in_each_reading(
    registry: mathhammer.Registry, evaluator: str, power: str, heal: str, chance: str, healed: int, models: int
) -> None:
    result = evaluate(heal_fight(power, heal), registry, evaluator)
    assert result.chance(chance) == pytest.approx(1.0, abs=1e-12)
    assert result["hp_healed"].pmf[healed] == pytest.approx(1.0, abs=1e-12)
    assert result["attacker_models_destroyed"].pmf[models] == pytest.approx(1.0, abs=1e-12)
    assert result.rule_versions["heal"] == heal


def test_heal_readings_in_a_fight(registry: mathhammer.Registry) -> None:
    """Four Red (3 HP each; one casts Heal 3, Difficulty 7) against three Blue (3 HP each), Damage 3,
    Blue striking first: healing up to the starting HP moves P(Red wins) from 0.354 to 0.494.
    Both evaluators agree on every stage in each reading."""
    unit = {"hp_per_model": 3, "dc": 15, "minor": 2, "major": 3}
    data: dict[str, Any] = {
        "ruleset": "skilldice",
        "fight": {"rounds": 10, "first": "target"},
        "attacker": {
            "name": "Red",
            "models": 4,
            **unit,
            "weapons": [{"name": "Sword", "models": 3, "skill": 3, "damage": "3"}],
            "powers": [{"name": "Mend", "skill": 0, "difficulty": 7, "power": "Heal 3"}],
        },
        "target": {
            "name": "Blue",
            "models": 3,
            **unit,
            "weapons": [{"name": "Axe", "models": 3, "skill": 3, "damage": "3"}],
        },
    }
    wins = {}
    for heal in ("surviving_models", "starting_hp"):
        data["rules"] = {"heal": heal}
        exact = evaluate(data, registry)
        assert_agree(exact, evaluate(data, registry, "monte_carlo"))
        wins[heal] = exact.chance("P(Red wins)")
    assert wins["surviving_models"] == pytest.approx(0.354, abs=5e-4)
    assert wins["starting_hp"] == pytest.approx(0.494, abs=5e-4)


def readme_blocks(*, raw: bool = False) -> list[Any]:
    """The README's fenced TOML blocks naming a ruleset (scenario files and a profile library), parsed or
    (``raw``) as text."""
    blocks = [b for b in re.findall(r"```toml\n(.*?)```", README.read_text(), re.S) if "ruleset" in tomllib.loads(b)]
    return blocks if raw else [tomllib.loads(b) for b in blocks]


def readme_scenarios() -> list[dict[str, Any]]:
    """The README's scenario files."""
    return [data for data in readme_blocks() if "attackers" not in data]


def test_the_readme_library_compares_exactly(
    registry: mathhammer.Registry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's profile library compares (its attacker keeps its own models), each cell the scenario
    it stands for, evaluated exactly."""
    (library,) = [block for block in readme_blocks(raw=True) if "[attackers." in block]
    path = tmp_path / "library.toml"
    path.write_text(library)
    assert run_cli(["compare", str(path), "--exact", "--json"]) == 0
    (cell,) = json.loads(capsys.readouterr().out)["cells"]
    data = tomllib.loads(library)
    scenario = {
        "ruleset": "skilldice",
        "rules": data["rules"],
        "attacker": {k: v for k, v in data["attackers"]["Vanguard"].items() if k != "points"},
        "target": data["targets"]["Raiders"],
    }
    alone = evaluate(scenario, registry)
    assert cell["result"]["evaluator"] == "exact"
    assert abs(cell["result"]["damage"]["mean"] - alone["damage"].mean) <= 1e-12
    assert abs(cell["result"]["models_destroyed"]["mean"] - alone["models_destroyed"].mean) <= 1e-12


@pytest.mark.parametrize(
    "data",
    [
        *readme_scenarios(),
        *(tomllib.loads((EXAMPLES / name).read_text()) for name in ("skilldice-vanguard.toml", "skilldice-fight.toml")),
    ],
    ids=lambda data: str(data["attacker"]["name"]) + (" fight" if "fight" in data else ""),
)
def test_the_readme_cases_and_examples_are_exact(registry: mathhammer.Registry, data: dict[str, Any]) -> None:
    """What the README says is evaluated exactly is, and agrees with Monte Carlo."""
    exact = evaluate(data, registry)
    assert_agree(exact, evaluate(data, registry, "monte_carlo"))
    auto = mathhammer.evaluate(mathhammer.scenario_from_data(data, registry=registry), registry=registry)
    assert auto.evaluator == "exact"


def test_a_fight_too_large_declines_and_auto_falls_back(registry: mathhammer.Registry) -> None:
    """A fight whose units have too many states is declined, naming why; auto runs Monte Carlo."""
    data = tomllib.loads((EXAMPLES / "skilldice-fight.toml").read_text())
    for side in ("attacker", "target"):
        data[side].update(models=60, hp_per_model=6)
        data[side]["weapons"][0]["models"] = 60
    data["fight"]["rounds"] = 2
    scenario = mathhammer.scenario_from_data(data, registry=registry)
    with pytest.raises(mathhammer.DeclinedError, match="states"):
        mathhammer.evaluate(scenario, evaluator="exact", registry=registry)
    auto = mathhammer.evaluate(scenario, registry=registry, trials=2_000, seed=1)
    assert auto.evaluator == "monte_carlo"


def test_a_battle_shock_effect_exactly(registry: mathhammer.Registry) -> None:
    """ "Lose 2 HP unless 7+": each Battle Shock test (a Critical Hit, or a hit rolling 6) fails half
    the time and costs 2 HP more, against a unit too large to be destroyed."""
    roll = attack_roll()
    critical = Fraction(12, 144)
    shocks = 5 * ((sum((c for (hit, _), c in roll.items() if hit), Fraction(0)) - critical) * Fraction(1, 6) + critical)
    plain = evaluate(scenario_data(), registry)
    shocked = evaluate(scenario_data(battle_shock="Lose 2 HP unless 7+"), registry)
    assert shocked["battle_shock"].mean == pytest.approx(float(shocks), abs=1e-12)
    assert shocked["damage"].mean == pytest.approx(plain["damage"].mean + float(shocks), abs=1e-12)


@pytest.mark.parametrize(
    ("advantage", "reading", "sixes"),
    [(False, "both_dice", (-1,)), (True, "both_dice", (1, -1)), (True, "cancel", ())],
)
def test_a_shaken_unit_strikes_back_with_disadvantage_exactly(
    registry: mathhammer.Registry, advantage: bool, reading: str, sixes: tuple[int, ...]
) -> None:
    """ "Shaken" marks the unit for the rest of the round: Red's sure blow shakes Blue, whose 11
    survivors strike back with -1d6 (with Advantage too: both dice, or, cancelling, neither)."""
    from .test_skilldice import p, shaken_fight

    result = evaluate(shaken_fight("Shaken", advantage, reading, models=12), registry)
    expected = 11 * p(attack_roll(skill=3, sixes=sixes), hit=True)
    assert result["return_hits"].mean == pytest.approx(float(expected), rel=1e-12)


# --- units starting below full HP, and casters that fall ------------------------------------------


def test_a_target_below_full_exactly(registry: mathhammer.Registry) -> None:
    """Three attacks on two models of 2 HP left at 3 HP (one wounded): the HP pool, the Battle
    Shock tests and Hazardous by enumeration from 3 HP; models removed counted from the two
    standing, ceil(HP / 2) of them at each HP."""
    expected = outcomes(3, 3)
    data = rifle(3, 3, 2)
    data["target"]["hp"] = 3
    exact = evaluate(data, registry)
    for stage, pmf in expected.items():
        assert_pmf(exact, stage, pmf)
    models: Pmf = {}
    for lost, chance in expected["damage"].items():
        gone = 2 - -(-(3 - lost) // 2)
        models[gone] = models.get(gone, Fraction(0)) + chance
    assert_pmf(exact, "models_destroyed", models)
    assert_agree(exact, evaluate(data, registry, "monte_carlo"))


def below_full_heal_fight(power: str, heal: str) -> dict[str, Any]:
    """Red, three models of 2 HP left at 3 HP (two standing, one wounded), casts ``power`` each
    round (Difficulty 1: always) before its harmless Sword; Blue's sure blow then costs it 1 HP."""
    data = heal_fight(power, heal)
    data["attacker"].update(models=3, hp_per_model=2, hp=3)
    data["attacker"]["weapons"][0].update(models=2)
    return data


@pytest.mark.parametrize("evaluator", ["exact", "monte_carlo"])
@pytest.mark.parametrize(
    ("power", "heal", "healed", "hp_lost"),
    [
        # Round 1 finds Red at its starting 3 HP; Blue's blow leaves one model of 2 HP, which the
        # survivors' cap holds at 2 until the next blow: HP 2, 1, then +1 -1 from round 3.
        ("Heal 1", "surviving_models", 8, 2),
        # Up to the starting HP (3, not the 6 of a whole unit): the survivor holds a third HP from
        # round 2, and each round's heal undoes the blow after.
        ("Heal 1", "starting_hp", 9, 1),
        # Restore returns the second model at 3 HP each round; the blow takes it again.
        ("Restore 1", "surviving_models", 9, 1),
    ],
)
def test_a_unit_below_full_heals_up_to_the_hp_it_starts_with(
    registry: mathhammer.Registry, evaluator: str, power: str, heal: str, healed: int, hp_lost: int
) -> None:
    result = evaluate(below_full_heal_fight(power, heal), registry, evaluator)
    assert result.chance("P(both stand after 10 rounds)") == pytest.approx(1.0, abs=1e-12)
    assert result["hp_healed"].pmf[healed] == pytest.approx(1.0, abs=1e-12)
    assert result["attacker_damage"].pmf[hp_lost] == pytest.approx(1.0, abs=1e-12)
    # One of the two models standing at the start is gone in the end.
    assert result["attacker_models_destroyed"].pmf[1] == pytest.approx(1.0, abs=1e-12)


def test_a_fight_where_both_start_below_full(registry: mathhammer.Registry) -> None:
    """Red and Blue, each three models of 2 HP at 3 HP, strike with sure blows of 1 HP, Red first:
    Red's two leave Blue one model at 1 HP, whose blow leaves Red one model; Red's next blow ends
    it in round 2. With random blows and a healer on each reading both evaluators agree."""
    unit = {"models": 3, "hp_per_model": 2, "hp": 3, "dc": 1, "minor": 1, "major": 2}
    sure = {"skill": 20, "damage": "1"}
    data: dict[str, Any] = {
        "ruleset": "skilldice",
        "fight": {"rounds": 10, "first": "attacker"},
        "attacker": {"name": "Red", **unit, "weapons": [{"name": "Sword", "models": 3, **sure}]},
        "target": {"name": "Blue", **unit, "weapons": [{"name": "Axe", "models": 3, **sure}]},
    }
    result = evaluate(data, registry)
    assert result.chance("P(Red wins)") == pytest.approx(1.0, abs=1e-12)
    assert_pmf(result, "rounds", {2: Fraction(1)})
    assert_pmf(result, "damage", {3: Fraction(1)})
    assert_pmf(result, "models_destroyed", {2: Fraction(1)})
    assert_pmf(result, "attacker_damage", {1: Fraction(1)})
    assert_pmf(result, "attacker_models_destroyed", {1: Fraction(1)})
    random = {"hp_per_model": 3, "dc": 15, "minor": 2, "major": 3}
    data["fight"]["first"] = "target"
    mend = {"name": "Mend", "skill": 0, "difficulty": 7, "power": "Heal 3"}
    data["attacker"].update(models=4, hp=10, **random, powers=[mend])
    data["target"].update(models=3, hp=7, **random)
    for weapon in (data["attacker"]["weapons"][0], data["target"]["weapons"][0]):
        weapon.update(skill=3, damage="3", models=3)
    for heal in ("surviving_models", "starting_hp"):
        data["rules"] = {"heal": heal}
        assert_agree(evaluate(data, registry), evaluate(data, registry, "monte_carlo"))


def test_a_second_caster_falls_mid_fight(registry: mathhammer.Registry) -> None:
    """Red's three 1-HP models: a Sword, Boon's caster (listed first, last to fall) and Mend's
    (Restore 1, Difficulty 7: one roll in two), who casts only while two Red stand. Blue's sure
    blow comes first each round. From 3 Red the blow leaves 2 and Mend brings back the third half
    the time; from 2 it leaves 1, Mend's caster fallen; from 1 Blue wins. By enumeration."""
    from .test_text_rules import fight

    red = {
        "models": 3,
        "weapons": [{"name": "Sword", "models": 1, "skill": -20, "damage": "0"}],
        "powers": [
            {"name": "Boon", "skill": 0, "difficulty": 1, "power": "Advantage"},
            {"name": "Mend", "skill": 0, "difficulty": 7, "power": "Restore 1"},
        ],
    }
    data = fight(red, {})
    half = Fraction(1, 2)
    # (Red standing after its turn, HP restored) -> chance; Blue wins once Red is gone.
    states: dict[tuple[int, int], Fraction] = {(3, 0): Fraction(1)}
    blue_wins, healed = Fraction(0), {}
    for _ in range(10):
        after: dict[tuple[int, int], Fraction] = {}
        for (n, h), q in states.items():
            moves = [((3, h + 1), half), ((2, h), half)] if n == 3 else [((n - 1, h), Fraction(1))]
            for (m, k), r in moves:
                if m == 0:
                    blue_wins += q * r
                    healed[k] = healed.get(k, Fraction(0)) + q * r
                else:
                    after[(m, k)] = after.get((m, k), Fraction(0)) + q * r
        states = after
    for (_, k), q in states.items():
        healed[k] = healed.get(k, Fraction(0)) + q
    exact = evaluate(data, registry)
    assert exact.chance("P(Blue wins)") == pytest.approx(float(blue_wins), abs=1e-12)
    assert_pmf(exact, "hp_healed", healed)
    assert_agree(exact, evaluate(data, registry, "monte_carlo"))
