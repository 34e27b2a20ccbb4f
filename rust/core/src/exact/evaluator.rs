//! The exact evaluator's running state: the target's states and their
//! probabilities, the counters' marginals, and the steps that move them.

use super::admit::Admission;
use super::budget::{decline, hold, spend, verdict, STATE_BYTES};
use super::pmf::{accumulate, compound, convolve, dice_pmf, harm_damage};
use super::state::{
    add, failed, front, held, held_focus, marker, mortals, one_left, with_marker, with_mortals,
    with_one_left, Dist, Fast, Unit,
};
use super::MAX_STATES;
use crate::dice::ModifiedDice;
use crate::error::CoreError;
use crate::plan::{mortal_fnp, Excess, Plan, Side};
use crate::program::{Inflict, InflictKind, RunPool, RunSequence};
use crate::tables::binomial_pmf;

/// Where mortal wounds land: each picking its model anew (`spill`) or all on
/// the first one's, a focus group first while it stands, and whether Feel No
/// Pain against mortal wounds applies.
#[derive(Debug, Clone, Copy)]
pub(super) struct Landing<'a> {
    pub(super) spill: bool,
    pub(super) focus: Option<usize>,
    /// None: no Feel No Pain; else each group's own, bettered by its entry.
    pub(super) fnp: Option<&'a [Option<u32>]>,
}

pub(super) struct Evaluator<'p> {
    pub(super) unit: Unit<'p>,
    pub(super) states: Dist,
    /// Per counter, its marginal pmf so far.
    pub(super) counters: Vec<Vec<f64>>,
    /// The one kind of harm held until every attack is resolved, and the pool
    /// whose damage it uses; how many are held is in each state's top bits.
    pub(super) deferred: Option<(Inflict, RunPool)>,
    /// Whether failed saves are carried in the state (some pool's groups save
    /// on different faces, so its failures depend on which group is current).
    pub(super) carry_failed: bool,
    /// The attacker's own models and their distribution of states, when the
    /// Plan lists them (only mortal-wound sources aimed at them change it).
    pub(super) attacker: Option<(Unit<'p>, Dist)>,
    /// The mortal-wound counter carried in the state, when mortal wounds
    /// reduced by the model they hit make it depend on the state.
    pub(super) carry_mortal: Option<usize>,
    /// Per sequence aimed at the target (`Program::attributed`), what it did:
    /// see [`Credit`].
    pub(super) credit: Vec<Credit>,
    /// Whether any credit's means are read in the end: not with one sequence
    /// aimed at the target (its distributions are known) and no mortal
    /// wounds carried in the state, when they are not worked out at all.
    pub(super) credit_means: bool,
    /// The distribution of the mortal wounds the sequence just evaluated
    /// inflicted, when it does not depend on the target's state.
    pub(super) mortal_pmf: Option<Vec<f64>>,
    /// The pools holding harm until every attack is resolved, in order: the
    /// slot each is credited in, and, for each but the last, the state field
    /// noting how many harms were held by the end of that pool.
    pub(super) holders: Vec<Holder>,
    /// While a pool with one damage re-roll is resolved: its damage split as
    /// [`ModifiedDice::once_more_split`] does, for states that still have it.
    pub(super) one_damage: Option<(Vec<f64>, Vec<f64>)>,
}

/// A pool holding harm until every attack is resolved: the slot it is
/// credited in, and the state field noting how many harms were held by its
/// end (none for the last such pool).
pub(super) type Holder = (Option<usize>, Option<u32>);

/// Every number's distribution, and, for a number known only by its mean
/// (its distribution then empty), that mean.
pub(super) type Finished = (Vec<Vec<f64>>, Vec<Option<f64>>);

/// What one sequence aimed at the target did: the mean wounds the target
/// lost to it and the mean mortal wounds it inflicted (as far as they are
/// carried in the state), and the distributions of both where they are
/// known exactly.
#[derive(Debug, Clone, Default)]
pub(super) struct Credit {
    pub(super) means: [f64; 2],
    pub(super) damage: Option<Vec<f64>>,
    pub(super) mortal: Option<Vec<f64>>,
}

