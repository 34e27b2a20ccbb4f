//! Distributions of counts as plain pmfs (`pmf[v]` = P(v)).

use super::budget::{hold, spend};
use crate::dice::ModifiedDice;
use crate::plan::Attacks;
use crate::program::RunPool;

/// The damage distribution of harm outside the save: the pool's, or its
/// largest value (`maximize`), shifted by `bonus` (never below 0).
pub(super) fn harm_damage(damage: &[f64], maximize: bool, bonus: i32) -> Vec<f64> {
    let mut out = Vec::new();
    let most = damage.iter().rposition(|&p| p > 0.0).unwrap_or(0);
    for (d, &p) in damage.iter().enumerate() {
        if p == 0.0 || (maximize && d != most) {
            continue;
        }
        let v = (d as i64 + i64::from(bonus)).max(0) as usize;
        if out.len() <= v {
            out.resize(v + 1, 0.0);
        }
        out[v] += if maximize { 1.0 } else { p };
    }
    out
}

/// The discrete distribution of a sum of pmfs (empty once the evaluation
/// must stop: its work is counted first).
pub(super) fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    if spend(a.len().saturating_mul(b.len())) {
        return vec![1.0];
    }
    sum_of(a, b)
}

/// [`convolve`] without counting its work, for a caller whose work is
/// bounded and checked before it starts (`nfold.rs`).
pub(super) fn sum_of(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        // A slice of `out` the length of `b`: no index checks in the adds.
        for (o, &y) in out[i..i + b.len()].iter_mut().zip(b) {
            *o += x * y;
        }
    }
    out
}

/// The distribution of the sum of `n` draws from `pmf`, for every `n` up to
/// `most`: shifts of one point when `pmf` has one value (a fixed number of
/// mortal wounds), otherwise one convolution each.
pub(super) fn powers(pmf: &[f64], most: usize) -> Vec<Vec<f64>> {
    let mut out = vec![vec![1.0]];
    let mut bytes = 8u64;
    if let Some((v, p)) = one_point(pmf) {
        if spend(most.saturating_mul(v + 1)) {
            // As `convolve` does once the evaluation must stop: one-point
            // pmfs, never read.
            out.resize(most + 1, vec![1.0]);
            return out;
        }
        let mut chance = 1.0;
        for n in 1..=most {
            chance *= p;
            let mut next = vec![0.0; v * n + 1];
            next[v * n] = chance;
            bytes += 8 * next.len() as u64;
            hold(bytes);
            out.push(next);
        }
        return out;
    }
    for _ in 0..most {
        let next = convolve(out.last().expect("starts with one"), pmf);
        bytes += 8 * next.len() as u64;
        hold(bytes);
        out.push(next);
    }
    out
}

/// The distribution of the sum of a random number of draws from `one`, the
/// number following `counts` (`counts[n]` = P(n draws)).
pub(super) fn compound(counts: &[f64], one: &[f64]) -> Vec<f64> {
    if let Some((v, p)) = one_point(one) {
        // n draws of one value are n times it.
        let mut total = vec![0.0; v * counts.len().saturating_sub(1) + 1];
        let mut chance = 1.0;
        for (n, &c) in counts.iter().enumerate() {
            total[v * n] += c * chance;
            chance *= p;
        }
        return total;
    }
    let per = powers(one, counts.len().saturating_sub(1));
    let mut total = vec![0.0];
    for (n, &p) in counts.iter().enumerate() {
        if total.len() < per[n].len() {
            total.resize(per[n].len(), 0.0);
        }
        for (i, x) in per[n].iter().enumerate() {
            total[i] += x * p;
        }
    }
    total
}

/// Attack dice a pool gathers, as a pmf; with `alive` models alive on the
/// attacking side (a side the Plan lists), the terms made by its survivors
/// count only those not held in reserve.
pub(super) fn attacks_pmf(pool: &RunPool, alive: Option<u32>) -> Vec<f64> {
    terms_pmf(&pool.attacks, alive)
}

/// Attack dice the terms gather (each its `models`, or with `alive` the
/// survivors not held in reserve for terms made by survivors), as a pmf.
pub(super) fn terms_pmf(terms: &[Attacks], alive: Option<u32>) -> Vec<f64> {
    let mut total = vec![1.0];
    for term in terms {
        let models = match (term.alive_of, alive) {
            (Some(_), Some(alive)) => alive.saturating_sub(term.reserve).min(term.models),
            _ => term.models,
        };
        let top = term.per_model(term.dice.max()) as usize;
        let mut one = vec![0.0; top + 1];
        if term.maximize {
            one[top] = 1.0;
        } else {
            for (rolled, p) in dice_pmf(term.dice).into_iter().enumerate() {
                one[term.per_model(rolled as u32) as usize] += p;
            }
        }
        total = convolve(&total, &power(&one, models));
    }
    total
}

/// The one value `pmf` can take and its chance, if it has only one.
pub(super) fn one_point(pmf: &[f64]) -> Option<(usize, f64)> {
    let mut values = pmf.iter().enumerate().filter(|e| *e.1 != 0.0);
    match (values.next(), values.next()) {
        (Some((v, &p)), None) => Some((v, p)),
        _ => None,
    }
}

