//! The fast path against die by die: the same Plans run both ways, every
//! number's distribution compared with a chi-square test, over whole trials
//! drawn at once, resolutions looked up or drawn, pools past the tables, and
//! effects, re-rolls, focus groups and damage modifiers; and those rules
//! pinned with scripted dice and closed forms.

mod common;

use common::{assert_mean, assert_same_distribution, boltguns, program, run};
use mathhammer_core::trace::Event;
use mathhammer_core::{replay, simulate, Path, Plan, RunOptions, Runner};
use serde_json::{json, Value};

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
