"""Explaining one attack step by step: the rulebook's worked examples, seeded dice, and errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mathhammer
from mathhammer import ScriptError, _core
from mathhammer.face.explain import explain

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# The dice of the specification's first worked example (Attack Sequence Examples).
FIRST_EXAMPLE = [3, 5, 6, 2, 4, 1, 3, 5, 6, 4, 2, 6, 4, 1, 5, 3, 6, 5, 3]
# The second (Attacking Attached Units): the heavy bolters' dice, then misses for the rest.
SECOND_EXAMPLE = [4, 5, 6, 4, 5, 2, 3, 4, 5, 6, 3, 1, 3, 1, 6, 4, *[1] * 15]


def told(example: str, dice: list[int] | None, seed: int | None = None) -> list[str]:
    scenario = mathhammer.load_scenario(EXAMPLES / example)
    return [line.strip() for line in explain(scenario, dice=dice, seed=seed).lines]


def test_the_first_worked_example_is_told_as_the_rulebook_tells_it() -> None:
    lines = told("attack-sequence-example.toml", FIRST_EXAMPLE)
    assert lines[:11] == [
        "1. Boltgun + Bolt pistol (attacks)",
        "5 attack dice are gathered.",  # five attack dice for the boltguns and bolt pistol
        "5 hit rolls (needs 3+): 3, 5, 6*, 2, 4. 4 of 5 succeed, 1 critical (*).",  # four of the attacks hit
        "4 wound rolls (needs 3+): 1, 3, 5, 6*. 3 of 4 succeed, 1 critical (*).",  # three wound
        "Allocation group: BLUE trooper.",
        "Save rolls, resolved from lowest to highest:",
        "▪ 2 → BLUE trooper (Sv 3+, InSv 5+): inflicts damage.",  # less than both InSv and Sv
        "1 damage to one BLUE trooper model.",
        "One BLUE trooper model is destroyed (4 left in its group).",
        "▪ 4 → BLUE trooper (Sv 3+, InSv 5+): the attack fails (saved by Sv 3+).",  # below InSv, reaches Sv 3+
        "▪ 6 → BLUE trooper (Sv 3+, InSv 5+): the attack fails (saved by Sv 3+; InSv 5+ would too).",
    ]
    heavy = lines[lines.index("2. Heavy bolter (attacks)") :]
    assert "3 hit rolls (needs 4+): 4, 1, 5. 2 of 3 succeed." in heavy  # two of the attacks hit
    assert "2 wound rolls (needs 3+): 3, 6*. 2 of 2 succeed, 1 critical (*)." in heavy  # both wound
    # "The lowest result, when modified by the AP of -1, is less than Sv 3+"; "the other equals InSv 5+".
    assert "▪ 3 (modified to 2) → BLUE trooper (Sv 3+, InSv 5+): inflicts damage." in heavy
    saved = "the attack fails (saved by Sv 3+; InSv 5+ would too)."
    assert f"▪ 5 (modified to 4) → BLUE trooper (Sv 3+, InSv 5+): {saved}" in heavy
    assert lines[-1].endswith("Damage dealt 2, Models destroyed 2.")


def test_the_second_worked_example_tells_groups_order_and_where_each_save_went() -> None:
    lines = told("attached-unit-example.toml", SECOND_EXAMPLE)
    assert "Allocation order: Geminae Superia (first), Seraphim (second), Saint Celestine (third)." in lines
    saves = [line for line in lines if line.startswith("▪")]
    assert saves == [
        # the two 1s go to the Geminae Superia, one unwounded model each
        "▪ 1 (modified to 0) → Geminae Superia, an unwounded model (Sv 2+, InSv 4+): inflicts damage.",
        "▪ 1 (modified to 0) → Geminae Superia, an unwounded model (Sv 2+, InSv 4+): inflicts damage.",
        "▪ 3 (modified to 2) → Seraphim (Sv 3+, InSv 6+): inflicts damage.",  # the 3 to the Seraphim, AP-1
        "▪ 4 (modified to 3) → Seraphim (Sv 3+, InSv 6+): the attack fails (saved by Sv 3+).",  # the rest fail
        "▪ 6 (modified to 5) → Seraphim (Sv 3+, InSv 6+): the attack fails (saved by Sv 3+; InSv 6+ would too).",
    ]
    destroyed = [line for line in lines if "is destroyed" in line]
    assert destroyed == [
        "One Geminae Superia model is destroyed (1 left in its group).",
        "One Geminae Superia model is destroyed (0 left in its group).",
        "One Seraphim model is destroyed (4 left in its group).",
    ]


def test_keywords_are_named_where_they_fire() -> None:
    scenario = mathhammer.load_scenario(EXAMPLES / "keywords.toml")
    text = explain(scenario, seed=3).to_text()
    # Sustained Hits 1 and Lethal Hits on critical hits, Devastating Wounds on critical wounds.
    assert "critical hit rolls: 1 more success each (Sustained Hits)." in text
    assert "critical hit rolls: passes the next test automatically (Lethal Hits)." in text
    assert (
        "critical wound rolls: the weapon's damage in mortal wounds, and the attack ends (Devastating Wounds)." in text
    )
    # This version of Devastating Wounds holds its mortal wounds until every attack is resolved;
    # the Hazardous roll of the plasma gun comes first.
    hazardous = text.index("Roll 2 (fails on a 1): passes.")
    assert text.index("After every attack: the harm held until now is resolved.") > hazardous


def test_a_seed_tells_the_same_attack_every_time_and_its_dice_replay_it() -> None:
    scenario = mathhammer.load_scenario(EXAMPLES / "attached-unit-example.toml")
    first, again = explain(scenario, seed=11), explain(scenario, seed=11)
    assert first.dice == again.dice and first.lines == again.lines and first.seed == 11
    replayed = explain(scenario, dice=first.dice)
    assert replayed.lines == first.lines and replayed.seed is None


def test_seeded_dice_are_fair() -> None:
    # Ten boltguns, two attacks each, hitting on 3+: 40/3 hits on average, sd sqrt(20 * 2/9).
    scenario = mathhammer.load_scenario(EXAMPLES / "boltguns.toml")
    n = 300
    hits = [explain(scenario, seed=s).replay["counters"]["hits"] for s in range(n)]
    mean, se = sum(hits) / n, (20 * 2 / 9) ** 0.5 / n**0.5
    assert abs(mean - 40 / 3) < 5 * se


def test_dice_that_run_out_say_what_to_do() -> None:
    scenario = mathhammer.load_scenario(EXAMPLES / "boltguns.toml")
    with pytest.raises(ScriptError, match=r"ran out after 3 values; roll 4 \(a d6\) has no value; give more dice"):
        explain(scenario, dice=[1, 2, 3])
    with pytest.raises(ScriptError, match="value 7 at position 0 does not fit a d6; fix that value"):
        explain(scenario, dice=[7, *[1] * 40])


def test_narration_follows_the_plan_not_the_ruleset() -> None:
    # A hand-made Plan and trace: the wound roll's critical takes its own save (AP-10),
    # resolved after the pool's saves.
    from mathhammer.face.explain import narrate
    from mathhammer.plan import AttackPool, Attacks, Effect, Group, Plan, Save, Target, Test

    own = Effect(on="critical", action="own_save", save=Save(ap=-10))
    plan = Plan(
        counters=["wounds"],
        target=Target(groups=[Group(name="Trolls", models=4, wounds=3, save=4)], order=[0]),
        sequences=[
            AttackPool(
                name="Greatswords",
                attacks=[Attacks(models=2, dice="1")],
                steps=[Test(name="wound", target=3, counter="wounds", effects=[own])],
                save=Save(ap=-1),
                damage="1",
            )
        ],
    )
    events = [
        {"event": "sequence", "index": 0, "name": "Greatswords"},
        {"event": "attacks", "count": 2},
        {"event": "test", "step": 0, "roll": 4, "rerolled_from": None, "outcome": "success"},
        {"event": "test", "step": 0, "roll": 6, "rerolled_from": None, "outcome": "critical"},
        {"event": "order", "groups": ["Trolls"]},
        {"event": "save", "roll": 5, "group": "Trolls", "saved": True},
        {"event": "save", "roll": 5, "group": "Trolls", "saved": False},
        {"event": "damage", "group": "Trolls", "amount": 1},
        {"event": "new_kind", "detail": 1},
    ]
    lines = [line.strip() for line in narrate(plan, {"events": events, "counters": {"wounds": 2}}, {})]
    assert lines[2:] == [
        "2 wound rolls (needs 3+): 4, 6*. 2 of 2 succeed, 1 critical (*).",
        "1 critical wound roll: takes its own save.",
        "Allocation group: Trolls.",
        "Save rolls, resolved from lowest to highest:",
        "▪ 5 (modified to 4) → Trolls (Sv 4+): the attack fails (saved by Sv 4+).",
        "▪ 5 (modified to -5) → Trolls (Sv 4+) with its own save: inflicts damage.",
        "1 damage to one Trolls model.",
        "new_kind: detail=1",  # an event this narrator does not know yet is still shown
        "",
        "In all: wounds 2, damage 0, models destroyed 0.",
    ]


def test_an_automatic_test_is_told_though_it_rolls_nothing(tmp_path: Path) -> None:
    flamer = (EXAMPLES / "boltguns.toml").read_text().replace('damage = "1"', 'damage = "1"\nkeywords = ["Torrent"]')
    path = tmp_path / "flamers.toml"
    path.write_text(flamer)
    lines = [line.strip() for line in explain(mathhammer.load_scenario(path), seed=1).lines]
    assert lines[1:3] == ["20 attack dice are gathered.", "No hit rolls: every attack succeeds automatically."]
    assert lines[3].startswith("20 wound rolls (needs 4+): ")


def test_seeded_dice_are_fair_on_every_size_of_die(tmp_path: Path) -> None:
    # D3 attacks and D12 damage, drawn by the core's stream.
    text = (EXAMPLES / "boltguns.toml").read_text().replace('attacks = "2"', 'attacks = "D3"')
    path = tmp_path / "d3.toml"
    path.write_text(text.replace('damage = "1"', 'damage = "D12"').replace("count = 10\nattacks", "count = 1\nattacks"))
    scenario = mathhammer.load_scenario(path)
    n = 600
    replays = [explain(scenario, seed=s).replay for s in range(n)]
    attacks = [r["counters"]["attacks"] for r in replays]
    mean, se = sum(attacks) / n, (2 / 3) ** 0.5 / n**0.5  # D3: mean 2, variance 2/3
    assert abs(mean - 2) < 5 * se
    assert {1, 2, 3} == set(attacks)
    damage = [e["amount"] for r in replays for e in r["events"] if e["event"] == "damage"]
    mean, se = sum(damage) / len(damage), (143 / 12) ** 0.5 / len(damage) ** 0.5  # D12: 6.5, variance 143/12
    assert abs(mean - 6.5) < 5 * se and max(damage) > 6


def test_a_seeded_horde_is_explained_quickly() -> None:
    # 20 Ork Boyz, three attacks each, and more: hundreds of dice, drawn in one pass.
    from mathhammer.compare import pairing, read_profiles

    profiles = read_profiles([EXAMPLES / "profiles.toml"])
    scenario = pairing(profiles.attackers["boyz"], profiles.targets["guardsmen"])
    told = explain(scenario, seed=1)
    assert len(told.dice) > 100 and told.lines[-1].startswith("In all: Attacks 60")


def test_a_save_says_which_characteristic_saved_it() -> None:
    # Terminators (Sv 2+, InSv 4+) against AP-3: a 4 fails the armour save (1) but makes the invulnerable one.
    from mathhammer.face.explain import narrate
    from mathhammer.plan import AttackPool, Attacks, Group, Plan, Save, Target, Test

    group = Group(name="Terminator", models=5, wounds=3, save=2, invulnerable=4)
    pool = AttackPool("Lascannon", [Attacks(models=1, dice="1")], [Test(name="wound", target=2)], Save(ap=-3), "D6+1")
    plan = Plan(counters=[], target=Target(groups=[group], order=[0]), sequences=[pool])
    events = [
        {"event": "sequence", "index": 0, "name": "Lascannon"},
        {"event": "save", "roll": 4, "group": "Terminator", "saved": True},
        {"event": "save", "roll": 6, "group": "Terminator", "saved": True},
    ]
    lines = [line.strip() for line in narrate(plan, {"events": events})]
    assert lines[2:4] == [
        "▪ 4 (modified to 1) → Terminator (Sv 2+, InSv 4+): the attack fails (saved by InSv 4+).",
        "▪ 6 (modified to 3) → Terminator (Sv 2+, InSv 4+): the attack fails (saved by Sv 2+; InSv 4+ would too).",
    ]


def test_an_explanation_prints_and_shows_in_jupyter() -> None:
    told = explain(mathhammer.load_scenario(EXAMPLES / "attack-sequence-example.toml"), dice=FIRST_EXAMPLE)
    assert str(told) == told.to_text() and str(told).startswith("1. Boltgun + Bolt pistol (attacks)")
    assert told._repr_html_().startswith("<pre>1. Boltgun + Bolt pistol (attacks)") and "→" in told._repr_html_()


def test_a_roll_of_several_dice_is_told_die_by_die_with_its_class() -> None:
    """The skill-dice example, in its own words: Focus and Panic dice + Skill 3 against DC 15; a
    match is a Critical Hit, Focus higher Inflicts (1 Direct Damage), Panic higher is Hazardous;
    Damage meets the Minor and Major Thresholds (2, 3) and double Major sets off a Battle Shock test."""
    lines = told("skilldice-vanguard.toml", [6, 6, 12, 5, 2, 9, 3, 4, 10, 2, 3, 6])
    assert lines[1:5] == [
        "5 Attack Rolls are made.",
        "Attack Roll: Focus 6 + Panic 6 + Skill 3 = 15, needs 15: is a Critical Hit; Focus = Panic.",
        "→ counted in Critical Hits.",
        "→ inflicts its largest Damage.",
    ]
    assert "Attack Roll: Focus 2 + Panic 9 + Skill 3 = 14, needs 15: misses; Panic > Focus." in lines
    assert "→ 1 Direct Damage on the attacking unit (Hazardous)." in lines
    assert "→ 1 Direct Damage (Inflict Direct Damage)." in lines
    assert "Damage 3 to the Raiders (Minor 2, Major 3, double Major 6): meets Major, 2 HP lost." in lines
    assert (
        "Damage 6 to the Raiders (Minor 2, Major 3, double Major 6): meets double Major, 3 HP lost, "
        "and a Battle Shock test." in lines
    )
    assert not [line for line in lines if "mortal" in line or "wound" in line]
    assert lines[-1].startswith(
        "In all: Attacks 5, Hits 3, Critical Hits 1, Inflicts 2, Battle Shock tests 2, Panic > Focus (Hazardous) 2"
    )


def test_a_fight_is_told_with_each_unit_by_name() -> None:
    """In a fight both units attack, so harm is told by the unit it falls on: Hazardous on the
    Vanguard's own roll, and the Raiders' Inflict (Direct Damage 1) on the Vanguard too."""
    lines = told("skilldice-fight.toml", None, seed=3)
    assert "→ 1 Direct Damage on the Vanguard (Hazardous)." in lines
    assert "1 Direct Damage on the Vanguard, HP lost directly, no thresholds." in lines
    assert not [line for line in lines if "attacking unit" in line or "the target" in line]


FORTY_K_WORDS = re.compile(r"mortal|wound|gathered|one at a time|spilling|\bSv\b|InSv|\bsave", re.IGNORECASE)
"""Words of Warhammer 40,000's attack sequence that a d12 narration must not use."""


