//! Dice expressions: `3`, `D3`, `D6+1`, `2D6`, `2D3+1`, `D6-1`.
//!
//! An expression is parsed once into a [`DiceExpr`] and then rolled many times,
//! so the parser can afford to be strict and to explain what it rejects.

use crate::error::CoreError;
use crate::rng::DiceSource;
use serde::{Deserialize, Deserializer};

pub use crate::limits::{MAX_CONSTANT, MAX_DICE, MAX_SIDES};

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

    /// Parse one expression of the grammar in `docs/scenario-files.md`:
    ///
    /// ```text
    /// expression := blank* (number | dice) blank*
    /// dice       := [number] ("D" | "d") number [blank* ("+" | "-") blank* number]
    /// number     := "0" | nonzero digit*       (ASCII digits, no leading zero)
    /// blank      := " " | tab
    /// ```
    ///
    /// Anything else is refused with the column (counted in characters, from
    /// 1) where it stops fitting: `"D6 1"` is not `D61`, nor `"1 0"` `10`.
    ///
    /// # Errors
    /// [`CoreError::Dice`] quoting the expression and saying what is wrong
    /// and where.
    pub fn parse(text: &str) -> Result<Self, CoreError> {
        Parser::new(text).expression()
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
        let sides = f64::from(self.sides);
        let open = f64::from(self.count) * (sides + 1.0) / 2.0 + self.constant as f64;
        // A value below zero is read as zero (see `roll`): when the dice can
        // fall below `-constant`, add back E[max(-value, 0)], from the chances
        // of the dice's sums under that (`below` is how far under zero a sum
        // of zero would leave the value).
        let Ok(below) = usize::try_from(-self.constant) else {
            return open;
        };
        if below <= self.count as usize {
            return open;
        }
        // sums[s] = P(the dice so far sum to s), kept for s < below only.
        let mut sums = vec![0.0; below];
        sums[0] = 1.0;
        for _ in 0..self.count {
            let mut next = vec![0.0; below];
            // A running sum over the last `sides` entries.
            let mut window = 0.0;
            for t in 1..below {
                window += sums[t - 1];
                if t > self.sides as usize {
                    window -= sums[t - 1 - self.sides as usize];
                }
                next[t] = window / sides;
            }
            sums = next;
        }
        let under: f64 = sums
            .iter()
            .enumerate()
            .map(|(s, q)| q * (below - s) as f64)
            .sum();
        // Rounding must not carry the mean past what the dice can show.
        (open + under).clamp(f64::from(self.min()), f64::from(self.max()))
    }
}

/// Which results of a roll are rolled again, once, before any modifier.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default, Hash)]
#[serde(rename_all = "snake_case")]
pub enum DiceReroll {
    #[default]
    None,
    /// Each die showing 1 is rolled again.
    Ones,
    /// The whole roll is rolled again when its dice sum to less than their
    /// average (a D6 showing 1-3, 2D6 summing to 6 or less).
    BelowAverage,
}

/// A dice expression rolled with a re-roll policy, then modified: the value
/// is multiplied by `multiplier`, `bonus` is added (never below 0), and the
/// result is raised to `minimum`. Multiplying before adding is the order in
/// which rulesets apply such modifiers (40k: multiply, then add).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModifiedDice {
    pub dice: DiceExpr,
    pub reroll: DiceReroll,
    pub multiplier: u32,
    pub bonus: i64,
    pub minimum: u32,
}

impl From<DiceExpr> for ModifiedDice {
    fn from(dice: DiceExpr) -> Self {
        ModifiedDice {
            dice,
            reroll: DiceReroll::None,
            multiplier: 1,
            bonus: 0,
            minimum: 0,
        }
    }
}

impl ModifiedDice {
    /// True when neither a re-roll nor a modifier changes the dice.
    #[must_use]
    pub fn is_plain(&self) -> bool {
        *self == ModifiedDice::from(self.dice)
    }

    /// True when rolling is needed.
    #[must_use]
    pub fn is_random(&self) -> bool {
        self.dice.is_random()
    }

    /// The value of an unmodified result `rolled` (the dice with their constant).
    #[must_use]
    pub fn modify(&self, rolled: u32) -> u32 {
        let v = i64::from(rolled) * i64::from(self.multiplier) + self.bonus;
        (v.max(0) as u32).max(self.minimum)
    }

