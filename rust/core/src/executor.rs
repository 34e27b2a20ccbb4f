//! Resolve one trial of a Plan, die by die.
//!
//! The order in which dice are drawn is part of the contract, because scripted
//! dice replay rulebook examples with it (`docs/architecture.md`): sequences
//! in order; within an attack pool, each model's attack dice, then every
//! test's dice token by token (a re-roll straight after the die it replaces,
//! an extra-token amount straight after the die that earned it), then every
//! save die, then, in the order the sorted saves resolve, each unsaved
//! attack's damage and its Feel No Pain dice, and last the pool's mortal
//! wounds with their amounts and Feel No Pain dice.

use crate::batch::{self, Batch};
use crate::between_attacks::{heal, mark, roll_check, settle};
use crate::dice::ModifiedDice;
use crate::one_group::{held_mortal, land_mortal, wound_one_by_one};
use crate::plan::{mortal_fnp, Excess, Rounds, Side};
pub(crate) use crate::pool_tests::{gather_attacks, run_pool_tests};
use crate::program::{
    damage_simply_lost, FailedSaves, Inflict, InflictKind, Program, RunPool, RunSequence,
};
use crate::rng::DiceSource;
use crate::target::TargetState;
use crate::trace::{Event, Observer};
use crate::workspace::{bump, Workspace};

/// Run one trial into `ws` (counters, damage and models destroyed).
#[inline]
pub fn run_trial<D: DiceSource, O: Observer>(
    program: &Program,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    drive(program, ws, dice, obs, |index, pool, ws, dice, obs| {
        run_pool(program, index, pool, ws, dice, obs);
    });
}

