//! Saves through groups that save differently, exactly: rolled together and
//! resolved lowest first, or one at a time.

use super::budget::{hold, spend, verdict, STATE_BYTES};
use super::evaluator::Evaluator;
use super::state::{add, failed, with_failed, Dist, Fast, Unit};
use super::SAVE_BRANCH_STEPS;
use crate::error::CoreError;
use crate::program::RunPool;
use crate::tables::binomial_pmf;
use std::collections::HashMap;
use std::hash::BuildHasher;

/// A distribution over (target state, dice left to save, harm events): one
/// map while it is small, then spread over [`SHARDS`] maps chosen by the
/// key's hash. One map of millions of entries grows by moving every entry at
/// once, a large part of a second in which no stop (Ctrl-C) is looked at;
/// spread, each growth moves a part of them, between the evaluation's looks
/// for a stop.
struct Shards(Vec<HashMap<(u128, u32, u32), f64, Fast>>);

/// Maps a large [`Shards`] spreads its entries over.
const SHARDS: usize = 16;

/// Entries past which a [`Shards`] spreads them (moving this many takes a
/// millisecond or so; smaller distributions keep one map, and one hash a key).
const SPREAD_AT: usize = 1 << 16;

impl Default for Shards {
    fn default() -> Self {
        Shards(vec![HashMap::default()])
    }
}

impl Shards {
    #[inline]
    fn add(&mut self, key: (u128, u32, u32), p: f64) {
        if let [one] = &mut self.0[..] {
            *one.entry(key).or_insert(0.0) += p;
            if one.len() > SPREAD_AT {
                self.spread();
            }
        } else {
            self.routed(key, p);
        }
    }

    /// Spread the one map's entries over [`SHARDS`] maps.
    #[cold]
    fn spread(&mut self) {
        let one = std::mem::take(&mut self.0[0]);
        self.0 = (0..SHARDS).map(|_| HashMap::default()).collect();
        for (k, q) in one {
            self.routed(k, q);
        }
    }

    #[inline]
    fn routed(&mut self, key: (u128, u32, u32), p: f64) {
        // Middle bits of the key's hash choose the map: each map picks its
        // bucket from the low bits and tags entries with the top seven, so
        // both still spread within it.
        let at = (Fast::default().hash_one(key) >> 40) as usize % SHARDS;
        *self.0[at].entry(key).or_insert(0.0) += p;
    }

    fn iter(&self) -> impl Iterator<Item = (&(u128, u32, u32), &f64)> {
        self.0.iter().flatten()
    }
}