/// Mortal wounds spilling one at a time from one state: its few successors
/// kept in short lists (one, without Feel No Pain) rather than a map a
/// wound, the lists kept between calls.
#[derive(Default)]
struct Spill {
    cur: Vec<(u128, f64)>,
    step: Vec<(u128, f64)>,
}

impl Spill {
    /// `n` mortal wounds landing one at a time on state `s0` of chance
    /// `p0`, each on the model `pick_for_mortal` picks then, added to `out`.
    fn one(
        &mut self,
        unit: &Unit<'_>,
        s0: u128,
        p0: f64,
        n: u32,
        landing: Landing<'_>,
        out: &mut Dist,
    ) {
        self.cur.clear();
        self.cur.push((s0, p0));
        for _ in 0..n {
            self.step.clear();
            spill_one(unit, &self.cur, landing, &mut self.step);
            std::mem::swap(&mut self.cur, &mut self.step);
        }
        for &(s, p) in &self.cur {
            add(out, s, p);
        }
    }
}

/// One mortal wound on each state of `cur`, on the model `pick_for_mortal`
/// picks there (a Feel No Pain roll ignoring it), the states after it merged
/// into `out`.
pub(super) fn spill_one(
    unit: &Unit<'_>,
    cur: &[(u128, f64)],
    landing: Landing<'_>,
    out: &mut Vec<(u128, f64)>,
) {
    let Landing { focus, fnp, .. } = landing;
    for &(s, p) in cur {
        match unit.pick_for_mortal(s, focus) {
            None => merge(out, s, p),
            Some(g) => match mortal_fnp(&unit.groups[g], g, fnp) {
                None => merge(out, unit.lose(s, g, 1), p),
                Some(f) => {
                    for (lost, r) in Unit::lost(1, front(s, g), Some(f)) {
                        let next = if lost == 0 { s } else { unit.lose(s, g, lost) };
                        merge(out, next, p * r);
                    }
                }
            },
        }
    }
}

/// Add `p` to state `s` in a short list of states.
fn merge(list: &mut Vec<(u128, f64)>, s: u128, p: f64) {
    match list.iter_mut().find(|e| e.0 == s) {
        Some(e) => e.1 += p,
        None => list.push((s, p)),
    }
}

/// The mean wounds lost and, with `mortal`, the mean mortal wounds carried,
/// over the states of `dist`, weighted by their chances.
pub(super) fn expected(unit: &Unit<'_>, dist: &Dist, mortal: bool) -> [f64; 2] {
    let mut m = [0.0; 2];
    for (&s, &p) in dist {
        m[0] += p * f64::from(unit.damage(s));
        if mortal {
            m[1] += p * f64::from(mortals(s));
        }
    }
    m
}

impl<'p> Evaluator<'p> {
    pub(super) fn new(plan: &'p Plan, admission: Admission) -> Self {
        let unit = Unit::new(&plan.target);
        let start = unit.start();
        Evaluator {
            unit,
            states: Dist::from_iter([(start, 1.0)]),
            counters: vec![vec![1.0]; plan.counters.len()],
            deferred: None,
            carry_failed: admission.carry_failed,
            carry_mortal: admission.carry_mortal,
            credit: Vec::new(),
            credit_means: false,
            mortal_pmf: None,
            holders: Vec::new(),
            one_damage: None,
            attacker: plan.attacker.as_ref().map(|a| {
                let unit = Unit::new(a);
                let start = unit.start();
                (unit, Dist::from_iter([(start, 1.0)]))
            }),
        }
    }

