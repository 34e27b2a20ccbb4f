//! A Plan lowered for running: counters and marks resolved to indices, each
//! test's faces classified, each save's modifiers summed per group. Every
//! evaluator (die by die, the fast path, batch hooks, the exact evaluator)
//! reads this one program.

mod counted;
mod fixed;

use crate::batch::BatchHooks;
use crate::dice::{DiceExpr, ModifiedDice};
use crate::error::CoreError;
use crate::plan::{
    better_fnp, AttackPool, Attacks, Check, Class, Effect, Excess, Group, Outcome, Plan, Reroll,
    Rolls, Save, Sequence, Side, SpecialSave, Test, WhileAlive,
};
use crate::rng::DiceSource;
use crate::roll::{Classed, Roll};
use crate::trace::{Event, Observer};
pub(crate) use counted::Counting;
use counted::{sum_held_harm, CountedRoute, Spans};
pub(crate) use fixed::{damage_simply_lost, mortal_count, FailedSaves, PlainTest};
use fixed::{failed_saves, failing_faces, fixed_attacks, plain_tests};
use std::sync::Arc;

/// A test with its modifiers summed and capped and its faces classified once.
#[derive(Debug, Clone)]
pub(crate) struct RunTest {
    pub(crate) name: String,
    pub(crate) automatic: bool,
    pub(crate) die: u32,
    /// `by_face[f]` is the outcome of an unmodified `f` (index 0 unused).
    pub(crate) by_face: Vec<Outcome>,
    pub(crate) reroll: Reroll,
    /// The first failed die not re-rolled already is rolled again, once per pool.
    pub(crate) reroll_one: bool,
    pub(crate) counter: Option<usize>,
    /// Each outcome's actions, with the class of the roll they also need.
    pub(crate) on_fail: Vec<(Option<Class>, RunAction)>,
    pub(crate) on_success: Vec<(Option<Class>, RunAction)>,
    pub(crate) on_critical: Vec<(Option<Class>, RunAction)>,
    /// A roll of several dice instead of `die`, and its exact distribution.
    pub(crate) roll: Option<(Roll, Vec<Classed>)>,
    /// How its tokens may be run a face count at a time (`pool_tests.rs`),
    /// if they may.
    pub(crate) counting: Option<Counting>,
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
    /// The pool's damage, or `damage` when given (its largest value with
    /// `maximize`, plus `bonus`), unsaved, or when `save` names one of the
    /// pool's `own_saves`, only if that save fails.
    Damage {
        save: Option<usize>,
        maximize: bool,
        bonus: i32,
        damage: Option<DiceExpr>,
    },
}

/// [`crate::plan::TopThreshold`] with its mark resolved.
#[derive(Debug, Clone)]
pub(crate) struct RunTopThreshold {
    pub(crate) mark: Option<usize>,
    pub(crate) mortal: Option<DiceExpr>,
    pub(crate) check: Option<Check>,
}

/// A save with its modifiers summed per group.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunSave {
    /// False when no save applies: nothing is rolled and every token fails.
    pub(crate) rolled: bool,
    /// Saved one at a time against the group current then, not lowest first.
    pub(crate) in_turn: bool,
    pub(crate) die: u32,
    pub(crate) natural_fail: u32,
    /// Per group: AP plus save modifiers plus the group's own, capped.
    pub(crate) modifier: Vec<i32>,
    /// Per group: the save rolled after a failed one.
    pub(crate) special: Vec<Option<SpecialSave>>,
    pub(crate) counter: Option<usize>,
    /// Failed rolls rolled again, once, before the special save.
    pub(crate) reroll: Reroll,
}

