//! Dice expressions: `3`, `D3`, `D6+1`, `2D6`, `2D3+1`, `D6-1`.
//!
//! An expression is parsed once into a [`DiceExpr`] and then rolled many times,
//! so the parser can afford to be strict and to explain what it rejects.

use crate::error::CoreError;
use crate::rng::DiceSource;
use serde::{Deserialize, Deserializer};

/// The most dice one expression may roll. Far above any datasheet (`2D6` is
/// common, `6D6` rare) and low enough that a typo such as `99999999D6` is
/// refused instead of stalling a million-trial run.
pub const MAX_DICE: u32 = 100;
/// The largest die: d6, d3, d12 and d20 systems all fit comfortably.
pub const MAX_SIDES: u32 = 1000;
/// The largest constant term.
pub const MAX_CONSTANT: i64 = 10_000;

/// A parsed dice expression: `count` dice of `sides` sides plus `constant`.
///
/// A plain number is `count = 0`. The value rolled is never below zero: a
/// `D6-2` that rolls 1 gives 0 (rulesets that need a floor of 1 apply it
/// themselves, where their rules say so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiceExpr {
    pub count: u32,
    pub sides: u32,
    pub constant: i64,
}

impl DiceExpr {
    /// A constant expression.
    #[must_use]
    pub fn fixed(value: u32) -> Self {
        DiceExpr {
            count: 0,
            sides: 0,
            constant: i64::from(value),
        }
    }

    /// Parse `NdS+K`, `DS`, `NdS-K` or `K`, case-insensitive, spaces allowed.
    ///
    /// # Errors
    /// [`CoreError::Dice`] naming the expression and what is wrong with it.
    pub fn parse(text: &str) -> Result<Self, CoreError> {
        let err = |reason: &str| CoreError::Dice {
            expr: text.to_string(),
            reason: reason.to_string(),
        };
        let s: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_uppercase();
        if s.is_empty() {
            return Err(err(
                "is empty; write a number such as 2 or a dice expression such as D6+1",
            ));
        }
        let (dice_part, constant_part) = match s.find('D') {
            None => (None, Some(s.as_str())),
            Some(d) => {
                let after = &s[d + 1..];
                let split = after.find(['+', '-']).map_or(after.len(), |i| i);
                let constant = &after[split..];
                (
                    Some((&s[..d], &after[..split])),
                    if constant.is_empty() {
                        None
                    } else {
                        Some(constant)
                    },
                )
            }
        };
        let mut expr = DiceExpr {
            count: 0,
            sides: 0,
            constant: 0,
        };
        if let Some((count, sides)) = dice_part {
            expr.count = if count.is_empty() {
                1
            } else {
                parse_number(count).ok_or_else(|| {
                    err("the number of dice before D must be a whole number, as in 2D6")
                })?
            };
            if sides.is_empty() {
                return Err(err("D must be followed by the number of sides, as in D6"));
            }
            expr.sides = parse_number(sides).ok_or_else(|| {
                err("the number of sides after D must be a whole number, as in D6")
            })?;
            if expr.count == 0 {
                return Err(err("rolls no dice; use at least 1 die, as in 1D6"));
            }
            if expr.count > MAX_DICE {
                return Err(err(&format!(
                    "rolls {} dice; at most {MAX_DICE} dice are allowed",
                    expr.count
                )));
            }
            if expr.sides < 2 {
                return Err(err(&format!(
                    "a die needs at least 2 sides, not {}",
                    expr.sides
                )));
            }
            if expr.sides > MAX_SIDES {
                return Err(err(&format!(
                    "a die has at most {MAX_SIDES} sides, not {}",
                    expr.sides
                )));
            }
        }
        if let Some(c) = constant_part {
            let (sign, digits) = match c.as_bytes()[0] {
                b'+' => (1, &c[1..]),
                b'-' => (-1, &c[1..]),
                _ => (1, c),
            };
            if dice_part.is_none() && sign == -1 {
                return Err(err(
                    "is negative; a count or characteristic cannot be below 0",
                ));
            }
            let n = parse_number(digits)
                .ok_or_else(|| err("the term after + or - must be a whole number, as in D6+1"))?;
            if i64::from(n) > MAX_CONSTANT {
                return Err(err(&format!(
                    "the constant {n} is above the largest allowed, {MAX_CONSTANT}"
                )));
            }
            expr.constant = sign * i64::from(n);
        }
        Ok(expr)
    }

    /// True when rolling is needed.
    #[must_use]
    pub fn is_random(&self) -> bool {
        self.count > 0
    }

    /// The smallest value it can give.
    #[must_use]
    pub fn min(&self) -> u32 {
        (i64::from(self.count) + self.constant).max(0) as u32
    }

    /// The largest value it can give.
    #[must_use]
    pub fn max(&self) -> u32 {
        (i64::from(self.count) * i64::from(self.sides) + self.constant).max(0) as u32
    }

    /// Roll it once with `dice`.
    pub fn roll<D: DiceSource>(&self, dice: &mut D) -> u32 {
        let mut total = self.constant;
        for _ in 0..self.count {
            total += i64::from(dice.roll(self.sides));
        }
        total.max(0) as u32
    }

