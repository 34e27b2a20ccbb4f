//! The target's state after a number of failed saves, drawn in one draw.
//!
//! When a Plan is one pool attacking the target once, with saves alike for
//! every group, the fast path draws how many saves failed. Where each failed
//! save then rolls dice (damage dice, Feel No Pain) and the lookups of
//! `trial_table.rs` would pass their sizes, a trial rolled each failed save
//! in turn: a cost that grows with the attacks. Yet the target's state after
//! k failed saves has an exact distribution: from the state a trial starts
//! in, every roll one failed save can make is enumerated from every state
//! reached (by the same resolution code every trial runs), with the chances
//! carried forward. A trial then draws its state after its failed saves in
//! one draw.
//!
//! Tables are kept while their states fit a budget. Once every state is a
//! destroyed unit, a further failed save only counts (checked when built),
//! so the last table serves any number past it; otherwise the failed saves
//! past the last table are rolled in turn from the state drawn.

use crate::alias::AliasTable;
use crate::executor::declare;
use crate::pool_chain::enumerate;
use crate::program::{Program, RunPool};
use crate::rng::DiceSource;
use crate::sampled::failed_save;
use crate::workspace::{bump, Workspace};
use std::collections::BTreeMap;

/// The most states kept over all the tables: a few megabytes.
const MAX_STATES: usize = 1 << 17;

/// The most runs of one failed save's resolution the tables are built from
/// (each from one state, for one script of its dice): tens of milliseconds,
/// once per Plan.
const MAX_RUNS: usize = 1 << 16;

/// Per number of failed saves, the target's states after them and the
/// chance of each.
#[derive(Debug, Clone)]
pub(crate) struct FailedStates {
    /// `states[k]`: each state after k failed saves, flattened ([`key`]).
    states: Vec<Vec<u32>>,
    /// `draws[k]`: which of `states[k]`.
    draws: Vec<AliasTable>,
    /// Numbers a state holds: models alive and front wounds per group,
    /// wounds and models lost, mortal wounds, each counter's increase, then
    /// whether the unit's one damage re-roll is still to use.
    width: usize,
    groups: usize,
    /// Every state of the last table is a destroyed unit, which a further
    /// failed save leaves as it is, only counting it.
    settled: bool,
}

impl FailedStates {
    /// The tables for `program`'s one pool, built from the state every
    /// trial starts in; `None` when the first failed save can already not
    /// be enumerated.
    pub(crate) fn new(program: &Program, pool: &RunPool) -> Option<FailedStates> {
        Self::within(program, pool, MAX_STATES)
    }

    /// [`FailedStates::new`], keeping at most `budget` states.
    fn within(program: &Program, pool: &RunPool, budget: usize) -> Option<FailedStates> {
        // No trial fails more saves than the pool can make tokens.
        let most = pool.tokens_from(pool.max_attacks());
        let mut ws = Workspace::new(program);
        ws.reset();
        ws.one_damage_left = pool.damage_reroll_one;
        declare(pool, &mut ws);
        let groups = ws.state.alive.len();
        let start = key(&ws);
        let width = start.len();
        let mut at: BTreeMap<Vec<u32>, f64> = BTreeMap::from([(start, 1.0)]);
        let mut tables = FailedStates {
            states: Vec::new(),
            draws: Vec::new(),
            width,
            groups,
            settled: false,
        };
        let (mut kept, mut runs) = (0, 0);
        loop {
            kept += at.len();
            if kept > budget || runs > MAX_RUNS {
                break;
            }
            // In key order (a BTreeMap's), so what a seed draws is the same
            // in every process.
            let chances: Vec<f64> = at.values().copied().collect();
            tables.draws.push(AliasTable::new(&chances));
            tables.states.push(at.keys().flatten().copied().collect());
            if settles(pool, &mut ws, &at) {
                tables.settled = true;
                break;
            }
            if tables.draws.len() as u64 > most {
                break;
            }
            match after_one(pool, &mut ws, &at, &mut runs) {
                Some(next) => at = next,
                None => break,
            }
        }
        (tables.draws.len() > 1).then_some(tables)
    }

