//! Fights settled by a contest each round, exactly: a Markov chain over the
//! wounds each side has left.
//!
//! A side of such a fight is one group whose losses carry from model to
//! model (a health pool), so its state is the wounds it has left and its
//! models alive follow from them. Every attack die of a pool then takes a
//! number of wounds drawn from one distribution, whatever the state (the
//! existing evaluator works it out for one die against the side attacked),
//! and the wounds a pool takes are the sum over its dice, up to what the side
//! has left. A round runs the pools in order from each state (a pool striking
//! together with the one before counts its dice from the models alive before
//! that one), then settles the contest from the wounds each side lost in it;
//! the states where a side is destroyed or leaves the fight stop there.

use super::budget::{self, decline, hold, spend};
use super::evaluator::Finished;
use super::pmf::{dice_pmf, terms_pmf};
use super::state::Fast;
use super::{MAX_STATES, MAX_WORK};
use crate::dice::DiceExpr;
use crate::error::CoreError;
use crate::plan::{
    AttackPool, Attacks, Contest, Excess, Plan, Sequence, Side, Target, PLAN_VERSION,
};
use crate::program::{InflictKind, Program, RunAction, RunPool, RunSequence, RunTest};
use std::collections::HashMap;

/// Chances by state, in a map whose order (and so the order its chances are
/// added up in) is the same on every run: the standard map's random keys
/// made a fight's answer differ in its last bits from one run to the next.
type Map<K> = HashMap<K, f64, Fast>;

/// One side: wounds per model and models, as one health pool, and the
/// wounds it starts with (fewer when it lost some before the trial).
#[derive(Debug, Clone, Copy)]
struct Pool {
    wounds: u32,
    models: u32,
    start: u32,
}

impl Pool {
    fn total(self) -> u32 {
        self.wounds * self.models
    }

    /// Models alive with `left` wounds left: every partly wounded model stands.
    fn alive(self, left: u32) -> u32 {
        left.div_ceil(self.wounds)
    }
}

/// A pool of the fight, ready for the chain.
struct Strike {
    /// The side attacked: 0 the attacker's models, 1 the target.
    attacked: usize,
    simultaneous: bool,
    /// Per number of the striking side's models alive, the wounds the pool
    /// takes from a side that has them all, the tail above the side's total
    /// folded into it.
    losses: Vec<Vec<f64>>,
}

/// Index of a side in the chain's arrays.
fn index(side: Side) -> usize {
    match side {
        Side::Attacker => 0,
        Side::Target => 1,
    }
}

/// Evaluate a fight with a contest exactly.
///
/// # Errors
/// [`CoreError::Declined`] when a side is not one health pool, a pool counts
/// anything or does something its dice do not decide alone, or the states
/// are too many.
pub(super) fn evaluate(program: &Program, contest: &Contest) -> Result<Finished, CoreError> {
    let plan = &program.plan;
    let attacker = plan
        .attacker
        .as_ref()
        .ok_or_else(|| decline("a fight without the attacker's models"))?;
    let sides = [
        side_pool(attacker, "the attacker")?,
        side_pool(&plan.target, "the target")?,
    ];
    if !plan.marks.is_empty() {
        return Err(decline("the plan sets marks that later rolls depend on"));
    }
    let states = (sides[0].total() as usize + 1) * (sides[1].total() as usize + 1);
    if states > MAX_STATES {
        return Err(decline(format!(
            "a fight of {} against {} wounds has {states} states, more than the {MAX_STATES} it carries",
            sides[0].total(),
            sides[1].total()
        )));
    }
    let mut strikes = Vec::new();
    for (si, seq) in program.sequences.iter().enumerate() {
        let RunSequence::Pool(run) = seq else {
            return Err(decline(format!(
                "sequence {:?} is not an attack pool",
                seq.name()
            )));
        };
        let Sequence::Attack(pool) = &plan.sequences[si] else {
            unreachable!("a pool is prepared from an attack");
        };
        admit_pool(run, pool.excess_carries(sides[index(run.against)].wounds))?;
        strikes.push(strike(pool, run, plan, sides)?);
    }
    if strikes.iter().filter(|s| s.attacked == 1).count() != 1 {
        return Err(decline(
            "the target is struck by other than one pool; the chain follows one pool's wounds a side",
        ));
    }
    let rounds = plan.rounds.as_ref().map_or(1, |r| r.max);
    // From each pair of wounds left, a strike's work is the states reached
    // before it times the wounds it can take.
    let mut reached: u64 = 1;
    let mut per_state: u64 = 1;
    for s in &strikes {
        let longest = s.losses.iter().map(Vec::len).max().unwrap_or(1) as u64;
        per_state = per_state.saturating_add(reached.saturating_mul(longest));
        reached = reached.saturating_mul(longest);
    }
    let (spent, _) = budget::work();
    let work = per_state
        .saturating_mul(states as u64)
        .saturating_mul(u64::from(rounds));
    if spent.saturating_add(work) > MAX_WORK {
        return Err(decline(format!(
            "a fight of {} against {} wounds for {rounds} rounds needs about {work} steps of work, over its limit of {MAX_WORK} (about a second or two)",
            sides[0].total(),
            sides[1].total()
        )));
    }
    budget::expect(spent.saturating_add(work));
    let chain = Chain {
        sides,
        strikes: &strikes,
        contest,
        roll: dice_pmf(DiceExpr {
            count: contest.dice,
            sides: contest.sides,
            constant: 0,
        }),
    };
    let end = chain.run(rounds);
    Ok(end.numbers(program, sides))
}