/// One trial: the sequences in order (round after round in a fight, until a
/// side is destroyed), each pool run by `run` against the side it attacks,
/// then the harm held until the end.
pub(crate) fn drive<D: DiceSource, O: Observer>(
    program: &Program,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
    mut run: impl FnMut(usize, &RunPool, &mut Workspace<'_>, &mut D, &mut O),
) {
    ws.reset();
    match &program.plan.rounds {
        None => {
            for (index, seq) in program.sequences.iter().enumerate() {
                sequence(program, index, seq, ws, dice, obs, &mut run);
            }
        }
        Some(rounds) => fight(program, rounds, ws, dice, obs, &mut run),
    }
    if let Some(index) = program.held_pool.filter(|_| ws.held_wounds > 0) {
        land_held_wounds(program, index, ws);
    }
    if !ws.deferred.is_empty() {
        resolve_deferred(program, ws, dice, obs);
    }
    if let Some(c) = program.outcome_counter {
        let attacker = ws.attacker.as_ref().is_some_and(TargetState::wiped_out);
        ws.counters[c] = u32::from(ws.state.wiped_out()) + 2 * u32::from(attacker);
    }
}

/// A fight: round after round of the sequences, until a side is destroyed,
/// its contest (if any) settled at the end of each.
fn fight<D: DiceSource, O: Observer>(
    program: &Program,
    rounds: &Rounds,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
    run: &mut impl FnMut(usize, &RunPool, &mut Workspace<'_>, &mut D, &mut O),
) {
    for round in 0..rounds.max {
        if ws.either_destroyed() {
            break;
        }
        ws.marks.iter_mut().for_each(|m| *m = false);
        obs.event(Event::Round { number: round + 1 });
        bump(&mut ws.counters, program.rounds_counter, 1);
        let start = ws.losses();
        for (index, seq) in program.sequences.iter().enumerate() {
            // A pool striking together with the one before strikes even when
            // that one destroyed a side, with the models alive before it.
            if !simultaneous(seq) && ws.either_destroyed() {
                break;
            }
            sequence(program, index, seq, ws, dice, obs, run);
        }
        if let Some(c) = &rounds.contest {
            if settle(program, c, round, start, ws, dice, obs) {
                break;
            }
        }
    }
}

/// Does `seq` strike together with the sequence before it?
fn simultaneous(seq: &RunSequence) -> bool {
    matches!(seq, RunSequence::Pool(p) if p.simultaneous)
}

/// Sequence `index`, a pool run by `run` against the side it attacks, and
/// what it harmed credited to it.
#[expect(
    clippy::inline_always,
    reason = "left to itself the compiler calls it, which costs a die-by-die trial 4% more instructions"
)]
#[inline(always)]
fn sequence<D: DiceSource, O: Observer>(
    program: &Program,
    index: usize,
    seq: &RunSequence,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
    run: &mut impl FnMut(usize, &RunPool, &mut Workspace<'_>, &mut D, &mut O),
) {
    if !simultaneous(seq) {
        ws.strike_begins();
    }
    if obs.enabled() {
        obs.event(Event::Sequence {
            index,
            name: seq.name().to_string(),
        });
    }
    let before = ws.harm();
    match seq {
        RunSequence::Pool(pool) => {
            // A pool attacking the attacker sees the sides swapped, so
            // `ws.state` is always the side attacked.
            let flip = pool.against == Side::Attacker;
            if flip {
                ws.flip();
            }
            run(index, pool, ws, dice, obs);
            if flip {
                ws.flip();
            }
        }
        RunSequence::Mortal { .. } => mortal_source(seq, ws, dice, obs),
        RunSequence::Heal { .. } => heal(seq, ws, dice, obs),
        RunSequence::Mark { .. } => mark(seq, ws, dice, obs),
    }
    ws.attribute(program.attributed[index], before);
}

/// A mortal-wound source: its rolls (if any), then its mortal wounds for each
/// failure (or once), against the side it names. With no models listed for
/// that side they are only counted.
pub(crate) fn mortal_source<D: DiceSource, O: Observer>(
    seq: &RunSequence,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let RunSequence::Mortal {
        amount,
        counter,
        rolls,
        against,
        spill,
        feel_no_pain,
        ..
    } = *seq
    else {
        return;
    };
    let times = match rolls {
        None => 1,
        Some(r) => (0..r.count)
            .filter(|_| {
                let roll = dice.roll(r.die);
                let failed = roll <= r.fail_at_most;
                obs.event(Event::Roll { roll, failed });
                failed
            })
            .count() as u32,
    };
    for _ in 0..times {
        let n = amount.roll(dice);
        bump(&mut ws.counters, counter, n);
        obs.event(Event::Mortal {
            against,
            amount: n,
            spill,
        });
        if let Some(state) = ws.side_mut(against) {
            inflict_mortal(
                state,
                n,
                spill,
                None,
                feel_no_pain.then_some(&[]),
                dice,
                obs,
            );
        }
    }
}

/// The mortal wounds pool `index` held, added up as they were held
/// (`counted::sum_held_harm`): landed as one count, as the lots held would
/// land one after another, and credited to the pool.
fn land_held_wounds(program: &Program, index: usize, ws: &mut Workspace<'_>) {
    let RunSequence::Pool(pool) = &program.sequences[index] else {
        return;
    };
    let before = ws.harm();
    land_mortal(pool, ws, ws.held_wounds);
    ws.attribute(program.attributed[index], before);
}

/// Harm held back until every sequence was resolved, in the order queued,
/// against an allocation order declared afresh.
pub(crate) fn resolve_deferred<D: DiceSource, O: Observer>(
    program: &Program,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    // Taken out while it lands, so each entry is read where it stands; harm
    // held while landing it would wait for a later trial's end, so none is
    // kept (the buffer goes back for the next trial).
    let deferred = std::mem::take(&mut ws.deferred);
    for held in &deferred {
        let RunSequence::Pool(pool) = &program.sequences[held.index] else {
            continue;
        };
        // The same harm held several times over lands as one count where
        // one group takes it alike (`one_group::held_mortal`); otherwise
        // once at a time, each against the order declared afresh.
        let mut left = held.times;
        while left > 0 {
            // The pool's focus group, if still alive, stays first.
            ws.focus = held.focus.filter(|&f| ws.state.alive[f] > 0);
            order_with_focus(ws);
            let before = ws.harm();
            if !obs.enabled() && held_mortal(pool, ws, &held.what, left) {
                left = 0;
            } else {
                inflict(pool, ws, held.what, dice, obs);
                left -= 1;
            }
            // Held harm is its pool's, whenever it lands.
            ws.attribute(program.attributed[held.index], before);
        }
    }
    ws.deferred = deferred;
    ws.deferred.clear();
}

fn run_pool<D: DiceSource, O: Observer>(
    program: &Program,
    index: usize,
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    run_pool_tests(index, pool, ws, dice, obs);
    if let Some(hook) = pool.batch_hook {
        // One trial at a time only for replays: Monte Carlo runs hooked Plans
        // a chunk at a time (`batch.rs`).
        let mut batch = Batch::gather(pool, std::slice::from_ref(ws));
        let called = match &program.hooks {
            Some(h) => h.call(hook, &mut batch).and_then(|()| batch.check(1)),
            None => Err(batch::missing(hook)),
        };
        match called {
            Ok(()) => batch.scatter(0, ws),
            Err(e) => {
                ws.failure.get_or_insert(e);
            }
        }
    }
    run_pool_saves(pool, ws, dice, obs);
}

/// A pool's saves, damage and queued harm, from the tokens `ws` holds.
pub(crate) fn run_pool_saves<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let wounds = ws.entering[pool.tests.len()];
    if pool.save.rolled {
        roll_saves(pool, ws, wounds, dice, obs);
    } else {
        // No save applies: every token is unsaved, in turn.
        declare(pool, ws);
        for _ in 0..wounds {
            let current = ws.state.current(&ws.order);
            unsaved(pool, ws, current, dice, obs);
        }
    }
    pending_harm(pool, ws, dice, obs);
}