    /// Resolve `failed` failed saves of `pool` on `ws` (in the state every
    /// trial starts in): the state after as many as the tables hold, drawn
    /// from them, then any past them one at a time.
    pub(crate) fn resolve<D: DiceSource>(
        &self,
        pool: &RunPool,
        failed: u32,
        ws: &mut Workspace<'_>,
        dice: &mut D,
    ) {
        let Some(word) = dice.word() else {
            // Dice from a script: each failed save rolls its own.
            for _ in 0..failed {
                failed_save(pool, ws, dice);
            }
            return;
        };
        let last = self.draws.len() - 1;
        let k = (failed as usize).min(last);
        let at = self.draws[k].pick(word) * self.width;
        let state = &self.states[k][at..at + self.width];
        let g = self.groups;
        let s = &mut ws.state;
        s.alive.copy_from_slice(&state[..g]);
        s.front.copy_from_slice(&state[g..2 * g]);
        (s.damage, s.destroyed, s.mortal) = (state[2 * g], state[2 * g + 1], state[2 * g + 2]);
        let counters = ws.counters.len();
        for (c, &more) in ws.counters.iter_mut().zip(&state[2 * g + 3..]) {
            *c += more;
        }
        ws.one_damage_left = state[2 * g + 3 + counters] != 0;
        let past = failed - k as u32;
        if self.settled {
            bump(&mut ws.counters, pool.save.counter, past);
        } else {
            for _ in 0..past {
                failed_save(pool, ws, dice);
            }
        }
    }
}

/// The state a failed save changes: per group models alive and front
/// wounds, wounds and models lost, mortal wounds, the counters (from zero,
/// so they read as what the failed saves added), and whether the unit's one
/// damage re-roll is still to use.
fn key(ws: &Workspace<'_>) -> Vec<u32> {
    let s = &ws.state;
    let mut key = Vec::with_capacity(2 * s.alive.len() + 4 + ws.counters.len());
    key.extend(&s.alive);
    key.extend(&s.front);
    key.extend([s.damage, s.destroyed, s.mortal]);
    key.extend(&ws.counters);
    key.push(u32::from(ws.one_damage_left));
    key
}

fn restore(ws: &mut Workspace<'_>, key: &[u32]) {
    let (g, c) = (ws.state.alive.len(), ws.counters.len());
    ws.state.alive.copy_from_slice(&key[..g]);
    ws.state.front.copy_from_slice(&key[g..2 * g]);
    (ws.state.damage, ws.state.destroyed, ws.state.mortal) =
        (key[2 * g], key[2 * g + 1], key[2 * g + 2]);
    ws.counters.copy_from_slice(&key[2 * g + 3..2 * g + 3 + c]);
    ws.one_damage_left = key[2 * g + 3 + c] != 0;
}

/// The states after one more failed save from each of `states`, with the
/// chances carried forward, counting the runs into `runs`; `None` past the
/// runs `enumerate` allows from one state.
fn after_one(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    states: &BTreeMap<Vec<u32>, f64>,
    runs: &mut usize,
) -> Option<BTreeMap<Vec<u32>, f64>> {
    let mut next: BTreeMap<Vec<u32>, f64> = BTreeMap::new();
    for (state, &p) in states {
        let ways = enumerate(|script| {
            restore(ws, state);
            failed_save(pool, ws, script);
            key(ws)
        })?;
        *runs += ways.len();
        for (after, chance) in ways {
            *next.entry(after).or_insert(0.0) += p * chance;
        }
    }
    Some(next)
}

