//! Exact tables of what an attack pool's tests produce.
//!
//! Attack dice are independent until they reach the save, so the tests of a
//! pool (hit, wound, their re-rolls, extra tokens, skips, harm triggered
//! outside the save) have an exact joint distribution for one die, and the
//! n-fold convolution of it for n dice. An outcome is a vector of counts (one
//! slot per test, then tokens reaching the save, then harm events) packed into
//! one `u64`. The fast Monte Carlo path samples these tables; the exact
//! evaluator convolves them. A test granting the unit one re-roll of a single
//! die ties the dice together; its tables note which such re-rolls are left,
//! and dice are composed one after another instead (see [`Token`]).

use crate::dice::DiceExpr;
use crate::plan::{Class, Outcome};
use crate::program::{Inflict, InflictKind, RunAction, RunPool, RunTest, TokenRoute};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A sparse distribution over outcome vectors. A vector is packed into one
/// `u64`, `BITS` bits a slot, so adding vectors is adding keys (no slot can
/// overflow into the next: every slot's bound is checked first).
pub(crate) type Dist = HashMap<u64, f64, BuildHasherDefault<KeyHasher>>;

/// Bits per slot of a packed outcome vector.
pub(crate) const BITS: u32 = 10;
/// Most slots a packed vector holds.
pub(crate) const SLOTS: usize = (64 / BITS) as usize;
/// The most multiply-adds table building may spend on one Plan before it
/// leaves the Plan to the die-by-die executor (well under a second).
pub(crate) const MAX_WORK: u64 = 20_000_000;

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

/// Every slot of a packed outcome vector.
pub(crate) fn unpack(v: u64) -> [u32; SLOTS] {
    std::array::from_fn(|i| slot(v, i))
}

#[derive(Default, Clone)]
pub(crate) struct Builder {
    work: u64,
}

impl Builder {
    /// Would convolving `a` with `b` stay within the work allowed?
    pub(crate) fn affords(&self, a: &Dist, b: &Dist) -> bool {
        self.work + (a.len() * b.len()) as u64 <= MAX_WORK
    }

    /// Would `work` more multiply-adds stay within the work allowed?
    pub(crate) fn affords_work(&self, work: usize) -> bool {
        self.work + work as u64 <= MAX_WORK
    }

