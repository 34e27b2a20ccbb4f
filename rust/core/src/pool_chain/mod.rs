//! Several attack pools' resolutions looked up in turn, through the small
//! state the target passes from one pool to the next.
//!
//! A unit with several weapon profiles is several pools, resolved one after
//! another against the target. Each pool's draws are the fast path's (its
//! outcome vector, then its failed saves), and what its resolution does
//! after them depends only on those draws and on the state the target is in
//! when the pool begins: its models alive and wounds on each group's front
//! model, the wounds and models it has lost, and the harm held until every
//! pool is resolved (a pool with the unit's one damage re-roll, whose use is
//! state too, is left to the per-trial draw). Those states are few, so each pool's resolution from
//! each state it can begin in is run once when the Plan is compiled (the
//! same resolution code every trial runs), giving the state after it and
//! what it adds to the numbers a trial records:
//!
//! - when the resolution rolls no dice, one entry per (state, failed saves,
//!   harm events);
//! - when it rolls dice on the failed saves only (damage dice, Feel No
//!   Pain), one failed save at a time from every state reachable, every roll
//!   enumerated; mixed over the failed saves' binomial distribution, that is
//!   one alias table per (state, wounds reaching the save), whose draw gives
//!   the failed saves and the rest at once.
//!
//! The harm held until the end is resolved last, from the state after the
//! last pool, looked up the same way. A trial is then two words a pool, a
//! lookup each, and one more for the held harm when it rolls dice.
//!
//! The numbers a trial records are of two kinds. Those of the target's final
//! state (damage, models destroyed, per group, value) are a function of the
//! last lookup's entry: a chunk counts trials per entry and records each
//! once. The others (counters, each pool's wounds and mortal wounds) are
//! sums over the pools: every entry and every outcome vector carries its
//! part packed into lanes of one 128-bit word, a trial adds them up, and
//! each lane's value is tallied once a trial. A Plan whose lanes do not fit,
//! whose states or entries pass their budgets, whose outcomes' second parts
//! pass 16 bits, or whose resolution rolls more than it may, runs on the
//! fast path trial by trial.

use crate::alias::{split32, ValueAlias};
use crate::binomial::pmf;
use crate::executor::{declare, resolve_deferred};
use crate::montecarlo::Tally;
use crate::plan::Side;
use crate::program::{Inflict, Program, RunPool, RunSequence};
use crate::rng::Stream;
use crate::sampled::{failed_save, resolve, Drawn, PoolTables};
use crate::tables::{slot, unpack, SLOTS};
use crate::trace::NoTrace;
use crate::workspace::{Held, Workspace};
pub(crate) use script::{enumerate, Script};
use std::collections::{BTreeMap, HashMap};

/// The most states the target may begin one pool in (or end the last).
const MAX_STATES: usize = 1 << 12;

/// The most entries a Plan's lookups hold in all.
const MAX_ENTRIES: usize = 1 << 18;

/// The most outcomes of one pool's draws.
const MAX_OUTCOMES: usize = 1 << 16;

/// One lane of the packed sums: the number it holds, where, and its mask.
#[derive(Debug, Clone)]
struct Lane {
    number: usize,
    offset: u32,
    mask: u64,
}

/// The most bits of lanes one histogram counts together: a trial adds one
/// to the histogram of each group of lanes (2^12 counts, in the first-level
/// cache), and a chunk unpacks each value counted into its lanes at the end.
const GROUP_BITS: u32 = 12;

/// The most bits one lane may take (its histogram has 2^bits counts).
const LANE_BITS: u32 = 20;

/// The lookups' bytes past which trials are looked up [`BATCH`] at a time:
/// past the first-level cache and a share of the second, a trial's chain of
/// lookups waits on the caches, while smaller lookups run faster one trial
/// after another.
const BATCH_FROM: usize = 1 << 17;

/// Trials looked up together, a stage at a time: one stage's lookups for
/// the batch's trials do not wait on one another, so the caches serve them
/// together rather than one trial's chain of lookups after another.
const BATCH: usize = 16;

/// Lanes next to each other in the packed word, counted in one histogram of
/// the bits under `mask` from `offset`, from `base` in a chunk's counts.
#[derive(Debug, Clone)]
struct Group {
    offset: u32,
    mask: u64,
    base: usize,
    lanes: Vec<Lane>,
}

