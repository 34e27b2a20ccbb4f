//! Sides that start below full (`wounds_lost`) and effects that need their
//! caster standing (`while_alive`), evaluated exactly: against values worked
//! out by hand, and against Monte Carlo within five standard errors.

use mathhammer_core::exact::evaluate;
use mathhammer_core::{simulate, Path, Plan, Program, RunOptions};
use serde_json::{json, Value};

fn program(plan: &Value) -> Program {
    Program::new(Plan::from_json(&plan.to_string()).expect("valid plan")).expect("program")
}

/// Each number's exact pmf, by name.
fn exact(plan: &Value) -> Vec<(String, Vec<f64>)> {
    let program = program(plan);
    let e = evaluate(&program).expect("exact");
    program.numbers().into_iter().zip(e.pmfs).collect()
}

/// Number `name`'s exact pmf is `expected` (to 1e-12).
fn assert_pmf(numbers: &[(String, Vec<f64>)], name: &str, expected: &[f64]) {
    let pmf = &numbers.iter().find(|n| n.0 == name).expect(name).1;
    for v in 0..pmf.len().max(expected.len()) {
        let (have, want) = (
            pmf.get(v).copied().unwrap_or(0.0),
            expected.get(v).copied().unwrap_or(0.0),
        );
        assert!((have - want).abs() < 1e-12, "{name}[{v}]: {have} vs {want}");
    }
}

/// Every number's simulated mean (200,000 trials, a fixed seed, on `path`)
/// within five standard errors of its exact mean.
fn agrees(plan: &Value, path: Path) {
    let program = program(plan);
    let e = evaluate(&program).expect("exact");
    let t = simulate(
        &program,
        RunOptions {
            trials: 200_000,
            seed: 2026,
            threads: 2,
            path,
        },
        |_, _| Ok(()),
    )
    .expect("simulated");
    let n = t.trials as f64;
    for (i, name) in program.numbers().iter().enumerate() {
        let pmf = &e.pmfs[i];
        assert!(
            (pmf.iter().sum::<f64>() - 1.0).abs() < 1e-12,
            "{name} sums to 1"
        );
        let mean: f64 = pmf.iter().enumerate().map(|(v, p)| v as f64 * p).sum();
        let var: f64 = pmf
            .iter()
            .enumerate()
            .map(|(v, p)| (v as f64 - mean).powi(2) * p)
            .sum();
        let got: f64 = t.hist[i]
            .iter()
            .enumerate()
            .map(|(v, &c)| v as f64 * c as f64)
            .sum::<f64>()
            / n;
        let se = (var / n).sqrt();
        assert!(
            (got - mean).abs() <= 5.0 * se + 1e-12,
            "{name}: simulated {got}, exact {mean} (SE {se}) on {path:?}"
        );
    }
}

/// `attacks` attacks hitting on 4+ (one in two), each removing one wound
/// carried through the group, against 3 models of 2 wounds that have lost
/// `lost` wounds.
fn volley(attacks: u32, lost: u32) -> Value {
    json!({
        "version": 1,
        "counters": [],
        "target": {"groups": [{"name": "B", "models": 3, "wounds": 2, "wounds_lost": lost}], "order": [0]},
        "sequences": [{
            "kind": "attack", "name": "Volley",
            "attacks": [{"models": attacks, "dice": "1"}],
            "steps": [{"name": "hit", "target": 4}],
            "save": {"rolled": false}, "damage": {"dice": "1", "excess": "group"}
        }]
    })
}

#[test]
fn a_target_below_full_takes_an_attack_from_where_it_starts() {
    // 3 lost of 6: two models stand, the front one with 1 wound. Four
    // attacks hit k ~ Bin(4, 1/2) times; the unit loses min(k, 3) wounds,
    // one model at the first hit and the other at the third.
    let plan = volley(4, 3);
    let b = |k: f64| k / 16.0;
    let numbers = exact(&plan);
    assert_pmf(&numbers, "damage", &[b(1.0), b(4.0), b(6.0), b(5.0)]);
    assert_pmf(&numbers, "models_destroyed", &[b(1.0), b(10.0), b(5.0)]);
    // The same Plan through the chain over both sides (a mark sends it
    // there) gives the same answer.
    let mut marked = plan.clone();
    marked["marks"] = json!(["unused"]);
    marked["sequences"]
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"kind": "mark", "name": "Omen", "mark": "unused"}));
    let chained = exact(&marked);
    assert_pmf(&chained, "damage", &[b(1.0), b(4.0), b(6.0), b(5.0)]);
    assert_pmf(&chained, "models_destroyed", &[b(1.0), b(10.0), b(5.0)]);
    for path in [Path::DieByDie, Path::Auto] {
        agrees(&plan, path);
        agrees(&marked, path);
    }
}