/// One side as a health pool, or why it is not one.
fn side_pool(t: &Target, name: &str) -> Result<Pool, CoreError> {
    let [g] = &t.groups[..] else {
        return Err(decline(format!(
            "{name} has {} groups; a fight settled by a contest is exact for one group a side",
            t.groups.len()
        )));
    };
    if !g.thresholds.is_empty() {
        return Err(decline(format!(
            "{name}'s models convert damage through thresholds"
        )));
    }
    Ok(Pool {
        wounds: g.wounds,
        models: g.models,
        start: g.models * g.wounds - g.wounds_lost,
    })
}

impl AttackPool {
    /// Does damage beyond a model carry to the next (always true of models
    /// with one wound)?
    fn excess_carries(&self, wounds: u32) -> bool {
        self.damage.excess != Excess::Lost || wounds == 1
    }
}

/// A pool's reasons to decline: what its dice do not decide alone.
fn admit_pool(pool: &RunPool, carries: bool) -> Result<(), CoreError> {
    let why = if !carries {
        Some("its damage beyond a model is lost, so what a die takes depends on the model it meets")
    } else if pool.batch_hook.is_some() {
        Some("it calls a batch hook")
    } else if !pool.focus.is_empty() {
        Some("it picks a focus group")
    } else if pool.damage_reroll_one || pool.tests.iter().any(|t| t.reroll_one) {
        Some("it re-rolls one die a round, which ties its dice together")
    } else if pool.attacks_counter.is_some()
        || pool.mortal_counter.is_some()
        || pool.top_threshold_counter.is_some()
        || pool.top_threshold.is_some()
        || pool.save.counter.is_some()
        || pool.tests.iter().any(|t| t.counter.is_some())
    {
        Some("it counts its dice in a counter, which the chain does not follow")
    } else if pool.tests.iter().flat_map(RunTest::actions).any(|a| {
        matches!(
            a,
            RunAction::Count(_)
                | RunAction::Inflict(crate::program::Inflict {
                    kind: InflictKind::Mortal { .. },
                    ..
                })
        )
    }) {
        Some("it counts a status or inflicts mortal wounds")
    } else if pool
        .attacks
        .iter()
        .any(|a| a.alive_of.is_some_and(|g| g != 0))
    {
        Some("it counts the models of a group the side does not have")
    } else {
        None
    };
    match why {
        Some(why) => Err(decline(format!("pool {:?}: {why}", pool.name))),
        None => Ok(()),
    }
}

/// The wounds one die of `pool` takes, from the existing evaluator run on a
/// Plan of that die alone against the side attacked.
fn one_die(pool: &AttackPool, attacked: &Target) -> Result<Vec<f64>, CoreError> {
    // What a die takes does not depend on where the side started (its
    // damage carries through the pool), so the side is taken whole.
    let mut attacked = attacked.clone();
    for g in &mut attacked.groups {
        g.wounds_lost = 0;
    }
    let mut alone = pool.clone();
    alone.attacks = vec![Attacks {
        models: 1,
        dice: DiceExpr::fixed(1),
        bonus: 0,
        minimum: None,
        maximize: false,
        alive_of: None,
        reserve: 0,
    }];
    alone.against = Side::Target;
    alone.simultaneous = false;
    let plan = Plan {
        version: PLAN_VERSION,
        counters: Vec::new(),
        target: attacked,
        attacker: None,
        sequences: vec![Sequence::Attack(Box::new(alone))],
        rounds: None,
        marks: Vec::new(),
    };
    let (pmfs, _) = super::evaluate_within_budget(&Program::new(plan)?)?;
    // With no counters, the damage is the first number.
    Ok(pmfs.into_iter().next().unwrap_or_else(|| vec![1.0]))
}