/// Saves: rolled together, resolved lowest first (or one at a time).
fn roll_saves<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    wounds: u32,
    dice: &mut D,
    obs: &mut O,
) {
    if pool.save.in_turn {
        declare(pool, ws);
        if obs.enabled() && wounds > 0 {
            obs.event(Event::Order {
                groups: ws.order.clone(),
            });
        }
        saves_in_turn(pool, ws, wounds, dice, obs);
        return;
    }
    if !obs.enabled() {
        if let Some(fails) = pool.one_group_fails {
            // One group, and no failed roll rolled again: only how many
            // failed matters, and the same dice are drawn as face by face.
            let mut failed = 0;
            dice.roll_each(pool.save.die, wounds, |f| failed += (fails >> f) as u32 & 1);
            declare(pool, ws);
            fail_saves(pool, ws, failed, dice, obs);
            return;
        }
    }
    ws.save_faces.clear();
    ws.save_faces.resize(pool.save.die as usize + 1, 0);
    dice.roll_each(pool.save.die, wounds, |f| ws.save_faces[f as usize] += 1);
    declare(pool, ws);
    if obs.enabled() && wounds > 0 {
        obs.event(Event::Order {
            groups: ws.order.clone(),
        });
    }
    resolve_save_faces(pool, ws, dice, obs);
}

/// `failed` unsaved attacks against a one-group target (whose failing faces
/// `RunPool::one_group_fails` holds): fixed damage applied as one count, as
/// [`resolve_save_faces`] would face by face, else one attack at a time.
pub(crate) fn fail_saves<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    failed: u32,
    dice: &mut D,
    obs: &mut O,
) {
    if !ws.one_damage_left && !pool.one_at_a_time() {
        // No later save needs the group they were checked against.
        fail_as_count(pool, ws, failed, dice);
        return;
    }
    if !ws.one_damage_left && damage_simply_lost(pool) {
        fail_one_by_one(pool, ws, failed, dice, obs);
        return;
    }
    for _ in 0..failed {
        let current = ws.state.current(&ws.order);
        unsaved(pool, ws, current, dice, obs);
    }
}

