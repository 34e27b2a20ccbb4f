//! A pool's attack dice and its tests, die by die: how many attack dice the
//! models gather, then each test's dice, token by token, in the order the
//! dice contract fixes (`docs/architecture.md`).
//!
//! A test whose routing rolls nothing and queues at most one harm action
//! (`RunTest::counting`) is run a face count at a time when nothing watches: its dice (and re-rolls)
//! are drawn in the very same order, but only how many came out as each
//! outcome is kept, and each outcome's route is applied once, multiplied.
//! Every counter, every token passed on and every harm queued is the same as
//! routing the tokens one by one, so a seed gives the same trials either way;
//! it saves the per-token routing, which was most of a die's cost.

use crate::dice::DiceExpr;
use crate::plan::Outcome;
use crate::program::{Counting, Inflict, PlainTest, RunPool, RunTest, TokenRoute};
use crate::rng::DiceSource;
use crate::trace::{Event, Observer};
use crate::workspace::{bump, zeroed, Workspace};
use std::ops::RangeInclusive;

/// A pool's attack dice and tests: counters, tokens reaching the save, and
/// queued harm, left in `ws`.
pub(crate) fn run_pool_tests<D: DiceSource, O: Observer>(
    index: usize,
    pool: &RunPool,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    // The focus group is fixed when the pool starts: harm its tokens queue
    // remembers it.
    ws.focus = pool.focus.iter().copied().find(|&g| ws.state.alive[g] > 0);
    let attacks = gather_attacks(pool, ws.striking_alive(), dice);
    ws.attacks = attacks;
    obs.event(Event::Attacks { count: attacks });
    bump(&mut ws.counters, pool.attacks_counter, attacks);

    // Tests: tokens flow forward; entering[k] waits for test k, the last slot
    // is the save.
    let n_tests = pool.tests.len();
    ws.pending.clear();
    ws.extra_mortal = 0;
    ws.one_damage_left = pool.damage_reroll_one;
    if let Some(plain) = pool.plain_tests.as_deref().filter(|_| !obs.enabled()) {
        // Every slot is written below: no need to zero them first.
        ws.entering.resize(n_tests + 1, 0);
        ws.entering[0] = attacks;
        run_plain_tests(plain, ws, dice);
        return;
    }
    zeroed(&mut ws.entering, n_tests + 1);
    ws.entering[0] = attacks;
    let hooked = pool.keeps_test_counts();
    if hooked {
        zeroed(&mut ws.passed, n_tests);
        zeroed(&mut ws.criticals, n_tests);
    }
    for (k, t) in pool.tests.iter().enumerate() {
        let n = ws.entering[k];
        if t.automatic && t.on_success.is_empty() {
            bump(&mut ws.counters, t.counter, n);
            if hooked {
                ws.passed[k] += n;
            }
            ws.entering[k + 1] += n;
            continue;
        }
        match &t.counting {
            Some(counting) if !obs.enabled() => {
                let counts = roll_counted(t, counting, n, dice);
                if hooked {
                    ws.criticals[k] += counts[Outcome::Critical as usize];
                }
                route_counts(index, pool, k, counting, counts, ws);
            }
            _ => test_by_token(index, pool, k, ws, dice, obs),
        }
    }
}

/// Tests that only pass tokens on (`RunPool::plain_tests`): each token's die
/// rolled in turn, as [`roll_counted`] would, and only the passes counted.
#[inline]
fn run_plain_tests<D: DiceSource>(plain: &[PlainTest], ws: &mut Workspace<'_>, dice: &mut D) {
    let mut n = ws.entering[0];
    for (k, t) in plain.iter().enumerate() {
        let mut passed = 0u32;
        dice.roll_each_from_zero(t.die, n, |v| passed += (t.passes >> v) as u32 & 1);
        bump(&mut ws.counters, t.counter, passed);
        ws.entering[k + 1] = passed;
        n = passed;
    }
}

