//! The fast Monte Carlo path: draw each attack pool's whole outcome from its
//! exact distribution instead of rolling every die.
//!
//! Attack dice are independent until they reach the save, so the tests of a
//! pool (hit, wound, their re-rolls, extra tokens, skips, mortal-wound
//! triggers) have an exact joint distribution for any number of dice `n`:
//! the n-fold convolution of one die's. That table is built once per Plan and
//! sampled with one random word per pool per trial (alias method). When every
//! group saves on exactly the same faces, the save's failures are binomial and
//! drawn the same way; otherwise the save dice are rolled and resolved lowest
//! first, as the die-by-die executor does. Damage, Feel No Pain and mortal
//! wounds are always rolled, because they depend on the target's state.
//!
//! Both paths draw from the same distribution; the tests compare them. A Plan
//! whose tables would be too large, or whose pool mixes several kinds of
//! mortal-wound effect (their interleaving matters), runs die by die.

use crate::alias::AliasTable;
use crate::executor::{
    bump, declare, drive, gather_attacks, inflict, resolve_save_faces, unsaved, Inflict,
    InflictKind, Program, RunAction, RunPool, RunSequence, RunTest, Workspace,
};
use crate::plan::{Class, Excess, Outcome, Side};
use crate::rng::{DiceSource, Stream};
use crate::trace::NoTrace;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The most table entries (over all pools and all dice counts) the fast path
/// builds before it leaves a Plan to the die-by-die executor.
pub const MAX_TABLE_ENTRIES: usize = 1 << 21;

/// A sparse distribution over outcome vectors. A vector is packed into one
/// `u64`, `BITS` bits a slot, so adding vectors is adding keys (no slot can
/// overflow into the next: every slot's bound is checked first).
pub(crate) type Dist = HashMap<u64, f64, BuildHasherDefault<KeyHasher>>;

/// Bits per slot of a packed outcome vector.
pub(crate) const BITS: u32 = 10;
/// Most slots a packed vector holds.
const SLOTS: usize = (64 / BITS) as usize;
/// The most multiply-adds table building may spend on one Plan before it
/// leaves the Plan to the die-by-die executor (well under a second).
const MAX_WORK: u64 = 20_000_000;

/// Keys are already well mixed by a multiply; the standard `SipHash` would triple the
/// cost of building tables.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _bytes: &[u8]) {
        unreachable!("only u64 keys are hashed")
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = (key ^ (key >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    }
}

pub(crate) fn slot(v: u64, i: usize) -> u32 {
    ((v >> (BITS as usize * i)) & ((1 << BITS) - 1)) as u32
}

#[derive(Default)]
pub(crate) struct Builder {
    work: u64,
}

impl Builder {
    pub(crate) fn convolve(&mut self, a: &Dist, b: &Dist) -> Option<Dist> {
        self.work += (a.len() * b.len()) as u64;
        if self.work > MAX_WORK {
            return None;
        }
        let mut out = Dist::default();
        for (va, pa) in a {
            for (vb, pb) in b {
                *out.entry(va + vb).or_insert(0.0) += pa * pb;
            }
        }
        Some(out)
    }
}

pub(crate) fn point(set: &[(usize, u32)]) -> Dist {
    let key = set
        .iter()
        .map(|&(i, x)| u64::from(x) << (BITS as usize * i))
        .sum();
    Dist::from_iter([(key, 1.0)])
}

fn mix(into: &mut Dist, d: &Dist, weight: f64) {
    for (v, p) in d {
        *into.entry(*v).or_insert(0.0) += p * weight;
    }
}

/// Entries sorted by key, so the alias table, and so what a seed draws, do
/// not depend on hash order.
fn sorted(d: &Dist) -> Vec<(u64, f64)> {
    let mut entries: Vec<(u64, f64)> = d.iter().map(|(k, p)| (*k, *p)).collect();
    entries.sort_unstable_by_key(|e| e.0);
    entries
}