    /// The distributions every number of the Plan ends with: the counters,
    /// with what was carried in the states added in, then the target's and
    /// the attacker's damage and models destroyed, then the models destroyed
    /// in each of the target's groups, then each attributed sequence's
    /// wounds and mortal wounds (a distribution where it is known exactly,
    /// otherwise only its mean, in the second list).
    pub(super) fn finish(mut self, failed_counter: Option<usize>) -> Finished {
        let mut damage = Vec::new();
        let mut destroyed = Vec::new();
        let mut per_group = vec![Vec::new(); self.unit.groups.len()];
        let valued = self.unit.groups.iter().any(|g| g.value > 0);
        let mut value = Vec::new();
        let mut carried = Vec::new();
        let mut carried_mortal = Vec::new();
        for (&s, &p) in &self.states {
            if self.carry_mortal.is_some() {
                accumulate(&mut carried_mortal, mortals(s), p);
            }
            if self.carry_failed {
                accumulate(&mut carried, failed(s), p);
            }
            accumulate(&mut damage, self.unit.damage(s), p);
            accumulate(&mut destroyed, self.unit.destroyed(s), p);
            for (g, pmf) in per_group.iter_mut().enumerate() {
                accumulate(pmf, self.unit.destroyed_in(s, g), p);
            }
            if valued {
                let groups = self.unit.groups.iter().enumerate();
                let v = crate::value::of_destroyed(
                    groups.map(|(g, group)| (group, self.unit.destroyed_in(s, g))),
                );
                accumulate(&mut value, v, p);
            }
        }
        if self.carry_failed {
            if let Some(c) = failed_counter {
                self.counters[c] = convolve(&self.counters[c], &carried);
            }
        }
        if let Some(c) = self.carry_mortal {
            self.counters[c] = convolve(&self.counters[c], &carried_mortal);
        }
        let mut pmfs = self.counters;
        // One sequence aimed at the target did all its harm.
        if let [only] = &mut self.credit[..] {
            only.damage = Some(damage.clone());
        }
        pmfs.push(damage);
        pmfs.push(destroyed);
        if let Some((unit, states)) = &self.attacker {
            let (mut lost, mut slain) = (Vec::new(), Vec::new());
            for (&s, &p) in states {
                accumulate(&mut lost, unit.damage(s), p);
                accumulate(&mut slain, unit.destroyed(s), p);
            }
            pmfs.push(lost);
            pmfs.push(slain);
        }
        pmfs.extend(per_group);
        let mut means = vec![None; pmfs.len()];
        for credit in self.credit {
            for (known, mean) in [
                (credit.damage, credit.means[0]),
                (credit.mortal, credit.means[1]),
            ] {
                let only_mean = known.is_none().then_some(mean);
                pmfs.push(known.unwrap_or_default());
                means.push(only_mean);
            }
        }
        if valued {
            pmfs.push(value);
            means.push(None);
        }
        (pmfs, means)
    }

    /// The mean wounds lost and mortal wounds carried over every state (0s
    /// when no credit's means are read).
    pub(super) fn expected_harm(&self) -> [f64; 2] {
        if !self.credit_means {
            return [0.0; 2];
        }
        expected(&self.unit, &self.states, self.carry_mortal.is_some())
    }

    /// The distribution of the wounds the target has lost so far.
    pub(super) fn damage_pmf(&self) -> Vec<f64> {
        let mut pmf = Vec::new();
        for (&s, &p) in &self.states {
            accumulate(&mut pmf, self.unit.damage(s), p);
        }
        pmf
    }

    /// Note in every state how many harms are held now, in the field `at`,
    /// so the held harm can be credited to the pools that held it.
    pub(super) fn mark_held(&mut self, at: u32) {
        let mut next = Dist::default();
        for (&s, &p) in &self.states {
            add(&mut next, with_marker(s, at, held(s)), p);
        }
        self.states = next;
    }

    pub(super) fn count(&mut self, counter: Option<usize>, pmf: &[f64]) {
        if let Some(c) = counter {
            self.counters[c] = convolve(&self.counters[c], pmf);
        }
    }

    pub(super) fn check_size(&self) -> Result<(), CoreError> {
        hold(self.states.len() as u64 * STATE_BYTES);
        verdict()?;
        if self.states.len() > MAX_STATES {
            return Err(decline(format!(
                "the target can be left in more than {MAX_STATES} distinct states"
            )));
        }
        Ok(())
    }

