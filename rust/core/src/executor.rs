//! Resolve one trial of a Plan, die by die.
//!
//! The order in which dice are drawn is part of the contract, because scripted
//! dice replay rulebook examples with it (`docs/architecture.md`): sequences
//! in order; within an attack pool, each model's attack dice, then every
//! test's dice token by token (a re-roll straight after the die it replaces,
//! an extra-token amount straight after the die that earned it), then every
//! save die, then, in the order the sorted saves resolve, each unsaved
//! attack's damage and its Feel No Pain dice, and last the pool's mortal
//! wounds with their amounts and Feel No Pain dice.

use crate::dice::DiceExpr;
use crate::error::CoreError;
use crate::plan::{
    AttackPool, Class, Effect, Excess, Group, Outcome, Plan, Reroll, Rolls, Save, Sequence, Side,
    SpecialSave, Test,
};
use crate::rng::DiceSource;
use crate::roll::{Classed, Roll};
use crate::target::TargetState;
use crate::trace::{Event, Observer};

/// A test with its modifiers summed and capped and its faces classified once.
#[derive(Debug, Clone)]
pub(crate) struct RunTest {
    pub(crate) name: String,
    pub(crate) automatic: bool,
    pub(crate) die: u32,
    /// `by_face[f]` is the outcome of an unmodified `f` (index 0 unused).
    pub(crate) by_face: Vec<Outcome>,
    pub(crate) reroll: Reroll,
    pub(crate) counter: Option<usize>,
    /// Each outcome's actions, with the class of the roll they also need.
    pub(crate) on_fail: Vec<(Option<Class>, RunAction)>,
    pub(crate) on_success: Vec<(Option<Class>, RunAction)>,
    pub(crate) on_critical: Vec<(Option<Class>, RunAction)>,
    /// A roll of several dice instead of `die`, and its exact distribution.
    pub(crate) roll: Option<(Roll, Vec<Classed>)>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum RunAction {
    Extra(DiceExpr),
    Skip(usize),
    Inflict(Inflict),
    Count(usize),
}

/// Harm a token does outside the save: mortal wounds, or its damage with no
/// save allowed or against a save of its own. `ends` takes the token out of
/// the sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Inflict {
    pub(crate) kind: InflictKind,
    pub(crate) after_all: bool,
    pub(crate) ends: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InflictKind {
    Mortal {
        amount: Option<DiceExpr>,
        spill: bool,
        reduced: bool,
        focus: bool,
        against: Side,
    },
    /// The pool's damage (its largest value with `maximize`, plus `bonus`),
    /// unsaved, or when `save` names one of the pool's `own_saves`, only if
    /// that save fails.
    Damage {
        save: Option<usize>,
        maximize: bool,
        bonus: i32,
    },
}

/// [`crate::plan::TopThreshold`] with its mark resolved.
#[derive(Debug, Clone)]
pub(crate) struct RunTopThreshold {
    pub(crate) mark: Option<usize>,
    pub(crate) mortal: Option<DiceExpr>,
    pub(crate) check: Option<crate::plan::Check>,
}

/// A save with its modifiers summed per group.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunSave {
    /// False when no save applies: nothing is rolled and every token fails.
    pub(crate) rolled: bool,
    pub(crate) die: u32,
    pub(crate) natural_fail: u32,
    /// Per group: AP plus save modifiers plus the group's own, capped.
    pub(crate) modifier: Vec<i32>,
    /// Per group: the save rolled after a failed one.
    pub(crate) special: Vec<Option<SpecialSave>>,
    pub(crate) counter: Option<usize>,
}

#[derive(Debug, Clone)]
pub(crate) struct RunPool {
    pub(crate) name: String,
    pub(crate) attacks: Vec<crate::plan::Attacks>,
    pub(crate) attacks_counter: Option<usize>,
    pub(crate) tests: Vec<RunTest>,
    pub(crate) save: RunSave,
    /// Saves tokens take instead of the pool's (`Effect::OwnSave`), by index.
    pub(crate) own_saves: Vec<RunSave>,
    pub(crate) damage: DiceExpr,
    pub(crate) excess: Excess,
    pub(crate) cap_at_wounds: bool,
    pub(crate) top_threshold_counter: Option<usize>,
    pub(crate) top_threshold: Option<RunTopThreshold>,
    /// The side the pool attacks.
    pub(crate) against: Side,
    pub(crate) mortal_counter: Option<usize>,
    pub(crate) focus: Vec<usize>,
    pub(crate) batch_hook: Option<usize>,
}

#[derive(Debug, Clone)]
pub(crate) enum RunSequence {
    Mark {
        name: String,
        mark: usize,
        check: Option<crate::plan::Check>,
        counter: Option<usize>,
    },
    Heal {
        name: String,
        side: Side,
        amount: DiceExpr,
        return_models: bool,
        check: Option<crate::plan::Check>,
        counter: Option<usize>,
    },
    Pool(Box<RunPool>),
    Mortal {
        name: String,
        amount: DiceExpr,
        counter: Option<usize>,
        rolls: Option<Rolls>,
        against: Side,
        spill: bool,
        feel_no_pain: bool,
    },
}

/// A Plan made ready to run: counters resolved to indices, faces classified.
#[derive(Debug, Clone)]
pub struct Program {
    pub plan: Plan,
    pub(crate) sequences: Vec<RunSequence>,
    /// The batch hooks the Plan's pools name, by index.
    pub(crate) hooks: Option<std::sync::Arc<dyn crate::batch::BatchHooks>>,
    /// A fight's counters: rounds begun, and how it ended.
    pub(crate) rounds_counter: Option<usize>,
    pub(crate) outcome_counter: Option<usize>,
}

