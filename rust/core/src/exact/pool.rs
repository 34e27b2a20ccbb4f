//! One attack pool, exactly: its tests' tables, the counters they add to,
//! and the target's states carried through its saves and its harm outside
//! the save.

use super::budget::{decline, hold, verdict, STATE_BYTES};
use super::counts::{one_die, project, too_many, why_not_counted};
use super::estimate::Tabled;
use super::evaluator::{Evaluator, Landing};
use super::grid::Grid;
use super::held::{Chains, Landed, Spilled};
use super::nfold::{binomial, nfold, nfold_grid, thinned, Sums};
use super::pmf::{accumulate, attacks_pmf, compound, dice_pmf, harm_damage};
use super::state::{
    add, alive, failed, held, held_focus, with_failed, with_held, with_held_focus, with_one_left,
    Dist, Fast, Lists, Unit,
};
use super::{MAX_STATES, TABLE_BUDGET};
use crate::dice::ModifiedDice;
use crate::error::CoreError;
use crate::program::{Inflict, InflictKind, RunPool};
use crate::tables::{one_token, slot, Builder, Token};
use std::collections::HashMap;

/// One pool's step from one starting state: what every part of it reads.
struct Step<'a> {
    pool: &'a RunPool,
    order: &'a [usize],
    damage: &'a [f64],
    outcomes: &'a PoolOutcomes,
}

/// Held harm landing right after the pool that holds it
/// ([`Evaluator::lands_now`]): how it lands, the wounds each number of harms
/// inflicts, and the chains of spilled states so far.
struct LandsNow<'a> {
    how: Spilled<'a>,
    totals: Vec<Vec<(usize, f64)>>,
    chains: Chains,
    /// What has landed on the chains, for harm not counted in the state.
    landed: Landed,
    held_bytes: u64,
}

/// What a pool's tests hand on to the target, whatever its state.
struct PoolOutcomes {
    /// The one kind of harm outside the save the pool's tokens may queue.
    inflict: Option<Inflict>,
    /// Tokens reaching the save, jointly with harm events.
    save_harm: Sums,
    /// The most harm events one trial can have.
    most_events: usize,
    /// With every group saving alike: failed saves jointly with harm events.
    failed_harm: Grid,
    /// Whether mortal wounds are counted in the state.
    carry_mortal: bool,
}

