//! What the exact evaluator works out from a Program alone, kept with the
//! Program for its later evaluations: each pool's one-die table and the
//! dense work estimated for the dice.
//!
//! For a small Plan, building the tables is a good part of an evaluation,
//! and a Program is often evaluated more than once (`auto`, a sweep, a
//! caller asking again). Only small tables are kept, so a Program held for
//! long holds little: past [`MAX_KEPT`] entries, the tables are built again
//! for each evaluation, which then takes long enough that building them is
//! a small part of it.

use super::estimate::Tabled;
use crate::error::CoreError;
use std::sync::OnceLock;

/// The most table entries kept with a Program.
const MAX_KEPT: usize = 1 << 12;

/// The dense work estimated for a Program's dice and each sequence's
/// one-die table (`None` for a sequence that is no pool the estimate
/// tabulated), or why it was declined.
pub(super) type DenseWork = Result<(u64, Vec<Option<Tabled>>), CoreError>;

/// A Program's [`DenseWork`], once worked out, if small enough to keep.
/// A clone of the Program starts empty.
#[derive(Default)]
pub(crate) struct Cache(OnceLock<Option<DenseWork>>);

impl Cache {
    /// The Program's dense work: kept from an earlier evaluation, or worked
    /// out by `work` now (and kept, when its tables are small).
    pub(super) fn dense_work(&self, work: impl FnOnce() -> DenseWork) -> DenseWork {
        match self.0.get() {
            Some(Some(kept)) => return kept.clone(),
            // Found too large to keep.
            Some(None) => return work(),
            None => {}
        }
        let fresh = work();
        let entries: usize = match &fresh {
            Ok((_, tables)) => tables.iter().flatten().map(Tabled::entries).sum(),
            Err(_) => 0,
        };
        // Another thread may have set it meanwhile: either holds the same.
        let _ = self.0.set((entries <= MAX_KEPT).then(|| fresh.clone()));
        fresh
    }
}

impl Clone for Cache {
    fn clone(&self) -> Self {
        Cache::default()
    }
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = matches!(self.0.get(), Some(Some(_)));
        f.debug_struct("Cache").field("kept", &kept).finish()
    }
}

#[cfg(test)]
mod tests {
    use crate::exact::evaluate;
    use crate::plan::Plan;
    use crate::program::Program;

    /// `dice` attack dice hitting on 3+ and wounding on 4+ into ten models,
    /// with the hit roll's criticals making `extra` more hits.
    fn program(dice: &str, extra: &str) -> Program {
        let json = format!(
            r#"{{"version": 1, "counters": ["hits", "wounds", "failed"],
            "target": {{"groups": [{{"name": "T", "models": 10, "wounds": 2, "save": 3}}], "order": [0]}},
            "sequences": [{{"kind": "attack", "name": "P", "attacks": [{{"models": 1, "dice": "{dice}"}}],
                "steps": [
                    {{"name": "hit", "target": 3, "natural_fail": 1, "critical": 6, "counter": "hits",
                      "effects": [{{"on": "critical", "action": "extra", "amount": "{extra}"}}]}},
                    {{"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds"}}],
                "save": {{"ap": -1, "counter": "failed"}}, "damage": {{"dice": "1"}}}}]}}"#
        );
        Program::new(Plan::from_json(&json).expect("a valid plan")).expect("a program")
    }

    fn kept(p: &Program) -> bool {
        matches!(p.exact_cache.0.get(), Some(Some(_)))
    }

    #[test]
    fn a_program_evaluated_again_reuses_its_tables_and_answers_the_same() {
        let p = program("20", "1");
        assert!(!kept(&p));
        let first = evaluate(&p).expect("exact");
        assert!(kept(&p));
        let again = evaluate(&p).expect("exact");
        assert_eq!(first.pmfs, again.pmfs);
        assert_eq!((first.work, first.estimate), (again.work, again.estimate));
        // A clone starts afresh, and answers the same.
        let clone = p.clone();
        assert!(!kept(&clone));
        assert_eq!(evaluate(&clone).expect("exact").pmfs, first.pmfs);
    }

    #[test]
    fn a_large_table_is_built_for_each_evaluation_and_answers_the_same() {
        // 10D10 extra hits on a critical for each attack die: a table
        // of more entries than are kept.
        let p = program("2", "10D10");
        let first = evaluate(&p).expect("exact");
        let entries: usize = super::super::admit::admit(&p)
            .expect("admitted")
            .1
            .iter()
            .flatten()
            .map(super::Tabled::entries)
            .sum();
        assert!(entries > super::MAX_KEPT, "{entries} entries");
        assert!(!kept(&p));
        assert_eq!(evaluate(&p).expect("exact").pmfs, first.pmfs);
    }

    #[test]
    fn a_declined_program_is_declined_alike_again() {
        let p = program("5000", "30D6");
        let first = evaluate(&p).expect_err("declined");
        // Declined before any work on the target, from what is kept.
        assert!(matches!(p.exact_cache.0.get(), Some(Some(Err(_)))));
        assert_eq!(evaluate(&p).expect_err("declined"), first);
    }
}