/// The per-trial numbers a run reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrialOutcome {
    pub counters: Vec<u32>,
    /// Wounds lost and models destroyed by the attacker's own models, when
    /// the Plan lists them.
    pub attacker: Option<(u32, u32)>,
    pub damage: u32,
    pub destroyed: u32,
}

pub(crate) fn classify(t: &Test, natural: u32) -> Outcome {
    if natural <= t.natural_fail {
        return Outcome::Fail;
    }
    // Modifiers are bounded by validation; i64 keeps the sum exact anyway.
    let modifier = t
        .modifiers
        .iter()
        .map(|&m| i64::from(m))
        .sum::<i64>()
        .clamp(i64::from(t.modifier_min), i64::from(t.modifier_max));
    let success = i64::from(natural) + modifier >= i64::from(t.target);
    if let Some(c) = t.critical {
        if natural >= c && (success || !t.critical_requires_success) {
            return Outcome::Critical;
        }
    }
    if success {
        Outcome::Success
    } else {
        Outcome::Fail
    }
}

impl Program {
    /// Prepare a checked Plan.
    ///
    /// # Errors
    /// When a counter name does not resolve (already checked by
    /// [`Plan::from_json`], but a Plan built in Rust may skip that).
    pub fn new(plan: Plan) -> Result<Program, CoreError> {
        let mut sequences = Vec::with_capacity(plan.sequences.len());
        for (si, s) in plan.sequences.iter().enumerate() {
            let base = format!("sequences[{si}]");
            sequences.push(match s {
                Sequence::MortalWounds(m) => RunSequence::Mortal {
                    name: m.name.clone(),
                    amount: m.amount,
                    rolls: m.rolls,
                    against: m.against,
                    spill: m.spill,
                    feel_no_pain: m.feel_no_pain,
                    counter: plan.counter_index(&format!("{base}.counter"), m.counter.as_ref())?,
                },
                Sequence::Attack(p) => {
                    RunSequence::Pool(Box::new(Self::prepare_pool(&plan, &base, p)?))
                }
                Sequence::Mark(m) => RunSequence::Mark {
                    name: m.name.clone(),
                    mark: plan.mark_index(&format!("{base}.mark"), &m.mark)?,
                    check: m.check,
                    counter: plan.counter_index(&format!("{base}.counter"), m.counter.as_ref())?,
                },
                Sequence::Heal(h) => RunSequence::Heal {
                    name: h.name.clone(),
                    side: h.side,
                    amount: h.amount,
                    return_models: h.return_models,
                    check: h.check,
                    counter: plan.counter_index(&format!("{base}.counter"), h.counter.as_ref())?,
                },
            });
        }
        let (rounds_counter, outcome_counter) = match &plan.rounds {
            None => (None, None),
            Some(r) => (
                plan.counter_index("rounds.counter", r.counter.as_ref())?,
                plan.counter_index("rounds.outcome_counter", r.outcome_counter.as_ref())?,
            ),
        };
        Ok(Program {
            plan,
            sequences,
            hooks: None,
            rounds_counter,
            outcome_counter,
        })
    }

    fn prepare_pool(plan: &Plan, base: &str, p: &AttackPool) -> Result<RunPool, CoreError> {
        // Group indices in the pool refer to the side it attacks.
        let groups = match (p.against, &plan.attacker) {
            (Side::Attacker, Some(a)) => a.groups.len(),
            _ => plan.target.groups.len(),
        };
        let mut tests = Vec::with_capacity(p.steps.len());
        let mut own_saves = Vec::new();
        for (ti, t) in p.steps.iter().enumerate() {
            let mut on = [Vec::new(), Vec::new(), Vec::new()];
            for (ei, e) in t.effects.iter().enumerate() {
                let a = match e {
                    Effect::Extra { amount, .. } => RunAction::Extra(*amount),
                    Effect::Skip { steps, .. } => RunAction::Skip(*steps as usize),
                    Effect::Mortal {
                        amount,
                        spill,
                        ends_attack,
                        after_all,
                        reduced,
                        focus,
                        against,
                        ..
                    } => RunAction::Inflict(Inflict {
                        kind: InflictKind::Mortal {
                            amount: *amount,
                            spill: *spill,
                            reduced: *reduced,
                            focus: *focus,
                            against: *against,
                        },
                        after_all: *after_all,
                        ends: *ends_attack,
                    }),
                    Effect::Unsaved {
                        after_all,
                        maximize,
                        bonus,
                        ..
                    } => RunAction::Inflict(Inflict {
                        kind: InflictKind::Damage {
                            save: None,
                            maximize: *maximize,
                            bonus: *bonus,
                        },
                        after_all: *after_all,
                        ends: true,
                    }),
                    Effect::Count { counter, .. } => RunAction::Count(
                        plan.counter_index(
                            &format!("{base}.steps[{ti}].effects[{ei}].counter"),
                            Some(counter),
                        )?
                        .expect("a named counter"),
                    ),
                    Effect::OwnSave { save, .. } => {
                        let own = RunSave::new(
                            plan,
                            &format!("{base}.steps[{ti}].effects[{ei}].save"),
                            save,
                            groups,
                        )?;
                        let index = own_saves.iter().position(|s| *s == own).unwrap_or_else(|| {
                            own_saves.push(own);
                            own_saves.len() - 1
                        });
                        RunAction::Inflict(Inflict {
                            kind: InflictKind::Damage {
                                save: Some(index),
                                maximize: false,
                                bonus: 0,
                            },
                            after_all: false,
                            ends: true,
                        })
                    }
                };
                on[e.on() as usize].push((e.class(), a));
            }
            let [on_fail, on_success, on_critical] = on;
            tests.push(RunTest {
                name: t.name.clone(),
                automatic: t.automatic,
                die: t.die,
                by_face: if t.automatic || !t.dice.is_empty() {
                    Vec::new()
                } else {
                    (0..=t.die)
                        .map(|f| {
                            if f == 0 {
                                Outcome::Fail
                            } else {
                                classify(t, f)
                            }
                        })
                        .collect()
                },
                reroll: t.reroll,
                counter: plan
                    .counter_index(&format!("{base}.steps[{ti}].counter"), t.counter.as_ref())?,
                on_fail,
                on_success,
                on_critical,
                roll: (!t.dice.is_empty()).then(|| {
                    let roll = Roll::new(plan, t);
                    let distribution = roll.distribution(t.reroll);
                    (roll, distribution)
                }),
            });
        }
        Ok(RunPool {
            name: p.name.clone(),
            attacks: p.attacks.clone(),
            attacks_counter: plan.counter_index(
                &format!("{base}.attacks_counter"),
                p.attacks_counter.as_ref(),
            )?,
            tests,
            save: RunSave::new(plan, &format!("{base}.save"), &p.save, groups)?,
            against: p.against,
            own_saves,
            focus: p.focus.clone(),
            batch_hook: p.batch_hook,
            damage: p.damage.dice,
            excess: p.damage.excess,
            cap_at_wounds: p.damage.cap_at_wounds,
            top_threshold_counter: plan.counter_index(
                &format!("{base}.damage.top_threshold_counter"),
                p.damage.top_threshold_counter.as_ref(),
            )?,
            top_threshold: match &p.damage.top_threshold {
                None => None,
                Some(t) => Some(RunTopThreshold {
                    mark: match &t.mark {
                        Some(m) => {
                            Some(plan.mark_index(&format!("{base}.damage.top_threshold.mark"), m)?)
                        }
                        None => None,
                    },
                    mortal: t.mortal,
                    check: t.check,
                }),
            },
            mortal_counter: plan
                .counter_index(&format!("{base}.mortal_counter"), p.mortal_counter.as_ref())?,
        })
    }