/// One attack hitting on 4+ against 3 models of 2 wounds that have lost 3
/// (two models, the front one at 1 wound), then the unit heals 2 wounds.
fn hit_then_heal(return_models: bool, up_to_start: bool) -> Value {
    let mut plan = volley(1, 3);
    plan["counters"] = json!(["healed"]);
    plan["sequences"].as_array_mut().unwrap().push(json!({
        "kind": "heal", "name": "Mend", "side": "target", "amount": "2",
        "return_models": return_models, "up_to_start": up_to_start, "counter": "healed"
    }));
    plan
}

#[test]
fn a_unit_below_full_heals_no_higher_than_it_started() {
    // A miss (1/2) leaves the unit as it started, 3 wounds: nothing heals in
    // any reading. A hit removes the wounded model (one model of 2 wounds
    // left). Healing the survivors only: it holds its 2, nothing heals.
    let half = [0.5, 0.5];
    let survivors = exact(&hit_then_heal(false, false));
    assert_pmf(&survivors, "healed", &[1.0]);
    assert_pmf(&survivors, "damage", &half);
    assert_pmf(&survivors, "models_destroyed", &half);
    // Up to the starting wounds (3, not the 6 of a whole unit): the
    // survivor holds one more, no model returns; no wound is lost in the end.
    let start = exact(&hit_then_heal(false, true));
    assert_pmf(&start, "healed", &half);
    assert_pmf(&start, "damage", &[1.0]);
    assert_pmf(&start, "models_destroyed", &half);
    // Returning models: the fallen model returns with the wound restored.
    let returned = exact(&hit_then_heal(true, false));
    assert_pmf(&returned, "healed", &half);
    assert_pmf(&returned, "damage", &[1.0]);
    assert_pmf(&returned, "models_destroyed", &[1.0]);
    for (r, u) in [(false, false), (false, true), (true, false)] {
        for path in [Path::DieByDie, Path::Auto] {
            agrees(&hit_then_heal(r, u), path);
        }
    }
}

/// A and B, each 2 models of 2 wounds with 1 lost, strike in turn (A
/// first) with one attack per surviving model, hitting on 4+, each hit
/// removing one wound carried through the side.
fn battered_duel(rounds: u32) -> Value {
    let strike = |name: &str, against: &str| {
        json!({
            "kind": "attack", "name": name, "against": against,
            "attacks": [{"models": 2, "dice": "1", "alive_of": 0}],
            "steps": [{"name": "hit", "target": 4}],
            "save": {"rolled": false}, "damage": {"dice": "1", "excess": "group"}
        })
    };
    let side = |name: &str| json!({"groups": [{"name": name, "models": 2, "wounds": 2, "wounds_lost": 1}], "order": [0]});
    json!({
        "version": 1,
        "counters": ["rounds", "outcome"],
        "target": side("B"),
        "attacker": side("A"),
        "sequences": [strike("A strikes", "target"), strike("B strikes", "attacker")],
        "rounds": {"max": rounds, "counter": "rounds", "outcome_counter": "outcome"}
    })
}

#[test]
fn a_fight_where_both_sides_start_below_full() {
    // Round 1: A's two models hit k ~ Bin(2, 1/2) times; B (3 wounds) keeps
    // two models only when k = 0. B's survivors hit j times: P(j = 0) =
    // 1/4 x 1/4 + 3/4 x 1/2 = 7/16, P(j = 2) = 1/4 x 1/4 = 1/16; A's wounded
    // model falls at the first.
    let one = exact(&battered_duel(1));
    assert_pmf(&one, "damage", &[0.25, 0.5, 0.25]);
    assert_pmf(&one, "models_destroyed", &[0.25, 0.75]);
    assert_pmf(&one, "attacker_damage", &[7.0 / 16.0, 0.5, 1.0 / 16.0]);
    assert_pmf(&one, "attacker_models_destroyed", &[7.0 / 16.0, 9.0 / 16.0]);
    assert_pmf(&one, "rounds", &[0.0, 1.0]);
    for path in [Path::DieByDie, Path::Auto] {
        agrees(&battered_duel(6), path);
    }
}

/// B (3 models of 1 wound) takes two attacks a round hitting on 4+ from A,
/// then returns a model with 1 wound, while its caster stands (more than
/// one model alive) when `caster` is set. A's one model is never hit.
fn mend_while_standing(rounds: u32, caster: bool) -> Value {
    let mut heal = json!({
        "kind": "heal", "name": "Mend", "side": "target", "amount": "1",
        "return_models": true, "counter": "healed"
    });
    if caster {
        heal["while_alive"] = json!({"side": "target", "more_than": 1});
    }
    json!({
        "version": 1,
        "counters": ["healed", "rounds"],
        "target": {"groups": [{"name": "B", "models": 3, "wounds": 1}], "order": [0]},
        "attacker": {"groups": [{"name": "A", "models": 1, "wounds": 1}], "order": [0]},
        "sequences": [
            {
                "kind": "attack", "name": "A strikes", "against": "target",
                "attacks": [{"models": 2, "dice": "1"}],
                "steps": [{"name": "hit", "target": 4}],
                "save": {"rolled": false}, "damage": {"dice": "1"}
            },
            heal
        ],
        "rounds": {"max": rounds, "counter": "rounds"}
    })
}

