//! The exact evaluator's budgets: work counted in steps (so whether it
//! declines does not depend on the machine), memory counted in bytes by the
//! evaluator itself, and a stop a caller may ask for (Ctrl-C).
//!
//! Every loop whose cost grows with the Plan spends its steps before it runs.
//! Once a budget is spent, or a stop is asked for, the work left is skipped
//! (distributions come back empty) and the evaluation ends with the reason:
//! it never answers from what was skipped.

use crate::error::CoreError;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Steps one evaluation may take before it declines rather than keep the
/// caller waiting (`auto` evaluation tries the exact evaluator first). A step
/// is one multiply-add of two distributions or one state transition; on the
/// machines we measured, ten million take between one and two seconds.
pub const MAX_WORK: u64 = 10_000_000;

/// The most memory the evaluator's distributions may hold at once, as it
/// counts them (states, chains of states, pmfs), before it declines.
pub const MAX_BYTES: u64 = 500 * 1024 * 1024;

/// Bytes one carried state costs in a map (key, probability, and the map's
/// own overhead).
pub(super) const STATE_BYTES: u64 = 48;

/// An admitted evaluation that has taken this many times the work estimated
/// for it stops: the estimate was wrong for this Plan, and Monte Carlo will
/// answer sooner than waiting out the whole budget.
pub const OVERRUN: u64 = 4;

/// Estimates below this are counted as this much when the overrun is judged:
/// four times a tiny estimate is still only a few milliseconds of work, and
/// stopping there would decline Plans that cost nothing.
pub const OVERRUN_FLOOR: u64 = MAX_WORK / 40;

/// Why the evaluation stopped early, if it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Work,
    Overrun(u64),
    Memory(u64),
    Interrupted,
    /// Past the work a caller lets run on its own thread
    /// ([`super::evaluate_polled`]): it starts again on a worker.
    HandOff,
}

/// What [`spend`] and [`pause`] read on every call, together, so that a
/// call finds them with one look-up of the thread's storage (in a shared
/// library each look-up is a call of its own).
struct Hot {
    /// Work done by the evaluation running on this thread.
    work: Cell<u64>,
    /// Calls of [`spend`] left before it looks at the clock and the stop.
    calls_left: Cell<u32>,
    /// The work at which [`spend`] next checks every limit: below it, none
    /// can be reached, and counting a step is all a call does.
    check_at: Cell<u64>,
    /// Work not counted in steps (see [`pause`]) since the clock and the
    /// stop were last looked at.
    uncounted: Cell<u64>,
    /// Why it stopped early.
    stopped: Cell<Option<Stop>>,
}

thread_local! {
    static HOT: Hot = const {
        Hot {
            work: Cell::new(0),
            calls_left: Cell::new(0),
            check_at: Cell::new(0),
            uncounted: Cell::new(0),
            stopped: Cell::new(None),
        }
    };
    /// The work estimated for it, once it is admitted.
    static ESTIMATE: Cell<Option<u64>> = const { Cell::new(None) };
    /// Measuring the estimate: admit whatever it says, never stop on it.
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    /// A stop the caller may ask for from another thread.
    static STOP: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
    /// The work, and the time, after which the evaluation is handed to a
    /// worker thread.
    static HAND_OFF: Cell<Option<(u64, Instant)>> = const { Cell::new(None) };
}

/// Calls of [`spend`] between two looks at the clock and the caller's stop.
const CALLS_PER_CHECK: u32 = 256;
/// Steps of work between two looks at the clock and the caller's stop, at
/// most: half a millisecond or so.
const STEPS_PER_CHECK: u64 = 4096;

/// Start counting afresh, for a new evaluation on this thread, which stops
/// early once `stop` is set, or once it would take more than `hand_off`'s
/// steps or has run for its time (see [`handed_off`]). Estimates often
/// overstate the work many times over, so only the work counted and the
/// time taken are held to `hand_off`; the time, because some work (building
/// one die's tables) is bounded apart and not counted in steps.
pub(super) fn reset(stop: Option<Arc<AtomicBool>>, hand_off: Option<(u64, Duration)>) {
    HOT.with(|h| {
        h.work.set(0);
        h.stopped.set(None);
    });
    ESTIMATE.with(|e| e.set(None));
    STOP.with(|s| *s.borrow_mut() = stop);
    HAND_OFF.with(|h| h.set(hand_off.map(|(steps, time)| (steps, Instant::now() + time))));
    recheck();
}