    /// Give the Program the batch hooks its pools name.
    #[must_use]
    pub fn with_hooks(mut self, hooks: std::sync::Arc<dyn crate::batch::BatchHooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Does any pool call a batch hook?
    #[must_use]
    pub fn has_batch_hooks(&self) -> bool {
        self.sequences
            .iter()
            .any(|s| matches!(s, RunSequence::Pool(p) if p.batch_hook.is_some()))
    }

    /// Number of counters per trial.
    #[must_use]
    pub fn counters(&self) -> usize {
        self.plan.counters.len()
    }

    /// Names of every number a trial reports, in order: the counters, then
    /// `damage` and `models_destroyed`, then, when the Plan lists the
    /// attacker's models, `attacker_damage` and `attacker_models_destroyed`.
    #[must_use]
    pub fn numbers(&self) -> Vec<String> {
        let mut names = self.plan.counters.clone();
        names.extend(["damage", "models_destroyed"].map(String::from));
        if self.plan.attacker.is_some() {
            names.extend(["attacker_damage", "attacker_models_destroyed"].map(String::from));
        }
        names
    }
}

/// Reusable buffers for running many trials without allocating.
pub struct Workspace<'p> {
    pub state: TargetState<'p>,
    /// The attacker's own models, when the Plan lists them.
    pub attacker: Option<TargetState<'p>>,
    pub counters: Vec<u32>,
    pub(crate) entering: Vec<u32>,
    pub(crate) order: Vec<usize>,
    pub(crate) save_faces: Vec<u32>,
    /// The faces of a roll of several dice.
    pub(crate) roll_faces: Vec<u32>,
    /// The Plan's marks set now.
    pub(crate) marks: Vec<bool>,
    /// Harm queued by the current pool's tokens, resolved after its saves.
    pub(crate) pending: Vec<Inflict>,
    /// Harm queued until every sequence is resolved: (sequence index, what).
    pub(crate) deferred: Vec<(usize, Inflict, Option<usize>)>,
    /// The group the current pool made current (Precision-like rules).
    pub(crate) focus: Option<usize>,
    /// What the current pool's tests did, for batch hooks: attack dice, and
    /// per test the tokens that passed and the criticals rolled.
    pub(crate) attacks: u32,
    pub(crate) passed: Vec<u32>,
    pub(crate) criticals: Vec<u32>,
    /// Mortal wounds a batch hook added to the current pool.
    pub(crate) extra_mortal: u32,
    /// The first error a batch hook raised in this workspace's trials.
    pub(crate) failure: Option<CoreError>,
}

impl Workspace<'_> {
    /// Swap the sides, so the attacker's models are the ones attacked.
    pub(crate) fn flip(&mut self) {
        if let Some(a) = self.attacker.as_mut() {
            std::mem::swap(&mut self.state, a);
        }
    }

    /// Is either side destroyed?
    pub(crate) fn either_destroyed(&self) -> bool {
        self.state.wiped_out() || self.attacker.as_ref().is_some_and(TargetState::wiped_out)
    }

    /// Back to the start of a trial.
    pub fn reset(&mut self) {
        self.state.reset();
        if let Some(a) = &mut self.attacker {
            a.reset();
        }
        self.counters.iter_mut().for_each(|c| *c = 0);
        self.marks.iter_mut().for_each(|m| *m = false);
        self.deferred.clear();
    }
}