/// How a pool's entry is found from the state it begins in and its drawn
/// outcome's second part.
#[derive(Debug, Clone)]
enum Pick {
    /// Entry `state * span + part` (the part is `failed saves * harm
    /// events' span + harm events`).
    Fixed { span: usize },
    /// Entry drawn from `tables[state * wounds + part]` (the part is the
    /// wounds reaching the save).
    Drawn {
        wounds: usize,
        tables: Vec<ValueAlias>,
    },
}

/// One column of a pool's outcome draw: the draw of [`ValueAlias::pick32`]
/// with each outcome's lanes and second part kept beside its chance, so a
/// trial reads one place per pool's outcome, and in 24 bytes (the tables of
/// several pools pass the second-level cache of some processors).
#[derive(Debug, Clone, Copy)]
struct OutcomeColumn {
    /// What the column's own outcome and its alias add to the lanes.
    lanes: [u64; 2],
    /// Their second parts.
    parts: [u16; 2],
    /// The own outcome is drawn when the low half of `half * columns` is at
    /// most this.
    last_own: u32,
}

// The size the tables are laid out for.
const _: () = assert!(std::mem::size_of::<OutcomeColumn>() == 24);

impl OutcomeColumn {
    /// A column of a [`ValueAlias`] whose values are indices into
    /// `outcomes` (lanes packed, second part), as
    /// [`ValueAlias::columns32`] gives it; `None` when a part does not fit
    /// 16 bits.
    fn new(
        (last_own, own, alias): (Option<u32>, u64, u64),
        outcomes: &[(u64, u32)],
    ) -> Option<Self> {
        // A column that never keeps its own value holds its alias twice.
        let own = if last_own.is_none() { alias } else { own };
        let (own, alias) = (outcomes[own as usize], outcomes[alias as usize]);
        Some(OutcomeColumn {
            lanes: [own.0, alias.0],
            parts: [u16::try_from(own.1).ok()?, u16::try_from(alias.1).ok()?],
            last_own: last_own.unwrap_or(0),
        })
    }
}

/// One pool's lookup.
#[derive(Debug, Clone)]
struct Step {
    /// Draws an outcome of the pool's draws, from half a word.
    outcomes: Vec<OutcomeColumn>,
    pick: Pick,
    /// Per entry: what it adds to the lanes, and the state after the pool.
    entries: Vec<(u64, u32)>,
}

/// Several pools' resolutions looked up in turn (see the module notes).
#[derive(Debug, Clone)]
pub(crate) struct PoolChain {
    steps: Vec<Step>,
    /// The held harm: per state after the last pool, its entry (`None`), or
    /// a table drawing it.
    last: Option<Vec<ValueAlias>>,
    /// Per last entry: what it adds to the lanes, and its row of
    /// final-state numbers.
    last_entries: Vec<(u64, u32)>,
    /// Rows of the final-state numbers, `finals.len()` a row.
    rows: Vec<u32>,
    finals: Vec<usize>,
    groups: Vec<Group>,
    /// Numbers the same in every trial: (number, value).
    constant: Vec<(usize, u32)>,
    /// Run [`BATCH`] trials at a time: the lookups pass [`BATCH_FROM`] bytes.
    batched: bool,
}

/// An entry while the lookups are built: the state after it (or the final
/// row) and what it adds to each lane.
type RawEntry = (u32, Vec<u32>);

/// One pool's lookup while it is built.
struct RawStep {
    draw: ValueAlias,
    outcomes: Vec<(Vec<u32>, u32)>,
    pick: Pick,
    entries: Vec<RawEntry>,
}

/// Interned states of the target between pools.
#[derive(Default)]
struct States {
    keys: Vec<Vec<u32>>,
    index: HashMap<Vec<u32>, u32>,
}

impl States {
    fn intern(&mut self, key: Vec<u32>) -> u32 {
        let next = self.keys.len() as u32;
        *self.index.entry(key.clone()).or_insert_with(|| {
            self.keys.push(key);
            next
        })
    }
}

/// Entries interned, for the tables that draw them.
#[derive(Default)]
struct Entries {
    list: Vec<RawEntry>,
    index: HashMap<RawEntry, u32>,
}

