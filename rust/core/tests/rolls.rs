//! Rolls of several dice with classes, damage thresholds, harm to the
//! attacker, counted statuses and attacks no save applies to: each against a
//! closed form, and the Monte Carlo paths and exact evaluator against each
//! other where they apply.

use mathhammer_core::exact::evaluate;
use mathhammer_core::{simulate, Path, Plan, Program, RunOptions};
use serde_json::{json, Value};

fn program(plan: &Value) -> Program {
    Program::new(Plan::from_json(&plan.to_string()).expect("valid plan")).expect("program")
}

fn mean(pmf: &[f64]) -> f64 {
    pmf.iter().enumerate().map(|(v, p)| v as f64 * p).sum()
}

/// Means and standard errors of every number, simulated on `path`.
fn simulated(plan: &Value, path: Path) -> Vec<(f64, f64)> {
    let mc = simulate(
        &program(plan),
        RunOptions {
            trials: 200_000,
            seed: 11,
            threads: 2,
            path,
        },
        |_, _| Ok(()),
    )
    .unwrap();
    (0..mc.hist.len())
        .map(|i| (mc.mean(i), mc.sd(i) / (mc.trials as f64).sqrt()))
        .collect()
}

fn within(value: f64, expected: f64, se: f64, what: &str) {
    let z = (value - expected) / se.max(1e-9);
    assert!(z.abs() < 5.0, "{what}: {value} vs {expected} ({z:.1} se)");
}

/// Two d12 plus a d6 advantage die plus 3 against 15; matching d12 are a
/// critical (a hit whatever the total) doing the damage's largest value.
fn skill_dice(effects: &Value) -> Value {
    json!({
        "version": 1,
        "counters": ["attacks", "hits", "status", "shock"],
        "target": {"groups": [{"name": "Squad", "models": 20, "wounds": 3, "thresholds": [2, 3, 6]}], "order": [0]},
        "attacker": {"groups": [{"name": "Firing line", "models": 5, "wounds": 2}], "order": [0]},
        "sequences": [{
            "kind": "attack", "name": "Rifles", "attacks": [{"models": 5, "dice": "1"}], "attacks_counter": "attacks",
            "steps": [{"name": "attack roll", "target": 15, "modifiers": [3], "counter": "hits",
                       "dice": [{"sides": 12}, {"sides": 12}, {"sides": 6, "rerolled": false}],
                       "compare": {"dice": [0, 1], "equal_is_critical": true}, "effects": effects}],
            "save": {"rolled": false},
            "damage": {"dice": "D6", "excess": "group", "top_threshold_counter": "shock"}
        }]
    })
}

/// P(hit), P(hit and the first d12 higher), by brute force.
fn hit_chances() -> (f64, f64) {
    let (mut hit, mut first) = (0u32, 0u32);
    for a in 1..=12 {
        for b in 1..=12 {
            for c in 1..=6 {
                if a == b || a + b + c + 3 >= 15 {
                    hit += 1;
                    if a > b {
                        first += 1;
                    }
                }
            }
        }
    }
    (f64::from(hit) / 864.0, f64::from(first) / 864.0)
}

#[test]
fn a_roll_of_several_dice_with_a_critical_class_is_exact() {
    let mut plan = skill_dice(&json!([{"on": "critical", "action": "unsaved", "maximize": true}]));
    plan["sequences"][0]["damage"]["top_threshold_counter"] = Value::Null;
    let exact = evaluate(&program(&plan)).unwrap();
    let (hit, _) = hit_chances();
    // Hits count criticals too, though their damage is resolved apart.
    assert!((mean(&exact.pmfs[1]) - 5.0 * hit).abs() < 1e-12);
    // Each hit loses 0-3 wounds by its damage against the thresholds 2, 3, 6:
    // D6 gives 0 (1), 1 (2), 2 (3-5), 3 (6); a critical's 6 gives 3.
    let normal = (0.0 + 1.0 + 3.0 * 2.0 + 3.0) / 6.0;
    let expected = 5.0 * ((hit - 12.0 / 144.0) * normal + 12.0 / 144.0 * 3.0);
    let damage = mean(&exact.pmfs[4]);
    assert!((damage - expected).abs() < 1e-12, "{damage} vs {expected}");
    for path in [Path::DieByDie, Path::Auto] {
        let mc = simulated(&plan, path);
        for (i, pmf) in exact.pmfs.iter().enumerate() {
            within(
                mc[i].0,
                mean(pmf),
                mc[i].1,
                &format!("number {i} on {path:?}"),
            );
        }
    }
}

