//! Monte Carlo: many trials in fixed-size chunks, in parallel, into histograms.
//!
//! Chunk `k` always covers trials `k * CHUNK_TRIALS ..` and draws from the
//! stream `(seed, k)`; histograms are integer counts, so merging them in any
//! order gives the same numbers. A seed therefore gives bit-identical results
//! on one thread or many, and memory grows with the number of distinct
//! outcomes, never with the number of trials.

use crate::batch::{self, Batch};
use crate::between_attacks;
use crate::error::CoreError;
use crate::executor::{self, run_trial};
use crate::plan::Side;
use crate::program::{Program, RunSequence};
use crate::rng::Stream;
use crate::sampled::{self, Sampler};
use crate::tables::{self, Builder};
use crate::trace::NoTrace;
use crate::workspace::Workspace;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

pub use crate::limits::MAX_TRIALS;

/// Trials per chunk. Part of the reproducibility contract: changing it changes
/// what a seed gives.
pub const CHUNK_TRIALS: u64 = 16_384;

/// Count `times` more trials at value `v` in histogram `h`.
#[inline]
fn record(h: &mut Vec<u64>, v: u32, times: u64) {
    match h.get_mut(v as usize) {
        Some(count) => *count += times,
        None => grow(h, v, times),
    }
}

/// [`record`] of a value the histogram has not reached yet.
#[cold]
fn grow(h: &mut Vec<u64>, v: u32, times: u64) {
    h.resize(v as usize + 1, 0);
    h[v as usize] = times;
}

/// Histograms of every reported number: `hist[i][v]` counts trials in which
/// number `i` came out as `v`. Numbers are those of [`Program::numbers`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tally {
    pub trials: u64,
    pub hist: Vec<Vec<u64>>,
}

impl Tally {
    #[must_use]
    pub fn new(numbers: usize) -> Self {
        Tally {
            trials: 0,
            hist: vec![Vec::new(); numbers],
        }
    }

    /// Record `times` trials in which number `i` was `v`.
    #[inline]
    pub(crate) fn record_times(&mut self, i: usize, v: u32, times: u64) {
        record(&mut self.hist[i], v, times);
    }

    /// Record `times` trials whose numbers were `row` (one per number, in
    /// the order of [`Tally::each_number`]).
    #[inline]
    pub(crate) fn record_row(&mut self, row: &[u32], times: u64) {
        for (i, &value) in row.iter().enumerate() {
            self.record_times(i, value, times);
        }
    }

    /// Each number a finished trial records, by index, in the order of
    /// [`Program::numbers`]: the counters, then damage and models destroyed,
    /// then the attacker's, then the models destroyed in each of the
    /// target's groups, then each attributed sequence's wounds and mortal
    /// wounds, then the value destroyed when the groups give values.
    #[inline]
    pub(crate) fn each_number(ws: &Workspace<'_>, mut f: impl FnMut(usize, u32)) {
        for (i, &value) in ws.counters.iter().enumerate() {
            f(i, value);
        }
        Tally::each_state_number(ws, f);
    }

    /// The numbers of [`Tally::each_number`] after the counters.
    #[inline]
    fn each_state_number(ws: &Workspace<'_>, mut f: impl FnMut(usize, u32)) {
        let c = ws.counters.len();
        f(c, ws.state.damage);
        f(c + 1, ws.state.destroyed);
        let mut next = c + 2;
        if let Some(a) = &ws.attacker {
            f(next, a.damage);
            f(next + 1, a.destroyed);
            next += 2;
        }
        let groups = ws.state.groups();
        for (g, (&alive, group)) in ws.state.alive.iter().zip(groups).enumerate() {
            f(next + g, group.start().0 - alive);
        }
        next += ws.state.alive.len();
        for (i, &(damage, mortal)) in ws.by_sequence.iter().enumerate() {
            f(next + 2 * i, damage);
            f(next + 2 * i + 1, mortal);
        }
        if ws.valued {
            f(
                next + 2 * ws.by_sequence.len(),
                crate::value::of_state(&ws.state),
            );
        }
    }

