//! The exact evaluator: the same Plan, as probability distributions.
//!
//! Each attack pool's tests have an exact joint distribution (the fast
//! path's tables: [`crate::sampled::one_token`]); the target's state (per
//! group, models alive and wounds left on the front model) is then carried as
//! a distribution through saves, damage, Feel No Pain and mortal wounds, so
//! excess damage, spill-over, characters and mixed groups are exact. Stage
//! counters that do not depend on the target's state (attacks, each test's
//! count, failed saves when every group saves on the same faces, mortal
//! wounds) are convolved across sequences as marginals.
//!
//! What it cannot do exactly it declines by name, never approximating: see
//! [`CoreError::Declined`] reasons in [`evaluate`].

use crate::error::CoreError;
use crate::executor::{Inflict, InflictKind, Program, RunPool, RunSequence, RunTest};
use crate::plan::{Excess, Group, Side, Target};
use crate::sampled::{binomial_pmf, one_token, slot, Builder};
use std::collections::HashMap;

/// The most distinct target states the evaluator carries before declining.
const MAX_STATES: usize = 200_000;
/// The most groups a side may have (see the state's packing below).
const MAX_GROUPS: usize = 3;
/// Steps the lowest-first save resolution may take for one pool (about a
/// second) before the evaluator declines.
const MAX_SAVE_WORK: u64 = 10_000_000;
/// Table entries one pool may build.
const TABLE_BUDGET: usize = 1 << 21;

/// Exact distributions, one per number of [`Program::numbers`]: `pmfs[i][v]`
/// is the probability that number `i` is `v`.
#[derive(Debug, Clone)]
pub struct Exact {
    pub pmfs: Vec<Vec<f64>>,
}

type Dist = HashMap<u128, f64, Fast>;

/// Steps of state transitions one evaluation may take (about a second or
/// two) before it declines rather than keep the caller waiting: `auto`
/// evaluation tries the exact evaluator first.
const MAX_WORK: u64 = 10_000_000;

thread_local! {
    /// Work done by the evaluation running on this thread.
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Count `n` steps; true once the evaluation is over budget, when the
/// transitions stop producing states and the evaluation declines.
fn spend(n: usize) -> bool {
    WORK.with(|w| {
        let total = w.get().saturating_add(n as u64);
        w.set(total);
        total > MAX_WORK
    })
}

fn over_budget() -> Result<(), CoreError> {
    if WORK.with(std::cell::Cell::get) > MAX_WORK {
        Err(decline(
            "too many outcomes to evaluate exactly in reasonable time",
        ))
    } else {
        Ok(())
    }
}

/// A fast hash for the evaluator's integer keys (the standard `SipHash`
/// guards against adversarial keys, which these are not, at several times
/// the cost): multiply-rotate over each word, as rustc's `FxHash` does.
#[derive(Default, Clone, Copy)]
struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
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

type Fast = std::hash::BuildHasherDefault<FastHasher>;

fn decline(reason: impl Into<String>) -> CoreError {
    CoreError::Declined {
        reason: reason.into(),
    }
}

/// The target, read from packed states: 32 bits a group, the low 14 the
/// models alive, the high 18 the wounds left on the front model.
struct Unit<'p> {
    groups: &'p [Group],
    preference: Vec<usize>,
    wounded_first: bool,
}

impl<'p> Unit<'p> {
    fn new(t: &'p Target) -> Self {
        let mut preference = vec![0; t.groups.len()];
        for (pos, &g) in t.order.iter().enumerate() {
            preference[g] = pos;
        }
        Unit {
            groups: &t.groups,
            preference,
            wounded_first: t.wounded_groups_first,
        }
    }

    fn start(&self) -> u128 {
        let mut s = 0;
        for (g, grp) in self.groups.iter().enumerate() {
            s = set(s, g, grp.models, grp.wounds);
        }
        s
    }

    fn key(&self, s: u128, g: usize) -> (u32, bool, usize) {
        let wounded = front(s, g) < self.groups[g].wounds;
        (
            self.groups[g].tier,
            self.wounded_first && !wounded,
            self.preference[g],
        )
    }

    fn declare(&self, s: u128, focus: &[usize]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.groups.len()).collect();
        order.sort_by_key(|&g| self.key(s, g));
        if let Some(f) = focus.iter().copied().find(|&g| alive(s, g) > 0) {
            let at = order.iter().position(|&g| g == f).unwrap_or(0);
            order[..=at].rotate_right(1);
        }
        order
    }

    fn current(s: u128, order: &[usize]) -> Option<usize> {
        order.iter().copied().find(|&g| alive(s, g) > 0)
    }

    fn pick_for_mortal(&self, s: u128, focus: Option<usize>) -> Option<usize> {
        focus.filter(|&f| alive(s, f) > 0).or_else(|| {
            (0..self.groups.len())
                .filter(|&g| alive(s, g) > 0)
                .min_by_key(|&g| self.key(s, g))
        })
    }

    /// `lost` wounds off the front model of `g` (at most what it has left).
    fn lose(&self, s: u128, g: usize, lost: u32) -> u128 {
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
    fn take(
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
    /// `amount`, each ignored on a Feel No Pain of `fnp`+.
    fn lost(amount: u32, left: u32, fnp: Option<u32>) -> Vec<(u32, f64)> {
        match fnp {
            None => vec![(amount.min(left), 1.0)],
            Some(f) => {
                let taken = f64::from(f.saturating_sub(1).min(6)) / 6.0;
                let pmf = binomial_pmf(amount, taken);
                let mut out: Vec<(u32, f64)> = Vec::new();
                for (k, p) in pmf.into_iter().enumerate() {
                    let l = (k as u32).min(left);
                    match out.iter_mut().find(|e| e.0 == l) {
                        Some(e) => e.1 += p,
                        None => out.push((l, p)),
                    }
                }
                out
            }
        }
    }

    fn damage(&self, s: u128) -> u32 {
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
                lost_models * grp.wounds + partial
            })
            .sum()
    }

    fn destroyed(&self, s: u128) -> u32 {
        self.groups
            .iter()
            .enumerate()
            .map(|(g, grp)| grp.models - alive(s, g))
            .sum()
    }
}