def test_a_d12_fights_summary_says_who_won_in_words() -> None:
    """The fight's outcome counter is a code (0-3) for the chances to read, not a number to tell: the
    summary says who won and what each side lost. Red hits (Focus 12, Panic 11, Skill 3 against DC 15)
    and its Damage 10 destroys Blue's one model in the first round."""
    unit = {"models": 1, "hp_per_model": 1, "dc": 15, "minor": 1, "major": 2}
    data = {
        "ruleset": "skilldice",
        "fight": {"rounds": 10},
        "attacker": {"name": "Red", **unit, "weapons": [{"name": "Sword", "models": 1, "skill": 3, "damage": "10"}]},
        "target": {"name": "Blue", **unit, "weapons": [{"name": "Axe", "models": 1, "skill": 1, "damage": "10"}]},
    }
    summary = explain(mathhammer.scenario_from_data(data), dice=[12, 11]).lines[-1]
    assert "How the fight ended" not in summary and "outcome" not in summary
    assert summary.startswith("In all: Red wins, Red: Attacks 1, Red: Hits 1, ") and "Rounds fought 1, " in summary
    assert summary.endswith("Blue: HP lost 1, Blue: models removed 1, Red: HP lost 0, Red: models removed 0.")


@pytest.mark.parametrize("example", ["skilldice-vanguard.toml", "skilldice-fight.toml", "skilldice-warband.toml"])
def test_d12_narration_uses_none_of_the_words_of_other_games(example: str) -> None:
    """Every line of a d12 narration, powers and fights included, in the system's own words: Attack
    Rolls made, Direct Damage lost directly, HP, never mortal wounds, wounds, saves or dice gathered."""
    for seed in range(6):
        lines = told(example, None, seed=seed)
        assert [line for line in lines if FORTY_K_WORDS.search(line)] == [], (example, seed)


