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
use super::TABLE_BUDGET;
use crate::dice::ModifiedDice;
use crate::program::{Inflict, InflictKind, Program, RunAction, RunPool, RunSequence, RunTest};
use crate::tables::{one_token, slot, Builder, MAX_WORK as TABLE_WORK};
use std::collections::BTreeSet;

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

/// The dense work of one pool, and the values its mortal-wound count can take.
fn pool_steps(pool: &RunPool, counter: u64) -> (u64, u64) {
    let mut steps = dice_steps(pool.damage);
    let mut total = 0u64;
    for term in &pool.attacks {
        steps = steps.saturating_add(dice_steps(term.dice));
        let one = u64::from(term.per_model(term.dice.max())) + 1;
        total = total.saturating_add(one.saturating_mul(u64::from(term.models)));
        steps = steps.saturating_add(
            total
                .saturating_mul(one)
                .saturating_mul(u64::from(term.models)),
        );
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
/// events, one die's table projected onto those slots and convolved once for
/// every number of attack dice up to the most. A table of n dice holds at
/// most the values its slots' ranges allow, and at most the ways of choosing
/// n of the projected outcomes with repetition; the lesser bounds it. `None`
/// when one die's table cannot be built (the evaluator then declines with
/// its reason).
pub(super) fn tabulation_steps(pool: &RunPool) -> Option<u64> {
    let mut builder = Builder::default();
    let (token, _) = one_token(pool, pool.max_attacks(), TABLE_BUDGET, &mut builder)?;
    let m = pool.tests.len();
    let mut keeps: Vec<Vec<usize>> = (0..m).map(|t| vec![t]).collect();
    keeps.push(vec![m, m + 1]);
    let attacks = pool.max_attacks();
    let mut steps = 0u64;
    for keep in &keeps {
        let projected: BTreeSet<Vec<u32>> = token
            .keys()
            .map(|&v| keep.iter().map(|&k| slot(v, k)).collect())
            .collect();
        let outcomes = projected.len() as u64;
        let most: Vec<u64> = (0..keep.len())
            .map(|i| projected.iter().map(|o| u64::from(o[i])).max().unwrap_or(0))
            .collect();
        for n in 0..attacks {
            let ranges = most.iter().fold(1u64, |acc, &mx| {
                acc.saturating_mul(n.saturating_mul(mx) + 1)
            });
            let held = ranges.min(multisets(n, outcomes));
            steps = steps.saturating_add(held.saturating_mul(outcomes));
            if steps > TABLE_WORK {
                return Some(steps);
            }
        }
    }
    Some(steps)
}

/// The ways of choosing `n` of `kinds` with repetition, C(n + kinds - 1, n),
/// saturating.
fn multisets(n: u64, kinds: u64) -> u64 {
    let mut ways = 1u64;
    for i in 1..kinds {
        // C(n + i, i) = C(n + i - 1, i - 1) * (n + i) / i, exact at each step.
        ways = match ways.checked_mul(n + i) {
            Some(w) => w / i,
            None => return u64::MAX,
        };
    }
    ways
}
