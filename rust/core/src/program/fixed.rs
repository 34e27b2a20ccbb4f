//! What a pool's Plan fixes before any die is rolled, found once when the
//! Program is lowered rather than in every trial: its attack count when no
//! term rolls or counts the attacker's models alive, and the save faces
//! that fail outright when the side it attacks is one group.

use crate::plan::{Attacks, Group, Reroll};
use crate::program::RunSave;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::DiceExpr;

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
}
