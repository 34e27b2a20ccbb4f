//! One die re-rolled once per pool (a hit, wound or damage roll granted to
//! the unit), against an enumeration of every die written here: the exact
//! evaluator to 1e-12, and Monte Carlo, die by die and on its fast path,
//! within five standard errors of every probability.

mod common;

use common::{number, program};
use mathhammer_core::exact::evaluate;
use mathhammer_core::{simulate, Path, RunOptions, Runner};
use serde_json::{json, Value};

/// The faces of one trial, read in order; `None` once a die is asked for
/// that the script does not hold yet (the enumeration then tries each of its
/// faces), with the sides of that die.
struct Script<'a> {
    faces: &'a [u32],
    at: usize,
    wanted: u32,
}

impl Script<'_> {
    fn roll(&mut self, sides: u32) -> Option<u32> {
        let face = self.faces.get(self.at).copied();
        if face.is_none() {
            self.wanted = sides;
        }
        self.at += 1;
        face
    }
}

/// Every script of faces a trial can read, each with its chance: the
/// distributions of the numbers `trial` returns (by position).
fn enumerate(trial: impl Fn(&mut Script<'_>) -> Option<Vec<u32>>) -> Vec<Vec<f64>> {
    let mut pmfs: Vec<Vec<f64>> = Vec::new();
    let mut stack: Vec<(Vec<u32>, f64)> = vec![(Vec::new(), 1.0)];
    while let Some((faces, chance)) = stack.pop() {
        let mut script = Script {
            faces: &faces,
            at: 0,
            wanted: 0,
        };
        if let Some(numbers) = trial(&mut script) {
            pmfs.resize(numbers.len(), Vec::new());
            for (pmf, v) in pmfs.iter_mut().zip(numbers) {
                if pmf.len() <= v as usize {
                    pmf.resize(v as usize + 1, 0.0);
                }
                pmf[v as usize] += chance;
            }
        } else {
            let sides = script.wanted;
            for face in 1..=sides {
                let mut longer = faces.clone();
                longer.push(face);
                stack.push((longer, chance / f64::from(sides)));
            }
        }
    }
    pmfs
}

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Fail,
    Success,
    Critical,
}

/// A 40k test of one D6: a 1 fails, a 6 is critical, else `target`+ succeeds.
fn class(face: u32, target: u32) -> Class {
    if face == 1 {
        Class::Fail
    } else if face == 6 {
        Class::Critical
    } else if face >= target {
        Class::Success
    } else {
        Class::Fail
    }
}

/// `tokens` dice of one test on `target`+, the first that fails rolled again
/// once with `one`, after re-rolling every 1 with `ones` (a die re-rolled
/// so is never re-rolled again): each token's final class.
fn test_stage(
    s: &mut Script<'_>,
    tokens: u32,
    target: u32,
    one: bool,
    ones: bool,
) -> Option<Vec<Class>> {
    let mut left = one;
    let mut out = Vec::new();
    for _ in 0..tokens {
        let mut face = s.roll(6)?;
        if ones && face == 1 {
            face = s.roll(6)?;
        } else if left && class(face, target) == Class::Fail {
            left = false;
            face = s.roll(6)?;
        }
        out.push(class(face, target));
    }
    Some(out)
}

/// The abilities a hit and wound enumeration plays (independent switches).
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Copy)]
struct Abilities {
    attacks: u32,
    sustained: bool,
    lethal: bool,
    one_hit: bool,
    one_wound: bool,
    wound_ones: bool,
}

/// Hits then wounds, as the rules resolve them: every hit roll, then every
/// wound roll. Returns [hits, wounds] as the Plan counts them (a Lethal Hit
/// counts as a wound; a Sustained Hit's extra hit counts as a hit).
fn hits_and_wounds(a: Abilities, s: &mut Script<'_>) -> Option<Vec<u32>> {
    let hits = test_stage(s, a.attacks, 4, a.one_hit, false)?;
    let (mut hit_count, mut to_wound, mut wounds) = (0, 0, 0);
    for c in hits {
        match c {
            Class::Fail => {}
            Class::Success => {
                hit_count += 1;
                to_wound += 1;
            }
            Class::Critical => {
                hit_count += 1;
                if a.sustained {
                    hit_count += 1;
                    to_wound += 1;
                }
                if a.lethal {
                    wounds += 1;
                } else {
                    to_wound += 1;
                }
            }
        }
    }
    let wound_rolls = test_stage(s, to_wound, 4, a.one_wound, a.wound_ones)?;
    wounds += wound_rolls.iter().filter(|&&c| c != Class::Fail).count() as u32;
    Some(vec![hit_count, wounds])
}

