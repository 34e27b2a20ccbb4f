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
//! Plans whose dice depend on both sides' state (fights, marks, healing,
//! harm to the attacker, top-threshold counts) go to `chain.rs`, a Markov
//! chain over both sides' models.
//!
//! What it cannot do exactly it declines by name, never approximating: see
//! [`CoreError::Declined`] reasons in [`evaluate`].

mod admit;
mod budget;
mod cache;
mod chain;
mod contest;
mod counts;
mod estimate;
mod evaluator;
mod grid;
mod held;
mod nfold;
mod pmf;
mod pool;
mod saves;
mod side;
mod state;
mod ways;
mod worker;

use crate::error::CoreError;
use crate::montecarlo::POLL_INTERVAL;
use crate::program::{Program, RunSequence};
use budget::{decline, verdict};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::Duration;

pub use budget::{MAX_BYTES, MAX_WORK};
pub(crate) use cache::Cache;
use evaluator::{Credit, Evaluator, Finished, Holder};
use state::marker_fields;

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
/// Steps of work an evaluation may take on the caller's thread, where it
/// cannot be polled: a millisecond or two at most (see [`MAX_WORK`]). Past
/// it, it starts again on a worker thread.
pub const CALLER_WORK: u64 = 10_000;
/// Time an evaluation may take on the caller's thread, however little work
/// it has counted (building one die's tables is bounded apart, not counted).
pub const CALLER_TIME: Duration = Duration::from_millis(2);

/// Exact distributions, one per number of [`Program::numbers`]: `pmfs[i][v]`
/// is the probability that number `i` is `v`. A number whose distribution
/// the evaluator does not work out (the wounds lost to one sequence among
/// several, whose sum is all it follows) has an empty pmf and its exact mean
/// in `means[i]`; every other number's `means[i]` is `None`.
#[derive(Debug, Clone)]
pub struct Exact {
    pub pmfs: Vec<Vec<f64>>,
    pub means: Vec<Option<f64>>,
    /// Steps of work the evaluation took, and the steps estimated for it
    /// before it started (see `MAX_WORK`).
    pub work: u64,
    pub estimate: u64,
}

/// Evaluate `program` exactly: a Plan whose dice depend on both sides' state
/// (a fight, marks, healing, harm to the attacker from an attack, counts of
/// the top damage threshold) as a chain over both sides (`chain.rs`, which
/// declines sides of several groups, Feel No Pain, and more states or work
/// than it allows), any other as the target's state alone.
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
    evaluate_within(program, stop, None)
}

/// [`evaluate_until`], stopping with [`budget::handed_off`] once the
/// evaluation would take more than `hand_off`'s steps or time.
fn evaluate_within(
    program: &Program,
    stop: Option<Arc<AtomicBool>>,
    hand_off: Option<(u64, Duration)>,
) -> Result<Exact, CoreError> {
    budget::reset(stop, hand_off);
    let result = evaluate_within_budget(program);
    // Work past the budget empties the distributions; whatever went on, the
    // evaluation declines then rather than answer from them.
    verdict()?;
    let (work, estimate) = budget::work();
    result.map(|(pmfs, means)| Exact {
        pmfs: pmfs.into_iter().map(probabilities).collect(),
        means,
        work,
        estimate: estimate.unwrap_or(0),
    })
}

/// `pmf` with each value clamped to [0, 1]: sums of floating-point terms
/// can stray past either end by an ulp or two (an exact chance of
/// 1.0000000000000049), and a probability must never be reported so.
fn probabilities(mut pmf: Vec<f64>) -> Vec<f64> {
    for p in &mut pmf {
        *p = p.clamp(0.0, 1.0);
    }
    pmf
}

/// Evaluate `program` exactly, calling `poll` before it starts and, for an
/// evaluation of more than [`CALLER_WORK`] steps or [`CALLER_TIME`], every
/// [`POLL_INTERVAL`] while it runs (as [`crate::montecarlo::simulate_with`]
/// does), so a caller can honour Ctrl-C: an error from `poll` stops the
/// evaluation within a step and is returned.
///
/// A small evaluation runs on this thread: handing it to another and back
/// costs tens of microseconds, several times what it costs. One found to
/// take more than [`CALLER_WORK`] steps or [`CALLER_TIME`] starts again on a
/// worker thread, while this one polls; the worker is parked for later calls
/// (`worker.rs`), as starting a thread per call cost more than a small
/// evaluation.
///
/// # Errors
/// As [`evaluate`], or what `poll` returned.
pub fn evaluate_polled(
    program: &Arc<Program>,
    poll: &mut dyn FnMut(u64, u64) -> Result<(), CoreError>,
) -> Result<Exact, CoreError> {
    evaluate_polled_every(program, POLL_INTERVAL, poll)
}

