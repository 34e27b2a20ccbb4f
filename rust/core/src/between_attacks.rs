//! What happens between attacks: a mark set for the round, models healed,
//! and, at the end of a fight's round, its contest settled. Each rolls its
//! dice (a check, an amount, the loser's roll) where the trial reaches it.

use crate::plan::{Check, Contest, Side, WhileAlive};
use crate::program::{Program, RunSequence};
use crate::rng::DiceSource;
use crate::target::TargetState;
use crate::trace::{Event, Observer};
use crate::workspace::{bump, Workspace};

/// Settle round `round`'s contest, the sides having lost `start` wounds
/// (target's, attacker's) before it: the winner noted, and the loser's roll
/// when both sides stand. True when the loser leaves the fight.
pub(crate) fn settle<D: DiceSource, O: Observer>(
    program: &Program,
    c: &Contest,
    round: u32,
    start: (u32, u32),
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) -> bool {
    let now = ws.losses();
    // Healing in the round can give back more than was lost: no fewer than 0.
    let scores = [
        c.attacker.score(round, now.0.saturating_sub(start.0)),
        c.target.score(round, now.1.saturating_sub(start.1)),
    ];
    let loser = Contest::loser(scores);
    if let Some(i) = program.winner_counter {
        ws.counters[i] = match loser {
            None => 0,
            Some((Side::Target, _)) => 1,
            Some((Side::Attacker, _)) => 2,
        };
    }
    let rolling = loser.filter(|_| !ws.either_destroyed());
    let Some((side, difference)) = rolling else {
        obs.event(Event::Contest {
            scores,
            loser: loser.map(|l| l.0),
            roll: None,
            hold_at_most: None,
            held: None,
        });
        return false;
    };
    let alive = |s: &TargetState<'_>| s.alive.iter().sum::<u32>();
    let target = alive(&ws.state);
    let attacker = ws.attacker.as_ref().map_or(0, alive);
    let (mine, theirs) = match side {
        Side::Target => (target, attacker),
        Side::Attacker => (attacker, target),
    };
    let most = c.hold_at_most(side, difference, mine, theirs);
    let roll: u32 = (0..c.dice).map(|_| dice.roll(c.sides)).sum();
    let held = i64::from(roll) <= most;
    obs.event(Event::Contest {
        scores,
        loser: Some(side),
        roll: Some(roll),
        hold_at_most: Some(most),
        held: Some(held),
    });
    if !held {
        if let Some(i) = program.left_counter {
            ws.counters[i] = match side {
                Side::Target => 1,
                Side::Attacker => 2,
            };
        }
    }
    !held
}

/// Roll `check` and report it; true when it passes.
pub(crate) fn roll_check<D: DiceSource, O: Observer>(
    check: Check,
    dice: &mut D,
    obs: &mut O,
) -> bool {
    let roll = dice.roll(check.die);
    let passed = check.passes(roll);
    obs.event(Event::Roll {
        roll,
        failed: !passed,
    });
    passed
}

/// Does a sequence take place: is the model it needs (its caster) standing,
/// when it names one, and does its check (if any) pass?
fn takes_place<D: DiceSource, O: Observer>(
    ws: &mut Workspace<'_>,
    while_alive: Option<WhileAlive>,
    check: Option<Check>,
    dice: &mut D,
    obs: &mut O,
) -> bool {
    let standing = while_alive.is_none_or(|w| {
        ws.side_mut(w.side)
            .is_some_and(|s| s.alive[w.group] > w.more_than)
    });
    standing && check.is_none_or(|c| roll_check(c, dice, obs))
}

/// A mark: its check (if any), then the mark set for the rest of the round.
pub(crate) fn mark<D: DiceSource, O: Observer>(
    seq: &RunSequence,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let RunSequence::Mark {
        mark,
        check,
        counter,
        while_alive,
        ..
    } = *seq
    else {
        return;
    };
    if !takes_place(ws, while_alive, check, dice, obs) {
        return;
    }
    ws.marks[mark] = true;
    bump(&mut ws.counters, counter, 1);
}

/// A healing sequence: its check (if any), then the wounds restored.
pub(crate) fn heal<D: DiceSource, O: Observer>(
    seq: &RunSequence,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let RunSequence::Heal {
        side,
        amount,
        return_models,
        up_to_start,
        check,
        counter,
        while_alive,
        ..
    } = *seq
    else {
        return;
    };
    if !takes_place(ws, while_alive, check, dice, obs) {
        return;
    }
    let n = amount.roll(dice);
    if let Some(state) = ws.side_mut(side) {
        let healed = state.heal(n, return_models, up_to_start);
        bump(&mut ws.counters, counter, healed);
        obs.event(Event::Heal {
            side,
            amount: healed,
        });
    }
}