fn hit_wound_plan(a: Abilities) -> Value {
    let mut hit_effects = Vec::new();
    if a.sustained {
        hit_effects.push(json!({"on": "critical", "action": "extra", "amount": "1"}));
    }
    if a.lethal {
        hit_effects.push(json!({"on": "critical", "action": "skip", "steps": 1}));
    }
    json!({
        "version": 1,
        "counters": ["hits", "wounds"],
        "target": {"groups": [{"name": "Wall", "models": 1, "wounds": 100, "save": 7}], "order": [0]},
        "sequences": [{
            "kind": "attack", "name": "Gun",
            "attacks": [{"models": a.attacks, "dice": "1"}],
            "steps": [
                {"name": "hit", "target": 4, "natural_fail": 1, "critical": 6, "counter": "hits",
                 "reroll_one": a.one_hit, "effects": hit_effects},
                {"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds",
                 "reroll_one": a.one_wound, "reroll": if a.wound_ones { "ones" } else { "none" }}
            ],
            "save": {"rolled": false},
            "damage": {"dice": "1"}
        }]
    })
}

/// Exact to 1e-12, and every Monte Carlo path within five standard errors
/// of every probability, for the numbers `names` against `expected`.
fn check(plan: &Value, names: &[&str], expected: &[Vec<f64>]) {
    let p = program(plan);
    let exact = evaluate(&p).unwrap();
    for (name, want) in names.iter().zip(expected) {
        let got = &exact.pmfs[number(plan, name)];
        let total: f64 = got.iter().sum();
        assert!((total - 1.0).abs() < 1e-12, "{name} sums to {total}");
        for v in 0..got.len().max(want.len()) {
            let (g, w) = (
                got.get(v).copied().unwrap_or(0.0),
                want.get(v).copied().unwrap_or(0.0),
            );
            assert!((g - w).abs() < 1e-12, "{name} = {v}: exact {g} vs {w}");
        }
    }
    for path in [Path::DieByDie, Path::PerTrial, Path::Auto] {
        let trials = 100_000;
        let mc = simulate(
            &p,
            RunOptions {
                trials,
                seed: 12,
                threads: 2,
                path,
            },
            |_, _| Ok(()),
        )
        .unwrap();
        for (name, want) in names.iter().zip(expected) {
            let hist = &mc.hist[number(plan, name)];
            for v in 0..hist.len().max(want.len()) {
                let w = want.get(v).copied().unwrap_or(0.0);
                let seen = hist.get(v).copied().unwrap_or(0) as f64 / trials as f64;
                // A probability of 0 must never be seen.
                let se = (w * (1.0 - w) / trials as f64).sqrt().max(1e-12);
                assert!(
                    (seen - w).abs() < 5.0 * se,
                    "{name} = {v} on {path:?}: {seen} vs {w}"
                );
            }
        }
    }
}

#[test]
fn two_dice_one_hit_reroll_by_hand() {
    // Two hit rolls on 4+ (no criticals here: the wound step is a wall):
    // none hit when both fail and the re-roll fails, 1/4 * 1/2; both hit
    // when both do (1/4) or one fails and its re-roll hits (1/2 * 1/2).
    let a = Abilities {
        attacks: 2,
        sustained: false,
        lethal: false,
        one_hit: true,
        one_wound: false,
        wound_ones: false,
    };
    let mut plan = hit_wound_plan(a);
    plan["sequences"][0]["steps"][0]["critical"] = Value::Null;
    check(&plan, &["hits"], &[vec![1.0 / 8.0, 3.0 / 8.0, 1.0 / 2.0]]);
}

#[test]
fn one_hit_and_one_wound_reroll_with_critical_classes_match_the_enumeration() {
    let base = Abilities {
        attacks: 2,
        sustained: false,
        lethal: false,
        one_hit: true,
        one_wound: true,
        wound_ones: false,
    };
    for a in [
        base,
        Abilities {
            sustained: true,
            ..base
        },
        Abilities {
            lethal: true,
            one_hit: false,
            ..base
        },
        Abilities {
            attacks: 3,
            lethal: true,
            ..base
        },
        Abilities {
            sustained: true,
            lethal: true,
            wound_ones: true,
            ..base
        },
    ] {
        let expected = enumerate(|s| hits_and_wounds(a, s));
        let plan = hit_wound_plan(a);
        check(&plan, &["hits", "wounds"], &expected);
        // Tables of the tied dice take the fast path, drawing whole trials.
        assert!(Runner::new(&program(&plan), Path::Auto).is_sampled());
    }
}

