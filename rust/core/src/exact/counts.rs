//! A pool's counts summed over its dice: one die's table (`tables.rs`,
//! packed 10 bits a count) projected onto the counts wanted, then added up
//! over the pool's dice as `u32` counts, so a pool's dice are bounded by
//! what a count holds, not by the packing.

use super::budget::{decline, pause};
use super::nfold::{nfold, Joint, Sums};
use super::state::Fast;
use crate::error::CoreError;
use crate::program::RunPool;
use crate::tables::{self, slot, then_row, total, Builder, Token};

/// The most any count of a pool's (tokens at a test, tokens reaching the
/// save, harm events) may reach: counts are added up as `u32` pairs once one
/// die's table is projected, and packed two to a `u64` key for pools whose
/// one-die re-rolls tie their dice together.
pub(super) const MAX_COUNT: u64 = u32::MAX as u64;

/// Why `pool`'s counts cannot be added up exactly, or `None`: what keeps one
/// die from being tabulated, or more tokens than a count holds.
pub(super) fn why_not_counted(pool: &RunPool) -> Option<String> {
    if let Some(why) = tables::why_not_tabulated(pool, 1) {
        return Some(why);
    }
    let tokens = pool.max_tokens();
    (tokens > MAX_COUNT).then(|| {
        format!(
            "its {} attack dice can make up to {tokens} rolls over its tests, and a count holds at most {MAX_COUNT}",
            pool.max_attacks()
        )
    })
}

pub(super) fn too_many(pool: &RunPool) -> CoreError {
    decline(format!(
        "pool {:?} has too many outcomes to tabulate within its limit of {} multiply-adds",
        pool.name,
        super::nfold::MAX_NFOLD_WORK
    ))
}

/// One die's distribution (a packed table) projected onto the slots `keep`
/// (one or two) as a pair of counts, the second 0 when there is one slot.
pub(super) fn one_die(d: &tables::Dist, keep: &[usize]) -> Joint {
    let mut out = Joint::with_capacity_and_hasher(d.len(), Fast::default());
    for (&k, &p) in d {
        let b = keep.get(1).map_or(0, |&j| slot(k, j));
        *out.entry((slot(k, keep[0]), b)).or_insert(0.0) += p;
    }
    out
}

/// The distribution of the slots `keep` (one or two) of a pool's tests as
/// pairs of counts, mixed over the number of attack dice (`attacks[n]` =
/// P(n)): one die's outcome `token` projected onto those slots, then summed
/// over n dice (`nfold.rs`), or, when the pool's one-die re-rolls tie its
/// dice together, composed n times with the re-rolls left threaded through
/// (the counts packed two to a `u64`, 32 bits each).
pub(super) fn project(
    token: &Token,
    attacks: &[f64],
    keep: &[usize],
    builder: &mut Builder,
    pool: &RunPool,
) -> Result<Sums, CoreError> {
    if let Some(one) = token.plain() {
        return nfold(&one_die(one, keep), attacks).ok_or_else(|| too_many(pool));
    }
    composed(token, attacks, keep, builder).ok_or_else(|| too_many(pool))
}

