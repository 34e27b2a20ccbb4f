//! The fast Monte Carlo path: draw each attack pool's whole outcome from its
//! exact distribution instead of rolling every die.
//!
//! Attack dice are independent until they reach the save, so the tests of a
//! pool (hit, wound, their re-rolls, extra tokens, skips, mortal-wound
//! triggers) have an exact joint distribution for any number of dice `n`:
//! the n-fold convolution of one die's. That table is built once per Plan and
//! sampled with one random word per pool per trial (alias method). When every
//! group saves on exactly the same faces, the save's failures are binomial and
//! drawn the same way; otherwise the save dice are rolled and resolved lowest
//! first, as the die-by-die executor does. Damage, Feel No Pain and mortal
//! wounds are always rolled, because they depend on the target's state.
//!
//! Tables are built for as many attack dice as their budget allows. A pool
//! that can gather more draws the rest as a multinomial over one die's
//! outcomes, and its failed saves as a binomial (`binomial.rs`), so the cost
//! of a trial grows with the number of distinct outcomes, not of dice.
//!
//! A pool with the unit's one hit or wound re-roll ties its dice together
//! (the re-roll goes to the first die that fails); past its tables its dice
//! are drawn in runs between the dice that use a re-roll (`tied_dice.rs`).
//!
//! The unit's one damage re-roll is spent as the failed saves resolve, in
//! the order die by die resolves them; the whole-trial table and the lookups
//! leave such a pool alone (their states do not hold whether it is spent),
//! while the tables of the state after failed saves hold it.
//!
//! Both paths draw from the same distribution; the tests compare them. A Plan
//! whose one-die table cannot be built, or whose pool mixes several kinds of
//! mortal-wound effect (their interleaving matters), runs die by die.

use crate::alias::{AliasTable, ValueAlias};
use crate::binomial::{Chance, Multinomial};
use crate::executor::{
    declare, drive, fail_as_count, gather_attacks, inflict, resolve_save_faces, saves_in_turn,
    unsaved,
};
use crate::failed_states::FailedStates;
use crate::plan::{Group, Side};
use crate::pool_chain::PoolChain;
use crate::program::{Inflict, Program, RunPool, RunSequence};
use crate::rng::{DiceSource, Stream};
use crate::tables::{
    binomial_pmf, one_token, point, slot, sorted, then_row, total, unpack, Builder, Dist, BITS,
    SLOTS,
};
use crate::tied_dice::TiedDice;
use crate::trace::NoTrace;
use crate::trial_table::{Resolutions, TrialTable};
use crate::workspace::{bump, Workspace};

/// The most table entries (over all pools and all dice counts) the fast path
/// builds; counts of more dice are drawn as multinomials. A table for n dice
/// has about n²/2 entries, so past this building them costs more than they
/// save.
pub const MAX_TABLE_ENTRIES: usize = 1 << 16;

/// One pool's tables: index layout of an outcome vector is one slot per test
/// (that test's counter increments), then tokens reaching the save, then
/// mortal-wound effects triggered.
#[derive(Debug, Clone)]
pub(crate) struct PoolTables {
    /// `by_count[n]`: packed outcome vectors, their chances and their alias
    /// table for n dice, for every n up to as many as the budget allowed.
    pub(crate) by_count: Vec<(Vec<u64>, Vec<f64>, ValueAlias)>,
    /// How more dice than `by_count` holds are drawn.
    beyond: Option<Beyond>,
    /// When saves fail on the same faces for every group: `binomial[w]` for
    /// w wounds, as far as tabulated, and the chance one save fails.
    pub(crate) binomial: Option<(Vec<AliasTable>, Chance)>,
    pub(crate) inflict: Option<Inflict>,
}

