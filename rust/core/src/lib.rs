//! mathhammer's core: dice expressions, seeded random streams, the Plan every
//! ruleset compiles to, and the executors that run it. No Python here: the
//! `mathhammer-py` crate wraps this one for the extension module.

pub mod alias;
pub(crate) mod allocation;
pub mod batch;
mod between_attacks;
mod binomial;
pub mod dice;
pub mod error;
pub mod exact;
pub mod executor;
mod failed_states;
pub mod limits;
pub mod montecarlo;
mod one_group;
pub mod plan;
pub(crate) mod pool_chain;
pub(crate) mod pool_tests;
pub mod program;
pub mod rng;
pub(crate) mod roll;
pub mod sampled;
pub(crate) mod tables;
pub mod target;
mod tied_dice;
pub mod trace;
mod trial_table;
pub mod value;
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

/// A [`DiceSource`] that keeps every value it hands out.
struct Recording<'a, D> {
    inner: &'a mut D,
    drawn: Vec<u32>,
}

impl<D: DiceSource> DiceSource for Recording<'_, D> {
    fn roll(&mut self, sides: u32) -> u32 {
        let value = self.inner.roll(sides);
        self.drawn.push(value);
        value
    }
}

/// Replay trial `trial` of a die-by-die Monte Carlo run with `seed`, and
/// record every step and every die drawn.
///
/// The trial is the one [`simulate`] resolves at that index on the die-by-die
/// path ([`Path::DieByDie`]): it draws from the stream of chunk
/// `trial / CHUNK_TRIALS` after the trials before it in that chunk. (The fast
/// path draws whole outcomes from tables instead of dice, and a Plan with
/// batch hooks runs a chunk sequence by sequence, so their runs take other
/// draws from the same stream.) Replaying the dice returned with [`replay`]
/// gives the same trial.
///
/// # Errors
/// An error the trial itself raises, such as a batch hook's.
pub fn replay_seeded(
    program: &Program,
    seed: u64,
    trial: u64,
) -> Result<(TrialOutcome, Vec<trace::Event>, Vec<u32>), CoreError> {
    let mut ws = Workspace::new(program);
    let mut stream = Stream::new(seed, trial / CHUNK_TRIALS);
    for _ in 0..trial % CHUNK_TRIALS {
        run_trial(program, &mut ws, &mut stream, &mut trace::NoTrace);
        if let Some(e) = ws.failure.take() {
            return Err(e);
        }
    }
    let mut source = Recording {
        inner: &mut stream,
        drawn: Vec::new(),
    };
    let mut rec = trace::Recorder::default();
    run_trial(program, &mut ws, &mut source, &mut rec);
    if let Some(e) = ws.failure.take() {
        return Err(e);
    }
    Ok((workspace::outcome(&ws), rec.events, source.drawn))
}