    /// One unsaved attack of the pool's damage on the current group of
    /// `order`; what the front model cannot take is lost or carries on, as
    /// the pool's `excess` says. In a state that still has the pool's one
    /// damage re-roll, the roll is split as `one_damage` says: a roll kept
    /// leaves the re-roll, a low roll rolled again uses it.
    pub(super) fn unsaved(
        &self,
        dist: &Dist,
        order: &[usize],
        pool: &RunPool,
        damage: &[f64],
    ) -> Dist {
        let mut out = Dist::with_capacity_and_hasher(dist.len() + 1, Fast::default());
        self.unsaved_into(
            dist.iter().map(|(&s, &p)| (s, p)),
            order,
            pool,
            damage,
            &mut out,
        );
        out
    }

    /// [`Self::unsaved`] on the states `dist` (each once), added to `out`:
    /// for a caller that keeps one map for many steps.
    pub(super) fn unsaved_into(
        &self,
        dist: impl ExactSizeIterator<Item = (u128, f64)>,
        order: &[usize],
        pool: &RunPool,
        damage: &[f64],
        out: &mut Dist,
    ) {
        if spend(dist.len() * damage.len()) {
            return;
        }
        for (s, p) in dist {
            let Some(g) = Unit::current(s, order) else {
                add(out, s, p);
                continue;
            };
            match &self.one_damage {
                Some((kept, again)) if one_left(s) => {
                    self.deal(out, s, p, g, order, pool, kept);
                    self.deal(out, with_one_left(s, false), p, g, order, pool, again);
                }
                _ => self.deal(out, s, p, g, order, pool, damage),
            }
        }
    }

    /// Damage rolled as `damage` says on the current group `g` of state `s`
    /// (of chance `p`), into `out`.
    #[allow(clippy::too_many_arguments)]
    fn deal(
        &self,
        out: &mut Dist,
        s: u128,
        p: f64,
        g: usize,
        order: &[usize],
        pool: &RunPool,
        damage: &[f64],
    ) {
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
            for (lost, r) in Unit::lost(amount, room, pool.fnp(g, grp.feel_no_pain)) {
                let next = if lost == 0 {
                    s
                } else {
                    self.unit.take(s, g, lost, order, pool.excess)
                };
                add(out, next, p * q * r);
            }
        }
    }

    /// One attack that takes the pool's own save `save` (if any) and, failing
    /// it, inflicts the pool's damage.
    pub(super) fn own_save(
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
    fn mortal(unit: &Unit<'_>, dist: &Dist, n: u32, landing: Landing<'_>) -> Dist {
        let Landing { spill, focus, fnp } = landing;
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
                            Unit::lost(n, front(s, g), mortal_fnp(&unit.groups[g], g, fnp))
                        {
                            let next = if lost == 0 { s } else { unit.lose(s, g, lost) };
                            add(&mut out, next, p * r);
                        }
                    }
                }
            }
            return out;
        }
        let mut out = Dist::default();
        let mut spill = Spill::default();
        for (&s0, &p0) in dist {
            spill.one(unit, s0, p0, n, landing, &mut out);
        }
        out
    }

    /// One mortal-wound event whose number follows `amount`: with `reduced`
    /// the model it starts on changes the number by its damage modifiers,
    /// and with `count` the number (after that) is added to the state's
    /// mortal-wound count, as the die-by-die executor counts it.
    pub(super) fn mortal_event(
        &self,
        dist: &Dist,
        amount: &[f64],
        landing: Landing,
        reduced: bool,
        count: bool,
    ) -> Dist {
        if !reduced && !count {
            return Self::mortal_dice(&self.unit, dist, amount, landing);
        }
        let focus = landing.focus;
        let mut out = Dist::default();
        let mut spilling = Spill::default();
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
                if landing.spill && n > 0 {
                    if spend(n as usize) {
                        return Dist::default();
                    }
                    spilling.one(&self.unit, s1, p * q, n, landing, &mut out);
                    continue;
                }
                for (s2, x) in Self::mortal(&self.unit, &Dist::from_iter([(s1, 1.0)]), n, landing) {
                    add(&mut out, s2, p * q * x);
                }
            }
        }
        out
    }

    /// Mortal wounds whose number follows `amount`.
    fn mortal_dice(unit: &Unit<'_>, dist: &Dist, amount: &[f64], landing: Landing) -> Dist {
        let mut out = Dist::default();
        for (n, &q) in amount.iter().enumerate() {
            if q > 0.0 {
                for (s, p) in Self::mortal(unit, dist, n as u32, landing) {
                    add(&mut out, s, p * q);
                }
            }
        }
        out
    }
}

