//! `mathhammer._core`: the thin layer between Python and `mathhammer-core`.
//! Convert in, release the GIL, convert out; nothing else lives here.

mod allocator;
mod error;
mod hooks;
mod panics;

use error::PyCoreErr;
use hooks::PyHooks;
use mathhammer_core::montecarlo::{
    simulate_chunks_with, simulate_with, why_die_by_die, RunOptions,
};
use mathhammer_core::plan::{Class, Sequence, Side};
use mathhammer_core::sampled::Sampler;
use mathhammer_core::trace::Event;
use mathhammer_core::{CoreError, DiceExpr, Plan, Program, Runner, Tally};
use numpy::{IntoPyArray, PyArray1};
use panics::guard;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat};
use std::sync::{Arc, OnceLock};

/// Exact evaluations allocate from mimalloc, everything else from the
/// system allocator (`allocator.rs` says why).
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

/// A parsed dice expression.
#[pyclass(frozen, module = "mathhammer._core", name = "DiceExpr")]
struct PyDiceExpr(DiceExpr);

#[pymethods]
impl PyDiceExpr {
    #[getter]
    fn count(&self) -> u32 {
        self.0.count
    }
    #[getter]
    fn sides(&self) -> u32 {
        self.0.sides
    }
    #[getter]
    fn constant(&self) -> i64 {
        self.0.constant
    }
    #[getter]
    fn min(&self) -> u32 {
        self.0.min()
    }
    #[getter]
    fn max(&self) -> u32 {
        self.0.max()
    }
    #[getter]
    fn is_random(&self) -> bool {
        self.0.is_random()
    }
    fn mean(&self) -> PyResult<f64> {
        guard(|| Ok(self.0.mean()))
    }
    /// The exact distribution: element v is P(value = v).
    fn distribution<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        guard(|| Ok(self.0.distribution().into_pyarray(py)))
    }
    fn __str__(&self) -> String {
        self.0.to_string()
    }
    fn __repr__(&self) -> String {
        format!("DiceExpr({:?})", self.0.to_string())
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyDiceExpr>()
            .is_ok_and(|o| o.get().0 == self.0)
    }
    fn __hash__(&self) -> u64 {
        u64::from(self.0.count) << 48 ^ u64::from(self.0.sides) << 32 ^ self.0.constant as u64
    }
}

#[pyfunction(name = "parse_dice")]
fn parse_dice_py(text: &str) -> PyResult<PyDiceExpr> {
    guard(|| Ok(PyDiceExpr(DiceExpr::parse(text).map_err(PyCoreErr)?)))
}

/// A checked Plan, ready to run many times. The fast-path tables are built on
/// first use and kept, so repeated runs of one Plan pay for them once.
#[pyclass(frozen, module = "mathhammer._core", name = "CompiledPlan")]
struct PyCompiledPlan {
    program: Arc<Program>,
    sampler: OnceLock<Option<Sampler>>,
    hooks: Option<Arc<PyHooks>>,
}

impl PyCompiledPlan {
    /// The Python exception a batch hook raised, if any, to raise unchanged.
    fn hook_error(&self) -> Option<PyErr> {
        self.hooks.as_ref().and_then(|h| {
            h.raised
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
        })
    }
}

impl PyCompiledPlan {
    fn build(py: Python<'_>, plan_json: &str, hooks: Option<Vec<Py<PyAny>>>) -> PyResult<Self> {
        let text = plan_json.to_owned();
        let mut program = py
            .detach(move || Plan::from_json(&text).and_then(Program::new))
            .map_err(PyCoreErr)?;
        let hooks = hooks.map(|hooks| Arc::new(PyHooks::new(hooks)));
        if hooks.is_some() {
            // Imported now, so that interrupting a hook later runs no import
            // (an import runs Python code, where a second Ctrl-C would land).
            py.import("ctypes")?
                .getattr("pythonapi")?
                .getattr("PyThreadState_SetAsyncExc")?;
            py.import("threading")?;
        }
        if let Some(h) = &hooks {
            program =
                program.with_hooks(Arc::clone(h) as Arc<dyn mathhammer_core::batch::BatchHooks>);
        }
        Ok(PyCompiledPlan {
            program: Arc::new(program),
            sampler: OnceLock::new(),
            hooks,
        })
    }

