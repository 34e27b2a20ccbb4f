//! Every way Monte Carlo can run a trial, each held to the exact evaluator.
//!
//! `docs/architecture.md` ("Which tests hold each path") lists the paths and
//! the tests that hold each one. This file holds the ones no other test held
//! to the exact evaluator directly, and the ones held there only by their
//! means: each test runs a Plan that provably takes its path (asserted where
//! the core says which path a runner takes, and argued from the Plan where
//! the choice is internal), and requires every probability of every number
//! to lie within five standard errors of the exact one, at a fixed seed.
//! The last test holds `why_die_by_die` to the reason each Plan it builds
//! leaves the fast path for.

mod common;

use common::program;
use mathhammer_core::batch::{Batch, BatchHooks};
use mathhammer_core::exact::evaluate;
use mathhammer_core::montecarlo::{why_die_by_die, Tally};
use mathhammer_core::{simulate, CoreError, Path, Program, RunOptions, Runner};
use serde_json::{json, Value};
use std::sync::Arc;

/// One pool of `models` models with `dice` attacks each: hits on 3+, wounds
/// on 4+ (criticals on 6 for both), AP-1, `damage` damage, into `groups`.
fn pool_plan(models: u32, dice: &str, damage: &str, groups: &Value) -> Value {
    let order: Vec<usize> = (0..groups.as_array().map_or(0, Vec::len)).collect();
    json!({
        "version": 1,
        "counters": ["attacks", "hits", "wounds", "failed_saves", "mortal_wounds"],
        "target": {"groups": groups, "order": order, "wounded_groups_first": true},
        "sequences": [{
            "kind": "attack", "name": "Rifle",
            "attacks": [{"models": models, "dice": dice}], "attacks_counter": "attacks",
            "steps": [
                {"name": "hit", "target": 3, "natural_fail": 1, "critical": 6, "counter": "hits"},
                {"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds"}
            ],
            "save": {"ap": -1, "counter": "failed_saves"},
            "damage": {"dice": damage}, "mortal_counter": "mortal_wounds"
        }]
    })
}

/// `models` models of `wounds` wounds saving on `save`+.
fn troops(models: u32, wounds: u32, save: u32) -> Value {
    json!([{"name": "Troops", "models": models, "wounds": wounds, "save": save}])
}

/// Troops saving on 3+ in front of a Leader saving on 5+: their saves fail
/// on different faces, so no binomial draws the failed saves.
fn troops_and_leader(models: u32) -> Value {
    json!([
        {"name": "Troops", "models": models, "wounds": 2, "save": 3},
        {"name": "Leader", "models": 1, "wounds": 4, "save": 5, "tier": 1}
    ])
}

/// Sustained Hits 1 and Devastating Wounds (mortal wounds that spill,
/// ending the attack) on the pool of `plan`.
fn with_criticals(mut plan: Value) -> Value {
    let pool = &mut plan["sequences"][0];
    pool["steps"][0]["effects"] = json!([{"on": "critical", "action": "extra", "amount": "1"}]);
    pool["steps"][1]["effects"] =
        json!([{"on": "critical", "action": "mortal", "spill": true, "ends_attack": true}]);
    plan
}

/// Run `trials` trials of `program` on `path` and hold every number to the
/// exact evaluation of `exact_of` (the same Plan, or one its numbers match):
/// every probability within five standard errors (plus one trial's share, a
/// continuity correction for values so rare that a single trial showing one
/// is far outside the normal approximation), and a number known exactly
/// only by its mean (a sequence's share of the harm) within five standard
/// errors of that mean. Numbers `exact_of` lacks are left to the caller.
/// Returns the simulated tally.
fn held_to_exact_on(
    program: &Program,
    exact_of: &Program,
    path: Path,
    trials: u64,
    seed: u64,
) -> Tally {
    let exact = evaluate(exact_of).expect("the exact evaluator takes the Plan");
    let exact_names = exact_of.numbers();
    let mc = run(program, path, trials, seed);
    let count = trials as f64;
    for (i, name) in program.numbers().iter().enumerate() {
        let Some(e) = exact_names.iter().position(|x| x == name) else {
            continue;
        };
        let pmf = &exact.pmfs[e];
        if let Some(m) = exact.means[e] {
            let se = mc.sd(i) / count.sqrt();
            assert!(
                (mc.mean(i) - m).abs() < 5.0 * se + 1e-9,
                "{name} on {path:?}: exact mean {m} vs simulated {} (se {se})",
                mc.mean(i)
            );
            continue;
        }
        assert!(
            mc.hist[i].len() <= pmf.len(),
            "{name} on {path:?}: simulated {} values, the exact evaluator allows {}",
            mc.hist[i].len(),
            pmf.len()
        );
        for (v, &want) in pmf.iter().enumerate() {
            let share = mc.hist[i].get(v).copied().unwrap_or(0) as f64 / count;
            let se = (want * (1.0 - want) / count).sqrt();
            assert!(
                (share - want).abs() < 5.0 * se + 1.0 / count + 1e-12,
                "{name} = {v} on {path:?}: exact {want} vs simulated {share}"
            );
        }
    }
    mc
}

