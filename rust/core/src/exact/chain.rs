//! Plans whose dice depend on both sides' state, as a Markov chain over that
//! state: fights (each side attacks with its survivors, round after round),
//! marks later rolls read, healing, harm to the attacking unit, and counts
//! that stop once the target is destroyed (attacks meeting the top damage
//! threshold, and what such an attack does next).
//!
//! Each side is one group of models (`side.rs`); its state is the models
//! alive and the wounds left on the front model, from where it starts (below
//! full when it lost wounds before the trial), and with the marks set that
//! is the chain's state. A heal or mark waiting on its caster reads the
//! caster's side's models alive off it. Every number the Result reports that is not read off the
//! state (the counters, each sequence's wounds and mortal wounds) is carried
//! as its distribution jointly with the state: one pmf per number and state.
//! That is all a marginal needs, because what a step adds to a number
//! depends on the state alone. A sequence moves each state by a kernel
//! worked out once per state and kept, since a fight meets the same states
//! round after round.
//!
//! Within a pool the chain follows Monte Carlo's order: every token through
//! the tests, then the damage of the tokens that reach the save and fail it,
//! then the harm the tokens hold outside the save (damage with no save,
//! mortal wounds, harm to the attacking unit) in token order. Tokens are
//! alike and independent, so once the number of unsaved tokens is known the
//! tokens holding harm come in a random order that the chain walks with the
//! count of unsaved tokens still to come.

use super::budget::{decline, hold, spend, STATE_BYTES};
use super::evaluator::Finished;
use super::pmf::{accumulate, attacks_pmf, dice_pmf};
use super::side::{heal, lose_carried, lose_on_one, side_states, start_wounds, wounds};
use super::ways::{check_pool, pass_chance, ways, Kind};
use crate::dice::ModifiedDice;
use crate::error::CoreError;
use crate::plan::{Excess, Group, Side, WhileAlive};
use crate::program::{Inflict, InflictKind, Program, RunPool, RunSequence, RunTest};
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};

/// The most states (both sides' models and front wounds, and the marks) the
/// chain may reach before it declines.
const MAX_CHAIN_STATES: u64 = 100_000;

/// Multiply-adds of the chain's pmfs that count as one step of the budget.
/// A step is calibrated as a state transition of the other evaluator (ten
/// million take one to two seconds); `examples/exact_calibration` measured
/// the chain's multiply-adds, with the maps and pmfs they move through, at
/// 14 to 40 ns each over fights and single attacks of many sizes, so four
/// of them take about one step's time.
const CHAIN_STEP: usize = 4;

thread_local! {
    /// Multiply-adds counted but not yet spent as a whole step.
    static OPS: Cell<usize> = const { Cell::new(0) };
}

/// Count `n` multiply-adds; true once the evaluation must stop.
fn work(n: usize) -> bool {
    let steps = OPS.with(|o| {
        let total = o.get().saturating_add(n);
        o.set(total % CHAIN_STEP);
        total / CHAIN_STEP
    });
    spend(steps)
}

/// Does `program` need the chain: a state of both sides, marks, healing, or
/// counts that depend on the target's state? The other evaluator declines
/// these (it takes mortal wounds on the attacker from outside any attack).
pub(super) fn wanted(program: &Program) -> bool {
    let plan = &program.plan;
    plan.rounds.is_some()
        || !plan.marks.is_empty()
        || program.sequences.iter().any(|seq| match seq {
            RunSequence::Heal { .. } | RunSequence::Mark { .. } => true,
            RunSequence::Mortal { .. } => false,
            RunSequence::Pool(pool) => {
                pool.against == Side::Attacker
                    || pool.attacks.iter().any(|a| a.alive_of.is_some())
                    || pool.top_threshold_counter.is_some()
                    || pool.top_threshold.is_some()
                    || pool.tests.iter().flat_map(RunTest::actions).any(|a| {
                        matches!(
                            a,
                            crate::program::RunAction::Inflict(Inflict {
                                kind: InflictKind::Mortal {
                                    against: Side::Attacker,
                                    ..
                                },
                                ..
                            })
                        )
                    })
            }
        })
}

