//! The executor against closed forms and scripted dice.

use mathhammer_core::montecarlo::{
    chunk_count, run_chunks, simulate_chunks_with, simulate_with, trials_in, Control,
};
use mathhammer_core::trace::Event;
use mathhammer_core::{
    replay, simulate, Path, Plan, Program, RunOptions, Runner, Tally, CHUNK_TRIALS,
};
use serde_json::{json, Value};

mod common;

use common::{assert_mean, assert_same_distribution, boltguns, program, run};

#[test]
fn boltguns_match_their_closed_form() {
    let p = program(&boltguns());
    let t = run(&p, 200_000, 7);
    assert_eq!(t.trials, 200_000);
    // Each attack: hit 4/6, wound 3/6, save fails on 1-3 after AP-1: 3/6.
    assert_mean(&t, 0, 20.0);
    assert_mean(&t, 1, 20.0 * 4.0 / 6.0);
    assert_mean(&t, 2, 20.0 * 4.0 / 6.0 * 0.5);
    let p_unsaved = 4.0 / 6.0 * 0.5 * 0.5;
    assert_mean(&t, 3, 20.0 * p_unsaved);
    // D1 into W2: damage equals failed saves (at most 20); a model per two.
    assert_eq!(
        t.hist[4], t.hist[3],
        "D1 damage is exactly the failed saves"
    );
    let exact_destroyed: f64 = (0..=20u32)
        .map(|k| binomial(20, k, p_unsaved) * f64::from(k / 2))
        .sum();
    assert_mean(&t, 5, exact_destroyed);
}

fn binomial(n: u32, k: u32, p: f64) -> f64 {
    let mut c = 1.0;
    for i in 0..k {
        c = c * f64::from(n - i) / f64::from(i + 1);
    }
    c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
}

#[test]
fn same_seed_same_tally_on_any_thread_count() {
    let p = program(&boltguns());
    let trials = 3 * 16_384 + 5;
    let one = simulate(
        &p,
        RunOptions {
            trials,
            seed: 11,
            threads: 1,
            ..Default::default()
        },
        |_, _| Ok(()),
    )
    .unwrap();
    let two = simulate(
        &p,
        RunOptions {
            trials,
            seed: 11,
            threads: 2,
            ..Default::default()
        },
        |_, _| Ok(()),
    )
    .unwrap();
    let direct = run_chunks(
        &Runner::new(&p, Path::Auto),
        11,
        trials,
        0..chunk_count(trials),
        &Control::default(),
    );
    assert_eq!(one, two);
    assert_eq!(one, direct);
    let other = simulate(
        &p,
        RunOptions {
            trials,
            seed: 12,
            threads: 2,
            ..Default::default()
        },
        |_, _| Ok(()),
    )
    .unwrap();
    assert_ne!(one, other);
}

/// Parts of a run over any split of its chunks, merged in any order, give
/// the whole run's tally count for count, on both paths.
#[test]
fn parts_of_a_run_merge_into_the_whole_run() {
    let p = program(&boltguns());
    let trials = 7 * CHUNK_TRIALS + 123;
    assert_eq!(chunk_count(trials), 8);
    for path in [Path::Auto, Path::DieByDie] {
        let runner = Runner::new(&p, path);
        let options = RunOptions {
            trials,
            seed: 5,
            threads: 2,
            path,
        };
        let whole = simulate_with(&runner, options, |_, _| Ok(())).unwrap();
        for cuts in [
            vec![0, 8],
            vec![0, 1, 8],
            vec![0, 3, 4, 7, 8],
            vec![0, 5, 8],
        ] {
            let mut parts: Vec<Tally> = cuts
                .windows(2)
                .map(|w| simulate_chunks_with(&runner, options, w[0]..w[1], |_, _| Ok(())).unwrap())
                .collect();
            for (w, part) in cuts.windows(2).zip(&parts) {
                assert_eq!(part.trials, trials_in(trials, &(w[0]..w[1])));
            }
            parts.reverse();
            let mut merged = Tally::new(whole.hist.len());
            for part in &parts {
                merged.merge(part);
            }
            assert_eq!(merged, whole, "{path:?}, cut at {cuts:?}");
        }
    }
    assert_eq!(trials_in(trials, &(7..8)), 123);
}

