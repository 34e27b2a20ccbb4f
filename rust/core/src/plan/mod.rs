//! The Plan: the small language every ruleset compiles to.
//!
//! A Plan arrives as JSON (built by the Python helpers in `mathhammer.plan`),
//! is checked once by [`Plan::from_json`], and is then run as often as needed.
//! The core dispatches on the *kind* of each primitive and never on the name
//! of a keyword or ruleset: a keyword is an edit to these structures.
//! `docs/architecture.md` is the contract in prose; this file is the contract
//! in types.

mod check;
mod fight;

use crate::dice::{DiceExpr, DiceReroll, ModifiedDice};
use crate::error::CoreError;
use serde::Deserialize;

pub use crate::limits::{
    MAX_ATTACKS, MAX_MODELS, MAX_MODIFIER, MAX_ROLL_COMBINATIONS, MAX_ROUNDS, MAX_TOKENS_PER_TRIAL,
    MAX_VALUE,
};

pub use fight::{Check, Contest, ContestSide, Heal, IgnoreDifference, Mark, Rounds, WhileAlive};

/// Bumped when a change would make an old Plan mean something else.
pub const PLAN_VERSION: u32 = 1;

/// A whole Plan: who is hit, by what, in which order.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub version: u32,
    /// Names of the stage counters the Result reports, in order. Steps refer to
    /// them by name; `damage` and `models_destroyed` are always reported too.
    pub counters: Vec<String>,
    pub target: Target,
    /// The attacking unit's own models, for rules that hurt the attacker.
    /// Without them, harm to the attacker is only counted.
    #[serde(default)]
    pub attacker: Option<Target>,
    /// Resolved in order, each to the end, against the same target.
    pub sequences: Vec<Sequence>,
    /// Run the sequences again, round after round, until either side is
    /// destroyed or `max` rounds are fought (a fight between two units).
    #[serde(default)]
    pub rounds: Option<Rounds>,
    /// Names of marks: facts a sequence may set during a trial (cleared at
    /// the start of every round) that dice of later rolls depend on.
    #[serde(default)]
    pub marks: Vec<String>,
}

/// The unit being attacked.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub groups: Vec<Group>,
    /// Preference order of the groups (indices into `groups`): ties in the
    /// allocation order are broken by this list.
    pub order: Vec<usize>,
    /// Within a tier, a group holding a wounded model goes before the others.
    #[serde(default)]
    pub wounded_groups_first: bool,
}

/// Models that take damage the same way. A group is a pool of identical models
/// worked through one at a time: damage always goes to the model already
/// wounded, so at most one model of a group is ever partly wounded.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    pub name: String,
    pub models: u32,
    pub wounds: u32,
    /// Lower tiers are allocated before higher tiers (40k: characters are 1).
    #[serde(default)]
    pub tier: u32,
    /// Armour save: a roll, modified by AP and save modifiers, at or above this saves.
    #[serde(default)]
    pub save: Option<u32>,
    /// An unmodified roll at or above this saves, whatever the AP.
    #[serde(default)]
    pub invulnerable: Option<u32>,
    /// A d6 at or above this ignores one wound that would be lost.
    #[serde(default)]
    pub feel_no_pain: Option<u32>,
    /// Like `feel_no_pain`, but only against mortal wounds. The better applies.
    #[serde(default)]
    pub feel_no_pain_mortal: Option<u32>,
    /// Normal damage allocated to these models is divided by this (rounded
    /// up), then reduced by `damage_reduction`, and never below
    /// `reduction_floor` (1 unless given).
    #[serde(default = "one")]
    pub damage_divisor: u32,
    #[serde(default)]
    pub damage_reduction: u32,
    /// The least damage `damage_divisor` and `damage_reduction` leave: 1 in
    /// games where a reduced attack still wounds, 0 where it may do nothing.
    #[serde(default = "one")]
    pub reduction_floor: u32,
    /// Wounds the group has lost before the trial starts: whole models gone
    /// first, the rest on its front model (a unit starting below full).
    #[serde(default)]
    pub wounds_lost: u32,
    /// Normal damage converts to the number of these it meets, ascending
    /// (damage thresholds: Minor, Major, double Major lose 1, 2, 3 wounds).
    /// Empty: damage is wounds lost. Mortal wounds are never converted.
    #[serde(default)]
    pub thresholds: Vec<u32>,
    /// What each model of the group destroyed adds to the trial's
    /// `value_destroyed` number (see [`crate::value`]); 0 adds nothing, and
    /// when no group of the target gives a value the number is not reported.
    #[serde(default)]
    pub value: u32,
}