/// Have the next call of [`spend`] check every limit (one changed).
fn recheck() {
    HOT.with(|h| {
        h.check_at.set(0);
        h.calls_left.set(0);
        h.uncounted.set(STEPS_PER_CHECK);
    });
}

/// Did the evaluation stop because it is too big to finish on the caller's
/// thread (the `hand_off` of [`reset`])? Its work is then done again on a
/// worker, so nothing it computed is used.
pub(super) fn handed_off() -> bool {
    HOT.with(|h| h.stopped.get()) == Some(Stop::HandOff)
}

fn stop(why: Stop) {
    HOT.with(|h| {
        if h.stopped.get().is_none() {
            h.stopped.set(Some(why));
        }
    });
    recheck();
}

/// The work estimated for the evaluation once it is admitted: from then on
/// it stops once it has taken [`OVERRUN`] times as much.
pub(super) fn expect(estimate: u64) {
    ESTIMATE.with(|e| e.set(Some(estimate)));
    recheck();
}

/// Whether the estimate is being measured rather than obeyed
/// ([`super::measure`]).
pub(super) fn measuring() -> bool {
    MEASURING.with(Cell::get)
}

pub(super) fn set_measuring(on: bool) {
    MEASURING.with(|m| m.set(on));
    recheck();
}

/// The work done so far, and the work estimated (none before admission).
pub(super) fn work() -> (u64, Option<u64>) {
    (HOT.with(|h| h.work.get()), ESTIMATE.with(Cell::get))
}

/// Has the evaluation stopped early?
pub(super) fn stopped() -> bool {
    HOT.with(|h| h.stopped.get()).is_some()
}

/// A pause before `effort` multiply-adds of work that is not counted in
/// steps (n-fold sums and one die's tables, held to limits of their own, so
/// that what the evaluator admits does not depend on them); true once the
/// evaluation must stop. The clock and the caller's stop are looked at once
/// such work since the last look reaches [`STEPS_PER_CHECK`]: a small sum
/// then costs no look at all, and a long one is stopped within a fraction of
/// a millisecond.
#[inline]
pub(super) fn pause(effort: u64) -> bool {
    let (stopped, due, total) = HOT.with(|h| {
        let since = h.uncounted.get().saturating_add(effort);
        h.uncounted.set(since);
        (
            h.stopped.get().is_some(),
            since >= STEPS_PER_CHECK,
            h.work.get(),
        )
    });
    stopped || (due && check(total))
}

/// Count `n` steps; true once the evaluation must stop (over budget, or
/// asked to), when the work is skipped.
///
/// Most calls only count: the limits on work are checked once the work
/// reaches the least of them (so a stop for work comes on the same call as
/// if every call checked), and the clock and the caller's stop every
/// [`CALLS_PER_CHECK`] calls and every [`STEPS_PER_CHECK`] steps.
#[inline]
pub(super) fn spend(n: usize) -> bool {
    let (total, counted) = HOT.with(|h| {
        let total = h.work.get().saturating_add(n as u64);
        h.work.set(total);
        if total < h.check_at.get() {
            let left = h.calls_left.get().wrapping_sub(1);
            h.calls_left.set(left);
            if left != 0 {
                return (total, true);
            }
        }
        (total, false)
    });
    !counted && check(total)
}

/// Every limit, at `total` steps of work; true once the evaluation must
/// stop. Sets when [`spend`] checks next.
#[cold]
fn check(total: u64) -> bool {
    if stopped() {
        return true;
    }
    // A run is held to its estimate once admitted, unless it is measured.
    let estimate = ESTIMATE.with(Cell::get).filter(|_| !measuring());
    let overrun = estimate.map(|e| OVERRUN.saturating_mul(e.max(OVERRUN_FLOOR)));
    let hand_off = HAND_OFF.with(Cell::get);
    if hand_off.is_some_and(|(steps, deadline)| total > steps || Instant::now() >= deadline) {
        stop(Stop::HandOff);
    } else if total > MAX_WORK {
        stop(Stop::Work);
    } else if let Some(e) = estimate.filter(|_| overrun.is_some_and(|o| total > o)) {
        stop(Stop::Overrun(e));
    } else if STOP.with(|s| {
        s.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }) {
        stop(Stop::Interrupted);
    }
    if stopped() {
        return true;
    }
    // The first work at which a limit could be passed, or the clock and the
    // stop are due.
    let limits = [Some(MAX_WORK), overrun, hand_off.map(|(steps, _)| steps)];
    let next = limits
        .into_iter()
        .flatten()
        .fold(total.saturating_add(STEPS_PER_CHECK), u64::min);
    HOT.with(|h| {
        h.check_at.set(next.saturating_add(1));
        h.calls_left.set(CALLS_PER_CHECK);
        h.uncounted.set(0);
    });
    false
}

