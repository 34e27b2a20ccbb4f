//! Whether the exact evaluator can take a Plan, decided before any work:
//! what it cannot represent it declines here by name, and what depends on
//! the target's state it marks to be carried in the state.

use super::budget::{decline, MAX_WORK};
use super::cache::DenseWork;
use super::estimate::Tabled;
use super::state::{ALIVE_BITS, FRONT_BITS, HELD_BITS, MAX_CARRIED};
use super::MAX_GROUPS;
use crate::dice::ModifiedDice;
use crate::error::CoreError;
use crate::plan::{Excess, Group, Side};
use crate::program::{Inflict, InflictKind, Program, RunAction, RunSequence, RunTest};
use crate::tables::MAX_WORK as TABLE_WORK;

/// What the evaluator must carry in the target's state, beyond the models.
#[derive(Debug, Clone, Copy)]
pub(super) struct Admission {
    /// Failed saves, because some pool's groups save on different faces (so
    /// its failures depend on which group is current), and their counter.
    pub(super) carry_failed: bool,
    pub(super) failed_counter: Option<usize>,
    /// The mortal-wound counter, when mortal wounds reduced by the model they
    /// hit make it depend on the state.
    pub(super) carry_mortal: Option<usize>,
    /// The steps of work estimated for the whole evaluation.
    pub(super) estimate: u64,
}

/// The most work estimated for a Plan the evaluator admits. Above the budget
/// itself, because the estimate runs up to about 20 times high on some
/// shapes of Plan (`estimate.rs`): no Plan of the calibration that finishes
/// within the budget is declined for its estimate. The budget still bounds
/// what an admitted Plan does.
pub(super) const ADMIT: u64 = MAX_WORK * 5;

/// Admit `program`, or decline it naming the first reason found. With the
/// admission, each sequence's one-die table when it is a pool the estimate
/// tabulated (`None` otherwise), for the evaluator to use.
pub(super) fn admit(program: &Program) -> Result<(Admission, Vec<Option<Tabled>>), CoreError> {
    check_shape(program)?;
    let (dense, tables) = program.exact_cache.dense_work(|| dense_work(program))?;
    let (carry_failed, save_counters) = check_pools(program)?;
    let (carry_mortal, tokens) = reduced_mortal_counter(program)?;
    let estimate = dense.saturating_add(super::estimate::state_steps(
        program,
        carry_failed,
        carry_mortal.is_some(),
    ));
    if estimate > ADMIT && !super::budget::measuring() {
        return Err(decline(format!(
            "too many outcomes: about {estimate} steps of work estimated, more than it admits ({ADMIT}, allowing for estimates that run high, for a budget of {MAX_WORK}, about a second or two)"
        )));
    }
    if carry_failed
        && carry_mortal.is_some()
        && save_counters.first().copied().flatten() == carry_mortal
    {
        return Err(decline(
            "failed saves and mortal wounds both depend on the target and share a counter",
        ));
    }
    // Only harm held until every attack is resolved is counted in the
    // state's held field, and only failed saves carried in it in theirs.
    let held: u64 = (0..program.sequences.len())
        .filter(|&i| program.held_by(i))
        .filter_map(|i| match &program.sequences[i] {
            RunSequence::Pool(p) => Some(p.max_tokens()),
            _ => None,
        })
        .sum();
    let most_held = u64::from((1u32 << HELD_BITS) - 1);
    if held > most_held {
        return Err(decline(format!(
            "the pools that hold harm until every attack is resolved can make up to {held} rolls, and the state counts at most {most_held} held harms"
        )));
    }
    if carry_failed && tokens > u64::from(MAX_CARRIED) {
        return Err(decline(format!(
            "the pools can make up to {tokens} rolls, and the state counts at most {MAX_CARRIED} failed saves (carried because groups save differently)"
        )));
    }
    if let Some(c) = carry_mortal {
        let most: u64 = program
            .sequences
            .iter()
            .map(|seq| match seq {
                RunSequence::Pool(p) if p.mortal_counter == Some(c) => {
                    let amount = p
                        .tests
                        .iter()
                        .flat_map(RunTest::actions)
                        .filter_map(|a| match a {
                            RunAction::Inflict(Inflict {
                                kind: InflictKind::Mortal { amount, .. },
                                ..
                            }) => {
                                Some(u64::from(amount.map_or(p.damage, ModifiedDice::from).max()))
                            }
                            _ => None,
                        })
                        .max()
                        .unwrap_or(0);
                    p.max_tokens() * amount
                }
                RunSequence::Mortal {
                    counter,
                    amount,
                    rolls,
                    ..
                } if *counter == Some(c) => {
                    u64::from(amount.max()) * rolls.map_or(1, |r| u64::from(r.count))
                }
                _ => 0,
            })
            .sum();
        if most > u64::from(MAX_CARRIED) {
            return Err(decline(
                "too many mortal wounds to count exactly while they depend on the target",
            ));
        }
    }
    let own_counted = program.sequences.iter().any(|seq| {
        matches!(seq, RunSequence::Pool(p) if p.own_saves.iter().any(|o| o.counter.is_some()))
    });
    if carry_failed && own_counted {
        return Err(decline(
            "failed saves depend on the target and a pool counts its tokens' own saves with them",
        ));
    }
    if carry_failed && save_counters.len() > 1 {
        return Err(decline(
            "pools count failed saves in different counters while their saves depend on the target",
        ));
    }
    let admission = Admission {
        carry_failed,
        failed_counter: save_counters.first().copied().flatten(),
        carry_mortal,
        estimate,
    };
    Ok((admission, tables))
}

