//! The target's state as the exact evaluator carries it: packed into one
//! `u128` per state, with its probability in a hash map.

use super::MAX_GROUPS;
use crate::allocation::{self, Allocation, Models};
use crate::plan::{Excess, Group, Target};
use crate::tables::binomial_pmf;
use std::collections::HashMap;

/// A distribution over packed states.
pub(super) type Dist = HashMap<u128, f64, Fast>;

/// A fast hash for the evaluator's integer keys (the standard `SipHash`
/// guards against adversarial keys, which these are not, at several times
/// the cost): multiply-rotate over each word, as rustc's `FxHash` does.
#[derive(Default, Clone, Copy)]
pub(super) struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        // The multiply leaves the low bits, which pick the bucket, depending
        // only on the low bits of the words: fold the high bits down (the
        // finaliser of MurmurHash3), or states differing only in their high
        // fields all land in a few buckets.
        let x = (self.0 ^ (self.0 >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^ (x >> 33)
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, word: u32) {
        self.write_u64(u64::from(word));
    }
    fn write_u128(&mut self, word: u128) {
        self.write_u64(word as u64);
        self.write_u64((word >> 64) as u64);
    }
}

pub(super) type Fast = std::hash::BuildHasherDefault<FastHasher>;

/// A packed state, as allocation reads it.
struct Packed(u128);

impl Models for Packed {
    #[inline]
    fn alive(&self, g: usize) -> u32 {
        alive(self.0, g)
    }
    #[inline]
    fn front(&self, g: usize) -> u32 {
        front(self.0, g)
    }
}

/// A side's models, read from packed states (see the packing below).
pub(super) struct Unit<'p> {
    allocation: Allocation<'p>,
    pub(super) groups: &'p [Group],
}

impl<'p> Unit<'p> {
    pub(super) fn new(t: &'p Target) -> Self {
        Unit {
            allocation: Allocation::new(t),
            groups: &t.groups,
        }
    }

    /// Every group as it starts the trial: every model alive and unwounded,
    /// but for the wounds it lost before (whole models first, the rest on
    /// its front model).
    pub(super) fn start(&self) -> u128 {
        let mut s = 0;
        for (g, grp) in self.groups.iter().enumerate() {
            let (alive, front) = grp.start();
            s = set(s, g, alive, front);
        }
        s
    }

    /// The allocation order a pool declares in state `s`, its first `focus`
    /// group alive first.
    pub(super) fn declare(&self, s: u128, focus: &[usize]) -> Vec<usize> {
        let mut order = Vec::new();
        let focus = focus.iter().copied().find(|&g| alive(s, g) > 0);
        self.allocation.declare(&Packed(s), focus, &mut order);
        order
    }

    /// The current group of `order` in state `s`.
    pub(super) fn current(s: u128, order: &[usize]) -> Option<usize> {
        allocation::current(&Packed(s), order)
    }

    /// The group a mortal wound goes to in state `s`.
    pub(super) fn pick_for_mortal(&self, s: u128, focus: Option<usize>) -> Option<usize> {
        self.allocation.pick_for_mortal(&Packed(s), focus)
    }

    /// `lost` wounds off the front model of `g` (at most what it has left).
    pub(super) fn lose(&self, s: u128, g: usize, lost: u32) -> u128 {
        let (a, f) = (alive(s, g), front(s, g));
        if lost >= f {
            set(s, g, a - 1, self.groups[g].wounds)
        } else {
            set(s, g, a, f - lost)
        }
    }

    /// `lost` wounds from the front model of `g` on: with `Excess::Lost` only
    /// that model; otherwise through the rest of the group and, with
    /// `Excess::Unit`, on through `order`.
    pub(super) fn take(
        &self,
        mut s: u128,
        mut g: usize,
        mut lost: u32,
        order: &[usize],
        excess: Excess,
    ) -> u128 {
        loop {
            let f = front(s, g);
            s = self.lose(s, g, lost.min(f));
            if lost <= f || excess == Excess::Lost {
                return s;
            }
            lost -= f;
            if alive(s, g) == 0 {
                match (excess, Unit::current(s, order)) {
                    (Excess::Unit, Some(next)) => g = next,
                    _ => return s,
                }
            }
        }
    }