impl<'p> Workspace<'p> {
    /// One side's models, when the Plan lists them.
    pub(crate) fn side_mut(&mut self, side: Side) -> Option<&mut TargetState<'p>> {
        match side {
            Side::Target => Some(&mut self.state),
            Side::Attacker => self.attacker.as_mut(),
        }
    }

    #[must_use]
    pub fn new(program: &'p Program) -> Self {
        Workspace {
            state: TargetState::new(&program.plan.target, Side::Target),
            attacker: program
                .plan
                .attacker
                .as_ref()
                .map(|a| TargetState::new(a, Side::Attacker)),
            counters: vec![0; program.counters()],
            entering: Vec::new(),
            order: Vec::new(),
            save_faces: Vec::new(),
            roll_faces: Vec::new(),
            marks: vec![false; program.plan.marks.len()],
            pending: Vec::new(),
            deferred: Vec::new(),
            focus: None,
            attacks: 0,
            passed: Vec::new(),
            criticals: Vec::new(),
            extra_mortal: 0,
            failure: None,
        }
    }
}

#[inline]
pub(crate) fn bump(counters: &mut [u32], index: Option<usize>, by: u32) {
    if let Some(i) = index {
        counters[i] += by;
    }
}

/// Run one trial into `ws` (counters, damage and models destroyed).
pub fn run_trial<D: DiceSource, O: Observer>(
    program: &Program,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    drive(program, ws, dice, obs, |index, pool, ws, dice, obs| {
        run_pool(program, index, pool, ws, dice, obs);
    });
}

/// One trial: the sequences in order (round after round in a fight, until a
/// side is destroyed), each pool run by `run` against the side it attacks,
/// then the harm held until the end.
pub(crate) fn drive<D: DiceSource, O: Observer>(
    program: &Program,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
    mut run: impl FnMut(usize, &RunPool, &mut Workspace<'_>, &mut D, &mut O),
) {
    ws.reset();
    let fight = program.plan.rounds.as_ref();
    'fight: for round in 0..fight.map_or(1, |r| r.max) {
        if fight.is_some() {
            if ws.either_destroyed() {
                break;
            }
            ws.marks.iter_mut().for_each(|m| *m = false);
            obs.event(Event::Round { number: round + 1 });
            bump(&mut ws.counters, program.rounds_counter, 1);
        }
        for (index, seq) in program.sequences.iter().enumerate() {
            if fight.is_some() && ws.either_destroyed() {
                break 'fight;
            }
            if obs.enabled() {
                obs.event(Event::Sequence {
                    index,
                    name: seq.name().to_string(),
                });
            }
            match seq {
                RunSequence::Pool(pool) => {
                    // A pool attacking the attacker sees the sides swapped, so
                    // `ws.state` is always the side attacked.
                    let flip = pool.against == Side::Attacker;
                    if flip {
                        ws.flip();
                    }
                    run(index, pool, ws, dice, obs);
                    if flip {
                        ws.flip();
                    }
                }
                RunSequence::Mortal { .. } => mortal_source(seq, ws, dice, obs),
                RunSequence::Heal { .. } => heal(seq, ws, dice, obs),
                RunSequence::Mark { .. } => mark(seq, ws, dice, obs),
            }
        }
    }
    resolve_deferred(program, ws, dice, obs);
    if let Some(c) = program.outcome_counter {
        let attacker = ws.attacker.as_ref().is_some_and(TargetState::wiped_out);
        ws.counters[c] = u32::from(ws.state.wiped_out()) + 2 * u32::from(attacker);
    }
}

/// Roll `check` and report it; true when it passes.
fn roll_check<D: DiceSource, O: Observer>(
    check: crate::plan::Check,
    dice: &mut D,
    obs: &mut O,
) -> bool {
    let roll = dice.roll(check.die);
    let passed = check.passes(roll);
    obs.event(Event::Roll {
        roll,
        failed: !passed,
    });
    passed
}

/// A mark: its check (if any), then the mark set for the rest of the round.
pub(crate) fn mark<D: DiceSource, O: Observer>(
    seq: &RunSequence,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let RunSequence::Mark {
        mark,
        check,
        counter,
        ..
    } = *seq
    else {
        return;
    };
    if check.is_some_and(|c| !roll_check(c, dice, obs)) {
        return;
    }
    ws.marks[mark] = true;
    bump(&mut ws.counters, counter, 1);
}

/// A healing sequence: its check (if any), then the wounds restored.
pub(crate) fn heal<D: DiceSource, O: Observer>(
    seq: &RunSequence,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let RunSequence::Heal {
        side,
        amount,
        return_models,
        check,
        counter,
        ..
    } = *seq
    else {
        return;
    };
    if check.is_some_and(|c| !roll_check(c, dice, obs)) {
        return;
    }
    let n = amount.roll(dice);
    if let Some(state) = ws.side_mut(side) {
        let healed = state.heal(n, return_models);
        bump(&mut ws.counters, counter, healed);
        obs.event(Event::Heal {
            side,
            amount: healed,
        });
    }
}

impl RunSequence {
    /// The sequence's name, as the Plan gives it.
    pub(crate) fn name(&self) -> &str {
        match self {
            RunSequence::Pool(p) => &p.name,
            RunSequence::Mortal { name, .. }
            | RunSequence::Heal { name, .. }
            | RunSequence::Mark { name, .. } => name,
        }
    }
}

/// A mortal-wound source: its rolls (if any), then its mortal wounds for each
/// failure (or once), against the side it names. With no models listed for
/// that side they are only counted.
pub(crate) fn mortal_source<D: DiceSource, O: Observer>(
    seq: &RunSequence,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let RunSequence::Mortal {
        amount,
        counter,
        rolls,
        against,
        spill,
        feel_no_pain,
        ..
    } = *seq
    else {
        return;
    };
    let times = match rolls {
        None => 1,
        Some(r) => (0..r.count)
            .filter(|_| {
                let roll = dice.roll(r.die);
                let failed = roll <= r.fail_at_most;
                obs.event(Event::Roll { roll, failed });
                failed
            })
            .count() as u32,
    };
    for _ in 0..times {
        let n = amount.roll(dice);
        bump(&mut ws.counters, counter, n);
        obs.event(Event::Mortal {
            against,
            amount: n,
            spill,
        });
        if let Some(state) = ws.side_mut(against) {
            inflict_mortal(state, n, spill, None, feel_no_pain, dice, obs);
        }
    }
}