    /// The exact distribution: `pmf[v]` is the probability of value `v`.
    #[must_use]
    pub fn distribution(&self) -> Vec<f64> {
        let mut sums = vec![1.0_f64];
        for _ in 0..self.count {
            let mut next = vec![0.0; sums.len() + self.sides as usize];
            let p = 1.0 / f64::from(self.sides);
            for (s, &q) in sums.iter().enumerate() {
                for face in 1..=self.sides as usize {
                    next[s + face] += q * p;
                }
            }
            sums = next;
        }
        let mut pmf = vec![0.0; self.max() as usize + 1];
        for (s, &q) in sums.iter().enumerate() {
            if q > 0.0 {
                let v = (s as i64 + self.constant).max(0) as usize;
                pmf[v] += q;
            }
        }
        pmf
    }

    /// The expected value.
    #[must_use]
    pub fn mean(&self) -> f64 {
        self.distribution()
            .iter()
            .enumerate()
            .map(|(v, p)| v as f64 * p)
            .sum()
    }
}

impl std::fmt::Display for DiceExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.count == 0 {
            return write!(f, "{}", self.constant);
        }
        if self.count > 1 {
            write!(f, "{}", self.count)?;
        }
        write!(f, "D{}", self.sides)?;
        match self.constant {
            0 => Ok(()),
            c if c > 0 => write!(f, "+{c}"),
            c => write!(f, "{c}"),
        }
    }
}

fn parse_number(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Saturate rather than fail on overflow so `99999999999D6` is reported as
    // too many dice, not as a malformed number.
    Some(
        s.parse::<u64>()
            .map_or(u32::MAX, |n| n.min(u64::from(u32::MAX)) as u32),
    )
}

impl<'de> Deserialize<'de> for DiceExpr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u32),
            Text(String),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Number(n) => Ok(DiceExpr::fixed(n)),
            Raw::Text(t) => DiceExpr::parse(&t).map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_datasheet_forms() {
        assert_eq!(
            DiceExpr::parse("3").unwrap(),
            DiceExpr {
                count: 0,
                sides: 0,
                constant: 3
            }
        );
        assert_eq!(
            DiceExpr::parse("D3").unwrap(),
            DiceExpr {
                count: 1,
                sides: 3,
                constant: 0
            }
        );
        assert_eq!(
            DiceExpr::parse("d6+1").unwrap(),
            DiceExpr {
                count: 1,
                sides: 6,
                constant: 1
            }
        );
        assert_eq!(
            DiceExpr::parse("2D6").unwrap(),
            DiceExpr {
                count: 2,
                sides: 6,
                constant: 0
            }
        );
        assert_eq!(
            DiceExpr::parse(" 2D3 + 1 ").unwrap(),
            DiceExpr {
                count: 2,
                sides: 3,
                constant: 1
            }
        );
        assert_eq!(
            DiceExpr::parse("D6-1").unwrap(),
            DiceExpr {
                count: 1,
                sides: 6,
                constant: -1
            }
        );
        assert_eq!(DiceExpr::parse("0").unwrap(), DiceExpr::fixed(0));
    }

    #[test]
    fn refuses_nonsense_with_a_reason() {
        for (text, needle) in [
            ("D0", "at least 2 sides"),
            ("D1", "at least 2 sides"),
            ("-1", "negative"),
            ("1000000D6", "at most 100 dice"),
            ("99999999999D6", "at most 100 dice"),
            ("D6++", "whole number"),
            ("", "empty"),
            ("D", "number of sides"),
            ("0D6", "no dice"),
            ("2X6", "whole number"),
            ("D6+1.5", "whole number"),
            ("D1001", "at most 1000 sides"),
            ("99999", "largest allowed"),
        ] {
            let e = DiceExpr::parse(text).unwrap_err().to_string();
            assert!(
                e.contains(needle),
                "{text:?} gave {e:?}, expected it to mention {needle:?}"
            );
            assert!(
                e.contains(&format!("{text:?}")),
                "{e} should quote the expression"
            );
        }
    }

    #[test]
    fn distribution_matches_counting() {
        let d = DiceExpr::parse("2D3+1").unwrap().distribution();
        // 2D3 sums 2..6 with weights 1,2,3,2,1; +1 shifts to 3..7.
        let expect = [0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 2.0, 1.0].map(|w| w / 9.0);
        assert_eq!(d.len(), expect.len());
        for (a, b) in d.iter().zip(expect) {
            assert!((a - b).abs() < 1e-15);
        }
        let floor = DiceExpr::parse("D6-2").unwrap().distribution();
        assert!(
            (floor[0] - 2.0 / 6.0).abs() < 1e-15,
            "1 and 2 both floor to 0"
        );
        assert!((DiceExpr::parse("D6").unwrap().mean() - 3.5).abs() < 1e-15);
    }

    #[test]
    fn displays_canonically() {
        for s in ["3", "D3", "D6+1", "2D6", "2D3+1", "D6-1"] {
            assert_eq!(DiceExpr::parse(s).unwrap().to_string(), s);
        }
    }
}