#[derive(Debug, Clone)]
pub(crate) struct RunPool {
    pub(crate) name: String,
    pub(crate) attacks: Vec<Attacks>,
    pub(crate) attacks_counter: Option<usize>,
    pub(crate) tests: Vec<RunTest>,
    pub(crate) save: RunSave,
    /// Saves tokens take instead of the pool's (`Effect::OwnSave`), by index.
    pub(crate) own_saves: Vec<RunSave>,
    pub(crate) damage: ModifiedDice,
    pub(crate) excess: Excess,
    pub(crate) cap_at_wounds: bool,
    pub(crate) top_threshold_counter: Option<usize>,
    pub(crate) top_threshold: Option<RunTopThreshold>,
    /// The side the pool attacks.
    pub(crate) against: Side,
    pub(crate) mortal_counter: Option<usize>,
    pub(crate) focus: Vec<usize>,
    pub(crate) batch_hook: Option<usize>,
    /// Per group: Feel No Pain against this pool's harm only.
    pub(crate) feel_no_pain: Vec<Option<u32>>,
    /// The first damage roll below average is rolled again, once per pool.
    pub(crate) damage_reroll_one: bool,
    /// Strikes together with the sequence before it.
    pub(crate) simultaneous: bool,
    /// The pool's attack dice when no term rolls or counts the attacker's
    /// models alive (`fixed::fixed_attacks`).
    pub(crate) fixed_attacks: Option<u32>,
    /// The save faces that fail outright when the side attacked is one
    /// group (`fixed::failing_faces`).
    pub(crate) one_group_fails: Option<u64>,
    /// How its failed saves are resolved (`fixed::failed_saves`).
    pub(crate) failed_saves: FailedSaves,
    /// Its tests, when every one only passes the tokens whose die shows a
    /// passing face on to the next (`fixed::plain_tests`).
    pub(crate) plain_tests: Option<Box<[PlainTest]>>,
}

#[derive(Debug, Clone)]
pub(crate) enum RunSequence {
    Mark {
        name: String,
        mark: usize,
        check: Option<Check>,
        counter: Option<usize>,
        while_alive: Option<WhileAlive>,
    },
    Heal {
        name: String,
        side: Side,
        amount: DiceExpr,
        return_models: bool,
        up_to_start: bool,
        check: Option<Check>,
        counter: Option<usize>,
        while_alive: Option<WhileAlive>,
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
    pub(crate) hooks: Option<Arc<dyn BatchHooks>>,
    /// A fight's counters: rounds begun, and how it ended.
    pub(crate) rounds_counter: Option<usize>,
    pub(crate) outcome_counter: Option<usize>,
    /// A fight's contest counters: the last round's winner, and the side
    /// that left the fight.
    pub(crate) winner_counter: Option<usize>,
    pub(crate) left_counter: Option<usize>,
    /// Per sequence, its slot among the sequences whose harm to the target
    /// is reported on its own (attack pools and mortal-wound sources aimed at
    /// the target), in order; `None` for the others.
    pub(crate) attributed: Vec<Option<usize>>,
    /// The one pool whose held harm a trial adds up as it is held
    /// (`counted::sum_held_harm`), landed at the trial's end.
    pub(crate) held_pool: Option<usize>,
    /// What the exact evaluator works out from this Program alone.
    pub(crate) exact_cache: crate::exact::Cache,
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
                    while_alive: m.while_alive,
                },
                Sequence::Heal(h) => RunSequence::Heal {
                    name: h.name.clone(),
                    side: h.side,
                    amount: h.amount,
                    return_models: h.return_models,
                    up_to_start: h.up_to_start,
                    check: h.check,
                    counter: plan.counter_index(&format!("{base}.counter"), h.counter.as_ref())?,
                    while_alive: h.while_alive,
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
        let contest = plan.rounds.as_ref().and_then(|r| r.contest.as_ref());
        let winner_counter = plan.counter_index(
            "rounds.contest.winner_counter",
            contest.and_then(|c| c.winner_counter.as_ref()),
        )?;
        let left_counter = plan.counter_index(
            "rounds.contest.left_counter",
            contest.and_then(|c| c.left_counter.as_ref()),
        )?;
        let mut slots = 0..;
        let attributed = sequences
            .iter()
            .map(|seq| match seq {
                RunSequence::Pool(p) if p.against == Side::Target => slots.next(),
                RunSequence::Mortal { against, .. } if *against == Side::Target => slots.next(),
                _ => None,
            })
            .collect();
        let held_pool = sum_held_harm(&plan, &mut sequences);
        Ok(Program {
            plan,
            sequences,
            held_pool,
            hooks: None,
            rounds_counter,
            outcome_counter,
            winner_counter,
            left_counter,
            attributed,
            exact_cache: crate::exact::Cache::default(),
        })
    }