/// The dense work the Plan fixes (its tables and dice), estimated, and the
/// one-die tables built for the estimate; a Plan whose dense work alone is
/// past the budget is declined.
fn dense_work(program: &Program) -> DenseWork {
    let mut tables = Vec::with_capacity(program.sequences.len());
    for seq in &program.sequences {
        let mut die = None;
        if let RunSequence::Pool(pool) = seq {
            if let Some((work, table)) = super::estimate::tabulation_steps(pool) {
                if work > TABLE_WORK {
                    // Past the limit the count may stop short (u64::MAX).
                    let work = if work == u64::MAX {
                        format!("far more than {TABLE_WORK} multiply-adds, its limit")
                    } else {
                        format!("about {work} multiply-adds, over the limit of {TABLE_WORK}")
                    };
                    return Err(decline(format!(
                        "pool {:?} has too many outcomes to tabulate: {work}",
                        pool.name
                    )));
                }
                die = Some(table);
            }
        }
        tables.push(die);
    }
    let dense = super::estimate::steps(program);
    if dense > MAX_WORK {
        return Err(decline(format!(
            "too many outcomes: its dice alone need about {dense} steps of work, over its limit of {MAX_WORK} (about a second or two)"
        )));
    }
    Ok((dense, tables))
}

/// Fights, marks, attacks on the attacker and sides too large to pack.
fn check_shape(program: &Program) -> Result<(), CoreError> {
    let plan = &program.plan;
    if plan.rounds.is_some() {
        return Err(decline(
            "a fight of several rounds (each side's attacks depend on its survivors)",
        ));
    }
    if !plan.marks.is_empty() {
        return Err(decline("the plan sets marks that later rolls depend on"));
    }
    for seq in &program.sequences {
        if let RunSequence::Pool(pool) = seq {
            if pool.against == Side::Attacker || pool.attacks.iter().any(|a| a.alive_of.is_some()) {
                return Err(decline(format!(
                    "pool {:?} attacks the attacker, or attacks with the survivors of a side",
                    pool.name
                )));
            }
        }
    }
    if let Some(a) = &plan.attacker {
        if a.groups.len() > MAX_GROUPS
            || a.groups
                .iter()
                .any(|g| g.models >= 1 << ALIVE_BITS || g.wounds >= 1 << FRONT_BITS)
        {
            return Err(decline(
                "the attacker's own models are too many groups, or too large, to carry exactly",
            ));
        }
    }
    if plan.target.groups.len() > MAX_GROUPS {
        return Err(decline(format!(
            "the target has more than {MAX_GROUPS} allocation groups"
        )));
    }
    if plan
        .target
        .groups
        .iter()
        .any(|g| g.models >= 1 << ALIVE_BITS || g.wounds >= 1 << FRONT_BITS)
    {
        return Err(decline("a group is too large to carry exactly"));
    }
    Ok(())
}