def test_a_power_and_a_weapon_of_one_name_are_each_told_as_what_they_are() -> None:
    """The kind of a sequence goes by its place in the Plan, not its name: a power named like a weapon is
    still told as a Psychic Power, and the weapon's Attack Rolls as attacks."""
    data = {
        "ruleset": "skilldice",
        "attacker": {
            "name": "Adepts",
            "models": 2,
            "hp_per_model": 2,
            "weapons": [{"name": "Bolt", "models": 1, "skill": 3, "damage": "D6"}],
            "powers": [{"name": "Bolt", "skill": 2, "difficulty": 9, "power": "Damage 3"}],
        },
        "target": {"name": "Raiders", "models": 6, "hp_per_model": 2, "dc": 15, "minor": 2, "major": 3},
    }
    lines = [line.strip() for line in explain(mathhammer.scenario_from_data(data), seed=1).lines]
    assert lines[0] == "1. Bolt (Psychic Power)"
    assert lines[1].startswith("Bolt (psychic test): d12 ")
    power_ends = lines.index("2. Bolt (attacks)")
    assert lines[power_ends + 1] == "1 Attack Roll is made."


def test_every_d12_sum_labels_each_die_and_adds_up(tmp_path: Path) -> None:
    """Dice sums are labelled: each term of an Attack Roll or a power's test names its die (Focus, Panic,
    Advantage, Disadvantage, d12) or Skill, and the terms add up to the total told."""
    text = (EXAMPLES / "skilldice-vanguard.toml").read_text(encoding="utf-8")
    both = tmp_path / "both.toml"
    both.write_text(
        text.replace('damage = "D6"', 'damage = "D6"\nadvantage = true\ndisadvantage = true'), encoding="utf-8"
    )
    term = re.compile(r"(Focus|Panic|Advantage|Disadvantage|d12|Skill) (\d+)")
    sums = re.compile(r"(?:Attack Roll|\(psychic test\)|^)\:? ?((?:Focus|d12) .*?) = (-?\d+)")
    seen: set[str] = set()
    for scenario in (str(both), "skilldice-fight.toml", "skilldice-warband.toml"):
        for seed in range(4):
            for line in told(scenario, None, seed=seed):
                found = sums.search(line)
                if not found:
                    continue
                expression, total = found.groups()
                terms = expression.split(" ")
                signs = [1] + [1 if sign == "+" else -1 for sign in terms[2::3]]
                named = term.findall(expression)
                assert len(named) == len(signs), line
                assert sum(s * int(v) for s, (_, v) in zip(signs, named, strict=True)) == int(total), line
                seen.update(name for name, _ in named)
    assert seen == {"Focus", "Panic", "Advantage", "Disadvantage", "d12", "Skill"}