/// Fold the mass of `pmf` above `most` into `most`.
fn fold(mut pmf: Vec<f64>, most: u32) -> Vec<f64> {
    let most = most as usize;
    if pmf.len() > most + 1 {
        let tail: f64 = pmf[most + 1..].iter().sum();
        pmf.truncate(most + 1);
        pmf[most] += tail;
    }
    pmf
}

/// A pool's losses for every number of striking models alive.
fn strike(
    pool: &AttackPool,
    run: &RunPool,
    plan: &Plan,
    sides: [Pool; 2],
) -> Result<Strike, CoreError> {
    let attacked = index(run.against);
    let attacked_side = match run.against {
        Side::Attacker => plan.attacker.as_ref().expect("checked by the caller"),
        Side::Target => &plan.target,
    };
    let most = sides[attacked].total();
    let one = fold(one_die(pool, attacked_side)?, most);
    let striking = sides[1 - attacked].models;
    let mut losses = Vec::with_capacity(striking as usize + 1);
    // The sums of n dice, folded, as n grows: built once, shared by every m.
    let mut powers: Vec<Vec<f64>> = vec![vec![1.0]];
    for m in 0..=striking {
        let dice = terms_pmf(&run.attacks, Some(m));
        while powers.len() < dice.len() {
            let last = powers.last().expect("starts with one");
            let next = fold(super::pmf::convolve(last, &one), most);
            powers.push(next);
            if hold(8 * (u64::from(most) + 1) * powers.len() as u64) {
                return Err(decline("the sums of a pool's dice do not fit in memory"));
            }
        }
        // As long as the most the dice can take: the chain's work follows it.
        let longest = (0..dice.len())
            .filter(|&n| dice[n] > 0.0)
            .map(|n| powers[n].len())
            .max()
            .unwrap_or(1);
        let mut loss = vec![0.0; longest];
        for (n, &p) in dice.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            for (l, &q) in powers[n].iter().enumerate() {
                loss[l] += p * q;
            }
        }
        losses.push(loss);
    }
    Ok(Strike {
        attacked,
        simultaneous: run.simultaneous,
        losses,
    })
}

/// Within a round: wounds left on both sides, the models alive on both
/// sides when the current strike began, and whether the strikes stopped (a
/// side was destroyed before a strike).
type Within = ([u32; 2], [u32; 2], bool);

struct Chain<'a> {
    sides: [Pool; 2],
    strikes: &'a [Strike],
    contest: &'a Contest,
    /// The contest roll's sum, as a pmf.
    roll: Vec<f64>,
}

/// How the fight ended, as marginal distributions.
#[derive(Default)]
struct End {
    /// Wounds left per side (attacker, target).
    left: [Vec<f64>; 2],
    rounds: Vec<f64>,
    /// 0 both stand, 1 target destroyed, 2 attacker destroyed, 3 both.
    outcome: Vec<f64>,
    winner: Vec<f64>,
    /// 1 the target left the fight, 2 the attacker did.
    gone: Vec<f64>,
}

impl End {
    fn add(&mut self, left: [u32; 2], rounds: u32, winner: u32, gone: u32, p: f64) {
        use super::pmf::accumulate;
        accumulate(&mut self.left[0], left[0], p);
        accumulate(&mut self.left[1], left[1], p);
        accumulate(&mut self.rounds, rounds, p);
        let outcome = u32::from(left[1] == 0) + 2 * u32::from(left[0] == 0);
        accumulate(&mut self.outcome, outcome, p);
        accumulate(&mut self.winner, winner, p);
        accumulate(&mut self.gone, gone, p);
    }

