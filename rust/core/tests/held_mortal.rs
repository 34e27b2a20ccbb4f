//! Mortal wounds held until every attack is resolved and spilling over,
//! exactly: the exact evaluator against a brute-force enumeration of every
//! attack's outcome (and of every Feel No Pain roll's count), and through
//! several groups against the die-by-die executor.

mod common;

use common::{number, program};
use mathhammer_core::exact::evaluate;
use mathhammer_core::{simulate, Path, RunOptions};
use serde_json::{json, Value};

/// One attack's outcome: nothing, a failed save of `d` damage, or a
/// critical wound held as `d` mortal wounds; with its chance. Wound 4+
/// (a 6 critical), save 4+: each is 1/6 at every damage roll, nothing 4/6.
#[derive(Clone, Copy)]
enum Outcome {
    Nothing,
    Failed(u32),
    Critical(u32),
}

/// The outcomes of one attack whose damage is uniform over `damage`.
fn outcomes(damage: &[u32]) -> Vec<(Outcome, f64)> {
    let each = 1.0 / 6.0 / damage.len() as f64;
    let mut out = vec![(Outcome::Nothing, 4.0 / 6.0)];
    for &d in damage {
        out.push((Outcome::Failed(d), each));
        out.push((Outcome::Critical(d), each));
    }
    out
}

/// A pool of `attacks` attacks (each its own model) of `damage` whose
/// critical wounds are held as spilling mortal wounds equal to the damage.
fn pool(name: &str, attacks: u32, damage: &str) -> Value {
    json!({
        "kind": "attack", "name": name, "attacks": [{"models": attacks, "dice": "1"}],
        "steps": [{"name": "wound", "target": 4, "natural_fail": 1, "critical": 6,
                   "effects": [{"on": "critical", "action": "mortal", "spill": true, "ends_attack": true,
                                "reduced": true, "after_all": true}]}],
        "save": {"ap": 0}, "damage": {"dice": damage}, "mortal_counter": "mortal_wounds"
    })
}

fn plan(group: &Value, pools: &[Value]) -> Value {
    json!({
        "version": 1, "counters": ["mortal_wounds"],
        "target": {"groups": [group], "order": [0], "wounded_groups_first": true},
        "sequences": pools
    })
}

/// One group's models as the enumeration carries them.
#[derive(Clone, Copy)]
struct Unit {
    alive: u32,
    front: u32,
    wounds: u32,
}

impl Unit {
    /// Normal damage on the front model, the excess lost.
    fn damage(&mut self, d: u32) {
        if self.alive == 0 {
            return;
        }
        if d >= self.front {
            self.alive -= 1;
            self.front = self.wounds;
        } else {
            self.front -= d;
        }
    }
    /// `n` mortal wounds, one at a time, spilling onto the next model.
    fn mortal(&mut self, n: u32) {
        for _ in 0..n {
            self.damage(1);
        }
    }
    fn lost(&self, models: u32) -> u32 {
        (models - self.alive) * self.wounds
            + if self.alive > 0 {
                self.wounds - self.front
            } else {
                0
            }
    }
}

fn binomial(n: u32, p: f64) -> Vec<f64> {
    let mut pmf = vec![1.0];
    for _ in 0..n {
        let mut next = vec![0.0; pmf.len() + 1];
        for (k, &x) in pmf.iter().enumerate() {
            next[k] += x * (1.0 - p);
            next[k + 1] += x * p;
        }
        pmf = next;
    }
    pmf
}

fn add(pmf: &mut Vec<f64>, v: u32, p: f64) {
    let v = v as usize;
    if pmf.len() <= v {
        pmf.resize(v + 1, 0.0);
    }
    pmf[v] += p;
}

fn mean(pmf: &[f64]) -> f64 {
    pmf.iter().enumerate().map(|(v, p)| v as f64 * p).sum()
}

/// What the enumeration finds: the pmfs of models destroyed, wounds lost and
/// mortal wounds inflicted, and each pool's mean wounds lost (its normal
/// damage in its turn, then its held mortal wounds in the order the pools
/// held them).
struct Brute {
    destroyed: Vec<f64>,
    lost: Vec<f64>,
    mortal: Vec<f64>,
    per_pool: Vec<f64>,
}

