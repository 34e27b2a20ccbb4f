//! Where dice values come from: seeded random streams, or a script.
//!
//! Trials run in fixed-size chunks and chunk `k` draws from its own stream
//! seeded by `(seed, k)`, so a seed gives the same answer on one thread or many.
//! The generator is xoshiro256++ (public domain, Blackman and Vigna), written
//! out here so that no dependency update can change the numbers a seed gives.

/// A source of die results, one die after another.
pub trait DiceSource {
    /// One roll of a die with `sides` sides: a value in `1..=sides`.
    fn roll(&mut self, sides: u32) -> u32;

    /// `n` rolls of a die with `sides` sides, each given to `f` in turn:
    /// the very dice `n` calls of [`DiceSource::roll`] give, drawn faster
    /// where the source allows (a stream keeps its word in registers).
    #[inline]
    fn roll_each(&mut self, sides: u32, n: u32, mut f: impl FnMut(u32))
    where
        Self: Sized,
    {
        for _ in 0..n {
            f(self.roll(sides));
        }
    }

    /// A uniform random 64-bit word, from a source that has them (a
    /// stream); `None` from one that only gives dice (a script), whose
    /// caller then rolls the dice the word would have stood for.
    #[inline]
    fn word(&mut self) -> Option<u64> {
        None
    }

