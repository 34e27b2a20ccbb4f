//! Whole trials in one draw, for Plans whose trial is decided by the counts
//! the fast path draws.
//!
//! When a Plan is one attack pool with a fixed number of attack dice, saves
//! that fail on the same faces for every group, no unit's one damage re-roll
//! (whether it is spent is state the tables below do not hold), and a
//! resolution after the save that rolls no dice (fixed damage, no Feel No
//! Pain, fixed mortal wounds), everything a trial records is a function of two draws: the pool's
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
//! When the resolution does roll dice but only on the failed saves (damage
//! dice, Feel No Pain), its outcome given the failed saves has an exact
//! distribution too: one failed save at a time, every roll it can make is
//! enumerated from every state the target can be in, and the states' chances
//! carried forward. Mixed over the failed saves' binomial distribution, that
//! gives the resolution's distribution given the wounds reaching the save,
//! and a trial draws its resolution (failed saves included) in one draw.
//!
//! Whether the resolution rolls dice is not worked out from the Plan's
//! fields: it is observed, by running it with a dice source that notes any
//! roll asked of it. Any roll, and neither is used.

use crate::alias::{AliasTable, ValueAlias};
use crate::binomial::pmf;
use crate::executor::{declare, drive, gather_attacks};
use crate::montecarlo::Tally;
use crate::pool_chain::enumerate;
use crate::program::{Program, RunPool, RunSequence};
use crate::rng::{DiceSource, Stream};
use crate::sampled::{failed_save, pool_alone, resolve, Drawn, PoolTables};
use crate::tables::{slot, unpack, SLOTS};
use crate::trace::NoTrace;
use crate::workspace::{bump, Workspace};
use std::collections::{BTreeMap, HashMap};

/// The most outcomes a lookup enumerates.
const MAX_ENTRIES: usize = 1 << 16;

/// The most outcomes of a whole trial a table holds: past this, a draw
/// costs more in cache misses than the draws it saves.
const MAX_TRIAL_ENTRIES: usize = 1 << 16;

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

/// The Plan's one pool and its tables ([`pool_alone`]), without the unit's
/// one damage re-roll: whether it is spent is state the resolutions do not
/// hold.
fn one_pool<'a>(
    program: &'a Program,
    pools: &'a [Option<PoolTables>],
) -> Option<(&'a RunPool, &'a PoolTables)> {
    pool_alone(program, pools).filter(|(pool, _)| !pool.damage_reroll_one)
}

/// Every outcome of a trial with its numbers (as `Tally::record_trial`
/// records them), and the alias table to draw one.
#[derive(Debug, Clone)]
pub(crate) struct TrialTable {
    /// Rows of numbers, `width` of them a row.
    rows: Vec<u32>,
    width: usize,
    alias: AliasTable,
}

impl TrialTable {
    /// The table for `program`, from its one pool's tables and the lookup of
    /// its resolution; `None` when a trial is not decided by the drawn counts
    /// alone, or has too many outcomes.
    pub(crate) fn new(
        program: &Program,
        pools: &[Option<PoolTables>],
        resolved: &Resolutions,
    ) -> Option<TrialTable> {
        let Lookup::Fixed { .. } = resolved.lookup else {
            return None;
        };
        let (pool, tables) = one_pool(program, pools)?;
        let (_, chance) = tables.binomial.as_ref()?;
        let attacks = resolved.attacks?;
        let (keys, probs, _) = tables.by_count.get(attacks as usize)?;
        let save_slot = pool.tests.len();
        let size: usize = keys.iter().map(|&v| slot(v, save_slot) as usize + 1).sum();
        if size > MAX_TRIAL_ENTRIES {
            return None;
        }
        let width = resolved.width;
        let mut by_wounds: Vec<Option<Vec<f64>>> = Vec::new();
        let mut rows = vec![0; size * width];
        let mut chances = Vec::with_capacity(size);
        let mut at = 0;
        for (&v, &p) in keys.iter().zip(probs) {
            let counts = unpack(v);
            let wounds = counts[save_slot] as usize;
            if by_wounds.len() <= wounds {
                by_wounds.resize(wounds + 1, None);
            }
            let failures =
                by_wounds[wounds].get_or_insert_with(|| pmf(wounds as u32, chance.chance()));
            for (failed, q) in failures.iter().enumerate() {
                let row = &mut rows[at..at + width];
                row.copy_from_slice(resolved.fixed_row(failed, counts[save_slot + 1] as usize));
                add_counts(pool, attacks, &counts, row);
                at += width;
                chances.push(p * q);
            }
        }
        Some(TrialTable {
            rows,
            width,
            alias: AliasTable::new(&chances),
        })
    }