    /// The smallest value it can give (the modifiers never lower a value).
    #[must_use]
    pub fn min(&self) -> u32 {
        self.modify(self.dice.min())
    }

    /// The largest value it can give.
    #[must_use]
    pub fn max(&self) -> u32 {
        self.modify(self.dice.max())
    }

    /// Is a sum of the dice (without the constant) below their average?
    fn below_average(&self, sum: i64) -> bool {
        2 * sum < i64::from(self.dice.count) * (i64::from(self.dice.sides) + 1)
    }

    /// The dice's sum, each die showing 1 rolled again under `Ones`.
    fn roll_sum<D: DiceSource>(&self, dice: &mut D) -> i64 {
        let mut sum = 0;
        for _ in 0..self.dice.count {
            let mut face = dice.roll(self.dice.sides);
            if face == 1 && self.reroll == DiceReroll::Ones {
                face = dice.roll(self.dice.sides);
            }
            sum += i64::from(face);
        }
        sum
    }

    /// Roll it once with `dice`: the same draws as [`DiceExpr::roll`] when plain.
    pub fn roll<D: DiceSource>(&self, dice: &mut D) -> u32 {
        let mut sum = self.roll_sum(dice);
        if self.reroll == DiceReroll::BelowAverage && self.below_average(sum) {
            sum = self.roll_sum(dice);
        }
        self.modify((sum + self.dice.constant).max(0) as u32)
    }

    /// Roll it once, and roll a result below the average again (a re-roll
    /// of its own); also says whether that re-roll was used. Under its own
    /// re-roll policy every result was rolled again already where it could
    /// be, so the extra one is never used then.
    pub fn roll_once_more<D: DiceSource>(&self, dice: &mut D) -> (u32, bool) {
        if self.reroll != DiceReroll::None {
            return (self.roll(dice), false);
        }
        let mut sum = self.roll_sum(dice);
        let again = self.below_average(sum);
        if again {
            sum = self.roll_sum(dice);
        }
        (self.modify((sum + self.dice.constant).max(0) as u32), again)
    }

    /// The exact distribution: `pmf[v]` is the probability of value `v`.
    #[must_use]
    pub fn distribution(&self) -> Vec<f64> {
        if self.is_plain() {
            return self.dice.distribution();
        }
        let d = self.dice;
        let sides = d.sides as usize;
        // One die's faces: under `Ones` a 1 is rolled again, so each face
        // gains the chance of a first 1 times its own.
        let mut face = vec![0.0; sides + 1];
        if sides > 0 {
            let p = 1.0 / sides as f64;
            for f in face.iter_mut().skip(1) {
                *f = p;
            }
            if self.reroll == DiceReroll::Ones {
                for f in face.iter_mut().skip(1) {
                    *f = p * p;
                }
                for f in face.iter_mut().skip(2) {
                    *f += p;
                }
            }
        }
        let mut sums = vec![1.0_f64];
        for _ in 0..d.count {
            let mut next = vec![0.0; sums.len() + sides];
            for (s, &q) in sums.iter().enumerate() {
                for (k, &pf) in face.iter().enumerate().skip(1) {
                    next[s + k] += q * pf;
                }
            }
            sums = next;
        }
        if self.reroll == DiceReroll::BelowAverage {
            let low: f64 = (0..sums.len())
                .filter(|&s| self.below_average(s as i64))
                .map(|s| sums[s])
                .sum();
            let again = sums.clone();
            for (s, q) in sums.iter_mut().enumerate() {
                let kept = if self.below_average(s as i64) {
                    0.0
                } else {
                    *q
                };
                *q = kept + low * again[s];
            }
        }
        let mut pmf = vec![0.0; self.max() as usize + 1];
        for (s, &q) in sums.iter().enumerate() {
            if q > 0.0 {
                let v = self.modify((s as i64 + d.constant).max(0) as u32);
                pmf[v as usize] += q;
            }
        }
        pmf
    }

