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
        let mut cur = start;
        for face in 1..=sides {
            let p_face = 1.0 / f64::from(sides - face + 1);
            // The states after c rolls of this face, from each state, built
            // once per state (failed saves so far aside: they only shift the
            // count) however many entries start from it.
            let mut most: HashMap<u128, u32, Fast> = HashMap::default();
            for &(s, r, _) in cur.keys() {
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
            let mut next: HashMap<(u128, u32, u32), f64, Fast> = HashMap::default();
            for (&(s, r, e), &q) in &cur {
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
                        *next.entry((shift(s2), 0, e)).or_insert(0.0) += q * x;
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
                            *next.entry((shift(s2), r - c as u32, e)).or_insert(0.0) += q * b * x;
                        }
                    }
                }
            }
            cur = next;
        }
        let mut out: HashMap<(u128, u32), f64, Fast> = HashMap::default();
        for ((s, _, e), q) in cur {
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