fn held_to_exact(plan: &Value, path: Path, trials: u64) {
    let p = program(plan);
    held_to_exact_on(&p, &p, path, trials, 23);
}

fn run(program: &Program, path: Path, trials: u64, seed: u64) -> Tally {
    simulate(
        program,
        RunOptions {
            trials,
            seed,
            threads: 2,
            path,
        },
        |_, _| Ok(()),
    )
    .expect("the run succeeds")
}

/// Which fast-path shortcut `plan` takes on `Path::Auto`: (fast path at all,
/// whole trials drawn, resolutions looked up).
fn route(plan: &Value) -> (bool, bool, bool, bool) {
    let p = program(plan);
    let r = Runner::new(&p, Path::Auto);
    (
        r.is_sampled(),
        r.draws_whole_trials(),
        r.looks_resolutions_up(),
        r.chains_pools(),
    )
}

const PER_TRIAL: (bool, bool, bool, bool) = (true, false, false, false);

#[test]
fn whole_trials_in_one_draw() {
    let plan = pool_plan(6, "2", "1", &troops(5, 2, 4));
    // (The lookup it is built from is there too; whole trials come first.)
    assert_eq!(route(&plan), (true, true, true, false));
    held_to_exact(&plan, Path::Auto, 300_000);
}

#[test]
fn per_trial_draws_with_binomial_failed_saves_applied_at_once() {
    // The same Plan one trial at a time: the counts from the tables, the
    // failed saves from their binomial table, and fixed damage applied in
    // one step (`apply_fixed`).
    let plan = pool_plan(6, "2", "1", &troops(5, 2, 4));
    held_to_exact(&plan, Path::PerTrial, 200_000);
}

#[test]
fn looked_up_fixed_resolution_with_a_random_number_of_attack_dice() {
    // D6 attacks a model: no fixed number of attack dice, so no whole-trial
    // table and no reading ahead two words a trial; each trial draws its
    // dice, its counts and its failed saves, and its resolution (fixed
    // damage, Devastating Wounds' mortal wounds) is looked up.
    let plan = with_criticals(pool_plan(2, "D6", "2", &troops(10, 2, 3)));
    assert_eq!(route(&plan), (true, false, true, false));
    held_to_exact(&plan, Path::Auto, 300_000);
}

#[test]
fn looked_up_resolution_recorded_trial_by_trial() {
    // The wounds and the failed saves are counted in one counter, so the
    // looked-up rows add to a number the draws count: the chunk cannot
    // tally the draws apart from the rows and records every trial's row.
    // The exact evaluator declines a counter shared by two stages, so the
    // Plan is held to the same Plan with the counters apart: every other
    // number by its histogram, and the shared one by the sum of the means.
    let apart = with_criticals(pool_plan(2, "D6", "2", &troops(10, 2, 3)));
    let mut shared = apart.clone();
    shared["sequences"][0]["save"]["counter"] = json!("wounded");
    shared["sequences"][0]["steps"][1]["counter"] = json!("wounded");
    shared["counters"] = json!(["attacks", "hits", "wounded", "mortal_wounds"]);
    assert_eq!(route(&shared), (true, false, true, false));
    let apart = program(&apart);
    let shared = program(&shared);
    let mc = held_to_exact_on(&shared, &apart, Path::Auto, 300_000, 31);
    let exact = evaluate(&apart).expect("exact");
    let mean = |name: &str| {
        let i = apart.numbers().iter().position(|n| n == name).unwrap();
        exact.pmfs[i]
            .iter()
            .enumerate()
            .map(|(v, p)| v as f64 * p)
            .sum::<f64>()
    };
    let want = mean("wounds") + mean("failed_saves");
    let i = shared
        .numbers()
        .iter()
        .position(|n| n == "wounded")
        .unwrap();
    let se = mc.sd(i) / (mc.trials as f64).sqrt();
    assert!(
        (mc.mean(i) - want).abs() < 5.0 * se,
        "wounds and failed saves: exact mean {want} vs simulated {} (se {se})",
        mc.mean(i)
    );
}