    fn prepare_pool(plan: &Plan, base: &str, p: &AttackPool) -> Result<RunPool, CoreError> {
        // Group indices in the pool refer to the side it attacks.
        let attacked = match (p.against, &plan.attacker) {
            (Side::Attacker, Some(a)) => &a.groups,
            _ => &plan.target.groups,
        };
        let groups = attacked.len();
        let mut tests = Vec::with_capacity(p.steps.len());
        let mut own_saves = Vec::new();
        for (ti, t) in p.steps.iter().enumerate() {
            let mut on = [Vec::new(), Vec::new(), Vec::new()];
            for (ei, e) in t.effects.iter().enumerate() {
                let field = format!("{base}.steps[{ti}].effects[{ei}]");
                let a = Self::lower_effect(plan, &field, e, groups, &mut own_saves)?;
                on[e.on() as usize].push((e.class(), a));
            }
            tests.push(Self::lower_test(
                plan,
                &format!("{base}.steps[{ti}]"),
                t,
                on,
            )?);
        }
        for k in 0..tests.len() {
            // A plain test's successes just pass on: it needs no routes.
            if tests[k].counting.as_ref().is_some_and(|c| !c.plain) {
                let routes = [Outcome::Fail, Outcome::Success, Outcome::Critical]
                    .map(|outcome| CountedRoute::of(&tests, k, outcome));
                if let Some(counting) = tests[k].counting.as_mut() {
                    counting.spans = Spans::of(&routes);
                }
            }
        }
        let save = RunSave::new(plan, &format!("{base}.save"), &p.save, groups)?;
        let mut pool = RunPool {
            name: p.name.clone(),
            fixed_attacks: fixed_attacks(&p.attacks, plan.attacker.is_some()),
            one_group_fails: failing_faces(&save, attacked),
            attacks: p.attacks.clone(),
            attacks_counter: plan.counter_index(
                &format!("{base}.attacks_counter"),
                p.attacks_counter.as_ref(),
            )?,
            tests,
            save,
            against: p.against,
            own_saves,
            focus: p.focus.clone(),
            batch_hook: p.batch_hook,
            feel_no_pain: p.feel_no_pain.clone(),
            damage_reroll_one: p.damage.reroll_one,
            simultaneous: p.simultaneous,
            damage: p.damage.roll(),
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
            failed_saves: FailedSaves::OneByOne,
            plain_tests: None,
        };
        pool.failed_saves = failed_saves(&pool, attacked);
        pool.plain_tests = plain_tests(&pool);
        Ok(pool)
    }

