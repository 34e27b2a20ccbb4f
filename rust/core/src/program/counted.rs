//! What a test whose tokens run a face count at a time needs to know
//! (`RunTest::counting`), and what routing its tokens of one outcome does,
//! per token.
//!
//! Such a test's routing rolls nothing and queues at most one harm action,
//! so `n` tokens with the same outcome do `n` times what one token does:
//! counters go up, tokens enter later tests, harm is queued. Each outcome's
//! effect is found once, when the Program is lowered, by routing one token
//! through [`RunTest::route`] (so the actions' meaning stays written once),
//! and a trial then applies it multiplied by its count in a few additions.

use crate::dice::DiceExpr;
use crate::plan::Outcome;
use crate::plan::Plan;
use crate::program::{mortal_count, Inflict, RunAction, RunSequence, RunTest, TokenRoute};
use std::ops::RangeInclusive;

/// What a test run a face count at a time needs to know: it rolls one die
/// (or none), its routing rolls nothing and queues at most one harm action,
/// so routing each outcome's count at once leaves what routing the tokens
/// one by one would.
#[derive(Debug, Clone)]
pub(crate) struct Counting {
    /// No outcome has an action: a success just passes on.
    pub(crate) plain: bool,
    /// Per face, at `face - 1`: 1 if it succeeds plus 2^32 if it is
    /// critical, when no die can be re-rolled and the die has fewer than 63
    /// sides: summing a die's lane counts both outcomes in one addition.
    pub(crate) lanes: Option<Box<[u64; 64]>>,
    /// What one token of each outcome does ([`CountedRoute::of`]), laid out
    /// as a trial applies it; filled in once the pool's tests are lowered
    /// (empty for a `plain` test).
    pub(crate) spans: Spans,
}

/// A counted test's three routes as additions over the span of counters and
/// the span of tests they touch, each slot's per-token addition for each
/// outcome side by side: a trial adds each outcome's count times its
/// addition along one short span, with no branch on which outcomes came up
/// or which slots each one touches.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Spans {
    /// The first counter touched, and per counter from it on, what one
    /// token of each outcome adds.
    pub(crate) counters_from: usize,
    pub(crate) counters: Box<[[u32; 3]]>,
    /// The same for the tests tokens enter (the save after the last test).
    pub(crate) enters_from: usize,
    pub(crate) enters: Box<[[u32; 3]]>,
    /// Tokens the test itself passed on, per token of each outcome.
    pub(crate) passed: [u32; 3],
    /// The one harm queued per token, and the outcome (as `usize`) that
    /// queues it.
    pub(crate) inflict: Option<(usize, Inflict)>,
    /// The mortal wounds each such harm inflicts, when it is held until
    /// every sequence was resolved and all the harm the Plan holds lands
    /// as one count ([`sum_held_harm`]): then a trial adds them up
    /// as they are held (`Workspace::held_wounds`) instead of queueing them.
    pub(crate) held_wounds: Option<u32>,
}

impl Spans {
    /// `routes` (indexed by `Outcome as usize`) laid out by slot.
    pub(crate) fn of(routes: &[CountedRoute; 3]) -> Spans {
        let (counters_from, counters) = by_slot(routes, |r| &r.counts);
        let (enters_from, enters) = by_slot(routes, |r| &r.enters);
        Spans {
            counters_from,
            counters,
            enters_from,
            enters,
            passed: routes.each_ref().map(|r| r.passed),
            inflict: routes
                .iter()
                .enumerate()
                .find_map(|(outcome, r)| r.inflict.map(|what| (outcome, what))),
            held_wounds: None,
        }
    }

    /// Apply `counts` tokens of each outcome (indexed by `Outcome as usize`)
    /// to `counters` and `entering`: what each route, multiplied by its
    /// count, adds.
    #[inline]
    pub(crate) fn add(&self, counts: [u32; 3], counters: &mut [u32], entering: &mut [u32]) {
        let along = |slots: &mut [u32], adds: &[[u32; 3]]| {
            for (slot, a) in slots.iter_mut().zip(adds) {
                *slot += a[0] * counts[0] + a[1] * counts[1] + a[2] * counts[2];
            }
        };
        along(&mut counters[self.counters_from..], &self.counters);
        along(&mut entering[self.enters_from..], &self.enters);
    }
}