impl Entries {
    fn intern(&mut self, entry: RawEntry) -> u32 {
        let next = self.list.len() as u32;
        *self.index.entry(entry.clone()).or_insert_with(|| {
            self.list.push(entry);
            next
        })
    }
}

/// The workspace the lookups are built in, and how a state is written down.
struct Builder<'p> {
    program: &'p Program,
    ws: Workspace<'p>,
    /// Per sequence, the harm its pool holds until the end.
    inflicts: Vec<Option<Inflict>>,
    /// Numbers of the target's final state (the others are lanes).
    finals: Vec<usize>,
}

impl Builder<'_> {
    /// The state a pool begins in: models alive and front wounds per
    /// group, wounds and models lost, and the harm held (pool, focus, times).
    fn key(&self) -> Vec<u32> {
        let s = &self.ws.state;
        let mut key = Vec::with_capacity(s.alive.len() * 2 + 2 + self.ws.deferred.len() * 3);
        key.extend(&s.alive);
        key.extend(&s.front);
        key.extend([s.damage, s.destroyed]);
        for held in &self.ws.deferred {
            let focus = held.focus.map_or(0, |f| f as u32 + 1);
            key.extend([held.index as u32, focus, held.times]);
        }
        key
    }

    /// Back to state `key`, with nothing counted yet.
    fn restore(&mut self, key: &[u32]) {
        let groups = self.ws.state.alive.len();
        let state = &mut self.ws.state;
        state.alive.copy_from_slice(&key[..groups]);
        state.front.copy_from_slice(&key[groups..2 * groups]);
        state.damage = key[2 * groups];
        state.destroyed = key[2 * groups + 1];
        state.mortal = 0;
        self.ws.deferred.clear();
        for held in key[2 * groups + 2..].chunks_exact(3) {
            let index = held[0] as usize;
            self.ws.deferred.push(Held {
                index,
                what: self.inflicts[index].expect("held harm comes from a pool that holds it"),
                focus: held[1].checked_sub(1).map(|f| f as usize),
                times: held[2],
            });
        }
        self.ws.counters.iter_mut().for_each(|c| *c = 0);
        self.ws.by_sequence.iter_mut().for_each(|h| *h = (0, 0));
    }

    /// What was counted since the last restore: the counters, then each
    /// attributed sequence's wounds and mortal wounds.
    fn counted(&self) -> Vec<u32> {
        let mut lanes = self.ws.counters.clone();
        lanes.extend(self.ws.by_sequence.iter().flat_map(|&(d, m)| [d, m]));
        lanes
    }

    /// Pool `index`'s resolution from `key` for every (failed saves, harm
    /// events) pair, when none rolls a die.
    fn fixed(
        &mut self,
        index: usize,
        pool: &RunPool,
        keys: &[Vec<u32>],
        (failures, harms): (usize, usize),
        next: &mut States,
    ) -> Option<Vec<RawEntry>> {
        let m = pool.tests.len();
        let mut entries = Vec::with_capacity(keys.len() * failures * harms);
        for key in keys {
            for failed in 0..failures {
                for harm in 0..harms {
                    let drawn = Drawn::for_resolution(m, failed as u32, harm as u32);
                    let mut script = Script {
                        prefix: &[],
                        at: 0,
                        beyond: None,
                    };
                    self.restore(key);
                    let before = self.ws.harm();
                    resolve(
                        index,
                        pool,
                        self.inflicts[index],
                        None,
                        &drawn,
                        &mut self.ws,
                        &mut script,
                    );
                    self.ws.attribute(self.program.attributed[index], before);
                    if script.beyond.is_some() || entries.len() > MAX_ENTRIES {
                        return None;
                    }
                    entries.push((next.intern(self.key()), self.counted()));
                }
            }
        }
        Some(entries)
    }

    /// Pool `index`'s resolution from `key`, one failed save at a time,
    /// every roll enumerated: per number of failed saves, the entries and
    /// their chances.
    fn one_by_one(
        &mut self,
        index: usize,
        pool: &RunPool,
        key: &[u32],
        failures: usize,
        next: &mut States,
        entries: &mut Entries,
    ) -> Option<Vec<Vec<(u32, f64)>>> {
        self.restore(key);
        declare(pool, &mut self.ws);
        // The state within the pool, with what it counted so far.
        let full = |b: &Self| (b.key(), b.counted(), b.ws.state.mortal);
        let mut within = BTreeMap::from([(full(self), 1.0)]);
        let mut by_failed = Vec::with_capacity(failures);
        for failed in 0..failures {
            if failed > 0 {
                let mut after = BTreeMap::new();
                for ((k, counted, mortal), p) in &within {
                    let runs = enumerate(|script| {
                        self.restore(k);
                        self.ws.state.mortal = *mortal;
                        for (c, &v) in self.ws.counters.iter_mut().zip(counted) {
                            *c = v;
                        }
                        for (h, pair) in self
                            .ws
                            .by_sequence
                            .iter_mut()
                            .zip(counted[self.ws.counters.len()..].chunks_exact(2))
                        {
                            *h = (pair[0], pair[1]);
                        }
                        let before = self.ws.harm();
                        failed_save(pool, &mut self.ws, script);
                        self.ws.attribute(self.program.attributed[index], before);
                        full(self)
                    })?;
                    for (state, q) in runs {
                        *after.entry(state).or_insert(0.0) += p * q;
                    }
                }
                if after.len() > MAX_STATES {
                    return None;
                }
                within = after;
            }
            by_failed.push(
                within
                    .iter()
                    .map(|((k, counted, _), &p)| {
                        let id = next.intern(k.clone());
                        (entries.intern((id, counted.clone())), p)
                    })
                    .collect(),
            );
        }
        Some(by_failed)
    }

    /// The lookup of the pool at sequence `index` from every state in
    /// `keys`; the states after it are interned in `next`.
    fn step(
        &mut self,
        index: usize,
        pool: &RunPool,
        tables: &PoolTables,
        keys: &[Vec<u32>],
        next: &mut States,
    ) -> Option<RawStep> {
        let m = pool.tests.len();
        let attacks = pool.fixed_attacks?;
        let (vectors, _, _) = tables.by_count.get(attacks as usize)?;
        let (_, chance) = tables.binomial.as_ref()?;
        let most = |i: usize| {
            vectors
                .iter()
                .map(|&v| slot(v, i) as usize)
                .max()
                .unwrap_or(0)
        };
        let (failures, harms) = (most(m) + 1, most(m + 1) + 1);
        let (vectors, chances, _) = tables.by_count.get(attacks as usize)?;
        let width = self.ws.counters.len() + 2 * self.ws.by_sequence.len();
        let lanes_of = |counts: &[u32; SLOTS]| {
            let mut lanes = vec![0; width];
            crate::workspace::bump(&mut lanes, pool.attacks_counter, attacks);
            for (k, t) in pool.tests.iter().enumerate() {
                crate::workspace::bump(&mut lanes, t.counter, counts[k]);
            }
            lanes
        };
        // The pool's draws as one outcome: what the tests counted, with the
        // failed saves and harm events (the entry's offset from its state's
        // first), or with the wounds reaching the save when the failed saves
        // are drawn with the rest of the resolution.
        let outcomes = |with_failed: bool| {
            let mut merged: BTreeMap<(Vec<u32>, u32), f64> = BTreeMap::new();
            for (&v, &p) in vectors.iter().zip(chances) {
                let counts = unpack(v);
                let (wounds, harm) = (counts[m], counts[m + 1]);
                if with_failed {
                    for (failed, q) in pmf(wounds, chance.chance()).into_iter().enumerate() {
                        let at = failed as u32 * harms as u32 + harm;
                        *merged.entry((lanes_of(&counts), at)).or_insert(0.0) += p * q;
                    }
                } else {
                    *merged.entry((lanes_of(&counts), wounds)).or_insert(0.0) += p;
                }
            }
            (merged.len() <= MAX_OUTCOMES).then(|| {
                let ids: Vec<u64> = (0..merged.len() as u64).collect();
                let probs: Vec<f64> = merged.values().copied().collect();
                (ValueAlias::new(&probs, &ids), merged.into_keys().collect())
            })
        };
        if keys.len() * failures * harms > MAX_ENTRIES {
            return None;
        }
        let mut tried = States::default();
        if let Some(entries) = self.fixed(index, pool, keys, (failures, harms), &mut tried) {
            *next = tried;
            let (draw, outcomes) = outcomes(true)?;
            return Some(RawStep {
                draw,
                outcomes,
                pick: Pick::Fixed {
                    span: failures * harms,
                },
                entries,
            });
        }
        // Dice on the failed saves only: nothing else may follow them.
        if harms > 1 {
            return None;
        }
        let mut entries = Entries::default();
        let mut tables = Vec::with_capacity(keys.len() * failures);
        for key in keys {
            let by_failed = self.one_by_one(index, pool, key, failures, next, &mut entries)?;
            for wounds in 0..failures {
                let mut mixed: BTreeMap<u32, f64> = BTreeMap::new();
                for (given, q) in by_failed.iter().zip(pmf(wounds as u32, chance.chance())) {
                    for &(entry, p) in given {
                        *mixed.entry(entry).or_insert(0.0) += p * q;
                    }
                }
                let ids: Vec<u64> = mixed.keys().map(|&e| u64::from(e)).collect();
                let chances: Vec<f64> = mixed.values().copied().collect();
                tables.push(ValueAlias::new(&chances, &ids));
            }
            if entries.list.len() > MAX_ENTRIES || next.keys.len() > MAX_STATES {
                return None;
            }
        }
        let (draw, outcomes) = outcomes(false)?;
        Some(RawStep {
            draw,
            outcomes,
            pick: Pick::Drawn {
                wounds: failures,
                tables,
            },
            entries: entries.list,
        })
    }

    /// The held harm from every state in `keys`: per state, its entries and
    /// their chances; the final-state rows are interned in `rows`.
    fn last(&mut self, keys: &[Vec<u32>], rows: &mut States) -> Option<Vec<Vec<(RawEntry, f64)>>> {
        let program = self.program;
        let finals = self.finals.clone();
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            let runs = enumerate(|script| {
                self.restore(key);
                resolve_deferred(program, &mut self.ws, script, &mut NoTrace);
                let mut all = Vec::new();
                Tally::each_number(&self.ws, |_, v| all.push(v));
                let row: Vec<u32> = finals.iter().map(|&i| all[i]).collect();
                (row, self.counted())
            })?;
            let mut merged: BTreeMap<RawEntry, f64> = BTreeMap::new();
            for ((row, lanes), p) in runs {
                *merged.entry((rows.intern(row), lanes)).or_insert(0.0) += p;
            }
            out.push(merged.into_iter().collect());
            if rows.keys.len() > MAX_STATES {
                return None;
            }
        }
        Some(out)
    }
}

