//! Held mortal wounds that spill, resolved in bulk.
//!
//! Spilling mortal wounds land one at a time, each on the model allocation
//! picks then, so where they land depends only on how many have landed, not
//! on which held harm each came from. The state after `n` held harms is
//! therefore the state after `T` wounds, `T` the sum of `n` draws of one
//! harm's amount: one chain of states per distinct starting state (the
//! states after 0, 1, 2, ... wounds), shared by every number of harms held
//! there, and one pmf of `T` per number of harms, shared by every state.
//! Harm by harm, state by state, the same work is a map per harm per state.

use super::budget::{hold, spend, verdict, STATE_BYTES};
use super::evaluator::{spill_one, Evaluator, Landing};
use super::pmf::{one_point, powers};
use super::state::{
    add, held, held_focus, marker, mortals, with_held, with_held_focus, with_marker, with_mortals,
    Dist, Fast, Lists, Unit,
};
use crate::error::CoreError;
use crate::plan::Group;
use crate::program::{Inflict, InflictKind, RunPool};
use std::collections::HashMap;

/// The states after 0, 1, 2, ... wounds spilled from one starting state,
/// a list a step, until the unit is destroyed and every later step would
/// repeat the last (`settled`); and for each step the mean wounds lost and
/// mortal wounds carried over its states (filled in as the credit needs
/// them).
pub(super) struct Chain {
    lists: Lists,
    settled: bool,
    means: Vec<[f64; 2]>,
}

impl Chain {
    fn new(s: u128) -> Self {
        Chain {
            lists: Lists::new(s),
            settled: false,
            means: Vec::new(),
        }
    }

    /// The states after `t` wounds.
    fn step(&self, t: usize) -> &[(u128, f64)] {
        self.lists.get(t.min(self.lists.count() - 1))
    }

    /// Spill wounds one at a time until the chain reaches `len` steps (or
    /// settles); the bytes the new steps hold.
    fn extend(
        &mut self,
        unit: &Unit<'_>,
        len: usize,
        landing: Landing<'_>,
    ) -> Result<u64, CoreError> {
        let mut bytes = 0;
        let mut next = Vec::new();
        while !self.settled && self.lists.count() < len {
            let last = self.lists.last();
            if spend(last.len()) {
                verdict()?;
            }
            next.clear();
            spill_one(unit, last, landing, &mut next);
            if next == last {
                self.settled = true;
                break;
            }
            bytes += next.len() as u64 * STATE_BYTES;
            self.lists.push(next.iter().copied());
        }
        Ok(bytes)
    }
}

/// A chain's key: the state it starts from and the focus group the wounds
/// go to first.
type Key = (u128, Option<usize>);

/// Chains of spilled states, by their keys. Where a chain reaches a state
/// surely (a step of one state, of chance 1), whatever follows depends on
/// that state alone: a chain later asked for from it starts as a copy of
/// the rest of the first, not spilled again. Without Feel No Pain, chains
/// from the states a unit passes through on its way down are all of this
/// kind.
#[derive(Default)]
pub(super) struct Chains {
    chains: HashMap<Key, Chain, Fast>,
    /// For a state some chain reaches surely, that chain and the step.
    sure: HashMap<Key, (Key, usize), Fast>,
}

impl Chains {
    /// Room for the chains of `states` more starting states, and as many
    /// states reached surely (growing a map as chains come rehashes it
    /// again and again).
    pub(super) fn reserve(&mut self, states: usize) {
        self.chains.reserve(states);
        self.sure.reserve(states);
    }

    /// The chain that wounds spilled from `key` follow, and the step they
    /// start at: its own chain (a new one if need be), or the chain that
    /// reaches its state surely, from that step on.
    fn base(&mut self, key: Key) -> (Key, usize) {
        if self.chains.contains_key(&key) {
            return (key, 0);
        }
        if let Some(&at) = self.sure.get(&key) {
            return at;
        }
        self.chains.insert(key, Chain::new(key.0));
        (key, 0)
    }
}

/// The chances of the steps of chains, added up as held harm lands from
/// state after state ([`Evaluator::land_along`]) and given to the states
/// once, at the end ([`Landed::into_states`]): states whose wounds follow one
/// chain then add its states once rather than once each.
#[derive(Default)]
pub(super) struct Landed {
    index: HashMap<Key, usize, Fast>,
    steps: Vec<(Key, Vec<f64>)>,
}

impl Landed {
    /// The states of every step of every chain, with their chances, added
    /// to `next`.
    pub(super) fn into_states(self, chains: &Chains, next: &mut Dist) -> Result<(), CoreError> {
        for (key, weights) in self.steps {
            let lists = &chains.chains[&key].lists;
            let states = (0..weights.len())
                .filter(|&i| weights[i] != 0.0)
                .map(|i| lists.get(i).len());
            if spend(states.sum()) {
                verdict()?;
            }
            for (i, &w) in weights.iter().enumerate() {
                if w != 0.0 {
                    for &(s, x) in lists.get(i) {
                        add(next, s, w * x);
                    }
                }
            }
        }
        Ok(())
    }
}