/// Check that a structure of `bytes` fits the memory budget; true once the
/// evaluation must stop.
pub(super) fn hold(bytes: u64) -> bool {
    if bytes > MAX_BYTES {
        stop(Stop::Memory(bytes));
    }
    stopped()
}

/// The evaluation's end: an error if it stopped early.
pub(super) fn verdict() -> Result<(), CoreError> {
    match HOT.with(|h| h.stopped.get()) {
        None => Ok(()),
        Some(Stop::Interrupted) => Err(CoreError::Interrupted),
        Some(Stop::HandOff) => Err(CoreError::Internal {
            reason: "the exact evaluation was handed to a worker thread, which gives its answer"
                .to_string(),
        }),
        Some(Stop::Work) => Err(decline(format!(
            "too many outcomes to evaluate within {MAX_WORK} steps of work (its limit, about a second or two)"
        ))),
        Some(Stop::Overrun(estimate)) => Err(decline(format!(
            "it took more than {OVERRUN} times the {} steps of work estimated for it, so it stopped early rather than keep the caller waiting",
            estimate.max(OVERRUN_FLOOR)
        ))),
        Some(Stop::Memory(bytes)) => Err(decline(format!(
            "too many outcomes: they would hold about {} MB of distributions, over its limit of {} MB",
            bytes / (1024 * 1024),
            MAX_BYTES / (1024 * 1024)
        ))),
    }
}

pub(super) fn decline(reason: impl Into<String>) -> CoreError {
    CoreError::Declined {
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_past_the_cap_declines_naming_the_size() {
        reset(None, None);
        assert!(!hold(MAX_BYTES));
        assert!(hold(MAX_BYTES * 2));
        let e = verdict().unwrap_err().to_string();
        assert!(e.contains("about 1000 MB"), "{e}");
        assert!(spend(1), "work stops once memory did");
        reset(None, None);
        assert!(verdict().is_ok());
    }

    #[test]
    fn work_past_four_times_the_estimate_stops() {
        reset(None, None);
        expect(OVERRUN_FLOOR * 2);
        assert!(!spend(
            usize::try_from(OVERRUN * OVERRUN_FLOOR * 2).unwrap()
        ));
        assert!(spend(1));
        let e = verdict().unwrap_err().to_string();
        assert!(e.contains("4 times the 500000 steps"), "{e}");
    }

    #[test]
    fn a_tiny_estimate_counts_as_the_floor() {
        reset(None, None);
        expect(10);
        assert!(!spend(usize::try_from(OVERRUN * OVERRUN_FLOOR).unwrap()));
        assert!(spend(1));
    }

    #[test]
    fn a_pause_sees_a_stop_once_enough_uncounted_work_has_passed() {
        let flag = Arc::new(AtomicBool::new(false));
        reset(Some(Arc::clone(&flag)), None);
        assert!(!pause(0), "nothing asked yet");
        flag.store(true, Ordering::Relaxed);
        // Small pieces of work pass without a look...
        assert!(!pause(STEPS_PER_CHECK / 4));
        assert!(!pause(STEPS_PER_CHECK / 4));
        // ...until as much as one look's worth has come since the last.
        assert!(pause(STEPS_PER_CHECK / 2));
        assert!(pause(0), "stopped for good");
        assert!(matches!(verdict(), Err(CoreError::Interrupted)));
        // Uncounted work is never charged to the step budget.
        reset(None, None);
        assert!(!pause(u64::MAX));
        assert_eq!(work().0, 0);
    }

    #[test]
    fn work_past_the_budget_declines() {
        reset(None, None);
        assert!(!spend(usize::try_from(MAX_WORK).unwrap()));
        assert!(spend(1));
        assert!(verdict().unwrap_err().to_string().contains("steps of work"));
    }
}
