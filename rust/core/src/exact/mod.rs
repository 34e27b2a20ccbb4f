//! The exact evaluator: the same Plan, as probability distributions.
//!
//! Each attack pool's tests have an exact joint distribution (the fast
//! path's tables, `tables::one_token`); the target's state (per
//! group, models alive and wounds left on the front model) is then carried as
//! a distribution through saves, damage, Feel No Pain and mortal wounds, so
//! excess damage, spill-over, characters and mixed groups are exact. Stage
//! counters that do not depend on the target's state (attacks, each test's
//! count, failed saves when every group saves on the same faces, mortal
//! wounds) are convolved across sequences as marginals.
//!
//! What it cannot do exactly it declines by name, never approximating: see
//! [`CoreError::Declined`] reasons in [`evaluate`].

mod admit;
mod budget;
mod estimate;
mod evaluator;
mod pmf;
mod pool;
mod saves;
mod state;

use crate::error::CoreError;
use crate::montecarlo::POLL_INTERVAL;
use crate::program::{Program, RunSequence};
use budget::{decline, verdict};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;

pub use budget::{MAX_BYTES, MAX_WORK};
use evaluator::Evaluator;

/// The most distinct target states the evaluator carries before declining.
const MAX_STATES: usize = 200_000;
/// The most groups a side may have (see the state's packing).
const MAX_GROUPS: usize = 3;
/// Steps the lowest-first save resolution may take for one pool before the
/// evaluator declines. A step here is one state's branch over a damage roll,
/// which costs far more than a multiply-add (up to about 2 µs each when the
/// states are many), so the limit is a second or two of that work.
const MAX_SAVE_WORK: u64 = 2_000_000;
/// Table entries one pool may build.
const TABLE_BUDGET: usize = 1 << 21;

/// Exact distributions, one per number of [`Program::numbers`]: `pmfs[i][v]`
/// is the probability that number `i` is `v`.
#[derive(Debug, Clone)]
pub struct Exact {
    pub pmfs: Vec<Vec<f64>>,
}

/// Evaluate `program` exactly.
///
/// # Errors
/// [`CoreError::Declined`] with the reason when the Plan needs something the
/// evaluator cannot do exactly: a batch hook, more than one kind of harm held
/// until every attack is resolved (or held by pools that chose different
/// focus groups), mortal wounds reduced by damage modifiers, pools counting
/// failed saves in different counters when they depend on the target, more
/// than three groups a side, or too many outcomes.
pub fn evaluate(program: &Program) -> Result<Exact, CoreError> {
    evaluate_until(program, None)
}

/// Evaluate `program` exactly, stopping early once `stop` is set.
///
/// # Errors
/// As [`evaluate`], and [`CoreError::Interrupted`] once `stop` is set.
pub fn evaluate_until(
    program: &Program,
    stop: Option<Arc<AtomicBool>>,
) -> Result<Exact, CoreError> {
    budget::reset(stop);
    let result = evaluate_within_budget(program);
    // Work past the budget empties the distributions; whatever went on, the
    // evaluation declines then rather than answer from them.
    verdict()?;
    result
}

/// Evaluate `program` exactly on a worker thread, calling `poll` on this one
/// before it starts and every [`POLL_INTERVAL`] (as [`crate::montecarlo::simulate_with`] does), so
/// a caller can honour Ctrl-C: an error from `poll` stops the evaluation
/// within a step and is returned.
///
/// # Errors
/// As [`evaluate`], or what `poll` returned.
pub fn evaluate_polled(
    program: &Program,
    poll: &mut dyn FnMut(u64, u64) -> Result<(), CoreError>,
) -> Result<Exact, CoreError> {
    // An interrupt that came before the evaluation stops it before it starts.
    poll(0, 0)?;
    let stop = Arc::new(AtomicBool::new(false));
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel::<()>();
        let worker = {
            let stop = Arc::clone(&stop);
            scope.spawn(move || {
                let result = evaluate_until(program, Some(stop));
                // Dropping the sender (also on a panic) wakes the caller.
                drop(done);
                result
            })
        };
        let mut polled = Ok(());
        // Wait for the worker, polling between waits; `recv_timeout` returns
        // as soon as the worker is done, however short the evaluation.
        while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(POLL_INTERVAL) {
            if let Err(e) = poll(0, 0) {
                stop.store(true, Ordering::Relaxed);
                polled = Err(e);
                break;
            }
        }
        let result = crate::error::joined(worker.join());
        polled.and(result)
    })
}

fn evaluate_within_budget(program: &Program) -> Result<Exact, CoreError> {
    let admission = admit::admit(program)?;
    let mut ev = Evaluator::new(&program.plan, admission);
    for seq in &program.sequences {
        match seq {
            RunSequence::Pool(pool) => ev.pool(pool)?,
            RunSequence::Mortal { .. } => ev.mortal_source(seq)?,
            RunSequence::Heal { .. } => return Err(decline("the plan heals a side")),
            RunSequence::Mark { .. } => {
                return Err(decline("the plan sets marks that later rolls depend on"))
            }
        }
    }
    ev.resolve_held()?;
    Ok(ev.finish(admission.failed_counter))
}