/// One pool's tables: index layout of an outcome vector is one slot per test
/// (that test's counter increments), then tokens reaching the save, then
/// mortal-wound effects triggered.
#[derive(Debug, Clone)]
struct PoolTables {
    /// `by_count[n]`: packed outcome vectors and their alias table for n dice.
    by_count: Vec<(Vec<u64>, AliasTable)>,
    /// When saves fail on the same faces for every group: the chance one fails,
    /// and `binomial[w]` for w wounds.
    binomial: Option<Vec<AliasTable>>,
    inflict: Option<Inflict>,
}

/// A Program with its fast-path tables, where they could be built.
#[derive(Debug, Clone)]
pub struct Sampler {
    pools: Vec<Option<PoolTables>>,
}

impl Sampler {
    /// Build the tables; `None` when any pool must run die by die.
    #[must_use]
    pub fn new(program: &Program) -> Option<Sampler> {
        let mut budget = MAX_TABLE_ENTRIES;
        let mut builder = Builder { work: 0 };
        let mut pools = Vec::new();
        for seq in &program.sequences {
            pools.push(match seq {
                RunSequence::Mortal { .. }
                | RunSequence::Heal { .. }
                | RunSequence::Mark { .. } => None,
                RunSequence::Pool(pool) => Some(PoolTables::new(
                    pool,
                    match (pool.against, &program.plan.attacker) {
                        (Side::Attacker, Some(a)) => &a.groups,
                        _ => &program.plan.target.groups,
                    },
                    &mut budget,
                    &mut builder,
                )?),
            });
        }
        Some(Sampler { pools })
    }
}

/// The outcomes (and classes) of one token at test `t`, with their chances.
fn classed(t: &RunTest) -> Vec<(Outcome, Option<Class>, f64)> {
    if let Some((_, distribution)) = &t.roll {
        return distribution.clone();
    }
    let p = outcome_probabilities(t);
    [Outcome::Fail, Outcome::Success, Outcome::Critical]
        .into_iter()
        .map(|o| (o, None, p[o as usize]))
        .collect()
}

fn outcome_probabilities(t: &RunTest) -> [f64; 3] {
    let mut p = [0.0; 3];
    let face = 1.0 / f64::from(t.die);
    if t.automatic {
        p[Outcome::Success as usize] = 1.0;
        return p;
    }
    let fresh: Vec<Outcome> = (1..=t.die).map(|f| t.by_face[f as usize]).collect();
    for (i, &o) in fresh.iter().enumerate() {
        if t.rerolls(i as u32 + 1, o) {
            for &o2 in &fresh {
                p[o2 as usize] += face * face;
            }
        } else {
            p[o as usize] += face;
        }
    }
    p
}