#[test]
fn a_part_reports_progress_over_its_own_trials() {
    let p = program(&boltguns());
    let runner = Runner::new(&p, Path::Auto);
    let options = RunOptions {
        trials: 3 * CHUNK_TRIALS + 10,
        seed: 1,
        threads: 1,
        ..Default::default()
    };
    let mut last = (0, 0);
    simulate_chunks_with(&runner, options, 2..4, |done, total| {
        last = (done, total);
        Ok(())
    })
    .unwrap();
    assert_eq!(last, (CHUNK_TRIALS + 10, CHUNK_TRIALS + 10));
}

#[test]
fn chunk_ranges_outside_the_run_are_refused_by_name() {
    let p = program(&boltguns());
    let runner = Runner::new(&p, Path::Auto);
    let options = RunOptions {
        trials: 2 * CHUNK_TRIALS,
        seed: 1,
        threads: 1,
        ..Default::default()
    };
    for chunks in [0..0, 2..2, 1..3, 3..4] {
        let err =
            simulate_chunks_with(&runner, options, chunks.clone(), |_, _| Ok(())).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("chunks") && text.contains("0..2"),
            "{chunks:?}: {text}"
        );
    }
    let none = RunOptions {
        trials: 0,
        ..options
    };
    let err = simulate_chunks_with(&runner, none, 0..1, |_, _| Ok(())).unwrap_err();
    assert!(err.to_string().contains("trials"), "{err}");
}

#[test]
fn an_error_from_poll_stops_the_run_promptly() {
    let p = program(&boltguns());
    let mut polls = 0;
    let start = std::time::Instant::now();
    // A billion trials would take about a minute; the first poll stops them.
    let r = simulate(
        &p,
        RunOptions {
            trials: 1_000_000_000,
            seed: 1,
            threads: 2,
            ..Default::default()
        },
        |_, _| {
            polls += 1;
            Err(mathhammer_core::CoreError::Interrupted)
        },
    );
    assert_eq!(r.unwrap_err(), mathhammer_core::CoreError::Interrupted);
    // Poll is called on (its errors ignored) only while the workers stop,
    // which takes a trial per chunk: one more interval at most.
    assert!(
        (1..=3).contains(&polls),
        "polled {polls} times after stopping"
    );
    assert!(
        start.elapsed().as_secs() < 10,
        "stopped after {:?}",
        start.elapsed()
    );
}