impl Evaluator<'_> {
    /// Harm held until every attack was resolved: through an order declared
    /// afresh, as the die-by-die executor does.
    pub(super) fn resolve_held(&mut self) -> Result<(), CoreError> {
        let Some((what, pool)) = self.deferred.take() else {
            return Ok(());
        };
        let damage = dice_pmf(pool.damage);
        // The mortal wounds one held harm inflicts, worked out once rather
        // than for every harm of every state.
        let mortal_amount = match what.kind {
            InflictKind::Mortal { amount, .. } => {
                dice_pmf(amount.map_or(pool.damage, ModifiedDice::from))
            }
            InflictKind::Damage { .. } => Vec::new(),
        };
        if let Some(how) = self.spilled(what, &pool, &mortal_amount) {
            return self.spill_held(how);
        }
        let carried = self.carry_mortal.is_some();
        let harm = |d: &Dist| {
            if self.credit_means {
                expected(&self.unit, d, carried)
            } else {
                [0.0; 2]
            }
        };
        let mut next = Dist::default();
        for (&s0, &p0) in &self.states {
            let n = held(s0);
            let focus = held_focus(s0);
            // The held harms in the order queued: the first `ends[0]` are the
            // first holder's, and so on; the last holder has the rest.
            let ends: Vec<u32> = self
                .holders
                .iter()
                .map(|&(_, at)| at.map_or(n, |at| marker(s0, at)))
                .collect();
            let mut d = Dist::from_iter([(self.held_cleared(s0), p0)]);
            for i in 0..n {
                let before = harm(&d);
                d = match what.kind {
                    InflictKind::Mortal {
                        spill,
                        focus: to_focus,
                        reduced,
                        ..
                    } => self.mortal_event(
                        &d,
                        &mortal_amount,
                        Landing {
                            spill,
                            focus: focus.filter(|_| to_focus),
                            fnp: Some(&pool.feel_no_pain),
                        },
                        reduced,
                        self.carry_mortal.is_some() && self.carry_mortal == pool.mortal_counter,
                    ),
                    InflictKind::Damage {
                        save,
                        maximize,
                        bonus,
                        damage: own,
                    } => {
                        let damage = harm_damage(
                            &own.map_or_else(|| damage.clone(), dice_pmf),
                            maximize,
                            bonus,
                        );
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
                let after = harm(&d);
                let holder = ends
                    .iter()
                    .position(|&end| i < end)
                    .unwrap_or(ends.len().saturating_sub(1));
                if let Some(slot) = self.holders.get(holder).and_then(|h| h.0) {
                    let credit = &mut self.credit[slot];
                    credit.means[0] += after[0] - before[0];
                    credit.means[1] += after[1] - before[1];
                }
            }
            for (s, p) in d {
                add(&mut next, s, p);
            }
        }
        self.states = next;
        self.check_size()
    }

    pub(super) fn mortal_source(&mut self, seq: &RunSequence) -> Result<(), CoreError> {
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
        let one = dice_pmf(*amount);
        let total = compound(&times, &one);
        let carried = self.carry_mortal.is_some() && self.carry_mortal == *counter;
        self.mortal_pmf = (!carried).then(|| total.clone());
        let landing = Landing {
            spill: *spill,
            focus: None,
            fnp: feel_no_pain.then_some(&[]),
        };
        if carried {
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
                        d = self.mortal_event(&d, &one, landing, false, true);
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
                d = Self::mortal_dice(unit, &d, &one, landing);
            }
            for (s, q) in d {
                add(&mut next, s, q);
            }
        }
        *states = next;
        self.check_size()
    }
}