/// The better (lower) of two Feel No Pain rolls, either possibly absent.
#[must_use]
pub fn better_fnp(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The Feel No Pain group `g` rolls against a mortal wound: the better of
/// its own against mortal wounds and the pool's for that group, when the
/// pool allows one at all (`feel_no_pain`, per group).
#[must_use]
pub(crate) fn mortal_fnp(
    group: &Group,
    g: usize,
    feel_no_pain: Option<&[Option<u32>]>,
) -> Option<u32> {
    feel_no_pain.and_then(|extra| better_fnp(group.mortal_fnp(), extra.get(g).copied().flatten()))
}

impl Group {
    /// Feel No Pain against mortal wounds: the better of the two the group has.
    #[must_use]
    pub fn mortal_fnp(&self) -> Option<u32> {
        better_fnp(self.feel_no_pain, self.feel_no_pain_mortal)
    }

    /// Whether these models change the damage they take (divide or reduce it).
    #[must_use]
    pub fn modifies_damage(&self) -> bool {
        self.damage_divisor > 1 || self.damage_reduction > 0
    }

    /// Damage `d` as these models take it: divided (rounded up), then
    /// reduced, never below the floor. Unchanged when the group has no modifier.
    #[must_use]
    pub fn modify_damage(&self, d: u32) -> u32 {
        if !self.modifies_damage() {
            return d;
        }
        d.div_ceil(self.damage_divisor.max(1))
            .saturating_sub(self.damage_reduction)
            .max(self.reduction_floor)
    }

    /// Models alive and wounds left on the front model at the start of a
    /// trial, after `wounds_lost` (whole models first).
    #[must_use]
    pub fn start(&self) -> (u32, u32) {
        if self.wounds_lost == 0 {
            // Every trial reads this: no division when nothing was lost.
            return (self.models, self.wounds);
        }
        let gone = self.wounds_lost / self.wounds;
        (
            self.models.saturating_sub(gone),
            self.wounds - self.wounds_lost % self.wounds,
        )
    }
}

/// One entry of the resolution order.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Sequence {
    /// A pool of identical attack dice taken through tests, saves and damage.
    Attack(Box<AttackPool>),
    /// Mortal wounds from an ability, outside any attack.
    MortalWounds(MortalSource),
    /// Wounds restored to one side's models.
    Heal(Heal),
    /// Set a mark (only if its check succeeds, when it has one).
    Mark(Mark),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttackPool {
    pub name: String,
    /// Where the pool's attack dice come from: one term per weapon profile
    /// pooled here (40k pools identical attacks of weapons with different A).
    pub attacks: Vec<Attacks>,
    /// Counts the pool's attack dice.
    #[serde(default)]
    pub attacks_counter: Option<String>,
    /// Tests each attack die goes through, in order (40k: hit, then wound).
    #[serde(default)]
    pub steps: Vec<Test>,
    pub save: Save,
    pub damage: Damage,
    /// Groups (indices) the attacker may make current for this pool, in order
    /// of preference: the first with a model alive when the pool's saves are
    /// resolved is current until destroyed, and the pool's mortal wounds go
    /// to it first.
    #[serde(default)]
    pub focus: Vec<usize>,
    /// Index of a batch hook called between the pool's tests and its save,
    /// with the arrays `docs/architecture.md` lists, a chunk of trials at a time.
    #[serde(default)]
    pub batch_hook: Option<usize>,
    /// Counter for mortal wounds this pool inflicts (before Feel No Pain).
    #[serde(default)]
    pub mortal_counter: Option<String>,
    /// Whose models the pool attacks: the target (default), or the attacker
    /// (the target striking back in a fight). Group indices in the pool
    /// (focus, save modifiers, `alive_of`) refer to the side attacked and,
    /// for `alive_of`, to the side attacking.
    #[serde(default)]
    pub against: Side,
    /// Per group of the side attacked (by index; empty means none): a Feel No
    /// Pain those models have against this pool's harm only, its damage and
    /// the mortal wounds it inflicts (rules such as "against Psychic
    /// Attacks"). The better of it and the group's own applies.
    #[serde(default)]
    pub feel_no_pain: Vec<Option<u32>>,
    /// The pool strikes together with the sequence before it: its attack
    /// terms with `alive_of` count the models alive when that sequence began,
    /// and it strikes even if that sequence destroyed a side.
    #[serde(default)]
    pub simultaneous: bool,
}

/// How many attack dice a pool has: each of `models` rolls `dice`, adds
/// `bonus`, then is raised to `minimum`; with `maximize` the dice are not
/// rolled and take their largest value.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attacks {
    pub models: u32,
    pub dice: DiceExpr,
    #[serde(default)]
    pub bonus: i32,
    #[serde(default)]
    pub minimum: Option<u32>,
    #[serde(default)]
    pub maximize: bool,
    /// The attacking side's group whose models alive now make these attacks
    /// (at most `models` of them): in a fight, only the survivors attack.
    #[serde(default)]
    pub alive_of: Option<usize>,
    /// With `alive_of`: this many of the models alive do something else
    /// (attempt a power instead of attacking) and do not attack.
    #[serde(default)]
    pub reserve: u32,
}