/// Route test `k`'s outcome counts: what one token of each outcome does
/// (`Counting::spans`), multiplied by how many got it.
#[inline]
fn route_counts(
    index: usize,
    pool: &RunPool,
    k: usize,
    counting: &Counting,
    counts: [u32; 3],
    ws: &mut Workspace<'_>,
) {
    if counting.plain {
        // Successes and criticals pass on; nothing else happens.
        let passed = counts[Outcome::Success as usize] + counts[Outcome::Critical as usize];
        bump(&mut ws.counters, pool.tests[k].counter, passed);
        if pool.keeps_test_counts() {
            ws.passed[k] += passed;
        }
        ws.entering[k + 1] += passed;
        return;
    }
    let spans = &counting.spans;
    spans.add(counts, &mut ws.counters, &mut ws.entering);
    if pool.keeps_test_counts() {
        ws.passed[k] += (0..3).map(|o| spans.passed[o] * counts[o]).sum::<u32>();
    }
    if let Some((outcome, what)) = spans.inflict {
        let times = counts[outcome];
        if let Some(each) = spans.held_wounds {
            ws.held_wounds += each * times;
        } else if times > 0 {
            if what.after_all {
                ws.hold(index, what, times);
            } else {
                ws.queue(what, times);
            }
        }
    }
}

/// Test `k` of `pool`, one token at a time: each die rolled, reported and
/// routed before the next.
fn test_by_token<D: DiceSource, O: Observer>(
    index: usize,
    pool: &RunPool,
    k: usize,
    ws: &mut Workspace<'_>,
    dice: &mut D,
    obs: &mut O,
) {
    let t = &pool.tests[k];
    let mut one_left = t.reroll_one;
    for _ in 0..ws.entering[k] {
        // An automatic test rolls nothing: every token is a plain success
        // and its success effects still run.
        let (outcome, class) = if t.automatic {
            (Outcome::Success, None)
        } else if let Some((roll, _)) = &t.roll {
            roll.roll(t.reroll, k, &ws.marks, dice, obs, &mut ws.roll_faces)
        } else {
            let first = dice.roll(t.die);
            let mut roll = first;
            let mut outcome = t.by_face[roll as usize];
            let mut again = t.rerolls(roll, outcome);
            if !again && one_left && outcome == Outcome::Fail {
                // The unit's one re-roll, on the first die that fails.
                one_left = false;
                again = true;
            }
            if again {
                roll = dice.roll(t.die);
                outcome = t.by_face[roll as usize];
            }
            obs.event(Event::Test {
                step: k,
                roll,
                rerolled_from: again.then_some(first),
                outcome,
            });
            (outcome, None)
        };
        if outcome == Outcome::Critical && pool.keeps_test_counts() {
            ws.criticals[k] += 1;
        }
        t.route(
            k,
            outcome,
            class,
            &mut TrialRoute {
                pool,
                index,
                k,
                ws: &mut *ws,
                dice: &mut *dice,
            },
        );
    }
}

/// Roll `n` tokens' dice for test `t` (each re-roll straight after the die
/// it replaces, as token by token) and count the outcomes, indexed by
/// `Outcome as usize`.
#[inline]
fn roll_counted<D: DiceSource>(t: &RunTest, counting: &Counting, n: u32, dice: &mut D) -> [u32; 3] {
    let mut counts = [0u32; 3];
    if t.automatic {
        counts[Outcome::Success as usize] = n;
        return counts;
    }
    let by_face = &t.by_face[..];
    if let Some(lanes) = &counting.lanes {
        // No re-roll can happen: a die adds its face's lane, counting
        // successes in the low half and criticals in the high half, in a
        // register (an increment in memory per die would chain each die to
        // the last through the store). Fewer than 2^32 dice never carry.
        let mut both = 0u64;
        dice.roll_each_from_zero(t.die, n, |v| both += lanes[v as usize & 63]);
        let (successes, criticals) = (both as u32, (both >> 32) as u32);
        counts[Outcome::Success as usize] = successes;
        counts[Outcome::Critical as usize] = criticals;
        counts[Outcome::Fail as usize] = n - successes - criticals;
        return counts;
    }
    let mut one_left = t.reroll_one;
    for _ in 0..n {
        let roll = dice.roll(t.die);
        let mut outcome = by_face[roll as usize];
        let mut again = t.rerolls(roll, outcome);
        if !again && one_left && outcome == Outcome::Fail {
            one_left = false;
            again = true;
        }
        if again {
            outcome = by_face[dice.roll(t.die) as usize];
        }
        counts[outcome as usize] += 1;
    }
    counts
}

