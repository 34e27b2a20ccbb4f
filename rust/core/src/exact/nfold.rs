//! Sums of counts over n independent attack dice, exactly, in time that
//! grows with the size of the answer rather than with n times it.
//!
//! One die's outcome, projected onto at most two counts (a test's count, or
//! tokens reaching the save jointly with harm events), is a small joint
//! distribution. The sum over n dice is its n-fold convolution, mixed over
//! the number of dice the pool gathers. Counts are kept as plain `u32`
//! pairs, so they are bounded by nothing narrower than the pool's own tokens
//! (the packed tables of `tables.rs` give each count 10 bits, which is why
//! the evaluator projects before it adds dice up).
//!
//! Two ways, the cheaper one for the die taken:
//! - by counts: how many of the n dice show each outcome is multinomial, a
//!   binomial for the first outcome, then one for the next among the rest,
//!   and so on (hits, then wounds among them, ...), each worked out in O(n)
//!   from its mode. A die with two outcomes (the plain hit, wound or failed
//!   save) costs O(n); with k outcomes, about C(n + k - 1, k - 1) leaves;
//! - on a dense grid: the n-fold sums built one die at a time (no hashing),
//!   O(cells x outcomes) a die, for dice with many outcomes whose sums
//!   coincide;
//! - split by the second count, for a die whose second count is 0 or 1 (at
//!   most one harm event a die, as Devastating Wounds make): with A(x) the
//!   die's outcomes without the event and B(x) those with it, n dice are
//!   (A + yB)^n, whose y^k part is C(n, k) A^(n-k) B^k. Powers of A and of B
//!   are one-dimensional, so this costs about n^3/3 multiply-adds where the
//!   grid costs about n^3 times the die's outcomes.

use super::budget::{hold, pause};
use super::estimate::power_steps;
use super::grid::Grid;
use super::pmf::{square_of, squared, sum_of};
use super::state::Fast;
use std::collections::HashMap;

/// A joint distribution over pairs of counts.
pub(super) type Joint = HashMap<(u32, u32), f64, Fast>;

/// A joint distribution over pairs of counts as a list, each pair once, in
/// no particular order: what [`nfold`] gives, for callers that only go
/// through it (writing sums that cannot coincide into a map cost more than
/// working them out).
pub(super) type Sums = Vec<((u32, u32), f64)>;

/// The multiply-adds n-fold sums may take for one pool: the same limit as
/// the packed tables' builder (`tables::MAX_WORK`, well under a second).
pub(super) const MAX_NFOLD_WORK: u64 = crate::tables::MAX_WORK;

/// The Binomial(n, p) pmf in O(n): each probability from its neighbour's by
/// the ratio of consecutive terms, outward from the mode, then normalised.
/// Relative error about n ulps, and no underflow to all zeros however large
/// n is (the tails below the smallest double are zero).
pub(super) fn binomial(n: u32, p: f64) -> Vec<f64> {
    let len = n as usize + 1;
    let mut pmf = vec![0.0; len];
    if p <= 0.0 {
        pmf[0] = 1.0;
        return pmf;
    }
    if p >= 1.0 {
        pmf[n as usize] = 1.0;
        return pmf;
    }
    let odds = p / (1.0 - p);
    let nf = f64::from(n);
    let mode = (((nf + 1.0) * p).floor() as usize).min(n as usize);
    pmf[mode] = 1.0;
    for k in mode..n as usize {
        // P(k+1) / P(k) = (n - k) / (k + 1) * p / (1 - p)
        let next = pmf[k] * (nf - k as f64) / (k as f64 + 1.0) * odds;
        if next == 0.0 {
            break;
        }
        pmf[k + 1] = next;
    }
    for k in (1..=mode).rev() {
        // P(k-1) / P(k) = k / (n - k + 1) * (1 - p) / p
        let next = pmf[k] * k as f64 / (nf - k as f64 + 1.0) / odds;
        if next == 0.0 {
            break;
        }
        pmf[k - 1] = next;
    }
    let total: f64 = pmf.iter().sum();
    for x in &mut pmf {
        *x /= total;
    }
    pmf
}

/// What one leaf of the nested binomials costs, in multiply-adds of the grid.
const COUNTS_LEAF: u64 = 8;

/// How [`nfold`] sums a die's outcomes, and what it costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    Counts,
    Grid,
    Split,
}