    /// Run `trials` trials from `stream` into `tally`: counted per outcome
    /// and recorded once each when the chunk is long enough for that to pay,
    /// else recorded trial by trial.
    pub(crate) fn run(&self, trials: u64, stream: &mut Stream, tally: &mut Tally) {
        let outcomes = self.rows.len() / self.width;
        if (outcomes as u64) < trials {
            let mut drawn = vec![0u64; outcomes];
            // A local copy of the stream stays in registers.
            let mut local = stream.clone();
            for _ in 0..trials {
                drawn[self.alias.sample(&mut local)] += 1;
            }
            *stream = local;
            for (row, &times) in self.rows.chunks_exact(self.width).zip(&drawn) {
                if times > 0 {
                    tally.record_row(row, times);
                }
            }
        } else {
            for _ in 0..trials {
                let at = self.alias.sample(stream) * self.width;
                tally.record_row(&self.rows[at..at + self.width], 1);
            }
        }
    }
}

/// Add what a pool's draws count directly (its attack dice and each test's
/// count) to the numbers of its resolution.
fn add_counts(pool: &RunPool, attacks: u32, counts: &[u32; SLOTS], numbers: &mut [u32]) {
    bump(numbers, pool.attacks_counter, attacks);
    for (k, t) in pool.tests.iter().enumerate() {
        bump(numbers, t.counter, counts[k]);
    }
}

/// A pool's resolution after its draws, looked up by failed saves and harm
/// events: what it adds to each number a trial records.
#[derive(Debug, Clone)]
pub(crate) struct Resolutions {
    /// Rows of numbers, `width` of them a row (one per number a trial
    /// records).
    rows: Vec<u32>,
    width: usize,
    lookup: Lookup,
    /// The pool's attack dice, when they are a fixed number.
    attacks: Option<u32>,
    /// How a chunk tallies its trials without recording every number of
    /// every trial, where the rows allow.
    counted: Option<Counted>,
    /// The draws of the fixed attack dice, keyed for a counted tally.
    keyed: Option<Keyed>,
}

/// The pool's draws for a fixed number of attack dice, arranged so that a
/// trial reads one entry per draw and tallies itself with two increments:
/// the outcome vector is drawn as its index (the same draw the fast path
/// makes from the same word), packed with the two counts its row is found
/// by, and the numbers the draws count are tallied per index at the end of
/// the chunk, from each outcome vector once.
#[derive(Debug, Clone)]
struct Keyed {
    /// Draws `index | wounds reaching the save << 32 | harm events << 48`.
    joint: ValueAlias,
    /// The outcome vectors, by index.
    keys: Vec<u64>,
    /// `binomial[w]`: the failed saves of `w` wounds, as the fast path's
    /// table draws them from the same word, one entry read.
    binomial: Vec<ValueAlias>,
}

impl Keyed {
    /// The keyed draws of `attacks` attack dice from `tables`, whose pool
    /// has `m` tests.
    fn new(tables: &PoolTables, attacks: Option<u32>, m: usize) -> Option<Keyed> {
        let (keys, _, alias) = tables.by_count.get(attacks? as usize)?;
        let index: HashMap<u64, u64> = keys.iter().zip(0..).map(|(&v, i)| (v, i)).collect();
        let joint = alias.map(|v| {
            let counts = unpack(v);
            index[&v] | u64::from(counts[m]) << 32 | u64::from(counts[m + 1]) << 48
        });
        let binomial = tables.binomial.as_ref().map_or_else(Vec::new, |(b, _)| {
            b.iter()
                .map(|t| {
                    let failed: Vec<u64> = (0..t.len() as u64).collect();
                    ValueAlias::from_table(t, &failed)
                })
                .collect()
        });
        Some(Keyed {
            joint,
            keys: keys.clone(),
            binomial,
        })
    }
}