#[test]
fn a_heal_waits_on_its_caster_who_can_fall_mid_fight() {
    // Round 1: k ~ Bin(2, 1/2) hits. At k = 2 one model is left: the caster
    // has fallen (it needs more than one standing) and nothing heals;
    // without the condition the model returns.
    let with = exact(&mend_while_standing(1, true));
    assert_pmf(&with, "healed", &[0.5, 0.5]);
    assert_pmf(&with, "models_destroyed", &[0.75, 0.0, 0.25]);
    let without = exact(&mend_while_standing(1, false));
    assert_pmf(&without, "healed", &[0.25, 0.75]);
    assert_pmf(&without, "models_destroyed", &[0.75, 0.25]);
    // Two rounds: from three models round 2 goes as round 1; from one (the
    // caster fallen) no heal comes, and any hit ends the fight.
    let two = exact(&mend_while_standing(2, true));
    assert_pmf(
        &two,
        "models_destroyed",
        &[9.0 / 16.0, 0.0, 4.0 / 16.0, 3.0 / 16.0],
    );
    assert_pmf(&two, "healed", &[3.0 / 8.0, 3.0 / 8.0, 1.0 / 4.0]);
    for path in [Path::DieByDie, Path::Auto] {
        agrees(&mend_while_standing(5, true), path);
    }
}

/// B's caster (it needs more than two of B's models standing) sets a mark
/// each round before A strikes: A's two attacks then roll a second d6 and
/// hit on a sum of 4+ (33 in 36), not otherwise (1 in 2).
fn exposed(rounds: u32) -> Value {
    let mut plan = mend_while_standing(rounds, true);
    plan["marks"] = json!(["exposed"]);
    plan["counters"] = json!(["marked", "rounds"]);
    let mark = json!({
        "kind": "mark", "name": "Expose", "mark": "exposed", "counter": "marked",
        "while_alive": {"side": "target", "more_than": 2}
    });
    let mut strike = plan["sequences"][0].clone();
    strike["steps"][0] = json!({
        "name": "hit", "dice": [{"sides": 6}, {"sides": 6, "when": "exposed"}], "target": 4
    });
    plan["sequences"] = json!([mark, strike]);
    plan
}

#[test]
fn a_lasting_mark_waits_on_its_caster() {
    // Round 1: all three stand, the mark is set, two attacks hit with
    // 11/12 each. Round 2 sets it again only if both missed (1/144).
    let one = exact(&exposed(1));
    assert_pmf(&one, "marked", &[0.0, 1.0]);
    assert_pmf(
        &one,
        "models_destroyed",
        &[1.0 / 144.0, 22.0 / 144.0, 121.0 / 144.0],
    );
    let two = exact(&exposed(2));
    assert_pmf(&two, "marked", &[0.0, 143.0 / 144.0, 1.0 / 144.0]);
    for path in [Path::DieByDie, Path::Auto] {
        agrees(&exposed(4), path);
    }
}

#[test]
fn a_contest_from_a_side_below_full() {
    // A strikes twice with sure hits, B once; B has 5 models of 1 wound
    // but lost 4 before the fight: its last model falls in round 1.
    let mut plan = battered_duel(3);
    plan["target"]["groups"][0] = json!({"name": "B", "models": 5, "wounds": 1, "wounds_lost": 4});
    plan["attacker"]["groups"][0] = json!({"name": "A", "models": 5, "wounds": 1});
    plan["sequences"][0]["steps"][0]["target"] = json!(1);
    plan["sequences"][1]["steps"][0]["target"] = json!(1);
    plan["sequences"][0]["attacks"][0]["models"] = json!(2);
    plan["sequences"][1]["attacks"][0]["models"] = json!(1);
    plan["counters"] = json!(["rounds", "outcome", "winner", "left"]);
    plan["rounds"]["contest"] = json!({
        "attacker": {"hold": 1}, "target": {"hold": 1},
        "always_holds": 0, "winner_counter": "winner", "left_counter": "left"
    });
    let numbers = exact(&plan);
    assert_pmf(&numbers, "damage", &[0.0, 1.0]);
    assert_pmf(&numbers, "models_destroyed", &[0.0, 1.0]);
    assert_pmf(&numbers, "attacker_damage", &[1.0]);
    assert_pmf(&numbers, "rounds", &[0.0, 1.0]);
    agrees(&plan, Path::DieByDie);
}