    fn sampler(&self) -> Option<&Sampler> {
        self.sampler
            .get_or_init(|| Sampler::new(&self.program))
            .as_ref()
    }
}

#[pymethods]
impl PyCompiledPlan {
    #[new]
    #[pyo3(signature = (plan_json, hooks = None))]
    fn new(py: Python<'_>, plan_json: &str, hooks: Option<Vec<Py<PyAny>>>) -> PyResult<Self> {
        guard(|| Self::build(py, plan_json, hooks))
    }
    /// Does a pool call a Python batch hook (so Monte Carlo runs chunk by chunk)?
    #[getter]
    fn has_batch_hooks(&self) -> bool {
        self.program.has_batch_hooks()
    }
    /// Names of the stage counters, in the order `simulate` returns them.
    #[getter]
    fn counters(&self) -> Vec<String> {
        self.program.plan.counters.clone()
    }
    /// Names of every number `simulate` returns a histogram for, in order.
    #[getter]
    fn numbers(&self) -> Vec<String> {
        self.program.numbers()
    }
    /// Names of the target's groups, by index.
    #[getter]
    fn groups(&self) -> Vec<String> {
        self.program
            .plan
            .target
            .groups
            .iter()
            .map(|g| g.name.clone())
            .collect()
    }
    /// Models each of the target's groups starts the trial with, by index
    /// (its models destroyed are counted from there).
    #[getter]
    fn group_models(&self) -> Vec<u32> {
        self.program
            .plan
            .target
            .groups
            .iter()
            .map(|g| g.start().0)
            .collect()
    }
    /// Names of the sequences (attack pools, mortal-wound sources) aimed at
    /// the target, in order: the last two numbers per name, in the same
    /// order, are the wounds the target lost to it and the mortal wounds it
    /// inflicted.
    #[getter]
    fn credited(&self) -> Vec<String> {
        self.program
            .attributed_sequences()
            .into_iter()
            .map(|i| self.program.sequence_name(i).to_string())
            .collect()
    }
    /// Models in the target.
    #[getter]
    fn target_models(&self) -> u32 {
        self.program.plan.target_models()
    }
    /// Does Monte Carlo take the fast path (outcomes drawn from exact tables)?
    fn uses_fast_path(&self, py: Python<'_>) -> PyResult<bool> {
        guard(|| Ok(py.detach(|| self.sampler().is_some())))
    }
    /// Why Monte Carlo rolls every die of this Plan, naming the pool and the
    /// reason, or `None` when it takes the fast path.
    fn why_die_by_die(&self, py: Python<'_>) -> PyResult<Option<String>> {
        guard(|| {
            Ok(py.detach(|| {
                if self.sampler().is_some() && !self.program.has_batch_hooks() {
                    None
                } else {
                    why_die_by_die(&self.program)
                }
            }))
        })
    }
}

/// Run `trials` trials; returns one histogram (uint64 array) per name in
/// `plan.numbers`. The GIL is released while the trials
/// run; about ten times a second it is taken back briefly to honour Ctrl-C and
/// call `progress(done, total)`.
#[pyfunction(name = "simulate", signature = (plan, trials, seed, threads = 0, progress = None, die_by_die = false))]
fn simulate_py<'py>(
    py: Python<'py>,
    plan: &PyCompiledPlan,
    trials: u64,
    seed: u64,
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
    die_by_die: bool,
) -> PyResult<Vec<Bound<'py, PyArray1<u64>>>> {
    guard(|| run_part(py, plan, trials, seed, None, threads, progress, die_by_die))
}

/// Run chunks `first` to `last` (excluded) of a run of `trials` trials with
/// `seed`: one histogram per name in `plan.numbers`, over the trials of those
/// chunks only. Chunk `k` draws from the stream `(seed, k)` wherever it runs,
/// so parts covering `0..chunk_count(trials)` between them, merged with
/// `merge_histograms`, equal `simulate(plan, trials, seed)` count for count.
#[pyfunction(
    name = "simulate_chunks",
    signature = (plan, trials, seed, first, last, threads = 0, progress = None, die_by_die = false)
)]
#[allow(clippy::too_many_arguments)] // one Python call's keyword arguments
fn simulate_chunks_py<'py>(
    py: Python<'py>,
    plan: &PyCompiledPlan,
    trials: u64,
    seed: u64,
    first: u64,
    last: u64,
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
    die_by_die: bool,
) -> PyResult<Vec<Bound<'py, PyArray1<u64>>>> {
    guard(|| {
        run_part(
            py,
            plan,
            trials,
            seed,
            Some(first..last),
            threads,
            progress,
            die_by_die,
        )
    })
}