/// Both sides' models and the marks set: side 0 is the target, side 1 the
/// attacker (all zero when the Plan lists no attacker models).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    /// Per side: models alive, wounds left on the front model.
    sides: [(u32, u32); 2],
    marks: u32,
}

/// One state's chance and, per carried number, its pmf jointly with the
/// state (summing to `p`).
#[derive(Debug, Clone)]
struct Entry {
    p: f64,
    nums: Vec<Vec<f64>>,
}

impl Entry {
    fn unit(numbers: usize) -> Entry {
        Entry {
            p: 1.0,
            nums: vec![vec![1.0]; numbers],
        }
    }

    fn len(&self) -> usize {
        self.nums.iter().map(Vec::len).sum()
    }

    /// Add `q` times `from`, each number shifted by its `bumps`.
    fn add(&mut self, from: &Entry, q: f64, bumps: &[(usize, u32)]) {
        self.p += q * from.p;
        for (i, pmf) in from.nums.iter().enumerate() {
            let by: u32 = bumps.iter().filter(|b| b.0 == i).map(|b| b.1).sum();
            let by = by as usize;
            let out = &mut self.nums[i];
            if out.len() < pmf.len() + by {
                out.resize(pmf.len() + by, 0.0);
            }
            for (v, &x) in pmf.iter().enumerate() {
                out[v + by] += q * x;
            }
        }
    }

    /// Add `from` moved by a kernel entry `step` (numbers convolved with the
    /// step's changes).
    fn add_moved(&mut self, from: &Entry, step: &Entry) {
        self.p += from.p * step.p;
        for (i, (pmf, by)) in from.nums.iter().zip(&step.nums).enumerate() {
            let out = &mut self.nums[i];
            if out.len() < pmf.len() + by.len() - 1 {
                out.resize(pmf.len() + by.len() - 1, 0.0);
            }
            for (d, &y) in by.iter().enumerate() {
                if y == 0.0 {
                    continue;
                }
                for (v, &x) in pmf.iter().enumerate() {
                    out[v + d] += x * y;
                }
            }
        }
    }

    fn empty(numbers: usize) -> Entry {
        Entry {
            p: 0.0,
            nums: vec![Vec::new(); numbers],
        }
    }
}

/// A distribution over states `K`, each with its carried numbers.
type Local<K> = BTreeMap<K, Entry>;

/// Add `q` times `from` at `key`, its numbers shifted by `bumps` (work counted).
fn put<K: Ord>(out: &mut Local<K>, key: K, from: &Entry, q: f64, bumps: &[(usize, u32)]) {
    if q == 0.0 || work(from.len()) {
        return;
    }
    let n = from.nums.len();
    out.entry(key)
        .or_insert_with(|| Entry::empty(n))
        .add(from, q, bumps);
}

/// One way a state can move: the state after, its chance, and what it adds
/// to carried numbers.
type Branch = (Key, f64, Vec<(usize, u32)>);

/// Binomial pmf of `n` trials of chance `q`.
fn binomial(n: u32, q: f64) -> Vec<f64> {
    let mut out = vec![0.0; n as usize + 1];
    let mut c = 1.0f64;
    for k in 0..=n {
        out[k as usize] = c * q.powi(k as i32) * (1.0 - q).powi((n - k) as i32);
        c = c * f64::from(n - k) / f64::from(k + 1);
    }
    out
}

/// The chain over a Program's sequences.
struct Chain<'p> {
    program: &'p Program,
    /// Each side's one group (the attacker's only when listed).
    groups: [Option<&'p Group>; 2],
    /// Carried numbers: the counters, then per attributed sequence its
    /// wounds and mortal wounds.
    numbers: usize,
    counters: usize,
    kernels: HashMap<(usize, Key), Vec<(Key, Entry)>>,
    kinds: HashMap<(usize, u32), Vec<Kind>>,
    damage: HashMap<usize, Vec<f64>>,
    kernel_bytes: u64,
}