/// The cheaper way to sum a die of `outcomes` outcomes whose sums reach at
/// most (`amax`, `bmax`) a die over `least` to `most` dice, and its
/// multiply-adds (saturating, and cut short past [`MAX_NFOLD_WORK`]).
fn way(outcomes: u64, (amax, bmax): (u32, u32), least: u64, most: u64) -> (Way, u64) {
    let least = least.min(most);
    let mut counts = 0u64;
    for n in least..=most {
        // Leaves of the nested binomials, each a hashed add and its share of
        // the binomials above it: about eight multiply-adds of the grid's
        // (measured with callgrind on S1 and S2).
        let leaves = multisets(n, outcomes.max(1));
        counts = counts.saturating_add(leaves.saturating_mul(COUNTS_LEAF));
        if counts > MAX_NFOLD_WORK {
            counts = u64::MAX;
            break;
        }
    }
    let mut grid = 0u64;
    for n in 0..most {
        let cells = n
            .saturating_mul(u64::from(amax))
            .saturating_add(1)
            .saturating_mul(n.saturating_mul(u64::from(bmax)).saturating_add(1));
        grid = grid.saturating_add(cells.saturating_mul(outcomes));
        if grid > MAX_NFOLD_WORK.min(counts) {
            grid = u64::MAX;
            break;
        }
    }
    let split = if bmax <= 1 {
        split_steps(u64::from(amax), least, most, counts.min(grid))
    } else {
        u64::MAX
    };
    if split < counts.min(grid) {
        (Way::Split, split)
    } else if grid < counts {
        (Way::Grid, grid)
    } else {
        (Way::Counts, counts)
    }
}

/// Multiply-adds [`on_split`] takes for dice whose first count reaches
/// `amax` a die, over `least` to `most` dice (at most; `u64::MAX` once past
/// `cap`): the powers of A and of B, each number of dice's share of every
/// y^k part, and each part's one convolution with a power of B.
fn split_steps(amax: u64, least: u64, most: u64, cap: u64) -> u64 {
    let mut steps = 0u64;
    for j in 0..=most {
        let power = j.saturating_mul(amax).saturating_add(1);
        // A^j and B^j from the powers before them.
        steps = steps.saturating_add(power.saturating_mul(2 * (amax + 1)));
        // Part k of j dice: one add of A^(j-k) for each k up to j.
        if j >= least {
            let parts = (j + 1).saturating_mul(j.saturating_mul(amax) / 2 + 1);
            steps = steps.saturating_add(parts);
        }
        // Part j's convolution with B^j.
        let part = most
            .saturating_sub(j)
            .saturating_mul(amax)
            .saturating_add(1);
        steps = steps.saturating_add(power.saturating_mul(part));
        if steps > cap {
            return u64::MAX;
        }
    }
    steps
}

/// The ways of choosing `n` of `kinds` with repetition, C(n + kinds - 1, n),
/// saturating.
pub(super) fn multisets(n: u64, kinds: u64) -> u64 {
    let mut ways = 1u64;
    for i in 1..kinds {
        // C(n + i, i) = C(n + i - 1, i - 1) * (n + i) / i, exact at each step.
        ways = match ways.checked_mul(n + i) {
            Some(w) => w / i,
            None => return u64::MAX,
        };
    }
    ways
}

/// Multiply-adds [`nfold`] takes for `one` over `least` to `most` dice,
/// the cheaper way. For estimating before the work.
pub(super) fn nfold_steps(one: &Joint, least: u64, most: u64) -> u64 {
    let outcomes = one.values().filter(|&&p| p > 0.0).count() as u64;
    way(outcomes, extent(one), least, most).1
}

fn extent(one: &Joint) -> (u32, u32) {
    one.iter()
        .filter(|e| *e.1 > 0.0)
        .fold((0, 0), |(a, b), (&(x, y), _)| (a.max(x), b.max(y)))
}

/// The distribution of the sum of n draws from `one`, mixed over n
/// (`attacks[n]` = P(n)). `None` past [`MAX_NFOLD_WORK`] multiply-adds, or
/// once the evaluation must stop (a Ctrl-C, or its budget spent).
pub(super) fn nfold(one: &Joint, attacks: &[f64]) -> Option<Sums> {
    // Room for every sum the dice can reach, within reason.
    let (amax, bmax) = extent(one);
    let most = attacks.len().saturating_sub(1);
    let room = (most * amax as usize + 1).saturating_mul(most * bmax as usize + 1);
    let mut sums = Sums::with_capacity(room.min(1 << 12));
    summed(one, attacks, None, &mut |k, p| sums.push((k, p)))?;
    Some(sums)
}

