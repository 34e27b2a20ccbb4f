//! Walker's alias method: draw from a fixed discrete distribution with one
//! random word, whatever its size.

use crate::rng::Stream;

/// A table for drawing index `i` with probability `p[i]`.
#[derive(Debug, Clone)]
pub struct AliasTable {
    /// `threshold[i] / 2^64` is the chance of keeping `i` once its column is drawn.
    threshold: Vec<u64>,
    alias: Vec<u32>,
}

impl AliasTable {
    /// Build from probabilities that sum to 1 (they are renormalised).
    ///
    /// # Panics
    /// If `p` is empty or has 2^32 entries or more.
    #[must_use]
    pub fn new(p: &[f64]) -> Self {
        let n = p.len();
        assert!(
            n > 0 && n < u32::MAX as usize,
            "alias table needs 1 to 2^32-1 entries"
        );
        let total: f64 = p.iter().sum();
        let mut scaled: Vec<f64> = p.iter().map(|&x| x * n as f64 / total).collect();
        let mut alias: Vec<u32> = (0..n as u32).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..n).partition(|&i| scaled[i] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            alias[s] = l as u32;
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // Whatever is left is 1 up to rounding: keep it always.
        for i in small.into_iter().chain(large) {
            scaled[i] = 1.0;
        }
        let threshold = scaled
            .iter()
            .map(|&s| {
                if s >= 1.0 {
                    u64::MAX
                } else {
                    (s * 18_446_744_073_709_551_616.0) as u64
                }
            })
            .collect();
        AliasTable { threshold, alias }
    }

    /// How many entries it draws from.
    #[must_use]
    pub fn len(&self) -> usize {
        self.threshold.len()
    }

    /// Is it empty? (Never: [`Self::new`] needs one entry.)
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.threshold.is_empty()
    }

    /// One draw. The column comes from the high half of `word * n` and the
    /// coin from its low half, so one 64-bit word serves both with a bias
    /// below n / 2^64.
    #[inline]
    pub fn sample(&self, stream: &mut Stream) -> usize {
        self.pick(stream.next_u64())
    }

    /// The draw a random word `word` makes.
    #[inline]
    pub(crate) fn pick(&self, word: u64) -> usize {
        let wide = u128::from(word) * self.threshold.len() as u128;
        let column = (wide >> 64) as usize;
        if (wide as u64) < self.threshold[column] {
            column
        } else {
            self.alias[column] as usize
        }
    }
}

/// An alias table whose entries carry the values drawn, so a draw reads one
/// entry (one cache line) and chooses between its two values without a
/// branch. It draws the same index as [`AliasTable`] from the same word.
#[derive(Debug, Clone)]
pub struct ValueAlias {
    /// Per column: the threshold, the column's value, its alias's value.
    entries: Vec<(u64, u64, u64)>,
}

impl ValueAlias {
    /// Draw `values[i]` with probability `p[i]`.
    ///
    /// # Panics
    /// As [`AliasTable::new`], or if `values` is shorter than `p`.
    #[must_use]
    pub fn new(p: &[f64], values: &[u64]) -> Self {
        Self::from_table(&AliasTable::new(p), values)
    }

    /// Draw `values[i]` where `table` draws `i`, from the same word.
    ///
    /// # Panics
    /// If `values` is shorter than the table.
    #[must_use]
    pub fn from_table(table: &AliasTable, values: &[u64]) -> Self {
        let entries = (0..table.threshold.len())
            .map(|i| {
                (
                    table.threshold[i],
                    values[i],
                    values[table.alias[i] as usize],
                )
            })
            .collect();
        ValueAlias { entries }
    }

    /// The same draws with each value `v` replaced by `f(v)`.
    #[must_use]
    pub fn map(&self, f: impl Fn(u64) -> u64) -> Self {
        let entries = self
            .entries
            .iter()
            .map(|&(threshold, own, alias)| (threshold, f(own), f(alias)))
            .collect();
        ValueAlias { entries }
    }