impl PoolChain {
    /// The lookups for `program`, whose pools have `pools` tables; `None`
    /// when it is not several pools attacking the target once with a fixed
    /// number of attack dice and saves alike for every group, or when the
    /// lookups pass their budgets.
    pub(crate) fn new(program: &Program, pools: &[Option<PoolTables>]) -> Option<PoolChain> {
        if program.sequences.len() < 2
            || program.plan.rounds.is_some()
            || program.plan.attacker.is_some()
            || program.outcome_counter.is_some()
        {
            return None;
        }
        let mut chain = Vec::new();
        for (seq, tables) in program.sequences.iter().zip(pools) {
            match (seq, tables) {
                // A pool's one damage re-roll is state the lookups do not hold.
                (RunSequence::Pool(pool), Some(tables))
                    if pool.against == Side::Target && !pool.damage_reroll_one =>
                {
                    chain.push((pool, tables));
                }
                _ => return None,
            }
        }
        let ws = Workspace::new(program);
        let width = program.numbers().len();
        let counters = ws.counters.len();
        let groups = ws.state.alive.len();
        let attributed_from = counters + 2 + groups;
        let attributed_to = attributed_from + 2 * ws.by_sequence.len();
        let finals: Vec<usize> = (0..width)
            .filter(|&i| i >= counters && !(attributed_from..attributed_to).contains(&i))
            .collect();
        let lane_numbers: Vec<usize> = (0..counters)
            .chain(attributed_from..attributed_to)
            .collect();
        let mut b = Builder {
            program,
            inflicts: pools
                .iter()
                .map(|t| t.as_ref().and_then(|t| t.inflict))
                .collect(),
            ws,
            finals,
        };
        b.ws.reset();
        let mut keys = vec![b.key()];
        let mut steps = Vec::new();
        for (index, (pool, tables)) in chain.into_iter().enumerate() {
            let mut next = States::default();
            steps.push(b.step(index, pool, tables, &keys, &mut next)?);
            if next.keys.len() > MAX_STATES {
                return None;
            }
            keys = next.keys;
        }
        let mut rows = States::default();
        let last = b.last(&keys, &mut rows)?;
        Self::pack(steps, last, &rows, b.finals, &lane_numbers)
    }

