//! `cargo bench -p mathhammer-core`: trials per second of the benchmark
//! scenario (10 models x 2 attacks, BS3+, S4, AP-1, D1 into 10 models T4 Sv3+
//! W2) on one thread and on all cores. A plain timing loop, best of five, so
//! the number is comparable with the Python benchmark in `benches/`.
//!
//! Then the attack-count sweep: the same profile with 10 to 2,000 attacks into
//! 100 models of one wound, in trials per second and as a ratio to 100
//! attacks (the fast path has no cliff where a rate falls far below that).

use mathhammer_core::{simulate, Path, Plan, Program, RunOptions};
use std::time::Instant;

const PLAN: &str = r#"{
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
}"#;

/// Best of five runs of `trials` trials on one thread, in seconds.
fn best_of_five(program: &Program, trials: u64) -> f64 {
    (0..5)
        .map(|seed| {
            let start = Instant::now();
            simulate(
                program,
                RunOptions {
                    trials,
                    seed,
                    threads: 1,
                    path: Path::Auto,
                },
                |_, _| Ok(()),
            )
            .expect("run");
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn sweep() {
    let mut plan: serde_json::Value = serde_json::from_str(PLAN).expect("plan");
    plan["target"]["groups"][0]["models"] = 100.into();
    plan["target"]["groups"][0]["wounds"] = 1.into();
    let counts = [10u32, 100, 230, 500, 1000, 2000];
    let rates: Vec<f64> = counts
        .iter()
        .map(|&attacks| {
            plan["sequences"][0]["attacks"][0]["models"] = attacks.into();
            plan["sequences"][0]["attacks"][0]["dice"] = "1".into();
            let program =
                Program::new(Plan::from_json(&plan.to_string()).expect("plan")).expect("program");
            let trials: u32 = 200_000;
            f64::from(trials) / best_of_five(&program, u64::from(trials))
        })
        .collect();
    let at_100 = rates[1];
    for (attacks, rate) in counts.iter().zip(&rates) {
        println!(
            "{attacks:>5} attacks into 100 models W1, 1 thread: {:.2} M trials/s ({:.2}x the rate at 100 attacks)",
            rate / 1e6,
            rate / at_100
        );
    }
}

fn main() {
    let program = Program::new(Plan::from_json(PLAN).expect("plan")).expect("program");
    let trials = 1_000_000;
    for threads in [1, 0] {
        let best = (0..5)
            .map(|seed| {
                let start = Instant::now();
                let t = simulate(
                    &program,
                    RunOptions {
                        trials,
                        seed,
                        threads,
                        path: Path::Auto,
                    },
                    |_, _| Ok(()),
                )
                .expect("run");
                assert_eq!(t.trials, trials);
                start.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        let label = if threads == 0 {
            "all cores".to_string()
        } else {
            format!("{threads} thread")
        };
        println!(
            "boltguns 1M trials, {label}: {:.1} ms, {:.1} M trials/s",
            best * 1e3,
            trials as f64 / best / 1e6
        );
    }
    sweep();
}
