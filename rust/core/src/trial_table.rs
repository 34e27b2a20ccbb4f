//! Whole trials in one draw, for Plans whose trial is decided by the counts
//! the fast path draws.
//!
//! When a Plan is one attack pool with a fixed number of attack dice, saves
//! that fail on the same faces for every group, and a resolution after the
//! save that rolls no dice (fixed damage, no Feel No Pain, fixed mortal
//! wounds), everything a trial records is a function of two draws: the pool's
//! outcome vector and its failed saves. Both have exact distributions, so the
//! trial's outcome has one too: this table enumerates it (running the same
//! resolution code as every other trial, on each pair) and a trial is one
//! alias draw. A chunk counts the draws per entry and records each entry's
//! numbers once, weighted.
//!
//! When that table would be too large, the draws are made as on the fast
//! path but the resolution is looked up: it depends only on the failed saves
//! and the harm events (its effect on the counters adds to the counts drawn),
//! so it is run once for each such pair when the Plan is compiled
//! ([`Resolutions`]). Both draw from the stream exactly as the fast path
//! does, so a seed gives the same numbers with and without the lookup.
//!
//! Whether the resolution rolls dice is not worked out from the Plan's
//! fields: it is observed, by running it with a dice source that notes any
//! roll asked of it. Any roll, and neither is used.

use crate::alias::AliasTable;
use crate::binomial::pmf;
use crate::executor::{drive, gather_attacks};
use crate::montecarlo::Tally;
use crate::plan::Side;
use crate::program::{Program, RunPool, RunSequence};
use crate::rng::{DiceSource, Stream};
use crate::sampled::{resolve, Drawn, PoolTables};
use crate::tables::{slot, SLOTS};
use crate::trace::NoTrace;
use crate::workspace::{bump, Workspace};

/// The most outcomes a table enumerates.
const MAX_ENTRIES: usize = 1 << 16;

/// A dice source for resolutions that should need none: it notes whether it
/// was asked.
#[derive(Default)]
struct NoDice {
    asked: bool,
}

impl DiceSource for NoDice {
    fn roll(&mut self, _: u32) -> u32 {
        self.asked = true;
        1
    }
}

/// The Plan's one pool and its tables, when the Plan is one pool attacking
/// the target once, with saves alike for every group.
fn one_pool<'a>(
    program: &'a Program,
    pools: &'a [Option<PoolTables>],
) -> Option<(&'a RunPool, &'a PoolTables)> {
    let [RunSequence::Pool(pool)] = &program.sequences[..] else {
        return None;
    };
    let tables = pools.first()?.as_ref()?;
    let alone = pool.against == Side::Target
        && program.plan.rounds.is_none()
        && program.plan.attacker.is_none()
        && tables.binomial.is_some();
    alone.then_some((pool, tables))
}

/// Every outcome of a trial with its numbers (as `Tally::record_trial`
/// records them), and the alias table to draw one.
#[derive(Debug, Clone)]
pub(crate) struct TrialTable {
    numbers: Vec<Vec<u32>>,
    alias: AliasTable,
}

impl TrialTable {
    /// The table for `program`, whose pools have `pools` tables; `None` when
    /// a trial is not decided by the drawn counts alone.
    pub(crate) fn new(program: &Program, pools: &[Option<PoolTables>]) -> Option<TrialTable> {
        let (pool, tables) = one_pool(program, pools)?;
        let (_, chance) = tables.binomial.as_ref()?;
        let mut none = NoDice::default();
        let attacks = gather_attacks(pool, None, &mut none);
        if none.asked {
            return None;
        }
        let (keys, probs, _) = tables.by_count.get(attacks as usize)?;
        let save_slot = pool.tests.len();
        let size: usize = keys.iter().map(|&v| slot(v, save_slot) as usize + 1).sum();
        if size > MAX_ENTRIES {
            return None;
        }
        let mut ws = Workspace::new(program);
        let mut by_wounds: Vec<Option<Vec<f64>>> = Vec::new();
        let mut numbers = Vec::with_capacity(size);
        let mut chances = Vec::with_capacity(size);
        for (&v, &p) in keys.iter().zip(probs) {
            let mut counts = [0; SLOTS];
            for (i, c) in counts.iter_mut().enumerate() {
                *c = slot(v, i);
            }
            let wounds = counts[save_slot] as usize;
            if by_wounds.len() <= wounds {
                by_wounds.resize(wounds + 1, None);
            }
            let failures =
                by_wounds[wounds].get_or_insert_with(|| pmf(wounds as u32, chance.chance()));
            for (failed, q) in failures.iter().enumerate() {
                let drawn = Drawn {
                    attacks,
                    counts,
                    failed: Some(failed as u32),
                };
                drive(
                    program,
                    &mut ws,
                    &mut none,
                    &mut NoTrace,
                    |index, pool, ws, dice, _| {
                        resolve(index, pool, tables.inflict, &drawn, ws, dice);
                    },
                );
                if none.asked {
                    return None;
                }
                let mut row = Vec::new();
                Tally::each_number(&ws, |_, value| row.push(value));
                numbers.push(row);
                chances.push(p * q);
            }
        }
        Some(TrialTable {
            numbers,
            alias: AliasTable::new(&chances),
        })
    }