/// Every outcome of every attack of `pools` (attacks each, damage values
/// each) into `models` models of `wounds`, mortal wounds ignored on a roll
/// of the chance `fnp`.
fn brute(pools: &[(u32, Vec<u32>)], models: u32, wounds: u32, fnp: f64) -> Brute {
    let mut out = Brute {
        destroyed: Vec::new(),
        lost: Vec::new(),
        mortal: Vec::new(),
        per_pool: vec![0.0; pools.len()],
    };
    let attacks: Vec<(usize, Vec<(Outcome, f64)>)> = pools
        .iter()
        .enumerate()
        .flat_map(|(i, (n, damage))| (0..*n).map(move |_| (i, outcomes(damage))))
        .collect();
    let mut pick = vec![0usize; attacks.len()];
    loop {
        let p: f64 = pick.iter().zip(&attacks).map(|(&k, a)| a.1[k].1).product();
        let mut unit = Unit {
            alive: models,
            front: wounds,
            wounds,
        };
        let mut held = vec![0u32; pools.len()];
        let mut lost_before = 0;
        for (i, (&k, (pool, list))) in pick.iter().zip(&attacks).enumerate() {
            match list[k].0 {
                Outcome::Nothing => {}
                Outcome::Failed(d) => unit.damage(d),
                Outcome::Critical(d) => held[*pool] += d,
            }
            // At each pool's end, credit it the wounds lost in its turn.
            if attacks.get(i + 1).is_none_or(|next| next.0 != *pool) {
                out.per_pool[*pool] += p * f64::from(unit.lost(models) - lost_before);
                lost_before = unit.lost(models);
            }
        }
        let total: u32 = held.iter().sum();
        add(&mut out.mortal, total, p);
        // The held mortal wounds, pool by pool, each ignored on the Feel No
        // Pain roll: a binomial number of them land.
        let mut states = vec![(unit, p)];
        for (i, &n) in held.iter().enumerate() {
            let mut next = Vec::new();
            for &(u, q) in &states {
                for (k, &b) in binomial(n, 1.0 - fnp).iter().enumerate() {
                    let mut v = u;
                    v.mortal(k as u32);
                    out.per_pool[i] += q * b * f64::from(v.lost(models) - u.lost(models));
                    next.push((v, q * b));
                }
            }
            states = next;
        }
        for (u, q) in states {
            add(&mut out.destroyed, models - u.alive, q);
            add(&mut out.lost, u.lost(models), q);
        }
        // The next combination of outcomes, as an odometer.
        let mut i = 0;
        loop {
            if i == pick.len() {
                return out;
            }
            pick[i] += 1;
            if pick[i] < attacks[i].1.len() {
                break;
            }
            pick[i] = 0;
            i += 1;
        }
    }
}

fn assert_pmf(got: &[f64], want: &[f64], what: &str) {
    for v in 0..got.len().max(want.len()) {
        let (g, w) = (
            got.get(v).copied().unwrap_or(0.0),
            want.get(v).copied().unwrap_or(0.0),
        );
        assert!((g - w).abs() < 1e-12, "{what}[{v}]: {g} vs {w}");
    }
}

/// Check the exact evaluator against the enumeration on `plan`.
fn check(plan: &Value, want: &Brute, names: &[&str]) {
    let exact = evaluate(&program(plan)).expect("evaluated exactly");
    assert_pmf(
        &exact.pmfs[number(plan, "models_destroyed")],
        &want.destroyed,
        "models destroyed",
    );
    assert_pmf(
        &exact.pmfs[number(plan, "damage")],
        &want.lost,
        "wounds lost",
    );
    assert_pmf(
        &exact.pmfs[number(plan, "mortal_wounds")],
        &want.mortal,
        "mortal wounds",
    );
    for (name, &m) in names.iter().zip(&want.per_pool) {
        let i = number(plan, &format!("damage:{name}"));
        let got = exact.means[i].unwrap_or_else(|| mean(&exact.pmfs[i]));
        assert!((got - m).abs() < 1e-12, "damage:{name}: {got} vs {m}");
    }
}

#[test]
fn held_spilling_mortal_wounds_match_every_outcome_enumerated() {
    for (damage, values) in [("2", vec![2]), ("D3", vec![1, 2, 3]), ("1", vec![1])] {
        for (models, wounds) in [(3, 2), (2, 3), (5, 1)] {
            let group = json!({"name": "M", "models": models, "wounds": wounds, "save": 4});
            let p = plan(&group, &[pool("A", 4, damage)]);
            check(
                &p,
                &brute(&[(4, values.clone())], models, wounds, 0.0),
                &["A"],
            );
        }
    }
}

#[test]
fn held_spilling_mortal_wounds_ignored_by_feel_no_pain() {
    let group = json!({"name": "M", "models": 3, "wounds": 2, "save": 4, "feel_no_pain_mortal": 5});
    let p = plan(&group, &[pool("A", 4, "D3")]);
    check(&p, &brute(&[(4, vec![1, 2, 3])], 3, 2, 2.0 / 6.0), &["A"]);
}