impl Evaluator<'_> {
    /// Saves rolled together and resolved lowest first, from `start`: a
    /// distribution over (state, dice to save, harm events), the last only
    /// carried along. Face by face, of the dice not yet resolved each shows
    /// the face with probability 1/(faces left), so the number showing it is
    /// binomial; they are resolved one at a time against whichever group is
    /// current then, so which group a roll meets depends on the rolls before
    /// it. After the unit is destroyed rolls are checked against the last
    /// group (`last`) and still counted. Returns (state, harm events) ->
    /// probability.
    pub(super) fn lowest_first(
        &self,
        start: HashMap<(u128, u32, u32), f64, Fast>,
        order: &[usize],
        last: usize,
        pool: &RunPool,
        damage: &[f64],
    ) -> Result<HashMap<(u128, u32), f64, Fast>, CoreError> {
        let sides = pool.save.die;
        let mut cur = Shards(vec![start]);
        for face in 1..=sides {
            let p_face = 1.0 / f64::from(sides - face + 1);
            // The states after c rolls of this face, from each state, built
            // once per state (failed saves so far aside: they only shift the
            // count) however many entries start from it.
            let mut most: HashMap<u128, u32, Fast> = HashMap::default();
            for (&(s, r, _), _) in cur.iter() {
                let m = most.entry(with_failed(s, 0)).or_insert(0);
                *m = (*m).max(r);
            }
            let mut binomials: HashMap<u32, Vec<f64>, Fast> = HashMap::default();
            let mut chains: HashMap<u128, Vec<Dist>, Fast> = HashMap::default();
            let mut held = 0u64;
            for (&s, &r) in &most {
                let mut chain = vec![Dist::from_iter([(s, 1.0)])];
                for _ in 0..r {
                    let d = self.one_save(
                        chain.last().expect("starts with one"),
                        face,
                        order,
                        last,
                        pool,
                        damage,
                    );
                    // Each state of the step branches over the damage roll
                    // (and Feel No Pain) in `unsaved`.
                    let branches = chain.last().map_or(0, HashMap::len) * damage.len().max(1);
                    held += d.len() as u64 * STATE_BYTES;
                    chain.push(d);
                    if spend(branches.saturating_mul(SAVE_BRANCH_STEPS as usize)) {
                        break;
                    }
                }
                hold(held);
                verdict()?;
                chains.insert(s, chain);
            }
            let mut next = Shards::default();
            for (&(s, r, e), &q) in cur.iter() {
                let chain = &chains[&with_failed(s, 0)];
                let before = failed(s);
                let shift = |s2: u128| {
                    if before == 0 {
                        s2
                    } else {
                        with_failed(s2, failed(s2) + before)
                    }
                };
                if face == sides {
                    for (&s2, &x) in &chain[r as usize] {
                        next.add((shift(s2), 0, e), q * x);
                    }
                    continue;
                }
                let counts = binomials
                    .entry(r)
                    .or_insert_with(|| binomial_pmf(r, p_face));
                for (c, &b) in counts.iter().enumerate() {
                    if spend(chain[c].len()) {
                        // The budget is spent: end with its reason.
                        verdict()?;
                    }
                    if b > 0.0 {
                        for (&s2, &x) in &chain[c] {
                            next.add((shift(s2), r - c as u32, e), q * b * x);
                        }
                    }
                }
            }
            cur = next;
        }
        let mut out: HashMap<(u128, u32), f64, Fast> = HashMap::default();
        for (&(s, _, e), &q) in cur.iter() {
            *out.entry((s, e)).or_insert(0.0) += q;
        }
        Ok(out)
    }

    /// One token saved against the current group: each face of the die in
    /// turn, equally likely. Empty once the evaluation must stop.
    pub(super) fn saved_once(
        &self,
        dist: &Dist,
        order: &[usize],
        last: usize,
        pool: &RunPool,
        damage: &[f64],
    ) -> Dist {
        let sides = pool.save.die;
        // Each state branches over every face and then over the damage roll
        // (and Feel No Pain) in `unsaved`.
        let branches = dist.len() * damage.len().max(1) * sides as usize;
        if spend(branches.saturating_mul(SAVE_BRANCH_STEPS as usize)) {
            return Dist::default();
        }
        let mut out = Dist::default();
        let p_face = 1.0 / f64::from(sides);
        for face in 1..=sides {
            for (s, q) in self.one_save(dist, face, order, last, pool, damage) {
                add(&mut out, s, q * p_face);
            }
        }
        out
    }

    /// One save roll showing `face` against the current group.
    fn one_save(
        &self,
        dist: &Dist,
        face: u32,
        order: &[usize],
        last: usize,
        pool: &RunPool,
        damage: &[f64],
    ) -> Dist {
        let mut out = Dist::default();
        for (&s, &q) in dist {
            let current = Unit::current(s, order);
            let g = current.unwrap_or(last);
            if pool.save.saves(g, &self.unit.groups[g], face) {
                add(&mut out, s, q);
                continue;
            }
            // The special save, if any, after the failed roll.
            let special = pool.save.second_chance(g, &self.unit.groups[g], face);
            if special > 0.0 {
                add(&mut out, s, q * special);
            }
            let q = q * (1.0 - special);
            let counted = with_failed(s, failed(s) + 1);
            if current.is_none() {
                add(&mut out, counted, q);
                continue;
            }
            for (s2, x) in self.unsaved(&Dist::from_iter([(counted, q)]), order, pool, damage) {
                add(&mut out, s2, x);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_distribution_is_spread_so_no_one_map_grows_with_all_of_it() {
        let mut shards = Shards::default();
        let n = 8 * SPREAD_AT;
        for i in 0..n {
            // Keys as the evaluation makes them: packed states, dice left, events.
            let key = (
                u128::from(i as u32) << 20 | 7,
                (i % 13) as u32,
                (i % 3) as u32,
            );
            shards.add(key, 0.5);
            shards.add(key, 0.25);
        }
        assert_eq!(shards.0.len(), SHARDS);
        assert_eq!(shards.iter().count(), n);
        assert!(shards.iter().all(|(_, &p)| (p - 0.75).abs() < 1e-15));
        let largest = shards.0.iter().map(HashMap::len).max().unwrap();
        assert!(largest < 2 * n / SHARDS, "one map holds {largest} of {n}");
    }

    #[test]
    fn a_small_distribution_keeps_one_map() {
        let mut shards = Shards::default();
        for i in 0..1000u32 {
            shards.add((u128::from(i), 0, 0), 1.0);
        }
        assert_eq!(shards.0.len(), 1);
    }
}
