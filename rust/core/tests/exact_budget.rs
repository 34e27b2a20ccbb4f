//! What the exact evaluator's budget costs a caller: it declines a Plan far
//! past its budget from the estimate, before doing the work; it does not
//! decline a Plan that finishes within the budget however high the estimate
//! runs; and it stops an admitted Plan that takes four times its estimate.

use mathhammer_core::exact::{
    evaluate, evaluate_polled, evaluate_polled_every, measure, CALLER_TIME, CALLER_WORK, MAX_WORK,
};
use mathhammer_core::{CoreError, Plan, Program};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Plans drawn by `benches/exact_calibration.py` (seed 1): two whose
/// estimate runs high (about 49 and 22 million steps for 2.5 and 3.2 million
/// taken), and one whose estimate runs low (about 0.58 million for more than
/// the whole budget).
const PLANS: &str = include_str!("data/estimate-plans.jsonl");

/// About a quarter of a second of work on the machines the budget was
/// measured on (`MAX_WORK` is about 1.3 s there).
const QUARTER_SECOND: u64 = MAX_WORK / 5;

fn plan(n: usize) -> Program {
    let line = PLANS.lines().nth(n).expect("the fixture has three plans");
    Program::new(Plan::from_json(line).unwrap()).unwrap()
}

fn program(plan: &Value) -> Program {
    Program::new(Plan::from_json(&plan.to_string()).unwrap()).unwrap()
}

#[test]
fn a_plan_far_past_the_budget_is_declined_from_its_estimate_with_little_work() {
    // Three pools of 40 attacks with D6 damage and mortal wounds spilling
    // into three groups of 30 six-wound models with Feel No Pain.
    let pool = |focus: usize| {
        json!({"kind": "attack", "name": format!("P{focus}"), "attacks": [{"models": 40, "dice": "1"}],
            "steps": [{"name": "hit", "target": 3, "natural_fail": 1, "critical": 6,
                "effects": [{"on": "critical", "action": "mortal", "amount": "D3", "spill": true, "focus": true}]}],
            "save": {"ap": -1}, "damage": {"dice": "D6"}, "focus": [focus]})
    };
    let group =
        |name: &str| json!({"name": name, "models": 30, "wounds": 6, "save": 4, "feel_no_pain": 5});
    let plan = json!({"version": 1, "counters": [],
        "target": {"groups": [group("A"), group("B"), group("C")], "order": [0, 1, 2]},
        "sequences": [pool(0), pool(1), pool(2)]});
    let m = measure(&program(&plan), true);
    let e = m.outcome.unwrap_err().to_string();
    assert!(e.contains("steps of work estimated"), "{e}");
    assert!(m.work <= QUARTER_SECOND, "declining took {} steps", m.work);
}

#[test]
fn plans_that_finish_within_the_budget_are_admitted_though_their_estimate_runs_high() {
    for n in [0, 1] {
        let m = measure(&plan(n), true);
        assert!(m.outcome.is_ok(), "plan {n}: {:?}", m.outcome);
        assert!(
            m.estimate > 2 * m.work,
            "plan {n} estimate {} work {}",
            m.estimate,
            m.work
        );
        assert!(m.work < MAX_WORK);
    }
}

#[test]
fn an_admitted_plan_that_takes_four_times_its_estimate_stops() {
    let p = plan(2);
    let m = measure(&p, true);
    let Err(CoreError::Declined { reason }) = &m.outcome else {
        panic!("{:?}", m.outcome)
    };
    assert!(reason.contains("4 times the"), "{reason}");
    assert!(
        m.work <= 4 * m.estimate.max(MAX_WORK / 40) + MAX_WORK / 100,
        "{} steps",
        m.work
    );
    assert!(m.work <= QUARTER_SECOND + MAX_WORK / 20, "{} steps", m.work);
    // Measured rather than obeyed, the same Plan runs to the whole budget.
    let unobeyed = measure(&p, false);
    assert!(unobeyed.work > MAX_WORK, "{}", unobeyed.work);
}

/// Skill-dice fights and one attack, as the chain over both sides' state
/// evaluates them: the example fight (5 of 2 HP against 6 of 2 HP, ten
/// rounds), 3 against 3 and 4 against 4, one of 12 against 12 (far past the
/// budget), and a single attack of 5 models. Compiled from
/// `examples/skilldice-fight.toml` and `skilldice-vanguard.toml` with the
/// sizes changed.
const CHAIN_PLANS: &str = include_str!("data/chain-plans.jsonl");

#[test]
fn the_chain_over_both_sides_is_held_to_its_estimate() {
    let plans: Vec<Program> = CHAIN_PLANS
        .lines()
        .map(|line| Program::new(Plan::from_json(line).unwrap()).unwrap())
        .collect();
    for (n, p) in plans.iter().enumerate() {
        if n == 3 {
            // Far past the budget: declined from its estimate, before any work.
            let m = measure(p, true);
            let e = m.outcome.unwrap_err().to_string();
            assert!(e.contains("steps of work estimated"), "{e}");
            assert!(m.work == 0, "{} steps", m.work);
            continue;
        }
        let m = measure(p, true);
        assert!(m.outcome.is_ok(), "plan {n}: {:?}", m.outcome);
        // The estimate runs high, never by more than about four times.
        assert!(
            m.work <= m.estimate && m.estimate <= 4 * m.work.max(MAX_WORK / 400),
            "plan {n}: estimate {} work {}",
            m.estimate,
            m.work
        );
    }
}

/// 20 attacks BS3+ S4 AP-1 D1 into 10 models Sv3+ W2: a short evaluation.
fn boltguns() -> Program {
    program(&boltguns_plan())
}