// A state packs, from the low bits: per group (28 bits each, three groups at
// most) the models alive (12 bits) and the wounds on the front model (16);
// then harm held until every attack is resolved (12 bits), the focus group
// of that held harm (2), failed saves so far (15) and mortal wounds so far
// (15), the last two only when they depend on the state.
const ALIVE_BITS: u32 = 12;
const FRONT_BITS: u32 = 16;
const GROUP_BITS: u32 = ALIVE_BITS + FRONT_BITS;
const HELD_AT: u32 = 84;
const HELD_BITS: u32 = 12;
const FOCUS_AT: u32 = 96;
const FAILED_AT: u32 = 98;
const COUNT_BITS: u32 = 15;
const MORTAL_AT: u32 = 113;
/// The most failed saves or mortal wounds a state can carry.
const MAX_CARRIED: u32 = (1 << COUNT_BITS) - 1;

/// The damage distribution of harm outside the save: the pool's, or its
/// largest value (`maximize`), shifted by `bonus` (never below 0).
fn harm_damage(damage: &[f64], maximize: bool, bonus: i32) -> Vec<f64> {
    let mut out = Vec::new();
    let most = damage.iter().rposition(|&p| p > 0.0).unwrap_or(0);
    for (d, &p) in damage.iter().enumerate() {
        if p == 0.0 || (maximize && d != most) {
            continue;
        }
        let v = (d as i64 + i64::from(bonus)).max(0) as usize;
        if out.len() <= v {
            out.resize(v + 1, 0.0);
        }
        out[v] += if maximize { 1.0 } else { p };
    }
    out
}

fn field(s: u128, at: u32, bits: u32) -> u32 {
    ((s >> at) & ((1u128 << bits) - 1)) as u32
}

fn put(s: u128, at: u32, bits: u32, v: u32) -> u128 {
    (s & !(((1u128 << bits) - 1) << at)) | (u128::from(v) << at)
}

fn alive(s: u128, g: usize) -> u32 {
    field(s, GROUP_BITS * g as u32, ALIVE_BITS)
}

fn front(s: u128, g: usize) -> u32 {
    field(s, GROUP_BITS * g as u32 + ALIVE_BITS, FRONT_BITS)
}

fn set(s: u128, g: usize, alive: u32, front: u32) -> u128 {
    put(
        s,
        GROUP_BITS * g as u32,
        GROUP_BITS,
        alive | (front << ALIVE_BITS),
    )
}

fn add(into: &mut Dist, s: u128, p: f64) {
    if p > 0.0 {
        *into.entry(s).or_insert(0.0) += p;
    }
}