/// Re-roll policy of a test. A die is re-rolled at most once, before modifiers.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Reroll {
    #[default]
    None,
    /// Re-roll an unmodified 1.
    Ones,
    /// Re-roll a roll whose outcome is a fail.
    Failures,
    /// Re-roll anything that is not a critical (fishing for criticals).
    NonCritical,
}

/// When a roll of several dice is re-rolled, replacing the policy's own
/// condition: on a roll whose outcome is `fail` or `success`, or whose class
/// is the one named. A critical is never re-rolled this way.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RerollWhen {
    Fail,
    Success,
    FirstHigher,
    Equal,
    SecondHigher,
}

/// The class a test puts an attack die in.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Fail,
    Success,
    Critical,
}

/// Roll one die per token and classify it by the first rule that applies:
/// unmodified `<= natural_fail` fails; unmodified `>= critical` is a critical
/// (a success); unmodified plus the capped sum of `modifiers` `>= target`
/// succeeds; otherwise it fails. With `automatic`, no die is rolled and every
/// token succeeds (never critically).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Test {
    pub name: String,
    #[serde(default = "six")]
    pub die: u32,
    #[serde(default)]
    pub target: u32,
    #[serde(default)]
    pub automatic: bool,
    #[serde(default)]
    pub modifiers: Vec<i32>,
    #[serde(default = "min_modifier")]
    pub modifier_min: i32,
    #[serde(default = "max_modifier")]
    pub modifier_max: i32,
    #[serde(default)]
    pub natural_fail: u32,
    /// Unmodified result at or above which the die is a critical; absent means
    /// no criticals.
    #[serde(default)]
    pub critical: Option<u32>,
    /// A critical needs the roll to succeed first ("a successful unmodified 5+").
    #[serde(default)]
    pub critical_requires_success: bool,
    #[serde(default)]
    pub reroll: Reroll,
    /// Once per pool (per round in a fight), the first die of this test that
    /// fails and was not re-rolled already is rolled again (a re-roll of one
    /// die granted to the unit). Only for a test of one `die`.
    #[serde(default)]
    pub reroll_one: bool,
    /// Roll these dice together instead of one `die`: the test succeeds when
    /// their sum (a die with `subtract` counts negative) plus the capped
    /// modifiers reaches `target`. `natural_fail` and `critical` do not apply;
    /// criticals come from `compare`.
    #[serde(default)]
    pub dice: Vec<RollDie>,
    /// Two of `dice` compared, putting each roll in a [`Class`] that effects
    /// may key on.
    #[serde(default)]
    pub compare: Option<Compare>,
    /// With `dice`: when the roll is re-rolled, instead of `reroll`'s own
    /// condition (the dice re-rolled stay `reroll`'s: every re-rollable die for
    /// `failures`, those showing 1 for `ones`). Any listed condition met
    /// re-rolls it: a player re-rolling a hit to avoid a side effect.
    #[serde(default)]
    pub reroll_when: Vec<RerollWhen>,
    /// Counts tokens that leave this test as successes or criticals, tokens that
    /// skip it, and extra tokens it creates.
    #[serde(default)]
    pub counter: Option<String>,
    #[serde(default)]
    pub effects: Vec<Effect>,
}