/// [`nfold`] on a grid, with the first count of every sum taken as at most
/// `cap` when given (a number of failed saves past which nothing changes):
/// a die split by its second count sums no further; any other is summed,
/// then capped.
pub(super) fn nfold_grid(one: &Joint, attacks: &[f64], cap: Option<u32>) -> Option<Grid> {
    let most = attacks.len().saturating_sub(1);
    let (amax, bmax) = extent(one);
    let rows = match cap {
        Some(cap) => cap as usize + 1,
        None => most * amax as usize + 1,
    };
    let cols = most * bmax as usize + 1;
    if hold((rows as u64).saturating_mul(cols as u64).saturating_mul(8)) {
        return None;
    }
    let mut grid = Grid::zeros(rows, cols);
    let last = rows as u32 - 1;
    summed(one, attacks, cap, &mut |(a, b), p| {
        grid.add(a.min(last) as usize, b as usize, p);
    })?;
    Some(grid.trimmed())
}

/// [`nfold`], each sum handed to `out` (each pair once), the first count
/// capped at `cap` where the way of summing allows it.
fn summed(
    one: &Joint,
    attacks: &[f64],
    cap: Option<u32>,
    out: &mut impl FnMut((u32, u32), f64),
) -> Option<()> {
    let mut kernel: Vec<((u32, u32), f64)> = one
        .iter()
        .filter(|e| *e.1 > 0.0)
        .map(|(&k, &p)| (k, p))
        .collect();
    kernel.sort_unstable_by_key(|x| x.0);
    let least = attacks.iter().position(|&p| p > 0.0).unwrap_or(0) as u64;
    let most = attacks.len().saturating_sub(1) as u64;
    let (amax, bmax) = extent(one);
    let (way, cost) = way(kernel.len() as u64, (amax, bmax), least, most);
    if cost > MAX_NFOLD_WORK || pause(0) {
        return None;
    }
    // One count over one number of dice (a test's count, with a fixed
    // number of attacks): by squaring when that is cheaper still. The
    // estimate counts the way above, which this never costs more than.
    if bmax == 0 && least == most && power_steps(u64::from(amax) + 1, most) < cost {
        by_squaring(&kernel, amax, most, attacks[most as usize], out);
        return Some(());
    }
    match way {
        Way::Counts => {
            // Different counts of the outcomes may reach the same sums: they
            // meet in a map, with room for every sum the dice can reach
            // (growing it as sums come cost more than the sums themselves on
            // a small pool).
            let sums = (most * u64::from(amax) + 1).saturating_mul(most * u64::from(bmax) + 1);
            let mut sums =
                Joint::with_capacity_and_hasher(sums.min(1 << 16) as usize, Fast::default());
            let mass: f64 = kernel.iter().map(|e| e.1).sum();
            for (n, &pn) in attacks.iter().enumerate() {
                if pn > 0.0 && !kernel.is_empty() {
                    if pause(multisets(n as u64, kernel.len() as u64).saturating_mul(COUNTS_LEAF)) {
                        return None;
                    }
                    // A die's outcomes may hold less than all its chance (an
                    // unnormalised table): the n-fold sum then holds mass^n.
                    let weight = pn * mass.powi(n as i32);
                    by_counts(&kernel, mass, n as u32, weight, (0, 0), &mut sums);
                }
            }
            for (k, p) in sums {
                out(k, p);
            }
            Some(())
        }
        Way::Grid => on_grid(&kernel, (amax, bmax), attacks, out),
        Way::Split => on_split(&kernel, amax, attacks, cap.map(|c| c as usize), out),
    }
}