    /// Pack the lanes into words, once their widths are known.
    fn pack(
        raw: Vec<RawStep>,
        last: Vec<Vec<(RawEntry, f64)>>,
        rows: &States,
        finals: Vec<usize>,
        lane_numbers: &[usize],
    ) -> Option<PoolChain> {
        // Per lane: the least and most each source adds, summed.
        let n = lane_numbers.len();
        let (mut low, mut high) = (vec![0u64; n], vec![0u64; n]);
        let mut add = |sources: &mut dyn Iterator<Item = &Vec<u32>>| {
            let (mut lo, mut hi) = (vec![u64::MAX; n], vec![0u64; n]);
            for source in sources {
                for (l, &v) in source.iter().enumerate() {
                    lo[l] = lo[l].min(u64::from(v));
                    hi[l] = hi[l].max(u64::from(v));
                }
            }
            for l in 0..n {
                low[l] += if lo[l] == u64::MAX { 0 } else { lo[l] };
                high[l] += hi[l];
            }
        };
        for step in &raw {
            add(&mut step.outcomes.iter().map(|o| &o.0));
            add(&mut step.entries.iter().map(|e| &e.1));
        }
        add(&mut last.iter().flatten().map(|(e, _)| &e.1));
        let (groups, constant, offsets) = layout(lane_numbers, &low, &high)?;
        let pack = |row: &[u32]| -> u64 {
            row.iter()
                .zip(&offsets)
                .filter_map(|(&v, o)| o.map(|o| u64::from(v) << o))
                .sum()
        };
        let mut steps = Vec::with_capacity(raw.len());
        for s in raw {
            let outcomes: Vec<(u64, u32)> = s.outcomes.iter().map(|o| (pack(&o.0), o.1)).collect();
            steps.push(Step {
                outcomes: (s.draw.columns32())
                    .map(|column| OutcomeColumn::new(column, &outcomes))
                    .collect::<Option<_>>()?,
                pick: s.pick,
                entries: s.entries.iter().map(|e| (pack(&e.1), e.0)).collect(),
            });
        }
        // A last step with one outcome a state keeps its entries in state
        // order (the entry is the state); otherwise they are interned.
        let fixed = last.iter().all(|outcomes| outcomes.len() == 1);
        let mut entries = Entries::default();
        let tables: Vec<ValueAlias> = last
            .into_iter()
            .map(|outcomes| {
                let ids: Vec<u64> = outcomes
                    .iter()
                    .map(|(e, _)| {
                        if fixed {
                            entries.list.push(e.clone());
                            entries.list.len() as u64 - 1
                        } else {
                            u64::from(entries.intern(e.clone()))
                        }
                    })
                    .collect();
                let chances: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
                ValueAlias::new(&chances, &ids)
            })
            .collect();
        let mut chain = PoolChain {
            steps,
            last: (!fixed).then_some(tables),
            last_entries: entries.list.iter().map(|e| (pack(&e.1), e.0)).collect(),
            rows: rows.keys.concat(),
            finals,
            groups,
            constant,
            batched: false,
        };
        chain.batched = chain.lookup_bytes() > BATCH_FROM;
        Some(chain)
    }