/// A chunk's tally in two parts, when the numbers the draws count directly
/// (the pool's attack dice and each test's count) are ones the resolution
/// leaves at zero: those are tallied from the draws, and every other number
/// from how often each row was drawn, recorded once per row at the end.
/// Tallies are per-number histograms, so this gives the very same counts as
/// recording each trial's numbers.
#[derive(Debug, Clone)]
struct Counted {
    /// Per number counted from the draws: its index and its highest value.
    numbers: Vec<(usize, usize)>,
    /// What adds to each: (position in `numbers`, slot of the drawn counts,
    /// or `SLOTS` for the attack dice).
    sources: Vec<(usize, usize)>,
    /// The numbers the rows give: all the others but...
    from_rows: Vec<usize>,
    /// ...the fixed attack dice: (number, its value in every trial).
    constant: Vec<(usize, u32)>,
}

impl Counted {
    /// The split for `pool`'s lookup rows, `width` numbers a row; `None`
    /// when a row gives any number the draws count.
    fn new(pool: &RunPool, rows: &[u32], width: usize, attacks: Option<u32>) -> Option<Counted> {
        let most_attacks = pool.max_attacks() as usize;
        let most_tokens = pool.max_tokens() as usize;
        let mut by_number: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut constant = Vec::new();
        match (pool.attacks_counter, attacks) {
            (Some(i), Some(fixed)) => constant.push((i, fixed)),
            (Some(i), None) => by_number.entry(i).or_default().push(SLOTS),
            (None, _) => {}
        }
        for (k, t) in pool.tests.iter().enumerate() {
            if let Some(i) = t.counter {
                by_number.entry(i).or_default().push(k);
            }
        }
        let touched = |i: usize| rows.chunks_exact(width).any(|row| row[i] != 0);
        let all = || by_number.keys().chain(constant.iter().map(|(i, _)| i));
        // The attack dice and a test's count in one number: not constant.
        if all().any(|&i| touched(i))
            || by_number.len() > SLOTS
            || constant.iter().any(|(i, _)| by_number.contains_key(i))
        {
            return None;
        }
        let mut numbers = Vec::new();
        let mut sources = Vec::new();
        for (j, (&i, slots)) in by_number.iter().enumerate() {
            let most = slots
                .iter()
                .map(|&s| {
                    if s == SLOTS {
                        most_attacks
                    } else {
                        most_tokens
                    }
                })
                .sum();
            numbers.push((i, most));
            sources.extend(slots.iter().map(|&s| (j, s)));
        }
        let from_rows = (0..width)
            .filter(|i| !by_number.contains_key(i) && !constant.iter().any(|(c, _)| c == i))
            .collect();
        Some(Counted {
            numbers,
            sources,
            from_rows,
            constant,
        })
    }
}

/// How a trial finds its row.
#[derive(Debug, Clone)]
enum Lookup {
    /// Row `failed * harms + harm`: the resolution rolls no dice.
    Fixed { harms: usize },
    /// A row drawn from `by_wounds[wounds]` (whose values are the rows'
    /// indices), for the wounds reaching the save: the resolution rolls
    /// dice on the failed saves, whose number is part of the draw.
    Drawn { by_wounds: Vec<ValueAlias> },
}