/// Is every one of `states` a destroyed unit that one more failed save
/// leaves as it is, rolling nothing and adding one to the failed saves'
/// counter (if any) and nothing else?
fn settles(pool: &RunPool, ws: &mut Workspace<'_>, states: &BTreeMap<Vec<u32>, f64>) -> bool {
    states.keys().all(|state| {
        restore(ws, state);
        if !ws.state.wiped_out() {
            return false;
        }
        let Some(runs) = enumerate(|script| {
            restore(ws, state);
            failed_save(pool, ws, script);
            key(ws)
        }) else {
            return false;
        };
        let mut counted = state.clone();
        if let Some(c) = pool.save.counter {
            counted[2 * ws.state.alive.len() + 3 + c] += 1;
        }
        matches!(&runs[..], [(after, _)] if *after == counted)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::program::RunSequence;
    use crate::rng::Stream;
    use std::collections::HashMap;

    /// D3 damage from `attacks` attacks into twenty models of two wounds
    /// (with Feel No Pain on `fnp`+), counting failed saves.
    fn program(attacks: u32, fnp: Option<u32>) -> Program {
        let plan = serde_json::json!({
            "version": 1,
            "counters": ["failed_saves"],
            "target": {"groups": [{"name": "A", "models": 20, "wounds": 2, "save": 3,
                "feel_no_pain": fnp}], "order": [0]},
            "sequences": [{"kind": "attack", "name": "Gun",
                "attacks": [{"models": attacks, "dice": "1"}], "steps": [],
                "save": {"ap": -1, "counter": "failed_saves"},
                "damage": {"dice": "D3"}}]
        });
        Program::new(Plan::from_json(&plan.to_string()).expect("a valid Plan")).expect("a Program")
    }

    fn pool(program: &Program) -> &RunPool {
        match &program.sequences[0] {
            RunSequence::Pool(pool) => pool,
            _ => panic!("an attack pool"),
        }
    }

    /// How often each (wounds lost, models destroyed, counters) came out of
    /// `trials` resolutions of `failed` failed saves by `resolve`.
    fn outcomes(
        program: &Program,
        failed: u32,
        trials: u32,
        seed: u64,
        mut resolve: impl FnMut(&mut Workspace<'_>, &mut Stream),
    ) -> HashMap<Vec<u32>, u32> {
        let pool = pool(program);
        let mut ws = Workspace::new(program);
        let mut stream = Stream::new(seed, u64::from(failed));
        let mut counts = HashMap::new();
        for _ in 0..trials {
            ws.reset();
            declare(pool, &mut ws);
            resolve(&mut ws, &mut stream);
            let mut key = vec![ws.state.damage, ws.state.destroyed];
            key.extend(&ws.counters);
            *counts.entry(key).or_insert(0) += 1;
        }
        counts
    }

    /// Each outcome's share within five standard errors of the two samples'
    /// difference.
    fn alike(a: &HashMap<Vec<u32>, u32>, b: &HashMap<Vec<u32>, u32>, trials: u32) {
        let n = f64::from(trials);
        for key in a.keys().chain(b.keys()) {
            let pa = f64::from(a.get(key).copied().unwrap_or(0)) / n;
            let pb = f64::from(b.get(key).copied().unwrap_or(0)) / n;
            let p = f64::midpoint(pa, pb);
            let se = (p * (1.0 - p) * 2.0 / n).sqrt();
            assert!(
                (pa - pb).abs() <= 5.0 * se + 2.0 / n,
                "{key:?}: {pa} drawn, {pb} rolled"
            );
        }
    }

    #[test]
    fn the_state_after_failed_saves_is_drawn_as_rolling_them_gives() {
        let trials = 100_000;
        for (attacks, fnp) in [(50, None), (10, Some(5))] {
            let program = program(attacks, fnp);
            let pool = pool(&program);
            let full = FailedStates::new(&program, pool).expect("tables");
            // Without Feel No Pain the unit surely falls to forty failed
            // saves of the fifty the pool can make; with it, the tables
            // reach the ten its ten attacks can make.
            let (settled, tables) = if fnp.is_none() {
                (true, 41)
            } else {
                (false, 11)
            };
            assert_eq!(
                (full.settled, full.draws.len()),
                (settled, tables),
                "{fnp:?}"
            );
            // A budget that keeps a few tables only: the rest are rolled.
            let few = FailedStates::within(&program, pool, 20).expect("tables");
            assert!(
                !few.settled && few.draws.len() < 8,
                "{} tables",
                few.draws.len()
            );
            for failed in [0, 3, 8, 12, 60] {
                let rolled = outcomes(&program, failed, trials, 1, |ws, stream| {
                    for _ in 0..failed {
                        failed_save(pool, ws, stream);
                    }
                });
                for tables in [&full, &few] {
                    let drawn = outcomes(&program, failed, trials, 2, |ws, stream| {
                        tables.resolve(pool, failed, ws, stream);
                    });
                    alike(&drawn, &rolled, trials);
                }
            }
        }
    }
}
