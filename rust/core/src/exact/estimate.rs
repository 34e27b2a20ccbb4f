//! The work an evaluation will take, estimated before any of it is done, so
//! that a Plan far past the budget is declined at once instead of after a
//! second or two of work (or, before the budget counted it, minutes).
//!
//! The estimate counts the dense work whose size the Plan fixes: building
//! the pmfs of its dice, the attack dice a pool gathers, and the compound
//! sums of mortal wounds and the counters they are added to. The work on the
//! target's states depends on how many states the attacks reach; it is not
//! estimated but counted as it runs, within the same budget
//! ([`super::MAX_WORK`]).

use super::budget::MAX_WORK;
use super::nfold::{multisets, nfold_steps, Joint};
use super::TABLE_BUDGET;
use crate::dice::{DiceExpr, ModifiedDice};
use crate::plan::Excess;
use crate::program::{Inflict, InflictKind, Program, RunAction, RunPool, RunSequence, RunTest};
use crate::tables::{one_token, slot, Builder, Token, MAX_WORK as TABLE_WORK};
use std::collections::{BTreeSet, HashMap};

/// One die's table of a pool and the harm outside the save it inflicts, as
/// `tables::one_token` builds them, with the builder that built them (the
/// work it counted goes on counting towards the pool's limit).
#[derive(Clone)]
pub(super) struct Tabled {
    pub(super) token: Token,
    pub(super) inflict: Option<Inflict>,
    pub(super) builder: Builder,
}

impl Tabled {
    /// Entries of the table, over every set of re-rolls left.
    pub(super) fn entries(&self) -> usize {
        self.token.by.iter().flatten().map(HashMap::len).sum()
    }
}

/// Steps to build the pmf of `d` (the convolutions `ModifiedDice::distribution` does).
pub(super) fn dice_steps(d: impl Into<ModifiedDice>) -> u64 {
    let d: ModifiedDice = d.into();
    let sides = u64::from(d.dice.sides);
    (0..u64::from(d.dice.count))
        .map(|k| (k * sides.saturating_sub(1) + 1).saturating_mul(sides))
        .fold(0u64, u64::saturating_add)
}

/// Steps of the compound sum of up to `events` draws of `one` (a pmf of
/// `values` values), added to a counter whose pmf holds `counter` values.
fn compound_steps(events: u64, values: u64, counter: u64) -> u64 {
    let powers = (1..=events)
        .map(|n| n.saturating_mul(values).saturating_mul(values))
        .fold(0u64, u64::saturating_add);
    powers.saturating_add(counter.saturating_mul(events.saturating_mul(values)))
}

/// Steps of `pmf::power`: the n-fold sum of a pmf of `values` values by
/// squaring (each squaring of a pmf of s values costs s^2, each product
/// with the result its sizes' product).
pub(super) fn power_steps(values: u64, n: u64) -> u64 {
    let (mut steps, mut square, mut result) = (0u64, values, 1u64);
    let mut left = n;
    while left > 0 {
        if left & 1 == 1 {
            steps = steps.saturating_add(result.saturating_mul(square));
            result = result.saturating_add(square - 1);
        }
        left >>= 1;
        if left > 0 {
            steps = steps.saturating_add(square.saturating_mul(square));
            square = square.saturating_mul(2).saturating_sub(1);
        }
    }
    steps
}