/// State `s` with `t` more mortal wounds counted in it, when they are
/// counted there (`count`).
fn shifted(s: u128, t: usize, count: bool) -> u128 {
    if count {
        with_mortals(s, mortals(s) + t as u32)
    } else {
        s
    }
}

/// Chance `p` of a state after the wounds of `total` (numbers of wounds with
/// their chances) spilled along `chain` from it, added to `next`.
fn land(
    chain: &Chain,
    total: &[(usize, f64)],
    p: f64,
    count: bool,
    next: &mut Dist,
) -> Result<(), CoreError> {
    if spend(total.iter().map(|&(t, _)| chain.step(t).len()).sum()) {
        verdict()?;
    }
    for &(t, q) in total {
        for &(s, x) in chain.step(t) {
            add(next, shifted(s, t, count), p * q * x);
        }
    }
    Ok(())
}

/// How held spilling mortal wounds land on the target.
#[derive(Clone, Copy)]
pub(super) struct Spilled<'a> {
    /// One held harm's mortal wounds, as a pmf.
    pub(super) amount: &'a [f64],
    /// Whether the harm goes to its pool's focus group first.
    pub(super) to_focus: bool,
    /// The Feel No Pain the pool's targets roll against mortal wounds.
    pub(super) fnp: &'a [Option<u32>],
    /// Whether the wounds are added to the mortal-wound count in the state.
    pub(super) count: bool,
}