/// [`evaluate_polled`], polling every `interval` instead of every
/// [`POLL_INTERVAL`]: a test can then stop an evaluation of a few
/// milliseconds while it runs, on a machine of any speed.
///
/// # Errors
/// As [`evaluate_polled`].
pub fn evaluate_polled_every(
    program: &Arc<Program>,
    interval: Duration,
    poll: &mut dyn FnMut(u64, u64) -> Result<(), CoreError>,
) -> Result<Exact, CoreError> {
    // An interrupt that came before the evaluation stops it before it starts.
    poll(0, 0)?;
    let here = evaluate_within(program, None, Some((CALLER_WORK, CALLER_TIME)));
    if !budget::handed_off() {
        return here;
    }
    // What ran here went unpolled: an interrupt that came meanwhile stops
    // the evaluation before it starts again.
    poll(0, 0)?;
    let stop = Arc::new(AtomicBool::new(false));
    let job = {
        let (program, stop) = (Arc::clone(program), Arc::clone(&stop));
        move || evaluate_until(&program, Some(stop))
    };
    let Some((finished, worker)) = worker::start(job) else {
        // No thread could be started: evaluate here, unpolled.
        return evaluate(program);
    };
    let mut polled = Ok(());
    // Wait for the worker, polling between waits; `recv_timeout` returns as
    // soon as the worker is done, however short the evaluation.
    let result = loop {
        match finished.recv_timeout(interval) {
            Ok(result) => {
                worker::park(worker);
                break crate::error::joined(result);
            }
            Err(RecvTimeoutError::Timeout) => {
                if polled.is_ok() {
                    if let Err(e) = poll(0, 0) {
                        // Stopped within a step; its answer is then waited for.
                        stop.store(true, Ordering::Relaxed);
                        polled = Err(e);
                    }
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                break Err(CoreError::Internal {
                    reason: "the exact evaluator's thread ended without an answer".to_string(),
                })
            }
        }
    };
    polled.and(result)
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
    budget::reset(None, None);
    budget::set_measuring(!obey);
    let result = evaluate_within_budget(program);
    let outcome = verdict().and(result.map(|_| ()));
    let (work, estimate) = budget::work();
    budget::set_measuring(false);
    Measured {
        estimate: estimate.unwrap_or(0),
        work,
        outcome,
    }
}

fn evaluate_within_budget(program: &Program) -> Result<Finished, CoreError> {
    crate::value::complete(program, evaluate_numbers(program)?)
}

/// Every number's distribution, `value_destroyed` perhaps left to
/// [`crate::value::complete`] (by the evaluators of one-group targets).
fn evaluate_numbers(program: &Program) -> Result<Finished, CoreError> {
    if let Some(c) = program
        .plan
        .rounds
        .as_ref()
        .and_then(|r| r.contest.as_ref())
    {
        return contest::evaluate(program, c);
    }
    if chain::wanted(program) {
        return chain::evaluate(program);
    }
    let (admission, mut tables) = admit::admit(program)?;
    budget::expect(admission.estimate);
    let mut ev = Evaluator::new(&program.plan, admission);
    ev.credit = vec![Credit::default(); program.attributed_sequences().len()];
    // One sequence's wounds are the target's, and its mortal wounds are
    // counted unless carried in the state (see `finish`).
    ev.credit_means = ev.credit.len() > 1 || admission.carry_mortal.is_some();
    ev.holders = holders(program, admission)?;
    let holding = ev.holders.len();
    let mut before = ev.expected_harm();
    for (index, seq) in program.sequences.iter().enumerate() {
        ev.mortal_pmf = None;
        match seq {
            RunSequence::Pool(pool) => {
                let last = index + 1 == program.sequences.len();
                ev.pool(pool, tables[index].take(), last)?;
            }
            RunSequence::Mortal { .. } => ev.mortal_source(seq)?,
            RunSequence::Heal { .. } => return Err(decline("the plan heals a side")),
            RunSequence::Mark { .. } => {
                return Err(decline("the plan sets marks that later rolls depend on"))
            }
        }
        // What the sequence did is the change in the means over it (harm it
        // holds is credited as it lands, in `resolve_held`).
        let after = ev.expected_harm();
        if let Some(slot) = program.attributed[index] {
            // The first sequence aimed at the target, with no harm held to
            // land later: the wounds lost so far are all its own.
            let damage = (slot == 0 && holding == 0).then(|| ev.damage_pmf());
            let mortal = ev.mortal_pmf.take();
            let credit = &mut ev.credit[slot];
            credit.means[0] += after[0] - before[0];
            credit.means[1] += after[1] - before[1];
            credit.mortal = mortal;
            credit.damage = damage;
        }
        if let Some(at) = program
            .held_by(index)
            .then(|| {
                ev.holders
                    .iter()
                    .position(|h| h.0 == program.attributed[index])
            })
            .flatten()
            .and_then(|j| ev.holders[j].1)
        {
            ev.mark_held(at);
        }
        before = after;
    }
    ev.resolve_held()?;
    Ok(ev.finish(admission.failed_counter))
}

/// The pools that hold harm until every attack is resolved, in order: the
/// slot each is credited in and, for each but the last, the state field
/// that notes how many harms were held by its end.
fn holders(program: &Program, admission: admit::Admission) -> Result<Vec<Holder>, CoreError> {
    let pools: Vec<usize> = (0..program.sequences.len())
        .filter(|&i| program.held_by(i))
        .collect();
    let fields = marker_fields(
        program.plan.target.groups.len(),
        admission.carry_failed,
        admission.carry_mortal.is_some(),
    );
    if pools.len() > fields.len() + 1 {
        return Err(decline(format!(
            "{} pools hold harm until every attack is resolved, more than the {} whose harm can be told apart",
            pools.len(),
            fields.len() + 1
        )));
    }
    Ok(pools
        .iter()
        .enumerate()
        .map(|(j, &i)| {
            let at = (j + 1 < pools.len()).then(|| fields[j]);
            (program.attributed[i], at)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::probabilities;

    #[test]
    fn a_pmf_strayed_past_either_end_is_clamped_and_nothing_else_moves() {
        let strayed = vec![-1e-17, 0.25, 1.000_000_000_000_004_9, 0.5];
        assert_eq!(probabilities(strayed), vec![0.0, 0.25, 1.0, 0.5]);
    }
}
