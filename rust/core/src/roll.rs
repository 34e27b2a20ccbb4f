//! Tests that roll several dice together: their sum against a target, and
//! the class two of them put the roll in (which is higher, or a match).
//!
//! Used by systems whose attack roll is a sum of dice, such as two d12 plus
//! an advantage d6, where which of two dice is higher decides side effects.

use crate::plan::{Class, Compare, Outcome, Reroll, RerollWhen, RollDie, Test};
use crate::rng::DiceSource;
use crate::trace::{Event, Observer};

/// A roll of several dice with its modifiers summed and capped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Roll {
    pub(crate) dice: Vec<RollDie>,
    /// Per die: the mark it needs set, and the mark it needs unset (indices).
    pub(crate) marks: Vec<(Option<usize>, Option<usize>)>,
    pub(crate) compare: Option<Compare>,
    pub(crate) modifier: i64,
    pub(crate) target: i64,
    pub(crate) critical_requires_success: bool,
    /// When the roll is re-rolled, instead of the policy's own condition.
    pub(crate) reroll_when: Vec<RerollWhen>,
}

/// An outcome and class with its probability.
pub(crate) type Classed = (Outcome, Option<Class>, f64);

impl Roll {
    pub(crate) fn new(plan: &crate::plan::Plan, t: &Test) -> Roll {
        let index = |m: &Option<String>| {
            m.as_ref()
                .and_then(|m| plan.marks.iter().position(|x| x == m))
        };
        Roll {
            dice: t.dice.clone(),
            marks: t
                .dice
                .iter()
                .map(|d| (index(&d.when), index(&d.unless)))
                .collect(),
            compare: t.compare,
            modifier: t
                .modifiers
                .iter()
                .map(|&m| i64::from(m))
                .sum::<i64>()
                .clamp(i64::from(t.modifier_min), i64::from(t.modifier_max)),
            target: i64::from(t.target),
            critical_requires_success: t.critical_requires_success,
            reroll_when: t.reroll_when.clone(),
        }
    }

    /// The outcome and class of the faces the dice show.
    pub(crate) fn classify(&self, faces: &[u32]) -> (Outcome, Option<Class>) {
        let total: i64 = self
            .dice
            .iter()
            .zip(faces)
            .map(|(d, &f)| {
                if d.subtract {
                    -i64::from(f)
                } else {
                    i64::from(f)
                }
            })
            .sum::<i64>()
            + self.modifier;
        let success = total >= self.target;
        let class = self.compare.map(|c| {
            let (a, b) = (faces[c.dice[0]], faces[c.dice[1]]);
            match a.cmp(&b) {
                std::cmp::Ordering::Greater => Class::FirstHigher,
                std::cmp::Ordering::Equal => Class::Equal,
                std::cmp::Ordering::Less => Class::SecondHigher,
            }
        });
        let critical = class == Some(Class::Equal)
            && self.compare.is_some_and(|c| c.equal_is_critical)
            && (success || !self.critical_requires_success);
        let outcome = if critical {
            Outcome::Critical
        } else if success {
            Outcome::Success
        } else {
            Outcome::Fail
        };
        (outcome, class)
    }

    /// Which dice the re-roll policy re-rolls after the first roll: none,
    /// every re-rollable die (`failures` on a fail, `non_critical` on anything
    /// but a critical), or the re-rollable dice showing 1 (`ones`, never on a
    /// critical: it would throw the critical away).
    /// With `reroll_when` those dice are re-rolled when a condition listed
    /// there holds instead (never on a critical).
    /// As a bit mask over the dice (a roll has at most 13 dice: validation
    /// bounds the ways it can fall), so the hot loop allocates nothing.
    fn rerolled(
        &self,
        reroll: Reroll,
        outcome: Outcome,
        class: Option<Class>,
        faces: &[u32],
    ) -> u64 {
        if !self.reroll_when.is_empty() && !self.taken(outcome, class) {
            return 0;
        }
        let all = |yes: bool| {
            self.dice
                .iter()
                .enumerate()
                .filter(|(_, d)| yes && d.rerolled)
                .fold(0u64, |m, (i, _)| m | 1 << i)
        };
        let chosen = !self.reroll_when.is_empty();
        match reroll {
            Reroll::None => 0,
            Reroll::Failures => all(chosen || outcome == Outcome::Fail),
            Reroll::NonCritical => all(chosen || outcome != Outcome::Critical),
            Reroll::Ones => self
                .dice
                .iter()
                .zip(faces)
                .enumerate()
                .filter(|(_, (d, &f))| d.rerolled && f == 1 && outcome != Outcome::Critical)
                .fold(0u64, |m, (i, _)| m | 1 << i),
        }
    }