/// A Program with its fast-path tables, where they could be built.
#[derive(Debug, Clone)]
pub struct Sampler {
    pools: Vec<Option<PoolTables>>,
    /// Whole trials in one draw, where the Plan allows (`trial_table.rs`).
    pub(crate) whole: Option<TrialTable>,
    /// Or the pool's resolution looked up, where the Plan allows.
    pub(crate) resolved: Option<Resolutions>,
    /// Or several pools' resolutions looked up in turn (`pool_chain.rs`).
    pub(crate) chain: Option<PoolChain>,
    /// Or, with none of those, the target's state after the one pool's
    /// failed saves drawn in one draw (`failed_states.rs`).
    pub(crate) failed_states: Option<FailedStates>,
}

impl Sampler {
    /// Build the tables; `None` when any pool must run die by die.
    #[must_use]
    pub fn new(program: &Program) -> Option<Sampler> {
        let mut budget = MAX_TABLE_ENTRIES;
        let mut builder = Builder::default();
        let mut pools = Vec::new();
        for seq in &program.sequences {
            pools.push(match seq {
                RunSequence::Mortal { .. }
                | RunSequence::Heal { .. }
                | RunSequence::Mark { .. } => None,
                RunSequence::Pool(pool) => Some(PoolTables::new(
                    pool,
                    match (pool.against, &program.plan.attacker) {
                        (Side::Attacker, Some(a)) => &a.groups,
                        _ => &program.plan.target.groups,
                    },
                    &mut budget,
                    &mut builder,
                )?),
            });
        }
        let mut resolved = Resolutions::new(program, &pools);
        let whole = resolved
            .as_ref()
            .and_then(|r| TrialTable::new(program, &pools, r));
        if let (None, Some(r)) = (&whole, &mut resolved) {
            r.key_draws(program, &pools);
        }
        let chain = resolved
            .is_none()
            .then(|| PoolChain::new(program, &pools))
            .flatten();
        let failed_states = (whole.is_none() && resolved.is_none() && chain.is_none())
            .then(|| failed_states_of(program, &pools))
            .flatten();
        Some(Sampler {
            pools,
            whole,
            resolved,
            chain,
            failed_states,
        })
    }
}

/// The Plan's one pool and its tables, when the Plan is one pool attacking
/// the target once, with saves alike for every group (so its failed saves
/// are drawn).
pub(crate) fn pool_alone<'a>(
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

/// The tables of the target's state after failed saves, for a Plan whose
/// one pool is alone ([`pool_alone`]), each failed save resolved in turn,
/// and nothing of it kept outside the target's state, the counters and the
/// unit's one damage re-roll (no mark or mortal wounds from a damage
/// threshold).
fn failed_states_of(program: &Program, pools: &[Option<PoolTables>]) -> Option<FailedStates> {
    let (pool, _) = pool_alone(program, pools)?;
    let fits = (pool.one_at_a_time() || pool.damage_reroll_one) && pool.top_threshold.is_none();
    fits.then(|| FailedStates::new(program, pool)).flatten()
}

impl Sampler {
    /// The first pool's tables (the one pool of a Plan whose resolution is
    /// looked up).
    pub(crate) fn first_pool(&self) -> &PoolTables {
        self.pools
            .iter()
            .flatten()
            .next()
            .expect("a Plan with a lookup has one pool")
    }
}