def test_a_power_is_told_as_a_psychic_power_not_an_attack() -> None:
    """A power is a Psychic Power attempted instead of an attack: headed so, with its 1d12 + Skill
    test and no Attack Roll; its Direct Damage is HP lost directly."""
    lines = told("skilldice-warband.toml", None, seed=3)
    hex_at = lines.index("3. Hex (Psychic Power)")
    assert lines[hex_at + 1] == "Hex (psychic test): d12 8 + Skill 1 = 9, needs 9: succeeds."
    assert lines[hex_at + 3] == "2 Direct Damage on the Brood, HP lost directly, no thresholds."
    assert "2. Ward (Psychic Power)" in lines
    assert not [line for line in lines if "Attack Roll is" in line and "Hex" in line]
    assert not [line for line in lines if "(attacks)" in line and ("Hex" in line or "Ward" in line)]


def test_a_powers_own_test_is_told_as_its_sum() -> None:
    """A power granting Advantage (a lasting effect) tests 1d12 + Skill against its Difficulty."""
    lines = told("skilldice-warband.toml", None, seed=4)
    ward = lines.index("2. Ward (Psychic Power)")
    assert re.fullmatch(r"d12 (\d+) \+ Skill 1 = (\d+), needs 8: (fails|passes)\.", lines[ward + 1])