impl Resolutions {
    /// The lookup for `program`, whose pools have `pools` tables; `None` when
    /// the resolution does more than the module notes say, or the pool can
    /// draw more than its tables hold.
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
        let lookup = match Self::fixed(program, tables, failures, harms, &mut ws) {
            Some(rows) => (rows, Lookup::Fixed { harms }),
            None if tables.inflict.is_some() || program.outcome_counter.is_some() => return None,
            None => {
                let (_, fail) = tables.binomial.as_ref()?;
                Self::drawn(pool, failures, fail.chance(), &mut ws)?
            }
        };
        let width = program.numbers().len();
        let attacks = pool.fixed_attacks;
        Some(Resolutions {
            counted: Counted::new(pool, &lookup.0, width, attacks),
            keyed: None,
            rows: lookup.0,
            width,
            lookup: lookup.1,
            attacks,
        })
    }

    /// Key the draws of a counted tally ([`Keyed`]) for a chunk to read: for
    /// Plans whose trials are not drawn whole, as then it runs the lookup.
    pub(crate) fn key_draws(&mut self, program: &Program, pools: &[Option<PoolTables>]) {
        if let (Some(_), Some((pool, tables))) = (&self.counted, one_pool(program, pools)) {
            self.keyed = Keyed::new(tables, self.attacks, pool.tests.len());
        }
    }

    /// The rows of the resolution of each (failed saves, harm events) pair,
    /// when it rolls no dice.
    fn fixed(
        program: &Program,
        tables: &PoolTables,
        failures: usize,
        harms: usize,
        ws: &mut Workspace<'_>,
    ) -> Option<Vec<u32>> {
        let m = program_pool(program).tests.len();
        let mut rows = Vec::new();
        for failed in 0..failures {
            for harm in 0..harms {
                let drawn = Drawn::for_resolution(m, failed as u32, harm as u32);
                resolve_without_dice(program, tables, &drawn, ws, &mut rows)?;
            }
        }
        Some(rows)
    }

    /// The rows of the resolution of each number of failed saves, and the
    /// distribution of the row given the wounds reaching the save (each
    /// failing with chance `fail`), when one failed save at a time is all
    /// it does.
    fn drawn(
        pool: &RunPool,
        failures: usize,
        fail: f64,
        ws: &mut Workspace<'_>,
    ) -> Option<(Vec<u32>, Lookup)> {
        ws.reset();
        declare(pool, ws);
        if !pool.one_at_a_time() {
            return None;
        }
        let mut states = BTreeMap::from([(snapshot(ws), 1.0)]);
        let mut rows = Vec::new();
        let mut row_count = 0u64;
        // Per number of failed saves, each row's chance given it.
        let mut by_failed: Vec<Vec<(u64, f64)>> = Vec::with_capacity(failures);
        for failed in 0..failures {
            if failed > 0 {
                states = after_one_failed_save(pool, ws, &states)?;
            }
            // In key order (a BTreeMap's), so the sums and what a seed
            // draws are the same in every process.
            let mut chances = Vec::with_capacity(states.len());
            for (key, &p) in &states {
                restore(ws, key);
                chances.push((row_count, p));
                row_count += 1;
                Tally::each_number(ws, |_, value| rows.push(value));
            }
            if rows.len() > MAX_ENTRIES * 8 {
                return None;
            }
            by_failed.push(chances);
        }
        // The failed saves of w wounds are binomial: mixing the rows of each
        // number of failures by its chance leaves one draw a trial.
        let by_wounds = (0..failures)
            .map(|wounds| {
                let mut mixed: BTreeMap<u64, f64> = BTreeMap::new();
                for (rows_given, q) in by_failed.iter().zip(pmf(wounds as u32, fail)) {
                    for &(row, p) in rows_given {
                        *mixed.entry(row).or_insert(0.0) += p * q;
                    }
                }
                let rows: Vec<u64> = mixed.keys().copied().collect();
                let chances: Vec<f64> = mixed.values().copied().collect();
                ValueAlias::new(&chances, &rows)
            })
            .collect();
        Some((rows, Lookup::Drawn { by_wounds }))
    }

    /// The row of a resolution that rolls no dice.
    fn fixed_row(&self, failed: usize, harm: usize) -> &[u32] {
        let Lookup::Fixed { harms } = self.lookup else {
            unreachable!("only a lookup of fixed resolutions has fixed rows");
        };
        self.row((failed * harms + harm) as u64)
    }

    fn row(&self, index: u64) -> &[u32] {
        let at = index as usize * self.width;
        &self.rows[at..at + self.width]
    }

    /// One trial's draws, as the fast path makes them, and the index of its
    /// resolution's row.
    #[inline]
    fn draw(
        &self,
        pool: &RunPool,
        tables: &PoolTables,
        stream: &mut Stream,
    ) -> (u32, [u32; SLOTS], u64) {
        let m = pool.tests.len();
        let attacks = self
            .attacks
            .unwrap_or_else(|| gather_attacks(pool, None, stream));
        let counts = tables.draw(attacks, stream);
        let row = match &self.lookup {
            Lookup::Fixed { harms } => {
                let failed = tables
                    .draw_failed(counts[m], stream)
                    .expect("a lookup is built for saves alike")
                    as usize;
                (failed * harms + counts[m + 1] as usize) as u64
            }
            Lookup::Drawn { by_wounds } => by_wounds[counts[m] as usize].sample(stream),
        };
        (attacks, counts, row)
    }

    /// Run `trials` trials of `program`'s one pool from `stream` into
    /// `tally`, drawing as the fast path does and looking the rest up.
    /// (Not inlined: in its caller it would crowd the other paths' loops
    /// out of registers.)
    #[inline(never)]
    pub(crate) fn run(
        &self,
        program: &Program,
        tables: &PoolTables,
        trials: u64,
        stream: &mut Stream,
        tally: &mut Tally,
    ) {
        let pool = program_pool(program);
        let Some(counted) = &self.counted else {
            let mut numbers = vec![0u32; self.width];
            for _ in 0..trials {
                let (attacks, counts, row) = self.draw(pool, tables, stream);
                numbers.copy_from_slice(self.row(row));
                add_counts(pool, attacks, &counts, &mut numbers);
                tally.record_row(&numbers, 1);
            }
            return;
        };
        let m = pool.tests.len();
        let mut drawn = ChunkCounts::new(self, counted);
        // With a fixed number of attack dice, a trial takes one word for its
        // counts and one for its row (failed saves from a table, or the
        // drawn resolution): the words can be read ahead, in stream order.
        match (&self.lookup, &self.keyed) {
            (Lookup::Fixed { harms }, Some(keyed))
                if keyed.binomial.len() * harms * self.width >= self.rows.len() =>
            {
                drawn.count_two_words(keyed, trials, stream, |wounds, harm, word| {
                    keyed.binomial[wounds].pick(word) * *harms as u64 + harm
                });
            }
            (Lookup::Drawn { by_wounds }, Some(keyed)) => {
                drawn.count_two_words(keyed, trials, stream, |wounds, _, word| {
                    by_wounds[wounds].pick(word)
                });
            }
            (Lookup::Fixed { harms }, _) => {
                drawn.count(self, pool, tables, trials, stream, |counts, stream| {
                    let failed = tables
                        .draw_failed(counts[m], stream)
                        .expect("a lookup is built for saves alike")
                        as usize;
                    (failed * harms + counts[m + 1] as usize) as u64
                });
            }
            (Lookup::Drawn { by_wounds }, None) => {
                drawn.count(self, pool, tables, trials, stream, |counts, stream| {
                    by_wounds[counts[m] as usize].sample(stream)
                });
            }
        }
        if let Some(keyed) = &self.keyed {
            drawn.add_keys(self.attacks.unwrap_or(0), keyed);
        }
        drawn.record(self, trials, tally);
    }
}