#[test]
fn poll_sees_the_finished_run() {
    let p = program(&boltguns());
    let mut last = (0, 0);
    simulate(
        &p,
        RunOptions {
            trials: 40_000,
            seed: 1,
            threads: 1,
            ..Default::default()
        },
        |done, total| {
            last = (done, total);
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(last, (40_000, 40_000));
}

#[test]
fn reroll_ones_and_failures_match_closed_forms() {
    for (policy, p_hit) in [
        ("ones", 4.0 / 6.0 + 1.0 / 6.0 * 4.0 / 6.0),
        ("failures", 1.0 - (2.0f64 / 6.0).powi(2)),
    ] {
        let mut plan = boltguns();
        plan["sequences"][0]["steps"][0]["reroll"] = json!(policy);
        let t = run(&program(&plan), 100_000, 3);
        assert_mean(&t, 1, 20.0 * p_hit);
    }
}

#[test]
fn modifiers_are_capped_and_natural_rolls_win() {
    // +3 to hit capped to +1: BS3+ hits on 2+, but a natural 1 still fails.
    let mut plan = boltguns();
    let hit = &mut plan["sequences"][0]["steps"][0];
    hit["modifiers"] = json!([2, 1]);
    hit["modifier_min"] = json!(-1);
    hit["modifier_max"] = json!(1);
    let t = run(&program(&plan), 100_000, 5);
    assert_mean(&t, 1, 20.0 * 5.0 / 6.0);
    // -2 capped to -1 on a 6+ roll: only the critical 6 hits.
    plan["sequences"][0]["steps"][0]["modifiers"] = json!([-2]);
    plan["sequences"][0]["steps"][0]["target"] = json!(6);
    let t = run(&program(&plan), 100_000, 5);
    assert_mean(&t, 1, 20.0 / 6.0);
}

#[test]
fn extra_hits_and_skips_count_where_the_result_says() {
    // Sustained Hits 1 + Lethal Hits shape: a critical hit adds one hit and
    // itself skips the wound roll.
    let mut plan = boltguns();
    plan["sequences"][0]["steps"][0]["effects"] = json!([{"on": "critical", "action": "extra", "amount": "1"}, {"on": "critical", "action": "skip", "steps": 1}]);
    let t = run(&program(&plan), 100_000, 9);
    let hits = 20.0 * (4.0 / 6.0 + 1.0 / 6.0);
    assert_mean(&t, 1, hits);
    // Wounds: the lethal criticals, plus half of every other hit.
    let wounds = 20.0 / 6.0 + 0.5 * (hits - 20.0 / 6.0);
    assert_mean(&t, 2, wounds);
}

#[test]
fn automatic_tests_roll_nothing_and_never_crit() {
    let mut plan = boltguns();
    plan["sequences"][0]["steps"][0] = json!({"name": "hit", "automatic": true, "counter": "hits",
        "effects": [{"on": "critical", "action": "extra", "amount": "5"}]});
    let t = run(&program(&plan), 20_000, 1);
    assert_eq!(t.hist[1][20], 20_000, "every attack hits, none critically");
}

fn target_two_groups() -> Value {
    json!({"groups": [
            {"name": "A", "models": 2, "wounds": 3, "save": 6},
            {"name": "B", "models": 1, "wounds": 2, "save": 6}],
           "order": [0, 1], "wounded_groups_first": true})
}

#[test]
fn mortal_wounds_spill_and_single_model_ones_do_not() {
    let mut plan = json!({
        "version": 1, "counters": ["mortal_wounds"], "target": target_two_groups(),
        "sequences": [{"kind": "mortal_wounds", "name": "Smite", "amount": "7", "counter": "mortal_wounds"}]
    });
    let (out, _, used) = replay(&program(&plan), vec![]).unwrap();
    assert_eq!(
        (out.damage, out.destroyed, used),
        (7, 2, 0),
        "3+3 kill group A, 1 more wounds B"
    );
    // The same 7 as a non-spilling effect of a critical wound: one model only.
    plan["counters"] = json!(["wounds", "mortal_wounds"]);
    plan["sequences"] = json!([{"kind": "attack", "name": "Gun", "attacks": [{"models": 1, "dice": "1"}],
        "steps": [{"name": "wound", "target": 4, "critical": 6, "counter": "wounds",
                   "effects": [{"on": "critical", "action": "mortal", "amount": "7", "spill": false, "ends_attack": true}]}],
        "save": {}, "damage": {"dice": "1"}, "mortal_counter": "mortal_wounds"}]);
    let (out, events, used) = replay(&program(&plan), vec![6]).unwrap();
    assert_eq!(out.counters, vec![1, 7]);
    assert_eq!(
        (out.damage, out.destroyed, used),
        (3, 1, 1),
        "excess beyond the first model is lost; no save rolled"
    );
    assert!(!events.iter().any(|e| matches!(e, Event::Save { .. })));
}

#[test]
fn saves_resolve_lowest_first_through_the_groups() {
    // Group A (Sv 6+ here made 2+ to show the switch) takes the lowest rolls.
    let plan = json!({
        "version": 1, "counters": ["failed_saves"],
        "target": {"groups": [
            {"name": "A", "models": 1, "wounds": 1, "save": 2},
            {"name": "B", "models": 2, "wounds": 1, "save": 5}], "order": [0, 1]},
        "sequences": [{"kind": "attack", "name": "Gun", "attacks": [{"models": 3, "dice": "1"}],
            "steps": [], "save": {"counter": "failed_saves"}, "damage": {"dice": "1"}}]
    });
    // Save dice 4, 1, 3 resolve as 1 (A fails: destroyed), 3 (B: fails), 4 (B: fails).
    let (out, events, _) = replay(&program(&plan), vec![4, 1, 3]).unwrap();
    let saves: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Save {
                roll, group, saved, ..
            } => Some((*roll, *group, *saved)),
            _ => None,
        })
        .collect();
    assert_eq!(
        saves,
        vec![
            (1, Some(0), false),
            (3, Some(1), false),
            (4, Some(1), false)
        ]
    );
    assert_eq!((out.counters[0], out.destroyed), (3, 3));
}

