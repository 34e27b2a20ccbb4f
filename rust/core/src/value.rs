//! The value of what a trial destroyed, as one more reported number.
//!
//! Each group of the target may give a `value` per model of it destroyed
//! (`target.groups[].value` in the Plan). When any does, every trial reports
//! one more number after all the others, `value_destroyed`: the sum over the
//! groups of the group's value times its models destroyed. The caller gives
//! the values their meaning: what a model costs, scaled to whole numbers, or
//! `1, m0 + 1, (m0 + 1)(m1 + 1), ...` to count the models destroyed in every
//! group at once (a mixed-radix index of the joint distribution). Without
//! values there is no such number and nothing is computed.
//!
//! Monte Carlo tallies the number like any other (every path reports a
//! trial's numbers through one function); the exact evaluator works it out
//! from its distribution of the models alive per group at the end.

use crate::error::CoreError;
use crate::plan::{Group, Plan};
use crate::program::Program;
use crate::target::TargetState;

/// The name of the number: the sum of value times models destroyed.
pub const VALUE_DESTROYED: &str = "value_destroyed";

/// The most `value_destroyed` may reach (the sum of value times models over
/// the groups): its histogram holds one count per value up to it.
pub const MAX_VALUE_DESTROYED: u64 = 1 << 20;

/// Does the Plan give its target's groups values, so that trials report
/// `value_destroyed`?
#[must_use]
pub fn valued(plan: &Plan) -> bool {
    plan.target.groups.iter().any(|g| g.value > 0)
}

/// The value of the models `state` lost since the trial started.
#[inline]
#[must_use]
pub(crate) fn of_state(state: &TargetState<'_>) -> u32 {
    of_destroyed(state.alive.iter().enumerate().map(|(g, &alive)| {
        let group = state.group(g);
        (group, group.start().0 - alive)
    }))
}

/// The value of the models destroyed, from each group and its models
/// destroyed since the trial started.
#[inline]
pub(crate) fn of_destroyed<'a>(groups: impl Iterator<Item = (&'a Group, u32)>) -> u32 {
    // Bounded by MAX_VALUE_DESTROYED when the Plan was checked.
    groups.map(|(g, destroyed)| g.value * destroyed).sum()
}

/// Refuse values on the attacking side's groups (nothing reports them) and
/// values that could take `value_destroyed` past [`MAX_VALUE_DESTROYED`].
///
/// # Errors
/// [`CoreError::Plan`] naming the attacker's group with a value;
/// [`CoreError::Limit`] naming the target's groups when the values add up
/// past the limit.
pub(crate) fn check(plan: &Plan) -> Result<(), CoreError> {
    if let Some(a) = &plan.attacker {
        if let Some(i) = a.groups.iter().position(|g| g.value > 0) {
            return Err(CoreError::plan(
                format!("attacker.groups[{i}].value"),
                "is only read on the target's groups; leave it out here",
            ));
        }
    }
    let most: u64 = plan
        .target
        .groups
        .iter()
        .map(|g| u64::from(g.value) * u64::from(g.models))
        .sum();
    if most > MAX_VALUE_DESTROYED {
        return Err(CoreError::limit(
            "target.groups",
            format!(
                "values times models add up to {most}; at most {MAX_VALUE_DESTROYED} are allowed \
                 (use smaller values)"
            ),
        ));
    }
    Ok(())
}

/// What an exact evaluator returns: every number's pmf, and the exact mean
/// of each whose distribution it does not know.
pub(crate) type Distributions = (Vec<Vec<f64>>, Vec<Option<f64>>);