/// Harm held back until every sequence was resolved, in the order queued,
/// against an allocation order declared afresh.
pub(crate) fn resolve_deferred<D: DiceSource, O: Observer>(
    program: &Program,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    if ws.deferred.is_empty() {
        return;
    }
    for i in 0..ws.deferred.len() {
        let (index, what, focus) = ws.deferred[i];
        if let RunSequence::Pool(pool) = &program.sequences[index] {
            // The pool's focus group, if still alive, stays first.
            ws.focus = focus.filter(|&f| ws.state.alive[f] > 0);
            order_with_focus(ws);
            inflict(pool, ws, what, dice, obs);
        }
    }
}

fn run_pool<D: DiceSource, O: Observer>(
    program: &Program,
    index: usize,
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    run_pool_tests(index, pool, ws, dice, obs);
    if let Some(hook) = pool.batch_hook {
        // One trial at a time only for replays: Monte Carlo runs hooked Plans
        // a chunk at a time (`batch.rs`).
        let mut batch = crate::batch::Batch::gather(pool, std::slice::from_ref(ws));
        let called = match &program.hooks {
            Some(h) => h.call(hook, &mut batch).and_then(|()| batch.check(1)),
            None => Err(crate::batch::missing(hook)),
        };
        match called {
            Ok(()) => batch.scatter(0, ws),
            Err(e) => {
                ws.failure.get_or_insert(e);
            }
        }
    }
    run_pool_saves(pool, ws, dice, obs);
}

/// A pool's attack dice and tests: counters, tokens reaching the save, and
/// queued harm, left in `ws`.
pub(crate) fn run_pool_tests<D: DiceSource, O: Observer>(
    index: usize,
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    // The focus group is fixed when the pool starts: harm its tokens queue
    // remembers it.
    ws.focus = pool.focus.iter().copied().find(|&g| ws.state.alive[g] > 0);
    let attacks = gather_attacks(pool, ws.attacker.as_ref().map(|a| &a.alive[..]), dice);
    ws.attacks = attacks;
    obs.event(Event::Attacks { count: attacks });
    bump(&mut ws.counters, pool.attacks_counter, attacks);

    // Tests: tokens flow forward; entering[k] waits for test k, the last slot
    // is the save.
    let n_tests = pool.tests.len();
    ws.entering.clear();
    ws.entering.resize(n_tests + 1, 0);
    ws.entering[0] = attacks;
    ws.pending.clear();
    ws.extra_mortal = 0;
    ws.passed.clear();
    ws.passed.resize(n_tests, 0);
    ws.criticals.clear();
    ws.criticals.resize(n_tests, 0);
    for (k, t) in pool.tests.iter().enumerate() {
        let n = ws.entering[k];
        if t.automatic && t.on_success.is_empty() {
            bump(&mut ws.counters, t.counter, n);
            ws.passed[k] += n;
            ws.entering[k + 1] += n;
            continue;
        }
        for _ in 0..n {
            // An automatic test rolls nothing: every token is a plain success
            // and its success effects still run.
            let (outcome, class) = if t.automatic {
                (Outcome::Success, None)
            } else if let Some((roll, _)) = &t.roll {
                roll.roll(t.reroll, k, &ws.marks, dice, obs, &mut ws.roll_faces)
            } else {
                let first = dice.roll(t.die);
                let mut roll = first;
                let mut outcome = t.by_face[roll as usize];
                let again = t.rerolls(roll, outcome);
                if again {
                    roll = dice.roll(t.die);
                    outcome = t.by_face[roll as usize];
                }
                obs.event(Event::Test {
                    step: k,
                    roll,
                    rerolled_from: again.then_some(first),
                    outcome,
                });
                (outcome, None)
            };
            if outcome == Outcome::Critical {
                ws.criticals[k] += 1;
            }
            let actions = match outcome {
                Outcome::Fail => &t.on_fail,
                Outcome::Success => &t.on_success,
                Outcome::Critical => &t.on_critical,
            };
            let mut passes = outcome != Outcome::Fail;
            let mut goes_to = k + 1;
            for &(needs, a) in actions {
                if needs.is_some() && needs != class {
                    continue;
                }
                match a {
                    RunAction::Count(counter) => ws.counters[counter] += 1,
                    RunAction::Extra(amount) => {
                        let extra = amount.roll(dice);
                        bump(&mut ws.counters, t.counter, extra);
                        ws.entering[k + 1] += extra;
                    }
                    RunAction::Skip(s) => {
                        for skipped in &pool.tests[k + 1..=k + s] {
                            bump(&mut ws.counters, skipped.counter, 1);
                        }
                        goes_to = k + 1 + s;
                    }
                    RunAction::Inflict(what) => {
                        if what.after_all {
                            ws.deferred.push((index, what, ws.focus));
                        } else {
                            ws.pending.push(what);
                        }
                        if what.ends {
                            bump(&mut ws.counters, t.counter, u32::from(passes));
                            passes = false;
                        }
                    }
                }
            }
            if passes {
                bump(&mut ws.counters, t.counter, 1);
                ws.passed[k] += 1;
                ws.entering[goes_to] += 1;
            }
        }
    }
}