impl PoolTables {
    fn new(
        pool: &RunPool,
        groups: &[Group],
        budget: &mut usize,
        b: &mut Builder,
    ) -> Option<PoolTables> {
        let m = pool.tests.len();
        let save_slot = m;
        let (first, inflict) = one_token(pool, 1, *budget, b)?;
        // n-fold compositions for every number of attack dice the pool can
        // have, while they fit the budget and the packing.
        let max_attacks = pool.max_attacks();
        let packable = (1..=max_attacks)
            .take_while(|&n| pool.tokens_from(n) < 1 << BITS)
            .last()
            .unwrap_or(0);
        let mut by_count = Vec::new();
        let mut row = vec![Dist::default(); first.sets()];
        row[first.full()] = point(&[]);
        let mut max_saves = 0;
        for n in 0..=packable {
            if n > 0 {
                // Left within the work allowed, so later pools can still
                // build their one-die tables.
                let work: usize = row.iter().map(Dist::len).sum::<usize>() * first.entries();
                if !b.affords_work(work) {
                    break;
                }
                row = then_row(&row, &first, b)?;
            }
            let table = total(&row);
            if table.len() > *budget {
                break;
            }
            *budget -= table.len();
            let entries = sorted(&table);
            let probs: Vec<f64> = entries.iter().map(|e| e.1).collect();
            let keys: Vec<u64> = entries.iter().map(|e| e.0).collect();
            max_saves = max_saves.max(keys.iter().map(|&v| slot(v, save_slot)).max().unwrap_or(0));
            let alias = ValueAlias::new(&probs, &keys);
            by_count.push((keys, probs, alias));
        }
        let beyond = match first.plain() {
            _ if by_count.len() as u64 > max_attacks => None,
            Some(first) => {
                let outcomes = sorted(first)
                    .into_iter()
                    .map(|(v, p)| ((0..m + 2).map(|i| slot(v, i)).collect(), p))
                    .collect();
                Some(Beyond::Independent(Multinomial::new(outcomes, m + 2)))
            }
            // A one-die re-roll ties the dice together: they are drawn in
            // runs between the dice that use a re-roll.
            None => Some(Beyond::Tied(TiedDice::new(&first, m + 2))),
        };
        // Binomial saves when no group saves on a different face from another.
        let binomial = pool.save.alike(groups).then(|| {
            let q = pool.save.fail_chance(0, groups);
            let mut tables = Vec::new();
            for w in 0..=max_saves {
                if w as usize + 1 > *budget {
                    break;
                }
                *budget -= w as usize + 1;
                tables.push(AliasTable::new(&binomial_pmf(w, q)));
            }
            (tables, Chance::new(q))
        });
        Some(PoolTables {
            by_count,
            beyond,
            binomial,
            inflict,
        })
    }

    /// The failed saves of `wounds` tokens reaching the save, when every
    /// group saves on the same faces (so the failures are the lowest rolls:
    /// resolved in order, the passes change nothing); `None` otherwise.
    #[inline]
    pub(crate) fn draw_failed(&self, wounds: u32, stream: &mut Stream) -> Option<u32> {
        self.binomial
            .as_ref()
            .map(|(binomial, chance)| match binomial.get(wounds as usize) {
                Some(table) => table.sample(stream) as u32,
                None => chance.draw(wounds, stream),
            })
    }

    /// The counts of `dice` attack dice: one per test, then the tokens
    /// reaching the save, then the harm events.
    pub(crate) fn draw(&self, dice: u32, stream: &mut Stream) -> [u32; SLOTS] {
        if let Some((_, _, alias)) = self.by_count.get(dice as usize) {
            return unpack(alias.sample(stream));
        }
        let mut counts = [0; SLOTS];
        match self
            .beyond
            .as_ref()
            .expect("a pool with more dice than its tables hold draws them another way")
        {
            Beyond::Independent(m) => m.draw(dice, stream, &mut counts),
            Beyond::Tied(t) => t.draw(dice, stream, &mut counts),
        }
        counts
    }
}

/// How a pool draws more attack dice than its tables hold.
#[derive(Debug, Clone)]
enum Beyond {
    /// Independent dice: a multinomial over one die's outcomes.
    Independent(Multinomial),
    /// Dice the unit's one-die re-rolls tie together (`tied_dice.rs`).
    Tied(TiedDice),
}

/// Run one trial on the fast path.
///
/// # Panics
/// If `sampler` was not built from `program` (it holds tables for every pool).
pub fn run_trial(
    program: &Program,
    sampler: &Sampler,
    ws: &mut Workspace<'_>,
    stream: &mut Stream,
) {
    drive(
        program,
        ws,
        stream,
        &mut NoTrace,
        |index, pool, ws, stream, _| {
            let tables = sampler.pools[index]
                .as_ref()
                .expect("a Sampler has tables for every pool");
            run_pool(
                index,
                pool,
                tables,
                sampler.failed_states.as_ref(),
                ws,
                stream,
            );
        },
    );
}

