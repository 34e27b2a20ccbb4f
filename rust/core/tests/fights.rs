//! Fights: the Plan's sequences as rounds between two sides, each attacking
//! with its survivors, until one is destroyed; and healing.

mod common;

use common::assert_same_distribution;
use mathhammer_core::exact::evaluate;
use mathhammer_core::trace::{Event, Recorder};
use mathhammer_core::{simulate, Path, Plan, Program, RunOptions};
use serde_json::{json, Value};

fn program(plan: &Value) -> Program {
    Program::new(Plan::from_json(&plan.to_string()).expect("valid plan")).expect("program")
}

/// A pool of one attack per surviving model of `side`'s group 0 against the
/// other side: hits on `target`+ and each hit removes one wound.
fn strike(name: &str, against: &str, models: u32, target: u32) -> Value {
    json!({
        "kind": "attack", "name": name, "against": against,
        "attacks": [{"models": models, "dice": "1", "alive_of": 0}],
        "steps": [{"name": "hit", "target": target}],
        "save": {"rolled": false}, "damage": {"dice": "1"}
    })
}

fn duel(first: &str, a_models: u32, b_models: u32, target: u32, rounds: u32) -> Value {
    let (a, b) = (
        strike("A strikes", "target", a_models, target),
        strike("B strikes", "attacker", b_models, target),
    );
    let sequences = if first == "A" { vec![a, b] } else { vec![b, a] };
    json!({
        "version": 1,
        "counters": ["rounds", "outcome"],
        "target": {"groups": [{"name": "B", "models": b_models, "wounds": 1}], "order": [0]},
        "attacker": {"groups": [{"name": "A", "models": a_models, "wounds": 1}], "order": [0]},
        "sequences": sequences,
        "rounds": {"max": rounds, "counter": "rounds", "outcome_counter": "outcome"}
    })
}

fn run(plan: &Value, path: Path) -> mathhammer_core::montecarlo::Tally {
    simulate(
        &program(plan),
        RunOptions {
            trials: 200_000,
            seed: 17,
            threads: 2,
            path,
        },
        |_, _| Ok(()),
    )
    .unwrap()
}

/// Did number `number` come out as `value` in every trial?
fn always(t: &mathhammer_core::montecarlo::Tally, number: usize, value: usize) -> bool {
    t.hist[number].get(value) == Some(&t.trials)
}

fn share(t: &mathhammer_core::montecarlo::Tally, number: usize, value: usize) -> f64 {
    t.hist[number].get(value).copied().unwrap_or(0) as f64 / t.trials as f64
}

#[test]
fn survivors_attack_and_the_fight_stops_when_a_side_is_destroyed() {
    // Every attack hits (2+ on a d6 still misses on 1: use a d1-like sure
    // hit by needing 1). A's three models remove both of B's at once.
    let a_first = duel("A", 3, 2, 1, 10);
    let t = run(&a_first, Path::DieByDie);
    assert_eq!(t.hist[0], vec![0, t.trials], "one round");
    assert_eq!(t.hist[1], vec![0, t.trials], "the target is destroyed");
    // B first: B's two remove two of A; A's survivor removes one of B; in
    // round 2 B's survivor removes the last of A.
    let b_first = duel("B", 3, 2, 1, 10);
    for path in [Path::DieByDie, Path::Auto] {
        let t = run(&b_first, path);
        assert!(always(&t, 0, 2), "two rounds on {path:?}");
        assert!(always(&t, 1, 2), "the attacker is destroyed on {path:?}");
        // attacker damage and models destroyed are the last two numbers
        assert!(always(&t, 4, 3));
        assert!(always(&t, 3, 1));
    }
}

#[test]
fn a_duel_of_even_blows_against_its_closed_form() {
    // One model each, hits on 4+ (p = 1/2), A first, at most 10 rounds:
    // P(A wins) = p (1 + q^2 + ... + q^18), P(B wins) = q p (same sum), draw q^20.
    let (p, q) = (0.5_f64, 0.5_f64);
    let sum: f64 = (0..10).map(|k| q.powi(2 * k)).sum();
    let expected = [q.powi(20), p * sum, q * p * sum, 0.0];
    let plan = duel("A", 1, 1, 4, 10);
    for path in [Path::DieByDie, Path::Auto] {
        let t = run(&plan, path);
        for (outcome, &e) in expected.iter().enumerate() {
            let got = share(&t, 1, outcome);
            let se = (e * (1.0 - e) / t.trials as f64).sqrt().max(1e-9);
            assert!(
                (got - e).abs() < 5.0 * se + 1e-12,
                "outcome {outcome} on {path:?}: {got} vs {e}"
            );
        }
    }
    // Exactly, and with B striking first the two sides trade places.
    let exact = evaluate(&program(&plan)).unwrap();
    for (outcome, &e) in expected.iter().enumerate() {
        let got = exact.pmfs[1].get(outcome).copied().unwrap_or(0.0);
        assert!((got - e).abs() < 1e-12, "outcome {outcome}");
    }
    let b_first = evaluate(&program(&duel("B", 1, 1, 4, 10))).unwrap();
    let swapped = [q.powi(20), q * p * sum, p * sum];
    for (outcome, &e) in swapped.iter().enumerate() {
        assert!(
            (b_first.pmfs[1][outcome] - e).abs() < 1e-12,
            "outcome {outcome}, B first"
        );
    }
    // Rounds fought: A wins in round k with q^(2k-2) p, B with q^(2k-1) p; a
    // draw lasts all ten.
    let rounds = &exact.pmfs[0];
    for k in 1..10 {
        let e = q.powi(2 * k - 2) * p + q.powi(2 * k - 1) * p;
        assert!((rounds[k as usize] - e).abs() < 1e-12, "round {k}");
    }
    assert!((rounds[10] - (q.powi(18) * p + q.powi(19) * p + q.powi(20))).abs() < 1e-12);
}