/// The one pool whose held harm a trial adds up as it is held, if any,
/// with its counted tests' [`Spans::held_wounds`] filled in: when the Plan
/// has no fight and no batch hook, and all the harm it holds until every
/// sequence was resolved is that pool's, queued by counted tests, and lands
/// on one group as a count (`mortal_count`). Such wounds, landed one lot
/// after another or all at once, leave the same models, counters and harm
/// credited to the pool, so their sum is all a trial needs to keep.
pub(crate) fn sum_held_harm(plan: &Plan, sequences: &mut [RunSequence]) -> Option<usize> {
    if plan.rounds.is_some() {
        return None;
    }
    let pools = sequences.iter().enumerate().filter_map(|(i, s)| match s {
        RunSequence::Pool(p) => Some((i, p)),
        _ => None,
    });
    let mut holding = None;
    for (index, pool) in pools {
        if pool.batch_hook.is_some() {
            return None;
        }
        let held = pool.tests.iter().flat_map(|t| {
            t.actions().filter_map(move |a| match a {
                RunAction::Inflict(what) if what.after_all => Some((t, *what)),
                _ => None,
            })
        });
        let mut wounds = Vec::new();
        for (test, what) in held {
            let counted = test
                .counting
                .as_ref()
                .is_some_and(|c| c.spans.inflict.is_some_and(|(_, w)| w == what));
            let each = mortal_count(pool, &plan.target.groups, &what).filter(|_| counted)?;
            wounds.push((what, each));
        }
        if !wounds.is_empty() {
            if holding.is_some() {
                return None;
            }
            holding = Some((index, wounds));
        }
    }
    let (index, wounds) = holding?;
    let RunSequence::Pool(pool) = &mut sequences[index] else {
        return None;
    };
    for spans in pool
        .tests
        .iter_mut()
        .filter_map(|t| t.counting.as_mut().map(|c| &mut c.spans))
    {
        if let Some((_, what)) = spans.inflict {
            spans.held_wounds = wounds
                .iter()
                .find(|(w, _)| *w == what)
                .map(|&(_, each)| each);
        }
    }
    Some(index)
}

/// The slots `entries` of any route touch, from the first to the last, and
/// per slot what one token of each outcome adds to it.
fn by_slot(
    routes: &[CountedRoute; 3],
    entries: impl Fn(&CountedRoute) -> &Vec<(usize, u32)>,
) -> (usize, Box<[[u32; 3]]>) {
    let touched = || {
        routes
            .iter()
            .flat_map(|r| entries(r).iter().map(|&(slot, _)| slot))
    };
    let (Some(first), Some(last)) = (touched().min(), touched().max()) else {
        return (0, Box::default());
    };
    let mut adds = vec![[0; 3]; last - first + 1];
    for (outcome, route) in routes.iter().enumerate() {
        for &(slot, by) in entries(route) {
            adds[slot - first][outcome] += by;
        }
    }
    (first, adds.into())
}

/// One token's effect, for one outcome of one counted test.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CountedRoute {
    /// Counters and how far each goes up, per token.
    pub(crate) counts: Vec<(usize, u32)>,
    /// Tests (the save after the last one) and how many tokens enter each,
    /// per token.
    pub(crate) enters: Vec<(usize, u32)>,
    /// How many tokens the test itself passed on (as its batch hooks see),
    /// per token.
    pub(crate) passed: u32,
    /// The one harm each token queues, if any.
    pub(crate) inflict: Option<Inflict>,
}

impl CountedRoute {
    /// The effect of routing one token with `outcome` at test `k` of
    /// `tests`, which must be counted (`RunTest::counting`).
    pub(crate) fn of(tests: &[RunTest], k: usize, outcome: Outcome) -> CountedRoute {
        let mut recorder = Recorder {
            tests,
            k,
            route: CountedRoute::default(),
        };
        let routed = tests[k].route(k, outcome, None, &mut recorder);
        debug_assert!(routed.is_some(), "recording a route never stops it");
        recorder.route
    }

