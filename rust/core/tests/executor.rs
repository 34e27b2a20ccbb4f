//! The executor against closed forms and scripted dice.

use mathhammer_core::montecarlo::{
    chunk_count, run_chunks, simulate_chunks_with, simulate_with, trials_in, Control,
};
use mathhammer_core::trace::Event;
use mathhammer_core::{
    replay, simulate, Path, Plan, Program, RunOptions, Runner, Tally, CHUNK_TRIALS,
};
use serde_json::{json, Value};

fn program(plan: &Value) -> Program {
    Program::new(Plan::from_json(&plan.to_string()).expect("valid plan")).expect("program")
}

/// The benchmark scenario: 10 models x 2 attacks, BS3+, S4 vs T4, AP-1, D1,
/// into 10 models with W2 and Sv3+.
fn boltguns() -> Value {
    json!({
        "version": 1,
        "counters": ["attacks", "hits", "wounds", "failed_saves"],
        "target": {"groups": [{"name": "Intercessor", "models": 10, "wounds": 2, "save": 3}], "order": [0]},
        "sequences": [{
            "kind": "attack", "name": "Boltgun",
            "attacks": [{"models": 10, "dice": "2"}], "attacks_counter": "attacks",
            "steps": [
                {"name": "hit", "target": 3, "natural_fail": 1, "critical": 6, "counter": "hits"},
                {"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds"}
            ],
            "save": {"ap": -1, "counter": "failed_saves"},
            "damage": {"dice": "1"}
        }]
    })
}

fn sd_of(tally: &Tally, i: usize) -> f64 {
    let m = tally.mean(i);
    let var: f64 = tally.hist[i]
        .iter()
        .enumerate()
        .map(|(v, &c)| (v as f64 - m).powi(2) * c as f64)
        .sum::<f64>()
        / (tally.trials - 1) as f64;
    var.sqrt()
}

fn assert_mean(tally: &Tally, i: usize, exact: f64) {
    let se = sd_of(tally, i) / (tally.trials as f64).sqrt();
    let z = (tally.mean(i) - exact) / se.max(1e-12);
    assert!(
        z.abs() < 5.0,
        "number {i}: mean {} vs exact {exact} is {z:.2} standard errors off",
        tally.mean(i)
    );
}

fn run(p: &Program, trials: u64, seed: u64) -> Tally {
    simulate(
        p,
        RunOptions {
            trials,
            seed,
            threads: 2,
            ..Default::default()
        },
        |_, _| Ok(()),
    )
    .unwrap()
}

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

/// Compare two tallies bin by bin with a chi-square two-sample test per
/// reported number. Bins with few expected counts are pooled into their
/// neighbour. The bound is the 1 - 1e-6 quantile (Wilson-Hilferty), so with
/// the handful of comparisons here a correct executor fails about once in
/// 10^5 runs, and the fixed seeds make it never.
fn assert_same_distribution(a: &Tally, b: &Tally) {
    for i in 0..a.hist.len() {
        let len = a.hist[i].len().max(b.hist[i].len());
        let get = |h: &Vec<u64>, v: usize| h.get(v).copied().unwrap_or(0) as f64;
        let (na, nb) = (a.trials as f64, b.trials as f64);
        let (mut chi2, mut dof, mut ca, mut cb) = (0.0, 0i32, 0.0, 0.0);
        for v in 0..len {
            ca += get(&a.hist[i], v);
            cb += get(&b.hist[i], v);
            if ca + cb >= 50.0 || v == len - 1 {
                let (ka, kb) = ((nb / na).sqrt(), (na / nb).sqrt());
                chi2 += (ka * ca - kb * cb).powi(2) / (ca + cb);
                dof += 1;
                ca = 0.0;
                cb = 0.0;
            }
        }
        let k = f64::from((dof - 1).max(1));
        let z = 4.753; // the 1 - 1e-6 normal quantile
        let bound = k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3);
        assert!(
            chi2 < bound,
            "number {i}: chi-square {chi2:.1} over {dof} bins exceeds {bound:.1}"
        );
    }
}