/// One die of a roll of several dice.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RollDie {
    pub sides: u32,
    /// The die counts negative (a disadvantage die).
    #[serde(default)]
    pub subtract: bool,
    /// Re-rolled when the roll is re-rolled (`failures`, `non_critical`) and
    /// when it shows a 1 (`ones`); false keeps the die as it fell.
    #[serde(default = "yes")]
    pub rerolled: bool,
    /// The die is part of the roll only while this mark is set.
    #[serde(default)]
    pub when: Option<String>,
    /// The die is part of the roll only while this mark is not set.
    #[serde(default)]
    pub unless: Option<String>,
}

impl RollDie {
    /// Does the die depend on a mark?
    #[must_use]
    pub fn conditional(&self) -> bool {
        self.when.is_some() || self.unless.is_some()
    }
}

/// Compare two dice of a roll (indices into `dice`); with `equal_is_critical`
/// a roll where they match is a critical (a success; with
/// `critical_requires_success` only if the total also succeeds).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Compare {
    pub dice: [usize; 2],
    #[serde(default)]
    pub equal_is_critical: bool,
}

/// Which of the two compared dice is higher.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    FirstHigher,
    Equal,
    SecondHigher,
}

fn six() -> u32 {
    6
}
fn min_modifier() -> i32 {
    i32::MIN / 2
}
fn max_modifier() -> i32 {
    i32::MAX / 2
}

/// When a token gets outcome `on` at a test, do the action. Effects run in
/// list order.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Effect {
    /// Add `amount` tokens that enter the next test (or the save) as plain
    /// successes of this one.
    Extra {
        on: Outcome,
        amount: DiceExpr,
        #[serde(default)]
        class: Option<Class>,
    },
    /// The token skips the next `steps` tests, counted as a plain success of
    /// each, never a critical.
    Skip {
        on: Outcome,
        steps: u32,
        #[serde(default)]
        class: Option<Class>,
    },
    /// The token inflicts mortal wounds after the pool's normal damage (or,
    /// with `after_all`, after every sequence of the Plan). `amount` is a dice
    /// expression, or absent for the pool's damage roll. With `spill`, excess
    /// carries to the next model; otherwise the wounds stop at the one model
    /// they start on. With `reduced`, that model's damage modifiers apply to
    /// the amount. With `ends_attack`, the token leaves the sequence (no
    /// further tests, no save).
    Mortal {
        on: Outcome,
        #[serde(default)]
        amount: Option<DiceExpr>,
        #[serde(default = "yes")]
        spill: bool,
        #[serde(default)]
        ends_attack: bool,
        #[serde(default)]
        after_all: bool,
        #[serde(default)]
        reduced: bool,
        /// The pool's focus group (if alive) takes them first; otherwise
        /// they go where mortal wounds usually go.
        #[serde(default)]
        focus: bool,
        /// Whose models suffer them: the target (default), or the attacking
        /// unit's own (a hazard of the attack).
        #[serde(default)]
        against: Side,
        #[serde(default)]
        class: Option<Class>,
    },
    /// The token leaves the sequence and, with no save, inflicts the pool's
    /// damage as normal damage (excess lost, damage modifiers and Feel No Pain
    /// apply) after the pool's saves, or with `after_all` after every sequence.
    Unsaved {
        on: Outcome,
        #[serde(default)]
        after_all: bool,
        /// The damage dice are not rolled and take their largest value.
        #[serde(default)]
        maximize: bool,
        /// Added to the damage rolled (never below 0).
        #[serde(default)]
        bonus: i32,
        /// The token's damage dice, instead of the pool's.
        #[serde(default)]
        damage: Option<DiceExpr>,
        #[serde(default)]
        class: Option<Class>,
    },
    /// The token leaves the sequence and, after the pool's saves, takes `save`
    /// instead of the pool's: its own AP, modifiers and special saves (rules
    /// where a critical changes how the attack is saved). On a failure it
    /// inflicts the pool's damage as an unsaved attack of the pool would, or
    /// its own: `damage` dice instead of the pool's, the largest value with
    /// `maximize`, plus `bonus` (never below 0).
    OwnSave {
        on: Outcome,
        save: Box<Save>,
        #[serde(default)]
        maximize: bool,
        #[serde(default)]
        bonus: i32,
        #[serde(default)]
        damage: Option<DiceExpr>,
        #[serde(default)]
        class: Option<Class>,
    },
    /// Count the token in `counter` (a status the attack inflicts, whose
    /// chance the Result reports); the token goes on.
    Count {
        on: Outcome,
        counter: String,
        #[serde(default)]
        class: Option<Class>,
    },
}