/// Each pool's own reasons to decline; whether failed saves must be carried
/// in the state, and the distinct counters pools count them in.
fn check_pools(program: &Program) -> Result<(bool, Vec<Option<usize>>), CoreError> {
    let plan = &program.plan;
    // Failed saves depend on the state as soon as one pool's groups save on
    // different faces; they are then carried in the state for every pool,
    // which needs all pools to count them in one counter.
    let mut save_counters = Vec::new();
    let mut carry_failed = false;
    for seq in &program.sequences {
        if let RunSequence::Pool(pool) = seq {
            let groups = &plan.target.groups;
            if pool.top_threshold_counter.is_some() || pool.top_threshold.is_some() {
                return Err(decline(format!(
                    "pool {:?} counts attacks meeting the top damage threshold, which depends on the target",
                    pool.name
                )));
            }
            if pool.tests.iter().flat_map(RunTest::actions).any(|a| {
                matches!(
                    a,
                    RunAction::Inflict(Inflict {
                        kind: InflictKind::Mortal {
                            against: Side::Attacker,
                            ..
                        },
                        ..
                    })
                )
            }) {
                return Err(decline(format!(
                    "pool {:?} harms the attacking unit from its attacks' effects",
                    pool.name
                )));
            }
            carry_failed |= !pool.save.alike(groups);
            if !save_counters.contains(&pool.save.counter) {
                save_counters.push(pool.save.counter);
            }
            // Failures of a save tokens take apart count exactly when they
            // cannot depend on the target: every group saves alike against
            // it and the pool's own save, and both count in one counter.
            if pool.own_saves.iter().any(|o| {
                o.counter.is_some()
                    && (o.counter != pool.save.counter
                        || !o.alike(groups)
                        || !pool.save.alike(groups))
            }) {
                return Err(decline(format!(
                    "pool {:?} counts the failures of a save its tokens take apart, which depend on the target",
                    pool.name
                )));
            }
            // Excess carried through the unit can destroy a group that was
            // never current, so after a wipe-out the rolls still counted meet
            // a group this evaluator does not track.
            if pool.excess == Excess::Unit
                && pool.save.counter.is_some()
                && !pool.save.alike(groups)
            {
                return Err(decline(format!(
                    "pool {:?} carries excess damage through groups that save differently while counting failed saves",
                    pool.name
                )));
            }
            if pool.excess == Excess::Unit
                && groups.iter().enumerate().any(|(i, g)| {
                    pool.fnp(i, g.feel_no_pain) != pool.fnp(0, groups[0].feel_no_pain)
                })
            {
                return Err(decline(format!(
                    "pool {:?} carries excess damage across groups with different Feel No Pain",
                    pool.name
                )));
            }
        }
    }
    Ok((carry_failed, save_counters))
}

/// The mortal-wound counter carried in the state, if any, and the most
/// tokens the pools can make.
fn reduced_mortal_counter(program: &Program) -> Result<(Option<usize>, u64), CoreError> {
    let plan = &program.plan;
    // Mortal wounds reduced by the model they hit depend on the state when a
    // group has damage modifiers; their counter is then carried in it.
    let modified = plan.target.groups.iter().any(Group::modifies_damage);
    let mut carry_mortal = None;
    let mut tokens = 0u64;
    for seq in &program.sequences {
        if let RunSequence::Pool(pool) = seq {
            tokens += pool.max_tokens();
            let reduced = pool.tests.iter().flat_map(RunTest::actions).any(|a| {
                matches!(
                    a,
                    RunAction::Inflict(Inflict {
                        kind: InflictKind::Mortal { reduced: true, .. },
                        ..
                    })
                )
            });
            if reduced && modified {
                if carry_mortal.is_some_and(|c| c != pool.mortal_counter)
                    || pool.mortal_counter.is_none()
                {
                    return Err(decline(
                        "pools reducing mortal wounds count them in different counters",
                    ));
                }
                carry_mortal = Some(pool.mortal_counter);
            }
        }
    }
    Ok((carry_mortal.flatten(), tokens))
}