/// One attack die's exact outcome distribution through the pool's tests
/// (packed vectors: each test's count, tokens reaching the save, harm events),
/// and the one kind of harm outside the save the pool may queue. `None` when
/// the pool cannot be tabulated (see the module notes).
pub(crate) fn one_token(
    pool: &RunPool,
    budget: usize,
    b: &mut Builder,
) -> Option<(Dist, Option<Inflict>)> {
    let m = pool.tests.len();
    let (save_slot, mortal_slot) = (m, m + 1);
    // Every slot counts tokens, so the most tokens the pool can make bounds
    // every slot; they must fit the packing. A batch hook needs every die.
    // A roll whose dice depend on marks has no one table: die by die.
    if m + 2 > SLOTS
        || pool.max_tokens() >= 1 << BITS
        || pool.batch_hook.is_some()
        || pool
            .tests
            .iter()
            .any(|t| t.roll.as_ref().is_some_and(|r| r.0.conditional()))
    {
        return None;
    }
    // The one kind of harm outside the save this pool may have (how
    // different kinds would interleave matters, so they run die by die).
    let mut inflict: Option<InflictKind> = None;
    let mut after_all = false;
    for t in &pool.tests {
        for a in t.actions() {
            if let RunAction::Count(_) = a {
                // Counting a status needs a slot of its own: die by die.
                return None;
            }
            if let RunAction::Inflict(what) = *a {
                match inflict {
                    None => (inflict, after_all) = (Some(what.kind), what.after_all),
                    Some(k) if k == what.kind && after_all == what.after_all => {}
                    Some(_) => return None,
                }
            }
        }
    }
    let inflict = inflict.map(|kind| Inflict {
        kind,
        after_all,
        ends: false,
    });
    // One token's distribution entering each test, from the save backwards.
    let mut entering: Vec<Dist> = vec![Dist::default(); m + 1];
    entering[m] = point(&[(save_slot, 1)]);
    for k in (0..m).rev() {
        let t = &pool.tests[k];
        let mut d = Dist::default();
        for (o, class, p) in classed(t) {
            if p == 0.0 {
                continue;
            }
            let actions = match o {
                Outcome::Fail => &t.on_fail,
                Outcome::Success => &t.on_success,
                Outcome::Critical => &t.on_critical,
            };
            let mut passes = o != Outcome::Fail;
            let mut goes_to = k + 1;
            let mut fixed: Vec<(usize, u32)> = Vec::new();
            let mut parts: Vec<Dist> = Vec::new();
            for &(needs, a) in actions {
                if needs.is_some() && needs != class {
                    continue;
                }
                match a {
                    RunAction::Count(_) => unreachable!("declined above"),
                    RunAction::Extra(amount) => {
                        // a extra tokens into test k+1, each counted at k.
                        let mut extra = Dist::default();
                        let mut power = point(&[]);
                        for (count, q) in amount.distribution().into_iter().enumerate() {
                            if count > 0 {
                                power = b.convolve(&power, &entering[k + 1])?;
                            }
                            if q > 0.0 {
                                let shifted = b.convolve(&power, &point(&[(k, count as u32)]))?;
                                mix(&mut extra, &shifted, q);
                            }
                        }
                        parts.push(extra);
                    }
                    RunAction::Skip(s) => {
                        fixed.extend((k + 1..=k + s).map(|j| (j, 1)));
                        goes_to = k + 1 + s;
                    }
                    RunAction::Inflict(Inflict { ends, .. }) => {
                        fixed.push((mortal_slot, 1));
                        if ends {
                            fixed.push((k, u32::from(passes)));
                            passes = false;
                        }
                    }
                }
            }
            let mut branch = point(&fixed);
            if passes {
                branch = b.convolve(&branch, &point(&[(k, 1)]))?;
                branch = b.convolve(&branch, &entering[goes_to])?;
            }
            for part in &parts {
                branch = b.convolve(&branch, part)?;
            }
            mix(&mut d, &branch, p);
        }
        if d.len() > budget {
            return None;
        }
        entering[k] = d;
    }
    let first = std::mem::take(&mut entering[0]);
    Some((first, inflict))
}

impl PoolTables {
    fn new(
        pool: &RunPool,
        groups: &[crate::plan::Group],
        budget: &mut usize,
        b: &mut Builder,
    ) -> Option<PoolTables> {
        let m = pool.tests.len();
        let save_slot = m;
        let (first, inflict) = one_token(pool, *budget, b)?;
        let entering = [first];
        // n-fold convolutions for every number of attack dice the pool can have.
        let max_attacks = pool.max_attacks();
        let mut by_count = Vec::new();
        let mut table = point(&[]);
        let mut max_saves = 0;
        for n in 0..=max_attacks {
            if n > 0 {
                table = b.convolve(&table, &entering[0])?;
            }
            if table.len() > *budget {
                return None;
            }
            *budget -= table.len();
            let entries = sorted(&table);
            let probs: Vec<f64> = entries.iter().map(|e| e.1).collect();
            let keys: Vec<u64> = entries.iter().map(|e| e.0).collect();
            max_saves = max_saves.max(keys.iter().map(|&v| slot(v, save_slot)).max().unwrap_or(0));
            by_count.push((keys, AliasTable::new(&probs)));
        }
        // Binomial saves when no group saves on a different face from another.
        let binomial = if pool.save.alike(groups) {
            let q = pool.save.fail_chance(0, groups);
            let need = (max_saves as usize + 1) * (max_saves as usize + 2) / 2;
            if need > *budget {
                return None;
            }
            *budget -= need;
            Some(
                (0..=max_saves)
                    .map(|w| AliasTable::new(&binomial_pmf(w, q)))
                    .collect(),
            )
        } else {
            None
        };
        Some(PoolTables {
            by_count,
            binomial,
            inflict,
        })
    }
}

