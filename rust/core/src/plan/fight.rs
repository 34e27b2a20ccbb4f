//! The parts of a Plan that act between attacks: a fight's rounds and the
//! contest that may end it, and the marks, heals and checks a sequence makes,
//! with the model whose standing they need.

use super::{one, six, Side};
use crate::dice::DiceExpr;
use serde::Deserialize;

/// A fight: the Plan's sequences repeated as rounds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rounds {
    pub max: u32,
    /// Counts the rounds begun.
    #[serde(default)]
    pub counter: Option<String>,
    /// Set at the end of a trial to 0 (both sides stand), 1 (the target is
    /// destroyed), 2 (the attacker is destroyed) or 3 (both are).
    #[serde(default)]
    pub outcome_counter: Option<String>,
    /// A contest settled at the end of every round, which may end the fight
    /// before either side is destroyed.
    #[serde(default)]
    pub contest: Option<Contest>,
}

/// A contest settled at the end of every round of a fight in which both
/// sides still stand. Each side scores the wounds the other side lost that
/// round (less any restored in it, never below 0) plus its bonuses; the side with the lower score loses the round and
/// rolls `dice` dice of `sides` sides: it holds when their sum is at most its
/// `hold` less the difference of the scores (its `hold` alone when it ignores
/// the difference), or at most `always_holds`. A side that does not hold
/// leaves the fight, which ends. Equal scores: nobody rolls.
///
/// Its dice are rolled after every sequence of the round.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contest {
    pub attacker: ContestSide,
    pub target: ContestSide,
    #[serde(default = "two")]
    pub dice: u32,
    #[serde(default = "six")]
    pub sides: u32,
    /// A sum at or below this always holds (2 on two dice: both show 1); 0
    /// for none.
    #[serde(default)]
    pub always_holds: u32,
    /// Set at the end of every round settled to 0 (equal scores), 1 (the
    /// attacker scored more) or 2 (the target did): the last round's winner.
    #[serde(default)]
    pub winner_counter: Option<String>,
    /// Set when a side leaves the fight: 1 (the target) or 2 (the attacker).
    #[serde(default)]
    pub left_counter: Option<String>,
}

/// One side of a [`Contest`].
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContestSide {
    /// Added to the side's score every round.
    #[serde(default)]
    pub bonus: i32,
    /// Added to the side's score in the first round only.
    #[serde(default)]
    pub first_round_bonus: i32,
    /// The sum its roll must not exceed, before the difference is taken off.
    pub hold: i32,
    #[serde(default)]
    pub ignore_difference: IgnoreDifference,
    /// Models a full rank holds, for [`IgnoreDifference::MoreRanks`]: the
    /// side's full ranks are its models alive divided by this, rounded down.
    #[serde(default = "one")]
    pub rank_width: u32,
}

/// When the losing side rolls against its `hold` without the difference.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum IgnoreDifference {
    #[default]
    Never,
    Always,
    /// When, after the round, it has more full ranks than the winner.
    MoreRanks,
}

impl ContestSide {
    /// The side's score in round `round` (from 0), given the wounds the other
    /// side lost in it.
    #[must_use]
    pub fn score(&self, round: u32, wounds: u32) -> i64 {
        let first = if round == 0 {
            i64::from(self.first_round_bonus)
        } else {
            0
        };
        i64::from(wounds) + i64::from(self.bonus) + first
    }
}

impl Contest {
    /// The side that loses a round with these scores (attacker's first),
    /// and the difference; `None` on equal scores.
    #[must_use]
    pub fn loser(scores: [i64; 2]) -> Option<(Side, i64)> {
        match scores[0].cmp(&scores[1]) {
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Less => Some((Side::Attacker, scores[1] - scores[0])),
            std::cmp::Ordering::Greater => Some((Side::Target, scores[0] - scores[1])),
        }
    }

    /// The contest's terms for `side`.
    #[must_use]
    pub fn side(&self, side: Side) -> &ContestSide {
        match side {
            Side::Attacker => &self.attacker,
            Side::Target => &self.target,
        }
    }

    /// The highest sum that holds for the losing `side`, `difference` behind,
    /// with `alive` models against the winner's `winner_alive`.
    #[must_use]
    pub fn hold_at_most(&self, side: Side, difference: i64, alive: u32, winner_alive: u32) -> i64 {
        let me = self.side(side);
        let other = self.side(match side {
            Side::Attacker => Side::Target,
            Side::Target => Side::Attacker,
        });
        let ignore = match me.ignore_difference {
            IgnoreDifference::Never => false,
            IgnoreDifference::Always => true,
            IgnoreDifference::MoreRanks => {
                alive / me.rank_width.max(1) > winner_alive / other.rank_width.max(1)
            }
        };
        let needed = i64::from(me.hold) - if ignore { 0 } else { difference };
        needed.max(i64::from(self.always_holds))
    }
}

fn two() -> u32 {
    2
}

/// A model a sequence needs standing: it runs only while `side`'s group
/// `group` has more than `more_than` models alive. Several casters of one
/// unit fall in turn: the one with `more_than` 0 is the last to fall.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct WhileAlive {
    pub side: Side,
    #[serde(default)]
    pub group: usize,
    #[serde(default)]
    pub more_than: u32,
}

/// Set mark `mark` for the rest of the round (the trial, outside a fight),
/// after `check` succeeds when given: a power granting a later roll a die.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mark {
    pub name: String,
    pub mark: String,
    #[serde(default)]
    pub check: Option<Check>,
    /// Runs only while this model stands (its caster).
    #[serde(default)]
    pub while_alive: Option<WhileAlive>,
    /// Counts the times the mark is set.
    #[serde(default)]
    pub counter: Option<String>,
}

/// Restore `amount` wounds to a side (`check`: only if a roll succeeds),
/// never above its starting wounds. Without `return_models` only models
/// still alive are healed, up to what they hold, or with `up_to_start` up to
/// the starting wounds (the front model holding what the others cannot; no
/// model returns); with `return_models` destroyed models return as the
/// restored wounds support them (a model returns with the wounds left over).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heal {
    pub name: String,
    pub side: Side,
    pub amount: DiceExpr,
    #[serde(default)]
    pub return_models: bool,
    #[serde(default)]
    pub up_to_start: bool,
    #[serde(default)]
    pub check: Option<Check>,
    /// Runs only while this model stands (its caster).
    #[serde(default)]
    pub while_alive: Option<WhileAlive>,
    /// Counts the wounds restored.
    #[serde(default)]
    pub counter: Option<String>,
}

/// One die plus `modifier`, at or above `target` succeeds.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Check {
    #[serde(default = "six")]
    pub die: u32,
    pub target: i32,
    #[serde(default)]
    pub modifier: i32,
}

impl Check {
    /// Does a roll of `roll` pass?
    #[must_use]
    pub fn passes(&self, roll: u32) -> bool {
        i64::from(roll) + i64::from(self.modifier) >= i64::from(self.target)
    }
}
