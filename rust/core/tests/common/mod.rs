//! Helpers shared by the integration tests (each test file is its own crate,
//! so a helper one of them does not use would be dead code there).
#![allow(dead_code)]

use mathhammer_core::{Plan, Program};
use serde_json::Value;

/// The Program of a Plan written as JSON.
pub fn program(plan: &Value) -> Program {
    Program::new(Plan::from_json(&plan.to_string()).expect("valid plan")).expect("program")
}

/// The index of the number called `name` among the Plan's numbers.
pub fn number(plan: &Value, name: &str) -> usize {
    let names = program(plan).numbers();
    names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no number {name} in {names:?}"))
}