/// [`nfold`] split by the second count, which is 0 or 1 for every outcome
/// of the die: the y^k part of n dice is C(n, k) A^(n-k) B^k, with A the
/// die's outcomes without the event and B those with it. The weights are
/// taken as binomial chances of the normalised A and B (of masses a and b),
/// C(n, k) a^(n-k) b^k = Binomial(n, b / (a + b))[k] (a + b)^n, so no
/// coefficient overflows however many dice. Each part first gathers its
/// powers of A over every number of dice, then takes one convolution with
/// its power of B. With `cap`, every first count past it is kept as `cap`,
/// so no pmf grows longer.
fn on_split(
    kernel: &[((u32, u32), f64)],
    amax: u32,
    attacks: &[f64],
    cap: Option<usize>,
    out: &mut impl FnMut((u32, u32), f64),
) -> Option<()> {
    let width = amax as usize + 1;
    let (mut a, mut b) = (vec![0.0; width], vec![0.0; width]);
    for &((x, event), p) in kernel {
        if event == 0 {
            a[x as usize] += p;
        } else {
            b[x as usize] += p;
        }
    }
    let (mass_a, mass_b) = (a.iter().sum::<f64>(), b.iter().sum::<f64>());
    let mass = mass_a + mass_b;
    let most = attacks.len().saturating_sub(1);
    // The powers of A and of B and the parts, each about (most + 1) rows of
    // up to most * amax + 1 values, held to the memory budget.
    let values = (most as u64 + 1).saturating_mul(most as u64 * u64::from(amax) + 1);
    if hold(values.saturating_mul(3 * 8)) {
        return None;
    }
    // Every pmf here is a row of one flat buffer, of the length of the sums
    // of j draws (at most `cap` + 1 values): no allocation a row. A and B
    // are cut to their last value, so each row is as long as its own sums.
    let limit = cap.map_or(usize::MAX, |c| c + 1);
    // The length of the sums of j draws from a pmf of `values` values.
    let sums_len = |j: usize, values: usize| (j * (values - 1) + 1).min(limit);
    let stride = sums_len(most, width);
    for d in [&mut a, &mut b] {
        d.truncate(d.iter().rposition(|&x| x > 0.0).map_or(1, |i| i + 1));
    }
    let (len_a, len_b) = (|j| sums_len(j, a.len()), |j| sums_len(j, b.len()));
    // Normalised powers: row j of `powers(d)` is d^j / mass(d)^j (only the
    // 0th when d is empty, whose higher powers every weight leaves out).
    let powers = |d: &[f64], m: f64| -> Option<Vec<f64>> {
        let mut all = vec![0.0; (most + 1) * stride];
        all[0] = 1.0;
        if m > 0.0 {
            let d: Vec<f64> = d.iter().map(|x| x / m).collect();
            let len = |j| sums_len(j, d.len());
            for j in 1..=most {
                if pause((len(j - 1) * d.len()) as u64) {
                    return None;
                }
                let (before, rest) = all.split_at_mut(j * stride);
                let last = &before[(j - 1) * stride..][..len(j - 1)];
                times_die(last, &d, &mut rest[..len(j)]);
            }
        }
        Some(all)
    };
    let (pow_a, pow_b) = (powers(&a, mass_a)?, powers(&b, mass_b)?);
    // Part k of the sums, row k of `parts`: the sums of the dice without the
    // event when k have it.
    let mut parts = vec![0.0; (most + 1) * stride];
    for (n, &pn) in attacks.iter().enumerate() {
        if pn == 0.0 {
            continue;
        }
        if pause(((n + 1) * stride) as u64) {
            return None;
        }
        // As `by_counts`: a die whose outcomes hold less than all its chance
        // makes n dice hold mass^n.
        let weight = pn * mass.powi(n as i32);
        for (k, chance) in binomial(n as u32, mass_b / mass).into_iter().enumerate() {
            let w = weight * chance;
            if w == 0.0 {
                continue;
            }
            let part = &mut parts[k * stride..][..len_a(most - k)];
            for (y, &x) in part
                .iter_mut()
                .zip(&pow_a[(n - k) * stride..][..len_a(n - k)])
            {
                *y += w * x;
            }
        }
    }
    // Each part is its own second count, so no two sums meet.
    let mut sums = Vec::with_capacity(stride + b.len());
    for k in 0..=most {
        let part = &parts[k * stride..][..len_a(most - k)];
        if part.iter().all(|&x| x == 0.0) {
            continue;
        }
        let b = &pow_b[k * stride..][..len_b(k)];
        sums.clear();
        sums.resize((part.len() + b.len() - 1).min(limit), 0.0);
        add_sum_capped(part, b, &mut sums);
        for (x, &p) in sums.iter().enumerate() {
            if p > 0.0 {
                out((x as u32, k as u32), p);
            }
        }
    }
    Some(())
}