impl<'p> Chain<'p> {
    fn new(program: &'p Program) -> Result<Self, CoreError> {
        let plan = &program.plan;
        let one = |target: &'p crate::plan::Target, side: &str| -> Result<&'p Group, CoreError> {
            if target.groups.len() != 1 {
                return Err(decline(format!(
                    "the {side} has {} groups of models; a fight, marks, healing or harm to the attacker are evaluated exactly for one group a side",
                    target.groups.len()
                )));
            }
            let g = &target.groups[0];
            if g.feel_no_pain.is_some() || g.feel_no_pain_mortal.is_some() {
                return Err(decline(format!(
                    "the {side}'s models have Feel No Pain, which the chain over both sides does not roll"
                )));
            }
            Ok(g)
        };
        let target = one(&plan.target, "target")?;
        let attacker = match &plan.attacker {
            Some(a) => Some(one(a, "attacker")?),
            None => None,
        };
        let bound = [Some(target), attacker]
            .iter()
            .enumerate()
            .map(|(s, g)| g.map_or(1, |g| side_states(program, s, g)))
            .product::<u64>()
            .saturating_mul(1 << plan.marks.len().min(20));
        if bound > MAX_CHAIN_STATES {
            return Err(decline(format!(
                "too many outcomes: both sides' wounds and the marks make up to {bound} states, more than the {MAX_CHAIN_STATES} the chain carries"
            )));
        }
        if plan.marks.len() > 16 {
            return Err(decline("more than 16 marks"));
        }
        for seq in &program.sequences {
            if let RunSequence::Pool(pool) = seq {
                check_pool(pool)?;
            }
        }
        Ok(Chain {
            program,
            groups: [Some(target), attacker],
            counters: plan.counters.len(),
            numbers: plan.counters.len() + 2 * program.attributed_sequences().len(),
            kernels: HashMap::new(),
            kinds: HashMap::new(),
            damage: HashMap::new(),
            kernel_bytes: 0,
        })
    }

    /// The steps of work the chain is expected to take: for every round and
    /// sequence, each state reached moved to each state its kernel reaches,
    /// every carried number convolved with what the step adds to it. The
    /// states are bounded by both sides' wounds; a number's pmf grows with
    /// the tokens counted into it, on average to half its bound.
    fn estimate(&self) -> u64 {
        let program = self.program;
        let rounds = u64::from(program.plan.rounds.as_ref().map_or(1, |r| r.max));
        let wounds = |s: usize| self.groups[s].map_or(0, |g| u64::from(start_wounds(g)));
        let states: u64 = (0..2)
            .map(|s| self.groups[s].map_or(1, |g| side_states(program, s, g)))
            .product();
        let tokens: u64 = program
            .sequences
            .iter()
            .map(|seq| match seq {
                RunSequence::Pool(p) => p.max_tokens(),
                _ => 1,
            })
            .sum();
        let length = (rounds * tokens) / 2 + 1;
        let numbers = self.numbers as u64;
        let mut per_round = 0u64;
        for seq in &program.sequences {
            let (reach, adds) = match seq {
                RunSequence::Pool(p) => {
                    let a = usize::from(p.against == Side::Attacker);
                    (wounds(a) / 2 + 1, p.max_tokens() / 2 + 1)
                }
                _ => (2, 2),
            };
            per_round = per_round.saturating_add(
                states
                    .saturating_mul(reach)
                    .saturating_mul(numbers)
                    .saturating_mul(length)
                    .saturating_mul(adds),
            );
        }
        // The bound above ran about four times the work measured over fights
        // and single attacks of many sizes (`examples/exact_calibration`):
        // from 0.8 to 3.3 times it once divided by four.
        rounds.saturating_mul(per_round) / 4 / CHAIN_STEP as u64
    }