    /// One effect as the action its token takes; an `own_save` adds its save
    /// to `own_saves` (once, however many effects name it).
    fn lower_effect(
        plan: &Plan,
        field: &str,
        e: &Effect,
        groups: usize,
        own_saves: &mut Vec<RunSave>,
    ) -> Result<RunAction, CoreError> {
        Ok(match e {
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
                damage,
                ..
            } => RunAction::Inflict(Inflict {
                kind: InflictKind::Damage {
                    save: None,
                    maximize: *maximize,
                    bonus: *bonus,
                    damage: *damage,
                },
                after_all: *after_all,
                ends: true,
            }),
            Effect::Count { counter, .. } => RunAction::Count(
                plan.counter_index(&format!("{field}.counter"), Some(counter))?
                    .expect("a named counter"),
            ),
            Effect::OwnSave {
                save,
                maximize,
                bonus,
                damage,
                ..
            } => {
                let own = RunSave::new(plan, &format!("{field}.save"), save, groups)?;
                let index = own_saves.iter().position(|s| *s == own).unwrap_or_else(|| {
                    own_saves.push(own);
                    own_saves.len() - 1
                });
                RunAction::Inflict(Inflict {
                    kind: InflictKind::Damage {
                        save: Some(index),
                        maximize: *maximize,
                        bonus: *bonus,
                        damage: *damage,
                    },
                    after_all: false,
                    ends: true,
                })
            }
        })
    }

    /// One test with its faces classified and its actions by outcome.
    fn lower_test(
        plan: &Plan,
        field: &str,
        t: &Test,
        on: [Vec<(Option<Class>, RunAction)>; 3],
    ) -> Result<RunTest, CoreError> {
        let [on_fail, on_success, on_critical] = on;
        Ok(RunTest {
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
            reroll_one: t.reroll_one,
            counter: plan.counter_index(&format!("{field}.counter"), t.counter.as_ref())?,
            on_fail,
            on_success,
            on_critical,
            roll: (!t.dice.is_empty()).then(|| {
                let roll = Roll::new(plan, t);
                let distribution = roll.distribution(t.reroll);
                (roll, distribution)
            }),
            counting: None,
        }
        .counted())
    }

    /// Give the Program the batch hooks its pools name.
    #[must_use]
    pub fn with_hooks(mut self, hooks: Arc<dyn BatchHooks>) -> Self {
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
    /// attacker's models, `attacker_damage` and `attacker_models_destroyed`,
    /// then the models destroyed in each of the target's groups, by index:
    /// `destroyed:<group name>` (`destroyed:<group name>#<index>` for a
    /// group whose name an earlier group already took), then, for each
    /// sequence aimed at the target ([`Program::attributed_sequences`]), the
    /// wounds the target lost to it, `damage:<sequence name>`, and the
    /// mortal wounds it inflicted, `mortal_wounds:<sequence name>` (with
    /// `#<index>` added the same way), then, when the target's groups give
    /// values, `value_destroyed` ([`crate::value`]).
    #[must_use]
    pub fn numbers(&self) -> Vec<String> {
        let mut names = self.plan.counters.clone();
        names.extend(["damage", "models_destroyed"].map(String::from));
        if self.plan.attacker.is_some() {
            names.extend(["attacker_damage", "attacker_models_destroyed"].map(String::from));
        }
        for (g, group) in self.plan.target.groups.iter().enumerate() {
            let name = format!("{GROUP_DESTROYED}{}", group.name);
            if names.contains(&name) {
                names.push(format!("{name}#{g}"));
            } else {
                names.push(name);
            }
        }
        for index in self.attributed_sequences() {
            let seq = self.sequences[index].name();
            for prefix in [SEQUENCE_DAMAGE, SEQUENCE_MORTAL] {
                let name = format!("{prefix}{seq}");
                if names.contains(&name) {
                    names.push(format!("{name}#{index}"));
                } else {
                    names.push(name);
                }
            }
        }
        if crate::value::valued(&self.plan) {
            names.push(crate::value::VALUE_DESTROYED.to_string());
        }
        names
    }

    /// The sequences whose harm to the target a trial reports on its own,
    /// by index, in order: every attack pool and mortal-wound source aimed
    /// at the target.
    #[must_use]
    pub fn attributed_sequences(&self) -> Vec<usize> {
        (0..self.sequences.len())
            .filter(|&i| self.attributed[i].is_some())
            .collect()
    }

    /// Does sequence `index` hold harm until every sequence is resolved?
    pub(crate) fn held_by(&self, index: usize) -> bool {
        match &self.sequences[index] {
            RunSequence::Pool(pool) => pool.tests.iter().flat_map(RunTest::actions).any(|a| {
                matches!(
                    a,
                    RunAction::Inflict(Inflict {
                        after_all: true,
                        ..
                    })
                )
            }),
            _ => false,
        }
    }

    /// The name of sequence `index`, as the Plan gives it.
    #[must_use]
    pub fn sequence_name(&self, index: usize) -> &str {
        self.sequences[index].name()
    }
}

