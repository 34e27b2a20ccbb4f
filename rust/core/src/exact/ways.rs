//! The ways one token of a pool goes through its tests, for the chain over
//! both sides (`chain.rs`): each way's chance, the counters it bumps, the
//! harm it holds outside the save and whether it fails the save; and what
//! of a pool the chain cannot follow, declined by name.

use super::budget::{decline, spend};
use crate::error::CoreError;
use crate::plan::{Check, Outcome, Side};
use crate::program::{Inflict, InflictKind, Program, RunPool, RunTest, TokenRoute};
use crate::roll::Classed;
use std::ops::RangeInclusive;

/// One token's way through a pool's tests: its chance, the counters it
/// bumps, the harm it holds outside the save (in order), and whether it
/// reaches the save and fails it (its damage dealt with the pool's).
#[derive(Debug, Clone)]
pub(super) struct Kind {
    pub(super) p: f64,
    pub(super) bumps: Vec<(usize, u32)>,
    pub(super) pending: Vec<Inflict>,
    pub(super) unsaved: bool,
}

/// Records one token's routing at one test.
struct Record<'a> {
    test: &'a RunTest,
    tests: &'a [RunTest],
    bumps: Vec<(usize, u32)>,
    pending: Vec<Inflict>,
    goes_to: Option<usize>,
    extra: bool,
}

impl TokenRoute for Record<'_> {
    fn count(&mut self, counter: usize) {
        self.bumps.push((counter, 1));
    }
    fn extra(&mut self, _: crate::dice::DiceExpr) -> Option<()> {
        self.extra = true;
        None
    }
    fn skip(&mut self, skipped: RangeInclusive<usize>) {
        for t in &self.tests[skipped] {
            if let Some(c) = t.counter {
                self.bumps.push((c, 1));
            }
        }
    }
    fn inflict(&mut self, what: Inflict, ended: Option<bool>) {
        self.pending.push(what);
        if ended == Some(true) {
            if let Some(c) = self.test.counter {
                self.bumps.push((c, 1));
            }
        }
    }
    fn pass(&mut self, goes_to: usize) -> Option<()> {
        if let Some(c) = self.test.counter {
            self.bumps.push((c, 1));
        }
        self.goes_to = Some(goes_to);
        Some(())
    }
}

/// The chance `check` passes.
pub(super) fn pass_chance(check: Check) -> f64 {
    let passing = (1..=check.die).filter(|&r| check.passes(r)).count();
    passing as f64 / f64::from(check.die)
}

/// The ways one token of `pool` goes through its tests with `marks` set.
pub(super) fn ways(program: &Program, pool: &RunPool, marks: u32) -> Result<Vec<Kind>, CoreError> {
    let set: Vec<bool> = (0..program.plan.marks.len())
        .map(|m| marks & (1 << m) != 0)
        .collect();
    let a = usize::from(pool.against == Side::Attacker);
    let attacked = match (a, &program.plan.attacker) {
        (1, Some(t)) => &t.groups,
        _ => &program.plan.target.groups,
    };
    let fail = if pool.save.rolled {
        pool.save.fail_chance(0, attacked)
    } else {
        1.0
    };
    let mut out = Vec::new();
    let mut stack = vec![(0usize, 1.0f64, Vec::new(), Vec::new())];
    while let Some((k, p, bumps, pending)) = stack.pop() {
        if k >= pool.tests.len() {
            let mut failed = bumps.clone();
            if let Some(c) = pool.save.counter {
                failed.push((c, 1));
            }
            out.push(Kind {
                p: p * fail,
                bumps: failed,
                pending: pending.clone(),
                unsaved: true,
            });
            out.push(Kind {
                p: p * (1.0 - fail),
                bumps,
                pending,
                unsaved: false,
            });
            continue;
        }
        let t = &pool.tests[k];
        for (outcome, class, q) in outcomes(t, &set)? {
            if q == 0.0 {
                continue;
            }
            let mut rec = Record {
                test: t,
                tests: &pool.tests,
                bumps: bumps.clone(),
                pending: pending.clone(),
                goes_to: None,
                extra: false,
            };
            t.route(k, outcome, class, &mut rec);
            if rec.extra {
                return Err(decline(format!(
                    "pool {:?} adds tokens as it goes, which the chain over both sides does not follow",
                    pool.name
                )));
            }
            match rec.goes_to {
                Some(next) => stack.push((next, p * q, rec.bumps, rec.pending)),
                None => out.push(Kind {
                    p: p * q,
                    bumps: rec.bumps,
                    pending: rec.pending,
                    unsaved: false,
                }),
            }
        }
    }
    out.retain(|k| k.p > 0.0);
    Ok(out)
}

/// What the chain cannot follow in a pool, declined by name.
pub(super) fn check_pool(pool: &RunPool) -> Result<(), CoreError> {
    let name = &pool.name;
    if pool.batch_hook.is_some() {
        return Err(decline(format!("pool {name:?} calls a batch hook")));
    }
    if pool.damage_reroll_one || pool.tests.iter().any(|t| t.reroll_one) {
        return Err(decline(format!(
            "pool {name:?} re-rolls one die for the whole unit, which ties its attacks together"
        )));
    }
    if pool.feel_no_pain.iter().any(Option::is_some) {
        return Err(decline(format!(
            "pool {name:?} meets a Feel No Pain, which the chain over both sides does not roll"
        )));
    }
    for a in pool.tests.iter().flat_map(RunTest::actions) {
        if let crate::program::RunAction::Inflict(i) = a {
            if i.after_all {
                return Err(decline(format!(
                    "pool {name:?} holds harm until every attack is resolved, which a fight or a mark does not allow exactly"
                )));
            }
            if matches!(i.kind, InflictKind::Damage { save: Some(_), .. }) {
                return Err(decline(format!(
                    "pool {name:?} gives some tokens a save of their own, which the chain over both sides does not roll"
                )));
            }
        }
    }
    Ok(())
}

/// A test's outcomes and classes with their chances, with `marks` set.
fn outcomes(t: &RunTest, marks: &[bool]) -> Result<Vec<Classed>, CoreError> {
    if t.automatic {
        return Ok(vec![(Outcome::Success, None, 1.0)]);
    }
    if let Some((roll, distribution)) = &t.roll {
        if !roll.conditional() {
            return Ok(distribution.clone());
        }
        return match roll.with_marks(marks) {
            Some(r) => {
                if spend(r.combinations()) {
                    return Ok(Vec::new());
                }
                Ok(r.distribution(t.reroll))
            }
            None => Err(decline(format!(
                "test {:?} compares a die a mark leaves out",
                t.name
            ))),
        };
    }
    let die = f64::from(t.die);
    let mut out: Vec<Classed> = Vec::new();
    let mut add = |o: Outcome, p: f64| match out.iter_mut().find(|e| e.0 == o) {
        Some(e) => e.2 += p,
        None => out.push((o, None, p)),
    };
    for f in 1..=t.die {
        let o = t.by_face[f as usize];
        if t.rerolls(f, o) {
            for g in 1..=t.die {
                add(t.by_face[g as usize], 1.0 / die / die);
            }
        } else {
            add(o, 1.0 / die);
        }
    }
    Ok(out)
}