#[test]
fn held_spilling_mortal_wounds_credited_to_the_pools_that_held_them() {
    // Two pools hold mortal wounds: each is credited its own normal damage
    // and its own held wounds, the first pool's landing first.
    let group = json!({"name": "M", "models": 4, "wounds": 2, "save": 4});
    let p = plan(&group, &[pool("A", 2, "D3"), pool("B", 2, "D3")]);
    let want = brute(&[(2, vec![1, 2, 3]), (2, vec![1, 2, 3])], 4, 2, 0.0);
    check(&p, &want, &["A", "B"]);
}

#[test]
fn s2_by_hand() {
    // Two attacks that wound on a 6 only (critical, 2 mortal wounds each)
    // into one model of 3 wounds: it dies when both are critical (1/36), and
    // is left with 1 wound when one is (10/36).
    let group = json!({"name": "M", "models": 1, "wounds": 3, "save": 2});
    let mut p = plan(&group, &[pool("A", 2, "2")]);
    p["sequences"][0]["steps"][0]["target"] = json!(6);
    let exact = evaluate(&program(&p)).unwrap();
    assert_pmf(
        &exact.pmfs[number(&p, "models_destroyed")],
        &[35.0 / 36.0, 1.0 / 36.0],
        "destroyed",
    );
    assert_pmf(
        &exact.pmfs[number(&p, "damage")],
        &[25.0 / 36.0, 0.0, 10.0 / 36.0, 1.0 / 36.0],
        "lost",
    );
}

#[test]
fn held_spilling_mortal_wounds_through_groups_agree_with_die_by_die() {
    // Wounds spill from a focus character on to its bodyguard, and from
    // group to group, with Feel No Pain against mortal wounds on one group.
    for focus in [false, true] {
        let mut p = plan(
            &json!({"name": "Guard", "models": 4, "wounds": 2, "save": 3}),
            &[pool("A", 6, "D3")],
        );
        p["target"]["groups"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "Hero", "models": 1, "wounds": 5, "save": 2, "tier": 1, "feel_no_pain_mortal": 5}));
        p["target"]["order"] = json!([0, 1]);
        if focus {
            p["sequences"][0]["focus"] = json!([1]);
            p["sequences"][0]["steps"][0]["effects"][0]["focus"] = json!(true);
        }
        let program = program(&p);
        let exact = evaluate(&program).unwrap();
        let options = RunOptions {
            trials: 200_000,
            seed: 7,
            threads: 2,
            path: Path::DieByDie,
        };
        let mc = simulate(&program, options, |_, _| Ok(())).unwrap();
        for (i, pmf) in exact.pmfs.iter().enumerate() {
            let m = mean(pmf);
            let sd = pmf
                .iter()
                .enumerate()
                .map(|(v, q)| (v as f64 - m).powi(2) * q)
                .sum::<f64>()
                .sqrt();
            let z = (mc.mean(i) - m) / (sd / (mc.trials as f64).sqrt()).max(1e-9);
            assert!(
                z.abs() < 5.0,
                "focus {focus}, number {i}: exact {m} vs simulated {} ({z:.1} se)",
                mc.mean(i)
            );
        }
    }
}

#[test]
fn held_wounds_landing_right_after_their_pool_answer_and_cost_as_through_the_state() {
    // The pool is the Plan's last sequence, so its held wounds land straight
    // from the states after its saves; a sequence after it sends them
    // through the state instead. A failed save that Feel No Pain ignores
    // leaves the target as it was, so one state follows several numbers of
    // failed saves: it must still spill once, as through the state.
    let group = json!({"name": "M", "models": 4, "wounds": 3, "save": 4, "feel_no_pain": 5});
    let now = plan(&group, &[pool("A", 8, "D3")]);
    let mut through = now.clone();
    through["counters"]
        .as_array_mut()
        .unwrap()
        .push(json!("attacker_mortal_wounds"));
    through["sequences"].as_array_mut().unwrap().push(json!({
        "kind": "mortal_wounds", "name": "Hazardous", "amount": "1",
        "counter": "attacker_mortal_wounds", "against": "attacker"
    }));
    let (a, b) = (
        evaluate(&program(&now)).unwrap(),
        evaluate(&program(&through)).unwrap(),
    );
    for name in ["models_destroyed", "damage", "mortal_wounds"] {
        let (x, y) = (&a.pmfs[number(&now, name)], &b.pmfs[number(&through, name)]);
        assert_eq!(x.len(), y.len(), "{name}");
        for (p, q) in x.iter().zip(y) {
            assert!((p - q).abs() < 1e-13, "{name}: {p} vs {q}");
        }
    }
    assert!(
        a.work <= b.work,
        "{} steps landing at once, {} through the state",
        a.work,
        b.work
    );
}