    /// Record one finished trial's numbers.
    pub fn record_trial(&mut self, ws: &Workspace<'_>) {
        // The numbers come in index order, so the histograms are walked in
        // step with them rather than looked up one by one.
        let (counters, rest) = self.hist.split_at_mut(ws.counters.len());
        for (h, &v) in counters.iter_mut().zip(&ws.counters) {
            record(h, v, 1);
        }
        let mut hist = rest
            .iter_mut()
            .enumerate()
            .map(|(at, h)| (at + counters.len(), h));
        Tally::each_state_number(ws, |i, v| {
            let h = hist.next();
            debug_assert_eq!(h.as_ref().map(|h| h.0), Some(i), "numbers in index order");
            if let Some((_, h)) = h {
                record(h, v, 1);
            }
        });
    }

    /// Add another tally's counts to this one.
    pub fn merge(&mut self, other: &Tally) {
        self.trials += other.trials;
        if self.hist.len() < other.hist.len() {
            self.hist.resize(other.hist.len(), Vec::new());
        }
        for (mine, theirs) in self.hist.iter_mut().zip(&other.hist) {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
    }

    /// Mean of number `i`.
    #[must_use]
    pub fn mean(&self, i: usize) -> f64 {
        let s: f64 = self.hist[i]
            .iter()
            .enumerate()
            .map(|(v, &c)| v as f64 * c as f64)
            .sum();
        s / self.trials as f64
    }

    /// Standard deviation of number `i` over the trials.
    #[must_use]
    pub fn sd(&self, i: usize) -> f64 {
        let m = self.mean(i);
        let s: f64 = self.hist[i]
            .iter()
            .enumerate()
            .map(|(v, &c)| (v as f64 - m).powi(2) * c as f64)
            .sum();
        (s / self.trials as f64).sqrt()
    }
}

/// How a run draws its trials. Both give the same distribution; they differ
/// in speed and in which numbers a seed produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Path {
    /// The fast path where the Plan allows it, else die by die.
    #[default]
    Auto,
    /// Every die rolled, as scripted replays do.
    DieByDie,
    /// The fast path one trial at a time, without drawing whole trials or
    /// looking resolutions up (the tests hold those shortcuts to it).
    PerTrial,
}

/// A Program ready for Monte Carlo, with fast-path tables where possible.
pub struct Runner<'p> {
    pub program: &'p Program,
    sampler: Option<Cow<'p, Sampler>>,
}

impl<'p> Runner<'p> {
    /// Build the fast-path tables if `path` allows and the Plan fits.
    #[must_use]
    pub fn new(program: &'p Program, path: Path) -> Self {
        let sampler = match path {
            Path::Auto => Sampler::new(program).map(Cow::Owned),
            Path::PerTrial => Sampler::new(program).map(|mut s| {
                s.whole = None;
                s.resolved = None;
                s.chain = None;
                s.failed_states = None;
                Cow::Owned(s)
            }),
            Path::DieByDie => None,
        };
        Runner { program, sampler }
    }

    /// Use tables built earlier (from [`Sampler::new`] on the same Program),
    /// so repeated runs of one Plan build them once.
    #[must_use]
    pub fn with_sampler(program: &'p Program, sampler: Option<&'p Sampler>) -> Self {
        Runner {
            program,
            sampler: sampler.map(Cow::Borrowed),
        }
    }

    /// Does this runner use the fast path?
    #[must_use]
    pub fn is_sampled(&self) -> bool {
        self.sampler.is_some()
    }

    /// Does this runner draw whole trials at once (one pool whose trial the
    /// drawn counts decide)?
    #[must_use]
    pub fn draws_whole_trials(&self) -> bool {
        self.sampler.as_ref().is_some_and(|s| s.whole.is_some())
    }

    /// Does this runner look a pool's resolution up instead of running it?
    #[must_use]
    pub fn looks_resolutions_up(&self) -> bool {
        self.sampler.as_ref().is_some_and(|s| s.resolved.is_some())
    }

    /// Does this runner look several pools' resolutions up in turn
    /// (`pool_chain.rs`)?
    #[must_use]
    pub fn chains_pools(&self) -> bool {
        self.sampler.as_ref().is_some_and(|s| s.chain.is_some())
    }

    /// Does this runner draw the target's state after a pool's failed saves
    /// in one draw (`failed_states.rs`)?
    #[must_use]
    pub fn draws_failed_states(&self) -> bool {
        self.sampler
            .as_ref()
            .is_some_and(|s| s.failed_states.is_some())
    }
}