/// The dense work of one pool, and the values its mortal-wound count can take.
fn pool_steps(pool: &RunPool, counter: u64) -> (u64, u64) {
    let mut steps = dice_steps(pool.damage);
    let mut total = 0u64;
    for term in &pool.attacks {
        steps = steps.saturating_add(dice_steps(term.dice));
        let one = u64::from(term.per_model(term.dice.max())) + 1;
        let fixed = term.maximize || term.dice.min() == term.dice.max();
        let power = one.saturating_sub(1).saturating_mul(u64::from(term.models)) + 1;
        if !fixed {
            steps = steps.saturating_add(power_steps(one, u64::from(term.models)));
        }
        steps = steps.saturating_add(total.max(1).saturating_mul(power));
        total = total.saturating_add(power);
    }
    let tokens = pool.max_tokens();
    let mut mortal_values = 0u64;
    for a in pool.tests.iter().flat_map(RunTest::actions) {
        let dice = match a {
            RunAction::Extra(d) => Some(ModifiedDice::from(*d)),
            RunAction::Inflict(Inflict {
                kind: InflictKind::Mortal { amount, .. },
                ..
            }) => {
                let d = amount.map_or(pool.damage, ModifiedDice::from);
                let values = u64::from(d.max()) + 1;
                steps = steps.saturating_add(compound_steps(tokens, values, counter));
                mortal_values = mortal_values.max(tokens.saturating_mul(values));
                Some(d)
            }
            RunAction::Inflict(Inflict {
                kind: InflictKind::Damage { damage, .. },
                ..
            }) => damage.map(ModifiedDice::from),
            RunAction::Skip(_) | RunAction::Count(_) => None,
        };
        if let Some(d) = dice {
            steps = steps.saturating_add(dice_steps(d));
        }
    }
    (steps, mortal_values)
}

/// The estimated dense work of evaluating `program`, in steps.
pub(super) fn steps(program: &Program) -> u64 {
    let mut steps = 0u64;
    // The mortal-wound counters grow as pools add to them; one running size
    // for all of them bounds each.
    let mut counter = 1u64;
    for seq in &program.sequences {
        match seq {
            RunSequence::Pool(pool) => {
                let (s, values) = pool_steps(pool, counter);
                steps = steps.saturating_add(s);
                counter = counter.saturating_add(values);
            }
            RunSequence::Mortal { amount, rolls, .. } => {
                let times = rolls.map_or(1, |r| u64::from(r.count));
                let values = u64::from(amount.max()) + 1;
                steps = steps
                    .saturating_add(dice_steps(*amount))
                    .saturating_add(compound_steps(times, values, counter));
                counter = counter.saturating_add(times.saturating_mul(values));
            }
            RunSequence::Heal { .. } | RunSequence::Mark { .. } => {}
        }
        if steps > MAX_WORK {
            break;
        }
    }
    steps
}

/// Multiply-adds of tabulating `pool` (`pool.rs`'s projections): for each
/// test's count, and for the tokens reaching the save jointly with harm
/// events, one die's table projected onto those slots and summed over every
/// number of attack dice up to the most. Without one-die re-rolls the sums
/// are `nfold.rs`'s (binomial, or a dense grid). With them, dice are composed
/// one at a time as sparse tables: a table of n dice holds at most the
/// values its slots' ranges allow, and at most the ways of choosing n of the
/// projected outcomes with repetition; the lesser bounds it. `None` when one
/// die's table cannot be built (the evaluator then declines with its reason).
///
/// Also the die's table, which the evaluator then uses rather than build it
/// again (for a small Plan, building it is a good part of the work).
pub(super) fn tabulation_steps(pool: &RunPool) -> Option<(u64, Tabled)> {
    if super::counts::why_not_counted(pool).is_some() {
        return None;
    }
    let mut builder = Builder::default();
    let (token, inflict) = one_token(pool, 1, TABLE_BUDGET, &mut builder)?;
    let m = pool.tests.len();
    let mut keeps: Vec<Vec<usize>> = (0..m).map(|t| vec![t]).collect();
    keeps.push(vec![m, m + 1]);
    let attacks = pool.max_attacks();
    let mut steps = 0u64;
    'keeps: for keep in &keeps {
        if let Some(one) = token.plain() {
            let mut projected = Joint::default();
            for (&v, &p) in one {
                let b = keep.get(1).map_or(0, |&j| slot(v, j));
                *projected.entry((slot(v, keep[0]), b)).or_insert(0.0) += p;
            }
            steps = steps.saturating_add(nfold_steps(&projected, least_attacks(pool), attacks));
            continue;
        }
        let projected: BTreeSet<Vec<u32>> = token
            .by
            .iter()
            .flatten()
            .flat_map(HashMap::keys)
            .map(|&v| keep.iter().map(|&k| slot(v, k)).collect())
            .collect();
        let outcomes = projected.len() as u64;
        let most: Vec<u64> = (0..keep.len())
            .map(|i| projected.iter().map(|o| u64::from(o[i])).max().unwrap_or(0))
            .collect();
        for n in 0..attacks {
            let ranges = most.iter().fold(1u64, |acc, &mx| {
                acc.saturating_mul(n.saturating_mul(mx).saturating_add(1))
            });
            let held = ranges.min(multisets(n, outcomes));
            // With one-die re-rolls, each die's outcomes are split by the
            // re-rolls it leaves to use: a convolution per pair of sets.
            let sets = token.sets() as u64;
            steps = steps.saturating_add(held.saturating_mul(outcomes).saturating_mul(sets));
            if steps > TABLE_WORK {
                break 'keeps;
            }
        }
    }
    let tabled = Tabled {
        token,
        inflict,
        builder,
    };
    Some((steps, tabled))
}