    /// Per column, as [`ValueAlias::pick32`] reads it: the last low part
    /// of a draw ([`split32`]) that keeps the column's own value (`None`
    /// when none does), the column's value, and its alias's value.
    pub(crate) fn columns32(&self) -> impl Iterator<Item = (Option<u32>, u64, u64)> + '_ {
        self.entries.iter().map(|&(threshold, own, alias)| {
            // `low << 32 < threshold` holds for `low < ⌈threshold / 2^32⌉`.
            let keep_below = threshold.div_ceil(1 << 32);
            (
                keep_below.checked_sub(1).map(|last| last as u32),
                own,
                alias,
            )
        })
    }

    /// The table with these columns: (threshold, own value, alias value),
    /// as [`ValueAlias::pick32`] reads them.
    #[cfg(test)]
    pub(crate) fn from_columns(entries: Vec<(u64, u64, u64)>) -> Self {
        ValueAlias { entries }
    }

    /// One draw (see [`AliasTable::sample`]).
    #[inline]
    pub fn sample(&self, stream: &mut Stream) -> u64 {
        self.pick(stream.next_u64())
    }

    /// The draw 32 random bits `half` make: the column from the high part
    /// of `half * columns`, the choice within it from the low part (so each
    /// value's chance is off by less than 2^-32 a column).
    #[inline]
    pub(crate) fn pick32(&self, half: u32) -> u64 {
        let (column, low) = split32(half, self.entries.len());
        let (threshold, own, alias) = self.entries[column];
        if u64::from(low) << 32 < threshold {
            own
        } else {
            alias
        }
    }

    /// The draw a random word `word` makes.
    #[inline]
    pub(crate) fn pick(&self, word: u64) -> u64 {
        let wide = u128::from(word) * self.entries.len() as u128;
        let (threshold, own, alias) = self.entries[(wide >> 64) as usize];
        if (wide as u64) < threshold {
            own
        } else {
            alias
        }
    }
}

/// The column a draw of 32 random bits `half` falls in among `columns`
/// (the high part of `half * columns`), and the low part that chooses
/// within it: how [`ValueAlias::pick32`] reads a half.
#[inline]
pub(crate) fn split32(half: u32, columns: usize) -> (usize, u32) {
    let wide = u64::from(half) * columns as u64;
    ((wide >> 32) as usize, wide as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_follow_the_distribution() {
        let p = [0.5, 0.25, 0.125, 0.125, 0.0];
        let table = AliasTable::new(&p);
        let mut s = Stream::new(5, 0);
        let mut counts = [0u64; 5];
        let n = 400_000.0_f64;
        for _ in 0..400_000 {
            counts[table.sample(&mut s)] += 1;
        }
        assert_eq!(counts[4], 0, "a zero-probability entry is never drawn");
        for (c, q) in counts.iter().zip(p) {
            let sd = (n * q * (1.0 - q)).sqrt();
            assert!((*c as f64 - n * q).abs() <= 5.0 * sd + 1e-9, "{counts:?}");
        }
    }

    #[test]
    fn draws_from_half_words_follow_the_distribution() {
        let p = [0.5, 0.25, 0.125, 0.125, 0.0];
        let values = [10, 11, 12, 13, 14];
        let table = ValueAlias::new(&p, &values);
        let mut s = Stream::new(6, 0);
        let mut counts = [0u64; 5];
        let n = 400_000.0_f64;
        for _ in 0..200_000 {
            let word = s.next_u64();
            for half in [word as u32, (word >> 32) as u32] {
                counts[(table.pick32(half) - 10) as usize] += 1;
            }
        }
        assert_eq!(counts[4], 0, "a zero-probability value is never drawn");
        for (c, q) in counts.iter().zip(p) {
            let sd = (n * q * (1.0 - q)).sqrt();
            assert!((*c as f64 - n * q).abs() <= 5.0 * sd + 1e-9, "{counts:?}");
        }
    }
}