    /// Distribution of wounds lost by a front model with `left` wounds taking
    /// `amount`, each ignored on a Feel No Pain of `fnp`+. Without Feel No
    /// Pain it is one outcome, given without allocating: this runs for every
    /// state and damage roll.
    pub(super) fn lost(
        amount: u32,
        left: u32,
        fnp: Option<u32>,
    ) -> impl Iterator<Item = (u32, f64)> {
        let all = fnp.map(|f| Self::lost_to_fnp(amount, left, f));
        let one = fnp.is_none().then_some((amount.min(left), 1.0));
        one.into_iter().chain(all.into_iter().flatten())
    }

    /// [`Self::lost`] with a Feel No Pain of `f`+: a binomial count of the
    /// wounds taken, at most `left` of them.
    fn lost_to_fnp(amount: u32, left: u32, f: u32) -> Vec<(u32, f64)> {
        let taken = f64::from(f.saturating_sub(1).min(6)) / 6.0;
        let mut out: Vec<(u32, f64)> = Vec::new();
        for (k, p) in binomial_pmf(amount, taken).into_iter().enumerate() {
            let l = (k as u32).min(left);
            match out.iter_mut().find(|e| e.0 == l) {
                Some(e) => e.1 += p,
                None => out.push((l, p)),
            }
        }
        out
    }

    /// The wounds lost in state `s` since the trial started (a group below
    /// full counts from where it started).
    pub(super) fn damage(&self, s: u128) -> u32 {
        self.groups
            .iter()
            .enumerate()
            .map(|(g, grp)| {
                let lost_models = grp.models - alive(s, g);
                let partial = if alive(s, g) > 0 {
                    grp.wounds - front(s, g)
                } else {
                    0
                };
                lost_models * grp.wounds + partial - grp.wounds_lost
            })
            .sum()
    }

    /// The models of group `g` destroyed in state `s` since the trial started.
    pub(super) fn destroyed_in(&self, s: u128, g: usize) -> u32 {
        self.groups[g].start().0 - alive(s, g)
    }

    /// The models destroyed in state `s` since the trial started.
    pub(super) fn destroyed(&self, s: u128) -> u32 {
        (0..self.groups.len())
            .map(|g| self.destroyed_in(s, g))
            .sum()
    }
}

// A state packs, from the low bits: per group (27 bits each, three groups at
// most) the models alive (12 bits) and the wounds on the front model (15);
// then, at bit 81, whether the pool being resolved still has its one damage
// re-roll (a pool that has one sets it at its start and clears it at its
// end); then harm held until every attack is resolved (12 bits), the focus group
// of that held harm (2), failed saves so far (15) and mortal wounds so far
// (15), the last two only when they depend on the state.
pub(super) const ALIVE_BITS: u32 = 12;
pub(super) const FRONT_BITS: u32 = 15;
const GROUP_BITS: u32 = ALIVE_BITS + FRONT_BITS;
const ONE_LEFT_AT: u32 = GROUP_BITS * MAX_GROUPS as u32;
const HELD_AT: u32 = 84;
const _: () = assert!(ONE_LEFT_AT < HELD_AT);
pub(super) const HELD_BITS: u32 = 12;
const FOCUS_AT: u32 = 96;
const FAILED_AT: u32 = 98;
const COUNT_BITS: u32 = 15;
const MORTAL_AT: u32 = 113;
/// The fields free to note how much harm was held by the end of a pool
/// (held harm is credited to the pools that held it, in the order they
/// held it): two in the place of each group the target does not have, and
/// those of failed saves and mortal wounds, when not carried.
pub(super) fn marker_fields(groups: usize, carry_failed: bool, carry_mortal: bool) -> Vec<u32> {
    let mut at = Vec::new();
    for g in groups..MAX_GROUPS {
        let base = GROUP_BITS * g as u32;
        at.extend([base, base + HELD_BITS]);
    }
    if !carry_failed {
        at.push(FAILED_AT);
    }
    if !carry_mortal {
        at.push(MORTAL_AT);
    }
    at
}

pub(super) fn marker(s: u128, at: u32) -> u32 {
    field(s, at, HELD_BITS)
}

pub(super) fn with_marker(s: u128, at: u32, n: u32) -> u128 {
    put(s, at, HELD_BITS, n)
}

/// The most failed saves or mortal wounds a state can carry.
pub(super) const MAX_CARRIED: u32 = (1 << COUNT_BITS) - 1;