/// Trials whose words are read ahead at a time: their counts' draws are
/// independent loads, so they overlap instead of each waiting on a cache miss.
const AHEAD: usize = 64;

/// What a chunk of trials drew, when its tally is counted (see [`Counted`]).
struct ChunkCounts<'a> {
    counted: &'a Counted,
    /// Trials per row.
    by_row: Vec<u64>,
    /// Per number counted from the draws, trials per value.
    hists: Vec<Vec<u64>>,
    /// Trials per outcome vector, when drawn by index ([`Keyed`]).
    by_key: Vec<u64>,
}

impl<'a> ChunkCounts<'a> {
    fn new(resolved: &Resolutions, counted: &'a Counted) -> Self {
        ChunkCounts {
            counted,
            by_row: vec![0; resolved.rows.len() / resolved.width],
            hists: counted
                .numbers
                .iter()
                .map(|&(_, most)| vec![0; most + 1])
                .collect(),
            by_key: resolved
                .keyed
                .as_ref()
                .map_or_else(Vec::new, |k| vec![0; k.keys.len()]),
        }
    }

    /// Draw `trials` trials, each row found by `row_of` from the counts.
    #[inline]
    fn count(
        &mut self,
        resolved: &Resolutions,
        pool: &RunPool,
        tables: &PoolTables,
        trials: u64,
        stream: &mut Stream,
        mut row_of: impl FnMut(&[u32; SLOTS], &mut Stream) -> u64,
    ) {
        for _ in 0..trials {
            let attacks = resolved
                .attacks
                .unwrap_or_else(|| gather_attacks(pool, None, stream));
            let counts = tables.draw(attacks, stream);
            let row = row_of(&counts, stream);
            self.add(attacks, &counts, row);
        }
    }