/// The fewest attack dice `pool` can gather.
fn least_attacks(pool: &RunPool) -> u64 {
    pool.attacks
        .iter()
        .map(|t| {
            let rolled = if t.maximize {
                t.dice.max()
            } else {
                t.dice.min()
            };
            u64::from(t.per_model(rolled)) * u64::from(t.models)
        })
        .sum()
}

/// The part of the target a stretch of hits can reach, in allocation order:
/// the states on it and how far one hit can move a state along it.
#[derive(Debug, Clone, Copy)]
struct Reach {
    /// States on the reachable part: one per wound it can lose (allocation
    /// takes one group at a time, so states follow one line rather than
    /// every combination of groups).
    line: u64,
    /// How many values the wounds one hit takes can spread over, less one.
    spread: u64,
}

impl Reach {
    /// States a chain of `hits` unsaved hits reaches from one state.
    fn chain(self, hits: u64) -> u64 {
        hits.saturating_mul(self.spread)
            .saturating_add(1)
            .min(self.line)
    }
    /// States reached by any number of hits up to `hits`, from one state.
    fn mixed(self, hits: u64) -> u64 {
        hits.saturating_mul(self.spread + 1)
            .saturating_add(1)
            .min(self.line)
    }
}

/// The target as a line of groups in allocation order, for [`Reach`].
struct Line<'p> {
    groups: Vec<&'p crate::plan::Group>,
}

impl<'p> Line<'p> {
    fn new(target: &'p crate::plan::Target) -> Self {
        let mut order: Vec<usize> = (0..target.groups.len()).collect();
        order.sort_by_key(|&g| {
            (
                target.groups[g].tier,
                target.order.iter().position(|&o| o == g).unwrap_or(g),
            )
        });
        Line {
            groups: order.iter().map(|&g| &target.groups[g]).collect(),
        }
    }

    /// What `hits` hits of `damage` can reach, all of them from the start
    /// (hits before the stretch included): every group until they could
    /// have destroyed the groups before it. With `lost`, damage past the
    /// front model's wounds is lost, so against one-wound models every hit
    /// takes the same.
    fn reach(&self, hits: u64, damage: ModifiedDice, lost: bool) -> Reach {
        let mut line = 1u64;
        let mut spread = 0u64;
        let mut before = 0u64;
        for g in &self.groups {
            if before > hits {
                break;
            }
            let lo = if g.feel_no_pain.is_some() || g.feel_no_pain_mortal.is_some() {
                0
            } else {
                g.modify_damage(damage.min())
            };
            let hi = g.modify_damage(damage.max());
            let (lo, hi) = if lost {
                (lo.min(g.wounds), hi.min(g.wounds))
            } else {
                (lo, hi)
            };
            spread = spread.max(u64::from(hi - lo));
            line += u64::from(g.models) * u64::from(g.wounds);
            let per_model = u64::from(g.wounds.div_ceil(hi.max(1)));
            before = before.saturating_add(u64::from(g.models) * per_model);
        }
        Reach { line, spread }
    }
}