#[test]
fn classes_key_effects_and_statuses_are_counted() {
    // Hits with the first d12 higher inflict a status (counted) and a point
    // of damage more; every roll with the second higher hurts the attacker.
    let plan = skill_dice(&json!([
        {"on": "success", "class": "first_higher", "action": "count", "counter": "status"},
        {"on": "success", "class": "second_higher", "action": "mortal", "amount": "1", "against": "attacker"},
        {"on": "fail", "class": "second_higher", "action": "mortal", "amount": "1", "against": "attacker"}
    ]));
    let (hit, first) = hit_chances();
    let die_by_die = simulated(&plan, Path::DieByDie);
    let auto = simulated(&plan, Path::Auto);
    for mc in [&die_by_die, &auto] {
        within(mc[1].0, 5.0 * hit, mc[1].1, "hits");
        within(mc[2].0, 5.0 * first, mc[2].1, "statuses");
        // The attacker loses one wound per roll with the second d12 higher.
        within(mc[6].0, 5.0 * 66.0 / 144.0, mc[6].1, "attacker damage");
        // Battle Shock: damage 6 (a sixth of the hits) meets the top threshold.
        within(mc[3].0, 5.0 * hit / 6.0, mc[3].1, "top threshold");
    }
    // Exactly: the squad's 60 wounds outlast the 25 five attacks can take,
    // so no count stops early.
    let exact = evaluate(&program(&plan)).unwrap();
    for (number, expected) in [
        (1, 5.0 * hit),
        (2, 5.0 * first),
        (6, 5.0 * 66.0 / 144.0),
        (3, 5.0 * hit / 6.0),
    ] {
        assert!(
            (mean(&exact.pmfs[number]) - expected).abs() < 1e-12,
            "number {number}"
        );
    }
}

#[test]
fn bonus_damage_and_rerolled_attack_rolls() {
    // Re-rolling failed attack rolls re-rolls both d12 but keeps the d6.
    let mut plan = skill_dice(
        &json!([{"on": "success", "class": "first_higher", "action": "unsaved", "bonus": 2}]),
    );
    plan["sequences"][0]["steps"][0]["reroll"] = json!("failures");
    plan["sequences"][0]["damage"]["top_threshold_counter"] = Value::Null;
    let exact = evaluate(&program(&plan)).unwrap();
    for path in [Path::DieByDie, Path::Auto] {
        let mc = simulated(&plan, path);
        for (i, pmf) in exact.pmfs.iter().enumerate() {
            within(
                mc[i].0,
                mean(pmf),
                mc[i].1,
                &format!("number {i} on {path:?}"),
            );
        }
    }
}

#[test]
fn rolls_are_checked() {
    let mut plan = skill_dice(
        &json!([{"on": "success", "class": "equal", "action": "count", "counter": "status"}]),
    );
    plan["sequences"][0]["steps"][0]["compare"]["dice"] = json!([0, 0]);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("compare.dice"), "{e}");
    plan["sequences"][0]["steps"][0]["dice"] =
        json!([{"sides": 100}, {"sides": 100}, {"sides": 100}]);
    plan["sequences"][0]["steps"][0]["compare"]["dice"] = json!([0, 1]);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("1000000 ways"), "{e}");
    let mut plan = skill_dice(&json!([]));
    plan["target"]["groups"][0]["thresholds"] = json!([3, 2]);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("thresholds"), "{e}");
}