/// [`project`] by composing one die at a time, the re-rolls left threaded
/// through: the counts packed two to a `u64`, 32 bits each (the packed
/// tables' own 10-bit slots would overflow past 1,023). `None` past the
/// builder's work, or once the evaluation must stop.
fn composed(token: &Token, attacks: &[f64], keep: &[usize], builder: &mut Builder) -> Option<Sums> {
    let projected = token.map_dists(|d| {
        let mut out = tables::Dist::default();
        for ((a, b), p) in one_die(d, keep) {
            *out.entry(u64::from(a) | (u64::from(b) << 32))
                .or_insert(0.0) += p;
        }
        out
    });
    let mut row = vec![tables::Dist::default(); projected.sets()];
    row[projected.full()] = tables::point(&[]);
    let mut mixed = Joint::default();
    for (n, &pn) in attacks.iter().enumerate() {
        if n > 0 {
            // Tabulating honours a stop (Ctrl-C) between two convolutions:
            // three pools of a few dice each could tabulate for half a minute
            // before the builder's own work limit declined. It is not charged
            // to the step budget (a pause only looks at the stop), so what
            // the evaluator admits is unchanged. Each convolution may be long:
            // every pause looks.
            if pause(u64::MAX) {
                return None;
            }
            row = then_row(&row, &projected, builder)?;
        }
        if pn > 0.0 {
            for (&k, &p) in &total(&row) {
                *mixed.entry((k as u32, (k >> 32) as u32)).or_insert(0.0) += pn * p;
            }
        }
    }
    Some(mixed.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::nfold::{joint, thinned};
    use crate::exact::TABLE_BUDGET;
    use crate::plan::Plan;
    use crate::program::{Program, RunSequence};
    use crate::tables::one_token;

    /// A one-pool Plan: `dice` attack dice through a hit and a wound roll
    /// with the given effects on a critical.
    fn program(dice: &str, hit_effects: &str, wound_effects: &str) -> Program {
        let json = format!(
            r#"{{"version": 1, "counters": ["hits", "wounds"],
            "target": {{"groups": [{{"name": "T", "models": 20, "wounds": 2, "save": 3}}], "order": [0]}},
            "sequences": [{{"kind": "attack", "name": "P", "attacks": [{{"models": 1, "dice": "{dice}"}}],
                "steps": [
                    {{"name": "hit", "target": 3, "natural_fail": 1, "critical": 6, "counter": "hits", "effects": [{hit_effects}]}},
                    {{"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds", "effects": [{wound_effects}]}}],
                "save": {{"ap": -1}}, "damage": {{"dice": "1"}}}}]}}"#
        );
        Program::new(Plan::from_json(&json).expect("a valid plan")).expect("a program")
    }

    fn pool(p: &Program) -> &RunPool {
        match &p.sequences[0] {
            RunSequence::Pool(pool) => pool,
            _ => unreachable!("one pool"),
        }
    }

    fn assert_close(a: &Joint, b: &Joint) {
        assert!(!a.is_empty());
        for k in a.keys().chain(b.keys()) {
            let (x, y) = (a.get(k).unwrap_or(&0.0), b.get(k).unwrap_or(&0.0));
            assert!((x - y).abs() < 1e-12, "{k:?}: {x} against {y}");
        }
    }

    /// Summing counts over the dice (`nfold.rs`, binomial or multinomial or
    /// a grid) gives what composing the dice one at a time gave before the
    /// counts were widened, for every count the evaluator projects, past the
    /// 1,023 a packed slot held too.
    #[test]
    fn summed_counts_match_composing_the_dice_one_at_a_time() {
        let sustained = r#"{"on": "critical", "action": "extra", "amount": "D3"}, {"on": "critical", "action": "skip", "steps": 1}"#;
        let devastating = r#"{"on": "critical", "action": "mortal", "ends_attack": true}"#;
        let mut spread = vec![0.0; 31];
        for (n, p) in spread.iter_mut().enumerate().skip(10) {
            *p = (n as f64).sqrt();
        }
        let total: f64 = spread.iter().sum();
        for p in &mut spread {
            *p /= total;
        }
        let fixed = |n: usize| {
            let mut pmf = vec![0.0; n + 1];
            pmf[n] = 1.0;
            pmf
        };
        let (many, some) = (fixed(1500), fixed(150));
        for (hit, wound, attacks) in [
            ("", "", &many),
            ("", "", &spread),
            (sustained, devastating, &spread),
            ("", devastating, &some),
        ] {
            let p = program("1", hit, wound);
            let pool = pool(&p);
            let mut builder = Builder::default();
            let (token, _) = one_token(pool, 1, TABLE_BUDGET, &mut builder).expect("a table");
            let m = pool.tests.len();
            for keep in [vec![0], vec![1], vec![m, m + 1]] {
                let fast = project(&token, attacks, &keep, &mut builder, pool).expect("summed");
                let slow =
                    composed(&token, attacks, &keep, &mut Builder::default()).expect("composed");
                assert_close(&joint(&fast), &joint(&slow));
            }
            // Saves thinned off one die, then summed, as after summing.
            let one = one_die(token.plain().expect("no one-die re-roll"), &[m, m + 1]);
            let fast = nfold(&thinned(one, 0.5), attacks).expect("summed");
            let summed =
                composed(&token, attacks, &[m, m + 1], &mut Builder::default()).expect("composed");
            assert_close(&joint(&fast), &thinned(summed, 0.5));
        }
    }

    #[test]
    fn a_pool_past_what_a_count_holds_names_the_limit() {
        let p = program("1", "", "");
        let mut pool = pool(&p).clone();
        pool.attacks[0].models = 2_000_000_000;
        let why = why_not_counted(&pool).expect("too many");
        assert!(why.contains("a count holds at most 4294967295"), "{why}");
    }
}
