//! The exact evaluator's work budget: steps counted, so that whether it
//! declines does not depend on the machine.

use crate::error::CoreError;

/// Steps of state transitions one evaluation may take (about a second or
/// two) before it declines rather than keep the caller waiting: `auto`
/// evaluation tries the exact evaluator first.
pub(super) const MAX_WORK: u64 = 10_000_000;

thread_local! {
    /// Work done by the evaluation running on this thread.
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Start counting afresh, for a new evaluation on this thread.
pub(super) fn reset() {
    WORK.with(|w| w.set(0));
}

/// Count `n` steps; true once the evaluation is over budget, when the
/// transitions stop producing states and the evaluation declines.
pub(super) fn spend(n: usize) -> bool {
    WORK.with(|w| {
        let total = w.get().saturating_add(n as u64);
        w.set(total);
        total > MAX_WORK
    })
}

pub(super) fn over_budget() -> Result<(), CoreError> {
    if WORK.with(std::cell::Cell::get) > MAX_WORK {
        Err(decline(
            "too many outcomes to evaluate exactly in reasonable time",
        ))
    } else {
        Ok(())
    }
}

pub(super) fn decline(reason: impl Into<String>) -> CoreError {
    CoreError::Declined {
        reason: reason.into(),
    }
}