#[test]
fn healing_restores_wounds_and_returns_models_only_when_told() {
    // B (3 models of 2 wounds) loses 5 wounds to A's sure hits, then heals 3.
    let mut plan = duel("A", 5, 3, 1, 1);
    plan["target"]["groups"][0]["wounds"] = json!(2);
    plan["sequences"] = json!([
        strike("A strikes", "target", 5, 1),
        {"kind": "heal", "name": "Mend", "side": "target", "amount": "3", "counter": "rounds"}
    ]);
    plan["counters"] = json!(["healed", "outcome"]);
    plan["sequences"][1]["counter"] = json!("healed");
    plan["rounds"] = Value::Null;
    // Without returning models: one model is left with 1 wound, healed to 2.
    let sure = |plan: &Value, numbers: [(usize, usize); 3]| {
        let t = run(plan, Path::DieByDie);
        let exact = evaluate(&program(plan)).unwrap();
        for (number, value) in numbers {
            assert!(always(&t, number, value), "number {number} is {value}");
            assert!(
                (exact.pmfs[number][value] - 1.0).abs() < 1e-12,
                "exactly, number {number}"
            );
        }
    };
    // Healed, restored, lost in the end, destroyed.
    sure(&plan, [(0, 1), (2, 4), (3, 2)]);
    // Up to the starting wounds: the survivor holds all three, no model returns.
    plan["sequences"][1]["up_to_start"] = json!(true);
    sure(&plan, [(0, 3), (2, 2), (3, 2)]);
    plan["sequences"][1]["up_to_start"] = json!(false);
    plan["sequences"][1]["return_models"] = json!(true);
    let t = run(&plan, Path::Auto);
    assert!(always(&t, 0, 3), "three wounds restored");
    assert!(always(&t, 2, 2), "2 wounds lost in the end");
    assert!(always(&t, 3, 1), "one model returned");
    sure(&plan, [(0, 3), (2, 2), (3, 1)]);
    let mut recorder = Recorder::default();
    let mut dice = mathhammer_core::rng::Stream::new(1, 0);
    let program = program(&plan);
    let mut ws = mathhammer_core::Workspace::new(&program);
    mathhammer_core::executor::run_trial(&program, &mut ws, &mut dice, &mut recorder);
    assert!(recorder.events.contains(&Event::Heal {
        side: mathhammer_core::plan::Side::Target,
        amount: 3
    }));
}

#[test]
fn fights_are_checked() {
    let mut plan = duel("A", 1, 1, 4, 0);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("rounds.max"), "{e}");
    plan["rounds"]["max"] = json!(3);
    plan["sequences"][0]["attacks"][0]["alive_of"] = json!(4);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("alive_of"), "{e}");
    let mut plan = duel("A", 1, 1, 4, 3);
    plan["attacker"] = Value::Null;
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("attacking side"), "{e}");
    plan["sequences"] = json!([]);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("list the attacker"), "{e}");
    // The outcome needs a counter of its own; reserve needs alive_of; harm held
    // until every sequence is resolved would wait for the last round.
    let mut plan = duel("A", 1, 1, 4, 3);
    plan["rounds"]["outcome_counter"] = json!("rounds");
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("outcome_counter"), "{e}");
    let mut plan = duel("A", 1, 1, 4, 3);
    plan["sequences"][0]["attacks"][0]["alive_of"] = Value::Null;
    plan["sequences"][0]["attacks"][0]["reserve"] = json!(1);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("reserve"), "{e}");
    let mut plan = duel("A", 1, 1, 4, 3);
    plan["sequences"][0]["steps"][0]["effects"] =
        json!([{"on": "success", "action": "mortal", "amount": "1", "after_all": true}]);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("after_all"), "{e}");
}