#[test]
fn excess_normal_damage_is_lost_and_attacks_after_a_wipe_are_counted() {
    let plan = json!({
        "version": 1, "counters": ["failed_saves"],
        "target": {"groups": [{"name": "A", "models": 1, "wounds": 2}], "order": [0]},
        "sequences": [{"kind": "attack", "name": "Gun", "attacks": [{"models": 3, "dice": "1"}],
            "steps": [], "save": {"counter": "failed_saves"}, "damage": {"dice": "D6"}}]
    });
    // No save characteristic: every roll fails. First damage roll 5 kills (excess 3 lost).
    let (out, _, used) = replay(&program(&plan), vec![2, 2, 2, 5]).unwrap();
    assert_eq!(
        (out.counters[0], out.damage, out.destroyed, used),
        (3, 2, 1, 4)
    );
}

#[test]
fn scripts_that_run_out_are_errors_not_panics() {
    let err = replay(&program(&boltguns()), vec![6, 6]).unwrap_err();
    assert!(err.to_string().contains("ran out after 2 values"), "{err}");
}

#[test]
fn bad_plans_name_the_field() {
    for (edit, needle) in [
        (
            json!({"target": {"groups": [], "order": []}}),
            "target.groups",
        ),
        (json!({"version": 9}), "version"),
        (json!({"counters": ["damage"]}), "counters[0]"),
    ] {
        let mut plan = boltguns();
        for (k, v) in edit.as_object().unwrap() {
            plan[k] = v.clone();
        }
        let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
    }
    let mut plan = boltguns();
    plan["sequences"][0]["attacks"][0]["dice"] = json!("D0");
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("D0") && e.contains("2 sides"), "{e}");
    plan["sequences"][0]["attacks"][0]["dice"] = json!("100D6");
    plan["sequences"][0]["attacks"][0]["models"] = json!(10_000);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("at most 100000 are allowed"), "{e}");
    plan["sequences"][0]["steps"][0]["counter"] = json!("nope");
    plan["sequences"][0]["attacks"][0]["models"] = json!(1);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(
        e.contains("sequences[0].steps[0].counter") && e.contains("nope"),
        "{e}"
    );
}

/// A batch hook that does in arrays what a `mortal` effect on critical wounds
/// does as data: one mortal wound per critical wound.
#[derive(Debug)]
struct MortalPerCritical;

impl mathhammer_core::batch::BatchHooks for MortalPerCritical {
    fn call(
        &self,
        index: usize,
        batch: &mut mathhammer_core::batch::Batch,
    ) -> Result<(), mathhammer_core::CoreError> {
        assert_eq!(index, 0);
        let wound = batch.tests.iter().position(|t| t == "wound").unwrap();
        batch.mortal_wounds.clone_from(&batch.criticals[wound]);
        Ok(())
    }
}

#[derive(Debug)]
struct Broken;

impl mathhammer_core::batch::BatchHooks for Broken {
    fn call(
        &self,
        _: usize,
        batch: &mut mathhammer_core::batch::Batch,
    ) -> Result<(), mathhammer_core::CoreError> {
        batch.to_save.pop();
        Ok(())
    }
}