#[test]
fn drawn_resolution_of_damage_dice_and_feel_no_pain() {
    // D3 damage into models with a 5+ Feel No Pain, from D6 attacks a model:
    // the resolution rolls dice on the failed saves only, so it is drawn
    // from its enumerated distribution given the wounds reaching the save.
    let groups =
        json!([{"name": "Troops", "models": 6, "wounds": 3, "save": 4, "feel_no_pain": 5}]);
    let plan = pool_plan(3, "D6", "D3", &groups);
    assert_eq!(route(&plan), (true, false, true, false));
    held_to_exact(&plan, Path::Auto, 300_000);
}

#[test]
fn two_pools_draw_trial_by_trial_with_damage_dice_one_failed_save_at_a_time() {
    // Two pools: no whole-trial table, no lookup (both are for one pool),
    // and no chain of lookups (the second pool's attack dice are rolled).
    // The second pool's D3 damage resolves one failed save at a time.
    let mut plan = pool_plan(5, "2", "1", &troops(8, 2, 4));
    let mut second = plan["sequences"][0].clone();
    second["name"] = json!("Launcher");
    second["attacks"] = json!([{"models": 1, "dice": "D3"}]);
    second["damage"]["dice"] = json!("D3");
    plan["sequences"].as_array_mut().unwrap().push(second);
    assert_eq!(route(&plan), PER_TRIAL);
    held_to_exact(&plan, Path::Auto, 300_000);
}

#[test]
fn save_dice_rolled_and_resolved_lowest_first() {
    // Saves that fail on different faces for the two groups: the fast path
    // draws the counts, then rolls the save dice and resolves them lowest
    // first, as die by die does.
    let plan = with_criticals(pool_plan(5, "2", "D3", &troops_and_leader(3)));
    assert_eq!(route(&plan), PER_TRIAL);
    held_to_exact(&plan, Path::Auto, 300_000);
}

#[test]
fn saves_in_turn_on_the_fast_path() {
    let mut plan = pool_plan(5, "2", "D3", &troops_and_leader(3));
    plan["sequences"][0]["save"]["in_turn"] = json!(true);
    assert_eq!(route(&plan), PER_TRIAL);
    held_to_exact(&plan, Path::Auto, 300_000);
}

/// 300 attack dice (150 with two groups to save): a plain pool's table for n dice has at
/// least one entry per (hits, wounds) pair, about n²/2, so its tables up to
/// N dice hold about N³/6 entries; the 2^16 allowed stop them near N = 73.
/// Past that the counts are drawn as a multinomial over one die's outcomes,
/// and (saves alike) the ~100 wounds reaching the save are past the failed saves'
/// binomial tables too (built for at most as many wounds as the counts'
/// tables hold, in what budget is left), so those are drawn by inversion.
fn past_the_tables(groups: &Value) -> Value {
    pool_plan(150, "2", "1", groups)
}

#[test]
fn counts_past_the_tables_drawn_as_multinomials_with_binomial_failed_saves() {
    let plan = past_the_tables(&troops(60, 2, 3));
    // One pool with fixed damage, yet no lookup: its tables do not reach
    // the pool's 300 dice.
    assert_eq!(route(&plan), PER_TRIAL);
    held_to_exact(&plan, Path::Auto, 100_000);
}

