//! The one error type of the core. Every message names the field and the value
//! that were wrong, so the Python layer can pass it to the user unchanged.

use std::fmt;

/// Everything that can go wrong inside the core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoreError {
    /// A dice expression such as `D0` or `1000000D6` that cannot be rolled.
    Dice { expr: String, reason: String },
    /// A Plan that is not well-formed: `field` is a dotted path into the Plan.
    Plan { field: String, reason: String },
    /// Scripted dice ran out, or a scripted value does not fit the die rolled.
    Script { reason: String },
    /// The exact evaluator cannot evaluate this Plan exactly, and says why.
    Declined { reason: String },
    /// A batch hook failed or handed back arrays that do not fit.
    Hook { reason: String },
    /// The caller interrupted a long run (Ctrl-C between chunks).
    Interrupted,
}

impl CoreError {
    pub(crate) fn plan(field: impl Into<String>, reason: impl Into<String>) -> Self {
        CoreError::Plan {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoreError::Dice { expr, reason } => write!(f, "dice expression {expr:?}: {reason}"),
            CoreError::Plan { field, reason } => write!(f, "plan field {field}: {reason}"),
            CoreError::Script { reason } => write!(f, "scripted dice: {reason}"),
            CoreError::Hook { reason } => write!(f, "batch hook: {reason}"),
            CoreError::Declined { reason } => {
                write!(f, "the exact evaluator declines this plan: {reason}")
            }
            CoreError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for CoreError {}
