//! What a pool's Plan fixes before any die is rolled, found once when the
//! Program is lowered rather than in every trial: its attack count when no
//! term rolls or counts the attacker's models alive, the save faces that
//! fail outright when the side it attacks is one group, how its failed
//! saves are resolved, whether its tests only pass tokens on, and which of
//! its harm lands on one group as a count.

use crate::dice::ModifiedDice;
use crate::plan::{mortal_fnp, Attacks, Excess, Group, Outcome, Reroll, Side};
use crate::program::{Inflict, InflictKind, RunPool, RunSave};

/// The attack dice `terms` always give, when none rolls a die and none
/// counts the attacker's models alive (a term with `alive_of` counts all its
/// models when the Plan does not list the attacker's): what
/// `pool_tests::gather_attacks` adds up in every trial.
pub(crate) fn fixed_attacks(terms: &[Attacks], attacker_listed: bool) -> Option<u32> {
    terms.iter().try_fold(0u32, |sum, term| {
        let counts_alive = attacker_listed && term.alive_of.is_some();
        if counts_alive || (term.dice.is_random() && !term.maximize) {
            return None;
        }
        // Validation bounds the attacks (`limits::MAX_ATTACKS`); checked all the same.
        term.per_model(term.dice.max())
            .checked_mul(term.models)?
            .checked_add(sum)
    })
}

/// The faces of a pool's save die that fail, as bits, when the side it
/// attacks (`groups`) is one group without a special save and no failed face
/// is rolled again: then every failed roll is simply an unsaved attack.
/// `None` otherwise. Found once per pool, as `RunPool::one_group_fails`.
pub(crate) fn failing_faces(save: &RunSave, groups: &[Group]) -> Option<u64> {
    if groups.len() != 1 || save.special[0].is_some() || save.die >= 63 {
        return None;
    }
    let group = &groups[0];
    // A roll saves from the lowest face that meets the armour or the
    // invulnerable save, and beats a natural fail (`RunSave::saves`).
    let armour = group
        .save
        .map_or(i64::MAX, |s| i64::from(s) - i64::from(save.modifier[0]));
    let invulnerable = group.invulnerable.map_or(i64::MAX, i64::from);
    let from = armour
        .min(invulnerable)
        .max(i64::from(save.natural_fail) + 1)
        .clamp(1, i64::from(save.die) + 1);
    // Faces 1 to `from - 1` fail.
    let fails = (1u64 << from) - 2;
    let rerolled = match save.reroll {
        Reroll::Failures => fails != 0,
        Reroll::Ones => fails & 2 != 0,
        Reroll::None | Reroll::NonCritical => false,
    };
    (!rerolled).then_some(fails)
}

/// How a pool's failed saves are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailedSaves {
    /// As one count of fixed damage (`TargetState::apply_fixed`).
    Counted,
    /// One attack at a time, each costing the front model of the one group
    /// attacked exactly the damage rolled (`damage_as_rolled`).
    AsRolled,
    /// One attack at a time.
    OneByOne,
}

/// How `pool`'s failed saves against `groups` are resolved.
/// `TargetState::apply_fixed` knows damage modifiers only: anything that
/// converts or follows damage goes one attack at a time. Found once per
/// pool, as `RunPool::failed_saves`.
pub(crate) fn failed_saves(pool: &RunPool, groups: &[Group]) -> FailedSaves {
    let one_by_one = pool.damage.is_random()
        || pool.damage.min() == 0
        || !damage_simply_lost(pool)
        || pool.cap_at_wounds
        || groups.iter().any(|g| !g.thresholds.is_empty());
    if !one_by_one {
        FailedSaves::Counted
    } else if damage_as_rolled(pool, groups) {
        FailedSaves::AsRolled
    } else {
        FailedSaves::OneByOne
    }
}

/// Does an attack's damage do nothing but cost the model wounds, the excess
/// lost? Then `executor::fail_one_by_one` may deal it without
/// `damage_model`'s general steps.
pub(crate) fn damage_simply_lost(pool: &RunPool) -> bool {
    pool.excess == Excess::Lost
        && pool.top_threshold.is_none()
        && pool.top_threshold_counter.is_none()
}

/// Does an unsaved attack of `pool` against `groups`, one group, cost the
/// front model exactly the damage rolled, the excess lost? It does when
/// there is no cap, no damage modifier, threshold or Feel No Pain on the
/// group, and nothing that follows the damage.
fn damage_as_rolled(pool: &RunPool, groups: &[Group]) -> bool {
    let [group] = groups else {
        return false;
    };
    damage_simply_lost(pool)
        && !pool.cap_at_wounds
        && !group.modifies_damage()
        && group.thresholds.is_empty()
        && pool.fnp(0, group.feel_no_pain).is_none()
}