#[test]
fn one_die_rerolls_past_the_tables_drawn_in_runs() {
    // The unit's one hit re-roll ties the dice together (it goes to the
    // first that fails); past the tables (72 dice of these 120, and 20 of
    // the 40 below) they are drawn in runs between the dice that use one.
    let one_hit = |models: u32| {
        let mut plan = pool_plan(models, "2", "1", &troops(60, 2, 3));
        plan["sequences"][0]["steps"][0]["reroll_one"] = json!(true);
        plan
    };
    assert_eq!(route(&one_hit(60)), PER_TRIAL);
    held_to_exact(&one_hit(60), Path::Auto, 100_000);
    // A re-roll seldom spent (hits on 6+, wounds on 2+: one die in 36 can
    // use it), so a run often lasts to the last die.
    let mut seldom = pool_plan(150, "2", "1", &troops(60, 2, 3));
    seldom["sequences"][0]["steps"][0]["target"] = json!(6);
    seldom["sequences"][0]["steps"][1]["target"] = json!(2);
    seldom["sequences"][0]["steps"][1]["reroll_one"] = json!(true);
    assert_eq!(route(&seldom), PER_TRIAL);
    held_to_exact(&seldom, Path::Auto, 100_000);
    // With the one wound re-roll, Sustained Hits and Devastating Wounds too.
    let mut both = with_criticals(one_hit(20));
    both["sequences"][0]["steps"][1]["reroll_one"] = json!(true);
    assert_eq!(route(&both), PER_TRIAL);
    held_to_exact(&both, Path::Auto, 100_000);
}

#[test]
fn the_state_after_failed_saves_drawn_in_one_draw_past_the_lookups() {
    // D3 damage from 150 dice, past the tables: no lookup, and each failed
    // save rolled its damage in turn; the target's state after the failed
    // saves is drawn instead, with Feel No Pain too.
    let mut plan = past_the_tables(&troops(20, 2, 3));
    plan["sequences"][0]["damage"] = json!({"dice": "D3"});
    let mut fnp = plan.clone();
    fnp["target"]["groups"][0]["feel_no_pain"] = json!(5);
    for plan in [plan, fnp] {
        let p = program(&plan);
        assert!(Runner::new(&p, Path::Auto).draws_failed_states());
        assert!(!Runner::new(&p, Path::PerTrial).draws_failed_states());
        held_to_exact(&plan, Path::Auto, 100_000);
    }
}

#[test]
fn counts_past_the_tables_with_save_dice_rolled_lowest_first() {
    // Half the dice: the exact evaluator's work grows with the two groups.
    let plan = pool_plan(75, "2", "1", &troops_and_leader(20));
    assert_eq!(route(&plan), PER_TRIAL);
    held_to_exact(&plan, Path::Auto, 100_000);
}

#[test]
fn die_by_die_with_every_test_counted_a_face_at_a_time() {
    // Fixed extra hits and at most one harm action a test: die by die,
    // unwatched, counts each test's outcomes instead of routing each token.
    let plan = with_criticals(pool_plan(5, "2", "D3", &troops_and_leader(3)));
    held_to_exact(&plan, Path::DieByDie, 200_000);
}

#[test]
fn die_by_die_token_by_token() {
    // Sustained Hits D3: the hit test's routing rolls dice, so die by die
    // routes its tokens one by one even when nothing watches.
    let mut plan = with_criticals(pool_plan(5, "2", "2", &troops(6, 2, 3)));
    plan["sequences"][0]["steps"][0]["effects"] =
        json!([{"on": "critical", "action": "extra", "amount": "D3"}]);
    held_to_exact(&plan, Path::DieByDie, 200_000);
}

#[test]
fn a_plan_the_fast_path_leaves_to_die_by_die() {
    // Five tests: an outcome vector has no slots for them all, so `auto`
    // rolls every die, the very trials `Path::DieByDie` gives (held to the
    // exact evaluator above; it declines this Plan, as the tables do).
    let mut plan = pool_plan(3, "2", "1", &troops(6, 2, 3));
    let step = plan["sequences"][0]["steps"][1].clone();
    for k in 0..3 {
        let mut extra = step.clone();
        extra["name"] = json!(format!("more {k}"));
        extra["counter"] = json!(null);
        plan["sequences"][0]["steps"]
            .as_array_mut()
            .unwrap()
            .push(extra);
    }
    assert_eq!(route(&plan), (false, false, false, false));
    let p = program(&plan);
    assert_eq!(
        run(&p, Path::Auto, 50_000, 5),
        run(&p, Path::DieByDie, 50_000, 5)
    );
}