/// `failed` unsaved attacks against a one-group target, whose damage is
/// simply lost past the model ([`damage_simply_lost`]): each attack's damage
/// rolled and dealt to the front model while the group stands, exactly as
/// [`unsaved`] would one after another, with the counting and the group
/// found once.
fn fail_one_by_one<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    failed: u32,
    dice: &mut D,
    obs: &mut O,
) {
    bump(&mut ws.counters, pool.save.counter, failed);
    if pool.failed_saves == FailedSaves::AsRolled && !obs.enabled() {
        for _ in 0..failed {
            if ws.state.alive[0] == 0 {
                break;
            }
            ws.state.wound_front(0, pool.damage.roll(dice));
        }
        return;
    }
    let g = 0; // the one group
    let group = ws.state.group(g);
    let fnp = pool.fnp(g, group.feel_no_pain);
    for _ in 0..failed {
        if ws.state.alive[g] == 0 {
            break;
        }
        let (_, lost) = pool.damage_to(group, pool.damage.roll(dice));
        ws.state.wound_model(g, lost, fnp, dice, obs);
    }
}

/// Mortal wounds and unsaved damage from the pool's attacks, after its
/// normal damage, and mortal wounds a batch hook added.
fn pending_harm<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    for i in 0..ws.pending.len() {
        let (what, times) = ws.pending[i];
        if !obs.enabled() && held_mortal(pool, ws, &what, times) {
            continue;
        }
        for _ in 0..times {
            inflict(pool, ws, what, dice, obs);
        }
    }
    // Mortal wounds a batch hook added.
    if ws.extra_mortal > 0 {
        let n = ws.extra_mortal;
        bump(&mut ws.counters, pool.mortal_counter, n);
        spill_mortal(pool, ws, Side::Target, n, dice, obs);
    }
}

/// `n` of the pool's mortal wounds on the models attacked, spilling over.
fn spill_mortal<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    against: Side,
    n: u32,
    dice: &mut D,
    obs: &mut O,
) {
    obs.event(Event::Mortal {
        against,
        amount: n,
        spill: true,
    });
    let fnp = Some(pool.feel_no_pain.as_slice());
    inflict_mortal(&mut ws.state, n, true, None, fnp, dice, obs);
}

/// Declare the pool's allocation order; a focus group alive goes first and
/// stays current until destroyed.
pub(crate) fn declare(pool: &RunPool, ws: &mut Workspace<'_>) {
    ws.focus = pool.focus.iter().copied().find(|&g| ws.state.alive[g] > 0);
    order_with_focus(ws);
}

/// The allocation order from the state, with `ws.focus` (if any) first.
fn order_with_focus(ws: &mut Workspace<'_>) {
    if ws.state.alive.len() == 1 && ws.order.len() == 1 {
        return; // one group has one order, [0], declared already
    }
    ws.state.declare_order(ws.focus, &mut ws.order);
}

/// Resolve the save dice counted in `ws.save_faces`, lowest first, through
/// the allocation order in `ws.order`; a failed roll is followed by the
/// group's special save, if it has one. Once the unit is destroyed the rolls
/// are still checked (against the last group) so the failed-save count keeps
/// counting, but they inflict nothing.
pub(crate) fn resolve_save_faces<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let mut last_group = ws.state.current(&ws.order).unwrap_or(ws.order[0]);
    // Unwatched, fixed damage with nothing after it: a face every group
    // fails outright is applied as one count (`TargetState::apply_fixed`,
    // the same wounds, models and Feel No Pain dice as one at a time).
    let fixed = !obs.enabled() && !ws.one_damage_left && !pool.one_at_a_time();
    for face in 1..=pool.save.die {
        let mut left = ws.save_faces[face as usize];
        while left > 0 {
            if !obs.enabled() {
                // A roll that saves changes nothing, so every other roll of
                // this face saves too, against the same group: done at once.
                let g = ws.state.current(&ws.order).unwrap_or(last_group);
                if pool.save.saves(g, ws.state.group(g), face) {
                    last_group = g;
                    break;
                }
                if fixed && fails_outright(pool, ws, face) {
                    last_group = fail_fixed(pool, ws, last_group, left, dice);
                    break;
                }
            }
            last_group = save_one(pool, ws, last_group, face, dice, obs);
            left -= 1;
        }
    }
}

