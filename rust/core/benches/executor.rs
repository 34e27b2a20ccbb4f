//! `cargo bench -p mathhammer-core`: trials per second of the benchmark
//! scenario (10 models x 2 attacks, BS3+, S4, AP-1, D1 into 10 models T4 Sv3+
//! W2) on one thread and on all cores. A plain timing loop, best of five, so
//! the number is comparable with the Python benchmark in `benches/`.

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
}