    fn start(&self) -> Key {
        let side = |g: Option<&Group>| g.map_or((0, 0), Group::start);
        Key {
            sides: [side(self.groups[0]), side(self.groups[1])],
            marks: 0,
        }
    }

    fn wiped(&self, key: Key, side: usize) -> bool {
        self.groups[side].is_some() && key.sides[side].0 == 0
    }

    fn either_destroyed(&self, key: Key) -> bool {
        self.wiped(key, 0) || self.wiped(key, 1)
    }

    /// The slot's wounds and mortal-wound numbers.
    fn slot_numbers(&self, slot: Option<usize>) -> Option<(usize, usize)> {
        slot.map(|s| (self.counters + 2 * s, self.counters + 2 * s + 1))
    }

    fn run(mut self) -> Result<Finished, CoreError> {
        let program = self.program;
        let fight = program.plan.rounds.as_ref();
        let numbers = self.numbers;
        let mut dist: Local<Key> = Local::new();
        dist.insert(self.start(), Entry::unit(self.numbers));
        for _ in 0..fight.map_or(1, |r| r.max) {
            if fight.is_some() {
                let mut next = Local::new();
                for (key, e) in &dist {
                    if self.either_destroyed(*key) {
                        put(&mut next, *key, e, 1.0, &[]);
                        continue;
                    }
                    let cleared = Key { marks: 0, ..*key };
                    let bump: Vec<(usize, u32)> =
                        program.rounds_counter.map(|c| (c, 1)).into_iter().collect();
                    put(&mut next, cleared, e, 1.0, &bump);
                }
                dist = next;
            }
            for index in 0..program.sequences.len() {
                let mut next: Local<Key> = Local::new();
                for (key, e) in &dist {
                    if fight.is_some() && self.either_destroyed(*key) {
                        put(&mut next, *key, e, 1.0, &[]);
                        continue;
                    }
                    let kernel = self.kernel(index, *key)?;
                    for (to, step) in kernel {
                        let work: usize = e
                            .nums
                            .iter()
                            .zip(&step.nums)
                            .map(|(a, b)| a.len() * b.len())
                            .sum();
                        if self::work(work) {
                            break;
                        }
                        next.entry(*to)
                            .or_insert_with(|| Entry::empty(numbers))
                            .add_moved(e, step);
                    }
                }
                let bytes: u64 = next
                    .values()
                    .map(|e| STATE_BYTES + 8 * e.len() as u64)
                    .sum();
                hold(bytes + self.kernel_bytes);
                dist = next;
                if super::budget::stopped() {
                    return Ok((Vec::new(), Vec::new()));
                }
            }
        }
        Ok(self.finish(&dist))
    }

    /// The kernel of sequence `index` from `key`, worked out once.
    fn kernel(&mut self, index: usize, key: Key) -> Result<&Vec<(Key, Entry)>, CoreError> {
        if !self.kernels.contains_key(&(index, key)) {
            let slot = self.program.attributed[index];
            let moved = match &self.program.sequences[index] {
                RunSequence::Pool(pool) => self.pool(index, pool, slot, key)?,
                seq @ RunSequence::Mark { .. } => self.mark(seq, key),
                seq @ RunSequence::Heal { .. } => self.heal(seq, key),
                seq @ RunSequence::Mortal { .. } => self.mortal_source(seq, slot, key),
            };
            let entries: Vec<(Key, Entry)> = moved.into_iter().collect();
            self.kernel_bytes += entries
                .iter()
                .map(|(_, e)| STATE_BYTES + 8 * e.len() as u64)
                .sum::<u64>();
            self.kernels.insert((index, key), entries);
        }
        Ok(&self.kernels[&(index, key)])
    }

    /// Is the model a heal or a mark needs (its caster) standing in `key`?
    /// Always, when it names none; each side is one group, so the group's
    /// models alive decide it, as [`crate::executor`] reads them.
    fn standing(&self, key: Key, while_alive: Option<WhileAlive>) -> bool {
        while_alive.is_none_or(|w| {
            let s = usize::from(w.side == Side::Attacker);
            self.groups[s].is_some() && key.sides[s].0 > w.more_than
        })
    }