/// Run `chunks` of a run (every chunk when `None`) and hand back its histograms.
#[allow(clippy::too_many_arguments)]
fn run_part<'py>(
    py: Python<'py>,
    plan: &PyCompiledPlan,
    trials: u64,
    seed: u64,
    chunks: Option<std::ops::Range<u64>>,
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
    die_by_die: bool,
) -> PyResult<Vec<Bound<'py, PyArray1<u64>>>> {
    let progress = progress.map(|p| p.clone().unbind());
    let options = RunOptions {
        trials,
        seed,
        threads,
        ..RunOptions::default()
    };
    let tally = enter_core(py, progress.as_ref(), plan.hooks.as_deref(), |poll| {
        let sampler = if die_by_die { None } else { plan.sampler() };
        let runner = Runner::with_sampler(&plan.program, sampler);
        match chunks {
            Some(chunks) => simulate_chunks_with(&runner, options, chunks, poll),
            None => simulate_with(&runner, options, poll),
        }
    })
    .map_err(|e| plan.hook_error().unwrap_or(e))?;
    Ok(tally.hist.into_iter().map(|h| h.into_pyarray(py)).collect())
}

/// Add up the histograms of parts of one run (each as `simulate_chunks`
/// returns them): integer counts, so the order of the parts does not matter.
/// Any sequences of whole numbers are taken, so arrays that came over a
/// network (unaligned, or not contiguous) merge as well as local ones.
#[pyfunction(name = "merge_histograms")]
fn merge_histograms_py(
    py: Python<'_>,
    parts: Vec<Vec<Vec<u64>>>,
) -> PyResult<Vec<Bound<'_, PyArray1<u64>>>> {
    guard(|| {
        let bad =
            |reason: String| pyo3::exceptions::PyValueError::new_err(format!("parts: {reason}"));
        let Some(numbers) = parts.first().map(Vec::len) else {
            return Err(bad("is empty; give at least one part".to_string()));
        };
        let mut merged = Tally::new(numbers);
        for (i, part) in parts.into_iter().enumerate() {
            if part.len() != numbers {
                return Err(bad(format!(
                    "part {i} has {} histograms, but part 0 has {numbers}: they are not parts of one run",
                    part.len()
                )));
            }
            merged.merge(&Tally {
                trials: 0,
                hist: part,
            });
        }
        Ok(merged
            .hist
            .into_iter()
            .map(|h| h.into_pyarray(py))
            .collect())
    })
}

/// Chunks a run of `trials` trials has (`CHUNK_TRIALS` trials each, the last one maybe fewer).
#[pyfunction(name = "chunk_count")]
fn chunk_count_py(trials: u64) -> u64 {
    mathhammer_core::montecarlo::chunk_count(trials)
}

/// Evaluate the Plan exactly; one pmf (float64 array) per name in
/// `plan.numbers`, or, for a number whose distribution the evaluator does not
/// work out (the wounds lost to one of several weapons), its exact mean as a
/// float. Raises `DeclinedError`, saying why, for a Plan the exact
/// evaluator cannot do exactly. The GIL is released while it runs; before it
/// starts and, past a millisecond or two of work, about ten times a second it
/// is taken back briefly to honour Ctrl-C and call `progress(0, 0)`, whose
/// exception stops the evaluation: off the main thread, where Ctrl-C is not
/// seen, that is how a caller cancels it.
#[pyfunction(name = "evaluate_exact", signature = (plan, progress = None))]
fn evaluate_exact_py<'py>(
    py: Python<'py>,
    plan: &PyCompiledPlan,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let progress = progress.map(|p| p.clone().unbind());
    guard(|| {
        let exact = enter_core(py, progress.as_ref(), None, |poll| {
            let _mimalloc = allocator::exact();
            mathhammer_core::exact::evaluate_polled(&plan.program, poll)
        })?;
        exact
            .pmfs
            .into_iter()
            .zip(exact.means)
            .map(|(pmf, mean)| match mean {
                Some(m) => Ok(PyFloat::new(py, m).into_any()),
                None => Ok(PyArray1::from_slice(py, &pmf).into_any()),
            })
            .collect()
    })
}