    /// `a` convolved with `b`, its work counted; `None` past the work
    /// allowed (which then stays spent, so every later convolution fails too).
    pub(crate) fn convolve(&mut self, a: &Dist, b: &Dist) -> Option<Dist> {
        let affordable = self.affords(a, b);
        self.work += (a.len() * b.len()) as u64;
        if !affordable {
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

pub(crate) fn mix(into: &mut Dist, d: &Dist, weight: f64) {
    for (v, p) in d {
        *into.entry(*v).or_insert(0.0) += p * weight;
    }
}

/// Entries sorted by key, so the alias table, and so what a seed draws, do
/// not depend on hash order.
pub(crate) fn sorted(d: &Dist) -> Vec<(u64, f64)> {
    let mut entries: Vec<(u64, f64)> = d.iter().map(|(k, p)| (*k, *p)).collect();
    entries.sort_unstable_by_key(|e| e.0);
    entries
}

/// The outcomes (and classes) of one token at test `t`, with their chances.
fn classed(t: &RunTest) -> Vec<(Outcome, Option<Class>, f64)> {
    if let Some((_, distribution)) = &t.roll {
        return distribution.clone();
    }
    by_outcome(outcome_probabilities(t))
}

fn by_outcome(p: [f64; 3]) -> Vec<(Outcome, Option<Class>, f64)> {
    [Outcome::Fail, Outcome::Success, Outcome::Critical]
        .into_iter()
        .map(|o| (o, None, p[o as usize]))
        .collect()
}

fn outcome_probabilities(t: &RunTest) -> [f64; 3] {
    let (kept, eligible, _) = one_reroll_split(t);
    let mut p = kept;
    p[Outcome::Fail as usize] += eligible;
    p
}

/// One token at test `t` split for the pool's one-die re-roll: the chances
/// of each outcome for a token that cannot take it (its first roll did not
/// fail, or the test's own policy re-rolled it already: a re-rolled die is
/// never rolled a third time), the chance its first roll fails and is left
/// as it is (the die the one re-roll picks), and the outcomes of one fresh
/// roll (what that die shows once rolled again).
fn one_reroll_split(t: &RunTest) -> ([f64; 3], f64, [f64; 3]) {
    let mut kept = [0.0; 3];
    let mut eligible = 0.0;
    let mut fresh_p = [0.0; 3];
    if t.automatic {
        kept[Outcome::Success as usize] = 1.0;
        fresh_p[Outcome::Success as usize] = 1.0;
        return (kept, eligible, fresh_p);
    }
    let face = 1.0 / f64::from(t.die);
    let fresh: Vec<Outcome> = (1..=t.die).map(|f| t.by_face[f as usize]).collect();
    for &o in &fresh {
        fresh_p[o as usize] += face;
    }
    for (i, &o) in fresh.iter().enumerate() {
        if t.rerolls(i as u32 + 1, o) {
            for &o2 in &fresh {
                kept[o2 as usize] += face * face;
            }
        } else if o == Outcome::Fail {
            eligible += face;
        } else {
            kept[o as usize] += face;
        }
    }
    (kept, eligible, fresh_p)
}

/// One token's outcome distribution jointly with which of the pool's
/// one-die re-rolls it leaves: `by[from][to]` holds the outcome vectors
/// (unnormalised) of a token that starts with the re-rolls of set `from`
/// still to use and leaves those of `to`. A set has a bit per test that
/// grants one (see [`one_die_bits`]); with none, there is one set and
/// `by[0][0]` is the token's plain distribution.
///
/// The one re-roll of a test goes to the first token there whose die fails
/// and was not re-rolled already, in whatever order the tokens are resolved:
/// every token reaching a test is a fresh, independent one, and which of the
/// failed dice is rolled again does not change the counts (the others stay
/// failures), so the counts have one distribution for any order, and a
/// pool's tokens can be composed one after another, threading the set.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) by: Vec<Vec<Dist>>,
}

/// The bit of each test in a set of one-die re-rolls still to use (`None`
/// for a test that grants none), and the number of sets.
pub(crate) fn one_die_bits(pool: &RunPool) -> (Vec<Option<usize>>, usize) {
    let mut next = 0;
    let bits = pool
        .tests
        .iter()
        .map(|t| {
            t.reroll_one.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    (bits, 1 << next)
}

impl Token {
    /// Each set left as it is, nothing counted.
    fn identity(sets: usize) -> Token {
        Token {
            by: (0..sets)
                .map(|from| {
                    (0..sets)
                        .map(|to| {
                            if to == from {
                                point(&[])
                            } else {
                                Dist::default()
                            }
                        })
                        .collect()
                })
                .collect(),
        }
    }

    /// How many sets of re-rolls still to use there are.
    pub(crate) fn sets(&self) -> usize {
        self.by.len()
    }

    /// The set with every re-roll still to use, where a pool starts.
    pub(crate) fn full(&self) -> usize {
        self.sets() - 1
    }

    /// Table entries held.
    pub(crate) fn entries(&self) -> usize {
        self.by.iter().flatten().map(HashMap::len).sum()
    }

    /// `self`, then `next`.
    fn then(&self, next: &Token, b: &mut Builder) -> Option<Token> {
        let by = self
            .by
            .iter()
            .map(|row| then_row(row, next, b))
            .collect::<Option<_>>()?;
        Some(Token { by })
    }

    /// Each distribution mapped by `f` (a projection of its vectors).
    pub(crate) fn map_dists(&self, f: impl Fn(&Dist) -> Dist) -> Token {
        Token {
            by: self
                .by
                .iter()
                .map(|row| row.iter().map(&f).collect())
                .collect(),
        }
    }

    /// The plain distribution of a pool without one-die re-rolls.
    pub(crate) fn plain(&self) -> Option<&Dist> {
        (self.sets() == 1).then(|| &self.by[0][0])
    }
}

/// A distribution over (vector, set left), `row[set]`, followed by `next`.
pub(crate) fn then_row(row: &[Dist], next: &Token, b: &mut Builder) -> Option<Vec<Dist>> {
    let sets = next.sets();
    let mut out = vec![Dist::default(); sets];
    for (mid, d) in row.iter().enumerate() {
        if d.is_empty() {
            continue;
        }
        for (to, e) in next.by[mid].iter().enumerate() {
            if e.is_empty() {
                continue;
            }
            let c = b.convolve(d, e)?;
            if out[to].is_empty() {
                out[to] = c;
            } else {
                mix(&mut out[to], &c, 1.0);
            }
        }
    }
    Some(out)
}

/// The vectors of a row of sets, whatever set is left.
pub(crate) fn total(row: &[Dist]) -> Dist {
    let mut out = Dist::default();
    for d in row {
        mix(&mut out, d, 1.0);
    }
    out
}

/// Why `pool` cannot be tabulated for up to `dice` attack dice, in words, or
/// `None` when it can (the table may still be too large for its budget).
pub(crate) fn why_not_tabulated(pool: &RunPool, dice: u64) -> Option<String> {
    let m = pool.tests.len();
    let tokens = pool.tokens_from(dice);
    // Every slot counts tokens, so the most tokens the pool can make bounds
    // every slot; they must fit the packing. A batch hook needs every die.
    // A roll whose dice depend on marks has no one table: die by die.
    if m + 2 > SLOTS {
        return Some(format!(
            "it has {m} tests, and a table holds at most {}",
            SLOTS - 2
        ));
    }
    if tokens >= 1 << BITS {
        return Some(format!(
            "its {dice} attack dice can make up to {tokens} rolls over its tests (each die and extra hit counted \
             at every test it reaches), and a table counts at most {} of them",
            (1u64 << BITS) - 1
        ));
    }
    if pool.batch_hook.is_some() {
        return Some("it calls a batch hook".into());
    }
    if pool
        .tests
        .iter()
        .any(|t| t.roll.as_ref().is_some_and(|r| r.0.conditional()))
    {
        return Some("a roll's dice depend on marks set during the attack".into());
    }
    if pool
        .tests
        .iter()
        .flat_map(RunTest::actions)
        .any(|a| matches!(a, RunAction::Count(_)))
    {
        return Some("it counts a status".into());
    }
    if one_harm(pool).is_none() {
        return Some("it mixes kinds of harm outside the save".into());
    }
    None
}

/// The one kind of harm outside the save the pool may have, and whether it
/// is held until every attack is resolved; `None` when it has several (how
/// different kinds would interleave matters, so they run die by die).
fn one_harm(pool: &RunPool) -> Option<(Option<InflictKind>, bool)> {
    let mut inflict: Option<InflictKind> = None;
    let mut after_all = false;
    for a in pool.tests.iter().flat_map(RunTest::actions) {
        if let RunAction::Inflict(what) = *a {
            match inflict {
                None => (inflict, after_all) = (Some(what.kind), what.after_all),
                Some(k) if k == what.kind && after_all == what.after_all => {}
                Some(_) => return None,
            }
        }
    }
    Some((inflict, after_all))
}

/// One attack die's exact outcome distribution through the pool's tests
/// (packed vectors: each test's count, tokens reaching the save, harm events),
/// split by the pool's one-die re-rolls it leaves to use (see [`Token`]), and
/// the one kind of harm outside the save the pool may queue. `None` when the
/// pool cannot be tabulated (see the module notes), when the sum of `dice`
/// such vectors could overflow a slot of the packing, or past `budget` table
/// entries or the builder's work.
pub(crate) fn one_token(
    pool: &RunPool,
    dice: u64,
    budget: usize,
    b: &mut Builder,
) -> Option<(Token, Option<Inflict>)> {
    let m = pool.tests.len();
    let (save_slot, mortal_slot) = (m, m + 1);
    if why_not_tabulated(pool, dice).is_some() {
        return None;
    }
    let (inflict, after_all) = one_harm(pool)?;
    let inflict = inflict.map(|kind| Inflict {
        kind,
        after_all,
        ends: false,
    });
    let (bits, sets) = one_die_bits(pool);
    // One token's distribution entering each test, from the save backwards.
    let mut entering: Vec<Token> = vec![Token::identity(sets); m + 1];
    for row in &mut entering[m].by {
        for d in row.iter_mut().filter(|d| !d.is_empty()) {
            *d = point(&[(save_slot, 1)]);
        }
    }
    for k in (0..m).rev() {
        let t = &pool.tests[k];
        let plain = classed(t);
        let split = bits[k].map(|_| one_reroll_split(t));
        let mut by = Vec::with_capacity(sets);
        for from in 0..sets {
            // The outcomes, each with the set the token leaves this test with.
            let branches: Vec<(Outcome, Option<Class>, f64, usize)> = match (bits[k], split) {
                (Some(bit), Some((kept, eligible, fresh))) if from & (1 << bit) != 0 => {
                    let used = from & !(1 << bit);
                    by_outcome(kept)
                        .into_iter()
                        .map(|(o, c, p)| (o, c, p, from))
                        .chain(
                            by_outcome(fresh)
                                .into_iter()
                                .map(|(o, c, p)| (o, c, p * eligible, used)),
                        )
                        .collect()
                }
                _ => plain.iter().map(|&(o, c, p)| (o, c, p, from)).collect(),
            };
            let mut d = vec![Dist::default(); sets];
            for (o, class, p, left) in branches {
                if p == 0.0 {
                    continue;
                }
                let mut route = TableRoute {
                    k,
                    mortal_slot,
                    entering: &entering,
                    builder: &mut *b,
                    fixed: Vec::new(),
                    parts: Vec::new(),
                    goes_to: None,
                };
                t.route(k, o, class, &mut route)?;
                let TableRoute {
                    mut fixed,
                    parts,
                    goes_to,
                    ..
                } = route;
                if goes_to.is_some() {
                    fixed.push((k, 1));
                }
                let mut branch = vec![Dist::default(); sets];
                branch[left] = point(&fixed);
                if let Some(goes_to) = goes_to {
                    branch = then_row(&branch, &entering[goes_to], b)?;
                }
                for part in &parts {
                    branch = then_row(&branch, part, b)?;
                }
                for (into, part) in d.iter_mut().zip(&branch) {
                    mix(into, part, p);
                }
            }
            by.push(d);
        }
        let token = Token { by };
        if token.entries() > budget {
            return None;
        }
        entering[k] = token;
    }
    Some((entering.swap_remove(0), inflict))
}

/// One token's routing at test `k` as distributions: counts that are fixed,
/// and parts (extra tokens) to follow it.
struct TableRoute<'a> {
    k: usize,
    mortal_slot: usize,
    /// One token's distribution entering each later test.
    entering: &'a [Token],
    builder: &'a mut Builder,
    fixed: Vec<(usize, u32)>,
    parts: Vec<Token>,
    /// The test the token goes on to, if it passed.
    goes_to: Option<usize>,
}

impl TokenRoute for TableRoute<'_> {
    fn count(&mut self, _: usize) {
        unreachable!("a pool counting a status has no table")
    }

    fn extra(&mut self, amount: DiceExpr) -> Option<()> {
        // `amount` extra tokens into test k+1, each counted at k.
        let k = self.k;
        let next = &self.entering[k + 1];
        let sets = next.sets();
        let mut extra = Token {
            by: vec![vec![Dist::default(); sets]; sets],
        };
        let mut power = Token::identity(sets);
        for (count, q) in amount.distribution().into_iter().enumerate() {
            if count > 0 {
                power = power.then(next, self.builder)?;
            }
            if q > 0.0 {
                let counted = point(&[(k, count as u32)]);
                for (into, row) in extra.by.iter_mut().zip(&power.by) {
                    for (to, d) in row.iter().enumerate() {
                        if !d.is_empty() {
                            let shifted = self.builder.convolve(d, &counted)?;
                            mix(&mut into[to], &shifted, q);
                        }
                    }
                }
            }
        }
        self.parts.push(extra);
        Some(())
    }

    fn skip(&mut self, skipped: std::ops::RangeInclusive<usize>) {
        self.fixed.extend(skipped.map(|j| (j, 1)));
    }

    fn inflict(&mut self, _: Inflict, ended: Option<bool>) {
        self.fixed.push((self.mortal_slot, 1));
        if let Some(passed) = ended {
            self.fixed.push((self.k, u32::from(passed)));
        }
    }

    fn pass(&mut self, goes_to: usize) -> Option<()> {
        self.goes_to = Some(goes_to);
        Some(())
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