/// [`add_sum_capped`] for `d` of two or three values (one die's), in one
/// pass over `pmf`: the runs of a few values each that the general way
/// adds cost more to start than to run.
fn times_die(pmf: &[f64], d: &[f64], out: &mut [f64]) {
    let end = out.len() - 1;
    match *d {
        [d0, d1] => {
            for (j, &y) in pmf.iter().enumerate() {
                out[j.min(end)] += d0 * y;
                out[(j + 1).min(end)] += d1 * y;
            }
        }
        [d0, d1, d2] => {
            for (j, &y) in pmf.iter().enumerate() {
                out[j.min(end)] += d0 * y;
                out[(j + 1).min(end)] += d1 * y;
                out[(j + 2).min(end)] += d2 * y;
            }
        }
        _ => add_sum_capped(pmf, d, out),
    }
}

/// Add the pmf of the sum of draws from `a` and `b` to `out`, every sum
/// past the end of `out` kept at its last value (exact when `out` is long
/// enough for every sum).
fn add_sum_capped(a: &[f64], b: &[f64], out: &mut [f64]) {
    // The shorter pmf outside: each of its values adds a run of the other.
    let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let last = out.len() - 1;
    // Sums below the last value.
    for (i, &x) in a.iter().enumerate().take(last) {
        if x == 0.0 {
            continue;
        }
        let below = (last - i).min(b.len());
        for (o, &y) in out[i..i + below].iter_mut().zip(&b[..below]) {
            *o += x * y;
        }
    }
    // The rest, at the last value: value i of `a` with the chance that `b`
    // reaches `last - i` or more, which grows by one value of `b` a step.
    if a.len() + b.len() - 1 > last {
        let mut reaches: f64 = b.get(last..).map_or(0.0, |t| t.iter().sum());
        let mut rest = 0.0;
        for (i, &x) in a.iter().enumerate() {
            if (1..=last).contains(&i) {
                if let Some(&y) = b.get(last - i) {
                    reaches += y;
                }
            }
            rest += x * reaches;
        }
        out[last] += rest;
    }
}

/// Add to `out`, at `base` plus the sum of `n` dice showing the outcomes of
/// `kernel` (of total chance `mass`), each sum weighted by its multinomial
/// chance times `weight`: how many show the first outcome is binomial, and
/// the rest are the same question over the remaining outcomes.
fn by_counts(
    kernel: &[((u32, u32), f64)],
    mass: f64,
    n: u32,
    weight: f64,
    base: (u32, u32),
    out: &mut Joint,
) {
    let ((a, b), p) = kernel[0];
    if kernel.len() == 1 {
        *out.entry((base.0 + n * a, base.1 + n * b)).or_insert(0.0) += weight;
        return;
    }
    let rest = mass - p;
    for (c, x) in binomial(n, p / mass).into_iter().enumerate() {
        let w = weight * x;
        if w == 0.0 {
            continue;
        }
        // The leaves below may be many (the cost model allows millions): a
        // stop, or the caller's time running out, is looked at before each
        // branch of more than a few thousand, so the look costs nothing.
        let c = c as u32;
        let leaves = multisets(u64::from(n - c), kernel.len() as u64 - 1);
        if leaves > 4096 && pause(leaves.saturating_mul(COUNTS_LEAF)) {
            return;
        }
        let at = (base.0 + c * a, base.1 + c * b);
        by_counts(&kernel[1..], rest, n - c, w, at, out);
    }
}

/// [`nfold`] of a die with one count over exactly `n` dice, `weight` the
/// chance of `n`: the die's pmf raised to the `n`th power by squaring, a
/// few convolutions rather than `n`.
fn by_squaring(
    kernel: &[((u32, u32), f64)],
    amax: u32,
    n: u64,
    weight: f64,
    out: &mut impl FnMut((u32, u32), f64),
) {
    let mut one = vec![0.0; amax as usize + 1];
    for &((x, _), p) in kernel {
        one[x as usize] += p;
    }
    let power = squared(&one, n, sum_of, square_of);
    for (x, p) in power.into_iter().enumerate() {
        if p > 0.0 {
            out((x as u32, 0), p * weight);
        }
    }
}