def test_a_save_roll_names_the_wounded_model_it_goes_to(tmp_path: Path) -> None:
    """Damage goes to a wounded model first: a roll after a wound that did not destroy its model
    goes to that model, and the narration says so."""
    scenario_file = tmp_path / "wounded.toml"
    scenario_file.write_text(
        """
ruleset = "wh40k"
[[attacker.weapons]]
name = "Bolt rifle"
attacks = "2"
skill = "2+"
strength = 8
ap = 0
damage = "1"
[target]
name = "Terminators"
toughness = 4
[[target.models]]
name = "Terminator"
count = 2
wounds = 3
save = "4+"
""",
        encoding="utf-8",
    )
    scenario = mathhammer.load_scenario(scenario_file)
    lines = [line.strip() for line in explain(scenario, dice=[6, 6, 6, 6, 1, 2]).lines]
    saves = [line for line in lines if line.startswith("▪")]
    assert saves == [
        "▪ 1 → Terminator, an unwounded model (Sv 4+): inflicts damage.",
        "▪ 2 → Terminator, the wounded model (2 of 3 wounds left) (Sv 4+): inflicts damage.",
    ]


def test_a_seed_explains_the_trial_the_simulation_stream_draws() -> None:
    # Trial 0 of a die-by-die run with the seed is the explained trial: the one-trial histograms hold its values.
    scenario = mathhammer.load_scenario(EXAMPLES / "keywords.toml")
    compiled = mathhammer.compile_scenario(scenario)
    core_plan = compiled.plan.compile()
    for seed in (3, 42, 2**63):
        told = explain(scenario, seed=seed).replay
        histograms = dict(zip(core_plan.numbers, _core.simulate(core_plan, 1, seed, 1, die_by_die=True), strict=True))
        counters = told["counters"]
        assert isinstance(counters, dict)
        for name, value in [
            *counters.items(),
            ("damage", told["damage"]),
            ("models_destroyed", told["models_destroyed"]),
        ]:
            assert histograms[name][value] == 1, (seed, name)