/// Run `work` without the GIL. `work` gets a `poll` callback to call now and
/// then: it takes the GIL back briefly to honour Ctrl-C and report progress.
/// Errors of either kind come back as Python exceptions.
///
/// A Ctrl-C while a batch hook of `hooks` runs cannot stop the hook (Python
/// code on another thread): the first one says which hook it interrupted,
/// raises `KeyboardInterrupt` inside it (which stops a busy hook) and stops
/// the run once the hook returns; a second one, for a hook that does not
/// return, prints one line and ends the process at once with status 130
/// (`os._exit`), as the shell's convention for Ctrl-C.
fn enter_core<T: Send>(
    py: Python<'_>,
    progress: Option<&Py<PyAny>>,
    hooks: Option<&PyHooks>,
    work: impl FnOnce(&mut dyn FnMut(u64, u64) -> Result<(), CoreError>) -> Result<T, CoreError> + Send,
) -> PyResult<T> {
    let mut python_error: Option<PyErr> = None;
    let result = py.detach(|| {
        let mut poll = |done: u64, total: u64| -> Result<(), CoreError> {
            Python::attach(|py| {
                let checked = py.check_signals().map_err(|e| {
                    match (&python_error, hooks) {
                        (None, Some(h)) => match h.describe_running(py) {
                            Some(hook) => {
                                h.interrupt_running(py);
                                say(py, &format!(
                                    "mathhammer: interrupted while {hook} was running; stopping once it returns \
                                     (press Ctrl-C again to quit at once)"
                                ));
                                pyo3::exceptions::PyKeyboardInterrupt::new_err(format!(
                                    "interrupted while {hook} was running"
                                ))
                            }
                            None => e,
                        },
                        (Some(_), Some(h)) => {
                            let hook = h
                                .describe_running(py)
                                .unwrap_or_else(|| "a batch hook".to_string());
                            say(py, &format!("mathhammer: interrupted again; quitting without waiting for {hook}"));
                            let _ = py.import("os").and_then(|os| os.call_method1("_exit", (130,)));
                            e
                        }
                        _ => e,
                    }
                });
                let checked = checked.and_then(|()| match progress {
                    Some(cb) if python_error.is_none() => cb.bind(py).call1((done, total)).map(|_| ()),
                    _ => Ok(()),
                });
                checked.map_err(|e| {
                    python_error.get_or_insert(e);
                    CoreError::Interrupted
                })
            })
        };
        work(&mut poll)
    });
    match (result, python_error) {
        (Ok(v), _) => Ok(v),
        (Err(_), Some(e)) => Err(e),
        (Err(e), None) => Err(PyCoreErr(e).into()),
    }
}

/// Write one line to Python's stderr, flushed (best effort: it is a notice).
fn say(py: Python<'_>, line: &str) {
    let _ = py.import("sys").and_then(|sys| {
        let err = sys.getattr("stderr")?;
        err.call_method1("write", (format!("{line}\n"),))?;
        err.call_method0("flush")
    });
}

/// Names of one side's groups, by index, for the events.
struct GroupNames {
    target: Vec<String>,
    attacker: Vec<String>,
    /// Per sequence, the side it harms: the groups its order and save
    /// events name are that side's.
    sides: Vec<Side>,
    /// The side the sequence now running harms.
    attacked: std::cell::Cell<Side>,
}

impl GroupNames {
    fn name(&self, side: Side, g: usize) -> String {
        match side {
            Side::Target => self.target[g].clone(),
            Side::Attacker => self.attacker[g].clone(),
        }
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Target => "target",
        Side::Attacker => "attacker",
    }
}