#[test]
fn the_one_damage_reroll_spent_as_the_failed_saves_resolve() {
    // The unit's one damage re-roll goes to the first damage roll below the
    // average: the fast path resolves the failed saves in the order die by
    // die does, one at a time, and no lookup holds whether it is spent.
    // The target's state after the failed saves, the re-roll's use in it,
    // is drawn in one draw (`failed_states.rs`).
    let mut plan = pool_plan(5, "2", "D3", &troops(6, 3, 4));
    plan["sequences"][0]["damage"]["reroll_one"] = json!(true);
    assert_eq!(route(&plan), PER_TRIAL);
    assert!(Runner::new(&program(&plan), Path::Auto).draws_failed_states());
    held_to_exact(&plan, Path::Auto, 200_000);
    // Past the tables, into a Leader saving apart (save dice lowest first,
    // so each failed save resolved in turn).
    let mut many = pool_plan(55, "2", "D3", &troops_and_leader(8));
    many["sequences"][0]["damage"]["reroll_one"] = json!(true);
    assert_eq!(route(&many), PER_TRIAL);
    held_to_exact(&many, Path::Auto, 100_000);
}

/// A batch hook doing what a mortal wound per critical wound does: the
/// hooked Plan is held to the exact evaluation of the Plan that says it
/// with data (the exact evaluator declines hooks).
#[derive(Debug)]
struct MortalPerCritical;

impl BatchHooks for MortalPerCritical {
    fn call(&self, _: usize, batch: &mut Batch) -> Result<(), CoreError> {
        let wound = batch
            .tests
            .iter()
            .position(|t| t == "wound")
            .expect("a wound test");
        batch.mortal_wounds.clone_from(&batch.criticals[wound]);
        Ok(())
    }
}

#[test]
fn hooked_plans_a_chunk_at_a_time() {
    let data = pool_plan(5, "2", "1", &troops(6, 2, 3));
    let mut with_effect = data.clone();
    with_effect["sequences"][0]["steps"][1]["effects"] =
        json!([{"on": "critical", "action": "mortal", "amount": "1"}]);
    let mut hooked = data;
    hooked["sequences"][0]["batch_hook"] = json!(0);
    let hooked = program(&hooked).with_hooks(Arc::new(MortalPerCritical));
    assert!(hooked.has_batch_hooks() && !Runner::new(&hooked, Path::Auto).is_sampled());
    held_to_exact_on(&hooked, &program(&with_effect), Path::Auto, 200_000, 29);
}

/// Why `auto` rolls every die of `plan`, as the core says it.
fn why(plan: &Value) -> Option<String> {
    why_die_by_die(&program(plan))
}

#[test]
fn the_reason_a_plan_runs_die_by_die_is_named() {
    let plain = pool_plan(5, "2", "1", &troops(6, 2, 3));
    assert_eq!(why(&plain), None);
    let mut damage = plain.clone();
    damage["sequences"][0]["damage"] = json!({"dice": "D3", "reroll_one": true});
    assert_eq!(why(&damage), None, "the one damage re-roll");
    let mut one_hit = past_the_tables(&troops(60, 2, 3));
    one_hit["sequences"][0]["steps"][0]["reroll_one"] = json!(true);
    assert_eq!(why(&one_hit), None, "a one-die re-roll past the tables");
    let mut tests = plain.clone();
    let step = tests["sequences"][0]["steps"][1].clone();
    for k in 0..3 {
        let mut extra = step.clone();
        extra["name"] = json!(format!("more {k}"));
        tests["sequences"][0]["steps"]
            .as_array_mut()
            .unwrap()
            .push(extra);
    }
    let mut mixed = plain.clone();
    mixed["sequences"][0]["steps"][0]["effects"] =
        json!([{"on": "critical", "action": "mortal", "amount": "1", "after_all": true}]);
    mixed["sequences"][0]["steps"][1]["effects"] =
        json!([{"on": "critical", "action": "mortal", "amount": "1"}]);
    for (plan, words) in [
        (tests, "it has 5 tests, and a table holds at most 4"),
        (mixed, "it mixes kinds of harm outside the save"),
    ] {
        let reason = why(&plan).expect("die by die");
        assert!(reason.contains(words), "{reason}");
        assert!(!Runner::new(&program(&plan), Path::Auto).is_sampled());
    }
    let mut hooked = plain;
    hooked["sequences"][0]["batch_hook"] = json!(0);
    let hooked = program(&hooked).with_hooks(Arc::new(MortalPerCritical));
    let reason = why_die_by_die(&hooked).expect("die by die");
    assert!(reason.contains("batch hook"), "{reason}");
}
