//! Property tests: the dice parser and the Plan checker, on generated input.
//!
//! Run as part of `cargo test` with a few cases each; a long run sets
//! `PROPTEST_CASES` (see `docs/architecture.md`, "Fuzzing"), for example
//! `PROPTEST_CASES=200000 cargo test --release -p mathhammer-core --test properties`.
//! Nothing here may panic, for any input: every refusal is an error.

use mathhammer_core::limits::{MAX_CONSTANT, MAX_DICE, MAX_SIDES};
use mathhammer_core::trace::NoTrace;
use mathhammer_core::{run_trial, DiceExpr, Plan, Program, Stream, Workspace};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Cases per property: few by default so `cargo test` stays fast.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A valid dice expression, written with blanks where the grammar allows
/// them and either case of D: (text, what it means).
fn valid_dice() -> impl Strategy<Value = (String, DiceExpr)> {
    let blank = prop::sample::select(vec!["", " ", "\t", "  "]);
    let dice = (
        prop::option::of(1..=MAX_DICE),
        2..=MAX_SIDES,
        prop::option::of((any::<bool>(), 0..=MAX_CONSTANT)),
        any::<bool>(),
        blank.clone(),
        blank.clone(),
        blank.clone(),
        blank.clone(),
    )
        .prop_map(|(count, sides, constant, lower, b0, b1, b2, b3)| {
            let d = if lower { "d" } else { "D" };
            let count_text = count.map(|c| c.to_string()).unwrap_or_default();
            let (tail, value) = match constant {
                None => (String::new(), 0),
                Some((plus, c)) => (
                    format!("{b1}{}{b2}{c}", if plus { '+' } else { '-' }),
                    if plus { c } else { -c },
                ),
            };
            let text = format!("{b0}{count_text}{d}{sides}{tail}{b3}");
            let expr = DiceExpr {
                count: count.unwrap_or(1),
                sides,
                constant: value,
            };
            (text, expr)
        });
    let number = (0..=MAX_CONSTANT, blank.clone(), blank)
        .prop_map(|(n, b0, b1)| (format!("{b0}{n}{b1}"), DiceExpr::fixed(n as u32)));
    prop_oneof![3 => dice, 1 => number]
}