/// The distribution of the sum of `n` draws from `one`: a shift when `one`
/// is a single value (a fixed number of attacks a model), otherwise by
/// squaring, so thousands of models cost a few convolutions rather than
/// thousands (`estimate::power_steps` counts them).
pub(super) fn power(one: &[f64], n: u32) -> Vec<f64> {
    if let Some((v, p)) = one_point(one) {
        let mut out = vec![0.0; v * n as usize + 1];
        out[v * n as usize] = p.powi(n as i32);
        return out;
    }
    squared(one, u64::from(n), convolve, convolve_square)
}

/// The distribution of the sum of `n` draws from `one` by squaring, each
/// product of two pmfs taken by `times` (counting its work or not), each
/// square by `square`.
pub(super) fn squared(
    one: &[f64],
    n: u64,
    times: fn(&[f64], &[f64]) -> Vec<f64>,
    square: fn(&[f64]) -> Vec<f64>,
) -> Vec<f64> {
    let mut result: Option<Vec<f64>> = None;
    let mut power = one.to_vec();
    let mut left = n;
    while left > 0 {
        if left & 1 == 1 {
            result = Some(match result {
                Some(r) => times(&r, &power),
                None => power.clone(),
            });
        }
        left >>= 1;
        if left > 0 {
            power = square(&power);
        }
    }
    result.unwrap_or_else(|| vec![1.0])
}

/// [`convolve`] of a pmf with itself.
pub(super) fn convolve_square(a: &[f64]) -> Vec<f64> {
    convolve(a, a)
}

/// [`sum_of`] a pmf and itself, each product of two different values taken
/// once and doubled: half the multiply-adds.
pub(super) fn square_of(a: &[f64]) -> Vec<f64> {
    if a.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0.0; 2 * a.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        out[2 * i] += x * x;
        let twice = 2.0 * x;
        for (o, &y) in out[2 * i + 1..].iter_mut().zip(&a[i + 1..]) {
            *o += twice * y;
        }
    }
    out
}

/// Add `p` to `pmf[v]`, growing the pmf as needed.
pub(super) fn accumulate(pmf: &mut Vec<f64>, v: u32, p: f64) {
    let v = v as usize;
    if pmf.len() <= v {
        pmf.resize(v + 1, 0.0);
    }
    pmf[v] += p;
}

/// The pmf of `d`, its work counted first (a one-point pmf once the
/// evaluation must stop).
pub(super) fn dice_pmf(d: impl Into<ModifiedDice>) -> Vec<f64> {
    let d: ModifiedDice = d.into();
    if spend(usize::try_from(super::estimate::dice_steps(d)).unwrap_or(usize::MAX)) {
        return vec![1.0];
    }
    d.distribution()
}

#[cfg(test)]
mod tests {
    use super::super::budget::{hold, reset, MAX_BYTES};
    use super::*;

    #[test]
    fn powers_by_squaring_match_adding_draws_one_at_a_time() {
        for one in [
            &[0.25, 0.75][..],
            &[0.5, 0.0, 0.3, 0.2],
            &[0.0, 0.1, 0.2, 0.3, 0.4],
        ] {
            let mut want = vec![1.0];
            for n in 0..=13 {
                for got in [
                    squared(one, n, sum_of, square_of),
                    squared(one, n, convolve, convolve_square),
                ] {
                    assert_eq!(got.len(), want.len(), "{one:?} n {n}");
                    for (x, y) in got.iter().zip(&want) {
                        assert!((x - y).abs() < 1e-15, "{one:?} n {n}: {got:?} vs {want:?}");
                    }
                }
                want = sum_of(&want, one);
            }
        }
    }

    #[test]
    fn powers_of_one_value_are_its_multiples() {
        reset(None, None);
        let p = powers(&[0.0, 0.0, 0.5], 3);
        assert_eq!(p.len(), 4);
        assert_eq!(p[0], vec![1.0]);
        assert_eq!(p[3], vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.125]);
        let convolved = powers(&[0.0, 0.5, 0.5], 2);
        assert_eq!(convolved[2], vec![0.0, 0.0, 0.25, 0.5, 0.25]);
    }

    #[test]
    fn a_random_number_of_one_value_compounds_as_convolving_it() {
        reset(None, None);
        let counts = [0.2, 0.5, 0.3];
        assert_eq!(
            compound(&counts, &[0.0, 0.0, 1.0]),
            vec![0.2, 0.0, 0.5, 0.0, 0.3]
        );
        let half = compound(&counts, &[0.0, 0.5]);
        assert_eq!(half, vec![0.2, 0.25, 0.075]);
    }

    #[test]
    fn powers_have_every_count_once_the_evaluation_must_stop() {
        for pmf in [&[0.0, 1.0][..], &[0.5, 0.5][..]] {
            reset(None, None);
            assert!(hold(MAX_BYTES + 1));
            assert_eq!(powers(pmf, 5).len(), 6, "{pmf:?}");
        }
        reset(None, None);
    }
}