/// The discrete distribution of a sum of pmfs.
fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        for (j, &y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

/// The distribution of the sum of `n` draws from `pmf`, for every `n` up to `most`.
fn powers(pmf: &[f64], most: usize) -> Vec<Vec<f64>> {
    let mut out = vec![vec![1.0]];
    for _ in 0..most {
        let next = convolve(out.last().expect("starts with one"), pmf);
        out.push(next);
    }
    out
}

/// The distribution of the sum of a random number of draws from `one`, the
/// number following `counts` (`counts[n]` = P(n draws)).
fn compound(counts: &[f64], one: &[f64]) -> Vec<f64> {
    let per = powers(one, counts.len().saturating_sub(1));
    let mut total = vec![0.0];
    for (n, &p) in counts.iter().enumerate() {
        if total.len() < per[n].len() {
            total.resize(per[n].len(), 0.0);
        }
        for (i, x) in per[n].iter().enumerate() {
            total[i] += x * p;
        }
    }
    total
}

/// Attack dice a pool gathers, as a pmf.
fn attacks_pmf(pool: &RunPool) -> Vec<f64> {
    let mut total = vec![1.0];
    for term in &pool.attacks {
        let one: Vec<f64> = if term.maximize {
            let mut v = vec![0.0; term.per_model(term.dice.max()) as usize + 1];
            v[term.per_model(term.dice.max()) as usize] = 1.0;
            v
        } else {
            let mut v = vec![0.0; term.per_model(term.dice.max()) as usize + 1];
            for (rolled, p) in term.dice.distribution().into_iter().enumerate() {
                v[term.per_model(rolled as u32) as usize] += p;
            }
            v
        };
        for _ in 0..term.models {
            total = convolve(&total, &one);
        }
    }
    total
}

struct Evaluator<'p> {
    unit: Unit<'p>,
    states: Dist,
    /// Per counter, its marginal pmf so far.
    counters: Vec<Vec<f64>>,
    /// The one kind of harm held until every attack is resolved, and the pool
    /// whose damage it uses; how many are held is in each state's top bits.
    deferred: Option<(Inflict, RunPool)>,
    /// Whether failed saves are carried in the state (some pool's groups save
    /// on different faces, so its failures depend on which group is current).
    carry_failed: bool,
    /// The attacker's own models and their distribution of states, when the
    /// Plan lists them (only mortal-wound sources aimed at them change it).
    attacker: Option<(Unit<'p>, Dist)>,
    /// The mortal-wound counter carried in the state, when mortal wounds
    /// reduced by the model they hit make it depend on the state.
    carry_mortal: Option<usize>,
}

fn held(s: u128) -> u32 {
    field(s, HELD_AT, HELD_BITS)
}

fn with_held(s: u128, n: u32) -> u128 {
    put(s, HELD_AT, HELD_BITS, n)
}

/// The focus group the held harm's pool chose (0 for none, else its index plus one).
fn held_focus(s: u128) -> Option<usize> {
    match field(s, FOCUS_AT, 2) as usize {
        0 => None,
        g => Some(g - 1),
    }
}

fn with_held_focus(s: u128, focus: Option<usize>) -> u128 {
    put(s, FOCUS_AT, 2, focus.map_or(0, |g| g as u32 + 1))
}

fn failed(s: u128) -> u32 {
    field(s, FAILED_AT, COUNT_BITS)
}

fn with_failed(s: u128, n: u32) -> u128 {
    put(s, FAILED_AT, COUNT_BITS, n.min(MAX_CARRIED))
}

fn mortals(s: u128) -> u32 {
    field(s, MORTAL_AT, COUNT_BITS)
}

fn with_mortals(s: u128, n: u32) -> u128 {
    put(s, MORTAL_AT, COUNT_BITS, n.min(MAX_CARRIED))
}

impl Evaluator<'_> {
    fn count(&mut self, counter: Option<usize>, pmf: &[f64]) {
        if let Some(c) = counter {
            self.counters[c] = convolve(&self.counters[c], pmf);
        }
    }

    fn check_size(&self) -> Result<(), CoreError> {
        over_budget()?;
        if self.states.len() > MAX_STATES {
            return Err(decline(format!(
                "the target can be left in more than {MAX_STATES} distinct states"
            )));
        }
        Ok(())
    }

    /// One unsaved attack of the pool's damage on the current group of
    /// `order`; what the front model cannot take is lost or carries on, as
    /// the pool's `excess` says.
    fn unsaved(&self, dist: &Dist, order: &[usize], pool: &RunPool, damage: &[f64]) -> Dist {
        let mut out = Dist::default();
        if spend(dist.len() * damage.len()) {
            return out;
        }
        for (&s, &p) in dist {
            let Some(g) = Unit::current(s, order) else {
                add(&mut out, s, p);
                continue;
            };
            let grp = &self.unit.groups[g];
            for (d, &q) in damage.iter().enumerate() {
                if q == 0.0 {
                    continue;
                }
                let amount = pool.damage_to(grp, d as u32).1;
                let room = if pool.excess == Excess::Lost {
                    front(s, g)
                } else {
                    u32::MAX
                };
                for (lost, r) in Unit::lost(amount, room, grp.feel_no_pain) {
                    let next = if lost == 0 {
                        s
                    } else {
                        self.unit.take(s, g, lost, order, pool.excess)
                    };
                    add(&mut out, next, p * q * r);
                }
            }
        }
        out
    }

    /// One attack that takes the pool's own save `save` (if any) and, failing
    /// it, inflicts the pool's damage.
    fn own_save(
        &self,
        dist: &Dist,
        order: &[usize],
        pool: &RunPool,
        save: Option<usize>,
        damage: &[f64],
    ) -> Dist {
        let Some(own) = save.map(|i| &pool.own_saves[i]) else {
            return self.unsaved(dist, order, pool, damage);
        };
        let mut out = Dist::default();
        let mut failing = Dist::default();
        for (&s, &p) in dist {
            match Unit::current(s, order) {
                None => add(&mut out, s, p),
                Some(g) => {
                    let q = own.fail_chance(g, self.unit.groups);
                    add(&mut out, s, p * (1.0 - q));
                    add(&mut failing, s, p * q);
                }
            }
        }
        for (s, p) in self.unsaved(&failing, order, pool, damage) {
            add(&mut out, s, p);
        }
        out
    }

    /// `n` mortal wounds: one at a time, each picking its model, or all on the
    /// model the first one picks.
    fn mortal(
        unit: &Unit<'_>,
        dist: &Dist,
        n: u32,
        spill: bool,
        focus: Option<usize>,
        fnp: bool,
    ) -> Dist {
        if n == 0 {
            return dist.clone();
        }
        if spend(dist.len() * n as usize) {
            return Dist::default();
        }
        if !spill {
            let mut out = Dist::default();
            for (&s, &p) in dist {
                match unit.pick_for_mortal(s, focus) {
                    None => add(&mut out, s, p),
                    Some(g) => {
                        for (lost, r) in
                            Unit::lost(n, front(s, g), unit.groups[g].mortal_fnp().filter(|_| fnp))
                        {
                            let next = if lost == 0 { s } else { unit.lose(s, g, lost) };
                            add(&mut out, next, p * r);
                        }
                    }
                }
            }
            return out;
        }
        let mut cur = dist.clone();
        for _ in 0..n {
            let mut out = Dist::default();
            for (&s, &p) in &cur {
                match unit.pick_for_mortal(s, focus) {
                    None => add(&mut out, s, p),
                    Some(g) => {
                        for (lost, r) in
                            Unit::lost(1, front(s, g), unit.groups[g].mortal_fnp().filter(|_| fnp))
                        {
                            let next = if lost == 0 { s } else { unit.lose(s, g, lost) };
                            add(&mut out, next, p * r);
                        }
                    }
                }
            }
            cur = out;
        }
        cur
    }

    /// One mortal-wound event whose number follows `amount`: with `reduced`
    /// the model it starts on changes the number by its damage modifiers,
    /// and with `count` the number (after that) is added to the state's
    /// mortal-wound count, as the die-by-die executor counts it.
    #[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)] // mirrors the Plan's flags
    fn mortal_event(
        &self,
        dist: &Dist,
        amount: &[f64],
        spill: bool,
        focus: Option<usize>,
        reduced: bool,
        count: bool,
        fnp: bool,
    ) -> Dist {
        if !reduced && !count {
            return Self::mortal_dice(&self.unit, dist, amount, spill, focus, fnp);
        }
        let mut out = Dist::default();
        for (&s, &p) in dist {
            let first = self.unit.pick_for_mortal(s, focus);
            for (n, &q) in amount.iter().enumerate() {
                if q == 0.0 {
                    continue;
                }
                let n = match first {
                    Some(g) if reduced => self.unit.groups[g].modify_damage(n as u32),
                    _ => n as u32,
                };
                let s1 = if count {
                    with_mortals(s, mortals(s) + n)
                } else {
                    s
                };
                for (s2, x) in Self::mortal(
                    &self.unit,
                    &Dist::from_iter([(s1, 1.0)]),
                    n,
                    spill,
                    focus,
                    fnp,
                ) {
                    add(&mut out, s2, p * q * x);
                }
            }
        }
        out
    }

    /// Mortal wounds whose number follows `amount`.
    fn mortal_dice(
        unit: &Unit<'_>,
        dist: &Dist,
        amount: &[f64],
        spill: bool,
        focus: Option<usize>,
        fnp: bool,
    ) -> Dist {
        let mut out = Dist::default();
        for (n, &q) in amount.iter().enumerate() {
            if q > 0.0 {
                for (s, p) in Self::mortal(unit, dist, n as u32, spill, focus, fnp) {
                    add(&mut out, s, p * q);
                }
            }
        }
        out
    }

    /// Saves rolled together and resolved lowest first, from `start`: a
    /// distribution over (state, dice to save, harm events), the last only
    /// carried along. Face by face, of the dice not yet resolved each shows
    /// the face with probability 1/(faces left), so the number showing it is
    /// binomial; they are resolved one at a time against whichever group is
    /// current then, so which group a roll meets depends on the rolls before
    /// it. After the unit is destroyed rolls are checked against the last
    /// group (`last`) and still counted. Returns (state, harm events) ->
    /// probability.
    fn lowest_first(
        &self,
        start: HashMap<(u128, u32, u32), f64, Fast>,
        order: &[usize],
        last: usize,
        pool: &RunPool,
        damage: &[f64],
        work: &mut u64,
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
                    *work +=
                        (chain.last().map_or(0, HashMap::len) * damage.len().max(1) * 6) as u64;
                    chain.push(d);
                }
                if *work > MAX_SAVE_WORK {
                    return Err(decline(format!(
                        "pool {:?}: too many outcomes for saves resolved lowest first through groups that save \
                         differently",
                        pool.name
                    )));
                }
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
                    *work += chain[c].len() as u64;
                    if *work > MAX_SAVE_WORK {
                        return Err(decline(format!(
                            "pool {:?}: too many outcomes for saves resolved lowest first through groups that save \
                             differently",
                            pool.name
                        )));
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
            let special = pool.save.special_pass(g);
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

    fn pool(&mut self, pool: &RunPool) -> Result<(), CoreError> {
        if pool.batch_hook.is_some() {
            return Err(decline(format!(
                "pool {:?} calls a batch hook, which only Monte Carlo can run",
                pool.name
            )));
        }
        let mut builder = Builder::default();
        let (token, inflict) = one_token(pool, TABLE_BUDGET, &mut builder).ok_or_else(|| {
            decline(format!(
                "pool {:?} has too many outcomes to tabulate, mixes kinds of harm outside the save, or counts a status",
                pool.name
            ))
        })?;
        let groups = self.unit.groups;
        let carry_mortal = self.carry_mortal.is_some() && self.carry_mortal == pool.mortal_counter;
        if let Some(
            what @ Inflict {
                after_all: true, ..
            },
        ) = inflict
        {
            match &self.deferred {
                None => self.deferred = Some((what, pool.clone())),
                Some((other, p)) if *other == what && p.damage == pool.damage => {}
                Some(_) => {
                    return Err(decline(
                        "the plan holds more than one kind of harm until every attack is resolved",
                    ));
                }
            }
        }
        let same_faces = pool.save.alike(groups);
        let m = pool.tests.len();
        // The pool's stages are counted as separate marginals; two of them
        // sharing a counter would be correlated sums.
        let mut seen = Vec::new();
        let stages = pool.tests.iter().map(|t| t.counter).chain([
            pool.attacks_counter,
            pool.save.counter,
            pool.mortal_counter,
        ]);
        for c in stages.flatten() {
            if seen.contains(&c) {
                return Err(decline(format!(
                    "pool {:?} counts two of its stages in one counter",
                    pool.name
                )));
            }
            seen.push(c);
        }
        // Only each test's count (alone) and the joint of tokens to save and
        // harm events are needed, so one die's outcome is projected onto
        // those slots before the n-fold convolutions: projecting commutes
        // with adding up dice, and the tables stay small.
        let attacks = attacks_pmf(pool);
        self.count(pool.attacks_counter, &attacks);
        let mut mix = |keep: &[usize]| -> Result<HashMap<u64, f64, Fast>, CoreError> {
            let mask: u64 = keep
                .iter()
                .map(|&k| {
                    ((1u64 << crate::sampled::BITS) - 1) << (crate::sampled::BITS as usize * k)
                })
                .sum();
            let mut projected = crate::sampled::Dist::default();
            for (&k, &p) in &token {
                *projected.entry(k & mask).or_insert(0.0) += p;
            }
            let mut table = crate::sampled::point(&[]);
            let mut mixed: HashMap<u64, f64, Fast> = HashMap::default();
            for (n, &pn) in attacks.iter().enumerate() {
                if n > 0 {
                    table = builder.convolve(&table, &projected).ok_or_else(|| {
                        decline(format!(
                            "pool {:?} has too many outcomes to tabulate",
                            pool.name
                        ))
                    })?;
                }
                if pn > 0.0 {
                    for (&k, &p) in &table {
                        *mixed.entry(k).or_insert(0.0) += pn * p;
                    }
                }
            }
            Ok(mixed)
        };
        let mut test_pmfs = vec![Vec::<f64>::new(); m];
        for (t, pmf) in test_pmfs.iter_mut().enumerate() {
            if pool.tests[t].counter.is_none() {
                continue;
            }
            for (k, p) in mix(&[t])? {
                let v = slot(k, t) as usize;
                if pmf.len() <= v {
                    pmf.resize(v + 1, 0.0);
                }
                pmf[v] += p;
            }
        }
        let mut save_harm: HashMap<(u32, u32), f64, Fast> = HashMap::default();
        for (k, p) in mix(&[m, m + 1])? {
            *save_harm.entry((slot(k, m), slot(k, m + 1))).or_insert(0.0) += p;
        }
        for (t, pmf) in test_pmfs.iter().enumerate() {
            if !pmf.is_empty() {
                self.count(pool.tests[t].counter, pmf);
            }
        }
        // Harm events, whatever the state.
        let most_events = save_harm.keys().map(|k| k.1).max().unwrap_or(0) as usize;
        let mut events = vec![0.0; most_events + 1];
        for (&(_, e), &p) in &save_harm {
            events[e as usize] += p;
        }
        let damage = pool.damage.distribution();
        // Mortal wounds counted: each event's amount (unless they depend on
        // the state, and are carried in it).
        if let Some(Inflict {
            kind: InflictKind::Mortal { amount, .. },
            ..
        }) = inflict.filter(|_| !carry_mortal)
        {
            let total = compound(&events, &amount.unwrap_or(pool.damage).distribution());
            self.count(pool.mortal_counter, &total);
        }
        // Failed saves: with the same faces for every group they are binomial
        // in the tokens saved and do not depend on the state; otherwise (or
        // once any pool's do) they are carried in the state.
        let q = pool.save.fail_chance(0, groups);
        let mut failed_harm: HashMap<(u32, u32), f64, Fast> = HashMap::default();
        if same_faces {
            for (&(w, e), &p) in &save_harm {
                for (f, b) in binomial_pmf(w, q).into_iter().enumerate() {
                    *failed_harm.entry((f as u32, e)).or_insert(0.0) += p * b;
                }
            }
            if !self.carry_failed {
                // Tokens taking an own save counted with the pool's failed
                // saves (checked alike for every group): binomial too.
                let own = match inflict.map(|i| i.kind) {
                    Some(InflictKind::Damage { save: Some(i), .. })
                        if pool.own_saves[i].counter.is_some() =>
                    {
                        Some(pool.own_saves[i].fail_chance(0, groups))
                    }
                    _ => None,
                };
                let mut failed = Vec::new();
                for (&(f, e), &p) in &failed_harm {
                    // f failed saves, plus the own saves' binomial failures.
                    let mut total = vec![0.0; f as usize];
                    match own {
                        Some(q) => total.extend(binomial_pmf(e, q)),
                        None => total.push(1.0),
                    }
                    if failed.len() < total.len() {
                        failed.resize(total.len(), 0.0);
                    }
                    for (v, x) in total.into_iter().enumerate() {
                        failed[v] += p * x;
                    }
                }
                self.count(pool.save.counter, &failed);
            }
        }
        let most_failed = failed_harm.keys().map(|k| k.0).max().unwrap_or(0) as usize;
        // The target: for each state at the start of the pool, its declared
        // order, then the saves, then the harm events.
        let mut next = Dist::default();
        let mut save_work = 0u64;
        for (&s0, &p0) in &self.states {
            over_budget()?;
            if next.len() > MAX_STATES {
                return Err(decline(format!(
                    "the target can be left in more than {MAX_STATES} distinct states"
                )));
            }
            let order = self.unit.declare(s0, &pool.focus);
            let focus = pool.focus.iter().copied().find(|&g| alive(s0, g) > 0);
            // after_saves[e]: the states after the saves, weighted by P(e events).
            let mut after_saves: Vec<Dist> = vec![Dist::default(); most_events + 1];
            if same_faces {
                let mut after_f: Vec<Dist> = vec![Dist::from_iter([(s0, 1.0)])];
                for _ in 0..most_failed {
                    let d = self.unsaved(
                        after_f.last().expect("starts with one"),
                        &order,
                        pool,
                        &damage,
                    );
                    after_f.push(d);
                }
                for (&(f, e), &p) in &failed_harm {
                    for (&s, &q) in &after_f[f as usize] {
                        let s = if self.carry_failed {
                            with_failed(s, failed(s) + f)
                        } else {
                            s
                        };
                        add(&mut after_saves[e as usize], s, p * q);
                    }
                }
            } else {
                let last = order
                    .iter()
                    .rev()
                    .copied()
                    .find(|&g| alive(s0, g) > 0)
                    .unwrap_or(order[0]);
                let start: HashMap<(u128, u32, u32), f64, Fast> = save_harm
                    .iter()
                    .map(|(&(w, e), &p)| ((s0, w, e), p))
                    .collect();
                for ((s, e), q) in
                    self.lowest_first(start, &order, last, pool, &damage, &mut save_work)?
                {
                    add(&mut after_saves[e as usize], s, q);
                }
            }
            for (e, mut mixed) in after_saves.into_iter().enumerate() {
                if mixed.is_empty() {
                    continue;
                }
                if inflict.is_some_and(|i| i.after_all) {
                    for (s, p) in mixed {
                        if e > 0 && held(s) > 0 && held_focus(s) != focus {
                            return Err(decline(
                                "pools hold harm until every attack is resolved with different focus groups",
                            ));
                        }
                        let s = if e > 0 { with_held_focus(s, focus) } else { s };
                        add(&mut next, with_held(s, held(s) + e as u32), p * p0);
                    }
                    continue;
                }
                for _ in 0..e {
                    mixed = match inflict.map(|i| i.kind) {
                        Some(InflictKind::Mortal {
                            amount,
                            spill,
                            focus: to_focus,
                            reduced,
                            ..
                        }) => {
                            let amount = amount.unwrap_or(pool.damage).distribution();
                            self.mortal_event(
                                &mixed,
                                &amount,
                                spill,
                                focus.filter(|_| to_focus),
                                reduced,
                                carry_mortal,
                                true,
                            )
                        }
                        Some(InflictKind::Damage {
                            save,
                            maximize,
                            bonus,
                        }) => self.own_save(
                            &mixed,
                            &order,
                            pool,
                            save,
                            &harm_damage(&damage, maximize, bonus),
                        ),
                        None => mixed,
                    };
                }
                for (s, p) in mixed {
                    add(&mut next, s, p * p0);
                }
            }
        }
        self.states = next;
        self.check_size()
    }

    /// Harm held until every attack was resolved: through an order declared
    /// afresh, as the die-by-die executor does.
    fn resolve_held(&mut self) -> Result<(), CoreError> {
        let Some((what, pool)) = self.deferred.take() else {
            return Ok(());
        };
        let damage = pool.damage.distribution();
        let mut next = Dist::default();
        for (&s0, &p0) in &self.states {
            let n = held(s0);
            let focus = held_focus(s0);
            let mut d = Dist::from_iter([(with_held_focus(with_held(s0, 0), None), p0)]);
            for _ in 0..n {
                d = match what.kind {
                    InflictKind::Mortal {
                        amount,
                        spill,
                        focus: to_focus,
                        reduced,
                        ..
                    } => self.mortal_event(
                        &d,
                        &amount.unwrap_or(pool.damage).distribution(),
                        spill,
                        focus.filter(|_| to_focus),
                        reduced,
                        self.carry_mortal.is_some() && self.carry_mortal == pool.mortal_counter,
                        true,
                    ),
                    InflictKind::Damage {
                        save,
                        maximize,
                        bonus,
                    } => {
                        let damage = harm_damage(&damage, maximize, bonus);
                        // Each held attack meets the order declared afresh,
                        // its pool's focus group first while it stands.
                        let mut out = Dist::default();
                        for (&s, &q) in &d {
                            let order = self.unit.declare(s, focus.as_slice());
                            for (s2, x) in self.own_save(
                                &Dist::from_iter([(s, q)]),
                                &order,
                                &pool,
                                save,
                                &damage,
                            ) {
                                add(&mut out, s2, x);
                            }
                        }
                        out
                    }
                };
            }
            for (s, p) in d {
                add(&mut next, s, p);
            }
        }
        self.states = next;
        self.check_size()
    }

    fn mortal_source(&mut self, seq: &RunSequence) -> Result<(), CoreError> {
        let RunSequence::Mortal {
            amount,
            counter,
            rolls,
            against,
            spill,
            feel_no_pain,
            ..
        } = seq
        else {
            return Ok(());
        };
        let times: Vec<f64> = match rolls {
            None => vec![0.0, 1.0],
            Some(r) => {
                let fail = f64::from(r.fail_at_most.min(r.die)) / f64::from(r.die);
                binomial_pmf(r.count, fail)
            }
        };
        let one = amount.distribution();
        let total = compound(&times, &one);
        if self.carry_mortal.is_some() && self.carry_mortal == *counter {
            // The count is carried in the target's states: add it there
            // (jointly with the target's damage when it is the one hit).
            if *against == Side::Target {
                let mut next = Dist::default();
                for (t, &p) in times.iter().enumerate() {
                    if p == 0.0 {
                        continue;
                    }
                    let mut d: Dist = self.states.iter().map(|(&s, &q)| (s, q * p)).collect();
                    for _ in 0..t {
                        d = self.mortal_event(&d, &one, *spill, None, false, true, *feel_no_pain);
                    }
                    for (s, q) in d {
                        add(&mut next, s, q);
                    }
                }
                self.states = next;
                return self.check_size();
            }
            let mut next = Dist::default();
            for (&s, &p) in &self.states {
                for (v, &q) in total.iter().enumerate() {
                    add(&mut next, with_mortals(s, mortals(s) + v as u32), p * q);
                }
            }
            self.states = next;
        } else {
            self.count(*counter, &total);
        }
        // The attacker's models take nothing from the target's side, so
        // their state is a distribution of its own; without them the harm is
        // only counted.
        let (unit, states) = match against {
            Side::Target => (&self.unit, &mut self.states),
            Side::Attacker => match &mut self.attacker {
                Some((unit, states)) => (&*unit, states),
                None => return Ok(()),
            },
        };
        let mut next = Dist::default();
        for (t, &p) in times.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            let mut d: Dist = states.iter().map(|(&s, &q)| (s, q * p)).collect();
            for _ in 0..t {
                d = Self::mortal_dice(unit, &d, &one, *spill, None, *feel_no_pain);
            }
            for (s, q) in d {
                add(&mut next, s, q);
            }
        }
        *states = next;
        self.check_size()
    }
}

