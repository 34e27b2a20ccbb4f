//! The buffers one trial runs in, and what a finished trial reports.

use crate::error::CoreError;
use crate::plan::Side;
use crate::program::{Inflict, Program};
use crate::target::TargetState;

/// The per-trial numbers a run reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrialOutcome {
    pub counters: Vec<u32>,
    /// Wounds lost and models destroyed by the attacker's own models, when
    /// the Plan lists them.
    pub attacker: Option<(u32, u32)>,
    pub damage: u32,
    pub destroyed: u32,
    /// Models destroyed in each of the target's groups, by index.
    pub group_destroyed: Vec<u32>,
    /// Per sequence aimed at the target (`Program::attributed_sequences`),
    /// the wounds the target lost to it and the mortal wounds it inflicted.
    pub by_sequence: Vec<(u32, u32)>,
}

/// Reusable buffers for running many trials without allocating.
pub struct Workspace<'p> {
    pub state: TargetState<'p>,
    /// The attacker's own models, when the Plan lists them.
    pub attacker: Option<TargetState<'p>>,
    pub counters: Vec<u32>,
    pub(crate) entering: Vec<u32>,
    pub(crate) order: Vec<usize>,
    pub(crate) save_faces: Vec<u32>,
    /// The faces of a roll of several dice.
    pub(crate) roll_faces: Vec<u32>,
    /// The Plan's marks set now.
    pub(crate) marks: Vec<bool>,
    /// Harm queued by the current pool's tokens, resolved after its saves:
    /// each harm with how many times in a row it was queued.
    pub(crate) pending: Vec<(Inflict, u32)>,
    /// Harm queued until every sequence is resolved, in order.
    pub(crate) deferred: Vec<Held>,
    /// Mortal wounds held until every sequence was resolved, added up as
    /// they were held, when all the harm the Plan holds lands as one count
    /// (`counted::Spans::held_wounds`).
    pub(crate) held_wounds: u32,
    /// The group the current pool made current (Precision-like rules).
    pub(crate) focus: Option<usize>,
    /// What the current pool's tests did, for batch hooks: attack dice, and
    /// per test the tokens that passed and the criticals rolled (these two
    /// only kept for a pool with a hook: `RunPool::keeps_test_counts`).
    pub(crate) attacks: u32,
    pub(crate) passed: Vec<u32>,
    pub(crate) criticals: Vec<u32>,
    /// Mortal wounds a batch hook added to the current pool.
    pub(crate) extra_mortal: u32,
    /// The pool's one damage re-roll is still to be used.
    pub(crate) one_damage_left: bool,
    /// The first error a batch hook raised in this workspace's trials.
    pub(crate) failure: Option<CoreError>,
    /// Per sequence aimed at the target, the wounds it lost to it and the
    /// mortal wounds it inflicted so far (see [`Workspace::attribute`]).
    pub(crate) by_sequence: Vec<(u32, u32)>,
    /// Models alive per group when the current strike began, on the side
    /// attacked (0) and the attacking side (1): pools striking together
    /// count their attacks from these, not from the models alive now.
    pub(crate) alive_at_strike: [Vec<u32>; 2],
    /// The target's groups give values: each trial also reports the value
    /// of the models it destroyed ([`crate::value`]).
    pub(crate) valued: bool,
}

/// Harm held until every sequence is resolved: `times` of the same harm,
/// queued one after another by sequence `index` while `focus` was its focus
/// group. Counting repeats keeps a trial's queue short however many tokens
/// queue the same harm, and lets harm that lands alike land as one count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Held {
    pub(crate) index: usize,
    pub(crate) what: Inflict,
    pub(crate) focus: Option<usize>,
    pub(crate) times: u32,
}

impl Workspace<'_> {
    /// Queue `times` of `what` to land after the current pool's saves.
    #[inline]
    pub(crate) fn queue(&mut self, what: Inflict, times: u32) {
        match self.pending.last_mut() {
            Some((last, n)) if *last == what => *n += times,
            _ => self.pending.push((what, times)),
        }
    }

    /// Hold `times` of sequence `index`'s harm `what` until every sequence
    /// is resolved, remembering the current focus group.
    #[inline]
    pub(crate) fn hold(&mut self, index: usize, what: Inflict, times: u32) {
        let focus = self.focus;
        match self.deferred.last_mut() {
            Some(h) if h.index == index && h.focus == focus && h.what == what => h.times += times,
            _ => self.deferred.push(Held {
                index,
                what,
                focus,
                times,
            }),
        }
    }

    /// Swap the sides, so the attacker's models are the ones attacked.
    pub(crate) fn flip(&mut self) {
        if let Some(a) = self.attacker.as_mut() {
            std::mem::swap(&mut self.state, a);
            self.alive_at_strike.swap(0, 1);
        }
    }

    /// A strike begins: note the models alive on both sides.
    pub(crate) fn strike_begins(&mut self) {
        if let Some(a) = &self.attacker {
            self.alive_at_strike[0].clone_from(&self.state.alive);
            self.alive_at_strike[1].clone_from(&a.alive);
        }
    }

    /// The attacking side's models alive per group when the strike began,
    /// when the Plan lists the attacker's models.
    pub(crate) fn striking_alive(&self) -> Option<&[u32]> {
        self.attacker.as_ref().map(|_| &self.alive_at_strike[1][..])
    }

    /// Is either side destroyed?
    pub(crate) fn either_destroyed(&self) -> bool {
        self.state.wiped_out() || self.attacker.as_ref().is_some_and(TargetState::wiped_out)
    }

    /// Back to the start of a trial.
    pub fn reset(&mut self) {
        self.state.reset();
        if let Some(a) = &mut self.attacker {
            a.reset();
        }
        self.counters.iter_mut().for_each(|c| *c = 0);
        self.marks.iter_mut().for_each(|m| *m = false);
        self.deferred.clear();
        self.held_wounds = 0;
        self.by_sequence.iter_mut().for_each(|h| *h = (0, 0));
    }

    /// The wounds the target and the attacker's models have lost so far.
    pub(crate) fn losses(&self) -> (u32, u32) {
        (
            self.state.damage,
            self.attacker.as_ref().map_or(0, |a| a.damage),
        )
    }

    /// The target's wounds lost and mortal wounds taken so far, to be read
    /// before a sequence (or a held harm) and given to [`Self::attribute`]
    /// after it. Read while the sides are not swapped.
    #[inline]
    pub(crate) fn harm(&self) -> (u32, u32) {
        (self.state.damage, self.state.mortal)
    }

    /// Credit what the target lost since `before` (from [`Self::harm`]) to
    /// attributed sequence `slot`: every wound removed and mortal wound
    /// inflicted in between was that sequence's. Healing (its own sequence)
    /// is never in between, so the wounds lost only grow.
    #[inline]
    pub(crate) fn attribute(&mut self, slot: Option<usize>, before: (u32, u32)) {
        if let Some(i) = slot {
            let (damage, mortal) = self.harm();
            let h = &mut self.by_sequence[i];
            h.0 += damage.saturating_sub(before.0);
            h.1 += mortal.saturating_sub(before.1);
        }
    }
}