MODIFIERS = Path(__file__).resolve().parents[1] / "examples" / "modifiers.toml"


def test_the_narration_names_each_modifier_as_its_pool_starts() -> None:
    lines = [line.strip() for line in explain(mathhammer.load_scenario(MODIFIERS), seed=1).lines]
    hammer, sword = lines.index("1. Thunder hammer (attacks)"), lines.index("2. Master-crafted power weapon (attacks)")
    assert lines[hammer + 1 : hammer + 8] == [
        "Modifier: AP -2 → AP -3 (-1; never above AP 0).",
        "Modifier: A 3 +1 per model (at least 1).",
        "Modifier: D 2 +1 (multiply, then add; at least 1).",
        "Modifier: the target re-rolls saves of 1.",
        "Modifier: the unit re-rolls one hit roll: the first of this weapon's that fails.",
        "Modifier: no -1 to wound: S 8 is not greater than T 9.",
        "Modifier: critical hits on an unmodified 5+.",
    ]
    assert lines[sword + 1 : sword + 7] == [
        "Modifier: S 5 → S 10 (x2; at least 1).",
        "Modifier: D D3 x2 (multiply, then add; at least 1).",
        "Modifier: a damage roll below its average is re-rolled.",
        "Modifier: the target re-rolls saves of 1.",
        "Modifier: -1 to wound: S 10 is greater than T 9 (the target's ability).",
        "Modifier: wounds on 2+ instead of the S-against-T roll.",
    ]