    /// The roll split as [`ModifiedDice::roll_once_more`] uses it: `kept[v]`
    /// is the chance the first roll gives `v` and is kept (not below the
    /// average), and `again[v]` the chance it is below the average, is rolled
    /// again, and then gives `v`. `kept` plus `again` is the distribution with
    /// the re-roll; without the re-roll of a low roll, the dice give
    /// [`ModifiedDice::distribution`]. Under a re-roll policy of its own the
    /// extra one is never used: `again` is all zero.
    #[must_use]
    pub fn once_more_split(&self) -> (Vec<f64>, Vec<f64>) {
        let full = self.distribution();
        if self.reroll != DiceReroll::None {
            let none = vec![0.0; full.len()];
            return (full, none);
        }
        let d = self.dice;
        let sides = d.sides as usize;
        let mut sums = vec![1.0_f64];
        for _ in 0..d.count {
            let mut next = vec![0.0; sums.len() + sides];
            for (s, &q) in sums.iter().enumerate() {
                for k in 1..=sides {
                    next[s + k] += q / sides as f64;
                }
            }
            sums = next;
        }
        let mut kept = vec![0.0; full.len()];
        let mut low = 0.0;
        for (s, &q) in sums.iter().enumerate() {
            if q == 0.0 {
                continue;
            }
            if self.below_average(s as i64) {
                low += q;
            } else {
                let v = self.modify((s as i64 + d.constant).max(0) as u32);
                kept[v as usize] += q;
            }
        }
        let again = full.iter().map(|&p| p * low).collect();
        (kept, again)
    }

