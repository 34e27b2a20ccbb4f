//! The exception tree of `mathhammer._core` and the one mapping from
//! `CoreError` to it. Python re-exports these from `mathhammer.exceptions`.
//!
//! Every exception the extension raises for a reason of its own is a
//! `MathhammerError`. Errors about the caller's input (`DiceError`,
//! `PlanError`) are `ValueError`s too, so code that catches `ValueError`
//! keeps working. `create_exception!` makes a class with one base only, so
//! those two are made at import by calling `type(name, bases, namespace)`.

use mathhammer_core::CoreError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

create_exception!(
    mathhammer,
    MathhammerError,
    PyException,
    "Base class of every error mathhammer raises."
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
    InternalError,
    MathhammerError,
    "A bug in mathhammer, such as a panic in the Rust core; the message asks for a report."
);
create_exception!(
    mathhammer,
    DeclinedError,
    MathhammerError,
    "The exact evaluator cannot evaluate this Plan exactly; the message says why."
);

/// A `MathhammerError` that is also a `ValueError`, made once per interpreter.
struct ValueErrorClass {
    name: &'static str,
    doc: &'static str,
    cell: PyOnceLock<Py<PyType>>,
}

impl ValueErrorClass {
    const fn new(name: &'static str, doc: &'static str) -> Self {
        ValueErrorClass {
            name,
            doc,
            cell: PyOnceLock::new(),
        }
    }

    fn get<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyType>> {
        let ty = self.cell.get_or_try_init(py, || -> PyResult<Py<PyType>> {
            let bases = PyTuple::new(
                py,
                [
                    py.get_type::<MathhammerError>(),
                    py.get_type::<PyValueError>(),
                ],
            )?;
            let namespace = PyDict::new(py);
            namespace.set_item("__doc__", self.doc)?;
            namespace.set_item("__module__", "mathhammer")?;
            let made = py
                .get_type::<PyType>()
                .call1((self.name, bases, namespace))?;
            Ok(made.cast_into::<PyType>()?.unbind())
        })?;
        Ok(ty.bind(py).clone())
    }

    /// The error, with `attributes` set on it for code that handles it (such
    /// as the field a ruleset maps back to a scenario field).
    fn new_err(&self, message: String, attributes: &[(&str, &str)]) -> PyErr {
        Python::attach(|py| {
            let ty = match self.get(py) {
                Ok(ty) => ty,
                Err(e) => return e,
            };
            let err = PyErr::from_type(ty, message);
            for (name, value) in attributes {
                if let Err(e) = err.value(py).setattr(*name, *value) {
                    return e;
                }
            }
            err
        })
    }
}

/// A dice expression outside the grammar, or one that cannot be rolled.
static DICE_ERROR: ValueErrorClass = ValueErrorClass::new(
    "DiceError",
    "A dice expression that cannot be rolled, such as D0 or 1000000D6.",
);
/// A Plan that is not well-formed.
static PLAN_ERROR: ValueErrorClass = ValueErrorClass::new(
    "PlanError",
    "A Plan that is not well-formed; the message names the field.",
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
            CoreError::Dice { expr, reason } => DICE_ERROR.new_err(
                message,
                &[("expression", expr.as_str()), ("reason", reason.as_str())],
            ),
            CoreError::Plan { field, reason } => PLAN_ERROR.new_err(
                message,
                &[("field", field.as_str()), ("reason", reason.as_str())],
            ),
            CoreError::Limit { field, reason } => PLAN_ERROR.new_err(
                message,
                &[
                    ("field", field.as_str()),
                    ("reason", reason.as_str()),
                    ("limit", "yes"),
                ],
            ),
            CoreError::Script { .. } => ScriptError::new_err(message),
            CoreError::Hook { .. } => HookError::new_err(message),
            CoreError::Declined { .. } => DeclinedError::new_err(message),
            CoreError::Interrupted => PyKeyboardInterrupt::new_err("simulation interrupted"),
            CoreError::Internal { reason } => crate::panics::internal_error(&reason),
        }
    }
}

/// Register the exception classes on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("MathhammerError", py.get_type::<MathhammerError>())?;
    m.add("DiceError", DICE_ERROR.get(py)?)?;
    m.add("PlanError", PLAN_ERROR.get(py)?)?;
    m.add("ScriptError", py.get_type::<ScriptError>())?;
    m.add("HookError", py.get_type::<HookError>())?;
    m.add("DeclinedError", py.get_type::<DeclinedError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    Ok(())
}