fn boltguns_plan() -> Value {
    json!({
        "version": 1,
        "counters": ["failed_saves"],
        "target": {"groups": [{"name": "Intercessor", "models": 10, "wounds": 2, "save": 3}], "order": [0]},
        "sequences": [{
            "kind": "attack", "name": "Boltgun", "attacks": [{"models": 10, "dice": "2"}],
            "steps": [
                {"name": "hit", "target": 3, "natural_fail": 1, "critical": 6},
                {"name": "wound", "target": 4, "natural_fail": 1, "critical": 6}
            ],
            "save": {"ap": -1, "counter": "failed_saves"}, "damage": {"dice": "1"}
        }]
    })
}

#[test]
fn a_short_evaluation_answers_on_the_callers_thread_polled_only_before_it_starts() {
    // Polled every nanosecond, a worker would be polled while it ran; a
    // short evaluation runs on the caller's thread instead, where the hand-off
    // to a worker and back would cost more than it does.
    let p = Arc::new(boltguns());
    let alone = evaluate(&p).unwrap();
    assert!(alone.work <= CALLER_WORK, "{} steps", alone.work);
    // Of three calls, at least one is answered with only the first poll: a
    // thread descheduled for `CALLER_TIME` would hand even this one off.
    let polls: Vec<u32> = (0..3)
        .map(|_| {
            let mut polls = 0;
            let polled = evaluate_polled_every(&p, Duration::from_nanos(1), &mut |_, _| {
                polls += 1;
                Ok(())
            })
            .unwrap();
            assert_eq!(polled.pmfs, alone.pmfs);
            polls
        })
        .collect();
    assert!(polls.contains(&1), "{polls:?}");
}

#[test]
fn a_long_evaluation_starts_again_on_a_worker_and_answers_as_if_alone() {
    // Plan 1 takes millions of steps: past `CALLER_WORK` on the caller's
    // thread it starts again on a worker, whose answer and work counted are
    // those of the evaluation alone.
    let p = Arc::new(plan(1));
    let alone = evaluate(&p).unwrap();
    assert!(alone.work > CALLER_WORK);
    let mut polls = 0;
    let polled = evaluate_polled_every(&p, Duration::from_millis(1), &mut |_, _| {
        polls += 1;
        Ok(())
    })
    .unwrap();
    assert!(
        polls > 1,
        "polled only {polls} times while a worker evaluated"
    );
    assert_eq!(polled.pmfs, alone.pmfs);
    assert_eq!((polled.work, polled.estimate), (alone.work, alone.estimate));
}

#[test]
fn a_long_evaluation_is_stopped_by_a_poll_while_it_runs() {
    // Plan 1 takes about 3.2 million steps (a tenth of a second or more):
    // polled every millisecond while the worker evaluates, the first poll
    // after it started fails, as Ctrl-C makes it. (Every `POLL_INTERVAL`, a
    // fast machine could finish first.)
    let p = Arc::new(plan(1));
    let mut polls = 0;
    let e = evaluate_polled_every(&p, Duration::from_millis(1), &mut |_, _| {
        polls += 1;
        if polls < 2 {
            Ok(())
        } else {
            Err(CoreError::Interrupted)
        }
    })
    .unwrap_err();
    assert!(matches!(e, CoreError::Interrupted), "{e}");
    assert_eq!(polls, 2);
    // The worker stopped, parked, then answers the next call.
    let answered = evaluate_polled(&p, &mut |_, _| Ok(())).unwrap();
    assert_eq!(answered.pmfs, evaluate(&p).unwrap().pmfs);
}

#[test]
fn a_long_evaluation_of_few_steps_starts_again_on_a_worker_too() {
    // 800 attacks with the unit's one hit and one wound re-roll: building
    // the dice's tables takes milliseconds but is not counted in steps, so
    // it is the time on the caller's thread (`CALLER_TIME`) that hands it to
    // a worker, where the caller can poll for Ctrl-C while it runs.
    let mut plan = boltguns_plan();
    plan["sequences"][0]["attacks"] = json!([{"models": 400, "dice": "2"}]);
    for step in 0..2 {
        plan["sequences"][0]["steps"][step]["reroll_one"] = json!(true);
    }
    let p = Arc::new(program(&plan));
    let start = Instant::now();
    let alone = evaluate(&p).unwrap();
    assert!(alone.work < CALLER_WORK, "{} steps", alone.work);
    assert!(start.elapsed() > CALLER_TIME * 4, "{:?}", start.elapsed());
    let mut polls = 0;
    let polled = evaluate_polled_every(&p, Duration::from_micros(100), &mut |_, _| {
        polls += 1;
        Ok(())
    })
    .unwrap();
    assert!(polls > 1, "polled only {polls} times");
    assert_eq!(polled.pmfs, alone.pmfs);
}

#[test]
fn callers_evaluating_at_once_each_get_their_own_answer() {
    // Short evaluations answered on their callers' threads beside more long
    // ones than parked workers are kept (five of plan 1): each long one gets
    // a worker, and each answer is its own Plan's.
    let plans = [Arc::new(boltguns()), Arc::new(plan(1))];
    let expected: Vec<_> = plans.iter().map(|p| evaluate(p).unwrap().pmfs).collect();
    std::thread::scope(|scope| {
        let callers: Vec<_> = (0..10)
            .map(|i| {
                let p = &plans[i % 2];
                scope.spawn(move || evaluate_polled(p, &mut |_, _| Ok(())).unwrap().pmfs)
            })
            .collect();
        for (i, c) in callers.into_iter().enumerate() {
            assert_eq!(c.join().unwrap(), expected[i % 2], "caller {i}");
        }
    });
}