/// The routing of one token that got its outcome at test `k` of `pool` in
/// one trial: counters bumped, extra tokens rolled, harm queued, the token
/// moved on.
struct TrialRoute<'a, 'w, D> {
    pool: &'a RunPool,
    /// The pool's sequence index, for harm held until every attack.
    index: usize,
    k: usize,
    ws: &'a mut Workspace<'w>,
    dice: &'a mut D,
}

impl<D: DiceSource> TokenRoute for TrialRoute<'_, '_, D> {
    #[inline]
    fn count(&mut self, counter: usize) {
        self.ws.counters[counter] += 1;
    }

    #[inline]
    fn extra(&mut self, amount: DiceExpr) -> Option<()> {
        let extra = amount.roll(self.dice);
        bump(
            &mut self.ws.counters,
            self.pool.tests[self.k].counter,
            extra,
        );
        self.ws.entering[self.k + 1] += extra;
        Some(())
    }

    #[inline]
    fn skip(&mut self, skipped: RangeInclusive<usize>) {
        for skipped in &self.pool.tests[skipped] {
            bump(&mut self.ws.counters, skipped.counter, 1);
        }
    }

    #[inline]
    fn inflict(&mut self, what: Inflict, ended: Option<bool>) {
        if what.after_all {
            self.ws.hold(self.index, what, 1);
        } else {
            self.ws.queue(what, 1);
        }
        if let Some(passed) = ended {
            let counter = self.pool.tests[self.k].counter;
            bump(&mut self.ws.counters, counter, u32::from(passed));
        }
    }

    #[inline]
    fn pass(&mut self, goes_to: usize) -> Option<()> {
        bump(&mut self.ws.counters, self.pool.tests[self.k].counter, 1);
        if self.pool.keeps_test_counts() {
            self.ws.passed[self.k] += 1;
        }
        self.ws.entering[goes_to] += 1;
        Some(())
    }
}

/// Each model's attack dice, summed over the pool's terms in order.
/// With `alive_of`, only the attacking side's models alive when the strike
/// began attack.
#[inline]
pub(crate) fn gather_attacks<D: DiceSource>(
    pool: &RunPool,
    alive: Option<&[u32]>,
    dice: &mut D,
) -> u32 {
    match pool.fixed_attacks {
        Some(attacks) => attacks,
        None => roll_attacks(pool, alive, dice),
    }
}

/// [`gather_attacks`] term by term.
fn roll_attacks<D: DiceSource>(pool: &RunPool, alive: Option<&[u32]>, dice: &mut D) -> u32 {
    let mut attacks = 0u32;
    for term in &pool.attacks {
        let models = match (term.alive_of, alive) {
            (Some(g), Some(alive)) => alive[g].saturating_sub(term.reserve).min(term.models),
            _ => term.models,
        };
        if !term.maximize && !term.dice.is_random() {
            // A fixed number of attacks a model: no dice, one multiplication.
            attacks += term.per_model(term.dice.roll(dice)) * models;
            continue;
        }
        for _ in 0..models {
            let rolled = if term.maximize {
                term.dice.max()
            } else {
                term.dice.roll(dice)
            };
            attacks += term.per_model(rolled);
        }
    }
    attacks
}
