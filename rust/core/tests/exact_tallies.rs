//! The exact evaluator's per-group and per-weapon numbers against
//! enumerations written out in the test: an attached Leader's models and its
//! bodyguard's, and two weapons' damage and mortal wounds.

mod common;

use common::{number, program};
use mathhammer_core::exact::evaluate;
use mathhammer_core::{simulate, Path, RunOptions};
use serde_json::{json, Value};

fn mean(pmf: &[f64]) -> f64 {
    pmf.iter().enumerate().map(|(v, p)| v as f64 * p).sum()
}

/// A Leader attached to two Guards, all saving on 4+: `attacks` attacks
/// hitting on 4+ with `damage`. With `focus` the Leader is allocated first
/// (Precision), else last.
fn attached_leader(attacks: u32, focus: bool, damage: &str) -> Value {
    let mut plan = json!({
        "version": 1,
        "counters": ["failed_saves"],
        "target": {"groups": [
            {"name": "Guard", "models": 2, "wounds": 1, "save": 4},
            {"name": "Leader", "models": 1, "wounds": 3, "save": 4, "tier": 1}],
            "order": [0, 1], "wounded_groups_first": true},
        "sequences": [{
            "kind": "attack", "name": "Gun", "attacks": [{"models": attacks, "dice": "1"}],
            "steps": [{"name": "hit", "target": 4, "natural_fail": 1}],
            "save": {"counter": "failed_saves"}, "damage": {"dice": damage}
        }]
    });
    if focus {
        plan["sequences"][0]["focus"] = json!([1]);
    }
    plan
}

/// Every way the attacks of [`attached_leader`] can go, one attack at a time:
/// each attack does `outcomes[i].0` damage in `outcomes[i].1` ways out of
/// their sum (0 damage: missed or saved), the damage going to the first
/// model still standing in allocation order (excess lost). Returns the
/// distributions of Guards and Leaders destroyed.
fn attached_leader_by_enumeration(
    attacks: u32,
    focus: bool,
    outcomes: &[(u32, u64)],
) -> [Vec<f64>; 2] {
    // Chances counted in ways, added up as whole numbers so the sums are exact.
    let mut guards = vec![0u64; 3];
    let mut leaders = vec![0u64; 2];
    for code in 0..outcomes.len().pow(attacks) {
        // (group, wounds left) in allocation order.
        let mut models = [(0, 1), (0, 1), (1, 3)];
        if focus {
            models.rotate_right(1);
        }
        let mut ways = 1;
        let mut rest = code;
        for _ in 0..attacks {
            let (damage, w) = outcomes[rest % outcomes.len()];
            rest /= outcomes.len();
            ways *= w;
            if let Some(model) = models.iter_mut().find(|m| m.1 > 0) {
                model.1 -= damage.min(model.1);
            }
        }
        let dead = |g: usize| models.iter().filter(|m| m.0 == g && m.1 == 0).count();
        guards[dead(0)] += ways;
        leaders[dead(1)] += ways;
    }
    let all = (outcomes.iter().map(|o| o.1).sum::<u64>() as f64).powi(attacks as i32);
    [guards, leaders].map(|ways| ways.iter().map(|&w| w as f64 / all).collect())
}

/// P(the Leader dies) and each group's distribution of models destroyed,
/// against the enumeration: exact to 1e-12, and Monte Carlo (die by die, on
/// the fast path trial by trial, and with its shortcuts: resolutions looked
/// up for D3 damage, whole trials drawn for fixed damage) within five
/// standard errors of every probability.
#[test]
fn each_groups_models_destroyed_match_an_enumeration() {
    // Hit on 4+ and fail a 4+ save: 1 in 4 attacks is unsaved.
    let d3: &[(u32, u64)] = &[(0, 9), (1, 1), (2, 1), (3, 1)];
    let two: &[(u32, u64)] = &[(0, 3), (2, 1)];
    for (damage, outcomes) in [("D3", d3), ("2", two)] {
        for focus in [false, true] {
            let plan = attached_leader(8, focus, damage);
            let expected = attached_leader_by_enumeration(8, focus, outcomes);
            assert!(
                (0.1..0.9).contains(&expected[1][1]),
                "P(Leader dies) {} (damage {damage}, focus: {focus})",
                expected[1][1]
            );
            check_groups(&plan, &expected);
            let compiled = program(&plan);
            let runner = mathhammer_core::Runner::new(&compiled, Path::Auto);
            if damage == "2" {
                assert!(runner.draws_whole_trials());
            } else {
                assert!(runner.looks_resolutions_up());
            }
        }
    }
}

