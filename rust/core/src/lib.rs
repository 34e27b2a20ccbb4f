//! mathhammer's core: dice expressions, seeded random streams, the Plan every
//! ruleset compiles to, and the executors that run it. No Python here: the
//! `mathhammer-py` crate wraps this one for the extension module.

pub mod alias;
pub(crate) mod allocation;
pub mod batch;
mod binomial;
pub mod dice;
pub mod error;
pub mod exact;
pub mod executor;
pub mod montecarlo;
pub mod plan;
pub mod program;
pub mod rng;
pub(crate) mod roll;
pub mod sampled;
pub(crate) mod tables;
pub mod target;
pub mod trace;
mod trial_table;
pub mod workspace;

pub use dice::DiceExpr;
pub use error::CoreError;
pub use executor::run_trial;
pub use montecarlo::{simulate, Path, RunOptions, Runner, Tally, CHUNK_TRIALS};
pub use plan::Plan;
pub use program::Program;
pub use rng::{DiceSource, Scripted, Stream};
pub use workspace::{TrialOutcome, Workspace};

/// Replay one trial with the given dice and record every step.
///
/// # Errors
/// [`CoreError::Script`] if the dice run out or a value does not fit its die.
pub fn replay(
    program: &Program,
    dice: Vec<u32>,
) -> Result<(TrialOutcome, Vec<trace::Event>, usize), CoreError> {
    let mut ws = Workspace::new(program);
    let mut source = Scripted::new(dice);
    let mut rec = trace::Recorder::default();
    run_trial(program, &mut ws, &mut source, &mut rec);
    source.check()?;
    if let Some(e) = ws.failure.take() {
        return Err(e);
    }
    Ok((workspace::outcome(&ws), rec.events, source.used()))
}
