//! The target's state during one trial, and the allocation rules that read it.

use crate::allocation::{self, Allocation, Models};
use crate::plan::{Group, Side, Target};
use crate::rng::DiceSource;
use crate::trace::{Event, Observer};

/// What is left of the target: per group, the models alive and the wounds left
/// on the front model (the one damage goes to next; it is the only model of
/// its group that can be wounded, because damage always goes to a wounded
/// model first).
#[derive(Debug, Clone)]
pub struct TargetState<'p> {
    allocation: Allocation<'p>,
    pub alive: Vec<u32>,
    pub front: Vec<u32>,
    /// Wounds removed from models (after Feel No Pain, without excess).
    pub damage: u32,
    pub destroyed: u32,
    /// Mortal wounds inflicted on these models, before Feel No Pain (also
    /// those that found no model left to wound).
    pub mortal: u32,
    models: u32,
    /// Which side these models are on, for the events they report.
    pub side: Side,
}

impl<'p> TargetState<'p> {
    #[must_use]
    pub fn new(target: &'p Target, side: Side) -> Self {
        TargetState {
            allocation: Allocation::new(target),
            alive: target.groups.iter().map(|g| g.start().0).collect(),
            front: target.groups.iter().map(|g| g.start().1).collect(),
            damage: 0,
            destroyed: 0,
            mortal: 0,
            // The models it starts with: `destroyed` counts from the start.
            models: target.groups.iter().map(|g| g.start().0).sum(),
            side,
        }
    }

    pub fn reset(&mut self) {
        for (i, g) in self.allocation.groups.iter().enumerate() {
            (self.alive[i], self.front[i]) = g.start();
        }
        self.damage = 0;
        self.destroyed = 0;
        self.mortal = 0;
    }

    /// Does any group convert damage through thresholds?
    #[must_use]
    pub fn has_thresholds(&self) -> bool {
        self.allocation
            .groups
            .iter()
            .any(|g| !g.thresholds.is_empty())
    }

    #[must_use]
    pub fn wiped_out(&self) -> bool {
        self.destroyed == self.models
    }