/// The mortal wounds each `what` of `pool` inflicts on a target of
/// `groups`, when it lands as a count (`one_group::held_mortal`): a fixed amount,
/// spilling, into one group that neither reduces it nor ignores any with
/// Feel No Pain. The Plan alone decides it, so it can be found once.
pub(crate) fn mortal_count(pool: &RunPool, groups: &[Group], what: &Inflict) -> Option<u32> {
    let InflictKind::Mortal {
        amount,
        spill: true,
        reduced,
        against: Side::Target,
        ..
    } = what.kind
    else {
        return None;
    };
    let amount = amount.map_or(pool.damage, ModifiedDice::from);
    let [group] = groups else {
        return None;
    };
    let unreduced = !reduced || (group.damage_divisor <= 1 && group.damage_reduction == 0);
    let counted = !amount.is_random()
        && unreduced
        && mortal_fnp(group, 0, Some(&pool.feel_no_pain)).is_none();
    counted.then(|| amount.max())
}

/// A test that only passes on the tokens whose one die shows a passing face.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlainTest {
    pub(crate) die: u32,
    /// Bit `face - 1` is set when `face` passes (succeeds or is critical).
    pub(crate) passes: u64,
    pub(crate) counter: Option<usize>,
}

/// `pool`'s tests as [`PlainTest`]s, when every test rolls one die of fewer
/// than 63 sides that nothing re-rolls, has no action on any outcome, and no
/// batch hook sees the tests' counts (`Counting::plain` with lanes): then a
/// test's passes are all a trial needs of it, counted from the same dice.
/// `None` otherwise. Found once per pool, as `RunPool::plain_tests`.
pub(crate) fn plain_tests(pool: &RunPool) -> Option<Box<[PlainTest]>> {
    if pool.keeps_test_counts() {
        return None;
    }
    pool.tests
        .iter()
        .map(|t| {
            let counted = t
                .counting
                .as_ref()
                .is_some_and(|c| c.plain && c.lanes.is_some());
            if t.automatic || t.roll.is_some() || !counted {
                return None;
            }
            let passes = (1..=t.die)
                .filter(|&face| t.by_face[face as usize] != Outcome::Fail)
                .fold(0u64, |bits, face| bits | 1 << (face - 1));
            Some(PlainTest {
                die: t.die,
                passes,
                counter: t.counter,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::DiceExpr;
    use crate::plan::Plan;
    use crate::program::{Program, RunSequence};

    fn term(models: u32, dice: &str) -> Attacks {
        Attacks {
            models,
            dice: DiceExpr::parse(dice).expect("a dice expression"),
            bonus: 0,
            minimum: None,
            maximize: false,
            alive_of: None,
            reserve: 0,
        }
    }

    #[test]
    fn terms_that_roll_nothing_add_up_once() {
        let mut blast = term(1, "2");
        blast.bonus = 3;
        assert_eq!(fixed_attacks(&[term(10, "2"), blast], false), Some(25));
        let mut maximized = term(4, "D6");
        maximized.maximize = true;
        assert_eq!(fixed_attacks(&[maximized], true), Some(24));
        // Survivors of a side the Plan does not list: every model attacks.
        let mut survivors = term(10, "2");
        survivors.alive_of = Some(0);
        assert_eq!(fixed_attacks(&[survivors], false), Some(20));
    }

    #[test]
    fn a_rolled_term_or_one_counting_models_alive_is_left_to_the_trials() {
        assert_eq!(fixed_attacks(&[term(10, "2"), term(1, "D6")], false), None);
        let mut survivors = term(10, "2");
        survivors.alive_of = Some(0);
        assert_eq!(fixed_attacks(&[survivors], true), None);
        // Too many to add up in a u32: left to the trials too, never wrapped.
        assert_eq!(fixed_attacks(&[term(u32::MAX, "2")], false), None);
    }

    /// The plain tests of a pool with these `steps` (and `hook`, if any).
    fn plain(steps: &serde_json::Value, hook: Option<usize>) -> Option<Vec<PlainTest>> {
        let plan = serde_json::json!({
            "version": 1,
            "counters": ["hits"],
            "target": {"groups": [{"name": "A", "models": 5, "wounds": 3, "save": 4}], "order": [0]},
            "sequences": [{
                "kind": "attack", "name": "guns",
                "attacks": [{"models": 10, "dice": "1"}],
                "steps": steps, "batch_hook": hook,
                "save": {}, "damage": {"dice": "1"}
            }]
        });
        let program = Program::new(Plan::from_json(&plan.to_string()).expect("a valid Plan"))
            .expect("a Program");
        let RunSequence::Pool(pool) = &program.sequences[0] else {
            panic!("the first sequence is the pool");
        };
        pool.plain_tests.as_deref().map(<[PlainTest]>::to_vec)
    }

    #[test]
    fn tests_that_only_pass_tokens_on_are_plain() {
        let steps = serde_json::json!([
            {"name": "hit", "target": 3, "counter": "hits"},
            {"name": "wound", "die": 12, "target": 9, "critical": 11}
        ]);
        let expected = vec![
            // Faces 3 to 6 of a d6; 9 to 12 of a d12 (a critical passes too).
            PlainTest {
                die: 6,
                passes: 0b11_1100,
                counter: Some(0),
            },
            PlainTest {
                die: 12,
                passes: 0b1111_0000_0000,
                counter: None,
            },
        ];
        assert_eq!(plain(&steps, None), Some(expected));
    }

    #[test]
    fn a_test_with_an_action_a_reroll_or_no_die_or_a_hook_is_not_plain() {
        let hit = serde_json::json!({"name": "hit", "target": 3});
        let not_plain = [
            serde_json::json!({"name": "w", "target": 4, "effects": [
                {"on": "critical", "action": "extra", "amount": "1"}]}),
            serde_json::json!({"name": "w", "target": 4, "reroll": "ones"}),
            serde_json::json!({"name": "w", "target": 4, "reroll_one": true}),
            serde_json::json!({"name": "w", "automatic": true}),
        ];
        for second in not_plain {
            assert_eq!(
                plain(&serde_json::json!([hit, second]), None),
                None,
                "{second}"
            );
        }
        assert_eq!(
            plain(&serde_json::json!([hit]), Some(0)),
            None,
            "a batch hook"
        );
    }

    /// How a pool of `damage` resolves its failed saves against one group
    /// of W3 models, with `thresholds` on its damage.
    fn resolved(damage: &serde_json::Value, thresholds: &[u32]) -> FailedSaves {
        let plan = serde_json::json!({
            "version": 1,
            "counters": [],
            "target": {"groups": [{"name": "A", "models": 5, "wounds": 3, "save": 4,
                                   "thresholds": thresholds}], "order": [0]},
            "sequences": [{
                "kind": "attack", "name": "guns",
                "attacks": [{"models": 10, "dice": "1"}],
                "steps": [{"name": "hit", "target": 3}],
                "save": {},
                "damage": damage
            }]
        });
        let program = Program::new(Plan::from_json(&plan.to_string()).expect("a valid Plan"))
            .expect("a Program");
        let RunSequence::Pool(pool) = &program.sequences[0] else {
            panic!("the first sequence is the pool");
        };
        pool.failed_saves
    }

    #[test]
    fn fixed_damage_lost_past_the_model_is_dealt_as_a_count() {
        assert_eq!(
            resolved(&serde_json::json!({"dice": "2"}), &[]),
            FailedSaves::Counted
        );
    }

    #[test]
    fn rolled_damage_into_one_plain_group_costs_what_it_rolls() {
        for damage in [
            serde_json::json!({"dice": "D3"}),
            serde_json::json!({"dice": "0"}),
        ] {
            assert_eq!(resolved(&damage, &[]), FailedSaves::AsRolled, "{damage}");
        }
    }

    #[test]
    fn carried_capped_or_converted_damage_is_dealt_one_attack_at_a_time() {
        let one_by_one = [
            (serde_json::json!({"dice": "2", "excess": "unit"}), vec![]),
            (
                serde_json::json!({"dice": "2", "cap_at_wounds": true}),
                vec![],
            ),
            (
                serde_json::json!({"dice": "D3", "cap_at_wounds": true}),
                vec![],
            ),
            (serde_json::json!({"dice": "2"}), vec![2, 4]),
            (serde_json::json!({"dice": "D3"}), vec![2]),
        ];
        for (damage, thresholds) in one_by_one {
            let what = format!("{damage} with thresholds {thresholds:?}");
            assert_eq!(
                resolved(&damage, &thresholds),
                FailedSaves::OneByOne,
                "{what}"
            );
        }
    }
}
