//! Batch hooks written in Python: called with numpy arrays, once per chunk.

use mathhammer_core::batch::{Batch, BatchHooks};
use mathhammer_core::CoreError;
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Mutex;

/// The Python callables a Plan's pools name by index. The first Python
/// exception one raises is kept, so the caller can raise it unchanged.
#[derive(Debug)]
pub struct PyHooks {
    pub hooks: Vec<Py<PyAny>>,
    pub raised: Mutex<Option<PyErr>>,
}

fn arrays<'py>(
    py: Python<'py>,
    names: &[String],
    values: &[Vec<u32>],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, v) in names.iter().zip(values) {
        d.set_item(
            name,
            v.iter()
                .map(|&x| i64::from(x))
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
    }
    Ok(d)
}

fn take(returned: &Bound<'_, PyAny>, key: &str, into: &mut [u32]) -> PyResult<()> {
    let Ok(value) = returned.get_item(key) else {
        return Ok(());
    };
    let array: PyReadonlyArray1<'_, i64> = value.extract()?;
    let view = array.as_array();
    if view.len() != into.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{key} has {} values for {} trials",
            view.len(),
            into.len()
        )));
    }
    for (slot, &v) in into.iter_mut().zip(view.iter()) {
        *slot = u32::try_from(v).map_err(|_| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "{key} holds {v}; values must be 0 or more"
            ))
        })?;
    }
    Ok(())
}

impl PyHooks {
    fn call_python(&self, py: Python<'_>, index: usize, batch: &mut Batch) -> PyResult<()> {
        let hook = self.hooks.get(index).ok_or_else(|| {
            pyo3::exceptions::PyIndexError::new_err(format!(
                "the plan names batch hook {index}, but {} were given",
                self.hooks.len()
            ))
        })?;
        let d = PyDict::new(py);
        d.set_item(
            "attacks",
            batch
                .attacks
                .iter()
                .map(|&x| i64::from(x))
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        d.set_item("passed", arrays(py, &batch.tests, &batch.passed)?)?;
        d.set_item("criticals", arrays(py, &batch.tests, &batch.criticals)?)?;
        d.set_item(
            "to_save",
            batch
                .to_save
                .iter()
                .map(|&x| i64::from(x))
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        d.set_item(
            "mortal_wounds",
            vec![0i64; batch.to_save.len()].into_pyarray(py),
        )?;
        let returned = hook.bind(py).call1((d,))?;
        take(&returned, "to_save", &mut batch.to_save)?;
        take(&returned, "mortal_wounds", &mut batch.mortal_wounds)?;
        Ok(())
    }
}

impl BatchHooks for PyHooks {
    fn call(&self, index: usize, batch: &mut Batch) -> Result<(), CoreError> {
        Python::attach(|py| {
            self.call_python(py, index, batch).map_err(|e| {
                let reason = format!("hook {index} raised {e}");
                self.raised
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get_or_insert(e);
                CoreError::Hook { reason }
            })
        })
    }
}