/// A mark set by a check (a power granting Advantage) adds a die to a later
/// roll: the chance to hit is the mixture of the two rolls.
#[test]
fn a_mark_adds_a_die_to_later_rolls() {
    let mut plan = skill_dice(&json!([]));
    plan["marks"] = json!(["advantage"]);
    plan["sequences"][0]["steps"][0]["dice"] =
        json!([{"sides": 12}, {"sides": 12}, {"sides": 6, "when": "advantage"}]);
    plan["sequences"]
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"kind": "mark", "name": "Boon", "mark": "advantage", "check": {"die": 12, "target": 7}}));
    // Without the die: hits on 2d12 + 3 >= 15 or a match; with it, as hit_chances().
    let mut without = 0u32;
    for a in 1..=12 {
        for b in 1..=12 {
            if a == b || a + b + 3 >= 15 {
                without += 1;
            }
        }
    }
    let expected = 5.0 * (0.5 * f64::from(without) / 144.0 + 0.5 * hit_chances().0);
    let mc = simulated(&plan, Path::Auto);
    within(mc[1].0, expected, mc[1].1, "hits");
    let exact = evaluate(&program(&plan)).unwrap();
    assert!((mean(&exact.pmfs[1]) - expected).abs() < 1e-12);
    plan["sequences"][1]["steps"][0]["dice"][2]["when"] = json!("curse");
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("curse"), "{e}");
}

/// An attack meeting the top threshold can do more: here a test (a d6, 4+
/// passes) whose failure costs the unit 2 more wounds, and a mark.
#[test]
fn the_top_threshold_has_consequences() {
    let mut plan = skill_dice(&json!([]));
    plan["marks"] = json!(["shaken"]);
    plan["sequences"][0]["damage"]["top_threshold"] =
        json!({"mark": "shaken", "mortal": "2", "check": {"die": 6, "target": 4}});
    let (hit, _) = hit_chances();
    // Hits lose 0-3 by D6 against 2, 3, 6 (mean 5/3); a 6 (1 in 6) meets the top and
    // fails its test half the time, costing 2 more.
    let per_hit = (0.0 + 1.0 + 3.0 * 2.0 + 3.0) / 6.0 + 1.0 / 6.0 * 0.5 * 2.0;
    let mc = simulated(&plan, Path::Auto);
    within(mc[4].0, 5.0 * hit * per_hit, mc[4].1, "damage");
    let exact = evaluate(&program(&plan)).unwrap();
    assert!((mean(&exact.pmfs[4]) - 5.0 * hit * per_hit).abs() < 1e-12);
}

/// Fixed damage against thresholds on the fast path (no count effects, so the
/// tables are used): the damage is converted one attack at a time.
#[test]
fn fixed_damage_meets_thresholds_on_the_fast_path() {
    let plan = json!({
        "version": 1,
        "counters": ["shock"],
        "target": {"groups": [{"name": "Squad", "models": 5, "wounds": 3, "thresholds": [2, 4, 8]}], "order": [0]},
        "sequences": [{
            "kind": "attack", "name": "Guns", "attacks": [{"models": 6, "dice": "1"}],
            "steps": [{"name": "hit", "target": 4}],
            "save": {"rolled": false}, "damage": {"dice": "3", "top_threshold_counter": "shock"}
        }]
    });
    // Damage 3 meets Minor 2 only: 1 wound per hit, 6 x 1/2 = 3; never the top.
    let exact = evaluate(&program(&plan)).unwrap();
    assert!((exact.pmfs[0][0] - 1.0).abs() < 1e-12);
    assert!((mean(&exact.pmfs[1]) - 3.0).abs() < 1e-12);
    for path in [Path::DieByDie, Path::Auto] {
        let mc = simulated(&plan, path);
        within(mc[1].0, 3.0, mc[1].1, &format!("damage on {path:?}"));
        assert!(mc[0].0.abs() < 1e-12, "no attack meets the top threshold");
    }
    let mut counted = plan.clone();
    counted["sequences"][0]["damage"]["top_threshold_counter"] = Value::Null;
    counted["counters"] = json!([]);
    let exact = evaluate(&program(&counted)).unwrap();
    let mc = simulated(&counted, Path::Auto);
    within(
        mc[0].0,
        mean(&exact.pmfs[0]),
        mc[0].1,
        "damage on the fast path",
    );
    assert!((mean(&exact.pmfs[0]) - 3.0).abs() < 1e-12);
}