/// One trial event as a dict: its kind under `event`, and its fields.
fn event_dict<'py>(py: Python<'py>, e: &Event, names: &GroupNames) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let known = flow_event(&d, e, names)? || roll_event(&d, e, names)? || harm_event(&d, e, names)?;
    debug_assert!(known, "every kind of event has its fields written");
    Ok(d)
}

/// Fill `d` for an event of the trial's flow (rounds, sequences, attacks, order); false for another kind.
fn flow_event(d: &Bound<'_, PyDict>, e: &Event, names: &GroupNames) -> PyResult<bool> {
    if let Event::Sequence { index, .. } = e {
        names
            .attacked
            .set(names.sides.get(*index).copied().unwrap_or_default());
    }
    let name = |g: usize| names.name(names.attacked.get(), g);
    match e {
        Event::Round { number } => {
            d.set_item("event", "round")?;
            d.set_item("number", number)?;
        }
        Event::Contest {
            scores,
            loser,
            roll,
            hold_at_most,
            held,
        } => {
            d.set_item("event", "contest")?;
            d.set_item("attacker_score", scores[0])?;
            d.set_item("target_score", scores[1])?;
            d.set_item("loser", loser.map(side_name))?;
            d.set_item("roll", roll)?;
            d.set_item("hold_at_most", hold_at_most)?;
            d.set_item("held", held)?;
        }
        Event::Heal { side, amount } => {
            d.set_item("event", "heal")?;
            d.set_item("side", side_name(*side))?;
            d.set_item("amount", amount)?;
        }
        Event::Sequence { index, name: n } => {
            d.set_item("event", "sequence")?;
            d.set_item("index", index)?;
            d.set_item("name", n)?;
        }
        Event::Attacks { count } => {
            d.set_item("event", "attacks")?;
            d.set_item("count", count)?;
        }
        Event::Order { groups: order } => {
            d.set_item("event", "order")?;
            d.set_item("groups", order.iter().map(|&g| name(g)).collect::<Vec<_>>())?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Fill `d` for a roll (tests, checks, saves); false for another kind.
fn roll_event(d: &Bound<'_, PyDict>, e: &Event, names: &GroupNames) -> PyResult<bool> {
    let name = |g: usize| names.name(names.attacked.get(), g);
    match e {
        Event::Test {
            step,
            roll,
            rerolled_from,
            outcome,
        } => {
            d.set_item("event", "test")?;
            d.set_item("step", step)?;
            d.set_item("roll", roll)?;
            d.set_item("rerolled_from", rerolled_from)?;
            d.set_item("outcome", format!("{outcome:?}").to_lowercase())?;
        }
        Event::Roll { roll, failed } => {
            d.set_item("event", "roll")?;
            d.set_item("roll", roll)?;
            d.set_item("failed", failed)?;
        }
        Event::Save {
            roll,
            group,
            saved,
            wounds_left,
        } => {
            d.set_item("event", "save")?;
            d.set_item("roll", roll)?;
            d.set_item("group", group.map(name))?;
            d.set_item("saved", saved)?;
            d.set_item("wounds_left", wounds_left)?;
        }
        Event::SpecialSave {
            group,
            roll,
            rerolled_from,
            saved,
        } => {
            d.set_item("event", "special_save")?;
            d.set_item("group", name(*group))?;
            d.set_item("roll", roll)?;
            d.set_item("rerolled_from", rerolled_from)?;
            d.set_item("saved", saved)?;
        }
        Event::Dice {
            step,
            dice,
            rerolled_from,
            outcome,
            class,
        } => {
            d.set_item("event", "dice")?;
            d.set_item("step", step)?;
            d.set_item("dice", dice)?;
            d.set_item("rerolled_from", rerolled_from)?;
            d.set_item("outcome", format!("{outcome:?}").to_lowercase())?;
            d.set_item(
                "class",
                class.map(|c| match c {
                    Class::FirstHigher => "first_higher",
                    Class::Equal => "equal",
                    Class::SecondHigher => "second_higher",
                }),
            )?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Fill `d` for harm (damage, mortal wounds, Feel No Pain, models destroyed); false for another kind.
fn harm_event(d: &Bound<'_, PyDict>, e: &Event, names: &GroupNames) -> PyResult<bool> {
    match e {
        Event::Damage {
            side,
            group,
            amount,
            lost,
        } => {
            d.set_item("event", "damage")?;
            d.set_item("side", side_name(*side))?;
            d.set_item("group", names.name(*side, *group))?;
            d.set_item("amount", amount)?;
            d.set_item("lost", lost)?;
        }
        Event::Mortal {
            against,
            amount,
            spill,
        } => {
            d.set_item("event", "mortal_wounds")?;
            d.set_item("side", side_name(*against))?;
            d.set_item("amount", amount)?;
            d.set_item("spill", spill)?;
        }
        Event::FeelNoPain {
            side,
            group,
            roll,
            ignored,
        } => {
            d.set_item("event", "feel_no_pain")?;
            d.set_item("side", side_name(*side))?;
            d.set_item("group", names.name(*side, *group))?;
            d.set_item("roll", roll)?;
            d.set_item("ignored", ignored)?;
        }
        Event::ModelDestroyed {
            side,
            group,
            left_in_group,
        } => {
            d.set_item("event", "model_destroyed")?;
            d.set_item("side", side_name(*side))?;
            d.set_item("group", names.name(*side, *group))?;
            d.set_item("left_in_group", left_in_group)?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Resolve one trial with the given dice, in the executor's documented draw
/// order. Returns a dict: `counters` (name -> value), `damage`,
/// `models_destroyed` (and `attacker_damage`, `attacker_models_destroyed`
/// when the Plan lists the attacker's models), `dice_used` and `events` (one
/// dict per step).
#[pyfunction(name = "replay")]
#[allow(clippy::needless_pass_by_value)] // PyO3 hands extracted arguments over by value
fn replay_py<'py>(
    py: Python<'py>,
    plan: &PyCompiledPlan,
    dice: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| replay_dict(py, plan, &dice))
}

fn replay_dict<'py>(
    py: Python<'py>,
    plan: &PyCompiledPlan,
    dice: &[Bound<'py, PyAny>],
) -> PyResult<Bound<'py, PyDict>> {
    let values = dice
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.extract::<u32>().ok().filter(|&x| x >= 1).ok_or_else(|| {
                PyCoreErr(CoreError::Script {
                    reason: format!(
                        "value {v} at position {i} is not a die result (a whole number from 1)"
                    ),
                })
            })
        })
        .collect::<Result<Vec<u32>, PyCoreErr>>()?;
    let (outcome, events, used) = mathhammer_core::replay(&plan.program, values)
        .map_err(|e| plan.hook_error().unwrap_or_else(|| PyCoreErr(e).into()))?;
    trial_dict(py, plan, &outcome, &events, used)
}

/// What a replay returns, as a dict (see `replay`).
fn trial_dict<'py>(
    py: Python<'py>,
    plan: &PyCompiledPlan,
    outcome: &mathhammer_core::TrialOutcome,
    events: &[Event],
    used: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let names = GroupNames {
        target: plan.groups(),
        attacker: plan
            .program
            .plan
            .attacker
            .iter()
            .flat_map(|a| a.groups.iter().map(|g| g.name.clone()))
            .collect(),
        sides: plan
            .program
            .plan
            .sequences
            .iter()
            .map(|s| match s {
                Sequence::Attack(p) => p.against,
                Sequence::MortalWounds(m) => m.against,
                Sequence::Heal(h) => h.side,
                Sequence::Mark(_) => Side::Target,
            })
            .collect(),
        attacked: std::cell::Cell::new(Side::Target),
    };
    let d = PyDict::new(py);
    let counters = PyDict::new(py);
    for (name, v) in plan.program.plan.counters.iter().zip(&outcome.counters) {
        counters.set_item(name, v)?;
    }
    d.set_item("counters", counters)?;
    d.set_item("damage", outcome.damage)?;
    d.set_item("models_destroyed", outcome.destroyed)?;
    if let Some((damage, destroyed)) = outcome.attacker {
        d.set_item("attacker_damage", damage)?;
        d.set_item("attacker_models_destroyed", destroyed)?;
    }
    let credited = PyDict::new(py);
    for (name, &(damage, mortal)) in plan.credited().iter().zip(&outcome.by_sequence) {
        let one = PyDict::new(py);
        one.set_item("damage", damage)?;
        one.set_item("mortal_wounds", mortal)?;
        credited.set_item(name, one)?;
    }
    d.set_item("by_sequence", credited)?;
    d.set_item("dice_used", used)?;
    let list = events
        .iter()
        .map(|e| event_dict(py, e, &names))
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("events", list)?;
    Ok(d)
}

/// Replay trial `trial` of a die-by-die Monte Carlo run with `seed` (the
/// trial `simulate(plan, trials, seed, die_by_die=True)` resolves at that
/// index). Returns what `replay` returns, plus `dice`: every die drawn, in
/// order, so that `replay(plan, dice)` tells the same trial.
#[pyfunction(name = "replay_seeded", signature = (plan, seed, trial = 0))]
fn replay_seeded_py<'py>(
    py: Python<'py>,
    plan: &PyCompiledPlan,
    seed: u64,
    trial: u64,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let (outcome, events, dice) = mathhammer_core::replay_seeded(&plan.program, seed, trial)
            .map_err(|e| plan.hook_error().unwrap_or_else(|| PyCoreErr(e).into()))?;
        let d = trial_dict(py, plan, &outcome, &events, dice.len())?;
        d.set_item("dice", dice)?;
        Ok(d)
    })
}