/// The pmf of `d` as the evaluator's loops read it: (its length as a
/// vector, and the sum of the values it can take).
fn support(d: impl Into<ModifiedDice>) -> (u64, u64) {
    let d: ModifiedDice = d.into();
    let (lo, hi) = (u64::from(d.min()), u64::from(d.max()));
    (hi + 1, (lo..=hi).sum())
}

/// The estimated work on the target's states: each pool's saves and harm
/// from every state it starts in, and mortal wounds and held harm state by
/// state. It follows what `pool.rs`, `saves.rs` and `evaluator.rs` spend
/// (their loops call `spend` with these products); the states reached are
/// estimated from the wounds the attacks can reach and the spread of their
/// damage, not enumerated. Calibrated against the work counted on Plans of
/// many shapes (`benches/exact_calibration.py`): see `docs/architecture.md`.
pub(super) fn state_steps(program: &Program, carry_failed: bool, carry_mortal: bool) -> u64 {
    let line = Line::new(&program.plan.target);
    let mut states = 1u64;
    let mut carried = 1u64;
    let mut hits = 0u64;
    let mut steps = 0u64;
    for seq in &program.sequences {
        let (work, reach, count) = match seq {
            RunSequence::Pool(pool) => {
                let tokens = saved_at_most(pool);
                hits = hits.saturating_add(tokens);
                let reach = line.reach(hits, pool.damage, pool.excess == Excess::Lost);
                let own = PoolStates {
                    pool,
                    groups: &program.plan.target.groups,
                    reach,
                    tokens,
                };
                let (work, count) = own.steps(states, carry_mortal);
                // A damage re-roll still to use splits each state in two
                // while the pool resolves.
                let work = work.saturating_mul(if pool.damage_reroll_one { 2 } else { 1 });
                (work, reach, count)
            }
            RunSequence::Mortal { amount, rolls, .. } => {
                let times = rolls.map_or(1, |r| u64::from(r.count));
                let most = times.saturating_mul(u64::from(amount.max()));
                hits = hits.saturating_add(most);
                let reach = line.reach(hits, ModifiedDice::from(DiceExpr::fixed(1)), true);
                let (_, sum) = support(*amount);
                // Each mortal wound moves every state one wound at most.
                let work = (1..=times)
                    .map(|t| {
                        states
                            .saturating_mul(reach.mixed(t.saturating_mul(u64::from(amount.max()))))
                            .saturating_mul(sum)
                    })
                    .fold(0u64, u64::saturating_add);
                (
                    work,
                    reach,
                    if carry_mortal {
                        most.saturating_add(1)
                    } else {
                        1
                    },
                )
            }
            RunSequence::Heal { .. } | RunSequence::Mark { .. } => continue,
        };
        steps = steps.saturating_add(work);
        carried = carried.saturating_mul(count);
        // The states lie on the line of wounds lost from the start, one per
        // place every hit so far can reach (with failed saves carried, one
        // per place each number of them can reach), times the other counts
        // carried.
        let places = if carry_failed {
            (0..=hits)
                .map(|f| reach.chain(f))
                .fold(0u64, u64::saturating_add)
        } else {
            reach.mixed(hits)
        };
        states = states.max(places.saturating_mul(carried));
        if steps > MAX_WORK.saturating_mul(1000) {
            break;
        }
    }
    steps
}

/// One pool's part of the target, for [`state_steps`].
struct PoolStates<'a> {
    pool: &'a RunPool,
    groups: &'a [crate::plan::Group],
    reach: Reach,
    /// The most tokens reaching its save.
    tokens: u64,
}