fn field(s: u128, at: u32, bits: u32) -> u32 {
    ((s >> at) & ((1u128 << bits) - 1)) as u32
}

fn put(s: u128, at: u32, bits: u32, v: u32) -> u128 {
    (s & !(((1u128 << bits) - 1) << at)) | (u128::from(v) << at)
}

pub(super) fn alive(s: u128, g: usize) -> u32 {
    field(s, GROUP_BITS * g as u32, ALIVE_BITS)
}

pub(super) fn front(s: u128, g: usize) -> u32 {
    field(s, GROUP_BITS * g as u32 + ALIVE_BITS, FRONT_BITS)
}

pub(super) fn set(s: u128, g: usize, alive: u32, front: u32) -> u128 {
    put(
        s,
        GROUP_BITS * g as u32,
        GROUP_BITS,
        alive | (front << ALIVE_BITS),
    )
}

/// Lists of states one after another in one vector, list `t` ending at
/// `ends[t]`: the states after 0, 1, 2, ... failed saves or wounds from one
/// starting state, kept without a map or a vector a list.
pub(super) struct Lists {
    flat: Vec<(u128, f64)>,
    ends: Vec<usize>,
}

impl Lists {
    /// One list: state `s`, surely.
    pub(super) fn new(s: u128) -> Self {
        Lists {
            flat: vec![(s, 1.0)],
            ends: vec![1],
        }
    }

    /// How many lists there are (never none).
    pub(super) fn count(&self) -> usize {
        self.ends.len()
    }

    /// List `t`.
    pub(super) fn get(&self, t: usize) -> &[(u128, f64)] {
        let from = if t == 0 { 0 } else { self.ends[t - 1] };
        &self.flat[from..self.ends[t]]
    }

    /// The last list.
    pub(super) fn last(&self) -> &[(u128, f64)] {
        self.get(self.count() - 1)
    }

    /// The lists from list `t` on, as lists of their own.
    pub(super) fn after(&self, t: usize) -> Lists {
        let from = if t == 0 { 0 } else { self.ends[t - 1] };
        Lists {
            flat: self.flat[from..].to_vec(),
            ends: self.ends[t..].iter().map(|&end| end - from).collect(),
        }
    }

    /// How many states the lists hold in all.
    pub(super) fn len(&self) -> usize {
        self.flat.len()
    }

    /// A list after the last.
    pub(super) fn push(&mut self, states: impl IntoIterator<Item = (u128, f64)>) {
        self.flat.extend(states);
        self.ends.push(self.flat.len());
    }
}

pub(super) fn add(into: &mut Dist, s: u128, p: f64) {
    if p > 0.0 {
        *into.entry(s).or_insert(0.0) += p;
    }
}

/// Does the pool being resolved still have its one damage re-roll?
pub(super) fn one_left(s: u128) -> bool {
    field(s, ONE_LEFT_AT, 1) == 1
}

pub(super) fn with_one_left(s: u128, left: bool) -> u128 {
    put(s, ONE_LEFT_AT, 1, u32::from(left))
}

pub(super) fn held(s: u128) -> u32 {
    field(s, HELD_AT, HELD_BITS)
}

pub(super) fn with_held(s: u128, n: u32) -> u128 {
    put(s, HELD_AT, HELD_BITS, n)
}

/// The focus group the held harm's pool chose (0 for none, else its index plus one).
pub(super) fn held_focus(s: u128) -> Option<usize> {
    match field(s, FOCUS_AT, 2) as usize {
        0 => None,
        g => Some(g - 1),
    }
}

pub(super) fn with_held_focus(s: u128, focus: Option<usize>) -> u128 {
    put(s, FOCUS_AT, 2, focus.map_or(0, |g| g as u32 + 1))
}

pub(super) fn failed(s: u128) -> u32 {
    field(s, FAILED_AT, COUNT_BITS)
}

pub(super) fn with_failed(s: u128, n: u32) -> u128 {
    put(s, FAILED_AT, COUNT_BITS, n.min(MAX_CARRIED))
}

pub(super) fn mortals(s: u128) -> u32 {
    field(s, MORTAL_AT, COUNT_BITS)
}

pub(super) fn with_mortals(s: u128, n: u32) -> u128 {
    put(s, MORTAL_AT, COUNT_BITS, n.min(MAX_CARRIED))
}
