//! Die by die, unwatched trials count a test's outcomes instead of routing
//! its tokens one by one (only the passes, when no test does anything
//! else), apply a face of failed saves of fixed damage at once, and deal
//! damage that costs what it rolls without the general damage steps
//! (`pool_tests.rs`, `executor.rs`). Watched trials (with a
//! recorder, as replays are) still go token by token and die by die. Both
//! draw the same dice in the same order, so from one stream they must give
//! the very same trials: that is what these tests hold, on the Plans the
//! rulesets compile for the examples and on Plans written to reach every
//! branch.

mod common;

use common::program;
use mathhammer_core::trace::{NoTrace, Recorder};
use mathhammer_core::workspace::outcome;
use mathhammer_core::{run_trial, Program, Stream, Workspace};
use serde_json::{json, Value};

/// Plans the rulesets compile for the example scenarios and profile
/// libraries (written by the Python layer; none has a batch hook).
const EXAMPLES: &str = include_str!("data/example-plans.jsonl");

/// Run `trials` trials of `program` twice from the same stream, unwatched and
/// watched, and require every trial's outcome to match.
fn same_trials(program: &Program, trials: usize, seed: u64, what: &str) {
    let mut quiet = Workspace::new(program);
    let mut watched = Workspace::new(program);
    let mut a = Stream::new(seed, 0);
    let mut b = Stream::new(seed, 0);
    let mut recorder = Recorder::default();
    for trial in 0..trials {
        run_trial(program, &mut quiet, &mut a, &mut NoTrace);
        recorder.events.clear();
        run_trial(program, &mut watched, &mut b, &mut recorder);
        assert_eq!(
            outcome(&quiet),
            outcome(&watched),
            "{what}: trial {trial} differs between counted and token-by-token dice"
        );
    }
    // The streams were used alike: their next words agree.
    assert_eq!(a.next_u64(), b.next_u64(), "{what}: the dice drawn differ");
}

#[test]
fn example_plans_give_the_same_trials_counted_or_token_by_token() {
    let mut plans = 0;
    for (i, line) in EXAMPLES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
    {
        let plan: Value = serde_json::from_str(line).expect("a plan per line");
        same_trials(
            &program(&plan),
            3_000,
            7 + i as u64,
            &format!("example plan {i}"),
        );
        plans += 1;
    }
    assert!(plans >= 20, "only {plans} example plans");
}

/// A pool exercising every branch of the counted path: re-rolls of ones,
/// the unit's one re-roll, extra tokens, skips, a mortal-wound effect and
/// a count, against two groups that save on different faces (one with a
/// special save), with Feel No Pain on the second.
fn branchy(reroll: &str, reroll_one: bool, damage: &str, excess: &str) -> Value {
    json!({
        "version": 1,
        "counters": ["attacks", "hits", "wounds", "failed", "mortal", "sixes"],
        "target": {
            "groups": [
                {"name": "A", "models": 4, "wounds": 2, "save": 3},
                {"name": "B", "models": 3, "wounds": 3, "save": 5, "invulnerable": 5,
                 "feel_no_pain": 5}
            ],
            "order": [0, 1],
            "wounded_groups_first": true
        },
        "sequences": [{
            "kind": "attack", "name": "guns",
            "attacks": [{"models": 9, "dice": "2"}, {"models": 2, "dice": "D3"}],
            "attacks_counter": "attacks",
            "steps": [
                {"name": "hit", "target": 4, "natural_fail": 1, "critical": 6, "counter": "hits",
                 "reroll": reroll, "reroll_one": reroll_one,
                 "effects": [
                    {"on": "critical", "action": "extra", "amount": "1"},
                    {"on": "critical", "action": "count", "counter": "sixes"}
                 ]},
                {"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds",
                 "effects": [{"on": "critical", "action": "mortal", "spill": true, "ends_attack": true}]}
            ],
            "save": {"ap": -1, "counter": "failed"},
            "damage": {"dice": damage, "excess": excess},
            "mortal_counter": "mortal"
        }]
    })
}

#[test]
fn every_branch_gives_the_same_trials_counted_or_token_by_token() {
    for reroll in ["none", "ones", "failures"] {
        for reroll_one in [false, true] {
            for damage in ["1", "2", "D3"] {
                for excess in ["lost", "unit"] {
                    let plan = branchy(reroll, reroll_one, damage, excess);
                    let what = format!("{reroll} {reroll_one} {damage} {excess}");
                    same_trials(&program(&plan), 2_000, 3, &what);
                }
            }
        }
    }
}

#[test]
fn a_skip_and_a_held_mortal_wound_give_the_same_trials() {
    // Sustained-and-lethal-like: a critical hit makes an extra hit and skips
    // the wound roll; a critical wound is held until every attack is done.
    let mut plan = branchy("none", false, "2", "lost");
    plan["sequences"][0]["steps"][0]["effects"] = json!([
        {"on": "critical", "action": "extra", "amount": "1"},
        {"on": "critical", "action": "skip", "steps": 1}
    ]);
    plan["sequences"][0]["steps"][1]["effects"] = json!([
        {"on": "critical", "action": "mortal", "spill": true, "ends_attack": true, "after_all": true}
    ]);
    same_trials(&program(&plan), 5_000, 11, "skip and held mortal wounds");
}

