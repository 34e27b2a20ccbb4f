//! Measure the exact evaluator's work estimate against the work it takes.
//!
//! Reads Plans as JSON, one per line, from the file named on the command
//! line (or standard input), and prints one line per Plan, tab-separated:
//! the steps estimated, the steps taken, whether it finished within the
//! budget, and the milliseconds it took. `benches/exact_calibration.py`
//! writes Plans of many shapes and summarises the ratios.

use mathhammer_core::{exact, Plan, Program};
use std::io::{BufRead, BufReader};
use std::time::Instant;

fn main() {
    let input: Box<dyn BufRead> = match std::env::args().nth(1) {
        Some(path) => Box::new(BufReader::new(
            std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
        )),
        None => Box::new(BufReader::new(std::io::stdin())),
    };
    for line in input.lines() {
        let line = line.expect("readable input");
        if line.trim().is_empty() {
            continue;
        }
        let program = match Plan::from_json(&line).and_then(Program::new) {
            Ok(p) => p,
            Err(e) => {
                println!("error\t{e}");
                continue;
            }
        };
        let start = Instant::now();
        let m = exact::measure(&program, false);
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let finished = m.outcome.is_ok();
        println!("{}\t{}\t{finished}\t{ms:.2}", m.estimate, m.work);
    }
}
