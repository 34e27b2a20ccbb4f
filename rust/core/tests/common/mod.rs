//! Helpers shared by the integration tests (each test file is its own crate,
//! so a helper one of them does not use would be dead code there).
#![allow(dead_code)]

use mathhammer_core::{simulate, Plan, Program, RunOptions, Tally};
use serde_json::{json, Value};

/// The Program of a Plan written as JSON.
pub fn program(plan: &Value) -> Program {
    Program::new(Plan::from_json(&plan.to_string()).expect("valid plan")).expect("program")
}

/// The index of the number called `name` among the Plan's numbers.
pub fn number(plan: &Value, name: &str) -> usize {
    let names = program(plan).numbers();
    names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no number {name} in {names:?}"))
}

/// The benchmark scenario: 10 models x 2 attacks, BS3+, S4 vs T4, AP-1, D1,
/// into 10 models with W2 and Sv3+.
pub fn boltguns() -> Value {
    json!({
        "version": 1,
        "counters": ["attacks", "hits", "wounds", "failed_saves"],
        "target": {"groups": [{"name": "Intercessor", "models": 10, "wounds": 2, "save": 3}], "order": [0]},
        "sequences": [{
            "kind": "attack", "name": "Boltgun",
            "attacks": [{"models": 10, "dice": "2"}], "attacks_counter": "attacks",
            "steps": [
                {"name": "hit", "target": 3, "natural_fail": 1, "critical": 6, "counter": "hits"},
                {"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds"}
            ],
            "save": {"ap": -1, "counter": "failed_saves"},
            "damage": {"dice": "1"}
        }]
    })
}

pub fn sd_of(tally: &Tally, i: usize) -> f64 {
    let m = tally.mean(i);
    let var: f64 = tally.hist[i]
        .iter()
        .enumerate()
        .map(|(v, &c)| (v as f64 - m).powi(2) * c as f64)
        .sum::<f64>()
        / (tally.trials - 1) as f64;
    var.sqrt()
}

pub fn assert_mean(tally: &Tally, i: usize, exact: f64) {
    let se = sd_of(tally, i) / (tally.trials as f64).sqrt();
    let z = (tally.mean(i) - exact) / se.max(1e-12);
    assert!(
        z.abs() < 5.0,
        "number {i}: mean {} vs exact {exact} is {z:.2} standard errors off",
        tally.mean(i)
    );
}

pub fn run(p: &Program, trials: u64, seed: u64) -> Tally {
    simulate(
        p,
        RunOptions {
            trials,
            seed,
            threads: 2,
            ..Default::default()
        },
        |_, _| Ok(()),
    )
    .unwrap()
}

/// Compare two tallies bin by bin with a chi-square two-sample test per
/// reported number. Bins with few expected counts are pooled into their
/// neighbour. The bound is the 1 - 1e-6 quantile (Wilson-Hilferty), so with
/// the handful of comparisons here a correct executor fails about once in
/// 10^5 runs, and the fixed seeds make it never.
pub fn assert_same_distribution(a: &Tally, b: &Tally) {
    for i in 0..a.hist.len() {
        let len = a.hist[i].len().max(b.hist[i].len());
        let get = |h: &Vec<u64>, v: usize| h.get(v).copied().unwrap_or(0) as f64;
        let (na, nb) = (a.trials as f64, b.trials as f64);
        let (mut chi2, mut dof, mut ca, mut cb) = (0.0, 0i32, 0.0, 0.0);
        for v in 0..len {
            ca += get(&a.hist[i], v);
            cb += get(&b.hist[i], v);
            if ca + cb >= 50.0 || v == len - 1 {
                let (ka, kb) = ((nb / na).sqrt(), (na / nb).sqrt());
                chi2 += (ka * ca - kb * cb).powi(2) / (ca + cb);
                dof += 1;
                ca = 0.0;
                cb = 0.0;
            }
        }
        let k = f64::from((dof - 1).max(1));
        let z = 4.753; // the 1 - 1e-6 normal quantile
        let bound = k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3);
        assert!(
            chi2 < bound,
            "number {i}: chi-square {chi2:.1} over {dof} bins exceeds {bound:.1}"
        );
    }
}
