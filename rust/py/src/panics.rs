//! No Rust panic reaches Python as a panic. A panic is a bug, but it must
//! not kill the interpreter or show a Rust backtrace: every entry point runs
//! its body in [`guard`], which turns a panic (on the calling thread, or on a
//! worker thread whose panic the core hands back) into `InternalError`, a
//! `MathhammerError` whose message asks for a report.
//!
//! The default panic hook prints the panic and a backtrace to stderr before
//! `guard` sees it; the hook installed here prints nothing and keeps the
//! message and its place for the error instead.

use crate::error::InternalError;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, Once, PoisonError};

/// Where and why the last panic happened, kept by the hook for `guard`.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Install the quiet panic hook, once per process.
pub fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let place = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let message = mathhammer_core::error::panic_message(info.payload());
            *LAST_PANIC.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(format!("{message}{place}"));
        }));
    });
}

/// The error a panic becomes.
pub fn internal_error(reason: &str) -> PyErr {
    InternalError::new_err(format!(
        "{reason}. This is a bug in mathhammer: please report it with the command and the \
         scenario that caused it."
    ))
}

/// Run `body`; a panic inside it comes back as `InternalError`.
pub fn guard<T>(body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        let last = LAST_PANIC
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let reason = last.unwrap_or_else(|| mathhammer_core::error::panic_message(&*payload));
        Err(internal_error(&format!("the core panicked: {reason}")))
    })
}