fn check_groups(plan: &Value, expected: &[Vec<f64>; 2]) {
    let p = program(plan);
    let names = [
        number(plan, "destroyed:Guard"),
        number(plan, "destroyed:Leader"),
    ];
    let exact = evaluate(&p).unwrap();
    for (want, &i) in expected.iter().zip(&names) {
        let got = &exact.pmfs[i];
        assert_eq!(got.len(), want.len(), "{}", p.numbers()[i]);
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() < 1e-12,
                "{}: {got:?} vs {want:?}",
                p.numbers()[i]
            );
        }
    }
    for path in [Path::DieByDie, Path::PerTrial, Path::Auto] {
        let trials = 200_000;
        let mc = simulate(
            &p,
            RunOptions {
                trials,
                seed: 11,
                threads: 2,
                path,
            },
            |_, _| Ok(()),
        )
        .unwrap();
        // The one weapon did all the damage, whichever shortcut drew it.
        assert_eq!(
            mc.hist[number(plan, "damage:Gun")],
            mc.hist[number(plan, "damage")],
            "{path:?}"
        );
        for (want, &i) in expected.iter().zip(&names) {
            for (v, &w) in want.iter().enumerate() {
                let seen = mc.hist[i].get(v).copied().unwrap_or(0) as f64 / trials as f64;
                let se = (w * (1.0 - w) / trials as f64).sqrt();
                assert!(
                    (seen - w).abs() < 5.0 * se,
                    "{} = {v} on {path:?}: {seen} vs {w}",
                    p.numbers()[i]
                );
            }
        }
    }
}

/// One attack's outcome in the per-weapon enumeration: its normal damage,
/// the mortal wounds it queues (in one event), and in how many ways of all.
type Attack = (u32, u32, u64);

/// A weapon of the per-weapon enumeration: its attacks and each one's
/// outcomes.
struct Weapon {
    attacks: u32,
    outcomes: &'static [Attack],
}

/// Every way two weapons' attacks can go into `models` models of 3 wounds
/// (no save, excess lost), one attack at a time: each weapon's normal
/// damage, then its mortal wounds (each event picking the wounded model
/// first; with `spill` one wound at a time, otherwise all on that model),
/// or, with `held`, every weapon's mortal wounds after all the normal
/// damage, weapon by weapon. Returns, per weapon, the distributions of the
/// wounds the target lost to it and of the mortal wounds it inflicted.
fn two_weapons_by_enumeration(
    models: usize,
    weapons: &[Weapon; 2],
    spill: bool,
    held: bool,
) -> [[Vec<f64>; 2]; 2] {
    let mut ways = [
        [vec![0u64; 7], vec![0u64; 7]],
        [vec![0u64; 7], vec![0u64; 7]],
    ];
    let n: Vec<usize> = weapons.iter().map(|w| w.outcomes.len()).collect();
    let combos0 = n[0].pow(weapons[0].attacks);
    let combos1 = n[1].pow(weapons[1].attacks);
    let mut all = 0u64;
    for code in 0..combos0 * combos1 {
        let mut left = vec![3u32; models];
        let mut lost = [0u32; 2];
        let mut mortal = [0u32; 2];
        let mut queued: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        let mut w = 1u64;
        let codes = [code % combos0, code / combos0];
        let hit = |left: &mut Vec<u32>, amount: u32| -> u32 {
            match left.iter_mut().find(|l| **l > 0) {
                Some(l) => {
                    let taken = amount.min(*l);
                    *l -= taken;
                    taken
                }
                None => 0,
            }
        };
        let land = |left: &mut Vec<u32>, amount: u32| -> u32 {
            if spill {
                (0..amount).map(|_| hit(left, 1)).sum()
            } else {
                hit(left, amount)
            }
        };
        for (k, weapon) in weapons.iter().enumerate() {
            let mut rest = codes[k];
            for _ in 0..weapon.attacks {
                let (damage, mortals, ways) = weapon.outcomes[rest % n[k]];
                rest /= n[k];
                w *= ways;
                if damage > 0 {
                    lost[k] += hit(&mut left, damage);
                }
                if mortals > 0 {
                    queued[k].push(mortals);
                    mortal[k] += mortals;
                }
            }
            if !held {
                for &m in &queued[k] {
                    lost[k] += land(&mut left, m);
                }
            }
        }
        if held {
            for k in 0..2 {
                for &m in &queued[k] {
                    lost[k] += land(&mut left, m);
                }
            }
        }
        for k in 0..2 {
            ways[k][0][lost[k] as usize] += w;
            ways[k][1][mortal[k] as usize] += w;
        }
        all += w;
    }
    ways.map(|per| per.map(|v| v.iter().map(|&x| x as f64 / all as f64).collect()))
}

/// The Plan of [`two_weapons_by_enumeration`]: each weapon hits on `hit`+,
/// and a 6 queues `mortal` mortal wounds (ending the attack).
fn two_weapons(
    models: u32,
    weapons: [(&str, u32, u32, &str, &str); 2],
    spill: bool,
    held: bool,
) -> Value {
    let pool = |(name, attacks, hit, damage, mortal): (&str, u32, u32, &str, &str)| {
        let mut effects = json!([]);
        if !mortal.is_empty() {
            effects = json!([{"on": "critical", "action": "mortal", "amount": mortal, "spill": spill,
                "ends_attack": true, "after_all": held}]);
        }
        json!({"kind": "attack", "name": name, "attacks": [{"models": attacks, "dice": "1"}],
            "steps": [{"name": "hit", "target": hit, "natural_fail": 1, "critical": 6, "counter": "hits",
                "effects": effects}],
            "save": {"rolled": false}, "damage": {"dice": damage}, "mortal_counter": "mortal_wounds"})
    };
    json!({"version": 1, "counters": ["hits", "mortal_wounds"],
        "target": {"groups": [{"name": "Squad", "models": models, "wounds": 3}], "order": [0],
            "wounded_groups_first": true},
        "sequences": [pool(weapons[0]), pool(weapons[1])]})
}

