//! The target's state during one trial, and the allocation rules that read it.

use crate::plan::{Group, Target};
use crate::rng::DiceSource;
use crate::trace::{Event, Observer};

/// What is left of the target: per group, the models alive and the wounds left
/// on the front model (the one damage goes to next; it is the only model of
/// its group that can be wounded, because damage always goes to a wounded
/// model first).
#[derive(Debug, Clone)]
pub struct TargetState<'p> {
    groups: &'p [Group],
    preference: Vec<usize>,
    wounded_first: bool,
    pub alive: Vec<u32>,
    pub front: Vec<u32>,
    /// Wounds removed from models (after Feel No Pain, without excess).
    pub damage: u32,
    pub destroyed: u32,
    models: u32,
}

impl<'p> TargetState<'p> {
    #[must_use]
    pub fn new(target: &'p Target) -> Self {
        let mut preference = vec![0; target.groups.len()];
        for (pos, &g) in target.order.iter().enumerate() {
            preference[g] = pos;
        }
        TargetState {
            groups: &target.groups,
            preference,
            wounded_first: target.wounded_groups_first,
            alive: target.groups.iter().map(|g| g.models).collect(),
            front: target.groups.iter().map(|g| g.wounds).collect(),
            damage: 0,
            destroyed: 0,
            models: target.groups.iter().map(|g| g.models).sum(),
        }
    }

    pub fn reset(&mut self) {
        for (i, g) in self.groups.iter().enumerate() {
            self.alive[i] = g.models;
            self.front[i] = g.wounds;
        }
        self.damage = 0;
        self.destroyed = 0;
    }

    #[must_use]
    pub fn wiped_out(&self) -> bool {
        self.destroyed == self.models
    }

    #[must_use]
    pub fn group(&self, g: usize) -> &'p Group {
        &self.groups[g]
    }

    fn key(&self, g: usize) -> (u32, bool, usize) {
        let wounded = self.front[g] < self.groups[g].wounds;
        (self.groups[g].tier, self.wounded_first && !wounded, self.preference[g])
    }

    /// The allocation order declared for a pool: by tier, then (when the
    /// Plan asks for it) groups holding a wounded model, then preference.
    /// Destroyed groups stay in the list; [`Self::current`] skips them.
    pub fn declare_order(&self, order: &mut Vec<usize>) {
        order.clear();
        order.extend(0..self.groups.len());
        order.sort_by_key(|&g| self.key(g));
    }

    /// The current allocation group: the first with a model alive.
    #[must_use]
    pub fn current(&self, order: &[usize]) -> Option<usize> {
        order.iter().copied().find(|&g| self.alive[g] > 0)
    }

    /// The group a mortal wound goes to now: the same ordering, re-read for
    /// every wound, so a model wounded by the previous one is picked first.
    #[must_use]
    pub fn pick_for_mortal(&self) -> Option<usize> {
        (0..self.groups.len()).filter(|&g| self.alive[g] > 0).min_by_key(|&g| self.key(g))
    }

    /// Apply `amount` damage to the front model of `g`, one wound at a time,
    /// each ignored on a Feel No Pain roll of `fnp`+. Stops when that model is
    /// destroyed: the rest is lost. Returns true if the model was destroyed.
    pub fn wound_model<D: DiceSource, O: Observer>(&mut self, g: usize, amount: u32, fnp: Option<u32>, dice: &mut D, obs: &mut O) -> bool {
        for _ in 0..amount {
            if let Some(f) = fnp {
                let roll = dice.roll(6);
                if roll >= f {
                    obs.event(Event::FeelNoPain { group: g, roll, ignored: true });
                    continue;
                }
                obs.event(Event::FeelNoPain { group: g, roll, ignored: false });
            }
            self.front[g] -= 1;
            self.damage += 1;
            if self.front[g] == 0 {
                self.alive[g] -= 1;
                self.destroyed += 1;
                self.front[g] = self.groups[g].wounds;
                obs.event(Event::ModelDestroyed { group: g, left_in_group: self.alive[g] });
                return true;
            }
        }
        false
    }

    /// Feel No Pain against mortal wounds: the better of the two a group has.
    #[must_use]
    pub fn mortal_fnp(&self, g: usize) -> Option<u32> {
        let grp = &self.groups[g];
        match (grp.feel_no_pain, grp.feel_no_pain_mortal) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