/// Why Monte Carlo on [`Path::Auto`] rolls every die of `program`, in words
/// naming the pool and the reason; `None` when it takes the fast path.
///
/// Each reason is one `docs/architecture.md` names ("What still runs die by
/// die"), so a caller can tell whether a Plan runs die by die for a reason
/// the documentation gives. It is read off the Plan once the fast path's
/// tables have been refused, in the order their builder meets the reasons.
#[must_use]
pub fn why_die_by_die(program: &Program) -> Option<String> {
    if program.has_batch_hooks() {
        return Some("a pool calls a batch hook, which sees every die".into());
    }
    if Sampler::new(program).is_some() {
        return None;
    }
    let pools = program
        .sequences
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            RunSequence::Pool(pool) => Some((program.sequence_name(i), pool)),
            _ => None,
        });
    let mut reasons = Vec::new();
    for (name, pool) in pools {
        let why = if let Some(why) = tables::why_not_tabulated(pool, 1) {
            Some(why)
        } else if tables::one_token(pool, 1, sampled::MAX_TABLE_ENTRIES, &mut Builder::default())
            .is_none()
        {
            Some("building its one-die table passes the work or the entries allowed".to_string())
        } else {
            None
        };
        reasons.extend(why.map(|why| format!("pool {name:?}: {why}")));
    }
    Some(if reasons.is_empty() {
        "its pools' tables together pass the entries or the work allowed".into()
    } else {
        reasons.join("; ")
    })
}

/// Shared state of a run: a stop request, trials finished so far, and the
/// first error a chunk met.
#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    done: AtomicU64,
    error: Mutex<Option<CoreError>>,
}