impl Effect {
    /// The outcome that triggers it.
    #[must_use]
    pub fn on(&self) -> Outcome {
        match self {
            Effect::Extra { on, .. }
            | Effect::Skip { on, .. }
            | Effect::Mortal { on, .. }
            | Effect::Unsaved { on, .. }
            | Effect::OwnSave { on, .. }
            | Effect::Count { on, .. } => *on,
        }
    }

    /// The class of the roll it also needs, if any.
    #[must_use]
    pub fn class(&self) -> Option<Class> {
        match self {
            Effect::Extra { class, .. }
            | Effect::Skip { class, .. }
            | Effect::Mortal { class, .. }
            | Effect::Unsaved { class, .. }
            | Effect::OwnSave { class, .. }
            | Effect::Count { class, .. } => *class,
        }
    }
}

fn yes() -> bool {
    true
}

/// The save: the wounds of a pool are rolled together and resolved lowest
/// first against the current group's characteristics.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Save {
    #[serde(default = "six")]
    pub die: u32,
    /// Added to the roll for the armour save (40k AP is negative).
    #[serde(default)]
    pub ap: i32,
    #[serde(default)]
    pub modifiers: Vec<i32>,
    /// An unmodified roll at or below this always fails.
    #[serde(default = "one")]
    pub natural_fail: u32,
    /// Counts rolls that fail (the attack inflicts damage).
    #[serde(default)]
    pub counter: Option<String>,
    /// Extra modifier per group (by index), for rules that depend on the
    /// models saving; empty means none.
    #[serde(default)]
    pub group_modifiers: Vec<i32>,
    /// Cap on the total modifier (AP, modifiers and the group's) to the armour
    /// save roll, for rules such as "never improved by more than 1".
    #[serde(default)]
    pub modifier_max: Option<i32>,
    /// Per group (by index), a second save rolled after a failed save and
    /// before damage; empty means none.
    #[serde(default)]
    pub special: Vec<Option<SpecialSave>>,
    /// False for attacks no save applies to: no die is rolled and every
    /// token that reaches the save is unsaved (counted as a failure).
    #[serde(default = "yes")]
    pub rolled: bool,
    /// The defender rolls a failed save again (`failures`), or one showing 1
    /// (`ones`), once, against the same group, before any special save.
    #[serde(default)]
    pub reroll: Reroll,
    /// True to save the tokens one at a time, each rolled against the group
    /// current then and its damage dealt before the next is rolled (attacks
    /// allocated one by one, as in 40k's 10th edition), instead of rolling
    /// them together and resolving them lowest first.
    #[serde(default)]
    pub in_turn: bool,
}

/// A save rolled only when the first save failed (The Ninth Age's Aegis,
/// Regeneration): one die of the save's size, unmodified, at or above
/// `target` saves. With `reroll_successes` a success is rolled again and the
/// second roll stands (rules that make the defender re-roll successful saves).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SpecialSave {
    pub target: u32,
    #[serde(default)]
    pub reroll_successes: bool,
}

fn one() -> u32 {
    1
}

/// Damage of an unsaved attack.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Damage {
    pub dice: DiceExpr,
    /// Results of `dice` rolled again, once, before the modifiers below.
    #[serde(default)]
    pub reroll: DiceReroll,
    /// The roll is multiplied by this, then `bonus` is added (never below 0),
    /// then it is raised to `minimum`; the group's own damage modifiers
    /// apply after these.
    #[serde(default = "one")]
    pub multiplier: u32,
    #[serde(default)]
    pub bonus: i32,
    #[serde(default)]
    pub minimum: u32,
    /// Once per pool (per round in a fight), the first damage roll of an
    /// unsaved attack whose dice sum below their average is rolled again
    /// (one die granted to the unit); not with `reroll`.
    #[serde(default)]
    pub reroll_one: bool,
    /// What happens to damage beyond what the model it is allocated to has left.
    #[serde(default)]
    pub excess: Excess,
    /// One attack's damage never exceeds the wounds characteristic of the
    /// models it is allocated to (applied after the group's damage modifiers).
    #[serde(default)]
    pub cap_at_wounds: bool,
    /// Counts attacks whose damage meets the highest of the group's
    /// `thresholds` (a test the target must take, such as Battle Shock).
    #[serde(default)]
    pub top_threshold_counter: Option<String>,
    /// What else such an attack does, straight after its damage (the test's
    /// effect): set a mark, and inflict mortal wounds on the models hit
    /// (after a check fails, when it has one).
    #[serde(default)]
    pub top_threshold: Option<TopThreshold>,
}