    #[must_use]
    pub fn group(&self, g: usize) -> &'p Group {
        &self.allocation.groups[g]
    }

    /// Every group, in the Plan's order.
    #[must_use]
    pub fn groups(&self) -> &'p [Group] {
        self.allocation.groups
    }

    /// The allocation order declared for a pool, into `order`, with `focus`
    /// (when it has a model alive) first.
    pub(crate) fn declare_order(&self, focus: Option<usize>, order: &mut Vec<usize>) {
        self.allocation.declare(self, focus, order);
    }

    /// The current allocation group: the first of `order` with a model alive.
    #[must_use]
    #[inline]
    pub fn current(&self, order: &[usize]) -> Option<usize> {
        allocation::current(self, order)
    }

    /// The group a mortal wound goes to now (`focus` first, while it stands).
    #[must_use]
    pub(crate) fn pick_for_mortal(&self, focus: Option<usize>) -> Option<usize> {
        self.allocation.pick_for_mortal(self, focus)
    }

    /// Apply `amount` damage to the front model of `g`, one wound at a time,
    /// each ignored on a Feel No Pain roll of `fnp`+. Stops when that model is
    /// destroyed: the rest is lost. Returns true if the model was destroyed.
    pub fn wound_model<D: DiceSource, O: Observer>(
        &mut self,
        g: usize,
        amount: u32,
        fnp: Option<u32>,
        dice: &mut D,
        obs: &mut O,
    ) -> bool {
        let lost = match fnp {
            // Without Feel No Pain the wounds come off at once.
            None => amount.min(self.front[g]),
            Some(f) => {
                let mut lost = 0;
                for _ in 0..amount {
                    let roll = dice.roll(6);
                    let ignored = roll >= f;
                    obs.event(Event::FeelNoPain {
                        side: self.side,
                        group: g,
                        roll,
                        ignored,
                    });
                    if !ignored {
                        lost += 1;
                        if lost == self.front[g] {
                            break;
                        }
                    }
                }
                lost
            }
        };
        let destroyed = self.take_from_front(g, lost);
        if destroyed {
            obs.event(Event::ModelDestroyed {
                side: self.side,
                group: g,
                left_in_group: self.alive[g],
            });
        }
        destroyed
    }

    /// [`TargetState::wound_model`] without Feel No Pain and unwatched:
    /// `amount` damage to the front model of `g`, the rest lost.
    #[inline]
    pub(crate) fn wound_front(&mut self, g: usize, amount: u32) {
        self.take_from_front(g, amount.min(self.front[g]));
    }

    /// Take `lost` wounds (at most what it has left) from the front model of
    /// `g`; true if that destroyed it.
    #[inline]
    fn take_from_front(&mut self, g: usize, lost: u32) -> bool {
        self.front[g] -= lost;
        self.damage += lost;
        if self.front[g] == 0 {
            self.alive[g] -= 1;
            self.destroyed += 1;
            self.front[g] = self.allocation.groups[g].wounds;
            return true;
        }
        false
    }

    /// Restore up to `amount` wounds, groups in allocation preference, never
    /// above the wounds each group started the trial with (below full when it
    /// has `wounds_lost`). Without `return_models` only models alive
    /// are healed (the front model back to full), or with `up_to_start` up
    /// to the group's starting wounds, the front model holding what the
    /// others cannot (no model returns; it falls only once all it holds is
    /// lost); with `return_models` destroyed models return as the wounds
    /// support them, the last with what is left over. Returns the wounds
    /// restored.
    pub fn heal(&mut self, mut amount: u32, return_models: bool, up_to_start: bool) -> u32 {
        let mut order = Vec::new();
        self.declare_order(None, &mut order);
        let mut healed = 0;
        for g in order {
            if amount == 0 {
                break;
            }
            let (models, w) = (
                self.allocation.groups[g].models,
                self.allocation.groups[g].wounds,
            );
            let alive = self.alive[g];
            if alive == 0 && !return_models {
                continue;
            }
            // The group's wounds as one pool: whole models behind the front one.
            let now = if alive == 0 {
                0
            } else {
                (alive - 1) * w + self.front[g]
            };
            // Never above the wounds the group started the trial with: wounds
            // lost and models destroyed are counted from there.
            let start = models * w - self.allocation.groups[g].wounds_lost;
            let most = if return_models || up_to_start {
                start
            } else {
                (alive * w).min(start)
            };
            // A side holding more than its survivors support heals no further.
            let then = (now + amount).min(most).max(now);
            if up_to_start && !return_models {
                self.front[g] = then - (alive - 1) * w;
                self.damage -= then - now;
                healed += then - now;
                amount -= then - now;
                continue;
            }
            let alive_then = then.div_ceil(w);
            self.front[g] = if alive_then == 0 {
                w
            } else {
                then - (alive_then - 1) * w
            };
            self.alive[g] = alive_then;
            self.destroyed -= alive_then - alive;
            self.damage -= then - now;
            healed += then - now;
            amount -= then - now;
        }
        healed
    }

    /// Apply `attacks` unsaved attacks of fixed damage `d` (at least 1) to
    /// the groups in `order`, each group modifying it as it does, as that many
    /// calls of [`Self::wound_model`] on the current group would, for groups
    /// without Feel No Pain; a group with it gets the attacks one at a time. Returns the attacks left over once
    /// every group is destroyed.
    pub fn apply_fixed<D: DiceSource>(
        &mut self,
        order: &[usize],
        mut attacks: u32,
        d: u32,
        extra_fnp: &[Option<u32>],
        dice: &mut D,
    ) -> u32 {
        for &g in order {
            if attacks == 0 {
                break;
            }
            if self.alive[g] == 0 {
                continue;
            }
            let d = self.allocation.groups[g].modify_damage(d);
            let fnp = crate::plan::better_fnp(
                self.allocation.groups[g].feel_no_pain,
                extra_fnp.get(g).copied().flatten(),
            );
            if fnp.is_some() {
                while attacks > 0 && self.alive[g] > 0 {
                    attacks -= 1;
                    self.wound_model(g, d, fnp, dice, &mut crate::trace::NoTrace);
                }
                continue;
            }
            let w = self.allocation.groups[g].wounds;
            // Finish the front model, then whole models, then start one more.
            // (Damage that takes a whole model needs no division: it is
            // common, and a division is slow.)
            let front_cost = if d >= self.front[g] {
                1
            } else {
                self.front[g].div_ceil(d)
            };
            if attacks < front_cost {
                self.front[g] -= attacks * d;
                self.damage += attacks * d;
                return 0;
            }
            attacks -= front_cost;
            self.damage += self.front[g];
            self.alive[g] -= 1;
            self.destroyed += 1;
            self.front[g] = w;
            let (per_model, whole) = if d >= w {
                (1, attacks)
            } else {
                let per_model = w.div_ceil(d);
                (per_model, attacks / per_model)
            };
            let kills = whole.min(self.alive[g]);
            attacks -= kills * per_model;
            self.alive[g] -= kills;
            self.destroyed += kills;
            self.damage += kills * w;
            if self.alive[g] > 0 {
                // Fewer attacks left than a whole model needs.
                self.front[g] -= attacks * d;
                self.damage += attacks * d;
                return 0;
            }
        }
        attacks
    }
}