impl Control {
    /// Ask every chunk to stop after its current trial.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    #[must_use]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Trials finished so far (updated as chunks finish).
    #[must_use]
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    pub(crate) fn add_done(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    /// Record a chunk's error (the first one wins) and stop the run.
    fn fail(&self, e: CoreError) {
        let mut slot = self
            .error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slot.get_or_insert(e);
        self.stop();
    }

    fn take_error(&self) -> Option<CoreError> {
        self.error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

/// Run chunk `chunk` of a run of `trials` trials with `seed`. It checks
/// `control` before every trial and returns early once a stop is asked for
/// (the partial tally is then meaningless and callers discard it).
#[must_use]
pub fn run_chunk(
    runner: &Runner<'_>,
    seed: u64,
    chunk: u64,
    trials: u64,
    control: &Control,
) -> Tally {
    let program = runner.program;
    if program.has_batch_hooks() {
        return run_chunk_sequenced(program, seed, chunk, trials, control).unwrap_or_else(|e| {
            control.fail(e);
            Tally::new(program.numbers().len())
        });
    }
    let start = chunk * CHUNK_TRIALS;
    let n = trials.saturating_sub(start).min(CHUNK_TRIALS);
    let numbers = program.numbers().len();
    let mut tally = Tally::new(numbers);
    let mut ws = Workspace::new(program);
    let mut stream = Stream::new(seed, chunk);
    if let Some(sampler) = runner.sampler.as_deref() {
        if control.stopped() {
            return tally;
        }
        let shortcut = match (&sampler.whole, &sampler.resolved, &sampler.chain) {
            (Some(whole), _, _) => {
                whole.run(n, &mut stream, &mut tally);
                true
            }
            (None, Some(resolved), _) => {
                resolved.run(program, sampler.first_pool(), n, &mut stream, &mut tally);
                true
            }
            (None, None, Some(chain)) => {
                chain.run(n, &mut stream, &mut tally);
                true
            }
            (None, None, None) => false,
        };
        if shortcut {
            tally.trials = n;
            control.add_done(n);
            return tally;
        }
    }
    for _ in 0..n {
        if control.stopped() {
            return tally;
        }
        match &runner.sampler {
            Some(sampler) => sampled::run_trial(program, sampler, &mut ws, &mut stream),
            None => run_trial(program, &mut ws, &mut stream, &mut NoTrace),
        }
        tally.record_trial(&ws);
    }
    tally.trials = n;
    control.add_done(n);
    tally
}

/// Run chunk `chunk` sequence by sequence, calling the Plan's batch hooks once
/// per hooked pool. Like [`run_chunk`], it stops early when
/// `control` asks.
///
/// # Errors
/// A hook's error, or a missing hook.
fn run_chunk_sequenced(
    program: &Program,
    seed: u64,
    chunk: u64,
    trials: u64,
    control: &Control,
) -> Result<Tally, CoreError> {
    // This path lands held harm from the deferred list only: a Plan with a
    // batch hook never has its held wounds added up as they are held.
    debug_assert!(
        program.held_pool.is_none(),
        "held wounds are summed only without batch hooks"
    );
    let start = chunk * CHUNK_TRIALS;
    let n = trials.saturating_sub(start).min(CHUNK_TRIALS) as usize;
    let mut stream = Stream::new(seed, chunk);
    let mut wss: Vec<Workspace<'_>> = (0..n).map(|_| Workspace::new(program)).collect();
    wss.iter_mut().for_each(Workspace::reset);
    let mut tally = Tally::new(program.numbers().len());
    for (index, seq) in program.sequences.iter().enumerate() {
        if control.stopped() {
            return Ok(tally);
        }
        match seq {
            RunSequence::Heal { .. } => {
                for ws in &mut wss {
                    between_attacks::heal(seq, ws, &mut stream, &mut NoTrace);
                }
            }
            RunSequence::Mark { .. } => {
                for ws in &mut wss {
                    between_attacks::mark(seq, ws, &mut stream, &mut NoTrace);
                }
            }
            RunSequence::Pool(pool) => {
                let flip = pool.against == Side::Attacker;
                let slot = program.attributed[index];
                for ws in &mut wss {
                    if flip {
                        ws.flip();
                    }
                    executor::run_pool_tests(index, pool, ws, &mut stream, &mut NoTrace);
                }
                if let Some(hook) = pool.batch_hook {
                    let hooks = program.hooks.as_ref().ok_or_else(|| batch::missing(hook))?;
                    let mut batch = Batch::gather(pool, &wss);
                    hooks.call(hook, &mut batch)?;
                    batch.check(n)?;
                    for (t, ws) in wss.iter_mut().enumerate() {
                        batch.scatter(t, ws);
                    }
                }
                for ws in &mut wss {
                    // The tests harm nothing: only the saves and what follows
                    // them are the pool's harm (a pool aimed at the
                    // attacker, swapped here, has no slot).
                    let before = ws.harm();
                    executor::run_pool_saves(pool, ws, &mut stream, &mut NoTrace);
                    if flip {
                        ws.flip();
                    }
                    ws.attribute(slot, before);
                }
            }
            RunSequence::Mortal { .. } => {
                for ws in &mut wss {
                    let before = ws.harm();
                    executor::mortal_source(seq, ws, &mut stream, &mut NoTrace);
                    ws.attribute(program.attributed[index], before);
                }
            }
        }
    }
    for ws in &mut wss {
        executor::resolve_deferred(program, ws, &mut stream, &mut NoTrace);
        tally.record_trial(ws);
    }
    tally.trials = n as u64;
    control.add_done(n as u64);
    Ok(tally)
}

/// Number of chunks a run of `trials` trials has.
#[must_use]
pub fn chunk_count(trials: u64) -> u64 {
    trials.div_ceil(CHUNK_TRIALS)
}

/// Run chunks `chunks` of a run of `trials` trials, in parallel on the current
/// rayon pool, and merge them.
#[must_use]
pub fn run_chunks(
    runner: &Runner<'_>,
    seed: u64,
    trials: u64,
    chunks: std::ops::Range<u64>,
    control: &Control,
) -> Tally {
    let numbers = runner.program.numbers().len();
    // Once a stop is asked for, the chunks not yet begun are skipped without
    // being visited one by one (a run may have billions of them).
    chunks
        .into_par_iter()
        .map(|k| {
            if control.stopped() {
                Err(())
            } else {
                Ok(run_chunk(runner, seed, k, trials, control))
            }
        })
        .try_reduce(
            || Tally::new(numbers),
            |mut a, b| {
                a.merge(&b);
                Ok(a)
            },
        )
        .unwrap_or_else(|()| Tally::new(numbers))
}

/// Options for [`simulate`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    pub trials: u64,
    pub seed: u64,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    pub path: Path,
}

/// How often a running simulation calls back (progress, Ctrl-C).
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// Run a whole simulation, building the fast-path tables if `options.path`
/// allows. See [`simulate_with`].
///
/// # Errors
/// As [`simulate_with`].
pub fn simulate(
    program: &Program,
    options: RunOptions,
    poll: impl FnMut(u64, u64) -> Result<(), CoreError>,
) -> Result<Tally, CoreError> {
    simulate_with(&Runner::new(program, options.path), options, poll)
}

/// Run a whole simulation with `runner`: [`simulate_chunks_with`] over every
/// chunk of the run.
///
/// # Errors
/// As [`simulate_chunks_with`].
pub fn simulate_with(
    runner: &Runner<'_>,
    options: RunOptions,
    poll: impl FnMut(u64, u64) -> Result<(), CoreError>,
) -> Result<Tally, CoreError> {
    check_trials(options.trials)?;
    simulate_chunks_with(runner, options, 0..chunk_count(options.trials), poll)
}

fn check_trials(trials: u64) -> Result<(), CoreError> {
    if trials == 0 || trials > MAX_TRIALS {
        return Err(CoreError::plan(
            "trials",
            format!("is {trials}; it must be from 1 to {MAX_TRIALS}"),
        ));
    }
    Ok(())
}

/// Trials that chunks `chunks` of a run of `trials` trials cover.
#[must_use]
pub fn trials_in(trials: u64, chunks: &std::ops::Range<u64>) -> u64 {
    let end = chunks.end.saturating_mul(CHUNK_TRIALS).min(trials);
    end.saturating_sub(chunks.start.saturating_mul(CHUNK_TRIALS))
}

/// Run chunks `chunks` (of the [`chunk_count`] that a run of
/// `options.trials` trials has) with `runner`: part of a run, such as the
/// share of one machine when a run is spread over several. Chunk `k` draws
/// from the stream `(seed, k)` whichever call runs it, so the tallies of
/// calls covering `0..chunk_count(trials)` between them, merged with
/// [`Tally::merge`] in any order, equal the whole run's, count for count.
///
/// The chunks run on a worker thread pool while the calling thread calls
/// `poll(done_trials, total)` every [`POLL_INTERVAL`] and once at the end
/// (`total` is the trials in `chunks`), so a caller can report progress or
/// stop the run: an error from `poll` (such as [`CoreError::Interrupted`])
/// stops every chunk after its current trial and is returned. `poll` is
/// called on until the workers have stopped; its later errors are ignored.
///
/// # Errors
/// [`CoreError::Plan`] naming `trials` or `chunks` when out of range;
/// whatever `poll` returns, or a thread-pool failure.
pub fn simulate_chunks_with(
    runner: &Runner<'_>,
    options: RunOptions,
    chunks: std::ops::Range<u64>,
    mut poll: impl FnMut(u64, u64) -> Result<(), CoreError>,
) -> Result<Tally, CoreError> {
    check_trials(options.trials)?;
    let total = chunk_count(options.trials);
    if chunks.start >= chunks.end || chunks.end > total {
        return Err(CoreError::plan(
            "chunks",
            format!(
                "are {}..{}; a run of {} trials has chunks 0..{total}, and a part must hold at least one",
                chunks.start, chunks.end, options.trials
            ),
        ));
    }
    let trials = trials_in(options.trials, &chunks);
    if chunks.end - chunks.start == 1 && runner.is_sampled() && !runner.program.has_batch_hooks() {
        // One chunk on the fast path (milliseconds at most, so Ctrl-C still
        // lands at once) and no batch hook: run it on this thread. A worker
        // pool and a poller would cost more than the chunk itself, and a
        // short call is all overhead otherwise.
        let control = Control::default();
        let tally = run_chunk(runner, options.seed, chunks.start, options.trials, &control);
        poll(control.done(), trials)?;
        return match control.take_error() {
            Some(e) => Err(e),
            None => Ok(tally),
        };
    }
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|e| CoreError::plan("threads", e.to_string()))?;
    let control = Control::default();
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        let control = &control;
        let worker = scope.spawn(move || {
            // A panic on a rayon thread comes back here through `install`;
            // catch it so the poll loop below still hears that the work ended.
            let tally = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                workers
                    .install(|| run_chunks(runner, options.seed, options.trials, chunks, control))
            }));
            // The receiver only goes away once this scope ends.
            let _ = sender.send(());
            tally.map(Ok)
        });
        let mut failure = None;
        loop {
            let finished = match receiver.recv_timeout(POLL_INTERVAL) {
                Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
                Err(RecvTimeoutError::Timeout) => false,
            };
            // Once stopped, `poll` is still called while the workers finish
            // (its errors ignored), so a caller can act on a second Ctrl-C
            // when a worker is stuck in a batch hook.
            let polled = poll(control.done(), trials);
            if failure.is_none() {
                if let Err(e) = polled {
                    control.stop();
                    failure = Some(e);
                }
            }
            if finished {
                break;
            }
        }
        let tally = crate::error::joined(worker.join().and_then(|caught| caught))?;
        match failure.or_else(|| control.take_error()) {
            Some(e) => Err(e),
            None => Ok(tally),
        }
    })
}