    /// Draw `trials` trials of a fixed number of attack dice, whose
    /// outcome vector comes from `keyed` and whose row `row_of` finds from
    /// the wounds reaching the save, the harm events and the trial's second
    /// word: the words are read ahead in stream order, so a seed gives what
    /// [`Self::count`] gives. The counts are tallied by outcome vector
    /// ([`Self::add_keys`] turns them into numbers).
    #[inline]
    fn count_two_words(
        &mut self,
        keyed: &Keyed,
        trials: u64,
        stream: &mut Stream,
        row_of: impl Fn(usize, u64, u64) -> u64,
    ) {
        let mut words = [0u64; 2 * AHEAD];
        let mut drawn = [0u64; AHEAD];
        let mut left = trials as usize;
        // A local copy of the stream stays in registers.
        let mut local = stream.clone();
        while left > 0 {
            let n = left.min(AHEAD);
            for word in &mut words[..2 * n] {
                *word = local.next_u64();
            }
            for (packed, pair) in drawn[..n].iter_mut().zip(words.chunks_exact(2)) {
                *packed = keyed.joint.pick(pair[0]);
            }
            for (&packed, pair) in drawn[..n].iter().zip(words.chunks_exact(2)) {
                let wounds = (packed >> 32) as usize & 0xffff;
                let row = row_of(wounds, packed >> 48, pair[1]);
                self.by_key[packed as u32 as usize] += 1;
                self.by_row[row as usize] += 1;
            }
            left -= n;
        }
        *stream = local;
    }

    /// Move the trials tallied by outcome vector into the numbers the
    /// draws count, each vector unpacked once.
    fn add_keys(&mut self, attacks: u32, keyed: &Keyed) {
        for (key, times) in keyed.keys.iter().zip(std::mem::take(&mut self.by_key)) {
            if times > 0 {
                self.add_counts(attacks, &unpack(*key), times);
            }
        }
    }

    /// Tally one trial.
    #[inline]
    fn add(&mut self, attacks: u32, counts: &[u32; SLOTS], row: u64) {
        self.by_row[row as usize] += 1;
        self.add_counts(attacks, counts, 1);
    }

    /// Tally `times` trials' numbers counted from the draws.
    #[inline]
    fn add_counts(&mut self, attacks: u32, counts: &[u32; SLOTS], times: u64) {
        let mut values = [0usize; SLOTS + 1];
        for &(j, s) in &self.counted.sources {
            values[j] += (if s == SLOTS { attacks } else { counts[s] }) as usize;
        }
        for (hist, &value) in self.hists.iter_mut().zip(&values) {
            hist[value] += times;
        }
    }