    /// [`DiceSource::roll_each`] with each die given less one, in
    /// `0..sides`: a table indexed by it needs no offset.
    #[inline]
    fn roll_each_from_zero(&mut self, sides: u32, n: u32, mut f: impl FnMut(u32))
    where
        Self: Sized,
    {
        self.roll_each(sides, n, |face| f(face - 1));
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random stream of one chunk.
///
/// Die results are carved from a 64-bit word by repeated multiplication (each
/// die takes the high part of `fraction * sides`), and a fresh word is drawn
/// once the product of the sides used would pass 2^32. The largest bias this
/// leaves on any face is below 2^-32, far under what any number of trials a
/// person runs could detect, and it costs one generator call per ten or so d6.
#[derive(Debug, Clone)]
pub struct Stream {
    s: [u64; 4],
    fraction: u64,
    budget: u64,
}

impl Stream {
    /// The stream for chunk `chunk` of a run with seed `seed`.
    #[must_use]
    pub fn new(seed: u64, chunk: u64) -> Self {
        let mut key = seed;
        let a = splitmix64(&mut key);
        let mut c = chunk ^ 0x6A09_E667_F3BC_C909;
        let b = splitmix64(&mut c);
        let mut state = a ^ b.rotate_left(17);
        let s = [
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
        ];
        Stream {
            s,
            fraction: 0,
            budget: (1 << 32) + 1,
        }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = (self.s[0].wrapping_add(self.s[3]))
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform number in `[0, 1)` with 53 bits of precision.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

impl DiceSource for Stream {
    #[inline]
    fn word(&mut self) -> Option<u64> {
        Some(self.next_u64())
    }

    #[inline]
    fn roll(&mut self, sides: u32) -> u32 {
        let sides = u64::from(sides);
        // `budget` is the product of the sides carved from this word so far;
        // a multiplication, not a division, keeps this at a few cycles.
        self.budget *= sides;
        if self.budget > 1 << 32 {
            self.fraction = self.next_u64();
            self.budget = sides;
        }
        let wide = u128::from(self.fraction) * u128::from(sides);
        self.fraction = wide as u64;
        (wide >> 64) as u32 + 1
    }

    #[inline]
    fn roll_each(&mut self, sides: u32, n: u32, mut f: impl FnMut(u32)) {
        self.roll_each_from_zero(sides, n, |value| f(value + 1));
    }

    #[inline]
    fn roll_each_from_zero(&mut self, sides: u32, n: u32, mut f: impl FnMut(u32)) {
        // As `roll`, with the word and its budget held in locals: the dice
        // carved are the same, without a store and a load between them.
        let sides = u64::from(sides);
        let (mut fraction, mut budget) = (self.fraction, self.budget);
        for _ in 0..n {
            budget *= sides;
            if budget > 1 << 32 {
                fraction = self.next_u64();
                budget = sides;
            }
            let wide = u128::from(fraction) * u128::from(sides);
            fraction = wide as u64;
            f((wide >> 64) as u32);
        }
        (self.fraction, self.budget) = (fraction, budget);
    }
}

/// Dice given in advance, used in order: rulebook examples replayed exactly.
///
/// Running out, or a value that does not fit the die being rolled, is recorded
/// rather than panicking in the middle of a trial; [`Scripted::check`] turns it
/// into an error once the trial is over.
#[derive(Debug, Clone)]
pub struct Scripted {
    values: Vec<u32>,
    next: usize,
    problem: Option<String>,
}

impl Scripted {
    #[must_use]
    pub fn new(values: Vec<u32>) -> Self {
        Scripted {
            values,
            next: 0,
            problem: None,
        }
    }

    /// How many values were used.
    #[must_use]
    pub fn used(&self) -> usize {
        self.next
    }

    /// Did every roll get a fitting value?
    ///
    /// # Errors
    /// [`crate::CoreError::Script`] saying which roll went wrong.
    pub fn check(&self) -> Result<(), crate::CoreError> {
        match &self.problem {
            None => Ok(()),
            Some(p) => Err(crate::CoreError::Script { reason: p.clone() }),
        }
    }
}

impl DiceSource for Scripted {
    fn roll(&mut self, sides: u32) -> u32 {
        let index = self.next;
        self.next += 1;
        match self.values.get(index) {
            Some(&v) if (1..=sides).contains(&v) => v,
            Some(&v) => {
                self.problem.get_or_insert_with(|| {
                    format!("value {v} at position {index} does not fit a d{sides}")
                });
                1
            }
            None => {
                self.problem.get_or_insert_with(|| {
                    format!(
                        "ran out after {} values; roll {} (a d{sides}) has no value",
                        self.values.len(),
                        index + 1
                    )
                });
                1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_chunk_same_stream() {
        let mut a = Stream::new(42, 7);
        let mut b = Stream::new(42, 7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(Stream::new(42, 7).next_u64(), Stream::new(42, 8).next_u64());
        assert_ne!(Stream::new(42, 7).next_u64(), Stream::new(43, 7).next_u64());
    }

    #[test]
    fn d6_faces_are_uniform() {
        // 600,000 rolls: each face expects 100,000 with sd ~289; a chi-square
        // with 5 degrees of freedom exceeds 25 with probability about 1e-4.
        let mut s = Stream::new(1, 0);
        let mut counts = [0u64; 7];
        for _ in 0..600_000 {
            counts[s.roll(6) as usize] += 1;
        }
        assert_eq!(counts[0], 0);
        let chi2: f64 = counts[1..]
            .iter()
            .map(|&c| (c as f64 - 100_000.0).powi(2) / 100_000.0)
            .sum();
        assert!(chi2 < 25.0, "chi-square {chi2} for {counts:?}");
    }

    #[test]
    fn rolling_many_gives_the_dice_one_at_a_time_gives() {
        // Partly used words (a d3 between runs) and whole words.
        for sides in [1, 2, 3, 6, 12, 20, 100, 101, 1000] {
            let (mut one, mut many) = (Stream::new(5, 1), Stream::new(5, 1));
            for n in [0, 1, 7, 12, 13, 40, 100] {
                assert_eq!(one.roll(3), many.roll(3), "d{sides}: the streams part");
                let singly: Vec<u32> = (0..n).map(|_| one.roll(sides)).collect();
                let mut together = Vec::new();
                many.roll_each(sides, n, |v| together.push(v));
                assert_eq!(singly, together, "d{sides}, {n} dice");
            }
            assert_eq!(one.roll(6), many.roll(6), "d{sides}: the streams part");
        }
    }

    #[test]
    fn rolling_from_zero_gives_each_die_less_one() {
        let (mut one, mut many) = (Stream::new(8, 2), Stream::new(8, 2));
        for (sides, n) in [(6, 30), (3, 7), (12, 25), (100, 9)] {
            let singly: Vec<u32> = (0..n).map(|_| one.roll(sides) - 1).collect();
            let mut together = Vec::new();
            many.roll_each_from_zero(sides, n, |v| together.push(v));
            assert_eq!(singly, together, "d{sides}, {n} dice");
        }
    }

    #[test]
    fn mixed_dice_stay_in_range() {
        let mut s = Stream::new(3, 3);
        for sides in [2, 3, 6, 12, 20, 1000].into_iter().cycle().take(10_000) {
            let v = s.roll(sides);
            assert!((1..=sides).contains(&v));
        }
    }

    #[test]
    fn script_reports_running_out_and_misfits() {
        let mut s = Scripted::new(vec![3, 7]);
        assert_eq!(s.roll(6), 3);
        s.roll(6);
        assert!(s
            .check()
            .unwrap_err()
            .to_string()
            .contains("value 7 at position 1 does not fit a d6"));
        let mut s = Scripted::new(vec![]);
        s.roll(6);
        assert!(s
            .check()
            .unwrap_err()
            .to_string()
            .contains("ran out after 0 values"));
    }
}
