//! Exact binomial and multinomial draws of any size, for attack pools too
//! large to tabulate one attack count at a time.
//!
//! A binomial is drawn by inversion, walking outwards from its mode: the
//! walk takes about as many steps as the standard deviation, and needs only
//! the mode's probability (from log-factorials) and the ratio between
//! neighbouring probabilities. A multinomial is a chain of binomials, each
//! category's count drawn from the attacks the earlier categories left.

use crate::rng::Stream;

/// `ln k!` exactly summed below this, by Stirling's series above it (whose
/// first omitted term is then under 1e-19).
const SMALL: usize = 256;

/// `ln k!` for `k < SMALL`.
fn small_log_factorials() -> &'static [f64; SMALL] {
    static TABLE: std::sync::OnceLock<[f64; SMALL]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0.0; SMALL];
        for k in 1..SMALL {
            t[k] = t[k - 1] + (k as f64).ln();
        }
        t
    })
}

/// `ln k!`.
fn log_factorial(k: u32) -> f64 {
    let small = small_log_factorials();
    if (k as usize) < SMALL {
        return small[k as usize];
    }
    let x = f64::from(k);
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    x * x.ln() - x
        + 0.5 * (std::f64::consts::TAU * x).ln()
        + inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0)))
}

/// A binomial trial's chance, with the logarithms the draw needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chance {
    p: f64,
    ln_p: f64,
    ln_q: f64,
    /// `p / (1 - p)`, the ratio of neighbouring probabilities' factors.
    odds: f64,
}

impl Chance {
    pub(crate) fn new(p: f64) -> Self {
        let p = p.clamp(0.0, 1.0);
        Chance {
            p,
            ln_p: p.ln(),
            ln_q: (-p).ln_1p(),
            odds: p / (1.0 - p),
        }
    }

    /// The chance itself.
    pub(crate) fn chance(&self) -> f64 {
        self.p
    }

    /// A draw from Binomial(`n`, p).
    pub(crate) fn draw(&self, n: u32, stream: &mut Stream) -> u32 {
        if n == 0 || self.p <= 0.0 {
            return 0;
        }
        if self.p >= 1.0 {
            return n;
        }
        let nf = f64::from(n);
        // The mode, floor((n + 1) p), and its probability.
        let mode = (((nf + 1.0) * self.p).floor() as u32).min(n);
        let mf = f64::from(mode);
        let at_mode = (log_factorial(n) - log_factorial(mode) - log_factorial(n - mode)
            + mf * self.ln_p
            + (nf - mf) * self.ln_q)
            .exp();
        let mut u = stream.next_f64() - at_mode;
        if u < 0.0 {
            return mode;
        }
        // Walk up and down from the mode in turn, taking each value's
        // probability off `u` until it falls below zero.
        let (mut up, mut down) = (mode, mode);
        let (mut p_up, mut p_down) = (at_mode, at_mode);
        while up < n || down > 0 {
            if up < n {
                p_up *= f64::from(n - up) / f64::from(up + 1) * self.odds;
                up += 1;
                u -= p_up;
                if u < 0.0 {
                    return up;
                }
            }
            if down > 0 {
                p_down *= f64::from(down) / f64::from(n - down + 1) / self.odds;
                down -= 1;
                u -= p_down;
                if u < 0.0 {
                    return down;
                }
            }
        }
        // Only rounding leaves `u` above zero once every value is taken off.
        mode
    }
}

/// The probabilities of Binomial(`n`, `p`), 0 to `n`, each from
/// log-factorials (so no long product underflows).
pub(crate) fn pmf(n: u32, p: f64) -> Vec<f64> {
    let c = Chance::new(p);
    if c.p <= 0.0 || c.p >= 1.0 {
        let mut certain = vec![0.0; n as usize + 1];
        certain[if c.p <= 0.0 { 0 } else { n as usize }] = 1.0;
        return certain;
    }
    (0..=n)
        .map(|k| {
            let kf = f64::from(k);
            (log_factorial(n) - log_factorial(k) - log_factorial(n - k)
                + kf * c.ln_p
                + (f64::from(n) - kf) * c.ln_q)
                .exp()
        })
        .collect()
}

/// The outcome of one attack die as a vector of counts, with its chance; a
/// multinomial over such outcomes gives the sum over any number of dice.
#[derive(Debug, Clone)]
pub(crate) struct Multinomial {
    /// Each outcome's counts, and its chance given that no earlier outcome
    /// was drawn, most likely first (so the attacks run out soonest).
    outcomes: Vec<(Vec<u32>, Chance)>,
    slots: usize,
}

impl Multinomial {
    /// From the outcomes of one die and their chances (summing to one).
    pub(crate) fn new(mut outcomes: Vec<(Vec<u32>, f64)>, slots: usize) -> Self {
        outcomes.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut left: f64 = outcomes.iter().map(|o| o.1).sum();
        let outcomes = outcomes
            .into_iter()
            .map(|(counts, p)| {
                let given = if left > 0.0 { p / left } else { 1.0 };
                left -= p;
                (counts, Chance::new(given))
            })
            .collect();
        Multinomial { outcomes, slots }
    }