    /// Does a condition of `reroll_when` hold for this roll (never a critical)?
    fn taken(&self, outcome: Outcome, class: Option<Class>) -> bool {
        outcome != Outcome::Critical
            && self.reroll_when.iter().any(|w| match w {
                RerollWhen::Fail => outcome == Outcome::Fail,
                RerollWhen::Success => outcome == Outcome::Success,
                RerollWhen::FirstHigher => class == Some(Class::FirstHigher),
                RerollWhen::Equal => class == Some(Class::Equal),
                RerollWhen::SecondHigher => class == Some(Class::SecondHigher),
            })
    }

    /// Is die `i` part of the roll with these marks set?
    fn active(&self, i: usize, marks: &[bool]) -> bool {
        let (when, unless) = self.marks[i];
        when.is_none_or(|m| marks[m]) && unless.is_none_or(|m| !marks[m])
    }

    /// The roll as it falls with `marks` set: only the dice they leave in,
    /// none of them depending on a mark any more. `None` when a compared
    /// die is left out.
    pub(crate) fn with_marks(&self, marks: &[bool]) -> Option<Roll> {
        let keep: Vec<usize> = (0..self.dice.len())
            .filter(|&i| self.active(i, marks))
            .collect();
        let compare = match self.compare {
            None => None,
            Some(c) => {
                let first = keep.iter().position(|&i| i == c.dice[0])?;
                let second = keep.iter().position(|&i| i == c.dice[1])?;
                Some(Compare {
                    dice: [first, second],
                    ..c
                })
            }
        };
        Some(Roll {
            dice: keep
                .iter()
                .map(|&i| RollDie {
                    when: None,
                    unless: None,
                    ..self.dice[i].clone()
                })
                .collect(),
            marks: vec![(None, None); keep.len()],
            compare,
            ..self.clone()
        })
    }

    /// The ways the dice can fall, twice over for a re-roll: the work of
    /// [`Roll::distribution`].
    pub(crate) fn combinations(&self) -> usize {
        let ways: usize = self.dice.iter().map(|d| d.sides as usize).product();
        ways.saturating_mul(2)
    }

    /// Does any die depend on a mark?
    pub(crate) fn conditional(&self) -> bool {
        self.dice.iter().any(RollDie::conditional)
    }

    /// Roll the dice (in order; a die its marks leave out shows 0 and is not
    /// rolled), re-roll as the policy says, and report them.
    pub(crate) fn roll<D: DiceSource, O: Observer>(
        &self,
        reroll: Reroll,
        step: usize,
        marks: &[bool],
        dice: &mut D,
        obs: &mut O,
        faces: &mut Vec<u32>,
    ) -> (Outcome, Option<Class>) {
        faces.clear();
        for (i, d) in self.dice.iter().enumerate() {
            faces.push(if self.active(i, marks) {
                dice.roll(d.sides)
            } else {
                0
            });
        }
        let (mut outcome, mut class) = self.classify(faces);
        let mut again = self.rerolled(reroll, outcome, class, faces);
        for (i, &f) in faces.iter().enumerate() {
            if f == 0 {
                again &= !(1 << i); // a die its marks left out is not re-rolled
            }
        }
        let first = (again != 0).then(|| faces.clone());
        if again != 0 {
            for (i, d) in self.dice.iter().enumerate() {
                if again & (1 << i) != 0 {
                    faces[i] = dice.roll(d.sides);
                }
            }
            (outcome, class) = self.classify(faces);
        }
        if obs.enabled() {
            obs.event(Event::Dice {
                step,
                dice: faces.clone(),
                rerolled_from: first,
                outcome,
                class,
            });
        }
        (outcome, class)
    }

