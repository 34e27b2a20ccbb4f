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
    /// The hooks running now, by index, with the Python id of the thread
    /// each runs on: what a Ctrl-C interrupts.
    pub running: Mutex<Vec<(usize, u64)>>,
}

impl PyHooks {
    pub fn new(hooks: Vec<Py<PyAny>>) -> Self {
        PyHooks {
            hooks,
            raised: Mutex::new(None),
            running: Mutex::new(Vec::new()),
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, Vec<(usize, u64)>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The hook, by its name and the plugin (top-level package) defining it.
    fn describe(&self, py: Python<'_>, index: usize) -> String {
        let Some(hook) = self.hooks.get(index) else {
            return format!("batch hook {index}");
        };
        let hook = hook.bind(py);
        let text = |name: &str| hook.getattr(name).and_then(|v| v.extract::<String>()).ok();
        let name = text("__qualname__").unwrap_or_else(|| format!("{index}"));
        match text("__module__") {
            Some(module) => {
                let plugin = module.split('.').next().unwrap_or(&module).to_string();
                format!("batch hook {name:?} of plugin {plugin:?}")
            }
            None => format!("batch hook {name:?}"),
        }
    }

    /// The hooks running now, described, or `None` when none is.
    pub fn describe_running(&self, py: Python<'_>) -> Option<String> {
        let running = self.running().clone();
        if running.is_empty() {
            return None;
        }
        let mut names: Vec<String> = running.iter().map(|&(i, _)| self.describe(py, i)).collect();
        names.dedup();
        Some(names.join(", "))
    }

    /// Raise `KeyboardInterrupt` inside every running hook. Python raises it
    /// at the hook's next bytecode, so a busy loop stops; a call blocked in C
    /// (a sleep, a read) does not, which is what a second Ctrl-C is for.
    pub fn interrupt_running(&self, py: Python<'_>) {
        let threads: Vec<u64> = self.running().iter().map(|&(_, t)| t).collect();
        let raise = || -> PyResult<()> {
            let ctypes = py.import("ctypes")?;
            let set = ctypes
                .getattr("pythonapi")?
                .getattr("PyThreadState_SetAsyncExc")?;
            let interrupt = ctypes
                .getattr("py_object")?
                .call1((py.get_type::<pyo3::exceptions::PyKeyboardInterrupt>(),))?;
            for t in threads {
                set.call1((ctypes.getattr("c_ulong")?.call1((t,))?, &interrupt))?;
            }
            Ok(())
        };
        // Best effort: without ctypes the hook still stops when it returns.
        let _ = raise();
    }
}

/// Marks a hook as running for as long as it lives.
struct Running<'a> {
    hooks: &'a PyHooks,
    entry: (usize, u64),
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let mut running = self.hooks.running();
        if let Some(at) = running.iter().position(|e| *e == self.entry) {
            running.swap_remove(at);
        }
    }
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
            let thread = py
                .import("threading")
                .and_then(|t| t.call_method0("get_ident"))
                .and_then(|id| id.extract::<u64>())
                .unwrap_or(0);
            self.running().push((index, thread));
            let _running = Running {
                hooks: self,
                entry: (index, thread),
            };
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