/// A pool's saves, damage and queued harm, from the tokens `ws` holds.
pub(crate) fn run_pool_saves<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let wounds = ws.entering[pool.tests.len()];
    if pool.save.rolled {
        roll_saves(pool, ws, wounds, dice, obs);
    } else {
        // No save applies: every token is unsaved, in turn.
        declare(pool, ws);
        for _ in 0..wounds {
            let current = ws.state.current(&ws.order);
            unsaved(pool, ws, current, dice, obs);
        }
    }
    pending_harm(pool, ws, dice, obs);
}

/// Saves: rolled together, resolved lowest first.
fn roll_saves<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    wounds: u32,
    dice: &mut D,
    obs: &mut O,
) {
    ws.save_faces.clear();
    ws.save_faces.resize(pool.save.die as usize + 1, 0);
    for _ in 0..wounds {
        ws.save_faces[dice.roll(pool.save.die) as usize] += 1;
    }
    declare(pool, ws);
    if obs.enabled() && wounds > 0 {
        obs.event(Event::Order {
            groups: ws.order.clone(),
        });
    }
    resolve_save_faces(pool, ws, dice, obs);
}

/// Mortal wounds and unsaved damage from the pool's attacks, after its
/// normal damage, and mortal wounds a batch hook added.
fn pending_harm<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    for i in 0..ws.pending.len() {
        let what = ws.pending[i];
        inflict(pool, ws, what, dice, obs);
    }
    // Mortal wounds a batch hook added.
    if ws.extra_mortal > 0 {
        let n = ws.extra_mortal;
        bump(&mut ws.counters, pool.mortal_counter, n);
        obs.event(Event::Mortal {
            against: Side::Target,
            amount: n,
            spill: true,
        });
        inflict_mortal(&mut ws.state, n, true, None, true, dice, obs);
    }
}

/// Declare the pool's allocation order; a focus group alive goes first and
/// stays current until destroyed.
pub(crate) fn declare(pool: &RunPool, ws: &mut Workspace<'_>) {
    ws.focus = pool.focus.iter().copied().find(|&g| ws.state.alive[g] > 0);
    order_with_focus(ws);
}

/// The allocation order from the state, with `ws.focus` (if any) first.
fn order_with_focus(ws: &mut Workspace<'_>) {
    ws.state.declare_order(&mut ws.order);
    if let Some(f) = ws.focus {
        let at = ws.order.iter().position(|&g| g == f).unwrap_or(0);
        ws.order[..=at].rotate_right(1);
    }
}

/// Resolve the save dice counted in `ws.save_faces`, lowest first, through
/// the allocation order in `ws.order`; a failed roll is followed by the
/// group's special save, if it has one. Once the unit is destroyed the rolls
/// are still checked (against the last group) so the failed-save count keeps
/// counting, but they inflict nothing.
pub(crate) fn resolve_save_faces<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let mut last_group = ws.state.current(&ws.order).unwrap_or(ws.order[0]);
    for face in 1..=pool.save.die {
        for _ in 0..ws.save_faces[face as usize] {
            let current = ws.state.current(&ws.order);
            let g = current.unwrap_or(last_group);
            last_group = g;
            let saved = pool.save.saves(g, ws.state.group(g), face);
            obs.event(Event::Save {
                roll: face,
                group: current,
                saved,
                wounds_left: current.map(|g| ws.state.front[g]),
            });
            if !saved && !pool.save.special_saves(g, dice, obs) {
                unsaved(pool, ws, current, dice, obs);
            }
        }
    }
}

/// Each model's attack dice, summed over the pool's terms in order.
/// With `alive_of`, only the attacking side's models alive now attack.
pub(crate) fn gather_attacks<D: DiceSource>(
    pool: &RunPool,
    alive: Option<&[u32]>,
    dice: &mut D,
) -> u32 {
    let mut attacks = 0u32;
    for term in &pool.attacks {
        let models = match (term.alive_of, alive) {
            (Some(g), Some(alive)) => alive[g].saturating_sub(term.reserve).min(term.models),
            _ => term.models,
        };
        for _ in 0..models {
            let rolled = if term.maximize {
                term.dice.max()
            } else {
                term.dice.roll(dice)
            };
            attacks += term.per_model(rolled);
        }
    }
    attacks
}

/// An attack that failed its save: counted, and, while the unit stands, its
/// damage rolled and applied to the current group.
pub(crate) fn unsaved<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    current: Option<usize>,
    dice: &mut D,
    obs: &mut O,
) {
    bump(&mut ws.counters, pool.save.counter, 1);
    damage_model(pool, ws, current, None, dice, obs);
}

/// Roll the pool's damage (or take `fixed`) and apply it, modified by the
/// group, to the front model of `current` (nothing once the unit is
/// destroyed); what the model cannot take is lost or carries on, as the
/// pool's `excess` says.
fn damage_model<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    current: Option<usize>,
    fixed: Option<u32>,
    dice: &mut D,
    obs: &mut O,
) {
    if apply_damage(pool, ws, current, fixed, dice, obs) {
        top_threshold(pool, ws, dice, obs);
    }
}

/// What an attack meeting the top damage threshold does after its damage.
fn top_threshold<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let Some(t) = &pool.top_threshold else {
        return;
    };
    if let Some(m) = t.mark {
        ws.marks[m] = true;
    }
    if let Some(amount) = t.mortal {
        // Only a failed check costs the mortal wounds.
        if t.check.is_some_and(|c| roll_check(c, dice, obs)) {
            return;
        }
        let n = amount.roll(dice);
        obs.event(Event::Mortal {
            against: ws.state.side,
            amount: n,
            spill: true,
        });
        inflict_mortal(&mut ws.state, n, true, None, true, dice, obs);
    }
}