/// The prefix of the numbers counting the models destroyed in one group.
pub const GROUP_DESTROYED: &str = "destroyed:";
/// The prefix of the numbers counting the wounds the target lost to one
/// sequence (one weapon's attack pool): wounds removed from its models,
/// after Feel No Pain, without damage lost to excess.
pub const SEQUENCE_DAMAGE: &str = "damage:";
/// The prefix of the numbers counting the mortal wounds one sequence
/// inflicted on the target, before Feel No Pain.
pub const SEQUENCE_MORTAL: &str = "mortal_wounds:";

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

/// Where one token goes once a test gave it its outcome: what each of the
/// test's actions does, and whether it passes on. The die-by-die executor
/// acts on one trial's numbers; the fast path's tables build distributions.
/// Both follow [`RunTest::route`], so the actions' meaning is written once.
pub(crate) trait TokenRoute {
    /// `count`: one more in `counter`; the token goes on.
    fn count(&mut self, counter: usize);
    /// `extra`: `amount` more tokens enter the next test, counted by this one.
    /// `None` stops the routing (a table grew too large).
    fn extra(&mut self, amount: DiceExpr) -> Option<()>;
    /// `skip`: the token is counted by the tests `skipped` and goes past them.
    fn skip(&mut self, skipped: std::ops::RangeInclusive<usize>);
    /// Harm outside the save. When it ends the token, `ended` says whether
    /// the token had passed this test (and so is counted by it).
    fn inflict(&mut self, what: Inflict, ended: Option<bool>);
    /// The token passed this test (counted by it) and enters test `goes_to`
    /// (the save, after the last test).
    fn pass(&mut self, goes_to: usize) -> Option<()>;
}

impl RunTest {
    /// Route one token that got `outcome` (and `class`) at this test, test
    /// `k` of its pool: its actions in list order, then its passing on.
    #[inline]
    pub(crate) fn route<R: TokenRoute>(
        &self,
        k: usize,
        outcome: Outcome,
        class: Option<Class>,
        route: &mut R,
    ) -> Option<()> {
        let actions = match outcome {
            Outcome::Fail => &self.on_fail,
            Outcome::Success => &self.on_success,
            Outcome::Critical => &self.on_critical,
        };
        let mut passes = outcome != Outcome::Fail;
        let mut goes_to = k + 1;
        for &(needs, a) in actions {
            if needs.is_some() && needs != class {
                continue;
            }
            match a {
                RunAction::Count(counter) => route.count(counter),
                RunAction::Extra(amount) => route.extra(amount)?,
                RunAction::Skip(s) => {
                    route.skip(k + 1..=k + s);
                    goes_to = k + 1 + s;
                }
                RunAction::Inflict(what) => {
                    route.inflict(what, what.ends.then_some(passes));
                    if what.ends {
                        passes = false;
                    }
                }
            }
        }
        if passes {
            route.pass(goes_to)?;
        }
        Some(())
    }

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

    /// This test with `counting` filled in.
    fn counted(mut self) -> Self {
        let mut harm = 0;
        let mut rolls = self.roll.is_some();
        for action in self.actions() {
            match action {
                RunAction::Extra(amount) => rolls |= amount.is_random(),
                RunAction::Inflict(_) => harm += 1,
                RunAction::Skip(_) | RunAction::Count(_) => {}
            }
        }
        self.counting = (!rolls && harm <= 1).then(|| {
            let rerolls = self.reroll_one
                || (1..=self.die).any(|f| {
                    self.by_face
                        .get(f as usize)
                        .is_some_and(|&o| self.rerolls(f, o))
                });
            Counting {
                plain: self.actions().next().is_none(),
                lanes: (!rerolls && self.die < 63).then(|| self.lanes()),
                spans: Spans::default(),
            }
        });
        self
    }