    /// The kernel that leaves `key` as it is (a caster fallen).
    fn stays(&self, key: Key) -> Local<Key> {
        let mut out = Local::new();
        put(&mut out, key, &Entry::unit(self.numbers), 1.0, &[]);
        out
    }

    /// A mark's kernel: set when its check passes, and counted (while its
    /// caster stands).
    fn mark(&self, seq: &RunSequence, key: Key) -> Local<Key> {
        let RunSequence::Mark {
            mark,
            check,
            counter,
            while_alive,
            ..
        } = *seq
        else {
            unreachable!("a mark")
        };
        if !self.standing(key, while_alive) {
            return self.stays(key);
        }
        let p = check.map_or(1.0, pass_chance);
        let set = Key {
            marks: key.marks | 1 << mark,
            ..key
        };
        let e = Entry::unit(self.numbers);
        let mut out = Local::new();
        let bumps: Vec<(usize, u32)> = counter.map(|c| (c, 1)).into_iter().collect();
        put(&mut out, set, &e, p, &bumps);
        put(&mut out, key, &e, 1.0 - p, &[]);
        out
    }

    /// A heal's kernel: when its check passes, the wounds it restores,
    /// counted (while its caster stands).
    fn heal(&self, seq: &RunSequence, key: Key) -> Local<Key> {
        let RunSequence::Heal {
            side,
            amount,
            return_models,
            up_to_start,
            check,
            counter,
            while_alive,
            ..
        } = *seq
        else {
            unreachable!("a heal")
        };
        if !self.standing(key, while_alive) {
            return self.stays(key);
        }
        let p = check.map_or(1.0, pass_chance);
        let e = Entry::unit(self.numbers);
        let mut out = Local::new();
        put(&mut out, key, &e, 1.0 - p, &[]);
        let s = usize::from(side == Side::Attacker);
        for (n, q) in dice_pmf(amount).into_iter().enumerate() {
            let Some(g) = self.groups[s] else {
                put(&mut out, key, &e, p * q, &[]);
                continue;
            };
            let (after, healed) = heal(key.sides[s], g, n as u32, return_models, up_to_start);
            let mut to = key;
            to.sides[s] = after;
            let bumps: Vec<(usize, u32)> = counter.map(|c| (c, healed)).into_iter().collect();
            put(&mut out, to, &e, p * q, &bumps);
        }
        out
    }

    /// A mortal-wound source's kernel: its rolls, then its mortal wounds for
    /// each failure (or once).
    fn mortal_source(&self, seq: &RunSequence, slot: Option<usize>, key: Key) -> Local<Key> {
        let RunSequence::Mortal {
            amount,
            counter,
            rolls,
            against,
            spill,
            ..
        } = *seq
        else {
            unreachable!("a mortal-wound source")
        };
        let times = match rolls {
            None => vec![0.0, 1.0],
            Some(r) => binomial(
                r.count,
                f64::from(r.fail_at_most.min(r.die)) / f64::from(r.die),
            ),
        };
        let s = usize::from(against == Side::Attacker);
        let amounts = dice_pmf(amount);
        let mut out = Local::new();
        let mut cur = Local::new();
        cur.insert(key, Entry::unit(self.numbers));
        for (t, &pt) in times.iter().enumerate() {
            if t > 0 {
                let mut next = Local::new();
                for (k, e) in &cur {
                    for (n, &q) in amounts.iter().enumerate() {
                        let mut bumps: Vec<(usize, u32)> =
                            counter.map(|c| (c, n as u32)).into_iter().collect();
                        let to = self.mortal_on(*k, s, n as u32, spill, slot, &mut bumps);
                        put(&mut next, to, e, q, &bumps);
                    }
                }
                cur = next;
            }
            for (k, e) in &cur {
                put(&mut out, *k, e, pt, &[]);
            }
        }
        out
    }