/// [`nfold`] on a dense grid of sums: (n amax + 1) x (n bmax + 1) cells for
/// n dice, row-major, a die added at a time.
fn on_grid(
    kernel: &[((u32, u32), f64)],
    (amax, bmax): (u32, u32),
    attacks: &[f64],
    out: &mut impl FnMut((u32, u32), f64),
) -> Option<()> {
    let (amax, bmax) = (amax as usize, bmax as usize);
    let most = attacks.len().saturating_sub(1);
    let width = most * bmax + 1;
    let cells = (most * amax + 1) * width;
    // The sums of every number of dice, weighed by its chance, on the grid
    // of the most dice (cell a * width + b).
    let mut total = vec![0.0; cells];
    let mut grid = Vec::with_capacity(cells);
    grid.push(1.0);
    let mut next = Vec::with_capacity(cells);
    let (mut rows, mut cols) = (1usize, 1usize);
    for (n, &pn) in attacks.iter().enumerate() {
        if n > 0 {
            if pause((grid.len() * kernel.len()) as u64) {
                return None;
            }
            let (r2, c2) = (rows + amax, cols + bmax);
            next.clear();
            next.resize(r2 * c2, 0.0);
            // Each outcome shifts every row of the grid by its counts: a
            // row at a time, contiguous, so the adds need no index checks.
            // With no second count the rows keep their width, and the whole
            // grid shifts as one run (rows of one cell cost far more than
            // their one add).
            for &((da, db), p) in kernel {
                if bmax == 0 {
                    let at = da as usize * cols;
                    for (y, &x) in next[at..at + grid.len()].iter_mut().zip(&grid) {
                        *y += x * p;
                    }
                    continue;
                }
                for (i, row) in grid.chunks_exact(cols).enumerate() {
                    let at = (i + da as usize) * c2 + db as usize;
                    for (y, &x) in next[at..at + cols].iter_mut().zip(row) {
                        *y += x * p;
                    }
                }
            }
            std::mem::swap(&mut grid, &mut next);
            (rows, cols) = (r2, c2);
        }
        if pn > 0.0 {
            for (a, row) in grid.chunks_exact(cols).enumerate() {
                for (y, &x) in total[a * width..a * width + cols].iter_mut().zip(row) {
                    *y += pn * x;
                }
            }
        }
    }
    for (a, row) in total.chunks_exact(width).enumerate() {
        for (b, &p) in row.iter().enumerate() {
            if p > 0.0 {
                out((a as u32, b as u32), p);
            }
        }
    }
    Some(())
}

/// One die's (tokens reaching the save, harm events) thinned by a save each
/// token fails with chance `q`: (failed saves, harm events).
pub(super) fn thinned(one: impl IntoIterator<Item = ((u32, u32), f64)>, q: f64) -> Joint {
    let one = one.into_iter();
    // Room for a few failed saves per outcome, within reason.
    let mut out = Joint::with_capacity_and_hasher(3 * one.size_hint().0, Fast::default());
    for ((w, e), p) in one {
        for (f, b) in binomial(w, q).into_iter().enumerate() {
            if b > 0.0 {
                *out.entry((f as u32, e)).or_insert(0.0) += p * b;
            }
        }
    }
    out
}