    /// The bytes of the lookups a trial reads from: outcome columns,
    /// entries, the tables that draw them, and the lanes' histograms.
    fn lookup_bytes(&self) -> usize {
        let column = std::mem::size_of::<OutcomeColumn>();
        let entry = std::mem::size_of::<(u64, u32)>();
        let tables = |tables: &[ValueAlias]| -> usize {
            tables.iter().map(|t| t.columns32().count() * 24).sum()
        };
        let steps: usize = (self.steps.iter())
            .map(|s| {
                let drawn = match &s.pick {
                    Pick::Fixed { .. } => 0,
                    Pick::Drawn { tables: t, .. } => tables(t),
                };
                s.outcomes.len() * column + s.entries.len() * entry + drawn
            })
            .sum();
        let histograms = self
            .groups
            .iter()
            .map(|g| (g.mask as usize + 1) * 4)
            .sum::<usize>();
        steps
            + self.last.as_deref().map_or(0, tables)
            + self.last_entries.len() * entry
            + histograms
    }

    /// Run `trials` trials from `stream` into `tally`.
    pub(crate) fn run(&self, trials: u64, stream: &mut Stream, tally: &mut Tally) {
        let size = self
            .groups
            .last()
            .map_or(0, |g| g.base + g.mask as usize + 1);
        // A chunk's trials fit 32 bits: half the cache a 64-bit count takes.
        assert!(
            u32::try_from(trials).is_ok(),
            "a chunk counts its trials in 32 bits"
        );
        let mut counts = vec![0u32; size];
        let mut by_row = vec![0u32; self.rows.len() / self.finals.len()];
        if self.batched {
            self.run_batched(trials, stream, &mut counts, &mut by_row);
        } else {
            self.run_one_by_one(trials, stream, &mut counts, &mut by_row);
        }
        for group in &self.groups {
            let hist = &counts[group.base..=group.base + group.mask as usize];
            for (value, &times) in hist.iter().enumerate() {
                if times > 0 {
                    for lane in &group.lanes {
                        let v = (value as u64) >> (lane.offset - group.offset) & lane.mask;
                        tally.record_times(lane.number, v as u32, u64::from(times));
                    }
                }
            }
        }
        for &(number, value) in &self.constant {
            tally.record_times(number, value, trials);
        }
        for (row, &times) in self.rows.chunks_exact(self.finals.len()).zip(&by_row) {
            if times > 0 {
                for (&number, &value) in self.finals.iter().zip(row) {
                    tally.record_times(number, value, u64::from(times));
                }
            }
        }
    }