/// The wounds the target lost to each weapon and the mortal wounds each
/// inflicted, against an enumeration of every attack: exact means to 1e-12
/// (and exact distributions where the evaluator gives them), and Monte
/// Carlo's distributions on every path within five standard errors.
#[test]
fn each_weapons_damage_and_mortal_wounds_match_an_enumeration() {
    // A: hits on 4+ for D3 (a miss in 9 of 18 ways, each damage in 3).
    // B: hits on 4+ for 1, and a 6 is 1 mortal wound instead.
    const A: &[Attack] = &[(0, 0, 9), (1, 0, 3), (2, 0, 3), (3, 0, 3)];
    const B: &[Attack] = &[(0, 0, 3), (1, 0, 2), (0, 1, 1)];
    // C and D: hit on 4+ and 5+ for 1, a 6 holding 2 mortal wounds instead.
    const C: &[Attack] = &[(0, 0, 3), (1, 0, 2), (0, 2, 1)];
    const D: &[Attack] = &[(0, 0, 4), (1, 0, 1), (0, 2, 1)];
    let inline = two_weapons(
        2,
        [("Lascannon", 2, 4, "D3", ""), ("Bolter", 3, 4, "1", "1")],
        true,
        false,
    );
    let expected = two_weapons_by_enumeration(
        2,
        &[
            Weapon {
                attacks: 2,
                outcomes: A,
            },
            Weapon {
                attacks: 3,
                outcomes: B,
            },
        ],
        true,
        false,
    );
    check_weapons(&inline, ["Lascannon", "Bolter"], &expected);
    // Both weapons hold 2 mortal wounds on a 6 until every attack is
    // resolved, landing on one model each: the first weapon's land first.
    let held = two_weapons(
        2,
        [("Melta", 2, 4, "1", "2"), ("Plasma", 3, 5, "1", "2")],
        false,
        true,
    );
    let expected = two_weapons_by_enumeration(
        2,
        &[
            Weapon {
                attacks: 2,
                outcomes: C,
            },
            Weapon {
                attacks: 3,
                outcomes: D,
            },
        ],
        false,
        true,
    );
    check_weapons(&held, ["Melta", "Plasma"], &expected);
}

fn check_weapons(plan: &Value, weapons: [&str; 2], expected: &[[Vec<f64>; 2]; 2]) {
    let p = program(plan);
    let exact = evaluate(&p).unwrap();
    let mut total = 0.0;
    for (k, name) in weapons.iter().enumerate() {
        for (j, prefix) in ["damage:", "mortal_wounds:"].iter().enumerate() {
            let i = number(plan, &format!("{prefix}{name}"));
            let want = &expected[k][j];
            let m = exact.means[i].unwrap_or_else(|| mean(&exact.pmfs[i]));
            assert!(
                (m - mean(want)).abs() < 1e-12,
                "{}: {m} vs {}",
                p.numbers()[i],
                mean(want)
            );
            if j == 0 {
                total += m;
            }
            if exact.means[i].is_none() {
                for (v, w) in want.iter().enumerate() {
                    let g = exact.pmfs[i].get(v).copied().unwrap_or(0.0);
                    assert!(
                        (g - w).abs() < 1e-12,
                        "{} = {v}: {g} vs {w}",
                        p.numbers()[i]
                    );
                }
            }
        }
    }
    // The weapons' wounds add up to the unit's.
    assert!((total - mean(&exact.pmfs[number(plan, "damage")])).abs() < 1e-12);
    for path in [Path::DieByDie, Path::PerTrial, Path::Auto] {
        let trials = 200_000;
        let options = RunOptions {
            trials,
            seed: 3,
            threads: 2,
            path,
        };
        let mc = simulate(&p, options, |_, _| Ok(())).unwrap();
        for (k, name) in weapons.iter().enumerate() {
            for (j, prefix) in ["damage:", "mortal_wounds:"].iter().enumerate() {
                let i = number(plan, &format!("{prefix}{name}"));
                for (v, &w) in expected[k][j].iter().enumerate() {
                    let seen = mc.hist[i].get(v).copied().unwrap_or(0) as f64 / trials as f64;
                    let se = (w * (1.0 - w) / trials as f64).sqrt();
                    assert!(
                        (seen - w).abs() < 5.0 * se + 1e-12,
                        "{} = {v} on {path:?}: {seen} vs {w}",
                        p.numbers()[i]
                    );
                }
            }
        }
    }
}
