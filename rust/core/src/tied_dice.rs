//! The counts of many attack dice that the unit's one-die re-rolls tie
//! together, drawn without a table for every number of dice.
//!
//! A pool with one hit or wound re-roll for the unit spends it on the first
//! die that fails there (`tables::Token`): the dice are composed one after
//! another, each starting with the set of re-rolls still to use and leaving
//! with the set the next one starts with. Sets only shrink, so a pool's dice
//! are runs: a run of dice that leave the set as they found it, one die that
//! uses a re-roll, a run under the smaller set, and so on. Within a run the
//! dice are independent, each with the outcomes of a die that keeps the set
//! (given that it does), so a run's counts are a multinomial; a run's length
//! is geometric in the chance a die keeps the set. Drawing the runs in turn
//! gives the pool's counts with exactly the distribution of composing its
//! dice one after another, in time that grows with the sets and outcomes, not
//! with the dice.

use crate::alias::AliasTable;
use crate::binomial::Multinomial;
use crate::rng::Stream;
use crate::tables::{slot, sorted, Token, SLOTS};

/// One set of re-rolls still to use: how dice that keep it come out, and
/// how the one die that uses a re-roll of it does.
#[derive(Debug, Clone)]
struct Set {
    /// The chance a die keeps the set, and its logarithm (found from the
    /// chance it leaves, which keeps its precision when that is small).
    stay: f64,
    ln_stay: f64,
    /// The outcomes of a die that keeps the set, given that it does (`None`
    /// when no die can).
    kept: Option<Multinomial>,
    /// The outcomes of a die that uses a re-roll, each with the set it
    /// leaves, and their chances given that a die leaves the set.
    leave: Vec<([u32; SLOTS], usize)>,
    leave_alias: Option<AliasTable>,
}

/// The runs of one pool's dice, by set of re-rolls still to use.
#[derive(Debug, Clone)]
pub(crate) struct TiedDice {
    sets: Vec<Set>,
    /// The set a pool starts with: every re-roll still to use.
    full: usize,
    /// Slots of an outcome vector counted (each test, the save, harm).
    slots: usize,
}

impl TiedDice {
    /// From one die's outcomes split by the sets it starts and leaves with,
    /// counting the first `slots` slots of each outcome vector.
    pub(crate) fn new(one: &Token, slots: usize) -> TiedDice {
        let counts = |v: u64| -> Vec<u32> { (0..slots).map(|i| slot(v, i)).collect() };
        let sets = one
            .by
            .iter()
            .enumerate()
            .map(|(from, row)| {
                let stay: f64 = row[from].values().sum();
                let kept = (stay > 0.0).then(|| {
                    let outcomes = sorted(&row[from])
                        .into_iter()
                        .map(|(v, p)| (counts(v), p / stay))
                        .collect();
                    Multinomial::new(outcomes, slots)
                });
                let mut leave = Vec::new();
                let mut chances = Vec::new();
                for (to, d) in row.iter().enumerate().filter(|&(to, _)| to != from) {
                    for (v, p) in sorted(d) {
                        let mut c = [0; SLOTS];
                        c[..slots].copy_from_slice(&counts(v));
                        leave.push((c, to));
                        chances.push(p);
                    }
                }
                let leave_alias = (!chances.is_empty()).then(|| AliasTable::new(&chances));
                // As shares of the row's total, which rounding may leave a
                // hair off one; a set no die leaves is kept by every die.
                let leaving: f64 = chances.iter().sum();
                let total = stay + leaving;
                let (stay, ln_stay) = if leaving > 0.0 {
                    (stay / total, (-leaving / total).ln_1p())
                } else {
                    (1.0, 0.0)
                };
                Set {
                    stay,
                    ln_stay,
                    kept,
                    leave,
                    leave_alias,
                }
            })
            .collect();
        TiedDice {
            sets,
            full: one.full(),
            slots,
        }
    }

    /// The summed counts of `n` dice, into `into` (its first slots).
    pub(crate) fn draw(&self, n: u32, stream: &mut Stream, into: &mut [u32]) {
        into[..self.slots].fill(0);
        let mut set = self.full;
        let mut left = n;
        while left > 0 {
            let s = &self.sets[set];
            let run = run_length(s.stay, s.ln_stay, left, stream);
            if let Some(kept) = &s.kept {
                kept.add(run, stream, into);
            }
            left -= run;
            let (Some(alias), true) = (&s.leave_alias, left > 0) else {
                break;
            };
            let (counts, to) = &s.leave[alias.sample(stream)];
            for (slot, c) in into.iter_mut().zip(&counts[..self.slots]) {
                *slot += c;
            }
            left -= 1;
            set = *to;
        }
    }
}