/// Evaluate `program` exactly.
///
/// # Errors
/// [`CoreError::Declined`] with the reason when the Plan needs something the
/// evaluator cannot do exactly: a batch hook, more than one kind of harm held
/// until every attack is resolved (or held by pools that chose different
/// focus groups), mortal wounds reduced by damage modifiers, pools counting
/// failed saves in different counters when they depend on the target, more
/// than three groups a side, or too many outcomes.
pub fn evaluate(program: &Program) -> Result<Exact, CoreError> {
    WORK.with(|w| w.set(0));
    let result = evaluate_within_budget(program);
    // Work past the budget empties the distributions; whatever went on, the
    // evaluation declines then rather than answer from them.
    over_budget()?;
    result
}

fn evaluate_within_budget(program: &Program) -> Result<Exact, CoreError> {
    let plan = &program.plan;
    if plan.rounds.is_some() {
        return Err(decline(
            "a fight of several rounds (each side's attacks depend on its survivors)",
        ));
    }
    if !plan.marks.is_empty() {
        return Err(decline("the plan sets marks that later rolls depend on"));
    }
    for seq in &program.sequences {
        if let RunSequence::Pool(pool) = seq {
            if pool.against == Side::Attacker || pool.attacks.iter().any(|a| a.alive_of.is_some()) {
                return Err(decline(format!(
                    "pool {:?} attacks the attacker, or attacks with the survivors of a side",
                    pool.name
                )));
            }
        }
    }
    if let Some(a) = &plan.attacker {
        if a.groups.len() > MAX_GROUPS
            || a.groups
                .iter()
                .any(|g| g.models >= 1 << ALIVE_BITS || g.wounds >= 1 << FRONT_BITS)
        {
            return Err(decline(
                "the attacker's own models are too many groups, or too large, to carry exactly",
            ));
        }
    }
    if plan.target.groups.len() > MAX_GROUPS {
        return Err(decline(format!(
            "the target has more than {MAX_GROUPS} allocation groups"
        )));
    }
    if plan
        .target
        .groups
        .iter()
        .any(|g| g.models >= 1 << ALIVE_BITS || g.wounds >= 1 << FRONT_BITS)
    {
        return Err(decline("a group is too large to carry exactly"));
    }
    let unit = Unit::new(&plan.target);
    let start = unit.start();
    // Failed saves depend on the state as soon as one pool's groups save on
    // different faces; they are then carried in the state for every pool,
    // which needs all pools to count them in one counter.
    let mut save_counters = Vec::new();
    let mut carry_failed = false;
    for seq in &program.sequences {
        if let RunSequence::Pool(pool) = seq {
            let groups = &plan.target.groups;
            if pool.top_threshold_counter.is_some() || pool.top_threshold.is_some() {
                return Err(decline(format!(
                    "pool {:?} counts attacks meeting the top damage threshold, which depends on the target",
                    pool.name
                )));
            }
            if pool.tests.iter().flat_map(RunTest::actions).any(|a| {
                matches!(
                    a,
                    crate::executor::RunAction::Inflict(Inflict {
                        kind: InflictKind::Mortal {
                            against: Side::Attacker,
                            ..
                        },
                        ..
                    })
                )
            }) {
                return Err(decline(format!(
                    "pool {:?} harms the attacking unit from its attacks' effects",
                    pool.name
                )));
            }
            carry_failed |= !pool.save.alike(groups);
            if !save_counters.contains(&pool.save.counter) {
                save_counters.push(pool.save.counter);
            }
            // Failures of a save tokens take apart count exactly when they
            // cannot depend on the target: every group saves alike against
            // it and the pool's own save, and both count in one counter.
            if pool.own_saves.iter().any(|o| {
                o.counter.is_some()
                    && (o.counter != pool.save.counter
                        || !o.alike(groups)
                        || !pool.save.alike(groups))
            }) {
                return Err(decline(format!(
                    "pool {:?} counts the failures of a save its tokens take apart, which depend on the target",
                    pool.name
                )));
            }
            // Excess carried through the unit can destroy a group that was
            // never current, so after a wipe-out the rolls still counted meet
            // a group this evaluator does not track.
            if pool.excess == Excess::Unit
                && pool.save.counter.is_some()
                && !pool.save.alike(groups)
            {
                return Err(decline(format!(
                    "pool {:?} carries excess damage through groups that save differently while counting failed saves",
                    pool.name
                )));
            }
            if pool.excess == Excess::Unit
                && groups
                    .iter()
                    .any(|g| g.feel_no_pain != groups[0].feel_no_pain)
            {
                return Err(decline(format!(
                    "pool {:?} carries excess damage across groups with different Feel No Pain",
                    pool.name
                )));
            }
        }
    }
    // Mortal wounds reduced by the model they hit depend on the state when a
    // group has damage modifiers; their counter is then carried in it.
    let modified = plan
        .target
        .groups
        .iter()
        .any(|g| g.damage_divisor > 1 || g.damage_reduction > 0);
    let mut carry_mortal = None;
    let mut tokens = 0u64;
    for seq in &program.sequences {
        if let RunSequence::Pool(pool) = seq {
            tokens += pool.max_tokens();
            let reduced = pool.tests.iter().flat_map(RunTest::actions).any(|a| {
                matches!(
                    a,
                    crate::executor::RunAction::Inflict(Inflict {
                        kind: InflictKind::Mortal { reduced: true, .. },
                        ..
                    })
                )
            });
            if reduced && modified {
                if carry_mortal.is_some_and(|c| c != pool.mortal_counter)
                    || pool.mortal_counter.is_none()
                {
                    return Err(decline(
                        "pools reducing mortal wounds count them in different counters",
                    ));
                }
                carry_mortal = Some(pool.mortal_counter);
            }
        }
    }
    let carry_mortal = carry_mortal.flatten();
    if carry_failed
        && carry_mortal.is_some()
        && save_counters.first().copied().flatten() == carry_mortal
    {
        return Err(decline(
            "failed saves and mortal wounds both depend on the target and share a counter",
        ));
    }
    if tokens > u64::from((1u32 << HELD_BITS) - 1)
        || (carry_failed && tokens > u64::from(MAX_CARRIED))
    {
        return Err(decline(
            "the pools can make more attack dice than the evaluator's state can count",
        ));
    }
    if let Some(c) = carry_mortal {
        let most: u64 = program
            .sequences
            .iter()
            .map(|seq| match seq {
                RunSequence::Pool(p) if p.mortal_counter == Some(c) => {
                    let amount = p
                        .tests
                        .iter()
                        .flat_map(RunTest::actions)
                        .filter_map(|a| match a {
                            crate::executor::RunAction::Inflict(Inflict {
                                kind: InflictKind::Mortal { amount, .. },
                                ..
                            }) => Some(u64::from(amount.unwrap_or(p.damage).max())),
                            _ => None,
                        })
                        .max()
                        .unwrap_or(0);
                    p.max_tokens() * amount
                }
                RunSequence::Mortal {
                    counter,
                    amount,
                    rolls,
                    ..
                } if *counter == Some(c) => {
                    u64::from(amount.max()) * rolls.map_or(1, |r| u64::from(r.count))
                }
                _ => 0,
            })
            .sum();
        if most > u64::from(MAX_CARRIED) {
            return Err(decline(
                "too many mortal wounds to count exactly while they depend on the target",
            ));
        }
    }
    let own_counted = program.sequences.iter().any(|seq| {
        matches!(seq, RunSequence::Pool(p) if p.own_saves.iter().any(|o| o.counter.is_some()))
    });
    if carry_failed && own_counted {
        return Err(decline(
            "failed saves depend on the target and a pool counts its tokens' own saves with them",
        ));
    }
    if carry_failed && save_counters.len() > 1 {
        return Err(decline(
            "pools count failed saves in different counters while their saves depend on the target",
        ));
    }
    let mut ev = Evaluator {
        unit,
        states: Dist::from_iter([(start, 1.0)]),
        counters: vec![vec![1.0]; plan.counters.len()],
        deferred: None,
        carry_failed,
        carry_mortal,
        attacker: plan.attacker.as_ref().map(|a| {
            let unit = Unit::new(a);
            let start = unit.start();
            (unit, Dist::from_iter([(start, 1.0)]))
        }),
    };
    for seq in &program.sequences {
        match seq {
            RunSequence::Pool(pool) => ev.pool(pool)?,
            RunSequence::Mortal { .. } => ev.mortal_source(seq)?,
            RunSequence::Heal { .. } => return Err(decline("the plan heals a side")),
            RunSequence::Mark { .. } => {
                return Err(decline("the plan sets marks that later rolls depend on"))
            }
        }
    }
    ev.resolve_held()?;
    let mut damage = Vec::new();
    let mut destroyed = Vec::new();
    let mut carried = Vec::new();
    let mut carried_mortal = Vec::new();
    for (&s, &p) in &ev.states {
        if ev.carry_mortal.is_some() {
            let m = mortals(s) as usize;
            if carried_mortal.len() <= m {
                carried_mortal.resize(m + 1, 0.0);
            }
            carried_mortal[m] += p;
        }
        if ev.carry_failed {
            let f = failed(s) as usize;
            if carried.len() <= f {
                carried.resize(f + 1, 0.0);
            }
            carried[f] += p;
        }
        for (pmf, v) in [
            (&mut damage, ev.unit.damage(s)),
            (&mut destroyed, ev.unit.destroyed(s)),
        ] {
            if pmf.len() <= v as usize {
                pmf.resize(v as usize + 1, 0.0);
            }
            pmf[v as usize] += p;
        }
    }
    if ev.carry_failed {
        if let Some(Some(c)) = save_counters.first() {
            ev.counters[*c] = convolve(&ev.counters[*c], &carried);
        }
    }
    if let Some(c) = ev.carry_mortal {
        ev.counters[c] = convolve(&ev.counters[c], &carried_mortal);
    }
    let mut pmfs = ev.counters;
    pmfs.push(damage);
    pmfs.push(destroyed);
    if let Some((unit, states)) = &ev.attacker {
        let (mut lost, mut slain) = (Vec::new(), Vec::new());
        for (&s, &p) in states {
            for (pmf, v) in [(&mut lost, unit.damage(s)), (&mut slain, unit.destroyed(s))] {
                if pmf.len() <= v as usize {
                    pmf.resize(v as usize + 1, 0.0);
                }
                pmf[v as usize] += p;
            }
        }
        pmfs.push(lost);
        pmfs.push(slain);
    }
    Ok(Exact { pmfs })
}
