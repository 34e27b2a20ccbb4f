//! The pool chain's draws and lookups, held to what they stand for.

use super::*;
use crate::plan::Plan;
use crate::sampled::Sampler;

/// The Plans `tests/pool_chain.rs` holds to the exact evaluator.
const PLANS: &str = include_str!("../../tests/data/pool-chain-plans.jsonl");

/// Per Plan: whether each pool's entry is drawn (its resolution rolls
/// dice), and whether the held harm's is.
fn kinds() -> Vec<(Vec<bool>, bool)> {
    PLANS
        .lines()
        .map(|line| {
            let program = Program::new(Plan::from_json(line).unwrap()).unwrap();
            let chain = Sampler::new(&program).unwrap().chain.unwrap();
            let drawn = chain
                .steps
                .iter()
                .map(|s| matches!(s.pick, Pick::Drawn { .. }))
                .collect();
            (drawn, chain.last.is_some())
        })
        .collect()
}

#[test]
fn an_outcome_column_draws_what_its_alias_table_draws() {
    // Ten columns. A half lands in column `c` at `low = half * 10 -
    // c * 2^32`, so each column reaches one residue of `low` mod 10
    // (0 in columns 0 and 5); the thresholds are chosen so that halves
    // land exactly on the edges.
    let n = 10u64;
    let at = |c: u64, low: u64| {
        let wide = (c << 32) + low;
        assert_eq!(wide % n, 0, "a half lands there");
        (wide / n) as u32
    };
    let mut thresholds = vec![0; n as usize];
    // Column 0 keeps its own value only at low 0 (a threshold below
    // 2^32); column 5 never keeps it, not even at low 0; column 1
    // always does; column 9's threshold is a multiple of 2^32.
    thresholds[0] = 12_345;
    thresholds[1] = u64::MAX;
    thresholds[9] = 5 << 32;
    let mut edges = vec![at(0, 0), at(0, n), at(5, 0), at(5, n)];
    // Columns 2 to 4: a half lands on the last low that keeps its own
    // value, the next one on an alias; columns 6 to 8: a half lands on
    // the first low that takes the alias, the one before keeps its own.
    let starts = [(1, 0), (1 << 20, 1), (1 << 31, 1 << 31)];
    for (c, &(start, off)) in (2..5).zip(&starts) {
        let keep = (start..start + n)
            .find(|k| ((c << 32) + k - 1) % n == 0)
            .unwrap();
        thresholds[c as usize] = (keep << 32) - off;
        edges.extend([at(c, keep - 1), at(c, keep - 1 + n)]);
    }
    let ends = [(3 << 30, 5), (20, 0), (u64::from(u32::MAX) - 20, 1)];
    for (c, &(start, off)) in (6..9).zip(&ends) {
        let keep = (start..start + n)
            .find(|k| ((c << 32) + k) % n == 0)
            .unwrap();
        thresholds[c as usize] = (keep << 32) - off;
        edges.extend([at(c, keep), at(c, keep - n)]);
    }
    let outcomes: Vec<(u64, u32)> = (0..20).map(|i| (1000 + i, 7 * i as u32)).collect();
    let table = ValueAlias::from_columns(
        (thresholds.iter().enumerate())
            .map(|(i, &t)| (t, i as u64, 19 - i as u64))
            .collect(),
    );
    let columns: Vec<OutcomeColumn> = (table.columns32())
        .map(|c| OutcomeColumn::new(c, &outcomes).unwrap())
        .collect();
    let mut stream = Stream::new(3, 1);
    let halves = (0..20_000).map(|_| stream.next_u64() as u32);
    for half in halves.chain(edges).chain([0, u32::MAX]) {
        let expected = outcomes[table.pick32(half) as usize];
        assert_eq!(draw_outcome(&columns, half), expected, "half {half}");
    }
    // A part past 16 bits declines the column.
    assert!(OutcomeColumn::new((Some(0), 0, 0), &[(0, 1 << 16)]).is_none());
}

#[test]
fn the_tested_plans_take_every_kind_of_lookup() {
    let kinds = kinds();
    // S1 and S2 split: no dice after the saves, S2's mortal wounds held.
    assert_eq!(kinds[0], (vec![false, false], false));
    assert_eq!(kinds[1], (vec![false, false], false));
    // S3 split, and D3 damage into Feel No Pain: dice on failed saves.
    assert_eq!(kinds[2], (vec![true, true], false));
    assert_eq!(kinds[3], (vec![true, true], false));
    // Three pools, one of them with random damage.
    assert_eq!(kinds[4], (vec![false, false, true], false));
    // Held mortal wounds rolling Feel No Pain.
    assert_eq!(kinds[5], (vec![false, false], true));
}

#[test]
fn trials_looked_up_in_batches_are_the_trials_looked_up_one_by_one() {
    // Every kind of lookup, and a number of trials that leaves a part batch.
    for (i, line) in PLANS.lines().enumerate() {
        let program = Program::new(Plan::from_json(line).unwrap()).unwrap();
        let mut chain = Sampler::new(&program).unwrap().chain.unwrap();
        let mut tallies = Vec::new();
        for batched in [false, true] {
            chain.batched = batched;
            let mut stream = Stream::new(5, i as u64);
            let mut tally = Tally::new(program.numbers().len());
            chain.run(5 * BATCH as u64 + 3, &mut stream, &mut tally);
            tallies.push((tally.hist, stream.next_u64()));
        }
        assert_eq!(tallies[0], tallies[1], "plan {i}");
    }
}
