//! Die by die against a side of one group, unwatched: shortcuts that leave
//! the very state, counters and dice the general way does
//! (`rust/core/tests/counted_dice.rs` holds them to it). With one group the
//! current group cannot change, so a save roll's face alone says whether it
//! fails, and spilling mortal wounds always go to the same front model.

use crate::program::{mortal_count, Inflict, RunPool};
use crate::target::TargetState;
use crate::workspace::bump;
use crate::workspace::Workspace;

/// `n` wounds of one damage on the models of a one-group side, spilling from
/// model to model: what `n` calls of [`TargetState::wound_model`] without
/// Feel No Pain leave, in a few operations.
pub(crate) fn wound_one_by_one(state: &mut TargetState<'_>, n: u32) {
    let alive = state.alive[0];
    if alive == 0 {
        return;
    }
    if n < state.front[0] {
        // The front model survives them: no division.
        state.front[0] -= n;
        state.damage += n;
        return;
    }
    let w = state.group(0).wounds;
    let left = (alive - 1) * w + state.front[0];
    let taken = n.min(left);
    let rest = left - taken;
    let alive_then = rest.div_ceil(w);
    // A destroyed group's front slot goes back to full, as `wound_model` leaves it.
    state.front[0] = if alive_then == 0 {
        w
    } else {
        rest - (alive_then - 1) * w
    };
    state.destroyed += alive - alive_then;
    state.alive[0] = alive_then;
    state.damage += taken;
}

/// `times` of the same held harm, when it is mortal wounds of a fixed amount
/// spilling into a one-group target without Feel No Pain against them, and
/// the group does not reduce them when they are `reduced`: all of them at
/// once, as `times` calls of `executor::inflict` would leave it (no die is
/// rolled). False, having done nothing, for any other harm.
pub(crate) fn held_mortal(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    what: &Inflict,
    times: u32,
) -> bool {
    match mortal_count(pool, ws.state.groups(), what) {
        Some(each) => {
            land_mortal(pool, ws, each * times);
            true
        }
        None => false,
    }
}

/// `n` of `pool`'s mortal wounds, counted and spilling into the one group
/// of the side attacked, as [`held_mortal`] lands them.
pub(crate) fn land_mortal(pool: &RunPool, ws: &mut Workspace<'_>, n: u32) {
    bump(&mut ws.counters, pool.mortal_counter, n);
    ws.state.mortal += n;
    wound_one_by_one(&mut ws.state, n);
}