#[test]
fn a_batch_hook_matches_the_equivalent_data_plan() {
    let mut data = boltguns();
    data["counters"] = json!(["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"]);
    data["sequences"][0]["mortal_counter"] = json!("mortal_wounds");
    let mut hooked = data.clone();
    data["sequences"][0]["steps"][1]["effects"] =
        json!([{"on": "critical", "action": "mortal", "amount": "1"}]);
    hooked["sequences"][0]["batch_hook"] = json!(0);
    let data = program(&data);
    let hooked = program(&hooked).with_hooks(std::sync::Arc::new(MortalPerCritical));
    assert!(hooked.has_batch_hooks() && !Runner::new(&hooked, Path::Auto).is_sampled());
    let options = RunOptions {
        trials: 200_000,
        seed: 3,
        threads: 2,
        path: Path::DieByDie,
    };
    let a = simulate(&data, options, |_, _| Ok(())).unwrap();
    let b = simulate(&hooked, RunOptions { seed: 4, ..options }, |_, _| Ok(())).unwrap();
    assert_same_distribution(&a, &b);
    // Replays call the hook one trial at a time.
    let (out, _, _) = replay(
        &hooked,
        vec![
            6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
            6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
            6, 6,
        ],
    )
    .unwrap();
    assert_eq!(
        out.counters[4], 20,
        "twenty critical wounds, twenty mortal wounds"
    );
}

#[test]
fn a_hook_that_breaks_the_arrays_stops_the_run_with_its_error() {
    let mut plan = boltguns();
    plan["sequences"][0]["batch_hook"] = json!(0);
    let broken = program(&plan).with_hooks(std::sync::Arc::new(Broken));
    let e = simulate(
        &broken,
        RunOptions {
            trials: 50_000,
            seed: 1,
            threads: 2,
            path: Path::Auto,
        },
        |_, _| Ok(()),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("batch hook: returned arrays of"),
        "{e}"
    );
    let missing = simulate(
        &program(&plan),
        RunOptions {
            trials: 10,
            seed: 1,
            threads: 1,
            path: Path::Auto,
        },
        |_, _| Ok(()),
    )
    .unwrap_err();
    assert!(
        missing.to_string().contains("no hooks were given"),
        "{missing}"
    );
}

/// A batch hook with a bug: it panics, on whichever worker thread runs it.
#[derive(Debug)]
struct Panics;

impl mathhammer_core::batch::BatchHooks for Panics {
    fn call(
        &self,
        _: usize,
        _: &mut mathhammer_core::batch::Batch,
    ) -> Result<(), mathhammer_core::CoreError> {
        panic!("the hook's own bug");
    }
}

#[test]
fn a_panic_on_a_worker_thread_is_an_internal_error() {
    let mut plan = boltguns();
    plan["sequences"][0]["batch_hook"] = json!(0);
    let panics = program(&plan).with_hooks(std::sync::Arc::new(Panics));
    let e = simulate(
        &panics,
        RunOptions {
            trials: 50_000,
            seed: 1,
            threads: 2,
            path: Path::Auto,
        },
        |_, _| Ok(()),
    )
    .unwrap_err();
    assert!(
        matches!(&e, mathhammer_core::CoreError::Internal { reason } if reason.contains("the hook's own bug")),
        "{e}"
    );
}

/// The limits on attack dice are the documented ones: 100,000 attack dice,
/// and ten times that counting extra hits. Errors name the pool's attacks.
#[test]
fn attack_dice_are_limited_as_documented() {
    use mathhammer_core::limits::{MAX_ATTACKS, MAX_TOKENS_PER_TRIAL};
    let mut plan = boltguns();
    plan["sequences"][0]["attacks"][0]["models"] = json!(5_000);
    plan["sequences"][0]["attacks"][0]["dice"] = json!("10");
    plan["sequences"][0]["steps"][0]["effects"] =
        json!([{"on": "critical", "action": "extra", "amount": "2"}]);
    assert!(
        Plan::from_json(&plan.to_string()).is_ok(),
        "50,000 attacks with two extra hits each are within both limits"
    );
    plan["sequences"][0]["attacks"][0]["dice"] = json!("20");
    plan["sequences"][0]["attacks"]
        .as_array_mut()
        .unwrap()
        .push(json!({"models": 1, "dice": "1"}));
    let e = Plan::from_json(&plan.to_string()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("plan field sequences[0].attacks: can roll up to 100001 attack dice in one trial; at most {MAX_ATTACKS} are allowed")
    );
    plan["sequences"][0]["attacks"][0]["dice"] = json!("10");
    plan["sequences"][0]["steps"][0]["effects"] =
        json!([{"on": "critical", "action": "extra", "amount": "D20"}]);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(
        e.starts_with("plan field sequences[0].attacks: can create up to 1050021 attack dice")
            && e.contains(&format!(
                "extra hits included; at most {MAX_TOKENS_PER_TRIAL}"
            )),
        "{e}"
    );
}