    /// Record what was drawn: each row once, weighted by its trials.
    fn record(&self, resolved: &Resolutions, trials: u64, tally: &mut Tally) {
        let counted = self.counted;
        for (row, &times) in resolved.rows.chunks_exact(resolved.width).zip(&self.by_row) {
            if times > 0 {
                for &i in &counted.from_rows {
                    tally.record_times(i, row[i], times);
                }
            }
        }
        for &(i, value) in &counted.constant {
            tally.record_times(i, value, trials);
        }
        for (&(i, _), hist) in counted.numbers.iter().zip(&self.hists) {
            for (value, &times) in hist.iter().enumerate() {
                if times > 0 {
                    tally.record_times(i, value as u32, times);
                }
            }
        }
    }
}

/// Run a trial of `program`'s one pool from what was drawn, with no dice,
/// and add its numbers to `row`; `None` if it asked for a die.
fn resolve_without_dice(
    program: &Program,
    tables: &PoolTables,
    drawn: &Drawn,
    ws: &mut Workspace<'_>,
    row: &mut Vec<u32>,
) -> Option<()> {
    let mut none = NoDice::default();
    drive(
        program,
        ws,
        &mut none,
        &mut NoTrace,
        |index, pool, ws, dice, _| {
            resolve(index, pool, tables.inflict, None, drawn, ws, dice);
        },
    );
    if none.asked {
        return None;
    }
    Tally::each_number(ws, |_, value| row.push(value));
    Some(())
}

/// The one pool of a Plan a lookup was built for.
fn program_pool(program: &Program) -> &RunPool {
    let RunSequence::Pool(pool) = &program.sequences[0] else {
        unreachable!("a lookup is built for one pool only");
    };
    pool
}

/// What one failed save may change: the target's models, the harm credited
/// to the one pool, and the counters.
fn snapshot(ws: &Workspace<'_>) -> Vec<u32> {
    let s = &ws.state;
    let mut key = Vec::with_capacity(s.alive.len() * 2 + 5 + ws.counters.len());
    key.extend(&s.alive);
    key.extend(&s.front);
    key.extend([s.damage, s.destroyed, s.mortal]);
    let (damage, mortal) = ws.by_sequence[0];
    key.extend([damage, mortal]);
    key.extend(&ws.counters);
    key
}

fn restore(ws: &mut Workspace<'_>, key: &[u32]) {
    let groups = ws.state.alive.len();
    ws.state.alive.copy_from_slice(&key[..groups]);
    ws.state.front.copy_from_slice(&key[groups..2 * groups]);
    let at = 2 * groups;
    ws.state.damage = key[at];
    ws.state.destroyed = key[at + 1];
    ws.state.mortal = key[at + 2];
    ws.by_sequence[0] = (key[at + 3], key[at + 4]);
    ws.counters.copy_from_slice(&key[at + 5..]);
}

