//! What the chain over both sides does not follow is declined by name, the
//! limit stated, never approximated: sides of several groups, Feel No Pain,
//! and a re-roll of one die for the whole unit.

use mathhammer_core::error::CoreError;
use mathhammer_core::exact::evaluate;
use mathhammer_core::{Plan, Program};
use serde_json::{json, Value};

/// A fight of one round: A's one model strikes B's two, hitting on 4+.
fn fight() -> Value {
    json!({
        "version": 1,
        "counters": [],
        "target": {"groups": [{"name": "B", "models": 2, "wounds": 1}], "order": [0]},
        "attacker": {"groups": [{"name": "A", "models": 1, "wounds": 1}], "order": [0]},
        "sequences": [{
            "kind": "attack", "name": "A strikes", "against": "target",
            "attacks": [{"models": 1, "dice": "1", "alive_of": 0}],
            "steps": [{"name": "hit", "target": 4}],
            "save": {"rolled": false}, "damage": {"dice": "1"}
        }],
        "rounds": {"max": 1}
    })
}

/// The exact evaluator's reason for declining `plan`.
fn declined(plan: &Value) -> String {
    let program =
        Program::new(Plan::from_json(&plan.to_string()).expect("valid plan")).expect("program");
    match evaluate(&program) {
        Err(e @ CoreError::Declined { .. }) => e.to_string(),
        other => panic!("expected a decline, got {other:?}"),
    }
}

#[test]
fn the_chain_declines_what_it_does_not_follow_naming_the_limit() {
    assert!(
        evaluate(&Program::new(Plan::from_json(&fight().to_string()).unwrap()).unwrap()).is_ok()
    );
    let mut groups = fight();
    groups["target"]["groups"] = json!([
        {"name": "B", "models": 2, "wounds": 1},
        {"name": "C", "models": 1, "wounds": 2}
    ]);
    groups["target"]["order"] = json!([0, 1]);
    let why = declined(&groups);
    assert!(
        why.contains("the target has 2 groups") && why.contains("one group a side"),
        "{why}"
    );
    let mut fnp = fight();
    fnp["target"]["groups"][0]["feel_no_pain"] = json!(5);
    let why = declined(&fnp);
    assert!(why.contains("Feel No Pain"), "{why}");
    let mut reroll = fight();
    reroll["sequences"][0]["steps"][0]["reroll_one"] = json!(true);
    let why = declined(&reroll);
    assert!(why.contains("re-rolls one die for the whole unit"), "{why}");
}