/// Does a save roll of `face` fail for every group, with no re-roll and no
/// special save to follow?
fn fails_outright(pool: &RunPool, ws: &Workspace<'_>, face: u32) -> bool {
    let save = &pool.save;
    !save.rerolls(face)
        && (0..ws.state.alive.len())
            .all(|g| save.special[g].is_none() && !save.saves(g, ws.state.group(g), face))
}

/// `n` failed saves of the pool's fixed damage, counted and applied at once
/// through the allocation order in `ws.order` (`TargetState::apply_fixed`).
pub(crate) fn fail_as_count<D: DiceSource>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    n: u32,
    dice: &mut D,
) {
    bump(&mut ws.counters, pool.save.counter, n);
    ws.state
        .apply_fixed(&ws.order, n, pool.damage.min(), &pool.feel_no_pain, dice);
}

/// [`fail_as_count`], returning the group the last of them was checked
/// against, as [`save_one`] would.
pub(crate) fn fail_fixed<D: DiceSource>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    last: usize,
    n: u32,
    dice: &mut D,
) -> usize {
    let standing = ws
        .order
        .iter()
        .rev()
        .find(|&&g| ws.state.alive[g] > 0)
        .copied();
    fail_as_count(pool, ws, n, dice);
    match ws.state.current(&ws.order) {
        Some(g) => g,
        // Destroyed by these: the last of them went to the last group standing.
        None => standing.unwrap_or(last),
    }
}

/// One save roll showing `face`, against the group current now (or `last`
/// once the unit is destroyed): re-rolled or followed by the special save
/// when it fails, then the attack's damage if it still fails. Returns the
/// group it was checked against.
fn save_one<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    last: usize,
    face: u32,
    dice: &mut D,
    obs: &mut O,
) -> usize {
    let current = ws.state.current(&ws.order);
    let g = current.unwrap_or(last);
    let saved = pool.save.saves(g, ws.state.group(g), face);
    let wounds_left = current.map(|g| ws.state.front[g]);
    obs.event(Event::Save {
        roll: face,
        group: current,
        saved,
        wounds_left,
    });
    let shown = (current, wounds_left);
    if !saved
        && !pool
            .save
            .roll_again((g, ws.state.group(g)), face, shown, dice, obs)
    {
        unsaved(pool, ws, current, dice, obs);
    }
    g
}

/// Save `wounds` tokens one at a time through the allocation order in
/// `ws.order`: each rolled against the group current then (its special save
/// after a failed roll), and its damage dealt before the next is rolled.
/// Once the unit is destroyed the rolls are still checked (against the last
/// group) so the failed-save count keeps counting, but they inflict nothing.
pub(crate) fn saves_in_turn<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    wounds: u32,
    dice: &mut D,
    obs: &mut O,
) {
    let mut last_group = ws.state.current(&ws.order).unwrap_or(ws.order[0]);
    for _ in 0..wounds {
        let roll = dice.roll(pool.save.die);
        last_group = save_one(pool, ws, last_group, roll, dice, obs);
    }
}

/// An attack that failed its save: counted, and, while the unit stands, its
/// damage rolled and applied to the current group.
pub(crate) fn unsaved<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    current: Option<usize>,
    dice: &mut D,
    obs: &mut O,
) {
    bump(&mut ws.counters, pool.save.counter, 1);
    let dealt = if ws.one_damage_left && current.is_some() {
        // The unit's one damage re-roll, on the first roll below average.
        let (value, used) = pool.damage.roll_once_more(dice);
        ws.one_damage_left = !used;
        Dealt::Fixed(value)
    } else {
        Dealt::Roll(pool.damage)
    };
    damage_model(pool, ws, current, dealt, dice, obs);
}