/// A panic on purpose, to test that none reaches Python as one. Not part of
/// the API: tests call it as `_core._panic_for_tests(site)`, where `site` is
/// `"caller"` (on the calling thread), `"worker"` (in a batch hook on the
/// Monte Carlo worker threads, for `plan`, whose pools must call one), or
/// `"unguarded"` (outside the guard, so the bindings raise its `PanicException`: for
/// the command line's last line of defence).
#[pyfunction(name = "_panic_for_tests", signature = (site, plan = None))]
fn panic_for_tests_py(py: Python<'_>, site: &str, plan: Option<&PyCompiledPlan>) -> PyResult<()> {
    #[derive(Debug)]
    struct Panics;
    impl mathhammer_core::batch::BatchHooks for Panics {
        fn call(&self, _: usize, _: &mut mathhammer_core::batch::Batch) -> Result<(), CoreError> {
            panic!("a test hook panicked on purpose");
        }
    }
    match (site, plan) {
        ("unguarded", _) => panic!("a test panicked on purpose"),
        ("caller", _) => guard(|| panic!("a test panicked on purpose")),
        ("worker", Some(plan)) => guard(|| {
            let program = Program::new(plan.program.plan.clone())
                .map_err(PyCoreErr)?
                .with_hooks(Arc::new(Panics));
            let options = RunOptions {
                trials: 2 * mathhammer_core::CHUNK_TRIALS,
                seed: 1,
                threads: 2,
                ..RunOptions::default()
            };
            enter_core(py, None, None, |poll| {
                simulate_with(&Runner::new(&program, options.path), options, poll)
            })
            .map(drop)
        }),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "unknown site {site:?}, or \"worker\" without a plan"
        ))),
    }
}

