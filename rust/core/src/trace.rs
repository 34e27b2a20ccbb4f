//! What happened in a trial, step by step, for replays and explanations.
//!
//! The executor is generic over an [`Observer`]; Monte Carlo runs use
//! [`NoTrace`], whose empty methods compile away, so tracing costs nothing
//! when nobody listens.

use crate::plan::{Class, Outcome, Side};

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A hazard-style roll of a mortal-wound source, and whether it failed.
    Roll { roll: u32, failed: bool },
    /// A round of a fight begins (numbered from 1).
    Round { number: u32 },
    /// A round's contest settled: the scores (attacker's, target's), the
    /// side that lost it, and that side's roll, the highest sum that held
    /// and whether it held (none when the scores were equal or a side was
    /// destroyed).
    Contest {
        scores: [i64; 2],
        loser: Option<Side>,
        roll: Option<u32>,
        hold_at_most: Option<i64>,
        held: Option<bool>,
    },
    /// Wounds restored to a side's models.
    Heal { side: Side, amount: u32 },
    /// A sequence (attack pool or mortal-wound source) starts.
    Sequence { index: usize, name: String },
    /// The number of attack dice a pool gathered.
    Attacks { count: u32 },
    /// A die rolled in a test; `rerolled_from` holds the first roll if re-rolled.
    Test {
        step: usize,
        roll: u32,
        rerolled_from: Option<u32>,
        outcome: Outcome,
    },
    /// The dice of a roll of several dice, in order (after any re-roll;
    /// `rerolled_from` holds the first faces), and what they made of it.
    Dice {
        step: usize,
        dice: Vec<u32>,
        rerolled_from: Option<Vec<u32>>,
        outcome: Outcome,
        class: Option<Class>,
    },
    /// The allocation order declared for a pool (group indices).
    Order { groups: Vec<usize> },
    /// A save roll, in the order resolved (lowest first), and where it went.
    Save {
        roll: u32,
        group: Option<usize>,
        saved: bool,
        /// Wounds left on the model the roll went to (the group's wounded
        /// model, if it has one), before any damage.
        wounds_left: Option<u32>,
    },
    /// A special save rolled after a failed save; `rerolled_from` holds the
    /// first roll when a success had to be rolled again.
    SpecialSave {
        group: usize,
        roll: u32,
        rerolled_from: Option<u32>,
        saved: bool,
    },
    /// Damage rolled for an unsaved attack, and the wounds it costs the
    /// group (`amount` unless the group has damage thresholds).
    Damage {
        side: Side,
        group: usize,
        amount: u32,
        lost: u32,
    },
    /// Mortal wounds inflicted on `against`.
    Mortal {
        against: Side,
        amount: u32,
        spill: bool,
    },
    FeelNoPain {
        side: Side,
        group: usize,
        roll: u32,
        ignored: bool,
    },
    ModelDestroyed {
        side: Side,
        group: usize,
        left_in_group: u32,
    },
}

impl Event {
    /// Does it hold memory of its own (a name, dice, an order)? Every kind
    /// is named, so a new kind must say.
    #[inline]
    #[must_use]
    pub fn holds_memory(&self) -> bool {
        match self {
            Event::Sequence { .. } | Event::Dice { .. } | Event::Order { .. } => true,
            Event::Roll { .. }
            | Event::Round { .. }
            | Event::Contest { .. }
            | Event::Heal { .. }
            | Event::Attacks { .. }
            | Event::Test { .. }
            | Event::Save { .. }
            | Event::SpecialSave { .. }
            | Event::Damage { .. }
            | Event::Mortal { .. }
            | Event::FeelNoPain { .. }
            | Event::ModelDestroyed { .. } => false,
        }
    }
}

pub trait Observer {
    fn event(&mut self, event: Event);
    /// False when events are thrown away, so callers can skip building them.
    fn enabled(&self) -> bool;
}

/// Discards everything.
pub struct NoTrace;

impl Observer for NoTrace {
    #[inline]
    fn event(&mut self, event: Event) {
        // An event built where its kind is known holds no memory in most
        // kinds: then forgetting it frees nothing, and the check compiles
        // away, where dropping it would call `Event`'s drop for every kind
        // on every trial.
        if event.holds_memory() {
            drop(event);
        } else {
            std::mem::forget(event);
        }
    }
    #[inline]
    fn enabled(&self) -> bool {
        false
    }
}

/// Keeps every event.
#[derive(Default)]
pub struct Recorder {
    pub events: Vec<Event>,
}

impl Observer for Recorder {
    fn event(&mut self, event: Event) {
        self.events.push(event);
    }
    fn enabled(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_events_with_a_name_dice_or_an_order_hold_memory() {
        let order = Event::Order { groups: vec![0, 1] };
        let name = Event::Sequence {
            index: 0,
            name: "Boltgun".into(),
        };
        assert!(order.holds_memory() && name.holds_memory());
        assert!(!Event::Attacks { count: 20 }.holds_memory());
        // Thrown away either way, without a leak of the memory held.
        NoTrace.event(order);
        NoTrace.event(name);
    }
}