impl PoolStates<'_> {
    /// Saves resolved lowest first from one state (`saves.rs`): face by
    /// face, a chain of hits from each state reached so far (on a face that
    /// fails for no group the chain stays where it is), then each (state,
    /// dice left) combined with the binomial of the dice showing the face.
    fn lowest_first(&self, width: u64, after_saves: u64) -> u64 {
        let PoolStates {
            pool,
            groups,
            reach,
            tokens,
        } = *self;
        let mut reached = 1u64;
        let mut steps = 0u64;
        for face in 1..=pool.save.die {
            let fails = groups
                .iter()
                .enumerate()
                .any(|(g, group)| !pool.save.saves(g, group, face));
            let chain = |f: u64| if fails { reach.chain(f) } else { 1 };
            let built: u64 = (0..tokens)
                .map(|f| chain(f).saturating_mul(width))
                .fold(0u64, u64::saturating_add)
                .saturating_mul(super::SAVE_BRANCH_STEPS + 1);
            let combined: u64 = (0..=tokens)
                .map(chain)
                .fold(0u64, u64::saturating_add)
                .saturating_mul(tokens);
            steps = steps.saturating_add(reached.saturating_mul(built.saturating_add(combined)));
            if fails {
                // Later faces start from the states failures reached, about
                // a quarter of them distinct per state left to branch from.
                reached = reached.max(after_saves.div_ceil(4));
            }
        }
        steps
    }

    /// The pool's estimated work on `states` starting states: (steps, the
    /// factor the counts it carries in the state multiply the states by).
    fn steps(&self, states: u64, carry_mortal: bool) -> (u64, u64) {
        let PoolStates {
            pool,
            groups,
            reach,
            tokens,
        } = *self;
        let (width, _) = support(pool.damage);
        // Failed saves as unsaved hits, one chain per starting state.
        let chain: u64 = (0..tokens)
            .map(|f| reach.chain(f).saturating_mul(width))
            .fold(0u64, u64::saturating_add);
        let after_saves = reach.mixed(tokens);
        let mut per_state = if pool.save.alike(groups) {
            chain
        } else if pool.save.in_turn {
            // Saves one at a time (`saves.rs`): the same chain over the
            // tokens, each state reached branching over every face of the
            // die and then over the damage roll.
            chain
                .saturating_mul(u64::from(pool.save.die))
                .saturating_mul(super::SAVE_BRANCH_STEPS + 1)
        } else {
            self.lowest_first(width, after_saves)
        };
        // Harm outside the save, event by event, on the states after the
        // saves (or held, then resolved the same way once every attack is).
        let mut held = 1u64;
        let mut mortal = 1u64;
        for a in pool.tests.iter().flat_map(RunTest::actions) {
            let RunAction::Inflict(inflict) = a else {
                continue;
            };
            let cost = match inflict.kind {
                InflictKind::Mortal { amount, .. } => {
                    let d = amount.map_or(pool.damage, ModifiedDice::from);
                    if carry_mortal {
                        mortal =
                            mortal.max(tokens.saturating_mul(u64::from(d.max())).saturating_add(1));
                    }
                    support(d).1
                }
                InflictKind::Damage { damage, .. } => {
                    support(damage.map_or(pool.damage, ModifiedDice::from)).0
                }
            };
            if inflict.after_all {
                held = held.max(tokens.saturating_add(1));
            }
            let events = (1..=tokens)
                .map(|e| e.saturating_mul(after_saves))
                .fold(0u64, u64::saturating_add);
            per_state = per_state.saturating_add(events.saturating_mul(cost));
        }
        (
            states.saturating_mul(per_state),
            held.saturating_mul(mortal),
        )
    }
}

/// The most tokens that reach the pool's save: its attack dice, times each
/// test's extra tokens.
fn saved_at_most(pool: &RunPool) -> u64 {
    pool.tests.iter().fold(pool.max_attacks(), |tokens, t| {
        let extra: u64 = t
            .actions()
            .map(|a| match a {
                RunAction::Extra(d) => u64::from(d.max()),
                _ => 0,
            })
            .sum();
        tokens.saturating_mul(1 + extra)
    })
}