    /// The summed counts of `n` dice, into `into` (its first slots).
    pub(crate) fn draw(&self, n: u32, stream: &mut Stream, into: &mut [u32]) {
        into[..self.slots].fill(0);
        self.add(n, stream, into);
    }

    /// Add the summed counts of `n` dice to `into`.
    pub(crate) fn add(&self, n: u32, stream: &mut Stream, into: &mut [u32]) {
        let mut left = n;
        let last = self.outcomes.len().saturating_sub(1);
        for (i, (counts, chance)) in self.outcomes.iter().enumerate() {
            if left == 0 {
                break;
            }
            let k = if i == last {
                left
            } else {
                chance.draw(left, stream)
            };
            left -= k;
            for (slot, c) in into.iter_mut().zip(counts) {
                *slot += k * c;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_factorials_agree_across_the_switch_to_stirling() {
        let mut exact = small_log_factorials()[SMALL - 1];
        for k in SMALL..SMALL + 2000 {
            exact += (k as f64).ln();
            let k = u32::try_from(k).unwrap();
            assert!((log_factorial(k) - exact).abs() < 1e-10 * exact, "{k}");
        }
    }

    #[test]
    fn binomial_probabilities_sum_to_one() {
        for (n, p) in [
            (1, 0.5),
            (10, 1.0 / 6.0),
            (1000, 2.0 / 3.0),
            (100_000, 0.01),
        ] {
            let total: f64 = pmf(n, p).iter().sum();
            assert!((total - 1.0).abs() < 1e-9, "n {n} p {p}: {total}");
        }
    }

    /// Chi-square of `trials` draws against the pmf, pooling cells under 25
    /// expected, within the 1 - 1e-6 bound.
    fn fits(n: u32, p: f64, trials: u32) {
        let chance = Chance::new(p);
        let mut stream = Stream::new(7, u64::from(n));
        let mut seen = vec![0u32; n as usize + 1];
        for _ in 0..trials {
            seen[chance.draw(n, &mut stream) as usize] += 1;
        }
        let expected: Vec<f64> = pmf(n, p).iter().map(|q| q * f64::from(trials)).collect();
        let (mut chi2, mut cells, mut o, mut x) = (0.0, 0.0, 0.0, 0.0);
        for (s, e) in seen.iter().zip(&expected) {
            o += f64::from(*s);
            x += e;
            if x >= 25.0 {
                chi2 += (o - x) * (o - x) / x;
                cells += 1.0;
                o = 0.0;
                x = 0.0;
            }
        }
        if x > 0.0 {
            chi2 += (o - x) * (o - x) / x;
            cells += 1.0;
        }
        let k: f64 = f64::max(cells - 1.0, 1.0);
        let bound = k * (1.0 - 2.0 / (9.0 * k) + 4.753 * (2.0 / (9.0 * k)).sqrt()).powi(3);
        assert!(
            chi2 < bound,
            "n {n} p {p}: chi-square {chi2:.1} over {cells} cells exceeds {bound:.1}"
        );
    }

    #[test]
    fn binomial_draws_fit_their_distribution() {
        fits(1, 0.3, 100_000);
        fits(7, 1.0 / 6.0, 100_000);
        fits(300, 2.0 / 3.0, 200_000);
        fits(5000, 0.02, 200_000);
        fits(100_000, 0.5, 200_000);
    }

    #[test]
    fn certain_and_impossible_chances() {
        let mut stream = Stream::new(1, 0);
        assert_eq!(Chance::new(0.0).draw(50, &mut stream), 0);
        assert_eq!(Chance::new(1.0).draw(50, &mut stream), 50);
        assert_eq!(Chance::new(0.5).draw(0, &mut stream), 0);
    }

    #[test]
    fn a_multinomial_keeps_the_dice_and_the_means() {
        // One die: nothing (1/2), one hit (1/3), two hits and a mortal (1/6).
        let m = Multinomial::new(
            vec![
                (vec![0, 0], 0.5),
                (vec![1, 0], 1.0 / 3.0),
                (vec![2, 1], 1.0 / 6.0),
            ],
            2,
        );
        let mut stream = Stream::new(3, 0);
        let (n, trials) = (600u32, 20_000u32);
        let mut sums = [0f64; 2];
        let mut counts = [0u32; 2];
        for _ in 0..trials {
            m.draw(n, &mut stream, &mut counts);
            sums[0] += f64::from(counts[0]);
            sums[1] += f64::from(counts[1]);
        }
        // Means: hits 600 x 2/3 = 400, sd per trial sqrt(600 x var) with
        // var = E[X^2] - 4/9 = (1/3 + 4/6) - 4/9 = 5/9.
        let se_hits = (600.0 * 5.0 / 9.0 / f64::from(trials)).sqrt();
        assert!((sums[0] / f64::from(trials) - 400.0).abs() < 4.0 * se_hits);
        let se_mortal = (600.0 * (1.0 / 6.0) * (5.0 / 6.0) / f64::from(trials)).sqrt();
        assert!((sums[1] / f64::from(trials) - 100.0).abs() < 4.0 * se_mortal);
    }
}