#[test]
fn a_unit_destroyed_by_a_face_of_failed_saves_counts_later_faces_against_its_last_group() {
    // Few models, many attacks: the low faces every group fails destroy the
    // unit at once, and a 4 then saves for A but fails for B, the group the
    // last failed save went to, so the failed-save count depends on it.
    let mut plan = branchy("none", false, "2", "lost");
    plan["target"]["groups"][0]["models"] = 1.into();
    plan["target"]["groups"][1]["models"] = 1.into();
    plan["sequences"][0]["attacks"][0]["models"] = 30.into();
    same_trials(&program(&plan), 3_000, 5, "a unit destroyed by a face");
}

#[test]
fn a_one_group_target_gives_the_same_trials_counted_or_token_by_token() {
    // One group: the failed saves are counted as the dice fall (unless a
    // failed face is rolled again or a special save follows), and mortal
    // wounds without Feel No Pain spill as one count, the same ones held
    // until every attack all at once; random damage is dealt attack by
    // attack without the general damage steps.
    for save_reroll in ["none", "ones", "failures"] {
        for (damage, reroll_one) in [("1", false), ("2", false), ("D3", false), ("D3", true)] {
            for fnp in [
                None,
                Some(("feel_no_pain_mortal", 5)),
                Some(("feel_no_pain", 6)),
            ] {
                for special in [None, Some(json!({"target": 6}))] {
                    let mut plan = branchy("none", false, damage, "lost");
                    let mut group = json!({"name": "A", "models": 5, "wounds": 3, "save": 4,
                                           "invulnerable": 5});
                    if let Some((field, f)) = fnp {
                        group[field] = f.into();
                        // Damage reduced by one, to no less than one, as well.
                        group["damage_reduction"] = 1.into();
                        group["reduction_floor"] = 1.into();
                    }
                    plan["target"]["groups"] = json!([group]);
                    plan["target"]["order"] = json!([0]);
                    let pool = &mut plan["sequences"][0];
                    pool["save"]["reroll"] = save_reroll.into();
                    pool["save"]["special"] = json!([special]);
                    pool["damage"]["reroll_one"] = reroll_one.into();
                    // Held until every attack (several the same landing at once) but for D1.
                    pool["steps"][1]["effects"][0]["after_all"] = (damage != "1").into();
                    let what = format!(
                        "one group: {save_reroll} {damage} {reroll_one} {fnp:?} {special:?}"
                    );
                    same_trials(&program(&plan), 2_000, 13, &what);
                }
            }
        }
    }
}

#[test]
fn plain_tests_and_damage_as_rolled_give_the_same_trials() {
    // Tests that only pass tokens on (their passes alone are counted) on
    // dice of several sizes, then random damage costing what it rolls,
    // against one group and against two; with Feel No Pain, a damage
    // modifier, a cap or a re-roll of the damage the general steps apply.
    for (die, hit, wound) in [(6, 3, 5), (6, 2, 6), (12, 7, 4), (3, 2, 2)] {
        for damage in ["D6", "D3+1", "2D6", "D6-2"] {
            for group in [
                json!({"name": "A", "models": 3, "wounds": 12, "save": 2, "invulnerable": 4}),
                json!({"name": "A", "models": 4, "wounds": 3, "save": 4, "feel_no_pain": 5}),
                json!({"name": "A", "models": 4, "wounds": 3, "save": 4, "damage_reduction": 1,
                       "reduction_floor": 1}),
            ] {
                for (groups, cap, reroll_one) in [
                    (1, false, false),
                    (1, true, false),
                    (1, false, true),
                    (2, false, false),
                ] {
                    let second = json!({"name": "B", "models": 2, "wounds": 5, "save": 5});
                    let (groups_json, order) = if groups == 1 {
                        (json!([group]), json!([0]))
                    } else {
                        (json!([group, second]), json!([0, 1]))
                    };
                    let plan = json!({
                        "version": 1,
                        "counters": ["attacks", "hits", "wounds", "failed"],
                        "target": {"groups": groups_json, "order": order},
                        "sequences": [{
                            "kind": "attack", "name": "guns",
                            "attacks": [{"models": 10, "dice": "1"}],
                            "attacks_counter": "attacks",
                            "steps": [
                                {"name": "hit", "die": die, "target": hit, "counter": "hits"},
                                {"name": "wound", "die": die, "target": wound, "critical": die,
                                 "counter": "wounds"}
                            ],
                            "save": {"ap": -1, "counter": "failed"},
                            "damage": {"dice": damage, "minimum": 1, "cap_at_wounds": cap,
                                       "reroll_one": reroll_one}
                        }]
                    });
                    let what = format!(
                        "d{die} {hit}+ {wound}+, {damage} into {groups} groups \
                                        like {group}, cap {cap}, damage re-roll {reroll_one}"
                    );
                    same_trials(&program(&plan), 2_000, 17, &what);
                }
            }
        }
    }
}