    /// `n` mortal wounds on side `s` (spilling over or not), the side's
    /// wounds removed and, for the target in an attributed sequence, the
    /// mortal wounds added to `bumps`.
    fn mortal_on(
        &self,
        key: Key,
        s: usize,
        n: u32,
        spill: bool,
        slot: Option<usize>,
        bumps: &mut Vec<(usize, u32)>,
    ) -> Key {
        let Some(g) = self.groups[s] else {
            return key;
        };
        let (after, removed) = if spill {
            lose_carried(key.sides[s], g.wounds, n)
        } else {
            lose_on_one(key.sides[s], g.wounds, n)
        };
        if let (0, Some((damage, mortal))) = (s, self.slot_numbers(slot)) {
            bumps.push((damage, removed));
            bumps.push((mortal, n));
        }
        let mut to = key;
        to.sides[s] = after;
        to
    }

    /// The pool's damage pmf (its re-roll and modifiers applied).
    fn damage_pmf(&mut self, index: usize, pool: &RunPool) -> Vec<f64> {
        self.damage
            .entry(index)
            .or_insert_with(|| dice_pmf(pool.damage))
            .clone()
    }

    /// Damage `amounts` (a pmf over the value rolled) dealt to side `a` by
    /// `pool` as one attack: converted by the group, through its thresholds,
    /// carried or lost as the pool says, then what meeting the top threshold
    /// does.
    fn damage_branches(
        &self,
        pool: &RunPool,
        a: usize,
        slot: Option<usize>,
        key: Key,
        amounts: &[f64],
    ) -> Vec<Branch> {
        let g = self.groups[a].expect("the side attacked is listed");
        if key.sides[a].0 == 0 {
            return vec![(key, 1.0, Vec::new())];
        }
        let mut out = Vec::new();
        for (rolled, &q) in amounts.iter().enumerate() {
            if q == 0.0 {
                continue;
            }
            let (amount, lost) = pool.damage_to(g, rolled as u32);
            let top = g.thresholds.last().is_some_and(|&t| amount >= t);
            let (after, removed) = if pool.excess == Excess::Lost {
                lose_on_one(key.sides[a], g.wounds, lost)
            } else {
                lose_carried(key.sides[a], g.wounds, lost)
            };
            let mut to = key;
            to.sides[a] = after;
            let mut bumps = Vec::new();
            if let (0, Some((damage, _))) = (a, self.slot_numbers(slot)) {
                bumps.push((damage, removed));
            }
            if top {
                if let Some(c) = pool.top_threshold_counter {
                    bumps.push((c, 1));
                }
            }
            let Some(t) = pool.top_threshold.as_ref().filter(|_| top) else {
                out.push((to, q, bumps));
                continue;
            };
            if let Some(m) = t.mark {
                to.marks |= 1 << m;
            }
            let Some(mortal) = t.mortal else {
                out.push((to, q, bumps));
                continue;
            };
            let passes = t.check.map_or(0.0, pass_chance);
            if passes > 0.0 {
                out.push((to, q * passes, bumps.clone()));
            }
            for (n, &r) in dice_pmf(mortal).iter().enumerate() {
                if r == 0.0 {
                    continue;
                }
                let mut more = bumps.clone();
                let then = self.mortal_on(to, a, n as u32, true, slot, &mut more);
                out.push((then, q * (1.0 - passes) * r, more));
            }
        }
        out
    }