#[test]
fn a_pool_striking_together_counts_the_models_alive_before_the_one_it_strikes_with() {
    // Sure hits: A's three models remove both of B's; striking together,
    // B's two still strike and remove two of A's. Ordered, B has none left.
    let mut plan = duel("A", 3, 2, 1, 10);
    plan["sequences"][1]["simultaneous"] = json!(true);
    for path in [Path::DieByDie, Path::Auto] {
        let t = run(&plan, path);
        assert!(always(&t, 1, 1), "the target is destroyed on {path:?}");
        assert!(
            always(&t, 4, 2),
            "two of the attacker's models fall on {path:?}"
        );
    }
    let ordered = run(&duel("A", 3, 2, 1, 10), Path::DieByDie);
    assert!(always(&ordered, 4, 0));
    // Both destroyed at once: two against two.
    let mut even = duel("A", 2, 2, 1, 10);
    even["sequences"][1]["simultaneous"] = json!(true);
    assert!(always(&run(&even, Path::DieByDie), 1, 3));
    plan["sequences"][0]["simultaneous"] = json!(true);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("sequences[0].simultaneous"), "{e}");
}

/// A strikes with two sure hits, B with one, five models a side: B loses
/// every round by 1 and holds only on a sum that always holds.
fn contest(always_holds: u32) -> Value {
    let mut plan = duel("A", 5, 5, 1, 3);
    plan["sequences"][0]["attacks"][0]["models"] = json!(2);
    plan["sequences"][1]["attacks"][0]["models"] = json!(1);
    plan["counters"] = json!(["rounds", "outcome", "winner", "left"]);
    plan["rounds"]["contest"] = json!({
        "attacker": {"hold": 1}, "target": {"hold": 1},
        "always_holds": always_holds, "winner_counter": "winner", "left_counter": "left"
    });
    plan
}

#[test]
fn the_loser_of_a_contest_leaves_unless_it_holds() {
    // Needing 0 or less on 2D6, the target never holds: one round.
    let t = run(&contest(0), Path::DieByDie);
    assert!(always(&t, 0, 1) && always(&t, 2, 1) && always(&t, 3, 1));
    // Double 1 holds (1/36): it leaves in round 1 or 2 with 35/36 or
    // (1/36)(35/36); in round 3 it is destroyed (five models, two a round).
    let p: f64 = 1.0 / 36.0;
    let plan = contest(2);
    let exact = evaluate(&program(&plan)).expect("exact");
    let left = [p * p, 1.0 - p * p];
    for (v, &e) in left.iter().enumerate() {
        assert!((exact.pmfs[3][v] - e).abs() < 1e-12, "left = {v}");
    }
    let rounds = [0.0, 1.0 - p, p * (1.0 - p), p * p];
    for (v, &e) in rounds.iter().enumerate() {
        assert!((exact.pmfs[0][v] - e).abs() < 1e-12, "rounds = {v}");
        let got = share(&run(&plan, Path::DieByDie), 0, v);
        assert!((got - e).abs() < 5.0 * (e * (1.0 - e) / 200_000.0).sqrt() + 1e-9);
    }
}

#[test]
fn healing_within_a_round_scores_no_fewer_than_no_wounds() {
    // The target heals more than it lost: the attacker scores 0, not a
    // wrapped-around count, and loses to the target's one wound.
    let mut plan = contest(0);
    plan["sequences"]
        .as_array_mut()
        .unwrap()
        .push(json!({"kind": "heal", "name": "Mend", "side": "target", "amount": "3", "return_models": true}));
    let t = run(&plan, Path::DieByDie);
    assert!(always(&t, 2, 2), "the target wins the round");
    assert!(always(&t, 3, 2), "the attacker leaves");
}

/// The same fight gives the very same answer every time it is evaluated,
/// to the last bit: its chances are added up in the same order each time.
#[test]
fn a_contested_fight_evaluates_to_the_same_bits_every_time() {
    let mut plan = contest(2);
    plan["sequences"][0]["steps"][0]["target"] = json!(4);
    plan["sequences"][1]["steps"][0]["target"] = json!(3);
    plan["sequences"][0]["attacks"][0]["dice"] = json!("D3");
    plan["rounds"]["max"] = json!(5);
    let first = evaluate(&program(&plan)).expect("exact");
    for _ in 0..5 {
        assert_eq!(evaluate(&program(&plan)).expect("exact").pmfs, first.pmfs);
    }
}

#[test]
fn the_one_damage_reroll_comes_back_each_round_on_the_fast_path() {
    // D3 damage into models of three wounds, each side with the unit's one
    // damage re-roll, a round at a time until a side falls: the fast path
    // spends it as die by die does, once per pool per round.
    let mut plan = duel("A", 6, 6, 3, 5);
    for seq in plan["sequences"].as_array_mut().unwrap() {
        seq["damage"] = json!({"dice": "D3", "reroll_one": true});
    }
    plan["target"]["groups"][0]["wounds"] = json!(3);
    plan["attacker"]["groups"][0]["wounds"] = json!(3);
    let p = program(&plan);
    assert!(mathhammer_core::Runner::new(&p, Path::Auto).is_sampled());
    assert_same_distribution(&run(&plan, Path::Auto), &run(&plan, Path::DieByDie));
}
