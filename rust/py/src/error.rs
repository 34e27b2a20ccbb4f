//! The exception tree of `mathhammer._core` and the one mapping from
//! `CoreError` to it. Python re-exports these from `mathhammer.exceptions`.

use mathhammer_core::CoreError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

create_exception!(
    mathhammer,
    MathhammerError,
    PyException,
    "Base class of every error mathhammer raises."
);
create_exception!(
    mathhammer,
    DiceError,
    PyValueError,
    "A dice expression that cannot be rolled, such as D0 or 1000000D6."
);
create_exception!(
    mathhammer,
    PlanError,
    PyValueError,
    "A Plan that is not well-formed; the message names the field."
);
create_exception!(
    mathhammer,
    ScriptError,
    MathhammerError,
    "Scripted dice ran out or did not fit the die rolled."
);
create_exception!(
    mathhammer,
    HookError,
    MathhammerError,
    "A batch hook failed or handed back arrays that do not fit."
);
create_exception!(
    mathhammer,
    DeclinedError,
    MathhammerError,
    "The exact evaluator cannot evaluate this Plan exactly; the message says why."
);

/// A `CoreError` on its way to Python.
pub struct PyCoreErr(pub CoreError);

impl From<CoreError> for PyCoreErr {
    fn from(e: CoreError) -> Self {
        PyCoreErr(e)
    }
}

impl From<PyCoreErr> for PyErr {
    fn from(e: PyCoreErr) -> PyErr {
        let message = e.0.to_string();
        match e.0 {
            CoreError::Dice { .. } => DiceError::new_err(message),
            CoreError::Plan { .. } => PlanError::new_err(message),
            CoreError::Script { .. } => ScriptError::new_err(message),
            CoreError::Hook { .. } => HookError::new_err(message),
            CoreError::Declined { .. } => DeclinedError::new_err(message),
            CoreError::Interrupted => PyKeyboardInterrupt::new_err("simulation interrupted"),
        }
    }
}

/// Register the exception classes on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("MathhammerError", py.get_type::<MathhammerError>())?;
    m.add("DiceError", py.get_type::<DiceError>())?;
    m.add("PlanError", py.get_type::<PlanError>())?;
    m.add("ScriptError", py.get_type::<ScriptError>())?;
    m.add("HookError", py.get_type::<HookError>())?;
    m.add("DeclinedError", py.get_type::<DeclinedError>())?;
    Ok(())
}