/// The damage itself; true when it met the group's top threshold.
fn apply_damage<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    current: Option<usize>,
    fixed: Option<u32>,
    dice: &mut D,
    obs: &mut O,
) -> bool {
    let Some(mut g) = current else {
        return false;
    };
    let group = ws.state.group(g);
    let rolled = fixed.unwrap_or_else(|| pool.damage.roll(dice));
    let (amount, lost) = pool.damage_to(group, rolled);
    obs.event(Event::Damage {
        side: ws.state.side,
        group: g,
        amount,
        lost,
    });
    let top = group.thresholds.last().is_some_and(|&top| amount >= top);
    if top {
        bump(&mut ws.counters, pool.top_threshold_counter, 1);
    }
    if pool.excess == Excess::Lost {
        ws.state.wound_model(g, lost, group.feel_no_pain, dice, obs);
        return top;
    }
    // Carried on, a point at a time where Feel No Pain rolls for each.
    let mut left = lost;
    while left > 0 {
        let fnp = ws.state.group(g).feel_no_pain;
        let take = if fnp.is_some() {
            1
        } else {
            left.min(ws.state.front[g])
        };
        ws.state.wound_model(g, take, fnp, dice, obs);
        left -= take;
        if ws.state.alive[g] == 0 {
            match (pool.excess, ws.state.current(&ws.order)) {
                (Excess::Unit, Some(next)) => g = next,
                _ => return top,
            }
        }
    }
    top
}

/// Harm from one token outside the save: mortal wounds (amount rolled,
/// counted, inflicted) or the pool's damage with no save.
pub(crate) fn inflict<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    what: Inflict,
    dice: &mut D,
    obs: &mut O,
) {
    match what.kind {
        InflictKind::Mortal {
            amount,
            spill,
            reduced,
            focus,
            against: Side::Attacker,
        } => {
            // A hazard of the attack: the attacking unit's own models (only
            // counted when the Plan does not list them).
            let _ = (reduced, focus);
            let n = amount.unwrap_or(pool.damage).roll(dice);
            bump(&mut ws.counters, pool.mortal_counter, n);
            obs.event(Event::Mortal {
                against: Side::Attacker,
                amount: n,
                spill,
            });
            if let Some(state) = ws.attacker.as_mut() {
                inflict_mortal(state, n, spill, None, true, dice, obs);
            }
        }
        InflictKind::Mortal {
            amount,
            spill,
            reduced,
            focus,
            against: Side::Target,
        } => {
            let mut n = amount.unwrap_or(pool.damage).roll(dice);
            let first = ws.focus.filter(|&f| focus && ws.state.alive[f] > 0);
            if reduced {
                if let Some(g) = first.or_else(|| ws.state.pick_for_mortal()) {
                    n = ws.state.group(g).modify_damage(n);
                }
            }
            bump(&mut ws.counters, pool.mortal_counter, n);
            obs.event(Event::Mortal {
                against: Side::Target,
                amount: n,
                spill,
            });
            inflict_mortal(&mut ws.state, n, spill, first, true, dice, obs);
        }
        InflictKind::Damage {
            save,
            maximize,
            bonus,
        } => {
            let current = ws.state.current(&ws.order);
            if let Some(i) = save {
                // Rolled even once the unit is destroyed (against the first
                // group of the order), so its counter keeps counting.
                let own = &pool.own_saves[i];
                let g = current.unwrap_or(ws.order[0]);
                if own.rolled {
                    let roll = dice.roll(own.die);
                    let saved = own.saves(g, ws.state.group(g), roll);
                    obs.event(Event::Save {
                        roll,
                        group: current,
                        saved,
                        wounds_left: current.map(|g| ws.state.front[g]),
                    });
                    if saved || own.special_saves(g, dice, obs) {
                        return;
                    }
                }
                bump(&mut ws.counters, own.counter, 1);
            }
            let fixed = (maximize || bonus != 0).then(|| {
                let rolled = if maximize {
                    pool.damage.max()
                } else {
                    pool.damage.roll(dice)
                };
                (i64::from(rolled) + i64::from(bonus)).max(0) as u32
            });
            damage_model(pool, ws, current, fixed, dice, obs);
        }
    }
}

impl RunTest {
    /// Every action of the test, whatever outcome and class it needs.
    pub(crate) fn actions(&self) -> impl Iterator<Item = &RunAction> {
        self.on_fail
            .iter()
            .chain(&self.on_success)
            .chain(&self.on_critical)
            .map(|(_, a)| a)
    }

    /// Does the re-roll policy re-roll this first roll?
    #[inline]
    pub(crate) fn rerolls(&self, roll: u32, outcome: Outcome) -> bool {
        match self.reroll {
            Reroll::None => false,
            Reroll::Ones => roll == 1,
            Reroll::Failures => outcome == Outcome::Fail,
            Reroll::NonCritical => outcome != Outcome::Critical,
        }
    }
}

impl RunSave {
    pub(crate) fn new(
        plan: &Plan,
        field: &str,
        save: &Save,
        groups: usize,
    ) -> Result<RunSave, CoreError> {
        Ok(RunSave {
            rolled: save.rolled,
            die: save.die,
            natural_fail: save.natural_fail,
            modifier: (0..groups)
                .map(|g| {
                    let m = save.ap
                        + save.modifiers.iter().sum::<i32>()
                        + save.group_modifiers.get(g).copied().unwrap_or(0);
                    save.modifier_max.map_or(m, |cap| m.min(cap))
                })
                .collect(),
            special: (0..groups)
                .map(|g| save.special.get(g).copied().flatten())
                .collect(),
            counter: plan.counter_index(&format!("{field}.counter"), save.counter.as_ref())?,
        })
    }