    /// The distributions of the Program's numbers, in its order.
    fn numbers(&self, program: &Program, sides: [Pool; 2]) -> Finished {
        let plan = &program.plan;
        let lost = |s: usize| -> (Vec<f64>, Vec<f64>) {
            // Counted from where the side started.
            let start = sides[s].start;
            let mut damage = Vec::new();
            let mut destroyed = Vec::new();
            for (left, &p) in self.left[s].iter().enumerate() {
                let left = left as u32;
                super::pmf::accumulate(&mut damage, start - left, p);
                let gone = sides[s].alive(start) - sides[s].alive(left);
                super::pmf::accumulate(&mut destroyed, gone, p);
            }
            (damage, destroyed)
        };
        let r = plan.rounds.as_ref();
        let contest = r.and_then(|r| r.contest.as_ref());
        let mut pmfs: Vec<Vec<f64>> = plan
            .counters
            .iter()
            .map(|name| {
                let is = |c: Option<&String>| c == Some(name);
                if is(r.and_then(|r| r.counter.as_ref())) {
                    self.rounds.clone()
                } else if is(r.and_then(|r| r.outcome_counter.as_ref())) {
                    self.outcome.clone()
                } else if is(contest.and_then(|c| c.winner_counter.as_ref())) {
                    self.winner.clone()
                } else if is(contest.and_then(|c| c.left_counter.as_ref())) {
                    self.gone.clone()
                } else {
                    vec![1.0]
                }
            })
            .collect();
        let (target_damage, target_destroyed) = lost(1);
        let (attacker_damage, attacker_destroyed) = lost(0);
        pmfs.extend([
            target_damage.clone(),
            target_destroyed.clone(),
            attacker_damage,
            attacker_destroyed,
            target_destroyed,
        ]);
        // One pool strikes the target (checked by `evaluate`): its wounds and
        // mortal wounds (none) are the target's.
        if program.attributed_sequences().len() == 1 {
            pmfs.extend([target_damage, vec![1.0]]);
        }
        let means = vec![None; pmfs.len()];
        (pmfs, means)
    }
}