    /// Harm one token held outside the save, from `key`.
    fn inflict_branches(
        &mut self,
        index: usize,
        pool: &RunPool,
        a: usize,
        slot: Option<usize>,
        key: Key,
        what: Inflict,
    ) -> Vec<Branch> {
        match what.kind {
            InflictKind::Mortal {
                amount,
                spill,
                reduced,
                against,
                ..
            } => {
                let s = if against == Side::Attacker { 1 - a } else { a };
                let pmf = match amount {
                    Some(d) => dice_pmf(d),
                    None => self.damage_pmf(index, pool),
                };
                let mut out = Vec::new();
                for (n, &q) in pmf.iter().enumerate() {
                    if q == 0.0 {
                        continue;
                    }
                    let mut n = n as u32;
                    if reduced && s == a && key.sides[s].0 > 0 {
                        n = self.groups[s].map_or(n, |g| g.modify_damage(n));
                    }
                    let mut bumps: Vec<(usize, u32)> =
                        pool.mortal_counter.map(|c| (c, n)).into_iter().collect();
                    let to = self.mortal_on(key, s, n, spill, slot, &mut bumps);
                    out.push((to, q, bumps));
                }
                out
            }
            InflictKind::Damage {
                maximize,
                bonus,
                damage,
                ..
            } => {
                let dice: ModifiedDice = damage.map_or(pool.damage, ModifiedDice::from);
                let pmf = if damage.is_some() {
                    dice_pmf(dice)
                } else {
                    self.damage_pmf(index, pool)
                };
                let pmf = if maximize || bonus != 0 {
                    let mut out = Vec::new();
                    let most = dice.max();
                    for (v, &q) in pmf.iter().enumerate() {
                        if q == 0.0 || (maximize && v as u32 != most) {
                            continue;
                        }
                        let base = if maximize { most } else { v as u32 };
                        let d = (i64::from(base) + i64::from(bonus)).max(0) as u32;
                        accumulate(&mut out, d, if maximize { 1.0 } else { q });
                    }
                    out
                } else {
                    pmf
                };
                self.damage_branches(pool, a, slot, key, &pmf)
            }
        }
    }
    /// The ways one token goes through the pool's tests with `marks` set,
    /// worked out once.
    fn kinds(&mut self, index: usize, pool: &RunPool, marks: u32) -> Result<Vec<Kind>, CoreError> {
        if let Some(k) = self.kinds.get(&(index, marks)) {
            return Ok(k.clone());
        }
        let out = ways(self.program, pool, marks)?;
        self.kinds.insert((index, marks), out.clone());
        Ok(out)
    }

    /// The pool's kernel from `key`: its tokens, the unsaved ones' damage,
    /// then the harm they hold, in token order.
    fn pool(
        &mut self,
        index: usize,
        pool: &RunPool,
        slot: Option<usize>,
        key: Key,
    ) -> Result<Local<Key>, CoreError> {
        let a = usize::from(pool.against == Side::Attacker);
        let b = 1 - a;
        let alive = self.groups[b].map(|_| key.sides[b].0);
        let tokens = attacks_pmf(pool, alive);
        let kinds = self.kinds(index, pool, key.marks)?;
        let q_unsaved: f64 = kinds.iter().filter(|k| k.unsaved).map(|k| k.p).sum();
        let damage = self.damage_pmf(index, pool);
        let most = tokens.len().saturating_sub(1);
        // After j unsaved tokens' damage, for every j.
        let mut after = vec![{
            let mut d = Local::new();
            d.insert(key, Entry::unit(self.numbers));
            d
        }];
        for _ in 0..most {
            let mut next = Local::new();
            for (k, e) in after.last().expect("starts with one") {
                for (to, q, bumps) in self.damage_branches(pool, a, slot, *k, &damage) {
                    put(&mut next, to, e, q, &bumps);
                }
            }
            after.push(next);
        }
        let mut out: Local<Key> = Local::new();
        for (n, &pn) in tokens.iter().enumerate() {
            if pn == 0.0 {
                continue;
            }
            let attacks: Vec<(usize, u32)> = pool
                .attacks_counter
                .map(|c| (c, n as u32))
                .into_iter()
                .collect();
            let mut cur: Local<(Key, u32)> = Local::new();
            for (p, &pp) in binomial(n as u32, q_unsaved).iter().enumerate() {
                for (k, e) in &after[p] {
                    put(&mut cur, (*k, p as u32), e, pn * pp, &attacks);
                }
            }
            for step in 0..n {
                let m = (n - step) as u32;
                let mut next: Local<(Key, u32)> = Local::new();
                for ((k, r), e) in &cur {
                    for kind in &kinds {
                        let (share, left) = if kind.unsaved {
                            (
                                f64::from(*r) / f64::from(m) / q_unsaved,
                                r.saturating_sub(1),
                            )
                        } else {
                            (f64::from(m - r) / f64::from(m) / (1.0 - q_unsaved), *r)
                        };
                        if share == 0.0 || !share.is_finite() {
                            continue;
                        }
                        let mut branches: Vec<Branch> = vec![(*k, 1.0, kind.bumps.clone())];
                        for &what in &kind.pending {
                            let mut more = Vec::new();
                            for (bk, bq, bb) in branches {
                                for (to, q, extra) in
                                    self.inflict_branches(index, pool, a, slot, bk, what)
                                {
                                    let mut all = bb.clone();
                                    all.extend(extra);
                                    more.push((to, bq * q, all));
                                }
                            }
                            branches = more;
                        }
                        for (to, q, bumps) in branches {
                            put(&mut next, (to, left), e, share * kind.p * q, &bumps);
                        }
                    }
                }
                cur = next;
            }
            for ((k, _), e) in &cur {
                put(&mut out, *k, e, 1.0, &[]);
            }
        }
        Ok(out)
    }