fn both_paths(plan: &Value, trials: u64) {
    let p = program(plan);
    assert!(
        Runner::new(&p, Path::Auto).is_sampled(),
        "this plan should take the fast path"
    );
    let fast = simulate(
        &p,
        RunOptions {
            trials,
            seed: 21,
            threads: 2,
            path: Path::Auto,
        },
        |_, _| Ok(()),
    )
    .unwrap();
    let slow = simulate(
        &p,
        RunOptions {
            trials,
            seed: 22,
            threads: 2,
            path: Path::DieByDie,
        },
        |_, _| Ok(()),
    )
    .unwrap();
    assert_same_distribution(&fast, &slow);
}

#[test]
fn whole_trials_drawn_at_once_match_die_by_die() {
    // Fixed attacks, saves alike, fixed damage and fixed mortal wounds after
    // every attack: the counts decide the trial, so one draw makes it.
    let mut plan = boltguns();
    plan["counters"] = json!(["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"]);
    let pool = &mut plan["sequences"][0];
    pool["damage"]["dice"] = json!("2");
    pool["mortal_counter"] = json!("mortal_wounds");
    pool["steps"][1]["effects"] = json!([
        {"on": "critical", "action": "mortal", "spill": true, "ends_attack": true, "after_all": true}]);
    let p = program(&plan);
    assert!(Runner::new(&p, Path::Auto).draws_whole_trials());
    both_paths(&plan, 200_000);
    assert!(Runner::new(&program(&boltguns()), Path::Auto).draws_whole_trials());
}

/// S2 of the benchmarks: Sustained Hits 1, Lethal Hits, Devastating Wounds
/// (spilling, after every attack) and damage 2.
fn sustained_lethal_devastating() -> Value {
    let mut plan = boltguns();
    plan["counters"] = json!(["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"]);
    let pool = &mut plan["sequences"][0];
    pool["damage"]["dice"] = json!("2");
    pool["mortal_counter"] = json!("mortal_wounds");
    pool["steps"][0]["effects"] = json!([
        {"on": "critical", "action": "extra", "amount": "1"},
        {"on": "critical", "action": "skip", "steps": 1}]);
    pool["steps"][1]["effects"] = json!([
        {"on": "critical", "action": "mortal", "spill": true, "ends_attack": true, "after_all": true, "reduced": true}]);
    plan
}

#[test]
fn resolutions_looked_up_give_the_same_numbers_as_running_them() {
    // Too many outcomes for a whole-trial table, but nothing after the save
    // rolls dice: the draws are the fast path's and the rest is looked up,
    // so one seed gives the very same histograms either way.
    let p = program(&sustained_lethal_devastating());
    let runner = Runner::new(&p, Path::Auto);
    assert!(runner.looks_resolutions_up() && !runner.draws_whole_trials());
    let options = |path| RunOptions {
        trials: 100_000,
        seed: 8,
        threads: 2,
        path,
    };
    let looked_up = simulate(&p, options(Path::Auto), |_, _| Ok(())).unwrap();
    let per_trial = simulate(&p, options(Path::PerTrial), |_, _| Ok(())).unwrap();
    assert_eq!(looked_up.hist, per_trial.hist);
    both_paths(&sustained_lethal_devastating(), 200_000);
}

#[test]
fn trials_that_roll_after_the_save_are_not_drawn_whole() {
    // Random damage, or Feel No Pain, rolls dice the counts do not decide.
    let mut random = boltguns();
    random["sequences"][0]["damage"]["dice"] = json!("D3");
    let mut fnp = boltguns();
    fnp["target"]["groups"][0]["feel_no_pain"] = json!(5);
    for plan in [&random, &fnp] {
        let p = program(plan);
        let runner = Runner::new(&p, Path::Auto);
        assert!(runner.is_sampled() && !runner.draws_whole_trials());
        both_paths(plan, 100_000);
    }
}