    /// Run `trials` trials from `stream` into `tally`.
    pub(crate) fn run(&self, trials: u64, stream: &mut Stream, tally: &mut Tally) {
        let mut drawn = vec![0u64; self.numbers.len()];
        for _ in 0..trials {
            drawn[self.alias.sample(stream)] += 1;
        }
        for (row, &times) in self.numbers.iter().zip(&drawn) {
            if times > 0 {
                for (i, &value) in row.iter().enumerate() {
                    tally.record_times(i, value, times);
                }
            }
        }
    }
}

/// A pool's resolution after its draws, looked up by failed saves and harm
/// events: what it adds to each number a trial records.
#[derive(Debug, Clone)]
pub(crate) struct Resolutions {
    /// Row `failed * harms + harm` holds the numbers (`width` of them).
    rows: Vec<u32>,
    harms: usize,
    width: usize,
}

impl Resolutions {
    /// The lookup for `program`, whose pools have `pools` tables; `None` when
    /// the resolution rolls dice, or the pool can draw more than its tables
    /// hold.
    pub(crate) fn new(program: &Program, pools: &[Option<PoolTables>]) -> Option<Resolutions> {
        let (pool, tables) = one_pool(program, pools)?;
        if (tables.by_count.len() as u64) <= pool.max_attacks() {
            return None;
        }
        let m = pool.tests.len();
        let most = |i: usize| {
            tables
                .by_count
                .iter()
                .flat_map(|(keys, _, _)| keys.iter().map(move |&v| slot(v, i) as usize))
                .max()
                .unwrap_or(0)
        };
        let (failures, harms) = (most(m) + 1, most(m + 1) + 1);
        if failures.saturating_mul(harms) > MAX_ENTRIES {
            return None;
        }
        let mut ws = Workspace::new(program);
        let mut none = NoDice::default();
        let mut rows = Vec::new();
        let mut width = 0;
        for failed in 0..failures {
            for harm in 0..harms {
                let mut counts = [0; SLOTS];
                counts[m + 1] = harm as u32;
                let drawn = Drawn {
                    attacks: 0,
                    counts,
                    failed: Some(failed as u32),
                };
                drive(
                    program,
                    &mut ws,
                    &mut none,
                    &mut NoTrace,
                    |index, pool, ws, dice, _| {
                        resolve(index, pool, tables.inflict, &drawn, ws, dice);
                    },
                );
                if none.asked {
                    return None;
                }
                let before = rows.len();
                Tally::each_number(&ws, |_, value| rows.push(value));
                width = rows.len() - before;
            }
        }
        Some(Resolutions { rows, harms, width })
    }

    /// Run `trials` trials of `program`'s one pool from `stream` into
    /// `tally`, drawing as the fast path does and looking the rest up.
    pub(crate) fn run(
        &self,
        program: &Program,
        tables: &PoolTables,
        trials: u64,
        stream: &mut Stream,
        tally: &mut Tally,
    ) {
        let RunSequence::Pool(pool) = &program.sequences[0] else {
            unreachable!("a lookup is built for one pool only");
        };
        let m = pool.tests.len();
        let mut numbers = vec![0u32; self.width];
        let mut none = NoDice::default();
        let fixed = gather_attacks(pool, None, &mut none);
        let fixed = (!none.asked).then_some(fixed);
        for _ in 0..trials {
            let attacks = fixed.unwrap_or_else(|| gather_attacks(pool, None, stream));
            let counts = tables.draw(attacks, stream);
            let failed = tables
                .draw_failed(counts[m], stream)
                .expect("a lookup is built for saves alike") as usize;
            let at = (failed * self.harms + counts[m + 1] as usize) * self.width;
            numbers.copy_from_slice(&self.rows[at..at + self.width]);
            bump(&mut numbers, pool.attacks_counter, attacks);
            for (k, t) in pool.tests.iter().enumerate() {
                bump(&mut numbers, t.counter, counts[k]);
            }
            for (i, &value) in numbers.iter().enumerate() {
                tally.record_times(i, value, 1);
            }
        }
    }
}