    /// Every number's pmf, in the order of [`Program::numbers`].
    fn finish(&self, dist: &Local<Key>) -> Finished {
        let plan = &self.program.plan;
        let mut carried: Vec<Vec<f64>> = vec![Vec::new(); self.numbers];
        let mut side_numbers = [(Vec::new(), Vec::new()), (Vec::new(), Vec::new())];
        let mut outcome = Vec::new();
        for (key, e) in dist {
            for (i, pmf) in e.nums.iter().enumerate() {
                if carried[i].len() < pmf.len() {
                    carried[i].resize(pmf.len(), 0.0);
                }
                for (v, &x) in pmf.iter().enumerate() {
                    carried[i][v] += x;
                }
            }
            for (s, (damage, destroyed)) in side_numbers.iter_mut().enumerate() {
                if let Some(g) = self.groups[s] {
                    let (alive, front) = key.sides[s];
                    let now = wounds(alive, front, g.wounds);
                    // Counted from where the side started (below full when
                    // it lost wounds before the trial).
                    accumulate(damage, start_wounds(g) - now, e.p);
                    accumulate(destroyed, g.start().0 - alive, e.p);
                }
            }
            let o = u32::from(self.wiped(*key, 0)) + 2 * u32::from(self.wiped(*key, 1));
            accumulate(&mut outcome, o, e.p);
        }
        if let Some(c) = self.program.outcome_counter {
            carried[c] = outcome;
        }
        let mut pmfs: Vec<Vec<f64>> = carried[..self.counters].to_vec();
        let [(damage, destroyed), (a_damage, a_destroyed)] = side_numbers;
        pmfs.push(damage);
        pmfs.push(destroyed.clone());
        if plan.attacker.is_some() {
            pmfs.push(a_damage);
            pmfs.push(a_destroyed);
        }
        pmfs.push(destroyed);
        pmfs.extend(carried[self.counters..].iter().cloned());
        let means = vec![None; pmfs.len()];
        (pmfs, means)
    }
}
/// Evaluate `program` as a chain over both sides' state: admitted (its
/// states bounded, its work estimated and held to the budget), then run.
pub(super) fn evaluate(program: &Program) -> Result<Finished, CoreError> {
    OPS.with(|o| o.set(0));
    let chain = Chain::new(program)?;
    let estimate = chain.estimate();
    if estimate > super::admit::ADMIT && !super::budget::measuring() {
        return Err(decline(format!(
            "too many outcomes: about {estimate} steps of work estimated for the chain over both sides' states, more than it admits ({})",
            super::admit::ADMIT
        )));
    }
    super::budget::expect(estimate);
    chain.run()
}