    /// The expected value.
    #[must_use]
    pub fn mean(&self) -> f64 {
        if self.is_plain() {
            return self.dice.mean();
        }
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

/// A scanner over the characters of one expression, for [`DiceExpr::parse`].
struct Parser<'a> {
    text: &'a str,
    chars: Vec<char>,
    at: usize,
}

/// What the parser read where a number belongs.
struct Number {
    value: u32,
    column: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            text,
            chars: text.chars().collect(),
            at: 0,
        }
    }

    fn error(&self, reason: impl Into<String>) -> CoreError {
        CoreError::Dice {
            expr: self.text.to_string(),
            reason: reason.into(),
        }
    }

    /// An error at the current character: what was found there, and what
    /// the grammar expected instead.
    fn unexpected(&self, expected: &str) -> CoreError {
        let found = match self.peek() {
            None => "the end".to_string(),
            Some(c) => format!("{:?}", c.to_string()),
        };
        self.error(format!(
            "at column {}, found {found}; expected {expected}",
            self.at + 1
        ))
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.at += 1;
        }
    }

    /// A run of ASCII digits, if one starts here. Values past `u32` saturate,
    /// so `99999999999D6` is refused as too many dice, not as malformed.
    fn number(&mut self) -> Result<Option<Number>, CoreError> {
        let column = self.at + 1;
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        let digits: String = self.chars[start..self.at].iter().collect();
        if digits.is_empty() {
            return Ok(None);
        }
        if digits.len() > 1 && digits.starts_with('0') {
            let plain = match digits.trim_start_matches('0') {
                "" => "0",
                plain => plain,
            };
            return Err(self.error(format!(
                "at column {column}, the number {digits} has a leading zero; write {plain}"
            )));
        }
        let value = digits
            .parse::<u64>()
            .map_or(u32::MAX, |n| n.min(u64::from(u32::MAX)) as u32);
        Ok(Some(Number { value, column }))
    }

    fn expression(mut self) -> Result<DiceExpr, CoreError> {
        self.blanks();
        if self.peek().is_none() {
            return Err(
                self.error("is empty; write a number such as 2 or a dice expression such as D6+1")
            );
        }
        if self.peek() == Some('-') {
            return Err(self.error(
                "at column 1, found \"-\": is negative; a count or characteristic cannot be below 0",
            ));
        }
        let count = self.number()?;
        let expr = if matches!(self.peek(), Some('D' | 'd')) {
            self.at += 1;
            self.dice(count)?
        } else if let Some(n) = count {
            let value = self.constant(&n)?;
            DiceExpr::fixed(value)
        } else {
            return Err(self.unexpected("a whole number, as in 2, or dice, as in D6 or 2D6+1"));
        };
        self.blanks();
        if self.peek().is_some() {
            let expected = if expr.is_random() {
                "the end (dice take at most one + or - and a number, as in 2D6+1)"
            } else {
                "D or the end (a number is written alone, as in 2, or before D, as in 2D6)"
            };
            return Err(self.unexpected(expected));
        }
        Ok(expr)
    }

    fn constant(&self, n: &Number) -> Result<u32, CoreError> {
        if i64::from(n.value) > MAX_CONSTANT {
            return Err(self.error(format!(
                "at column {}, the constant {} is above the largest allowed, {MAX_CONSTANT}",
                n.column, n.value
            )));
        }
        Ok(n.value)
    }

    /// Everything after the `D`, given the number of dice before it.
    fn dice(&mut self, count: Option<Number>) -> Result<DiceExpr, CoreError> {
        let Some(sides) = self.number()? else {
            return Err(self.unexpected("the number of sides after D, as in D6"));
        };
        let count = match count {
            None => 1,
            Some(Number { value: 0, column }) => {
                return Err(self.error(format!(
                    "at column {column}, rolls no dice; use at least 1 die, as in 1D6"
                )))
            }
            Some(Number { value, column }) if value > MAX_DICE => {
                return Err(self.error(format!(
                    "at column {column}, rolls {value} dice; at most {MAX_DICE} dice are allowed"
                )))
            }
            Some(n) => n.value,
        };
        if sides.value < 2 {
            return Err(self.error(format!(
                "at column {}, a die needs at least 2 sides, not {}",
                sides.column, sides.value
            )));
        }
        if sides.value > MAX_SIDES {
            return Err(self.error(format!(
                "at column {}, a die has at most {MAX_SIDES} sides, not {}",
                sides.column, sides.value
            )));
        }
        let mut expr = DiceExpr {
            count,
            sides: sides.value,
            constant: 0,
        };
        self.blanks();
        let sign = match self.peek() {
            Some('+') => 1,
            Some('-') => -1,
            _ => return Ok(expr),
        };
        self.at += 1;
        self.blanks();
        let Some(n) = self.number()? else {
            return Err(self.unexpected("a whole number after + or -, as in D6+1"));
        };
        expr.constant = sign * i64::from(self.constant(&n)?);
        Ok(expr)
    }
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
    use crate::rng::Stream;

    fn modified(text: &str, reroll: DiceReroll, multiplier: u32, bonus: i64) -> ModifiedDice {
        ModifiedDice {
            dice: DiceExpr::parse(text).unwrap(),
            reroll,
            multiplier,
            bonus,
            minimum: 1,
        }
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len(), "{a:?} against {b:?}");
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-12, "{a:?} against {b:?}");
        }
    }

    #[test]
    fn modified_dice_distributions_by_hand() {
        let s = 1.0 / 36.0;
        // Ones re-rolled: a 1 twice (1/36); any other face 1/6 + 1/36.
        let ones = modified("D6", DiceReroll::Ones, 1, 0);
        close(
            &ones.distribution(),
            &[0.0, s, 7.0 * s, 7.0 * s, 7.0 * s, 7.0 * s, 7.0 * s],
        );
        // Below the average (1-3) rolled again: 1/12 each for 1-3, 1/4 each for 4-6.
        let low = modified("D6", DiceReroll::BelowAverage, 1, 0);
        let (a, b) = (1.0 / 12.0, 0.25);
        close(&low.distribution(), &[0.0, a, a, a, b, b, b]);
        // Doubled, then 1 taken off: D3 gives 1, 3, 5; with -3, raised to 1: 1, 1, 3.
        let third = 1.0 / 3.0;
        let doubled = modified("D3", DiceReroll::None, 2, -1);
        close(
            &doubled.distribution(),
            &[0.0, third, 0.0, third, 0.0, third],
        );
        let floored = modified("D3", DiceReroll::None, 2, -3);
        close(&floored.distribution(), &[0.0, 2.0 * third, 0.0, third]);
        assert_eq!((floored.min(), floored.max()), (1, 3));
        // 2D6 below 7 rolled again whole: P(keep 7) = 6/36 + (15/36) * (6/36).
        let two = modified("2D6", DiceReroll::BelowAverage, 1, 0);
        let pmf = two.distribution();
        assert!((pmf[7] - (6.0 / 36.0 + 15.0 / 36.0 * 6.0 / 36.0)).abs() < 1e-12);
        assert!((pmf.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(
            (two.mean()
                - pmf
                    .iter()
                    .enumerate()
                    .map(|(v, p)| v as f64 * p)
                    .sum::<f64>())
            .abs()
                < 1e-12
        );
    }

    #[test]
    fn modified_dice_roll_as_their_distribution_says() {
        for m in [
            modified("D6", DiceReroll::Ones, 2, 1),
            modified("2D3+1", DiceReroll::BelowAverage, 1, -2),
            modified("D6", DiceReroll::BelowAverage, 2, 0),
        ] {
            let pmf = m.distribution();
            let mut seen = vec![0u32; pmf.len()];
            let mut rng = Stream::new(5, 0);
            let n = 60_000;
            for _ in 0..n {
                seen[m.roll(&mut rng) as usize] += 1;
            }
            for (v, &p) in pmf.iter().enumerate() {
                let se = (p * (1.0 - p) / f64::from(n)).sqrt();
                let got = f64::from(seen[v]) / f64::from(n);
                assert!(
                    (got - p).abs() <= 5.0 * se + 1e-12,
                    "{m:?}: value {v}, {got} against {p}"
                );
            }
        }
    }

    #[test]
    fn plain_modified_dice_draw_as_the_expression_does() {
        let d = DiceExpr::parse("2D6+1").unwrap();
        let (mut a, mut b) = (Stream::new(9, 0), Stream::new(9, 0));
        for _ in 0..100 {
            assert_eq!(ModifiedDice::from(d).roll(&mut a), d.roll(&mut b));
        }
    }

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
            ("   ", "empty"),
            ("D", "number of sides"),
            ("0D6", "no dice"),
            ("2X6", "the end"),
            ("D6+1.5", "the end"),
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

    /// Strings a lenient parser misreads, each with the column where it
    /// stops fitting the grammar.
    #[test]
    fn refuses_what_the_grammar_does_not_allow_at_its_column() {
        for (text, column) in [
            ("D6 1", 4),   // not D61
            ("1 0", 3),    // not 10
            ("D6+1 0", 6), // not D6+10
            ("2 D6", 3),
            ("D 6", 2),
            ("2D6+1+1", 6),
            ("D6+-1", 4),
            ("+3", 1),
            ("3+1", 2),
            ("06", 1),
            ("D06", 2),
            ("D6+01", 4),
            ("D6\u{a0}+1", 3), // a no-break space is not a blank
            ("D6\n", 3),
            ("D\u{ff16}", 2), // a full-width 6 is not an ASCII digit
            ("\u{661}", 1),   // nor an Arabic-Indic 1
            ("２D6", 1),
            ("D6x", 3),
            ("1d6d6", 4),
            ("D6 + ", 6),
            ("d", 2),
            ("D0", 2),
            ("0D6", 1),
            ("200D6", 1),
            ("D6+99999", 4),
        ] {
            let e = DiceExpr::parse(text).unwrap_err().to_string();
            assert!(
                e.contains(&format!("at column {column},")),
                "{text:?} gave {e:?}, expected column {column}"
            );
            assert!(e.starts_with(&format!("dice expression {text:?}: ")), "{e}");
        }
    }

    #[test]
    fn allows_blanks_around_the_expression_and_the_sign_and_either_case() {
        for (text, expect) in [
            (" 2D3 + 1 ", "2D3+1"),
            ("\td6\t-\t1", "D6-1"),
            ("2d6", "2D6"),
            ("0", "0"),
            ("D6+0", "D6"),
            ("100D1000+10000", "100D1000+10000"),
        ] {
            assert_eq!(
                DiceExpr::parse(text).unwrap().to_string(),
                expect,
                "{text:?}"
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
        // Values below zero count as zero: D6-3 is 0, 0, 0, 1, 2, 3.
        assert!((DiceExpr::parse("D6-3").unwrap().mean() - 1.0).abs() < 1e-12);
        assert!(DiceExpr::parse("2D6-20").unwrap().mean().abs() < 1e-12);
        // Never past the values the dice can show, rounding included.
        for text in ["D3-4", "D6-7", "2D6-13", "D3-3"] {
            let d = DiceExpr::parse(text).unwrap();
            assert!(
                f64::from(d.min()) <= d.mean() && d.mean() <= f64::from(d.max()),
                "{text}"
            );
        }
        // Without the clamp it is the open form, for any size.
        assert!((DiceExpr::parse("85D765").unwrap().mean() - 85.0 * 383.0).abs() < 1e-9);
        for text in ["3D6-5", "2D3-3", "4D4-9", "D3+1", "10D6-12"] {
            let d = DiceExpr::parse(text).unwrap();
            let from_pmf: f64 = d
                .distribution()
                .iter()
                .enumerate()
                .map(|(v, p)| v as f64 * p)
                .sum();
            assert!((d.mean() - from_pmf).abs() < 1e-12, "{text}");
        }
    }

    #[test]
    fn displays_canonically() {
        for s in ["3", "D3", "D6+1", "2D6", "2D3+1", "D6-1"] {
            assert_eq!(DiceExpr::parse(s).unwrap().to_string(), s);
        }
    }
}