#[test]
fn random_damage_is_drawn_from_its_exact_distribution_given_the_failed_saves() {
    // S3 of the benchmarks: D6 damage into three 12-wound models, and the
    // same with D3+1 into models that reduce damage by one and halve it.
    let mut knights = boltguns();
    knights["target"]["groups"] =
        json!([{"name": "Knight", "models": 3, "wounds": 12, "save": 2, "invulnerable": 4}]);
    let pool = &mut knights["sequences"][0];
    pool["attacks"] = json!([{"models": 10, "dice": "1"}]);
    pool["steps"][1]["target"] = json!(5);
    pool["save"]["ap"] = json!(-2);
    pool["damage"]["dice"] = json!("D6");
    let mut tough = knights.clone();
    tough["sequences"][0]["damage"]["dice"] = json!("D3+1");
    tough["target"]["groups"][0]["damage_reduction"] = json!(1);
    tough["target"]["groups"][0]["damage_divisor"] = json!(2);
    tough["target"]["groups"][0]["wounds"] = json!(3);
    for plan in [&knights, &tough] {
        let p = program(plan);
        assert!(Runner::new(&p, Path::Auto).looks_resolutions_up());
        both_paths(plan, 200_000);
    }
}

#[test]
fn fast_path_matches_die_by_die_on_the_benchmark() {
    both_paths(&boltguns(), 200_000);
}

#[test]
fn fast_path_matches_die_by_die_with_effects_rerolls_and_mixed_groups() {
    let mut plan = boltguns();
    plan["target"] = json!({"groups": [
        {"name": "Geminae", "models": 2, "wounds": 1, "save": 2, "invulnerable": 4},
        {"name": "Seraphim", "models": 5, "wounds": 1, "save": 3, "feel_no_pain": 5},
        {"name": "Celestine", "models": 1, "wounds": 5, "save": 2, "invulnerable": 4, "tier": 1, "feel_no_pain_mortal": 4}],
        "order": [0, 1, 2], "wounded_groups_first": true});
    plan["counters"] = json!(["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"]);
    let pool = &mut plan["sequences"][0];
    pool["attacks"][0]["dice"] = json!("D3");
    pool["attacks"][0]["models"] = json!(4);
    pool["steps"][0]["reroll"] = json!("ones");
    pool["steps"][0]["effects"] = json!([{"on": "critical", "action": "extra", "amount": "D3"}]);
    pool["steps"][1]["effects"] =
        json!([{"on": "critical", "action": "mortal", "spill": false, "ends_attack": true}]);
    pool["steps"][1]["reroll"] = json!("failures");
    pool["damage"]["dice"] = json!("D3");
    pool["mortal_counter"] = json!("mortal_wounds");
    plan["sequences"].as_array_mut().unwrap().push(json!({"kind": "mortal_wounds", "name": "Ability", "amount": "D3", "counter": "mortal_wounds"}));
    both_paths(&plan, 200_000);
}

#[test]
fn pools_too_large_for_tables_draw_the_rest_as_a_multinomial() {
    let mut plan = boltguns();
    plan["sequences"][0]["attacks"][0]["dice"] = json!("2D6");
    plan["sequences"][0]["steps"][0]["effects"] =
        json!([{"on": "critical", "action": "extra", "amount": "D6"}]);
    let p = program(&plan);
    assert!(Runner::new(&p, Path::Auto).is_sampled());
    let t = run(&p, 20_000, 1);
    // Hits: 10 models x 2D6 = 70 attacks on average, each hitting on 3+ and
    // adding D6 (3.5) more hits on a 6.
    assert_mean(&t, 1, 70.0 * (4.0 / 6.0 + 3.5 / 6.0));
    both_paths(&plan, 20_000);
}