    /// Each face's lane (`Counting::lanes`).
    fn lanes(&self) -> Box<[u64; 64]> {
        let mut lanes = Box::new([0; 64]);
        for (lane, outcome) in lanes.iter_mut().zip(self.by_face.iter().skip(1)) {
            *lane = match outcome {
                Outcome::Fail => 0,
                Outcome::Success => 1,
                Outcome::Critical => 1 << 32,
            };
        }
        lanes
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
            in_turn: save.in_turn,
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
            reroll: save.reroll,
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

    /// The chance one save roll (its re-roll, and the special save after
    /// it) fails for a model of group `g`.
    pub(crate) fn fail_chance(&self, g: usize, groups: &[Group]) -> f64 {
        (1..=self.die)
            .filter(|&f| !self.saves(g, &groups[g], f))
            .map(|f| 1.0 - self.second_chance(g, &groups[g], f))
            .sum::<f64>()
            / f64::from(self.die)
    }

    /// Is a failed roll of `face` rolled again?
    #[inline]
    pub(crate) fn rerolls(&self, face: u32) -> bool {
        self.rolled
            && match self.reroll {
                Reroll::Failures => true,
                Reroll::Ones => face == 1,
                Reroll::None | Reroll::NonCritical => false,
            }
    }

    /// The chance a roll of `face` that failed for group `g` is saved after
    /// all: by its re-roll, else by the special save.
    pub(crate) fn second_chance(&self, g: usize, group: &Group, face: u32) -> f64 {
        let again = if self.rerolls(face) {
            let saving = (1..=self.die).filter(|&f| self.saves(g, group, f)).count();
            saving as f64 / f64::from(self.die)
        } else {
            0.0
        };
        again + (1.0 - again) * self.special_pass(g)
    }

    /// A roll of `face` failed for group `g`: roll it again if the save says
    /// so, then the special save. Is the attack saved after all? `shown` is
    /// the current group and its front model's wounds, as the trace shows them.
    pub(crate) fn roll_again<D: DiceSource, O: Observer>(
        &self,
        (g, group): (usize, &Group),
        face: u32,
        (current, wounds_left): (Option<usize>, Option<u32>),
        dice: &mut D,
        obs: &mut O,
    ) -> bool {
        if self.rerolls(face) {
            let roll = dice.roll(self.die);
            let saved = self.saves(g, group, roll);
            obs.event(Event::Save {
                roll,
                group: current,
                saved,
                wounds_left,
            });
            if saved {
                return true;
            }
        }
        self.special_saves(g, dice, obs)
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
    /// Does a trial keep what passed each test and the criticals rolled
    /// (`Workspace::passed` and `criticals`)? Only a batch hook reads them.
    #[inline]
    pub(crate) fn keeps_test_counts(&self) -> bool {
        self.batch_hook.is_some()
    }
    /// Must its failed saves be resolved one at a time?
    #[inline]
    pub(crate) fn one_at_a_time(&self) -> bool {
        self.failed_saves != FailedSaves::Counted
    }

    /// The Feel No Pain group `g` has against this pool's harm, given its own `own`.
    #[inline]
    pub(crate) fn fnp(&self, g: usize, own: Option<u32>) -> Option<u32> {
        better_fnp(own, self.feel_no_pain.get(g).copied().flatten())
    }

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
        self.tokens_from(self.max_attacks())
    }

    /// The most tokens the pool's tests can see from `dice` attack dice.
    pub(crate) fn tokens_from(&self, dice: u64) -> u64 {
        let mut tokens = dice;
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