impl Damage {
    /// The damage roll with its re-roll and modifiers.
    #[must_use]
    pub fn roll(&self) -> ModifiedDice {
        ModifiedDice {
            dice: self.dice,
            reroll: self.reroll,
            multiplier: self.multiplier,
            bonus: i64::from(self.bonus),
            minimum: self.minimum,
        }
    }
}

/// The consequences of an attack meeting a group's highest damage threshold.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopThreshold {
    #[serde(default)]
    pub mark: Option<String>,
    /// Mortal wounds the models hit suffer, spilling over.
    #[serde(default)]
    pub mortal: Option<DiceExpr>,
    /// With `mortal`: roll this check first; only a failure inflicts them.
    #[serde(default)]
    pub check: Option<Check>,
}

/// Where damage beyond a model's remaining wounds goes.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Excess {
    /// It is lost (40k: each attack's damage stays on one model).
    #[default]
    Lost,
    /// It carries to the next model of the same group, and is lost once the
    /// group is destroyed (a health pool).
    Group,
    /// It carries to the next model in the allocation order, across groups.
    Unit,
}

/// Mortal wounds from an ability: `amount` of them, applied one at a time and
/// spilling over.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MortalSource {
    pub name: String,
    /// Mortal wounds inflicted (per failed roll when `rolls` is given).
    pub amount: DiceExpr,
    #[serde(default)]
    pub counter: Option<String>,
    /// Roll these dice first; each that fails inflicts `amount` (a hazard test).
    #[serde(default)]
    pub rolls: Option<Rolls>,
    /// Whose models suffer them: the target (default) or the attacker.
    #[serde(default)]
    pub against: Side,
    /// Excess carries to the next model; otherwise it stops at the first one.
    #[serde(default = "yes")]
    pub spill: bool,
    /// Feel No Pain may ignore them (false for rules that destroy a model
    /// outright, written as mortal wounds equal to its wounds).
    #[serde(default = "yes")]
    pub feel_no_pain: bool,
}

/// `count` dice of `die` sides; one showing `fail_at_most` or less fails.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rolls {
    pub count: u32,
    #[serde(default = "six")]
    pub die: u32,
    pub fail_at_most: u32,
}

/// One side of the fight.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    #[default]
    Target,
    Attacker,
}

impl Attacks {
    /// One model's attack dice given what its dice rolled.
    #[must_use]
    pub fn per_model(&self, rolled: u32) -> u32 {
        (i64::from(rolled) + i64::from(self.bonus))
            .max(i64::from(self.minimum.unwrap_or(0)))
            .max(0) as u32
    }
}

impl Plan {
    /// Parse and check a Plan.
    ///
    /// # Errors
    /// [`CoreError::Plan`] naming the field and what is wrong with it.
    pub fn from_json(text: &str) -> Result<Plan, CoreError> {
        let plan: Plan =
            serde_json::from_str(text).map_err(|e| CoreError::plan("(json)", e.to_string()))?;
        plan.validate()?;
        Ok(plan)
    }

    /// The index of counter `name`.
    ///
    /// # Errors
    /// When `name` is not listed in `counters`.
    pub fn counter_index(
        &self,
        field: &str,
        name: Option<&String>,
    ) -> Result<Option<usize>, CoreError> {
        match name {
            None => Ok(None),
            Some(n) => self
                .counters
                .iter()
                .position(|c| c == n)
                .map(Some)
                .ok_or_else(|| {
                    CoreError::plan(
                        field,
                        format!(
                            "counter {n:?} is not one of the plan's counters {:?}",
                            self.counters
                        ),
                    )
                }),
        }
    }

    /// The index of mark `name`.
    ///
    /// # Errors
    /// When `name` is not listed in `marks`.
    pub fn mark_index(&self, field: &str, name: &str) -> Result<usize, CoreError> {
        self.marks.iter().position(|m| m == name).ok_or_else(|| {
            CoreError::plan(
                field,
                format!(
                    "mark {name:?} is not one of the plan's marks {:?}",
                    self.marks
                ),
            )
        })
    }

    /// Total models the target starts the trial with (those its groups lost
    /// before it, with `wounds_lost`, not counted: models destroyed are
    /// counted from the start).
    #[must_use]
    pub fn target_models(&self) -> u32 {
        self.target.groups.iter().map(|g| g.start().0).sum()
    }
}