    fn count(&mut self, counter: Option<usize>, by: u32) {
        if let Some(c) = counter.filter(|_| by > 0) {
            add(&mut self.counts, c, by);
        }
    }
}

/// Add `by` to `key`'s entry, or a new entry: one per key keeps a trial's
/// additions few.
fn add(entries: &mut Vec<(usize, u32)>, key: usize, by: u32) {
    match entries.iter_mut().find(|(k, _)| *k == key) {
        Some((_, n)) => *n += by,
        None => entries.push((key, by)),
    }
}

/// A [`TokenRoute`] that writes down what one token does.
struct Recorder<'a> {
    tests: &'a [RunTest],
    k: usize,
    route: CountedRoute,
}

impl TokenRoute for Recorder<'_> {
    fn count(&mut self, counter: usize) {
        self.route.count(Some(counter), 1);
    }

    fn extra(&mut self, amount: DiceExpr) -> Option<()> {
        // A counted test's extra tokens are a fixed number (`counted`).
        debug_assert!(!amount.is_random());
        let n = amount.min();
        self.route.count(self.tests[self.k].counter, n);
        add(&mut self.route.enters, self.k + 1, n);
        Some(())
    }

    fn skip(&mut self, skipped: RangeInclusive<usize>) {
        for t in &self.tests[skipped] {
            self.route.count(t.counter, 1);
        }
    }

    fn inflict(&mut self, what: Inflict, ended: Option<bool>) {
        debug_assert!(
            self.route.inflict.is_none(),
            "a counted test queues one harm at most"
        );
        self.route.inflict = Some(what);
        if let Some(passed) = ended {
            self.route
                .count(self.tests[self.k].counter, u32::from(passed));
        }
    }

    fn pass(&mut self, goes_to: usize) -> Option<()> {
        self.route.count(self.tests[self.k].counter, 1);
        self.route.passed += 1;
        add(&mut self.route.enters, goes_to, 1);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::program::{Program, RunSequence};

    /// Sustained Hits 1 and Lethal Hits on the hit roll, a held mortal
    /// wound (Devastating Wounds) on the wound roll.
    fn plan() -> serde_json::Value {
        serde_json::json!({
            "version": 1,
            "counters": ["hits", "wounds"],
            "target": {"groups": [{"name": "A", "models": 5, "wounds": 2, "save": 3}], "order": [0]},
            "sequences": [{
                "kind": "attack", "name": "guns",
                "attacks": [{"models": 10, "dice": "2"}],
                "steps": [
                    {"name": "hit", "target": 3, "natural_fail": 1, "critical": 6, "counter": "hits",
                     "effects": [{"on": "critical", "action": "extra", "amount": "1"},
                                 {"on": "critical", "action": "skip", "steps": 1}]},
                    {"name": "wound", "target": 4, "natural_fail": 1, "critical": 6, "counter": "wounds",
                     "effects": [{"on": "critical", "action": "mortal", "spill": true,
                                  "ends_attack": true, "after_all": true}]}
                ],
                "save": {"ap": -1},
                "damage": {"dice": "1"}
            }]
        })
    }

    fn program() -> Program {
        lowered(&plan())
    }

    fn lowered(plan: &serde_json::Value) -> Program {
        Program::new(Plan::from_json(&plan.to_string()).expect("a valid Plan")).expect("a Program")
    }

    fn routes(program: &Program, k: usize) -> [CountedRoute; 3] {
        let RunSequence::Pool(pool) = &program.sequences[0] else {
            panic!("the first sequence is the pool");
        };
        assert!(pool.tests[k].counting.is_some(), "a counted test");
        [Outcome::Fail, Outcome::Success, Outcome::Critical]
            .map(|outcome| CountedRoute::of(&pool.tests, k, outcome))
    }

    #[test]
    fn a_critical_hit_counts_twice_enters_the_wound_roll_once_and_skips_past_it_once() {
        let [fail, success, critical] = routes(&program(), 0);
        assert_eq!(fail, CountedRoute::default());
        assert_eq!(success.counts, [(0, 1)]);
        assert_eq!(success.enters, [(1, 1)]);
        // The extra hit is counted and rolls to wound; the lethal hit is
        // counted as a wound too and goes straight to the save.
        assert_eq!(critical.counts, [(0, 2), (1, 1)]);
        assert_eq!(critical.enters, [(1, 1), (2, 1)]);
        assert_eq!((critical.passed, critical.inflict), (1, None));
    }

    #[test]
    fn the_routes_laid_out_by_slot_add_what_each_outcome_adds_per_token() {
        let program = program();
        let RunSequence::Pool(pool) = &program.sequences[0] else {
            panic!("the first sequence is the pool");
        };
        let hit = &pool.tests[0].counting.as_ref().expect("counted").spans;
        // Counters "hits" and "wounds"; tests from the wound roll on.
        assert_eq!(
            (hit.counters_from, &hit.counters[..]),
            (0, &[[0, 1, 2], [0, 0, 1]][..])
        );
        assert_eq!(
            (hit.enters_from, &hit.enters[..]),
            (1, &[[0, 1, 1], [0, 0, 1]][..])
        );
        assert_eq!((hit.passed, hit.inflict), ([0, 1, 1], None));
        // 5 failures, 7 successes and 3 criticals: 13 hits, 3 wounds
        // counted; 10 wound rolls and 3 tokens straight to the save.
        let (mut counters, mut entering) = ([0; 2], [20, 0, 0]);
        hit.add([5, 7, 3], &mut counters, &mut entering);
        assert_eq!((counters, entering), ([13, 3], [20, 10, 3]));

        let wound = &pool.tests[1].counting.as_ref().expect("counted").spans;
        assert_eq!(
            (wound.counters_from, &wound.counters[..]),
            (1, &[[0, 1, 1]][..])
        );
        assert_eq!(
            (wound.enters_from, &wound.enters[..]),
            (2, &[[0, 1, 0]][..])
        );
        assert!(wound
            .inflict
            .is_some_and(|(outcome, what)| outcome == 2 && what.after_all));
    }

    #[test]
    fn a_critical_wound_is_counted_and_held_instead_of_passing_to_the_save() {
        let [_, success, critical] = routes(&program(), 1);
        assert_eq!(
            (success.counts.as_slice(), success.enters.as_slice()),
            (&[(1, 1)][..], &[(2, 1)][..])
        );
        assert_eq!(critical.counts, [(1, 1)]);
        assert!(critical.enters.is_empty());
        assert_eq!(critical.passed, 0);
        assert!(critical
            .inflict
            .is_some_and(|what| what.after_all && what.ends));
    }

    #[test]
    fn held_mortal_wounds_into_one_group_are_added_up_as_they_are_held() {
        let program = program();
        assert_eq!(program.held_pool, Some(0));
        let RunSequence::Pool(pool) = &program.sequences[0] else {
            panic!("the first sequence is the pool");
        };
        let wound = pool.tests[1].counting.as_ref().expect("counted");
        // The pool's damage, 1, for each critical wound.
        assert_eq!(wound.spans.held_wounds, Some(1));
    }

    #[test]
    fn held_harm_that_cannot_land_as_one_count_is_held_one_lot_at_a_time() {
        let mut two_pools = plan();
        let pool = two_pools["sequences"][0].clone();
        two_pools["sequences"]
            .as_array_mut()
            .expect("sequences")
            .push(pool);
        let mut feel_no_pain = plan();
        feel_no_pain["target"]["groups"][0]["feel_no_pain"] = 5.into();
        let mut two_groups = plan();
        let group = serde_json::json!({"name": "B", "models": 1, "wounds": 3, "save": 3});
        two_groups["target"]["groups"]
            .as_array_mut()
            .expect("groups")
            .push(group);
        two_groups["target"]["order"] = serde_json::json!([0, 1]);
        let mut random = plan();
        random["sequences"][0]["damage"]["dice"] = "D3".into();
        for (why, plan) in [
            ("two pools hold harm", two_pools),
            ("Feel No Pain", feel_no_pain),
            ("two groups", two_groups),
            ("a random amount", random),
        ] {
            assert_eq!(lowered(&plan).held_pool, None, "{why}");
        }
    }
}
