//! Which group an attack goes to: the allocation order, written once for the
//! die-by-die state and for the exact evaluator's packed states.
//!
//! Groups are sorted by `tier`, then (when the Plan asks for it) groups
//! holding a wounded model, then the Plan's `order`; a pool's focus group,
//! while it has a model alive, goes to the front. The current group is the
//! first with a model alive. Mortal wounds re-read the same ordering for
//! every wound.

use crate::plan::{Group, Target};

/// A side's models as allocation sees them: per group, the models alive and
/// the wounds left on the front model.
pub(crate) trait Models {
    fn alive(&self, g: usize) -> u32;
    fn front(&self, g: usize) -> u32;
}

/// A side's groups and the preferences the allocation order reads.
#[derive(Debug, Clone)]
pub(crate) struct Allocation<'p> {
    pub(crate) groups: &'p [Group],
    /// Each group's position in the Plan's `order`.
    preference: Vec<usize>,
    wounded_first: bool,
}

impl<'p> Allocation<'p> {
    pub(crate) fn new(target: &'p Target) -> Self {
        let mut preference = vec![0; target.groups.len()];
        for (pos, &g) in target.order.iter().enumerate() {
            preference[g] = pos;
        }
        Allocation {
            groups: &target.groups,
            preference,
            wounded_first: target.wounded_groups_first,
        }
    }

    #[inline]
    fn key(&self, m: &impl Models, g: usize) -> (u32, bool, usize) {
        let wounded = m.front(g) < self.groups[g].wounds;
        (
            self.groups[g].tier,
            self.wounded_first && !wounded,
            self.preference[g],
        )
    }

    /// The allocation order declared for a pool, into `order`, with `focus`
    /// (when it has a model alive) first. Destroyed groups stay in the list;
    /// [`current`] skips them.
    pub(crate) fn declare(&self, m: &impl Models, focus: Option<usize>, order: &mut Vec<usize>) {
        order.clear();
        order.extend(0..self.groups.len());
        if order.len() == 1 {
            // One group: nothing to sort or bring forward.
            return;
        }
        order.sort_by_key(|&g| self.key(m, g));
        if let Some(f) = focus.filter(|&f| m.alive(f) > 0) {
            let at = order.iter().position(|&g| g == f).unwrap_or(0);
            order[..=at].rotate_right(1);
        }
    }

    /// The group a mortal wound goes to now: `focus` while it has a model
    /// alive, else the first group of the ordering, re-read for every wound
    /// so a model wounded by the previous one is picked first.
    pub(crate) fn pick_for_mortal(&self, m: &impl Models, focus: Option<usize>) -> Option<usize> {
        if self.groups.len() == 1 {
            return (m.alive(0) > 0).then_some(0);
        }
        focus.filter(|&f| m.alive(f) > 0).or_else(|| {
            (0..self.groups.len())
                .filter(|&g| m.alive(g) > 0)
                .min_by_key(|&g| self.key(m, g))
        })
    }
}

/// The current allocation group of `order`: the first with a model alive.
#[inline]
pub(crate) fn current(m: &impl Models, order: &[usize]) -> Option<usize> {
    order.iter().copied().find(|&g| m.alive(g) > 0)
}