impl Evaluator<'_> {
    /// State `s0` with what it notes about held harm cleared: how many are
    /// held, their focus group and how many each holder had held.
    pub(super) fn held_cleared(&self, s0: u128) -> u128 {
        let mut s = with_held_focus(with_held(s0, 0), None);
        for &(_, at) in &self.holders {
            if let Some(at) = at {
                s = with_marker(s, at, 0);
            }
        }
        s
    }

    /// How held harm `what` of `pool` (one harm's mortal wounds `amount`)
    /// lands in bulk, if it can: spilling mortal wounds whose number the
    /// model they land on does not change (not reduced, or no group with
    /// damage modifiers to reduce them).
    pub(super) fn spilled<'a>(
        &self,
        what: Inflict,
        pool: &'a RunPool,
        amount: &'a [f64],
    ) -> Option<Spilled<'a>> {
        let InflictKind::Mortal {
            spill: true,
            focus: to_focus,
            reduced,
            ..
        } = what.kind
        else {
            return None;
        };
        if reduced && self.unit.groups.iter().any(Group::modifies_damage) {
            return None;
        }
        Some(Spilled {
            amount,
            to_focus,
            fnp: &pool.feel_no_pain,
            count: self.carry_mortal.is_some() && self.carry_mortal == pool.mortal_counter,
        })
    }

    /// The wounds `n` held harms inflict, for every `n` up to `most`: the
    /// numbers of wounds they can inflict, with their chances.
    pub(super) fn totals(amount: &[f64], most: usize) -> Vec<Vec<(usize, f64)>> {
        if let Some((v, p)) = one_point(amount) {
            let mut chance = 1.0;
            return (0..=most)
                .map(|n| {
                    let at = (n * v, chance);
                    chance *= p;
                    if at.1 > 0.0 {
                        vec![at]
                    } else {
                        Vec::new()
                    }
                })
                .collect();
        }
        powers(amount, most)
            .into_iter()
            .map(|pmf| pmf.into_iter().enumerate().filter(|e| e.1 > 0.0).collect())
            .collect()
    }

    /// The chain of states spilled from `s` onto `focus` first, kept in
    /// `chains`, extended to `len` steps (or until it settles); the bytes it
    /// holds are added to `held_bytes`.
    fn spill_chain<'c>(
        &self,
        chains: &'c mut Chains,
        (s, focus): (u128, Option<usize>),
        len: usize,
        how: &Spilled<'_>,
        held_bytes: &mut u64,
    ) -> Result<&'c mut Chain, CoreError> {
        let key = (s, focus);
        if !chains.chains.contains_key(&key) {
            let chain = match chains.sure.get(&key) {
                Some(&(from, t)) => {
                    let from = &chains.chains[&from];
                    let rest = from.lists.after(t);
                    *held_bytes += rest.len() as u64 * STATE_BYTES;
                    Chain {
                        lists: rest,
                        settled: from.settled,
                        means: Vec::new(),
                    }
                }
                None => Chain::new(s),
            };
            chains.chains.insert(key, chain);
        }
        self.grow(chains, key, len, how, held_bytes)
    }

    /// Chain `key` of `chains` extended to `len` steps (or until it
    /// settles), each state it reaches surely noted; the bytes its new steps
    /// hold are added to `held_bytes`.
    fn grow<'c>(
        &self,
        chains: &'c mut Chains,
        key: Key,
        len: usize,
        how: &Spilled<'_>,
        held_bytes: &mut u64,
    ) -> Result<&'c mut Chain, CoreError> {
        let Chains { chains, sure } = chains;
        let chain = chains.get_mut(&key).expect("a chain made before it grows");
        let landing = Landing {
            spill: true,
            focus: key.1,
            fnp: Some(how.fnp),
        };
        let before = chain.lists.count();
        *held_bytes += chain.extend(&self.unit, len, landing)?;
        if hold(*held_bytes) {
            verdict()?;
        }
        for t in before..chain.lists.count() {
            if let [(s, p)] = chain.lists.get(t) {
                // Exactly 1: the lists that follow are then the chain of `s`
                // itself, to the bit.
                #[allow(clippy::float_cmp)]
                if *p == 1.0 {
                    sure.entry((*s, key.1)).or_insert((key, t));
                }
            }
        }
        Ok(chain)
    }

    /// Held harm landing on state `s` (its wounds spilled onto `focus`
    /// first), `landings` its numbers of wounds with their chances, each
    /// with a chance of its own: the chances of the steps they reach are
    /// added to `landed`, on the chain the wounds follow (a state some chain
    /// reaches surely lands on that chain). For harm whose wounds are not
    /// counted in the state.
    pub(super) fn land_along<'t>(
        &self,
        (chains, landed): (&mut Chains, &mut Landed),
        (s, focus): (u128, Option<usize>),
        len: usize,
        landings: impl Iterator<Item = (&'t [(usize, f64)], f64)>,
        how: &Spilled<'_>,
        held_bytes: &mut u64,
    ) -> Result<(), CoreError> {
        let (base, offset) = chains.base((s, focus));
        let steps = self
            .grow(chains, base, offset + len, how, held_bytes)?
            .lists
            .count();
        let at = *landed.index.entry(base).or_insert_with(|| {
            landed.steps.push((base, Vec::new()));
            landed.steps.len() - 1
        });
        let weights = &mut landed.steps[at].1;
        if weights.len() < steps {
            weights.resize(steps, 0.0);
        }
        for (total, p) in landings {
            for &(t, q) in total {
                weights[(offset + t).min(steps - 1)] += p * q;
            }
        }
        Ok(())
    }

    /// Every state's held harms as spilling mortal wounds (see
    /// [`Self::spilled`]): in bulk (see the module's documentation),
    /// crediting each holder as `resolve_held` does.
    pub(super) fn spill_held(&mut self, how: Spilled<'_>) -> Result<(), CoreError> {
        let most = self.states.keys().map(|&s| held(s)).max().unwrap_or(0);
        let totals = Self::totals(how.amount, most as usize);
        verdict()?;
        let credited = self.credit_means && self.holders.iter().any(|h| h.0.is_some());
        let carried = self.carry_mortal.is_some();
        let mut credit = vec![[0.0; 2]; self.credit.len()];
        let mut chains = Chains::default();
        let mut held_bytes = 0u64;
        let mut next = Dist::with_capacity_and_hasher(self.states.len(), Fast::default());
        for (&s0, &p0) in &self.states {
            let n = held(s0) as usize;
            let focus = held_focus(s0).filter(|_| how.to_focus);
            let total = &totals[n];
            let most_wounds = total.last().map_or(0, |e| e.0);
            let key = (self.held_cleared(s0), focus);
            let chain =
                self.spill_chain(&mut chains, key, most_wounds + 1, &how, &mut held_bytes)?;
            land(chain, total, p0, how.count, &mut next)?;
            if !credited || n == 0 {
                continue;
            }
            let shifted = |s: u128, t: usize| shifted(s, t, how.count);
            while chain.means.len() <= most_wounds {
                // As `expected` weighs a distribution's states.
                let t = chain.means.len();
                let mut mean = [0.0; 2];
                for &(s, x) in chain.step(t) {
                    mean[0] += x * f64::from(self.unit.damage(s));
                    if carried {
                        mean[1] += x * f64::from(mortals(shifted(s, t)));
                    }
                }
                chain.means.push(mean);
            }
            // The mean harm after the first k held harms landed.
            let mean_after = |k: usize| {
                let mut m = [0.0; 2];
                for &(t, q) in &totals[k] {
                    m[0] += p0 * q * chain.means[t][0];
                    m[1] += p0 * q * chain.means[t][1];
                }
                m
            };
            // Harm i goes to the first holder that had held more than i by
            // its end (the last holder has the rest): holder j has the harms
            // from the most any holder before it had held to its own end.
            let mut from = 0;
            for (j, &(slot, at)) in self.holders.iter().enumerate() {
                let end = match at {
                    Some(at) if j + 1 < self.holders.len() => (marker(s0, at) as usize).min(n),
                    _ => n,
                };
                if end <= from {
                    continue;
                }
                if let Some(slot) = slot {
                    let (a, b) = (mean_after(from), mean_after(end));
                    credit[slot][0] += b[0] - a[0];
                    credit[slot][1] += b[1] - a[1];
                }
                from = end;
            }
        }
        for (c, add) in self.credit.iter_mut().zip(credit) {
            c.means[0] += add[0];
            c.means[1] += add[1];
        }
        self.states = next;
        self.check_size()
    }
}