#[test]
fn a_thousand_attacks_take_the_fast_path_and_match_die_by_die() {
    // 500 models x 2 attacks into 100 models of one wound: far past the
    // tables' budget, so the fast path draws counts, not dice.
    let mut plan = boltguns();
    plan["sequences"][0]["attacks"][0]["models"] = json!(500);
    plan["target"]["groups"][0]["models"] = json!(100);
    plan["target"]["groups"][0]["wounds"] = json!(1);
    let p = program(&plan);
    let t = run(&p, 20_000, 3);
    assert_mean(&t, 1, 1000.0 * 4.0 / 6.0);
    assert_mean(&t, 2, 1000.0 * 4.0 / 6.0 * 3.0 / 6.0);
    assert_mean(&t, 3, 1000.0 * 4.0 / 6.0 * 3.0 / 6.0 * 3.0 / 6.0);
    both_paths(&plan, 20_000);
}

#[test]
fn fast_path_matches_die_by_die_with_fixed_damage_through_several_groups() {
    // Every group saves on the same faces, so failures are binomial and fixed
    // damage is applied in bulk, except to the group with Feel No Pain.
    let mut plan = boltguns();
    plan["target"] = json!({"groups": [
        {"name": "Troopers", "models": 3, "wounds": 3, "save": 3},
        {"name": "Medics", "models": 2, "wounds": 2, "save": 3, "feel_no_pain": 5},
        {"name": "Leader", "models": 1, "wounds": 4, "save": 3, "tier": 1}],
        "order": [0, 1, 2], "wounded_groups_first": true});
    plan["sequences"][0]["damage"]["dice"] = json!("2");
    plan["sequences"][0]["save"]["ap"] = json!(-2);
    both_paths(&plan, 200_000);
}

#[test]
fn plans_whose_numbers_could_explode_are_refused_up_front() {
    // 10,000 attack dice each inflicting up to 100D1000 mortal wounds.
    let mut plan = boltguns();
    plan["counters"] = json!(["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"]);
    plan["sequences"][0]["attacks"][0]["models"] = json!(5000);
    plan["sequences"][0]["mortal_counter"] = json!("mortal_wounds");
    plan["sequences"][0]["steps"][1]["effects"] =
        json!([{"on": "success", "action": "mortal", "amount": "100D1000"}]);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(
        e.contains("mortal_wounds in one trial; at most 1000000"),
        "{e}"
    );
    // A target with more wounds than a histogram may hold.
    let mut plan = boltguns();
    plan["target"]["groups"][0]["wounds"] = json!(1000);
    plan["target"]["groups"][0]["models"] = json!(5000);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("5000000 wounds in all"), "{e}");
    // Dice with absurd sides, and modifiers that would overflow.
    let mut plan = boltguns();
    plan["sequences"][0]["save"]["die"] = json!(2_147_483_648u64);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("save.die"), "{e}");
    let mut plan = boltguns();
    plan["sequences"][0]["steps"][0]["modifiers"] = json!([2_147_483_647, 2_147_483_647]);
    let e = Plan::from_json(&plan.to_string()).unwrap_err().to_string();
    assert!(e.contains("steps[0].modifiers[0]"), "{e}");
}

#[test]
fn automatic_tests_run_their_success_effects_on_both_paths() {
    let mut plan = boltguns();
    plan["sequences"][0]["steps"][0] = json!({"name": "hit", "automatic": true, "counter": "hits",
        "effects": [{"on": "success", "action": "extra", "amount": "1"}]});
    let p = program(&plan);
    for path in [Path::Auto, Path::DieByDie] {
        let t = simulate(
            &p,
            RunOptions {
                trials: 5_000,
                seed: 1,
                threads: 1,
                path,
            },
            |_, _| Ok(()),
        )
        .unwrap();
        assert_eq!(t.hist[1].len(), 41, "{path:?}");
        assert_eq!(
            t.hist[1][40], 5_000,
            "every attack hits and adds one hit on {path:?}"
        );
    }
}

fn unsaveable_target() -> Value {
    json!({"groups": [
        {"name": "Troopers", "models": 4, "wounds": 2},
        {"name": "Hero", "models": 1, "wounds": 4, "tier": 1}],
        "order": [0, 1], "wounded_groups_first": true})
}

