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
/// Steps one branch of a state over a damage roll in the lowest-first save
/// resolution counts for: it costs several multiply-adds (hashing the states
/// of chains kept per face), measured as described in `estimate.rs`.
const SAVE_BRANCH_STEPS: u64 = 5;
/// Table entries one pool may build.
const TABLE_BUDGET: usize = 1 << 21;

/// Exact distributions, one per number of [`Program::numbers`]: `pmfs[i][v]`
/// is the probability that number `i` is `v`.
#[derive(Debug, Clone)]
pub struct Exact {
    pub pmfs: Vec<Vec<f64>>,
    /// Steps of work the evaluation took, and the steps estimated for it
    /// before it started (see `MAX_WORK`).
    pub work: u64,
    pub estimate: u64,
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
    let (work, estimate) = budget::work();
    result.map(|pmfs| Exact {
        pmfs,
        work,
        estimate,
    })
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

/// What one evaluation took against the work estimated for it.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Steps estimated before it started (0 when declined before estimating).
    pub estimate: u64,
    /// Steps it took, finished or not.
    pub work: u64,
    /// Its end: the distributions' absence, or why it declined.
    pub outcome: Result<(), CoreError>,
}

/// Evaluate `program` and say what it took against its estimate. With
/// `obey`, as [`evaluate`] does (declining from the estimate, stopping at
/// four times it); without, the estimate is measured rather than obeyed:
/// the Plan runs until it finishes or the budget ([`MAX_WORK`]) is spent.
/// For calibrating the estimate and testing what declining costs
/// (`examples/exact_calibration.rs`), not for answers.
#[doc(hidden)]
#[must_use]
pub fn measure(program: &Program, obey: bool) -> Measured {
    budget::reset(None);
    budget::set_measuring(!obey);
    let result = evaluate_within_budget(program);
    let outcome = verdict().and(result.map(|_| ()));
    let (work, expected) = budget::work();
    budget::set_measuring(false);
    let estimate = if expected == u64::MAX / budget::OVERRUN {
        0
    } else {
        expected
    };
    Measured {
        estimate,
        work,
        outcome,
    }
}

fn evaluate_within_budget(program: &Program) -> Result<Vec<Vec<f64>>, CoreError> {
    let admission = admit::admit(program)?;
    budget::expect(admission.estimate);
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