impl Models for TargetState<'_> {
    #[inline]
    fn alive(&self, g: usize) -> u32 {
        self.alive[g]
    }
    #[inline]
    fn front(&self, g: usize) -> u32 {
        self.front[g]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Group, Target};
    use crate::rng::Stream;
    use crate::trace::NoTrace;

    fn group(name: &str, models: u32, wounds: u32, tier: u32) -> Group {
        Group {
            name: name.into(),
            models,
            wounds,
            tier,
            save: None,
            invulnerable: None,
            feel_no_pain: None,
            feel_no_pain_mortal: None,
            damage_divisor: 1,
            damage_reduction: 0,
            reduction_floor: 1,
            wounds_lost: 0,
            thresholds: Vec::new(),
            value: 0,
        }
    }

    /// `apply_fixed` must leave exactly the state that one `wound_model` per
    /// attack on the current group leaves, from any starting state.
    #[test]
    fn batch_damage_equals_one_attack_at_a_time() {
        let target = Target {
            groups: vec![
                group("A", 3, 3, 0),
                Group {
                    damage_divisor: 2,
                    ..group("B", 4, 2, 0)
                },
                Group {
                    damage_reduction: 1,
                    ..group("C", 1, 5, 1)
                },
            ],
            order: vec![0, 1, 2],
            wounded_groups_first: true,
        };
        let mut dice = Stream::new(0, 0);
        for d in 1..=6 {
            for pre in 0..12 {
                for attacks in 0..16 {
                    let mut one = TargetState::new(&target, Side::Target);
                    let mut order = Vec::new();
                    one.declare_order(None, &mut order);
                    // Wound the unit a little first so front models start partly wounded.
                    for _ in 0..pre {
                        if let Some(g) = one.current(&order) {
                            one.wound_model(g, 1, None, &mut dice, &mut NoTrace);
                        }
                    }
                    let mut batch = one.clone();
                    let mut left = 0;
                    for _ in 0..attacks {
                        match one.current(&order) {
                            Some(g) => {
                                let taken = one.group(g).modify_damage(d);
                                one.wound_model(g, taken, None, &mut dice, &mut NoTrace);
                            }
                            None => left += 1,
                        }
                    }
                    let batch_left = batch.apply_fixed(&order, attacks, d, &[], &mut dice);
                    let state = |s: &TargetState<'_>| {
                        (s.alive.clone(), s.front.clone(), s.damage, s.destroyed)
                    };
                    assert_eq!(
                        state(&batch),
                        state(&one),
                        "d={d} pre={pre} attacks={attacks}"
                    );
                    assert_eq!(batch_left, left);
                }
            }
        }
    }
}