fn one_gun(damage: &str) -> Value {
    json!({"kind": "attack", "name": "Gun", "attacks": [{"models": 2, "dice": "1"}],
        "steps": [{"name": "wound", "target": 4, "critical": 6, "counter": "wounds"}],
        "save": {"counter": "failed_saves"}, "damage": {"dice": damage}, "mortal_counter": "mortal_wounds"})
}

fn plan_with(target: &Value, sequences: &Value) -> Value {
    json!({"version": 1, "counters": ["wounds", "failed_saves", "mortal_wounds"], "target": target, "sequences": sequences})
}

#[test]
fn group_damage_modifiers_halve_then_subtract_never_below_one() {
    let mut target = unsaveable_target();
    target["groups"][0]["damage_divisor"] = json!(2);
    target["groups"][0]["wounds"] = json!(3);
    // Damage 5 halved (rounded up) is 3: each unsaved attack destroys a W3 model.
    let (out, _, _) = replay(
        &program(&plan_with(&target, &json!([one_gun("5")]))),
        vec![4, 4, 1, 1],
    )
    .unwrap();
    assert_eq!((out.damage, out.destroyed), (6, 2));
    // Damage 1 reduced by 1 stays 1.
    target["groups"][0]["damage_divisor"] = json!(1);
    target["groups"][0]["damage_reduction"] = json!(1);
    let (out, _, _) = replay(
        &program(&plan_with(&target, &json!([one_gun("1")]))),
        vec![4, 4, 1, 1],
    )
    .unwrap();
    assert_eq!((out.damage, out.destroyed), (2, 0));
}

#[test]
fn unsaved_and_mortal_effects_can_wait_for_every_other_attack() {
    // Gun 1's criticals skip the save and hit after gun 2 has been resolved.
    let mut first = one_gun("2");
    first["steps"][0]["effects"] =
        json!([{"on": "critical", "action": "unsaved", "after_all": true}]);
    let plan = plan_with(&unsaveable_target(), &json!([first, one_gun("1")]));
    // Gun 1: wound rolls 6 (critical, deferred) and 4 (save roll 1 fails);
    // gun 2: wound rolls 5 and 1, save roll 1.
    let (out, events, used) = replay(&program(&plan), vec![6, 4, 1, 5, 1, 1]).unwrap();
    assert_eq!(used, 6);
    let damage: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Event::Damage { amount, .. } => Some(*amount),
            _ => None,
        })
        .collect();
    assert_eq!(
        damage,
        vec![2, 1, 2],
        "gun 1's save, gun 2's save, then the deferred critical"
    );
    assert_eq!(
        out.counters,
        vec![3, 2, 0],
        "the critical wound is a wound, not a failed save"
    );
    assert_eq!(
        (out.damage, out.destroyed),
        (4, 2),
        "the deferred 2 finishes a wounded model: 1 is lost"
    );
}

#[test]
fn a_focus_group_is_current_until_destroyed_and_takes_the_pools_mortal_wounds() {
    let mut gun = one_gun("3");
    gun["focus"] = json!([1]);
    gun["attacks"] = json!([{"models": 3, "dice": "1"}]);
    gun["steps"][0]["effects"] =
        json!([{"on": "critical", "action": "mortal", "amount": "1", "spill": false}]);
    let plan = plan_with(&unsaveable_target(), &json!([gun]));
    // Three wounds (6 critical, 4, 5); three failed saves of D3 each: 3 to the
    // Hero (W4), 1 more destroys him, the last goes to the Troopers; then the
    // critical's mortal wound goes to the Troopers (the Hero is gone).
    let (out, events, _) = replay(&program(&plan), vec![6, 4, 5, 1, 1, 1]).unwrap();
    let destroyed: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::ModelDestroyed { group, .. } => Some(*group),
            _ => None,
        })
        .collect();
    assert_eq!(destroyed, vec![1, 0]);
    assert_eq!(out.damage, 4 + 2 + 1);
}