pub(crate) fn binomial_pmf(n: u32, q: f64) -> Vec<f64> {
    let mut pmf = vec![1.0];
    for _ in 0..n {
        let mut next = vec![0.0; pmf.len() + 1];
        for (k, &p) in pmf.iter().enumerate() {
            next[k] += p * (1.0 - q);
            next[k + 1] += p * q;
        }
        pmf = next;
    }
    pmf
}

/// Run one trial on the fast path.
///
/// # Panics
/// If `sampler` was not built from `program` (it holds tables for every pool).
pub fn run_trial(
    program: &Program,
    sampler: &Sampler,
    ws: &mut Workspace<'_>,
    stream: &mut Stream,
) {
    drive(
        program,
        ws,
        stream,
        &mut NoTrace,
        |index, pool, ws, stream, _| {
            let tables = sampler.pools[index]
                .as_ref()
                .expect("a Sampler has tables for every pool");
            run_pool(index, pool, tables, ws, stream);
        },
    );
}

fn run_pool(
    index: usize,
    pool: &RunPool,
    tables: &PoolTables,
    ws: &mut Workspace<'_>,
    stream: &mut Stream,
) {
    let attacks = gather_attacks(pool, ws.attacker.as_ref().map(|a| &a.alive[..]), stream);
    bump(&mut ws.counters, pool.attacks_counter, attacks);
    let (keys, alias) = &tables.by_count[attacks as usize];
    let v = keys[alias.sample(stream)];
    let m = pool.tests.len();
    for (k, t) in pool.tests.iter().enumerate() {
        bump(&mut ws.counters, t.counter, slot(v, k));
    }
    let wounds = slot(v, m);
    declare(pool, ws);
    if let Some(binomial) = &tables.binomial {
        // Every group saves on the same faces, so the failures are the lowest
        // rolls: resolve them in order, the passes change nothing.
        let failed = binomial[wounds as usize].sample(stream) as u32;
        // `apply_fixed` knows damage modifiers only: anything that converts
        // or follows damage goes one attack at a time.
        if pool.damage.is_random()
            || pool.damage.min() == 0
            || pool.excess != Excess::Lost
            || pool.cap_at_wounds
            || pool.top_threshold_counter.is_some()
            || pool.top_threshold.is_some()
            || ws.state.has_thresholds()
        {
            for _ in 0..failed {
                let current = ws.state.current(&ws.order);
                unsaved(pool, ws, current, stream, &mut NoTrace);
            }
        } else {
            bump(&mut ws.counters, pool.save.counter, failed);
            ws.state
                .apply_fixed(&ws.order, failed, pool.damage.min(), stream);
        }
    } else {
        ws.save_faces.clear();
        ws.save_faces.resize(pool.save.die as usize + 1, 0);
        for _ in 0..wounds {
            ws.save_faces[stream.roll(pool.save.die) as usize] += 1;
        }
        resolve_save_faces(pool, ws, stream, &mut NoTrace);
    }
    if let Some(what) = tables.inflict {
        for _ in 0..slot(v, m + 1) {
            if what.after_all {
                ws.deferred.push((index, what, ws.focus));
            } else {
                inflict(pool, ws, what, stream, &mut NoTrace);
            }
        }
    }
}