fn run_pool(
    index: usize,
    pool: &RunPool,
    tables: &PoolTables,
    failed_states: Option<&FailedStates>,
    ws: &mut Workspace<'_>,
    stream: &mut Stream,
) {
    let attacks = gather_attacks(pool, ws.striking_alive(), stream);
    let counts = tables.draw(attacks, stream);
    let failed = tables.draw_failed(counts[pool.tests.len()], stream);
    let drawn = Drawn {
        attacks,
        counts,
        failed,
    };
    resolve(
        index,
        pool,
        tables.inflict,
        failed_states,
        &drawn,
        ws,
        stream,
    );
}

/// One failed save, resolved against the group current now.
pub(crate) fn failed_save<D: DiceSource>(pool: &RunPool, ws: &mut Workspace<'_>, dice: &mut D) {
    let current = ws.state.current(&ws.order);
    unsaved(pool, ws, current, dice, &mut NoTrace);
}

/// What the fast path draws for a pool before resolving it.
pub(crate) struct Drawn {
    /// Attack dice gathered.
    pub(crate) attacks: u32,
    /// One count per test, then tokens reaching the save, then harm events.
    pub(crate) counts: [u32; SLOTS],
    /// The failed saves, when drawn as a binomial (otherwise the save dice
    /// are rolled as the pool resolves).
    pub(crate) failed: Option<u32>,
}

impl Drawn {
    /// All the resolution of a pool of `tests` tests reads when its failed
    /// saves are drawn: `failed` failed saves and `harm` harm events. The
    /// lookups run it once for each such pair when the Program is compiled.
    pub(crate) fn for_resolution(tests: usize, failed: u32, harm: u32) -> Drawn {
        let mut counts = [0; SLOTS];
        counts[tests + 1] = harm;
        Drawn {
            attacks: 0,
            counts,
            failed: Some(failed),
        }
    }
}

/// Resolve a pool from what was drawn for it; any dice it still needs come
/// from `dice`. With `failed_states` (built for this Plan's one pool), the
/// drawn failed saves' resolution is drawn from it.
pub(crate) fn resolve<D: DiceSource>(
    index: usize,
    pool: &RunPool,
    inflicts: Option<Inflict>,
    failed_states: Option<&FailedStates>,
    drawn: &Drawn,
    ws: &mut Workspace<'_>,
    dice: &mut D,
) {
    let Drawn {
        attacks,
        counts,
        failed,
    } = *drawn;
    bump(&mut ws.counters, pool.attacks_counter, attacks);
    let m = pool.tests.len();
    for (k, t) in pool.tests.iter().enumerate() {
        bump(&mut ws.counters, t.counter, counts[k]);
    }
    let wounds = counts[m];
    // The unit's one damage re-roll, for this pool's first low damage roll
    // (as die by die: the failed saves resolve in the same order).
    ws.one_damage_left = pool.damage_reroll_one;
    declare(pool, ws);
    if let Some(failed) = failed {
        if let Some(states) = failed_states {
            states.resolve(pool, failed, ws, dice);
        } else if ws.one_damage_left || pool.one_at_a_time() {
            for _ in 0..failed {
                failed_save(pool, ws, dice);
            }
        } else {
            fail_as_count(pool, ws, failed, dice);
        }
    } else if pool.save.in_turn {
        saves_in_turn(pool, ws, wounds, dice, &mut NoTrace);
    } else {
        ws.save_faces.clear();
        ws.save_faces.resize(pool.save.die as usize + 1, 0);
        for _ in 0..wounds {
            ws.save_faces[dice.roll(pool.save.die) as usize] += 1;
        }
        resolve_save_faces(pool, ws, dice, &mut NoTrace);
    }
    if let Some(what) = inflicts {
        if what.after_all {
            if counts[m + 1] > 0 {
                ws.hold(index, what, counts[m + 1]);
            }
        } else {
            for _ in 0..counts[m + 1] {
                inflict(pool, ws, what, dice, &mut NoTrace);
            }
        }
    }
}
