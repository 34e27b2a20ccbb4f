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
    /// A Plan past one of the [`crate::limits`] (too many models, attack dice,
    /// wounds): well-formed, but too big. A ruleset names the scenario field
    /// behind `field`, since the scenario, not the ruleset, is at fault.
    Limit { field: String, reason: String },
    /// Scripted dice ran out, or a scripted value does not fit the die rolled.
    Script { reason: String },
    /// The exact evaluator cannot evaluate this Plan exactly, and says why.
    Declined { reason: String },
    /// A batch hook failed or handed back arrays that do not fit.
    Hook { reason: String },
    /// The caller interrupted a long run (Ctrl-C between chunks).
    Interrupted,
    /// A bug: a worker thread panicked. `reason` is the panic's message.
    Internal { reason: String },
}

impl CoreError {
    pub(crate) fn plan(field: impl Into<String>, reason: impl Into<String>) -> Self {
        CoreError::Plan {
            field: field.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn limit(field: impl Into<String>, reason: impl Into<String>) -> Self {
        CoreError::Limit {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoreError::Dice { expr, reason } => write!(f, "dice expression {expr:?}: {reason}"),
            CoreError::Plan { field, reason } | CoreError::Limit { field, reason } => {
                write!(f, "plan field {field}: {reason}")
            }
            CoreError::Script { reason } => write!(f, "scripted dice: {reason}"),
            CoreError::Hook { reason } => write!(f, "batch hook: {reason}"),
            CoreError::Declined { reason } => {
                write!(f, "the exact evaluator declines this plan: {reason}")
            }
            CoreError::Interrupted => write!(f, "interrupted"),
            CoreError::Internal { reason } => write!(f, "internal error: {reason}"),
        }
    }
}

impl std::error::Error for CoreError {}

/// The message a panic carried, for [`CoreError::Internal`]: a panic's payload
/// is a `&str` or a `String` unless the code called `panic_any`.
#[must_use]
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(ToString::to_string)
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// The result of a worker thread, with a panic in it turned into
/// [`CoreError::Internal`] so that it reaches the caller as an error and
/// never unwinds through it (or aborts the process from a thread nobody joins).
pub(crate) fn joined<T>(result: std::thread::Result<Result<T, CoreError>>) -> Result<T, CoreError> {
    result.unwrap_or_else(|payload| {
        Err(CoreError::Internal {
            reason: format!("a worker thread panicked: {}", panic_message(&*payload)),
        })
    })
}