#[test]
fn save_modifiers_per_group_and_their_cap() {
    let target = json!({"groups": [
        {"name": "In cover", "models": 5, "wounds": 1, "save": 4},
        {"name": "In the open", "models": 5, "wounds": 1, "save": 4}], "order": [0, 1]});
    let mut gun = one_gun("1");
    gun["attacks"] = json!([{"models": 10, "dice": "1"}]);
    gun["steps"] = json!([]);
    gun["save"]["group_modifiers"] = json!([1, 0]);
    gun["save"]["modifiers"] = json!([1]);
    gun["save"]["modifier_max"] = json!(1);
    let plan = plan_with(&target, &json!([gun]));
    // Rolls 2 and 3 against group 0 (4+ with +1, capped at +1: saves on 3+),
    // then group 1 (4+ with +1: saves on 3+ too, the cap does not bite).
    let (out, events, _) = replay(&program(&plan), vec![2, 3, 2, 2, 2, 2, 3, 3, 3, 3]).unwrap();
    let saved: Vec<(u32, bool)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Save { roll, saved, .. } => Some((*roll, *saved)),
            _ => None,
        })
        .collect();
    assert_eq!(saved.iter().filter(|s| s.1).count(), 5, "{saved:?}");
    assert_eq!(out.counters[1], 5);
}

#[test]
fn fast_path_matches_die_by_die_with_focus_deferred_and_modified_damage() {
    let mut target = unsaveable_target();
    target["groups"][0]["damage_divisor"] = json!(2);
    target["groups"][1]["damage_reduction"] = json!(1);
    target["groups"][1]["feel_no_pain"] = json!(5);
    target["groups"][0]["save"] = json!(4);
    let mut first = one_gun("D6");
    first["focus"] = json!([1]);
    first["attacks"] = json!([{"models": 6, "dice": "1"}]);
    first["steps"][0]["effects"] = json!([{"on": "critical", "action": "mortal", "spill": false, "ends_attack": true, "reduced": true, "after_all": true}]);
    let mut second = one_gun("2");
    second["steps"][0]["effects"] = json!([{"on": "critical", "action": "unsaved"}]);
    both_paths(&plan_with(&target, &json!([first, second])), 200_000);
}

#[test]
fn hazard_rolls_hurt_the_attackers_own_models_or_are_only_counted() {
    let mut plan = plan_with(
        &unsaveable_target(),
        &json!([one_gun("1"),
        {"kind": "mortal_wounds", "name": "Hazardous", "amount": "3", "counter": "mortal_wounds",
         "rolls": {"count": 2, "fail_at_most": 1}, "against": "attacker", "spill": false}]),
    );
    // Without the attacker's models the mortal wounds are only counted.
    let (out, _, used) = replay(&program(&plan), vec![1, 1, 1, 4]).unwrap();
    assert_eq!((out.counters[2], out.attacker, used), (3, None, 4));
    assert_eq!(
        &program(&plan).numbers()[3..],
        [
            "damage",
            "models_destroyed",
            "destroyed:Troopers",
            "destroyed:Hero",
            "damage:Gun",
            "mortal_wounds:Gun"
        ]
    );
    // With them, the 3 mortal wounds stop at the one model they start on.
    plan["attacker"] =
        json!({"groups": [{"name": "Gunner", "models": 2, "wounds": 2}], "order": [0]});
    let p = program(&plan);
    assert_eq!(
        &p.numbers()[5..],
        [
            "attacker_damage",
            "attacker_models_destroyed",
            "destroyed:Troopers",
            "destroyed:Hero",
            "damage:Gun",
            "mortal_wounds:Gun"
        ]
    );
    let (out, events, _) = replay(&p, vec![1, 1, 1, 4]).unwrap();
    assert_eq!(out.attacker, Some((2, 1)));
    assert_eq!(
        (out.damage, out.destroyed),
        (0, 0),
        "the gun's wounds rolled 1: nothing hit the target"
    );
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ModelDestroyed {
            side: mathhammer_core::plan::Side::Attacker,
            ..
        }
    )));
    // The histograms carry the attacker's numbers too, on both paths.
    plan["sequences"][0]["steps"] = json!([]);
    both_paths(&plan, 100_000);
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