def test_a_rerolled_save_is_told_after_the_roll_it_replaces() -> None:
    scenario = mathhammer.load_scenario(MODIFIERS)
    for seed in range(200):
        lines = [line.strip() for line in explain(scenario, seed=seed).lines]
        rerolled = [i for i, line in enumerate(lines) if line.startswith("re-rolled: ")]
        if rerolled:
            break
    else:
        pytest.fail("no seed of 200 rolled a save of 1")
    for i in rerolled:
        assert lines[i - 1].startswith("▪ 1 ") and lines[i - 1].endswith("fails, and the defender re-rolls it."), lines


def test_a_fight_s_contest_is_told_with_the_scores_and_the_losers_roll() -> None:
    """A T9A close combat of one attack a side: the Knights kill (6, 6, save die 1), the Guards miss (1),
    and the Guards, 2 to 0 down, roll 3 + 3 = 6 against 7 - 2 = 5."""
    side = {"width": 1, "Agi": 4, "Disc": 7, "Def": 4, "Res": 3, "supporting_attacks": 0, "steadfast": "never"}
    attack = {"name": "Blades", "Off": 4, "Str": 3}
    data = {
        "ruleset": "t9a",
        "combat": {},
        "attacker": {"name": "Knights", "models": 4, **side, "combat_score": {"standard": 1}, "attack": attack},
        "target": {"name": "Guards", "models": 4, **side, "attack": attack},
    }
    lines = [line.strip() for line in explain(mathhammer.scenario_from_data(data), dice=[6, 6, 1, 1, 3, 3]).lines]
    at = lines.index("Round result")
    assert lines[at + 1 : at + 3] == [
        "Scores: Knights 2, Guards 0.",
        "Guards lost by 2 and rolls 6 (holds on 5 or less): fails and leaves the fight.",
    ]
    # The summary says who won and who broke in words, not codes, and what each side lost.
    assert lines[-1].startswith("In all: Knights wins the round, Guards breaks, Rounds fought 1, ")
    assert lines[-1].endswith("Knights: HP lost (wounds Guards caused) 0, Knights: models removed 0.")
    assert "Guards: HP lost (wounds Knights caused) 1, Guards: models removed 1" in lines[-1]
    assert not re.search(r"\b(outcome|winner|broken) \d", lines[-1])


def test_return_blows_are_told_against_the_attackers_models() -> None:
    """In a fight, the pool striking the attacker allocates to and saves with the attacker's groups."""
    scenario = mathhammer.load_scenario(EXAMPLES / "t9a-combat.toml")
    lines = [line.strip() for line in explain(scenario, seed=2).lines]
    spear = lines.index("1. Spear (attacks)")
    blows = lines[spear : lines.index("2. Great weapon (attacks)")]
    assert "Allocation group: Greatswords." in blows
    assert any(line.startswith("▪") and "→ Greatswords (Armour Save 5+)" in line for line in blows)


def test_t9a_narration_speaks_of_to_hit_and_to_wound_rolls_armour_saves_and_hp() -> None:
    """The Ninth Age in its own words: attacks made, to-hit and to-wound rolls, the Armour Save a wound
    is not saved by, and HP lost; none of another game's Sv, damage or mortal wounds."""
    scenario = mathhammer.load_scenario(EXAMPLES / "t9a-combat.toml")
    lines = [line.strip() for line in explain(scenario, seed=1).lines]
    spear = lines.index("1. Spear (attacks)")
    assert lines[spear + 1 : spear + 4] == [
        "15 attacks are made.",
        "15 to-hit rolls (needs 4+): 6, 4, 4, 6, 2, 3, 4, 3, 4, 2, 4, 2, 6, 3, 3. 8 of 15 succeed.",
        "8 to-wound rolls (needs 4+): 5, 2, 3, 1, 3, 5, 3, 4. 3 of 8 succeed.",
    ]
    assert "▪ 4 (modified to 3) → Greatswords (Armour Save 5+): is not saved." in lines
    assert "1 HP lost by one Greatswords model." in lines
    assert "▪ 6 (modified to 5) → Greatswords (Armour Save 5+): the attack fails (saved by Armour Save 5+)." in lines
    assert not [line for line in lines if re.search(r"mortal|\bSv\b|damage|gathered", line)]
