//! Every limit the core enforces, defined here once.
//!
//! Each keeps a typing mistake from becoming an hour-long run or an
//! exhausted memory, and sits far above any real datasheet. The Python
//! package exports them (`mathhammer.limits`) and the documentation of
//! scenario files quotes them from there; [`LIMITS`] lists them for both.

/// The most dice one dice expression may roll. Far above any datasheet
/// (`2D6` is common, `6D6` rare), and low enough that a typo such as
/// `99999999D6` is refused instead of stalling a run.
pub const MAX_DICE: u32 = 100;
/// The most sides a die may have: d6, d3, d12 and d20 systems all fit.
pub const MAX_SIDES: u32 = 1000;
/// The largest constant term of a dice expression.
pub const MAX_CONSTANT: i64 = 10_000;
/// The most models one side of a Plan (or one attack term) may hold.
pub const MAX_MODELS: u32 = 10_000;
/// The most attack dice one trial's attacks may roll, before extra hits:
/// ten thousand models with ten attacks each.
pub const MAX_ATTACKS: u64 = 100_000;
/// The most attack dice one trial may create, extra hits included. Extra
/// hits multiply attacks (an attack may become several hits), so this is ten
/// times [`MAX_ATTACKS`]; it bounds a trial's work and memory.
pub const MAX_TOKENS_PER_TRIAL: u64 = 1_000_000;
/// The largest value any reported number (a counter, damage, models
/// destroyed, the wounds of a side) may reach in one trial; it bounds the
/// histograms' memory.
pub const MAX_VALUE: u64 = 1_000_000;
/// The largest modifier, AP or bonus, either way.
pub const MAX_MODIFIER: i32 = 1_000;
/// The most rounds a fight may last.
pub const MAX_ROUNDS: u32 = 100;
/// The most combinations of faces a roll of several dice may have: the exact
/// tables enumerate them (with re-rolls, up to their square).
pub const MAX_ROLL_COMBINATIONS: u64 = 10_000;
/// The most trials one run may ask for (hours of work on many cores): more
/// is a typing mistake, not a simulation.
pub const MAX_TRIALS: u64 = 1_000_000_000_000;

/// One limit, by the name the Python package exports it under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub name: &'static str,
    pub value: u64,
}

/// Every limit above, for the bindings to export and tests to compare.
pub const LIMITS: &[Limit] = &[
    Limit {
        name: "MAX_DICE",
        value: MAX_DICE as u64,
    },
    Limit {
        name: "MAX_SIDES",
        value: MAX_SIDES as u64,
    },
    Limit {
        name: "MAX_CONSTANT",
        value: MAX_CONSTANT as u64,
    },
    Limit {
        name: "MAX_MODELS",
        value: MAX_MODELS as u64,
    },
    Limit {
        name: "MAX_ATTACKS",
        value: MAX_ATTACKS,
    },
    Limit {
        name: "MAX_TOKENS_PER_TRIAL",
        value: MAX_TOKENS_PER_TRIAL,
    },
    Limit {
        name: "MAX_VALUE",
        value: MAX_VALUE,
    },
    Limit {
        name: "MAX_MODIFIER",
        value: MAX_MODIFIER as u64,
    },
    Limit {
        name: "MAX_ROUNDS",
        value: MAX_ROUNDS as u64,
    },
    Limit {
        name: "MAX_ROLL_COMBINATIONS",
        value: MAX_ROLL_COMBINATIONS,
    },
    Limit {
        name: "MAX_TRIALS",
        value: MAX_TRIALS,
    },
];