/// The column a refusal names, if any.
fn column(message: &str) -> Option<usize> {
    let at = message.find("at column ")? + "at column ".len();
    message[at..].split(',').next().and_then(|n| n.parse().ok())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn valid_expressions_parse_to_what_they_say_and_round_trip((text, expr) in valid_dice()) {
        let parsed = DiceExpr::parse(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(parsed, expr);
        prop_assert_eq!(DiceExpr::parse(&parsed.to_string()).unwrap(), parsed);
    }

    #[test]
    fn a_mutated_expression_parses_or_is_refused_at_a_column_in_it(
        (text, _) in valid_dice(),
        at in any::<prop::sample::Index>(),
        inserted in prop::sample::select(vec![
            " ", "0", "7", "D", "d", "+", "-", "x", ".", "\u{a0}", "\u{ff16}", "\u{661}", "\n", "DD", "++",
        ]),
    ) {
        let chars: Vec<char> = text.chars().collect();
        let at = at.index(chars.len() + 1);
        let mutated: String = chars[..at].iter().copied().chain(inserted.chars()).chain(chars[at..].iter().copied()).collect();
        match DiceExpr::parse(&mutated) {
            Ok(e) => prop_assert_eq!(DiceExpr::parse(&e.to_string()).unwrap(), e),
            Err(e) => {
                let message = e.to_string();
                let quoted = format!("dice expression {mutated:?}: ");
                prop_assert!(message.starts_with(&quoted), "{}", message);
                if !message.contains("is empty") {
                    let col = column(&message);
                    prop_assert!(
                        col.is_some_and(|c| (1..=mutated.chars().count() + 1).contains(&c)),
                        "{}", message
                    );
                }
            }
        }
    }

    #[test]
    fn a_blank_inside_a_number_is_refused_where_the_number_resumes(
        count in 1..=MAX_DICE,
        sides in 10..=MAX_SIDES,
        split in any::<prop::sample::Index>(),
    ) {
        let digits = sides.to_string();
        let split = 1 + split.index(digits.len() - 1);
        let text = format!("{count}D{} {}", &digits[..split], &digits[split..]);
        let starts = format!("{count}D").len() + 1;
        let resumes = starts + split + 1;
        let e = DiceExpr::parse(&text).unwrap_err().to_string();
        // Read left to right: a first part that is no die (D1) is refused first.
        let first_part_is_a_die = digits[..split].parse::<u32>().unwrap() >= 2;
        prop_assert_eq!(column(&e), Some(if first_part_is_a_die { resumes } else { starts }), "{}", e);
    }

    #[test]
    fn any_text_parses_or_is_refused_without_a_panic(text in any::<String>()) {
        let _ = DiceExpr::parse(&text);
    }
}

/// Plans to mutate: one of each kind of sequence, effects, both sides.
fn base_plans() -> Vec<Value> {
    vec![
        json!({
            "version": 1,
            "counters": ["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"],
            "target": {"groups": [
                {"name": "A", "models": 10, "wounds": 2, "save": 3},
                {"name": "B", "models": 1, "wounds": 4, "save": 2, "invulnerable": 4, "tier": 1}
            ], "order": [0, 1]},
            "sequences": [
                {"kind": "mortal_wounds", "name": "Smite", "amount": "D3", "counter": "mortal_wounds"},
                {
                    "kind": "attack", "name": "Gun",
                    "attacks": [{"models": 10, "dice": "D3+1"}], "attacks_counter": "attacks",
                    "steps": [
                        {"name": "hit", "target": 3, "natural_fail": 1, "critical": 6, "counter": "hits",
                         "effects": [{"on": "critical", "action": "extra", "amount": "1"}]},
                        {"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds",
                         "effects": [{"on": "critical", "action": "mortal", "amount": "2"}]}
                    ],
                    "save": {"ap": -1, "counter": "failed_saves"},
                    "damage": {"dice": "D6"},
                    "mortal_counter": "mortal_wounds"
                }
            ]
        }),
        json!({
            "version": 1,
            "counters": ["attacks"],
            "target": {"groups": [{"name": "T", "models": 5, "wounds": 3, "save": 4}], "order": [0]},
            "attacker": {"groups": [{"name": "A", "models": 5, "wounds": 3, "save": 4}], "order": [0]},
            "rounds": {"max": 3},
            "sequences": [
                {"kind": "attack", "name": "Blade", "attacks": [{"models": 5, "dice": "2", "alive_of": 0}],
                 "attacks_counter": "attacks",
                 "steps": [{"name": "hit", "target": 4}], "save": {"ap": 0}, "damage": {"dice": "1"}},
                {"kind": "attack", "name": "Back", "against": "attacker",
                 "attacks": [{"models": 5, "dice": "1", "alive_of": 0}],
                 "steps": [{"name": "hit", "target": 4}], "save": {"ap": 0}, "damage": {"dice": "1"}}
            ]
        }),
    ]
}

/// Every path to a value in `v`, as JSON pointers.
fn pointers(v: &Value, at: &str, out: &mut Vec<String>) {
    out.push(at.to_string());
    match v {
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| pointers(x, &format!("{at}/{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| pointers(x, &format!("{at}/{i}"), out)),
        _ => {}
    }
}

/// Numbers near and far past the limits.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0u64..8).prop_map(Value::from),
        2 => (0u64..200).prop_map(Value::from),
        1 => (-8i64..0).prop_map(Value::from),
        1 => prop::sample::select(vec![
            999u64, 1000, 1001, 9999, 10_000, 10_001, 99_999, 100_000, 100_001, 1_000_000,
            u64::from(u32::MAX), u64::MAX,
        ])
        .prop_map(Value::from),
    ]
}

/// Texts a Plan's strings might hold: dice, names, tags, nonsense.
fn text() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => valid_dice().prop_map(|(t, _)| Value::from(t)),
        2 => prop::sample::select(vec![
            "attacks", "hits", "wounds", "failed_saves", "mortal_wounds", "A", "B", "T",
            "target", "attacker", "critical", "success", "fail", "ones", "failures", "non_critical",
        ])
        .prop_map(Value::from),
        1 => ".{0,8}".prop_map(Value::from),
    ]
}

/// JSON values a mistaken or hostile Plan might hold.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..20).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        Just(json!(u32::MAX)),
        Just(json!(f64::MAX)),
        prop::sample::select(vec![
            "D6", "2D6+1", "0", "D0", "100D1000", "1000000", "attacks", "hits", "target",
            "attacker", "critical", "success", "fail", "extra", "mortal", "skip", "count", "ones",
            "", "-1",
        ])
        .prop_map(Value::from),
        ".*".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "name", "models", "dice", "on", "action", "amount", "target", "kind"
                ])
                .prop_map(String::from),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_mutated_plan_is_checked_without_a_panic_and_runs_if_accepted(
        base in prop::sample::select(base_plans()),
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), prop::bool::weighted(0.9), json_value(), number(), text()),
            1..3,
        ),
        seed in any::<u64>(),
    ) {
        let mut plan = base;
        for (at, keep_kind, value, n, t) in edits {
            let mut all = Vec::new();
            pointers(&plan, "", &mut all);
            let at = &all[at.index(all.len())];
            let Some(slot) = plan.pointer_mut(at) else { continue };
            // Mostly a value of the same kind, which the checker must judge
            // on its merits, sometimes anything at all.
            *slot = match (keep_kind, &*slot) {
                (true, Value::Number(_)) => n,
                (true, Value::String(_)) => t,
                _ => value,
            };
        }
        let Ok(checked) = Plan::from_json(&plan.to_string()) else { return Ok(()) };
        let Ok(program) = Program::new(checked) else { return Ok(()) };
        let mut ws = Workspace::new(&program);
        let mut stream = Stream::new(seed, 0);
        for _ in 0..3 {
            run_trial(&program, &mut ws, &mut stream, &mut NoTrace);
        }
    }
}