/// Add the distribution of `value_destroyed` to what an exact evaluator that
/// does not work it out returned (a contest or a chain, whose target is one
/// group): the group's models destroyed, each times its value.
///
/// # Errors
/// Declines for a target of several groups, whose joint distribution such an
/// evaluator does not keep.
pub(crate) fn complete(
    program: &Program,
    (mut pmfs, mut means): Distributions,
) -> Result<Distributions, CoreError> {
    if !valued(&program.plan) || pmfs.len() == program.numbers().len() {
        return Ok((pmfs, means));
    }
    let [group] = &program.plan.target.groups[..] else {
        return Err(CoreError::Declined {
            reason: "the value of the models destroyed in a target of several groups needs their \
                     joint distribution"
                .into(),
        });
    };
    let first_group = program.counters()
        + 2
        + if program.plan.attacker.is_some() {
            2
        } else {
            0
        };
    let destroyed = &pmfs[first_group];
    let mut value = vec![0.0; (destroyed.len().max(1) - 1) * group.value as usize + 1];
    for (k, &p) in destroyed.iter().enumerate() {
        value[k * group.value as usize] += p;
    }
    pmfs.push(value);
    means.push(None);
    Ok((pmfs, means))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::montecarlo::{simulate, Path, RunOptions};

    /// Five 1-wound models (value 1 each) and a Leader (one model, 4
    /// wounds, value 5), hit by `attacks` automatic wounds of damage 1 that
    /// are never saved, the bodyguard first.
    fn plan(attacks: &str) -> Plan {
        Plan::from_json(&format!(
            r#"{{"version": 1, "counters": [],
            "target": {{"groups": [
                {{"name": "Guard", "models": 5, "wounds": 1, "value": 1}},
                {{"name": "Leader", "models": 1, "wounds": 4, "tier": 1, "value": 5}}],
                "order": [0, 1]}},
            "sequences": [{{"kind": "attack", "name": "gun",
                "attacks": [{{"models": 1, "dice": "{attacks}"}}], "steps": [], "save": {{}},
                "damage": {{"dice": "1"}}}}]}}"#
        ))
        .expect("plan")
    }

    /// With `attacks` wounds: the guards die first, the Leader after 4 more.
    fn by_hand(wounds: u32) -> u32 {
        wounds.min(5) + if wounds >= 9 { 5 } else { 0 }
    }

    #[test]
    fn values_add_up_over_groups_by_simulation_and_exactly() {
        for wounds in [0, 3, 6, 9, 12] {
            let program = Program::new(plan(&wounds.to_string())).expect("program");
            assert_eq!(
                program.numbers().last().map(String::as_str),
                Some(VALUE_DESTROYED)
            );
            let options = RunOptions {
                trials: 100,
                seed: 1,
                threads: 1,
                path: Path::Auto,
            };
            let tally = simulate(&program, options, |_, _| Ok(())).expect("run");
            let hist = tally.hist.last().expect("value number");
            let want = by_hand(wounds) as usize;
            assert_eq!(
                hist.iter().position(|&c| c > 0),
                Some(want),
                "{wounds} wounds"
            );
            assert_eq!(hist[want], 100);
            let exact = crate::exact::evaluate(&program).expect("exact");
            let pmf = exact.pmfs.last().expect("value pmf");
            assert!((pmf[want] - 1.0).abs() < 1e-12, "{wounds} wounds: {pmf:?}");
        }
    }

    #[test]
    fn no_values_no_number() {
        let mut plan = plan("6");
        for g in &mut plan.target.groups {
            g.value = 0;
        }
        let program = Program::new(plan).expect("program");
        assert!(!program.numbers().iter().any(|n| n == VALUE_DESTROYED));
    }

    /// An evaluator that leaves the number out (a contest's, a chain's):
    /// one group's models destroyed, each times its value; several groups
    /// are declined, never guessed.
    #[test]
    fn completes_a_one_group_target_and_declines_several() {
        let mut one = plan("1");
        one.target.groups.truncate(1);
        one.target.order = vec![0];
        one.target.groups[0].value = 3;
        let program = Program::new(one).expect("program");
        let numbers = program.numbers().len();
        let mut pmfs = vec![vec![1.0]; numbers - 1];
        pmfs[2] = vec![0.25, 0.0, 0.75];
        let (pmfs, means) = complete(&program, (pmfs, vec![None; numbers - 1])).expect("one group");
        assert_eq!(
            pmfs.last(),
            Some(&vec![0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.75])
        );
        assert_eq!(means.len(), numbers);
        let two = Program::new(plan("1")).expect("program");
        let short = two.numbers().len() - 1;
        let err =
            complete(&two, (vec![vec![1.0]; short], vec![None; short])).expect_err("declined");
        assert!(matches!(err, CoreError::Declined { .. }), "{err}");
    }

    #[test]
    fn refuses_values_past_the_limit() {
        let mut plan = plan("1");
        plan.target.groups[0].value = u32::MAX / 8;
        let err = check(&plan).expect_err("past the limit");
        assert!(err.to_string().contains("target.groups"), "{err}");
    }
}