/// The damage one attack deals: dice rolled as it lands, or a value known
/// already.
#[derive(Debug, Clone, Copy)]
enum Dealt {
    Roll(ModifiedDice),
    Fixed(u32),
}

/// Deal an attack's damage, modified by the group, to the front model of
/// `current` (nothing once the unit is destroyed); what the model cannot
/// take is lost or carries on, as the pool's `excess` says.
fn damage_model<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    current: Option<usize>,
    dealt: Dealt,
    dice: &mut D,
    obs: &mut O,
) {
    if apply_damage(pool, ws, current, dealt, dice, obs) {
        top_threshold(pool, ws, dice, obs);
    }
}

/// What an attack meeting the top damage threshold does after its damage.
fn top_threshold<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let Some(t) = &pool.top_threshold else {
        return;
    };
    if let Some(m) = t.mark {
        ws.marks[m] = true;
    }
    if let Some(amount) = t.mortal {
        // Only a failed check costs the mortal wounds.
        if t.check.is_some_and(|c| roll_check(c, dice, obs)) {
            return;
        }
        let n = amount.roll(dice);
        spill_mortal(pool, ws, ws.state.side, n, dice, obs);
    }
}

/// The damage itself; true when it met the group's top threshold.
fn apply_damage<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    current: Option<usize>,
    dealt: Dealt,
    dice: &mut D,
    obs: &mut O,
) -> bool {
    let Some(mut g) = current else {
        return false;
    };
    let group = ws.state.group(g);
    let rolled = match dealt {
        Dealt::Roll(d) => d.roll(dice),
        Dealt::Fixed(v) => v,
    };
    let (amount, lost) = pool.damage_to(group, rolled);
    obs.event(Event::Damage {
        side: ws.state.side,
        group: g,
        amount,
        lost,
    });
    let top = group.thresholds.last().is_some_and(|&top| amount >= top);
    if top {
        bump(&mut ws.counters, pool.top_threshold_counter, 1);
    }
    if pool.excess == Excess::Lost {
        ws.state
            .wound_model(g, lost, pool.fnp(g, group.feel_no_pain), dice, obs);
        return top;
    }
    // Carried on, a point at a time where Feel No Pain rolls for each.
    let mut left = lost;
    while left > 0 {
        let fnp = pool.fnp(g, ws.state.group(g).feel_no_pain);
        let take = if fnp.is_some() {
            1
        } else {
            left.min(ws.state.front[g])
        };
        ws.state.wound_model(g, take, fnp, dice, obs);
        left -= take;
        if ws.state.alive[g] == 0 {
            match (pool.excess, ws.state.current(&ws.order)) {
                (Excess::Unit, Some(next)) => g = next,
                _ => return top,
            }
        }
    }
    top
}