/// How many of `left` dice in a row keep a set each keeps with chance
/// `stay` (whose logarithm is `ln_stay`), before the first that does not:
/// geometric, cut at `left`.
fn run_length(stay: f64, ln_stay: f64, left: u32, stream: &mut Stream) -> u32 {
    if stay >= 1.0 {
        return left;
    }
    if stay <= 0.0 {
        return 0;
    }
    // At least k dice keep it with chance stay^k, as u ≤ stay^k does for u
    // uniform on (0, 1].
    let u = 1.0 - stream.next_f64();
    let k = (u.ln() / ln_stay).floor();
    if k >= f64::from(left) {
        left
    } else {
        k as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::program::{Program, RunSequence};
    use crate::tables::{one_token, point, then_row, total, Builder, Dist, BITS};
    use std::collections::HashMap;

    /// Sustained Hits 1 and Devastating Wounds on six attack dice, with the
    /// unit's one hit re-roll and its one wound re-roll.
    fn rerolled_pool() -> Program {
        let step = |name: &str, target: u32, effects: serde_json::Value| {
            serde_json::json!({"name": name, "target": target, "die": 6, "critical": 6,
                "reroll_one": true, "counter": name, "effects": effects})
        };
        let plan = serde_json::json!({
            "version": 1,
            "counters": ["hit", "wound"],
            "target": {"groups": [{"name": "A", "models": 10, "wounds": 2, "save": 3}], "order": [0]},
            "sequences": [{"kind": "attack", "name": "Bolter",
                "attacks": [{"models": 6, "dice": "1"}],
                "steps": [
                    step("hit", 3, serde_json::json!([{"on": "critical", "action": "extra", "amount": "1"}])),
                    step("wound", 4, serde_json::json!([{"on": "critical", "action": "mortal",
                        "spill": true, "ends_attack": true}])),
                ],
                "save": {"ap": -1, "die": 6},
                "damage": {"dice": "1"}}]
        });
        Program::new(Plan::from_json(&plan.to_string()).expect("a valid Plan")).expect("a Program")
    }

    #[test]
    fn tied_dice_come_out_as_composing_them_one_after_another() {
        let program = rerolled_pool();
        let RunSequence::Pool(pool) = &program.sequences[0] else {
            panic!("an attack pool")
        };
        let mut b = Builder::default();
        let (one, _) = one_token(pool, 1, 1 << 16, &mut b).expect("a one-die table");
        assert_eq!(one.sets(), 4, "two re-rolls, four sets of them left");
        let n = 6;
        let mut row = vec![Dist::default(); one.sets()];
        row[one.full()] = point(&[]);
        for _ in 0..n {
            row = then_row(&row, &one, &mut b).expect("within the work allowed");
        }
        let exact = total(&row);
        let slots = pool.tests.len() + 2;
        let tied = TiedDice::new(&one, slots);
        let mut stream = Stream::new(11, 0);
        let trials = 300_000u32;
        let mut seen: HashMap<u64, u32> = HashMap::new();
        let mut counts = [0; SLOTS];
        for _ in 0..trials {
            tied.draw(n, &mut stream, &mut counts);
            let key = (counts[..slots].iter().enumerate())
                .map(|(i, &c)| u64::from(c) << (BITS as usize * i))
                .sum();
            *seen.entry(key).or_default() += 1;
        }
        for key in seen.keys() {
            assert!(
                exact.contains_key(key),
                "drew {key:#x}, which no roll of the dice gives"
            );
        }
        let count = f64::from(trials);
        for (key, &want) in &exact {
            let got = f64::from(seen.get(key).copied().unwrap_or(0)) / count;
            let se = (want * (1.0 - want) / count).sqrt();
            assert!(
                (got - want).abs() <= 5.0 * se + 1.0 / count,
                "{key:#x}: drawn {got}, exact {want}"
            );
        }
    }

    #[test]
    fn runs_are_geometric_and_cut_at_the_dice_left() {
        let mut stream = Stream::new(3, 0);
        let trials = 200_000;
        let stay: f64 = 0.7;
        let mut at_least = [0u32; 6];
        for _ in 0..trials {
            let k = run_length(stay, stay.ln(), 5, &mut stream);
            assert!(k <= 5);
            for (j, c) in at_least.iter_mut().enumerate() {
                *c += u32::from(k >= j as u32);
            }
        }
        for (j, &c) in at_least.iter().enumerate() {
            let want = stay.powi(j as i32);
            let got = f64::from(c) / f64::from(trials);
            let se = (want * (1.0 - want) / f64::from(trials)).sqrt();
            assert!(
                (got - want).abs() <= 5.0 * se + 1e-12,
                "P(run ≥ {j}): {got} vs {want}"
            );
        }
        assert_eq!(run_length(1.0, 0.0, 7, &mut stream), 7);
        assert_eq!(run_length(0.0, f64::NEG_INFINITY, 7, &mut stream), 0);
    }
}