impl Chain<'_> {
    /// Every round from both sides as they start, to the end of the fight.
    fn run(&self, rounds: u32) -> End {
        let mut end = End::default();
        let mut now: Map<[u32; 2]> =
            Map::from_iter([([self.sides[0].start, self.sides[1].start], 1.0)]);
        for round in 0..rounds {
            let mut next: Map<[u32; 2]> = Map::default();
            for (&start, &p) in &now {
                if spend(1) {
                    return end;
                }
                for (left, q) in self.round(start) {
                    self.settle(round, rounds, start, left, p * q, &mut next, &mut end);
                }
            }
            now = next;
        }
        end
    }

    /// One round's strikes from `start`: the wounds left after it, with
    /// their chances.
    fn round(&self, start: [u32; 2]) -> Vec<([u32; 2], f64)> {
        let mut states: Map<Within> = Map::from_iter([((start, [0, 0], false), 1.0)]);
        for s in self.strikes {
            let mut after: Map<Within> = Map::default();
            for (&(left, mut at_strike, mut stopped), &p) in &states {
                if !s.simultaneous {
                    stopped = stopped || left.contains(&0);
                    at_strike = [self.sides[0].alive(left[0]), self.sides[1].alive(left[1])];
                }
                if stopped {
                    *after.entry((left, at_strike, stopped)).or_default() += p;
                    continue;
                }
                let loss = &s.losses[at_strike[1 - s.attacked] as usize];
                if spend(loss.len()) {
                    return Vec::new();
                }
                for (l, &q) in loss.iter().enumerate() {
                    if q == 0.0 {
                        continue;
                    }
                    let mut now = left;
                    now[s.attacked] -= (l as u32).min(now[s.attacked]);
                    *after.entry((now, at_strike, stopped)).or_default() += p * q;
                }
            }
            states = after;
        }
        let mut out: Map<[u32; 2]> = Map::default();
        for ((left, _, _), p) in states {
            *out.entry(left).or_default() += p;
        }
        out.into_iter().collect()
    }

    /// The contest of round `round` (from 0) that went from `start` to
    /// `left`, with chance `p`: into the next round, or to the end.
    #[allow(clippy::too_many_arguments)]
    fn settle(
        &self,
        round: u32,
        rounds: u32,
        start: [u32; 2],
        left: [u32; 2],
        p: f64,
        next: &mut Map<[u32; 2]>,
        end: &mut End,
    ) {
        let c = self.contest;
        let scores = [
            c.attacker.score(round, start[1] - left[1]),
            c.target.score(round, start[0] - left[0]),
        ];
        let loser = Contest::loser(scores);
        let winner = match loser {
            None => 0,
            Some((Side::Target, _)) => 1,
            Some((Side::Attacker, _)) => 2,
        };
        let fought = round + 1;
        let mut stand = p;
        if left.contains(&0) {
            end.add(left, fought, winner, 0, p);
            return;
        }
        if let Some((side, difference)) = loser {
            let me = index(side);
            let alive = [self.sides[0].alive(left[0]), self.sides[1].alive(left[1])];
            let most = c.hold_at_most(side, difference, alive[me], alive[1 - me]);
            let holds: f64 = self
                .roll
                .iter()
                .enumerate()
                .filter(|&(sum, _)| sum as i64 <= most)
                .map(|(_, &q)| q)
                .sum();
            let gone = if side == Side::Target { 1 } else { 2 };
            end.add(left, fought, winner, gone, p * (1.0 - holds));
            stand = p * holds;
        }
        if fought == rounds {
            end.add(left, fought, winner, 0, stand);
        } else {
            *next.entry(left).or_default() += stand;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{ContestSide, IgnoreDifference};

    /// Two one-wound models a side, each side one attack hitting on 4+ and
    /// wounding on 4+ (1/4 a wound), with no save; the attacker has +1.
    fn plan(simultaneous: bool) -> Program {
        let pool = |against: &str| {
            format!(
                r#"{{"kind": "attack", "name": "{against}", "against": "{against}",
                "simultaneous": {},
                "attacks": [{{"models": 1, "dice": "1", "alive_of": 0}}],
                "steps": [{{"name": "hit", "target": 4}}, {{"name": "wound", "target": 4}}],
                "save": {{"rolled": false}}, "damage": {{"dice": "1", "excess": "group"}}}}"#,
                simultaneous && against == "attacker"
            )
        };
        let side = r#"{"groups": [{"name": "g", "models": 2, "wounds": 1}], "order": [0]}"#;
        let json = format!(
            r#"{{"version": {PLAN_VERSION}, "counters": ["outcome", "winner", "left"],
            "target": {side}, "attacker": {side},
            "sequences": [{}, {}],
            "rounds": {{"max": 1, "outcome_counter": "outcome", "contest": {{
                "attacker": {{"hold": 7, "bonus": 1}}, "target": {{"hold": 7}},
                "winner_counter": "winner", "left_counter": "left"}}}}}}"#,
            pool("target"),
            pool("attacker")
        );
        Program::new(Plan::from_json(&json).expect("a valid plan")).expect("a program")
    }

    fn close(a: &[f64], b: &[f64]) {
        for i in 0..a.len().max(b.len()) {
            let (x, y) = (
                a.get(i).copied().unwrap_or(0.0),
                b.get(i).copied().unwrap_or(0.0),
            );
            assert!((x - y).abs() < 1e-12, "at {i}: {a:?} against {b:?}");
        }
    }

    #[test]
    fn a_round_and_its_break_test_match_hand_fractions() {
        // Each side wounds with 1/4, together. The target loses by 1 when
        // neither or both wound (10/16) and breaks on more than 6 (21/36), by
        // 2 when only the attacker wounds (3/16) and breaks on more than 5
        // (26/36); it draws when only it wounds: P(left) = 1/2.
        let (pmfs, _) = crate::exact::evaluate(&plan(true))
            .map(|e| (e.pmfs, e.means))
            .expect("exact");
        close(&pmfs[1], &[3.0 / 16.0, 13.0 / 16.0]);
        close(&pmfs[2], &[0.5, 0.5]);
        // Ordered, the attacker's kill (1/4) leaves one target model, which
        // still strikes: the same round, and the both-destroyed outcome is
        // impossible with two models a side.
        let (pmfs, _) = crate::exact::evaluate(&plan(false))
            .map(|e| (e.pmfs, e.means))
            .expect("exact");
        close(&pmfs[1], &[3.0 / 16.0, 13.0 / 16.0]);
    }

    #[test]
    fn steadfast_and_the_sum_that_always_holds() {
        let side = |ignore| ContestSide {
            bonus: 0,
            first_round_bonus: 0,
            hold: 7,
            ignore_difference: ignore,
            rank_width: 5,
        };
        let mut c = Contest {
            attacker: side(IgnoreDifference::Never),
            target: side(IgnoreDifference::MoreRanks),
            dice: 2,
            sides: 6,
            always_holds: 0,
            winner_counter: None,
            left_counter: None,
        };
        assert_eq!(Contest::loser([3, 5]), Some((Side::Attacker, 2)));
        assert_eq!(Contest::loser([4, 4]), None);
        // Ten models in ranks of five against nine: two full ranks to one.
        assert_eq!(c.hold_at_most(Side::Target, 3, 10, 9), 7);
        assert_eq!(c.hold_at_most(Side::Target, 3, 10, 10), 4);
        // No sum of the dice is that low: nothing holds.
        assert_eq!(c.hold_at_most(Side::Attacker, 9, 10, 10), 0);
        c.always_holds = 2;
        assert_eq!(c.hold_at_most(Side::Attacker, 9, 10, 10), 2);
    }
}