/// Harm from one token outside the save: mortal wounds (amount rolled,
/// counted, inflicted) or the pool's damage with no save.
pub(crate) fn inflict<D: DiceSource, O: Observer>(
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    what: Inflict,
    dice: &mut D,
    obs: &mut O,
) {
    match what.kind {
        InflictKind::Mortal {
            amount,
            spill,
            reduced,
            focus,
            against: Side::Attacker,
        } => {
            // A hazard of the attack: the attacking unit's own models (only
            // counted when the Plan does not list them).
            let _ = (reduced, focus);
            let n = amount.map_or(pool.damage, ModifiedDice::from).roll(dice);
            bump(&mut ws.counters, pool.mortal_counter, n);
            obs.event(Event::Mortal {
                against: Side::Attacker,
                amount: n,
                spill,
            });
            if let Some(state) = ws.attacker.as_mut() {
                inflict_mortal(state, n, spill, None, Some(&[]), dice, obs);
            }
        }
        InflictKind::Mortal {
            amount,
            spill,
            reduced,
            focus,
            against: Side::Target,
        } => {
            let mut n = amount.map_or(pool.damage, ModifiedDice::from).roll(dice);
            let first = ws.focus.filter(|&f| focus && ws.state.alive[f] > 0);
            if reduced {
                if let Some(g) = ws.state.pick_for_mortal(first) {
                    n = ws.state.group(g).modify_damage(n);
                }
            }
            bump(&mut ws.counters, pool.mortal_counter, n);
            obs.event(Event::Mortal {
                against: Side::Target,
                amount: n,
                spill,
            });
            inflict_mortal(
                &mut ws.state,
                n,
                spill,
                first,
                Some(&pool.feel_no_pain),
                dice,
                obs,
            );
        }
        InflictKind::Damage {
            save,
            maximize,
            bonus,
            damage,
        } => {
            let current = ws.state.current(&ws.order);
            if let Some(i) = save {
                // Rolled even once the unit is destroyed (against the first
                // group of the order), so its counter keeps counting.
                let own = &pool.own_saves[i];
                let g = current.unwrap_or(ws.order[0]);
                if own.rolled {
                    let roll = dice.roll(own.die);
                    let saved = own.saves(g, ws.state.group(g), roll);
                    obs.event(Event::Save {
                        roll,
                        group: current,
                        saved,
                        wounds_left: current.map(|g| ws.state.front[g]),
                    });
                    let wounds_left = current.map(|g| ws.state.front[g]);
                    if saved
                        || own.roll_again(
                            (g, ws.state.group(g)),
                            roll,
                            (current, wounds_left),
                            dice,
                            obs,
                        )
                    {
                        return;
                    }
                }
                bump(&mut ws.counters, own.counter, 1);
            }
            let damage = damage.map_or(pool.damage, ModifiedDice::from);
            let dealt = if maximize || bonus != 0 {
                let rolled = if maximize {
                    damage.max()
                } else {
                    damage.roll(dice)
                };
                Dealt::Fixed((i64::from(rolled) + i64::from(bonus)).max(0) as u32)
            } else {
                Dealt::Roll(damage)
            };
            damage_model(pool, ws, current, dealt, dice, obs);
        }
    }
}

/// Mortal wounds: one at a time, 1 damage each, no save. With `spill` each
/// picks its model anew; without, they all go to the model the first one
/// picks and the rest is lost once it is destroyed. `feel_no_pain`: none
/// applies (`None`), or each group's own against mortal wounds, bettered by
/// its entry of the slice (a pool's Feel No Pain against its own harm).
pub(crate) fn inflict_mortal<D: DiceSource, O: Observer>(
    state: &mut TargetState<'_>,
    n: u32,
    spill: bool,
    first: Option<usize>,
    feel_no_pain: Option<&[Option<u32>]>,
    dice: &mut D,
    obs: &mut O,
) {
    state.mortal += n;
    // A focus group alive takes them first; then the usual order.
    let pick = |state: &TargetState<'_>| state.pick_for_mortal(first);
    if spill && !obs.enabled() && state.alive.len() == 1 {
        // One group without Feel No Pain against them: each wound takes a
        // wound off the front model in turn, as model after model.
        if mortal_fnp(state.group(0), 0, feel_no_pain).is_none() {
            wound_one_by_one(state, n);
            return;
        }
    }
    if spill {
        for _ in 0..n {
            let Some(g) = pick(state) else {
                return;
            };
            let fnp = mortal_fnp(state.group(g), g, feel_no_pain);
            state.wound_model(g, 1, fnp, dice, obs);
        }
    } else if let Some(g) = pick(state) {
        let fnp = mortal_fnp(state.group(g), g, feel_no_pain);
        state.wound_model(g, n, fnp, dice, obs);
    }
}