impl<'p> Workspace<'p> {
    /// One side's models, when the Plan lists them.
    pub(crate) fn side_mut(&mut self, side: Side) -> Option<&mut TargetState<'p>> {
        match side {
            Side::Target => Some(&mut self.state),
            Side::Attacker => self.attacker.as_mut(),
        }
    }

    #[must_use]
    pub fn new(program: &'p Program) -> Self {
        Workspace {
            state: TargetState::new(&program.plan.target, Side::Target),
            attacker: program
                .plan
                .attacker
                .as_ref()
                .map(|a| TargetState::new(a, Side::Attacker)),
            counters: vec![0; program.counters()],
            entering: Vec::new(),
            order: Vec::new(),
            save_faces: Vec::new(),
            roll_faces: Vec::new(),
            marks: vec![false; program.plan.marks.len()],
            pending: Vec::new(),
            deferred: Vec::new(),
            held_wounds: 0,
            focus: None,
            attacks: 0,
            passed: Vec::new(),
            criticals: Vec::new(),
            extra_mortal: 0,
            one_damage_left: false,
            failure: None,
            by_sequence: vec![(0, 0); program.attributed_sequences().len()],
            alive_at_strike: [Vec::new(), Vec::new()],
            valued: crate::value::valued(&program.plan),
        }
    }
}

/// `v` as `len` zeros: only zeroed when it has that length already, as it
/// does from one trial of a pool to the next.
#[inline]
pub(crate) fn zeroed(v: &mut Vec<u32>, len: usize) {
    if v.len() == len {
        v.fill(0);
    } else {
        v.clear();
        v.resize(len, 0);
    }
}

#[inline]
pub(crate) fn bump(counters: &mut [u32], index: Option<usize>, by: u32) {
    if let Some(i) = index {
        counters[i] += by;
    }
}

/// One trial's outcome, read from the workspace.
#[must_use]
pub fn outcome(ws: &Workspace<'_>) -> TrialOutcome {
    TrialOutcome {
        counters: ws.counters.clone(),
        attacker: ws.attacker.as_ref().map(|a| (a.damage, a.destroyed)),
        damage: ws.state.damage,
        destroyed: ws.state.destroyed,
        group_destroyed: (0..ws.state.alive.len())
            .map(|g| ws.state.group(g).start().0 - ws.state.alive[g])
            .collect(),
        by_sequence: ws.by_sequence.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::program::InflictKind;

    fn mortal(amount: u32) -> Inflict {
        Inflict {
            kind: InflictKind::Mortal {
                amount: Some(crate::DiceExpr::fixed(amount)),
                spill: true,
                reduced: false,
                focus: false,
                against: Side::Target,
            },
            after_all: true,
            ends: true,
        }
    }

    #[test]
    fn held_harm_in_a_row_is_one_entry_with_its_count_in_the_order_queued() {
        let plan = serde_json::json!({
            "version": 1,
            "counters": [],
            "target": {"groups": [{"name": "A", "models": 5, "wounds": 2}], "order": [0]},
            "sequences": []
        });
        let program = Program::new(Plan::from_json(&plan.to_string()).expect("a valid Plan"))
            .expect("a Program");
        let mut ws = Workspace::new(&program);
        ws.hold(0, mortal(1), 2);
        ws.hold(0, mortal(1), 1);
        ws.hold(0, mortal(3), 1);
        ws.focus = Some(0);
        ws.hold(0, mortal(3), 1);
        ws.hold(1, mortal(3), 4);
        let held: Vec<_> = ws
            .deferred
            .iter()
            .map(|h| (h.index, h.focus, h.times))
            .collect();
        assert_eq!(
            held,
            [(0, None, 3), (0, None, 1), (0, Some(0), 1), (1, Some(0), 4)]
        );
        assert_eq!(ws.deferred[1].what, mortal(3));
    }
}
