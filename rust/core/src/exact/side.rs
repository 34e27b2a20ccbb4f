//! One side of the chain over both sides (`chain.rs`): its one group's
//! wounds as one pool (models alive, wounds on the front model), where it
//! starts (below full when the group has `wounds_lost`), how damage, mortal
//! wounds and healing move it, and the states it can reach.

use crate::plan::{Group, Side};
use crate::program::{InflictKind, Program, RunSequence, RunTest};

/// A side's wounds as one pool: whole models behind the front one.
pub(super) fn wounds(alive: u32, front: u32, w: u32) -> u32 {
    if alive == 0 {
        0
    } else {
        (alive - 1) * w + front
    }
}

/// The wounds group `g`'s side starts with: what healing never goes above,
/// and what its wounds lost and models destroyed are counted from.
pub(super) fn start_wounds(g: &Group) -> u32 {
    let (alive, front) = g.start();
    wounds(alive, front, g.wounds)
}

/// `lost` wounds carried from model to model until the side is destroyed:
/// the side after, and the wounds removed.
pub(super) fn lose_carried(
    (mut alive, mut front): (u32, u32),
    w: u32,
    lost: u32,
) -> ((u32, u32), u32) {
    let (mut left, mut removed) = (lost, 0);
    while left > 0 && alive > 0 {
        let take = left.min(front);
        front -= take;
        removed += take;
        left -= take;
        if front == 0 {
            alive -= 1;
            front = w;
        }
    }
    ((alive, front), removed)
}

/// `lost` wounds on the front model alone (the rest is lost).
pub(super) fn lose_on_one(
    (mut alive, mut front): (u32, u32),
    w: u32,
    lost: u32,
) -> ((u32, u32), u32) {
    if alive == 0 {
        return ((alive, front), 0);
    }
    let take = lost.min(front);
    front -= take;
    if front == 0 {
        alive -= 1;
        front = w;
    }
    ((alive, front), take)
}

/// The states one side can reach: its wounds as one pool, from those it
/// starts with down by at most what the Plan can take from it (every round,
/// every token at its worst), or, once it heals, anywhere below its start;
/// healing up to the starting wounds lets the front model hold more than its
/// own, so then any wounds on any number of the models it starts with.
pub(super) fn side_states(program: &Program, side: usize, g: &Group) -> u64 {
    let heals = |up_to_start: bool| {
        program.sequences.iter().any(|seq| {
            matches!(seq, RunSequence::Heal { side: s, up_to_start: u, .. }
                if usize::from(*s == Side::Attacker) == side && (*u || !up_to_start))
        })
    };
    let wounds = u64::from(start_wounds(g));
    if heals(true) {
        return u64::from(g.start().0) * wounds + 1;
    }
    if heals(false) {
        return wounds + 1;
    }
    let rounds = u64::from(program.plan.rounds.as_ref().map_or(1, |r| r.max));
    let per_round: u64 = program
        .sequences
        .iter()
        .map(|seq| harm_to(seq, side, g))
        .fold(0, u64::saturating_add);
    wounds.min(rounds.saturating_mul(per_round)) + 1
}

/// The most wounds one run of `seq` can take from `side` (of group `g`).
fn harm_to(seq: &RunSequence, side: usize, g: &Group) -> u64 {
    match seq {
        RunSequence::Mortal {
            amount,
            rolls,
            against,
            ..
        } if usize::from(*against == Side::Attacker) == side => {
            u64::from(amount.max()) * rolls.map_or(1, |r| u64::from(r.count))
        }
        RunSequence::Pool(pool) => {
            let a = usize::from(pool.against == Side::Attacker);
            let dealt = |d: u32| u64::from(pool.damage_to(g, d).1);
            let mut per_token = if a == side {
                dealt(pool.damage.max())
                    + pool
                        .top_threshold
                        .as_ref()
                        .and_then(|t| t.mortal)
                        .map_or(0, |m| u64::from(m.max()))
            } else {
                0
            };
            for action in pool.tests.iter().flat_map(RunTest::actions) {
                let crate::program::RunAction::Inflict(what) = action else {
                    continue;
                };
                per_token += match what.kind {
                    InflictKind::Mortal {
                        amount, against, ..
                    } if (if against == Side::Attacker { 1 - a } else { a }) == side => {
                        u64::from(amount.map_or(pool.damage.max(), |d| d.max()))
                    }
                    InflictKind::Damage { bonus, damage, .. } if a == side => {
                        let most = damage.map_or(pool.damage.max(), |d| d.max());
                        dealt((i64::from(most) + i64::from(bonus)).max(0) as u32)
                    }
                    _ => 0,
                };
            }
            pool.max_tokens().saturating_mul(per_token)
        }
        _ => 0,
    }
}

/// Restore up to `amount` wounds to one group's side, as
/// [`crate::target::TargetState::heal`] does, never above the wounds it
/// started with: the side after and the wounds restored.
pub(super) fn heal(
    (alive, front): (u32, u32),
    g: &Group,
    amount: u32,
    return_models: bool,
    up_to_start: bool,
) -> ((u32, u32), u32) {
    let w = g.wounds;
    if alive == 0 && !return_models {
        return ((alive, front), 0);
    }
    let now = wounds(alive, front, w);
    let most = if return_models || up_to_start {
        start_wounds(g)
    } else {
        (alive * w).min(start_wounds(g))
    };
    let then = (now + amount).min(most).max(now);
    if up_to_start && !return_models {
        // No model returns: the survivors hold the wounds restored, the
        // front model whatever the others cannot.
        return ((alive, then - (alive - 1) * w), then - now);
    }
    let alive_then = then.div_ceil(w);
    let front = if alive_then == 0 {
        w
    } else {
        then - (alive_then - 1) * w
    };
    ((alive_then, front), then - now)
}