    /// The trials one after another: each counted into the lanes'
    /// histograms (`counts`) and its final row (`by_row`).
    fn run_one_by_one(
        &self,
        trials: u64,
        stream: &mut Stream,
        counts: &mut [u32],
        by_row: &mut [u32],
    ) {
        // A local copy of the stream stays in registers.
        let mut local = stream.clone();
        let mut halves = Halves::default();
        for _ in 0..trials {
            let mut state = 0usize;
            let mut sum = 0u64;
            for step in &self.steps {
                let (lanes, part) = draw_outcome(&step.outcomes, halves.next(&mut local));
                sum += lanes;
                let entry = match &step.pick {
                    Pick::Fixed { span } => state * span + part as usize,
                    Pick::Drawn { wounds, tables } => tables[state * wounds + part as usize]
                        .pick32(halves.next(&mut local))
                        as usize,
                };
                let (lanes, next) = step.entries[entry];
                state = next as usize;
                sum += lanes;
            }
            let entry = match &self.last {
                None => state,
                Some(tables) => tables[state].pick32(halves.next(&mut local)) as usize,
            };
            self.count(entry, sum, counts, by_row);
        }
        *stream = local;
    }

    /// [`PoolChain::run_one_by_one`] [`BATCH`] trials at a time, a stage
    /// at a time: the same halves go to the same trials.
    fn run_batched(
        &self,
        trials: u64,
        stream: &mut Stream,
        counts: &mut [u32],
        by_row: &mut [u32],
    ) {
        // A local copy of the stream stays in registers.
        let mut local = stream.clone();
        let mut halves = Halves::default();
        // Each trial takes the same number of halves: one a pool's outcome,
        // one more a drawn entry, and one for drawn held harm.
        let drawn = (self.steps.iter())
            .filter(|s| matches!(s.pick, Pick::Drawn { .. }))
            .count();
        let per_trial = self.steps.len() + drawn + usize::from(self.last.is_some());
        let mut buffer = vec![0u32; BATCH * per_trial];
        let mut done = 0;
        while done < trials {
            let n = (trials - done).min(BATCH as u64) as usize;
            // The halves in the order trial after trial would draw them,
            // kept by stage: `buffer[at * BATCH + b]` is trial `b`'s half `at`.
            for b in 0..n {
                for at in 0..per_trial {
                    buffer[at * BATCH + b] = halves.next(&mut local);
                }
            }
            let trial_halves = |at: usize| &buffer[at * BATCH..at * BATCH + n];
            let mut state = [0usize; BATCH];
            let mut sum = [0u64; BATCH];
            let mut at = 0;
            for step in &self.steps {
                let mut part = [0u32; BATCH];
                for (b, &half) in trial_halves(at).iter().enumerate() {
                    let (lanes, p) = draw_outcome(&step.outcomes, half);
                    sum[b] += lanes;
                    part[b] = p;
                }
                at += 1;
                let mut entry = [0usize; BATCH];
                match &step.pick {
                    Pick::Fixed { span } => {
                        for b in 0..n {
                            entry[b] = state[b] * span + part[b] as usize;
                        }
                    }
                    Pick::Drawn { wounds, tables } => {
                        for (b, &half) in trial_halves(at).iter().enumerate() {
                            let table = &tables[state[b] * wounds + part[b] as usize];
                            entry[b] = table.pick32(half) as usize;
                        }
                        at += 1;
                    }
                }
                for b in 0..n {
                    let (lanes, next) = step.entries[entry[b]];
                    state[b] = next as usize;
                    sum[b] += lanes;
                }
            }
            for b in 0..n {
                let entry = match &self.last {
                    None => state[b],
                    Some(tables) => tables[state[b]].pick32(buffer[at * BATCH + b]) as usize,
                };
                self.count(entry, sum[b], counts, by_row);
            }
            done += n as u64;
        }
        *stream = local;
    }

