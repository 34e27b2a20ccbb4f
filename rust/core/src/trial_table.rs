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
//! Whether the resolution rolls dice is not worked out from the Plan's
//! fields: it is observed, by running it with a dice source that notes any
//! roll asked of it. Any roll, and the table is not used.

use crate::alias::AliasTable;
use crate::binomial::pmf;
use crate::executor::{drive, gather_attacks};
use crate::montecarlo::Tally;
use crate::plan::Side;
use crate::program::{Program, RunSequence};
use crate::rng::{DiceSource, Stream};
use crate::sampled::{resolve, Drawn, PoolTables};
use crate::tables::{slot, SLOTS};
use crate::trace::NoTrace;
use crate::workspace::Workspace;

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
        let [RunSequence::Pool(pool)] = &program.sequences[..] else {
            return None;
        };
        let tables = pools.first()?.as_ref()?;
        if pool.against != Side::Target
            || program.plan.rounds.is_some()
            || program.plan.attacker.is_some()
        {
            return None;
        }
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