    /// Do all `groups` save exactly alike against this save (the same faces,
    /// the same special save)? Then which group is current cannot change
    /// whether a roll saves, and the failures are binomial in the rolls.
    pub(crate) fn alike(&self, groups: &[Group]) -> bool {
        let faces = |g: usize| {
            (1..=self.die)
                .map(|f| self.saves(g, &groups[g], f))
                .collect::<Vec<_>>()
        };
        (1..groups.len())
            .all(|g| faces(g) == faces(0) && self.special_faces(g) == self.special_faces(0))
    }

    /// The chance one save roll (and the special save after it) fails for a
    /// model of group `g`.
    pub(crate) fn fail_chance(&self, g: usize, groups: &[Group]) -> f64 {
        let fails = (1..=self.die)
            .filter(|&f| !self.saves(g, &groups[g], f))
            .count();
        fails as f64 / f64::from(self.die) * (1.0 - self.special_pass(g))
    }

    /// Group `g`'s special save as (faces that save, re-rolled successes).
    fn special_faces(&self, g: usize) -> (u32, bool) {
        self.special[g].map_or((0, false), |s| {
            (
                (self.die + 1).saturating_sub(s.target.max(1)),
                s.reroll_successes,
            )
        })
    }

    /// The chance group `g`'s special save saves (0 without one).
    pub(crate) fn special_pass(&self, g: usize) -> f64 {
        if !self.rolled {
            return 0.0;
        }
        let (faces, again) = self.special_faces(g);
        let p = f64::from(faces) / f64::from(self.die);
        if again {
            p * p
        } else {
            p
        }
    }

    /// Does an unmodified save roll of `face` save for a model of group `g`?
    /// The invulnerable save ignores AP; the better applies.
    #[inline]
    pub(crate) fn saves(&self, g: usize, group: &Group, face: u32) -> bool {
        self.rolled
            && face > self.natural_fail
            && (group.invulnerable.is_some_and(|i| face >= i)
                || group
                    .save
                    .is_some_and(|s| face as i32 + self.modifier[g] >= s as i32))
    }

    /// After a failed save: roll group `g`'s special save, if it has one.
    pub(crate) fn special_saves<D: DiceSource, O: Observer>(
        &self,
        g: usize,
        dice: &mut D,
        obs: &mut O,
    ) -> bool {
        let Some(special) = self.special[g].filter(|_| self.rolled) else {
            return false;
        };
        let first = dice.roll(self.die);
        let again = first >= special.target && special.reroll_successes;
        let roll = if again { dice.roll(self.die) } else { first };
        let saved = roll >= special.target;
        obs.event(Event::SpecialSave {
            group: g,
            roll,
            rerolled_from: again.then_some(first),
            saved,
        });
        saved
    }
}

impl RunPool {
    /// One attack's damage `rolled` as a model of `group` takes it: the
    /// group's modifiers, then the pool's cap; and the wounds that costs
    /// (the number of the group's thresholds it meets, if it has any).
    #[inline]
    pub(crate) fn damage_to(&self, group: &Group, rolled: u32) -> (u32, u32) {
        let d = group.modify_damage(rolled);
        let d = if self.cap_at_wounds {
            d.min(group.wounds)
        } else {
            d
        };
        if group.thresholds.is_empty() {
            (d, d)
        } else {
            (
                d,
                group.thresholds.iter().filter(|&&t| d >= t).count() as u32,
            )
        }
    }

    /// The most attack dice the pool can gather.
    pub(crate) fn max_attacks(&self) -> u64 {
        self.attacks
            .iter()
            .map(|t| u64::from(t.per_model(t.dice.max())) * u64::from(t.models))
            .sum()
    }

    /// The most tokens (attack dice plus extra ones) any test of the pool can see.
    pub(crate) fn max_tokens(&self) -> u64 {
        let mut tokens = self.max_attacks();
        let mut total = tokens;
        for t in &self.tests {
            let extra: u64 = t
                .actions()
                .map(|a| {
                    if let RunAction::Extra(d) = a {
                        u64::from(d.max())
                    } else {
                        0
                    }
                })
                .sum();
            tokens = tokens.saturating_mul(1 + extra);
            total = total.saturating_add(tokens);
        }
        total
    }
}

/// Mortal wounds: one at a time, 1 damage each, no save. With `spill` each
/// picks its model anew; without, they all go to the model the first one
/// picks and the rest is lost once it is destroyed.
pub(crate) fn inflict_mortal<D: DiceSource, O: Observer>(
    state: &mut TargetState<'_>,
    n: u32,
    spill: bool,
    first: Option<usize>,
    feel_no_pain: bool,
    dice: &mut D,
    obs: &mut O,
) {
    // A focus group alive takes them first; then the usual order.
    let pick = |state: &TargetState<'_>| {
        first
            .filter(|&f| state.alive[f] > 0)
            .or_else(|| state.pick_for_mortal())
    };
    if spill {
        for _ in 0..n {
            let Some(g) = pick(state) else {
                return;
            };
            let fnp = state.group(g).mortal_fnp().filter(|_| feel_no_pain);
            state.wound_model(g, 1, fnp, dice, obs);
        }
    } else if let Some(g) = pick(state) {
        let fnp = state.group(g).mortal_fnp().filter(|_| feel_no_pain);
        state.wound_model(g, n, fnp, dice, obs);
    }
}

/// One trial's outcome, read from the workspace.
#[must_use]
pub fn outcome(ws: &Workspace<'_>) -> TrialOutcome {
    TrialOutcome {
        counters: ws.counters.clone(),
        attacker: ws.attacker.as_ref().map(|a| (a.damage, a.destroyed)),
        damage: ws.state.damage,
        destroyed: ws.state.destroyed,
    }
}