    /// The exact distribution of (outcome, class), re-rolls included, by
    /// enumerating every way the dice can fall (bounded by validation).
    pub(crate) fn distribution(&self, reroll: Reroll) -> Vec<Classed> {
        let sides: Vec<u32> = self.dice.iter().map(|d| d.sides).collect();
        let weight = |mask: &[bool]| -> f64 {
            sides
                .iter()
                .zip(mask)
                .filter(|(_, &m)| m)
                .map(|(&s, _)| 1.0 / f64::from(s))
                .product()
        };
        let mut out: Vec<Classed> = Vec::new();
        let mut add = |o: Outcome, c: Option<Class>, p: f64| match out
            .iter_mut()
            .find(|e| e.0 == o && e.1 == c)
        {
            Some(e) => e.2 += p,
            None => out.push((o, c, p)),
        };
        let everything = vec![true; sides.len()];
        let p_first = weight(&everything);
        // The second roll's distribution depends only on which dice are
        // re-rolled and the faces of the others: worked out once for each.
        let mut second: std::collections::HashMap<(u64, Vec<u32>), Vec<Classed>> =
            std::collections::HashMap::new();
        for_each_face(&sides, &everything, &vec![1; sides.len()], |faces| {
            let (o, c) = self.classify(faces);
            let mask = self.rerolled(reroll, o, c, faces);
            if mask == 0 {
                add(o, c, p_first);
                return;
            }
            let kept: Vec<u32> = faces
                .iter()
                .enumerate()
                .map(|(i, &f)| if mask & (1 << i) == 0 { f } else { 0 })
                .collect();
            let then = second.entry((mask, kept)).or_insert_with(|| {
                let again: Vec<bool> = (0..sides.len()).map(|i| mask & (1 << i) != 0).collect();
                let p = weight(&again);
                let mut d: Vec<Classed> = Vec::new();
                for_each_face(&sides, &again, faces, |roll| {
                    let (o2, c2) = self.classify(roll);
                    match d.iter_mut().find(|e| e.0 == o2 && e.1 == c2) {
                        Some(e) => e.2 += p,
                        None => d.push((o2, c2, p)),
                    }
                });
                d
            });
            for &(o2, c2, q) in then.iter() {
                add(o2, c2, p_first * q);
            }
        });
        out
    }
}