/// `sums` as a map, checking that each pair of counts is in it once.
#[cfg(test)]
pub(super) fn joint(sums: &Sums) -> Joint {
    let mut out = Joint::default();
    for &(k, p) in sums {
        assert!(out.insert(k, p).is_none(), "{k:?} twice");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::binomial_pmf;

    #[test]
    fn binomial_matches_the_convolution_it_replaces() {
        for (n, p) in [(0, 0.3), (1, 0.5), (7, 1.0 / 6.0), (40, 0.9), (200, 0.02)] {
            let fast = binomial(n, p);
            let slow = binomial_pmf(n, p);
            for (a, b) in fast.iter().zip(&slow) {
                assert!((a - b).abs() < 1e-14, "n {n} p {p}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn binomial_of_thousands_sums_to_one_without_underflow() {
        let pmf = binomial(5000, 0.999);
        assert!((pmf.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let mean: f64 = pmf.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
        assert!((mean - 4995.0).abs() < 1e-8, "{mean}");
    }

    fn slow_nfold(one: &Joint, attacks: &[f64]) -> Joint {
        let mut row = Joint::from_iter([((0, 0), 1.0)]);
        let mut out = Joint::default();
        for (n, &pn) in attacks.iter().enumerate() {
            if n > 0 {
                let mut next = Joint::default();
                for (&(a, b), &x) in &row {
                    for (&(c, d), &y) in one {
                        *next.entry((a + c, b + d)).or_insert(0.0) += x * y;
                    }
                }
                row = next;
            }
            for (&k, &x) in &row {
                *out.entry(k).or_insert(0.0) += pn * x;
            }
        }
        out
    }

    fn assert_same(a: &Joint, b: &Joint) {
        for k in a.keys().chain(b.keys()) {
            let (x, y) = (a.get(k).unwrap_or(&0.0), b.get(k).unwrap_or(&0.0));
            assert!((x - y).abs() < 1e-13, "{k:?}: {x} vs {y}");
        }
    }

    #[test]
    fn nfold_matches_adding_dice_one_at_a_time() {
        let attacks = [0.0, 0.1, 0.2, 0.0, 0.3, 0.4];
        let two = Joint::from_iter([((0, 0), 0.6), ((1, 0), 0.4)]);
        let shifted = Joint::from_iter([((1, 2), 0.25), ((2, 0), 0.75)]);
        let many = Joint::from_iter([((0, 0), 0.5), ((1, 0), 0.2), ((2, 1), 0.2), ((0, 1), 0.1)]);
        for one in [two, shifted, many] {
            assert_same(
                &joint(&nfold(&one, &attacks).unwrap()),
                &slow_nfold(&one, &attacks),
            );
        }
    }

    /// Twenty dice, and a few dice of a mixed number.
    fn fixed_and_mixed() -> [Vec<f64>; 2] {
        let fixed = [0.0; 20].iter().chain(&[1.0]).copied().collect();
        [fixed, vec![0.0, 0.1, 0.2, 0.0, 0.3, 0.4]]
    }

    /// Failed saves jointly with Devastating Wounds, a die as S2's.
    fn s2_die() -> Joint {
        Joint::from_iter([
            ((0, 0), 0.5),
            ((1, 0), 0.2),
            ((2, 0), 0.05),
            ((0, 1), 0.15),
            ((1, 1), 0.1),
        ])
    }

    #[test]
    fn dice_of_at_most_one_event_split_by_it_match_adding_dice_one_at_a_time() {
        // Fixed and mixed numbers of dice, some events on every outcome, none
        // without, and a die holding less than all its chance.
        let [fixed, mixed] = fixed_and_mixed();
        let always = Joint::from_iter([((0, 1), 0.4), ((3, 1), 0.6)]);
        let short = Joint::from_iter([((1, 0), 0.3), ((0, 1), 0.2), ((2, 1), 0.1)]);
        for one in [s2_die(), always, short] {
            for attacks in [&fixed[..], &mixed[..]] {
                let (mut kernel, (amax, _)) = (Vec::new(), extent(&one));
                kernel.extend(one.iter().map(|(&k, &p)| (k, p)));
                let mut out = Sums::new();
                on_split(&kernel, amax, attacks, None, &mut |k, p| out.push((k, p))).unwrap();
                let out = joint(&out);
                assert_same(&out, &slow_nfold(&one, attacks));
            }
        }
    }

    #[test]
    fn one_count_of_several_outcomes_is_summed_on_the_grid_as_adding_dice() {
        // Hits of a die with Sustained Hits 1 (0, 1 or 2), as on S2, and a
        // die of wider steps: one count, so the grid shifts in whole runs.
        let hits = Joint::from_iter([((0, 0), 1.0 / 3.0), ((1, 0), 0.5), ((2, 0), 1.0 / 6.0)]);
        let wide = Joint::from_iter([((0, 0), 0.2), ((3, 0), 0.3), ((5, 0), 0.4), ((6, 0), 0.1)]);
        let fixed = [0.0; 20].iter().chain(&[1.0]).copied().collect::<Vec<_>>();
        let mixed = [0.0, 0.1, 0.2, 0.0, 0.3, 0.4];
        for one in [hits, wide] {
            for attacks in [&fixed[..], &mixed[..]] {
                let (kernel, extent) = (
                    one.iter().map(|(&k, &p)| (k, p)).collect::<Vec<_>>(),
                    extent(&one),
                );
                let mut out = Sums::new();
                on_grid(&kernel, extent, attacks, &mut |k, p| out.push((k, p))).unwrap();
                let out = joint(&out);
                assert_same(&out, &slow_nfold(&one, attacks));
            }
        }
        let (way, _) = way(3, (2, 0), 20, 20);
        assert_eq!(way, Way::Grid);
    }

    #[test]
    fn twenty_dice_of_many_outcomes_and_one_event_are_summed_split() {
        let one = Joint::from_iter([((0, 0), 0.5), ((1, 0), 0.2), ((2, 0), 0.1), ((0, 1), 0.2)]);
        let (way, _) = way(4, extent(&one), 20, 20);
        assert_eq!(way, Way::Split);
    }

    #[test]
    fn thinning_a_die_commutes_with_adding_dice() {
        let one = Joint::from_iter([((0, 0), 0.3), ((1, 0), 0.5), ((2, 1), 0.2)]);
        let attacks = [0.0, 0.0, 0.0, 1.0];
        let q = 1.0 / 3.0;
        let thinned_after = {
            let sums = slow_nfold(&one, &attacks);
            thinned(sums, q)
        };
        assert_same(
            &joint(&nfold(&thinned(one.clone(), q), &attacks).unwrap()),
            &thinned_after,
        );
    }

    /// `sums` with every first count past `cap` kept as `cap`.
    fn capped(sums: &Joint, cap: u32) -> Joint {
        let mut out = Joint::default();
        for (&(a, b), &p) in sums {
            *out.entry((a.min(cap), b)).or_insert(0.0) += p;
        }
        out
    }

    #[test]
    fn sums_capped_keep_every_first_count_past_the_cap_as_the_cap() {
        // Split by the event (as S2's failed saves are summed) and, for a
        // die with two events, summed then capped.
        let [fixed, mixed] = fixed_and_mixed();
        let short = Joint::from_iter([((1, 0), 0.3), ((0, 1), 0.2), ((2, 1), 0.1)]);
        let two_events = Joint::from_iter([((0, 0), 0.5), ((3, 2), 0.3), ((1, 1), 0.2)]);
        for one in [s2_die(), short, two_events] {
            for attacks in [&fixed[..], &mixed[..]] {
                for cap in [0, 1, 3, 10, 60] {
                    let got = joint(
                        &nfold_grid(&one, attacks, Some(cap))
                            .unwrap()
                            .iter()
                            .collect(),
                    );
                    assert!(got.keys().all(|k| k.0 <= cap), "cap {cap}");
                    assert_same(&got, &capped(&slow_nfold(&one, attacks), cap));
                }
            }
        }
    }

    #[test]
    fn a_capped_sum_keeps_every_sum_past_the_end_at_the_last_value() {
        let pmfs: [&[f64]; 5] = [
            &[1.0],
            &[0.25, 0.75],
            &[0.5, 0.0, 0.3, 0.2],
            &[0.0, 0.1, 0.2, 0.3, 0.4],
            &[0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.3],
        ];
        for a in pmfs {
            for b in pmfs {
                let full = sum_of(a, b);
                for len in 1..=full.len() + 2 {
                    let mut want = vec![0.0; len];
                    for (v, &p) in full.iter().enumerate() {
                        want[v.min(len - 1)] += p;
                    }
                    let mut got = vec![0.0; len];
                    add_sum_capped(a, b, &mut got);
                    let mut by_die = vec![0.0; len];
                    times_die(a, b, &mut by_die);
                    for (x, y) in got.iter().chain(&by_die).zip(want.iter().cycle()) {
                        assert!(
                            (x - y).abs() < 1e-15,
                            "{a:?} {b:?} into {len}: {got:?} vs {want:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn one_count_over_a_fixed_number_of_dice_matches_adding_dice_one_at_a_time() {
        // Hits with Sustained Hits 1 over exactly 20 dice are summed by
        // squaring; over a random number of dice, as before.
        let hits = Joint::from_iter([((0, 0), 1.0 / 3.0), ((1, 0), 0.5), ((2, 0), 1.0 / 6.0)]);
        let [fixed, mixed] = fixed_and_mixed();
        for attacks in [&fixed[..], &mixed[..], &[1.0][..]] {
            assert_same(
                &joint(&nfold(&hits, attacks).unwrap()),
                &slow_nfold(&hits, attacks),
            );
        }
        assert!(power_steps(3, 20) < way(3, (2, 0), 20, 20).1);
    }
}