/// Damage into a Guard (1 model, 2 wounds, 4+ save) then a Leader (1 model,
/// 2 wounds, `leader_save`+), excess lost: the saves of `attacks` dice rolled
/// together and resolved lowest first (or, `in_turn`, one at a time), each
/// failed save's D3 rolled while the unit stands, the first 1 (below the
/// average of 2) rolled again once. Returns [damage, Guard destroyed,
/// Leader destroyed].
fn damage_trial(
    s: &mut Script<'_>,
    attacks: u32,
    leader_save: u32,
    in_turn: bool,
) -> Option<Vec<u32>> {
    let mut models = [(4u32, 2u32, 2u32), (leader_save, 2, 2)];
    let mut left = true;
    let mut faces = Vec::new();
    if !in_turn {
        for _ in 0..attacks {
            faces.push(s.roll(6)?);
        }
        faces.sort_unstable();
    }
    let mut together = faces.into_iter();
    for _ in 0..attacks {
        let face = if in_turn {
            s.roll(6)?
        } else {
            together.next()?
        };
        let Some(m) = models.iter_mut().find(|m| m.2 > 0) else {
            continue;
        };
        if face != 1 && face >= m.0 {
            continue;
        }
        let mut d = s.roll(3)?;
        if left && d == 1 {
            left = false;
            d = s.roll(3)?;
        }
        m.2 -= d.min(m.2);
    }
    let damage = models.iter().map(|m| m.1 - m.2).sum();
    Some(vec![
        damage,
        u32::from(models[0].2 == 0),
        u32::from(models[1].2 == 0),
    ])
}

fn damage_plan(attacks: u32, leader_save: u32, in_turn: bool) -> Value {
    json!({
        "version": 1,
        "counters": [],
        "target": {"groups": [
            {"name": "Guard", "models": 1, "wounds": 2, "save": 4},
            {"name": "Leader", "models": 1, "wounds": 2, "save": leader_save}],
            "order": [0, 1]},
        "sequences": [{
            "kind": "attack", "name": "Gun", "attacks": [{"models": attacks, "dice": "1"}], "steps": [],
            "save": {"natural_fail": 1, "in_turn": in_turn},
            "damage": {"dice": "D3", "reroll_one": true}
        }]
    })
}

#[test]
fn one_damage_reroll_by_hand() {
    // One unsaved attack (no save) of D3 into a Guard of 2 wounds: a 1 is
    // rolled again, so it deals 1 with 1/9, 2 with 4/9 and 3 (2 kept) 4/9.
    let mut plan = damage_plan(1, 4, false);
    plan["sequences"][0]["save"] = json!({"rolled": false});
    plan["target"]["groups"][0]["wounds"] = json!(3);
    check(
        &plan,
        &["damage"],
        &[vec![0.0, 1.0 / 9.0, 4.0 / 9.0, 4.0 / 9.0]],
    );
}

#[test]
fn one_damage_reroll_through_groups_matches_the_enumeration() {
    // Groups saving alike (4+ both), and differently (the Leader on 3+):
    // lowest first and one at a time.
    for (leader_save, in_turn) in [(4, false), (3, false), (3, true)] {
        let expected = enumerate(|s| damage_trial(s, 4, leader_save, in_turn));
        let plan = damage_plan(4, leader_save, in_turn);
        assert!(Runner::new(&program(&plan), Path::Auto).is_sampled());
        assert!(
            (0.1..0.9).contains(&expected[2][1]),
            "P(Leader dies) {}",
            expected[2][1]
        );
        check(
            &plan,
            &["damage", "destroyed:Guard", "destroyed:Leader"],
            &expected,
        );
    }
}

#[test]
fn a_pool_without_one_die_rerolls_keeps_its_tables() {
    // The plain pool's one-die table is what it was: one set of re-rolls.
    let a = Abilities {
        attacks: 2,
        sustained: true,
        lethal: true,
        one_hit: false,
        one_wound: false,
        wound_ones: false,
    };
    let expected = enumerate(|s| hits_and_wounds(a, s));
    let plan = hit_wound_plan(a);
    check(&plan, &["hits", "wounds"], &expected);
    assert!(Runner::new(&program(&plan), Path::Auto).draws_whole_trials());
}