impl Evaluator<'_> {
    /// Run `pool` on every state; `tabled` is its one-die table when the
    /// estimate built it already, and `last` says whether it is the Plan's
    /// last sequence.
    pub(super) fn pool(
        &mut self,
        pool: &RunPool,
        tabled: Option<Tabled>,
        last: bool,
    ) -> Result<(), CoreError> {
        let mut builder = Builder::default();
        let (token, inflict) = self.admit_pool(pool, &mut builder, tabled)?;
        let attacks = attacks_pmf(pool, None);
        let damage = dice_pmf(pool.damage);
        // The target: for each state at the start of the pool, its declared
        // order, then the saves, then the harm events.
        let same_faces = pool.save.alike(self.unit.groups);
        // The pool's one damage re-roll, noted in each state until used.
        self.one_damage = pool
            .damage_reroll_one
            .then(|| pool.damage.once_more_split());
        // A pool starting from one state (the first pool, most often) has
        // that state's chain of failed saves built first: once the chain
        // settles, more failed saves change nothing, and their sums need go
        // no further than its end.
        let (mut first, cap) = match self.first_chain(pool, &token, &attacks, &damage, same_faces) {
            Some((chain, most)) => {
                let end = chain.0.count() - 1;
                let cap = (chain.1 && end < most).then_some(end as u32);
                (Some(chain), cap)
            }
            None => (None, None),
        };
        let outcomes = self.pool_outcomes(pool, (token, inflict), &attacks, &mut builder, cap)?;
        let most_failed = outcomes.failed_harm.rows().saturating_sub(1);
        // Room for the states it will likely reach, within reason: growing
        // a map as states come rehashes it again and again.
        let likely = self
            .states
            .len()
            .saturating_mul(outcomes.most_events + 1)
            .saturating_mul(most_failed + 1);
        let mut next = Dist::with_capacity_and_hasher(likely.min(1 << 12), Fast::default());
        let amount = held_amount(pool, outcomes.inflict);
        let mut now = self.lands_now(
            pool,
            outcomes.inflict,
            &amount,
            outcomes.most_events,
            last && same_faces,
        );
        for (&s0, &p0) in &self.states {
            verdict()?;
            if next.len() > MAX_STATES {
                return Err(decline(format!(
                    "the target can be left in more than {MAX_STATES} distinct states"
                )));
            }
            let order = self.unit.declare(s0, &pool.focus);
            let focus = pool.focus.iter().copied().find(|&g| alive(s0, g) > 0);
            let step = Step {
                pool,
                order: &order,
                damage: &damage,
                outcomes: &outcomes,
            };
            let s0 = with_one_left(s0, self.one_damage.is_some());
            let chain = first.take();
            if let Some(now) = &mut now {
                self.saved_and_landed(s0, p0, focus, &step, most_failed, chain, now)?;
                continue;
            }
            let mut after_saves = if same_faces {
                self.saved_alike(s0, &step, most_failed, chain)
            } else if pool.save.in_turn {
                self.saved_in_turn(s0, &step)?
            } else {
                self.saved_lowest_first(s0, &step)?
            };
            if self.one_damage.is_some() {
                // Only the damage of attacks that failed their save takes it.
                for d in &mut after_saves {
                    *d = d.drain().fold(Dist::default(), |mut out, (s, p)| {
                        add(&mut out, with_one_left(s, false), p);
                        out
                    });
                }
            }
            self.harm_after_saves(after_saves, p0, focus, &step, &mut next)?;
        }
        if let Some(now) = now {
            // Its held harm has landed.
            now.landed.into_states(&now.chains, &mut next)?;
            self.deferred = None;
        }
        self.states = next;
        self.one_damage = None;
        self.check_size()
    }

    /// The chain of failed saves (see [`Self::failed_chain`]) of the one
    /// state a pool starts from, when it has one, every group saves alike,
    /// failed saves are not carried in the state, and its dice are tabled
    /// one at a time (`token.plain()`): as long as the most tokens the pool
    /// can bring to the save, which it returns too.
    fn first_chain(
        &self,
        pool: &RunPool,
        token: &Token,
        attacks: &[f64],
        damage: &[f64],
        same_faces: bool,
    ) -> Option<((Lists, bool), usize)> {
        if !same_faces || self.carry_failed || self.states.len() != 1 {
            return None;
        }
        let one = token.plain()?;
        let m = pool.tests.len();
        let most_tokens = one
            .iter()
            .filter(|e| *e.1 > 0.0)
            .map(|(&k, _)| slot(k, m))
            .max()
            .unwrap_or(0) as usize;
        let most_failed = most_tokens.saturating_mul(attacks.len().saturating_sub(1));
        let (&s0, _) = self.states.iter().next()?;
        let order = self.unit.declare(s0, &pool.focus);
        let s0 = with_one_left(s0, self.one_damage.is_some());
        Some((
            self.failed_chain(s0, pool, &order, damage, most_failed),
            most_failed,
        ))
    }

    /// How the harm `pool` holds lands right after it, straight from the
    /// states after its saves, rather than held in the state until every
    /// attack is resolved: when nothing comes between (`last`, the Plan's
    /// last sequence, every group saving alike), no other pool holds harm,
    /// it spills in bulk (see `held.rs`) without counting its wounds in the
    /// state, and no sequence's share of the harm is asked for
    /// (`credit_means`, which also holds whenever mortal wounds are counted
    /// in the state).
    fn lands_now<'a>(
        &self,
        pool: &'a RunPool,
        inflict: Option<Inflict>,
        amount: &'a [f64],
        most_events: usize,
        last: bool,
    ) -> Option<LandsNow<'a>> {
        let what = inflict.filter(|i| i.after_all)?;
        if !last || self.carry_failed || self.credit_means || self.holders.len() != 1 {
            return None;
        }
        let how = self.spilled(what, pool, amount).filter(|how| !how.count)?;
        Some(LandsNow {
            how,
            totals: Self::totals(amount, most_events),
            chains: Chains::default(),
            landed: Landed::default(),
            held_bytes: 0,
        })
    }

    /// The states after the saves from `s0` (of chance `p0`, its first focus
    /// group alive `focus`), every group saving alike, with the harm held in
    /// each landed at once as `now` says: noted on its chains, whose states
    /// are added to the next distribution once the pool is done.
    #[allow(clippy::too_many_arguments)]
    fn saved_and_landed(
        &self,
        s0: u128,
        p0: f64,
        focus: Option<usize>,
        step: &Step<'_>,
        most_failed: usize,
        chain: Option<(Lists, bool)>,
        now: &mut LandsNow<'_>,
    ) -> Result<(), CoreError> {
        let (after_f, settled) = chain.unwrap_or_else(|| {
            self.failed_chain(s0, step.pool, step.order, step.damage, most_failed)
        });
        let steps = after_f.count();
        let weights = list_weights(step.outcomes, steps, settled);
        let width = step.outcomes.most_events + 1;
        let focus = focus.filter(|_| now.how.to_focus);
        // A state may be in several lists (a failed save that Feel No Pain
        // ignored leaves it as it was): the chances of each number of harm
        // events are added up per state first, in the order states come,
        // so each spills once.
        let room = after_f.len();
        let mut index: HashMap<u128, usize, Fast> =
            HashMap::with_capacity_and_hasher(room, Fast::default());
        let mut states: Vec<u128> = Vec::with_capacity(room);
        let mut rows: Vec<f64> = Vec::with_capacity(room * width);
        for (at, row) in weights.chunks_exact(width).enumerate() {
            if row.iter().all(|&w| w == 0.0) {
                continue;
            }
            for &(s, q) in after_f.get(at) {
                // Only the damage of attacks that failed their save takes
                // the damage re-roll.
                let s = with_one_left(s, false);
                let i = *index.entry(s).or_insert_with(|| {
                    states.push(s);
                    rows.resize(rows.len() + width, 0.0);
                    states.len() - 1
                });
                for (y, &w) in rows[i * width..][..width].iter_mut().zip(row) {
                    *y += w * q;
                }
            }
        }
        now.chains.reserve(states.len());
        for (&s, row) in states.iter().zip(rows.chunks_exact(width)) {
            // The state spills along one chain, as long as the most harm
            // events any weighed count has need.
            let Some(most) = row.iter().rposition(|&w| w > 0.0) else {
                continue;
            };
            let len = now.totals[most].last().map_or(0, |e| e.0) + 1;
            let landings = row
                .iter()
                .enumerate()
                .filter(|e| *e.1 > 0.0)
                .map(|(e, &w)| (&now.totals[e][..], p0 * w));
            self.land_along(
                (&mut now.chains, &mut now.landed),
                (s, focus),
                len,
                landings,
                &now.how,
                &mut now.held_bytes,
            )?;
        }
        Ok(())
    }

    /// The pool's tables and the counters that do not depend on the target.
    /// `token` and `inflict` are what [`Self::admit_pool`] gave, `attacks`
    /// the pool's attack dice as a pmf, and `cap`, when given, a number of
    /// failed saves past which the target's states no longer change: failed
    /// saves jointly with harm events then go no further (the counter of
    /// failed saves is summed apart).
    fn pool_outcomes(
        &mut self,
        pool: &RunPool,
        (token, inflict): (Token, Option<Inflict>),
        attacks: &[f64],
        builder: &mut Builder,
        cap: Option<u32>,
    ) -> Result<PoolOutcomes, CoreError> {
        let carry_mortal = self.carry_mortal.is_some() && self.carry_mortal == pool.mortal_counter;
        let m = pool.tests.len();
        // Only each test's count (alone) and the joint of tokens to save and
        // harm events are needed, so one die's outcome is projected onto
        // those slots before the n-fold convolutions: projecting commutes
        // with adding up dice, and the tables stay small.
        self.count(pool.attacks_counter, attacks);
        let mut test_pmfs = vec![Vec::<f64>::new(); m];
        for (t, pmf) in test_pmfs.iter_mut().enumerate() {
            if pool.tests[t].counter.is_none() {
                continue;
            }
            for ((v, _), p) in project(&token, attacks, &[t], builder, pool)? {
                let v = v as usize;
                if pmf.len() <= v {
                    pmf.resize(v + 1, 0.0);
                }
                pmf[v] += p;
            }
        }
        // With every group saving alike and dice independent of each other,
        // each token's save is thinned off one die before the dice are added
        // up (thinning commutes with adding dice): failed saves jointly with
        // harm events directly, in time that grows with the dice, not their
        // square. Otherwise tokens reaching the save, for the state to take.
        let alike = pool.save.alike(self.unit.groups);
        let q = pool.save.fail_chance(0, self.unit.groups);
        // Failed saves summed apart, for their counter, when the joint stops
        // at `cap`.
        let mut failed_apart = None;
        let (save_harm, failed_harm) = match token.plain() {
            Some(one) if alike => {
                let joint = thinned(one_die(one, &[m, m + 1]), q);
                let cap = cap.filter(|_| !counts_own_saves(pool, inflict) && !self.carry_failed);
                if cap.is_some() && pool.save.counter.is_some() {
                    let failed = thinned(one_die(one, &[m]), q);
                    failed_apart = Some(nfold(&failed, attacks).ok_or_else(|| too_many(pool))?);
                }
                let failed_harm = nfold_grid(&joint, attacks, cap).ok_or_else(|| too_many(pool))?;
                (Sums::new(), failed_harm)
            }
            _ => {
                let save_harm = project(&token, attacks, &[m, m + 1], builder, pool)?;
                let failed_harm = if alike {
                    Grid::from_sums(thinned(save_harm.iter().copied(), q))
                } else {
                    Grid::default()
                };
                (save_harm, failed_harm)
            }
        };
        for (t, pmf) in test_pmfs.iter().enumerate() {
            if !pmf.is_empty() {
                self.count(pool.tests[t].counter, pmf);
            }
        }
        // Harm events, whatever the state.
        let mut events = if alike {
            failed_harm.second()
        } else {
            let most = save_harm.iter().map(|e| e.0 .1).max().unwrap_or(0) as usize;
            let mut events = vec![0.0; most + 1];
            for &((_, e), p) in &save_harm {
                events[e as usize] += p;
            }
            events
        };
        if events.is_empty() {
            events.push(0.0);
        }
        let most_events = events.len() - 1;
        // Mortal wounds counted: each event's amount (unless they depend on
        // the state, and are carried in it); none, for a pool inflicting none.
        self.mortal_pmf = Some(vec![1.0]);
        if let Some(Inflict {
            kind: InflictKind::Mortal { amount, .. },
            ..
        }) = inflict
        {
            if carry_mortal {
                self.mortal_pmf = None;
            } else {
                let total = compound(
                    &events,
                    &dice_pmf(amount.map_or(pool.damage, ModifiedDice::from)),
                );
                self.count(pool.mortal_counter, &total);
                self.mortal_pmf = Some(total);
            }
        }
        match failed_apart {
            Some(failed) => self.count_failed_saves(pool, inflict, failed.into_iter()),
            None => self.count_failed_saves(pool, inflict, failed_harm.iter()),
        }
        Ok(PoolOutcomes {
            inflict,
            save_harm,
            most_events,
            failed_harm,
            carry_mortal,
        })
    }

    /// The pool's own reasons to decline, its one-token table, and the harm
    /// it holds until every attack is resolved.
    fn admit_pool(
        &mut self,
        pool: &RunPool,
        builder: &mut Builder,
        tabled: Option<Tabled>,
    ) -> Result<(Token, Option<Inflict>), CoreError> {
        if pool.batch_hook.is_some() {
            return Err(decline(format!(
                "pool {:?} calls a batch hook, which only Monte Carlo can run",
                pool.name
            )));
        }
        if let Some(why) = why_not_counted(pool) {
            return Err(decline(format!(
                "pool {:?} cannot be tabulated exactly: {why}",
                pool.name
            )));
        }
        // One die's table: its counts are added up over the dice after they
        // are projected, as wider counts (see `nfold.rs`).
        let (token, inflict) = match tabled {
            Some(Tabled {
                token,
                inflict,
                builder: built,
            }) => {
                *builder = built;
                (token, inflict)
            }
            None => one_token(pool, 1, TABLE_BUDGET, builder).ok_or_else(|| {
                decline(format!(
                    "pool {:?} has too many outcomes to tabulate within its limit of {TABLE_BUDGET} table entries",
                    pool.name
                ))
            })?,
        };
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
        Ok((token, inflict))
    }

    /// Failed saves: with the same faces for every group they are binomial
    /// in the tokens saved and do not depend on the state, and are counted
    /// here (from `failed_harm`, failed saves jointly with harm events)
    /// unless failed saves are carried in the state.
    fn count_failed_saves(
        &mut self,
        pool: &RunPool,
        inflict: Option<Inflict>,
        failed_harm: impl Iterator<Item = ((u32, u32), f64)>,
    ) {
        let groups = self.unit.groups;
        if !pool.save.alike(groups) || self.carry_failed {
            return;
        }
        // Tokens taking an own save counted with the pool's failed saves
        // (checked alike for every group): binomial too.
        let own = match inflict.map(|i| i.kind) {
            Some(InflictKind::Damage { save: Some(i), .. }) if counts_own_saves(pool, inflict) => {
                Some(pool.own_saves[i].fail_chance(0, groups))
            }
            _ => None,
        };
        let mut failed = Vec::new();
        for ((f, e), p) in failed_harm {
            // f failed saves, plus the own saves' binomial failures.
            match own {
                Some(q) => {
                    for (v, x) in binomial(e, q).into_iter().enumerate() {
                        accumulate(&mut failed, f + v as u32, p * x);
                    }
                }
                None => accumulate(&mut failed, f, p),
            }
        }
        self.count(pool.save.counter, &failed);
    }

    /// The states after the saves from `s0` when every group saves alike:
    /// `after[e]` holds them weighted by P(e harm events).
    /// `chain` is `s0`'s chain of failed saves when it was built already.
    fn saved_alike(
        &self,
        s0: u128,
        step: &Step<'_>,
        most_failed: usize,
        chain: Option<(Lists, bool)>,
    ) -> Vec<Dist> {
        let outcomes = step.outcomes;
        let (after_f, settled) = chain.unwrap_or_else(|| {
            self.failed_chain(s0, step.pool, step.order, step.damage, most_failed)
        });
        let steps = after_f.count();
        let mut after_saves: Vec<Dist> = vec![Dist::default(); outcomes.most_events + 1];
        if self.carry_failed {
            for ((f, e), p) in outcomes.failed_harm.iter() {
                let Some(at) = reached(f, steps, settled) else {
                    continue;
                };
                for &(s, q) in after_f.get(at) {
                    add(
                        &mut after_saves[e as usize],
                        with_failed(s, failed(s) + f),
                        p * q,
                    );
                }
            }
            return after_saves;
        }
        let width = after_saves.len();
        let weights = list_weights(outcomes, steps, settled);
        // Room in each harm count's map for the states of the lists it
        // weighs, at most (growing a map as states come rehashes it again
        // and again; a count no list weighs gets none).
        for (e, after) in after_saves.iter_mut().enumerate() {
            let room: usize = (0..steps)
                .filter(|&at| weights[at * width + e] > 0.0)
                .map(|at| after_f.get(at).len())
                .sum();
            after.reserve(room.min(1 << 10));
        }
        for (at, row) in weights.chunks_exact(width).enumerate() {
            for (e, &p) in row.iter().enumerate() {
                if p == 0.0 {
                    continue;
                }
                for &(s, q) in after_f.get(at) {
                    add(&mut after_saves[e], s, p * q);
                }
            }
        }
        after_saves
    }

    /// The states after 0, 1, 2, ... failed saves from `s0` when every group
    /// saves alike, a list each, and whether the chain has settled: once no
    /// state has a model left to take damage, a failed save changes nothing
    /// (`unsaved` keeps such a state as it is), and more failed saves leave
    /// its last list.
    fn failed_chain(
        &self,
        s0: u128,
        pool: &RunPool,
        order: &[usize],
        damage: &[f64],
        most_failed: usize,
    ) -> (Lists, bool) {
        let mut after_f = Lists::new(s0);
        let mut next = Dist::default();
        let mut held = 0u64;
        for _ in 0..most_failed {
            let last = after_f.last();
            if last.iter().all(|&(s, _)| Unit::current(s, order).is_none()) {
                return (after_f, true);
            }
            next.clear();
            self.unsaved_into(last.iter().copied(), order, pool, damage, &mut next);
            held += next.len() as u64 * STATE_BYTES;
            // Past the memory budget the chain stops short; the evaluation
            // then declines, whatever is left out.
            if hold(held) {
                break;
            }
            after_f.push(next.drain());
        }
        (after_f, false)
    }

    /// The states after the saves from `s0` when groups save differently,
    /// resolved lowest first: `after[e]` as in [`Self::saved_alike`].
    fn saved_lowest_first(&self, s0: u128, step: &Step<'_>) -> Result<Vec<Dist>, CoreError> {
        let Step {
            pool,
            order,
            damage,
            outcomes,
        } = *step;
        let mut after_saves: Vec<Dist> = vec![Dist::default(); outcomes.most_events + 1];
        let last = last_standing(s0, order);
        let start: HashMap<(u128, u32, u32), f64, Fast> = outcomes
            .save_harm
            .iter()
            .map(|&((w, e), p)| ((s0, w, e), p))
            .collect();
        for ((s, e), q) in self.lowest_first(start, order, last, pool, damage)? {
            add(&mut after_saves[e as usize], s, q);
        }
        Ok(after_saves)
    }

    /// The states after the saves from `s0` when groups save differently
    /// and the tokens are saved one at a time: each meets the group current
    /// then, its damage dealt before the next. `after[e]` as in
    /// [`Self::saved_alike`].
    fn saved_in_turn(&self, s0: u128, step: &Step<'_>) -> Result<Vec<Dist>, CoreError> {
        let Step {
            pool,
            order,
            damage,
            outcomes,
        } = *step;
        let last = last_standing(s0, order);
        let most = outcomes.save_harm.iter().map(|e| e.0 .0).max().unwrap_or(0);
        // chain[w]: the states after w tokens saved in turn.
        let mut chain = vec![Dist::from_iter([(s0, 1.0)])];
        let mut held = 0u64;
        for _ in 0..most {
            let d = self.saved_once(
                chain.last().expect("starts with one"),
                order,
                last,
                pool,
                damage,
            );
            held += d.len() as u64 * STATE_BYTES;
            hold(held);
            verdict()?;
            chain.push(d);
        }
        let mut after_saves: Vec<Dist> = vec![Dist::default(); outcomes.most_events + 1];
        for &((w, e), p) in &outcomes.save_harm {
            for (&s, &q) in &chain[w as usize] {
                add(&mut after_saves[e as usize], s, p * q);
            }
        }
        Ok(after_saves)
    }

    /// The pool's harm outside the save, event by event, on the states after
    /// its saves (or held until every attack is resolved), added to `next`
    /// weighted by `p0`, the chance of the state the pool started from, whose
    /// first focus group alive was `focus`.
    fn harm_after_saves(
        &self,
        after_saves: Vec<Dist>,
        p0: f64,
        focus: Option<usize>,
        step: &Step<'_>,
        next: &mut Dist,
    ) -> Result<(), CoreError> {
        let Step {
            pool,
            order,
            damage,
            outcomes,
        } = *step;
        let inflict = outcomes.inflict;
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
                    add(next, with_held(s, held(s) + e as u32), p * p0);
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
                        let amount = dice_pmf(amount.map_or(pool.damage, ModifiedDice::from));
                        self.mortal_event(
                            &mixed,
                            &amount,
                            Landing {
                                spill,
                                focus: focus.filter(|_| to_focus),
                                fnp: Some(&pool.feel_no_pain),
                            },
                            reduced,
                            outcomes.carry_mortal,
                        )
                    }
                    Some(InflictKind::Damage {
                        save,
                        maximize,
                        bonus,
                        damage: own,
                    }) => self.own_save(
                        &mixed,
                        order,
                        pool,
                        save,
                        &harm_damage(
                            &own.map_or_else(|| damage.to_vec(), dice_pmf),
                            maximize,
                            bonus,
                        ),
                    ),
                    None => mixed,
                };
            }
            for (s, p) in mixed {
                add(next, s, p * p0);
            }
        }
        Ok(())
    }
}