/// Call `f` with every assignment of faces to the dice marked in `vary`, the
/// others keeping their face in `fixed`.
fn for_each_face(sides: &[u32], vary: &[bool], fixed: &[u32], mut f: impl FnMut(&[u32])) {
    let mut faces: Vec<u32> = fixed
        .iter()
        .zip(vary)
        .map(|(&x, &v)| if v { 1 } else { x })
        .collect();
    loop {
        f(&faces);
        // Next assignment, like an odometer over the varying dice.
        let mut i = 0;
        loop {
            if i == faces.len() {
                return;
            }
            if vary[i] && faces[i] < sides[i] {
                faces[i] += 1;
                break;
            }
            if vary[i] {
                faces[i] = 1;
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roll(dice: &[(u32, bool)], target: i64, modifier: i64) -> Roll {
        Roll {
            dice: dice
                .iter()
                .map(|&(sides, subtract)| RollDie {
                    sides,
                    subtract,
                    rerolled: true,
                    when: None,
                    unless: None,
                })
                .collect(),
            marks: vec![(None, None); dice.len()],
            compare: Some(Compare {
                dice: [0, 1],
                equal_is_critical: true,
            }),
            modifier,
            target,
            critical_requires_success: false,
            reroll_when: Vec::new(),
        }
    }

    fn p(d: &[Classed], o: Outcome, c: Option<Class>) -> f64 {
        d.iter().filter(|e| e.0 == o && e.1 == c).map(|e| e.2).sum()
    }

    #[test]
    fn two_d12_classes_and_doubles() {
        let r = roll(&[(12, false), (12, false)], 100, 0);
        let d = r.distribution(Reroll::None);
        assert!((d.iter().map(|e| e.2).sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((p(&d, Outcome::Critical, Some(Class::Equal)) - 12.0 / 144.0).abs() < 1e-12);
        assert!((p(&d, Outcome::Fail, Some(Class::FirstHigher)) - 66.0 / 144.0).abs() < 1e-12);
    }

    #[test]
    fn sums_with_a_subtracted_die() {
        // 2d12 - d6 + 3 >= 15: count by hand-free brute force.
        let r = roll(&[(12, false), (12, false), (6, true)], 15, 3);
        let mut hits = 0;
        for a in 1..=12 {
            for b in 1..=12 {
                for c in 1..=6 {
                    if a != b && a + b - c + 3 >= 15 {
                        hits += 1;
                    }
                }
            }
        }
        let d = r.distribution(Reroll::None);
        let success = p(&d, Outcome::Success, Some(Class::FirstHigher))
            + p(&d, Outcome::Success, Some(Class::SecondHigher));
        assert!((success - f64::from(hits) / 864.0).abs() < 1e-12);
    }

    #[test]
    fn rerolling_ones_and_failures() {
        // One die compared with itself is not allowed; use two d6, target 12.
        let r = roll(&[(6, false), (6, false)], 13, 0);
        // Nothing succeeds but doubles (criticals): 6/36, and re-rolling
        // failures gives a second chance: 1/6 + 5/6 * 1/6.
        let d = r.distribution(Reroll::Failures);
        let crit: f64 = d
            .iter()
            .filter(|e| e.0 == Outcome::Critical)
            .map(|e| e.2)
            .sum();
        assert!((crit - (1.0 / 6.0 + 5.0 / 6.0 / 6.0)).abs() < 1e-12);
        // Ones: a 1 beside another face is re-rolled; 1+1 is a critical, kept.
        let d = r.distribution(Reroll::Ones);
        let crit: f64 = d
            .iter()
            .filter(|e| e.0 == Outcome::Critical)
            .map(|e| e.2)
            .sum();
        // Doubles 2..6 first (5/36), 1+1 kept (1/36), or one die a 1 and the
        // other x (10 ways): the 1 re-rolled matches x with 1/6.
        let expected = 6.0 / 36.0 + 10.0 / 36.0 / 6.0;
        assert!((crit - expected).abs() < 1e-12, "{crit} vs {expected}");
    }

    #[test]
    fn rerolling_only_when_a_condition_holds() {
        // Two d6 against 13: only doubles (criticals) succeed. Re-rolling
        // both dice only when the second is higher (15 of 36 rolls):
        // criticals 6/36 + 15/36 * 6/36, first higher 15/36 + 15/36 * 15/36.
        let mut r = roll(&[(6, false), (6, false)], 13, 0);
        r.reroll_when = vec![RerollWhen::SecondHigher];
        let d = r.distribution(Reroll::Failures);
        let crit = p(&d, Outcome::Critical, Some(Class::Equal));
        assert!((crit - (6.0 / 36.0 + 15.0 / 36.0 * 6.0 / 36.0)).abs() < 1e-12);
        let first = p(&d, Outcome::Fail, Some(Class::FirstHigher));
        assert!((first - (15.0 / 36.0 + 15.0 / 36.0 * 15.0 / 36.0)).abs() < 1e-12);
        // Ones, only when the second is higher: a 1 on the first die beside
        // x > 1 (5 rolls) is re-rolled; a 1 on the second (first higher) is kept.
        let d = r.distribution(Reroll::Ones);
        let crit = p(&d, Outcome::Critical, Some(Class::Equal));
        assert!((crit - (6.0 / 36.0 + 5.0 / 36.0 / 6.0)).abs() < 1e-12);
        // The second die re-rolled alone: the first is not re-rollable.
        r.dice[0].rerolled = false;
        r.reroll_when = vec![RerollWhen::Fail];
        let d = r.distribution(Reroll::Failures);
        let crit = p(&d, Outcome::Critical, Some(Class::Equal));
        assert!((crit - (6.0 / 36.0 + 30.0 / 36.0 / 6.0)).abs() < 1e-12);
    }
}