/// Trial `k` of a die-by-die run, as the histograms of runs of `k` and
/// `k + 1` trials tell it apart: the value each number took.
fn trial_of_run(p: &Program, seed: u64, k: u64) -> Vec<usize> {
    let run = |trials: u64| {
        let options = RunOptions {
            trials,
            seed,
            threads: 1,
            path: Path::DieByDie,
        };
        simulate(p, options, |_, _| Ok(())).unwrap_or_else(|_| Tally::new(p.numbers().len()))
    };
    let (before, after) = (run(k), run(k + 1));
    after
        .hist
        .iter()
        .enumerate()
        .map(|(i, h)| {
            (0..h.len())
                .find(|&v| h[v] > before.hist[i].get(v).copied().unwrap_or(0))
                .expect("one more trial")
        })
        .collect()
}

#[test]
fn a_seeded_replay_is_the_trial_the_run_draws() {
    let mut plan = boltguns();
    plan["sequences"][0]["damage"] = json!({"dice": "D3"});
    let p = program(&plan);
    for (seed, k) in [(7, 0), (7, 5), (12_345, 17)] {
        let (outcome, events, dice) = mathhammer_core::replay_seeded(&p, seed, k).unwrap();
        let mut told: Vec<usize> = outcome.counters.iter().map(|&c| c as usize).collect();
        told.extend([outcome.damage as usize, outcome.destroyed as usize]);
        told.extend(outcome.group_destroyed.iter().map(|&d| d as usize));
        for &(damage, mortal) in &outcome.by_sequence {
            told.extend([damage as usize, mortal as usize]);
        }
        assert_eq!(told, trial_of_run(&p, seed, k), "seed {seed}, trial {k}");
        // The dice drawn, replayed, tell the same trial.
        let (again, again_events, used) = replay(&p, dice.clone()).unwrap();
        assert_eq!(
            (again.counters, again.damage, used),
            (outcome.counters, outcome.damage, dice.len())
        );
        assert_eq!(again_events.len(), events.len());
    }
}

/// Saves in turn roll each token's save against the group current then, in
/// the order rolled: a 3 then a 1 kill a 4+ model and then a 2+ one. Rolled
/// together and sorted, the 1 meets the 4+ model and the 3 is saved by the
/// 2+ one.
#[test]
fn saves_in_turn_are_resolved_in_the_order_rolled() {
    let mut plan = json!({"version": 1, "counters": ["failed_saves"],
        "target": {"groups": [{"name": "A", "models": 1, "wounds": 1, "save": 4},
            {"name": "B", "models": 1, "wounds": 1, "save": 2}], "order": [0, 1], "wounded_groups_first": true},
        "sequences": [{"kind": "attack", "name": "Gun", "attacks": [{"models": 2, "dice": "1"}],
            "steps": [{"name": "hit", "automatic": true}],
            "save": {"counter": "failed_saves"}, "damage": {"dice": "1"}}]});
    let (sorted, _, used) = replay(&program(&plan), vec![3, 1]).unwrap();
    assert_eq!((sorted.counters[0], sorted.destroyed, used), (1, 1, 2));
    plan["sequences"][0]["save"]["in_turn"] = json!(true);
    let (in_turn, _, used) = replay(&program(&plan), vec![3, 1]).unwrap();
    assert_eq!((in_turn.counters[0], in_turn.destroyed, used), (2, 2, 2));
}