/// One held harm's mortal wounds, as a pmf, for a pool holding mortal
/// wounds until every attack is resolved (else empty).
fn held_amount(pool: &RunPool, inflict: Option<Inflict>) -> Vec<f64> {
    match inflict {
        Some(Inflict {
            after_all: true,
            kind: InflictKind::Mortal { amount, .. },
            ..
        }) => dice_pmf(amount.map_or(pool.damage, ModifiedDice::from)),
        _ => Vec::new(),
    }
}

/// Whether the tokens `inflict` queues take an own save whose failures are
/// counted with the pool's failed saves.
fn counts_own_saves(pool: &RunPool, inflict: Option<Inflict>) -> bool {
    matches!(
        inflict.map(|i| i.kind),
        Some(InflictKind::Damage { save: Some(i), .. }) if pool.own_saves[i].counter.is_some()
    )
}

/// The list of a chain of `steps` lists (see [`Evaluator::failed_chain`])
/// that `f` failed saves leave: past a settled chain's end, its last.
fn reached(f: u32, steps: usize, settled: bool) -> Option<usize> {
    let f = f as usize;
    if settled {
        Some(f.min(steps - 1))
    } else {
        (f < steps).then_some(f)
    }
}

/// The chance of each list of a chain of `steps` lists jointly with each
/// number of harm events, `weights[list * (most_events + 1) + events]`:
/// every count of failed saves past a settled chain's end leaves the same
/// states, so their chances are added up first and each list's states are
/// weighed once per number of harm events.
fn list_weights(outcomes: &PoolOutcomes, steps: usize, settled: bool) -> Vec<f64> {
    let width = outcomes.most_events + 1;
    let mut weights = vec![0.0; steps * width];
    let grid = &outcomes.failed_harm;
    for f in 0..grid.rows() {
        if let Some(at) = reached(f as u32, steps, settled) {
            for (w, &p) in weights[at * width..].iter_mut().zip(grid.row(f)) {
                *w += p;
            }
        }
    }
    weights
}

/// The group a save is checked against once the unit is destroyed during a
/// pool that starts in `s0`: the last of `order` with a model alive then, the
/// one current when the last model fell.
fn last_standing(s0: u128, order: &[usize]) -> usize {
    order
        .iter()
        .rev()
        .copied()
        .find(|&g| alive(s0, g) > 0)
        .unwrap_or(order[0])
}