#[pymodule(gil_used = false)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    panics::install_hook();
    // Load numpy's C API now: loaded lazily, its first use could run an
    // import just as Ctrl-C arrives, and the numpy crate panics on that.
    drop(numpy::PyArray1::<f64>::zeros(m.py(), 0, false));
    m.add("PLAN_VERSION", mathhammer_core::plan::PLAN_VERSION)?;
    m.add("CHUNK_TRIALS", mathhammer_core::CHUNK_TRIALS)?;
    for limit in mathhammer_core::limits::LIMITS {
        m.add(limit.name, limit.value)?;
    }
    m.add_class::<PyDiceExpr>()?;
    m.add_class::<PyCompiledPlan>()?;
    m.add_function(wrap_pyfunction!(parse_dice_py, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_py, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_chunks_py, m)?)?;
    m.add_function(wrap_pyfunction!(merge_histograms_py, m)?)?;
    m.add_function(wrap_pyfunction!(chunk_count_py, m)?)?;
    m.add_function(wrap_pyfunction!(replay_py, m)?)?;
    m.add_function(wrap_pyfunction!(replay_seeded_py, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_exact_py, m)?)?;
    m.add_function(wrap_pyfunction!(panic_for_tests_py, m)?)?;
    error::register(m)?;
    Ok(())
}