    /// A trial's last entry `entry` and its sum over the pools `sum`:
    /// counted into its final row and the lanes' histograms.
    #[inline]
    fn count(&self, entry: usize, sum: u64, counts: &mut [u32], by_row: &mut [u32]) {
        let (lanes, row) = self.last_entries[entry];
        by_row[row as usize] += 1;
        let sum = sum + lanes;
        for group in &self.groups {
            counts[group.base + (sum >> group.offset & group.mask) as usize] += 1;
        }
    }
}

/// A pool's outcome drawn from 32 random bits `half`: what it adds to the
/// lanes and its second part, as [`ValueAlias::pick32`] would pick it.
#[inline]
fn draw_outcome(columns: &[OutcomeColumn], half: u32) -> (u64, u32) {
    let (column, low) = split32(half, columns.len());
    let column = &columns[column];
    let which = usize::from(low > column.last_own);
    (column.lanes[which], u32::from(column.parts[which]))
}

/// Lanes laid out in a word, from the least and most each number sums to
/// in a trial: the groups of lanes that vary, the numbers that do not, and
/// each lane's offset (`None` for a constant). `None` when a lane or the
/// word would be too wide.
type Layout = (Vec<Group>, Vec<(usize, u32)>, Vec<Option<u32>>);

fn layout(lane_numbers: &[usize], low: &[u64], high: &[u64]) -> Option<Layout> {
    let mut groups: Vec<Group> = Vec::new();
    let mut constant = Vec::new();
    let mut offsets = vec![None; lane_numbers.len()];
    let mut offset = 0;
    for (l, &number) in lane_numbers.iter().enumerate() {
        if low[l] == high[l] {
            constant.push((number, low[l] as u32));
            continue;
        }
        let bits = 64 - high[l].leading_zeros();
        if bits > LANE_BITS {
            return None;
        }
        offsets[l] = Some(offset);
        let lane = Lane {
            number,
            offset,
            mask: (1u64 << bits) - 1,
        };
        match groups.last_mut() {
            Some(g) if g.mask.count_ones() + bits <= GROUP_BITS => {
                g.mask = g.mask << bits | lane.mask;
                g.lanes.push(lane);
            }
            _ => groups.push(Group {
                offset,
                mask: lane.mask,
                base: 0,
                lanes: vec![lane],
            }),
        }
        offset += bits;
    }
    if offset > 64 {
        return None;
    }
    let mut base = 0;
    for g in &mut groups {
        g.base = base;
        base += g.mask as usize + 1;
    }
    Some((groups, constant, offsets))
}

/// Random words used half at a time: each draw of a trial takes 32 bits,
/// the low half of a fresh word and then its high half.
#[derive(Default)]
struct Halves {
    word: u64,
    spare: bool,
}

impl Halves {
    #[inline]
    fn next(&mut self, stream: &mut Stream) -> u32 {
        if self.spare {
            self.spare = false;
            (self.word >> 32) as u32
        } else {
            self.word = stream.next_u64();
            self.spare = true;
            self.word as u32
        }
    }
}

mod script;
#[cfg(test)]
mod tests;