/// Every way one failed save can resolve from each of `states`, with the
/// chances carried forward ([`enumerate`]: every script of dice the failed
/// save can read). `None` past the runs `enumerate` allows from one state,
/// or past [`MAX_ENTRIES`] states.
fn after_one_failed_save(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    states: &BTreeMap<Vec<u32>, f64>,
) -> Option<BTreeMap<Vec<u32>, f64>> {
    let mut next: BTreeMap<Vec<u32>, f64> = BTreeMap::new();
    for (key, &p) in states {
        let runs = enumerate(|script| {
            restore(ws, key);
            // The Plan is this one pool: all it does is the pool's harm.
            let before = ws.harm();
            failed_save(pool, ws, script);
            ws.attribute(Some(0), before);
            snapshot(ws)
        })?;
        for (state, chance) in runs {
            *next.entry(state).or_insert(0.0) += p * chance;
        }
    }
    (next.len() <= MAX_ENTRIES).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::sampled::Sampler;

    /// Ten lascannon-like attacks with D6 damage into three 12-wound models,
    /// all counters kept: the resolution is drawn, and the draws count.
    const KNIGHTS: &str = r#"{
      "version": 1,
      "counters": ["attacks", "hits", "wounds", "failed_saves"],
      "target": {"groups": [{"name": "Knight", "models": 3, "wounds": 12, "save": 2, "invulnerable": 4}], "order": [0]},
      "sequences": [{
        "kind": "attack", "name": "Lascannon",
        "attacks": [{"models": 10, "dice": "1"}], "attacks_counter": "attacks",
        "steps": [
          {"name": "hit", "target": 3, "natural_fail": 1, "critical": 6, "counter": "hits"},
          {"name": "wound", "target": 5, "natural_fail": 1, "critical": 6, "counter": "wounds"}
        ],
        "save": {"ap": -2, "counter": "failed_saves"},
        "damage": {"dice": "D6"}
      }]
    }"#;

    /// Twenty attacks with Sustained Hits 1, Lethal Hits and Devastating
    /// Wounds (mortal wounds after the pool) at D2: the resolution is fixed
    /// and looked up by failed saves and harm events.
    const SPILL: &str = r#"{
      "version": 1,
      "counters": ["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"],
      "target": {"groups": [{"name": "Intercessor", "models": 10, "wounds": 2, "save": 3}], "order": [0]},
      "sequences": [{
        "kind": "attack", "name": "Boltgun",
        "attacks": [{"models": 10, "dice": "2"}], "attacks_counter": "attacks",
        "steps": [
          {"name": "hit", "target": 3, "natural_fail": 1, "critical": 6, "counter": "hits",
           "effects": [{"on": "critical", "action": "extra", "amount": "1"},
                       {"on": "critical", "action": "skip", "steps": 1}]},
          {"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds",
           "effects": [{"on": "critical", "action": "mortal", "spill": true, "ends_attack": true,
                        "after_all": true, "reduced": true, "focus": true}]}
        ],
        "save": {"ap": -1, "counter": "failed_saves"},
        "damage": {"dice": "2"},
        "mortal_counter": "mortal_wounds"
      }]
    }"#;

    /// The histograms of 50,000 trials of `plan` from one stream, by its
    /// lookup as built (outcome vectors drawn by index), by its counts
    /// drawn as vectors, and trial by trial: all three must agree.
    fn tallies(plan: &str, lookup: fn(&Lookup) -> bool) -> Vec<Vec<Vec<u64>>> {
        let program = Program::new(Plan::from_json(plan).unwrap()).unwrap();
        let sampler = Sampler::new(&program).unwrap();
        assert!(sampler.whole.is_none(), "trials not drawn whole");
        let keyed = sampler.resolved.clone().unwrap();
        assert!(lookup(&keyed.lookup));
        assert!(keyed.counted.is_some() && keyed.keyed.is_some());
        let unkeyed = Resolutions {
            keyed: None,
            ..keyed.clone()
        };
        let one_by_one = Resolutions {
            counted: None,
            ..unkeyed.clone()
        };
        let tallies: Vec<_> = [keyed, unkeyed, one_by_one]
            .iter()
            .map(|r| {
                let mut tally = Tally::new(program.numbers().len());
                let mut stream = Stream::new(3, 0);
                r.run(
                    &program,
                    sampler.first_pool(),
                    50_000,
                    &mut stream,
                    &mut tally,
                );
                tally.hist
            })
            .collect();
        assert_eq!(tallies[0], tallies[1]);
        assert_eq!(tallies[0], tallies[2]);
        tallies
    }

    #[test]
    fn drawing_outcomes_by_index_records_what_drawing_their_counts_does() {
        let tallies = tallies(SPILL, |l| matches!(l, Lookup::Fixed { .. }));
        assert!(
            tallies[0][4].len() > 5,
            "some trials inflict several mortal wounds"
        );
    }

    #[test]
    fn counting_rows_records_what_recording_every_trial_does() {
        let tallies = tallies(KNIGHTS, |l| matches!(l, Lookup::Drawn { .. }));
        assert!(tallies[0][3].len() > 5, "some trials fail several saves");
    }
}
