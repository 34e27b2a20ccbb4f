//! Checking a Plan once, before it runs: every field in range, every index
//! and name resolved, and upper bounds on what one trial can create or count,
//! so that no accepted Plan can hang a run or exhaust memory.

use super::{
    AttackPool, Check, Contest, ContestSide, Effect, Plan, Reroll, RollDie, Rounds, Save, Sequence,
    Side, Target, Test, MAX_ATTACKS, MAX_MODELS, MAX_MODIFIER, MAX_ROLL_COMBINATIONS, MAX_ROUNDS,
    MAX_TOKENS_PER_TRIAL, MAX_VALUE, PLAN_VERSION,
};
use crate::dice::{DiceReroll, ModifiedDice};
use crate::error::CoreError;

impl Check {
    fn validate(&self, field: &str) -> Result<(), CoreError> {
        check_die(&format!("{field}.die"), self.die)?;
        check_modifier(&format!("{field}.modifier"), self.modifier)
    }
}

/// Upper bounds gathered while checking a Plan.
struct Bounds {
    counters: Vec<u64>,
    /// Attack dice rolled, before extra hits, in one pass of the sequences.
    attacks: u64,
    /// Attack dice created, extra hits included, in one trial.
    tokens: u64,
    /// The first pool whose dice take `tokens` past the limit.
    tokens_over: Option<String>,
}

impl Bounds {
    fn add(&mut self, counter: Option<usize>, most: u64) {
        if let Some(c) = counter {
            self.counters[c] = self.counters[c].saturating_add(most);
        }
    }
}

/// The most dice a contest rolls.
const MAX_CONTEST_DICE: u32 = 10;

/// Check one side's terms of a contest.
fn validate_contest_side(base: &str, s: &ContestSide) -> Result<(), CoreError> {
    check_modifier(&format!("{base}.bonus"), s.bonus)?;
    check_modifier(&format!("{base}.first_round_bonus"), s.first_round_bonus)?;
    check_modifier(&format!("{base}.hold"), s.hold)?;
    if !(1..=MAX_MODELS).contains(&s.rank_width) {
        return Err(CoreError::plan(
            format!("{base}.rank_width"),
            format!("is {}; a rank holds 1 to {MAX_MODELS} models", s.rank_width),
        ));
    }
    Ok(())
}

/// Check one side's groups and allocation order.
fn validate_target(side: &str, t: &Target) -> Result<(), CoreError> {
    if t.groups.is_empty() {
        return Err(CoreError::plan(
            format!("{side}.groups"),
            "there are no models",
        ));
    }
    let mut models = 0u32;
    for (i, g) in t.groups.iter().enumerate() {
        let f = |name: &str| format!("{side}.groups[{i}].{name}");
        if g.models == 0 {
            return Err(CoreError::plan(f("models"), "must be at least 1"));
        }
        if g.wounds == 0 {
            return Err(CoreError::plan(f("wounds"), "must be at least 1"));
        }
        if g.damage_divisor == 0 {
            return Err(CoreError::plan(f("damage_divisor"), "must be at least 1"));
        }
        models = models.saturating_add(g.models);
        // Equal thresholds are met together (a Minor Threshold equal to the Major).
        if g.thresholds.first() == Some(&0) || g.thresholds.windows(2).any(|w| w[0] > w[1]) {
            return Err(CoreError::plan(
                f("thresholds"),
                format!(
                    "are {:?}; give damage thresholds of 1 or more, none below the one before",
                    g.thresholds
                ),
            ));
        }
        if g.reduction_floor > 1 {
            return Err(CoreError::plan(
                f("reduction_floor"),
                format!("is {}; reduced damage stops at 0 or 1", g.reduction_floor),
            ));
        }
        if u64::from(g.wounds_lost) >= u64::from(g.models) * u64::from(g.wounds) {
            return Err(CoreError::plan(
                f("wounds_lost"),
                format!(
                    "is {}; the group's {} models hold {} wounds, and must start with at least one",
                    g.wounds_lost,
                    g.models,
                    u64::from(g.models) * u64::from(g.wounds)
                ),
            ));
        }
        for (name, v) in [
            ("save", g.save),
            ("invulnerable", g.invulnerable),
            ("feel_no_pain", g.feel_no_pain),
            ("feel_no_pain_mortal", g.feel_no_pain_mortal),
        ] {
            if let Some(v) = v {
                if v == 0 {
                    return Err(CoreError::plan(f(name), "must be at least 1"));
                }
            }
        }
    }
    if models > MAX_MODELS {
        return Err(CoreError::limit(
            format!("{side}.groups"),
            format!("hold {models} models; at most {MAX_MODELS} are allowed"),
        ));
    }
    let mut seen = vec![false; t.groups.len()];
    for (i, &g) in t.order.iter().enumerate() {
        if g >= t.groups.len() || seen[g] {
            return Err(CoreError::plan(
                format!("{side}.order[{i}]"),
                format!("{g} is not a group index or is listed twice"),
            ));
        }
        seen[g] = true;
    }
    if seen.iter().any(|s| !s) {
        return Err(CoreError::plan(
            format!("{side}.order"),
            "must list every group exactly once",
        ));
    }
    let wounds: u64 = t
        .groups
        .iter()
        .map(|g| u64::from(g.models) * u64::from(g.wounds))
        .sum();
    if wounds > MAX_VALUE {
        return Err(CoreError::limit(
            format!("{side}.groups"),
            format!("hold {wounds} wounds in all; at most {MAX_VALUE} are allowed"),
        ));
    }
    Ok(())
}

fn check_die(field: &str, sides: u32) -> Result<(), CoreError> {
    if (2..=crate::dice::MAX_SIDES).contains(&sides) {
        Ok(())
    } else {
        Err(CoreError::plan(
            field,
            format!(
                "is {sides}; a die has 2 to {} sides",
                crate::dice::MAX_SIDES
            ),
        ))
    }
}

fn check_modifier(field: &str, value: i32) -> Result<(), CoreError> {
    if value.abs() <= MAX_MODIFIER {
        Ok(())
    } else {
        Err(CoreError::plan(
            field,
            format!("is {value}; it must be between -{MAX_MODIFIER} and {MAX_MODIFIER}"),
        ))
    }
}

impl Plan {
    pub(super) fn validate(&self) -> Result<(), CoreError> {
        if self.version != PLAN_VERSION {
            return Err(CoreError::plan(
                "version",
                format!("is {}, this core runs version {PLAN_VERSION}", self.version),
            ));
        }
        for (i, c) in self.counters.iter().enumerate() {
            if c == "damage" || c == "models_destroyed" || self.counters[..i].contains(c) {
                return Err(CoreError::plan(
                    format!("counters[{i}]"),
                    format!("{c:?} is reserved or listed twice"),
                ));
            }
        }
        validate_target("target", &self.target)?;
        if let Some(a) = &self.attacker {
            validate_target("attacker", a)?;
        }
        crate::value::check(self)?;
        let mut bounds = Bounds {
            counters: vec![0; self.counters.len()],
            attacks: 0,
            tokens: 0,
            tokens_over: None,
        };
        for (si, s) in self.sequences.iter().enumerate() {
            let base = format!("sequences[{si}]");
            match s {
                Sequence::MortalWounds(m) => {
                    let c = self.counter_index(&format!("{base}.counter"), m.counter.as_ref())?;
                    let times = match m.rolls {
                        None => 1,
                        Some(r) => {
                            check_die(&format!("{base}.rolls.die"), r.die)?;
                            if r.count > MAX_MODELS {
                                return Err(CoreError::limit(
                                    format!("{base}.rolls.count"),
                                    format!("is {}; at most {MAX_MODELS} are allowed", r.count),
                                ));
                            }
                            u64::from(r.count)
                        }
                    };
                    bounds.add(c, times * u64::from(m.amount.max()));
                }
                Sequence::Attack(p) => {
                    if p.simultaneous && si == 0 {
                        return Err(CoreError::plan(
                            format!("{base}.simultaneous"),
                            "strikes together with the sequence before it, but it is the first",
                        ));
                    }
                    self.validate_pool(&base, p, &mut bounds)?;
                }
                Sequence::Heal(h) => self.check_heal(&base, h, &mut bounds)?,
                Sequence::Mark(m) => {
                    self.mark_index(&format!("{base}.mark"), &m.mark)?;
                    self.check_while_alive(&base, m.while_alive)?;
                    if let Some(c) = m.check {
                        c.validate(&format!("{base}.check"))?;
                    }
                    let c = self.counter_index(&format!("{base}.counter"), m.counter.as_ref())?;
                    bounds.add(c, 1);
                }
            }
        }
        if let Some(r) = &self.rounds {
            self.validate_rounds(r, &mut bounds)?;
        }
        if bounds.tokens > MAX_TOKENS_PER_TRIAL {
            return Err(CoreError::limit(
                bounds.tokens_over.as_deref().unwrap_or("rounds.max"),
                format!(
                    "can create up to {} attack dice in one trial, extra hits included; at most {MAX_TOKENS_PER_TRIAL} are allowed",
                    bounds.tokens
                ),
            ));
        }
        for (name, &most) in self.counters.iter().zip(&bounds.counters) {
            if most > MAX_VALUE {
                return Err(CoreError::limit(
                    "sequences",
                    format!("can count up to {most} {name} in one trial; at most {MAX_VALUE} are allowed"),
                ));
            }
        }
        Ok(())
    }

    /// Check a fight's rounds; every bound gathered for one round is
    /// multiplied by the rounds it may last.
    fn validate_rounds(&self, r: &Rounds, bounds: &mut Bounds) -> Result<(), CoreError> {
        if !(1..=MAX_ROUNDS).contains(&r.max) {
            return Err(CoreError::plan(
                "rounds.max",
                format!("is {}; a fight lasts 1 to {MAX_ROUNDS} rounds", r.max),
            ));
        }
        if self.attacker.is_none() {
            return Err(CoreError::plan(
                "rounds",
                "a fight needs both sides' models: list the attacker",
            ));
        }
        for (si, s) in self.sequences.iter().enumerate() {
            if let Sequence::Attack(p) = s {
                if p.batch_hook.is_some() {
                    return Err(CoreError::plan(
                        format!("sequences[{si}].batch_hook"),
                        "a fight runs its trials one at a time; batch hooks need a single pass",
                    ));
                }
            }
        }
        for (si, s) in self.sequences.iter().enumerate() {
            if let Sequence::Attack(p) = s {
                for (ti, t) in p.steps.iter().enumerate() {
                    for (ei, e) in t.effects.iter().enumerate() {
                        if matches!(
                            e,
                            Effect::Mortal {
                                after_all: true,
                                ..
                            } | Effect::Unsaved {
                                after_all: true,
                                ..
                            }
                        ) {
                            return Err(CoreError::plan(
                                format!("sequences[{si}].steps[{ti}].effects[{ei}].after_all"),
                                "holds harm until every sequence is resolved, which in a fight is after the last round",
                            ));
                        }
                    }
                }
            }
        }
        if let Some(c) = &r.outcome_counter {
            if bounds.counters[self
                .counter_index("rounds.outcome_counter", Some(c))?
                .unwrap_or(0)]
                > 0
                || r.counter.as_ref() == Some(c)
            {
                return Err(CoreError::plan(
                    "rounds.outcome_counter",
                    format!("{c:?} is counted by a sequence too; the outcome needs a counter of its own"),
                ));
            }
        }
        let rounds = u64::from(r.max);
        bounds.tokens = bounds.tokens.saturating_mul(rounds);
        for c in &mut bounds.counters {
            *c = c.saturating_mul(rounds);
        }
        let c = self.counter_index("rounds.counter", r.counter.as_ref())?;
        bounds.add(c, rounds);
        let c = self.counter_index("rounds.outcome_counter", r.outcome_counter.as_ref())?;
        bounds.add(c, 3);
        if let Some(contest) = &r.contest {
            self.validate_contest(r, contest, bounds)?;
        }
        Ok(())
    }

    /// Check a fight's contest: its dice, each side's terms, and counters of
    /// its own.
    fn validate_contest(
        &self,
        r: &Rounds,
        c: &Contest,
        bounds: &mut Bounds,
    ) -> Result<(), CoreError> {
        check_die("rounds.contest.sides", c.sides)?;
        if !(1..=MAX_CONTEST_DICE).contains(&c.dice) {
            return Err(CoreError::plan(
                "rounds.contest.dice",
                format!(
                    "is {}; the contest rolls 1 to {MAX_CONTEST_DICE} dice",
                    c.dice
                ),
            ));
        }
        if c.always_holds > c.dice * c.sides {
            return Err(CoreError::plan(
                "rounds.contest.always_holds",
                format!(
                    "is {}; the dice sum to at most {}",
                    c.always_holds,
                    c.dice * c.sides
                ),
            ));
        }
        for (name, side) in [("attacker", &c.attacker), ("target", &c.target)] {
            validate_contest_side(&format!("rounds.contest.{name}"), side)?;
        }
        let mut seen: Vec<&String> = [&r.counter, &r.outcome_counter]
            .into_iter()
            .flatten()
            .collect();
        for (field, counter) in [
            ("rounds.contest.winner_counter", &c.winner_counter),
            ("rounds.contest.left_counter", &c.left_counter),
        ] {
            let Some(name) = counter else { continue };
            let index = self.counter_index(field, Some(name))?;
            if seen.contains(&name) || index.is_some_and(|i| bounds.counters[i] > 0) {
                return Err(CoreError::plan(
                    field,
                    format!("{name:?} is counted by something else too; the contest needs a counter of its own"),
                ));
            }
            seen.push(name);
            bounds.add(index, 2);
        }
        Ok(())
    }

    /// Check a healing sequence: its side, caster, check and counter.
    fn check_heal(
        &self,
        base: &str,
        h: &super::Heal,
        bounds: &mut Bounds,
    ) -> Result<(), CoreError> {
        if h.side == Side::Attacker && self.attacker.is_none() {
            return Err(CoreError::plan(
                format!("{base}.side"),
                "heals the attacker, but the plan lists no attacker models",
            ));
        }
        if h.up_to_start && h.return_models {
            return Err(CoreError::plan(
                format!("{base}.up_to_start"),
                "is for healing that returns no model; with return_models the starting wounds already bound it",
            ));
        }
        self.check_while_alive(base, h.while_alive)?;
        if let Some(c) = h.check {
            c.validate(&format!("{base}.check"))?;
        }
        let c = self.counter_index(&format!("{base}.counter"), h.counter.as_ref())?;
        bounds.add(c, u64::from(h.amount.max()));
        Ok(())
    }

    /// Check the model a Heal or Mark needs standing, if it names one.
    fn check_while_alive(&self, base: &str, w: Option<super::WhileAlive>) -> Result<(), CoreError> {
        let Some(w) = w else { return Ok(()) };
        let side = match w.side {
            Side::Target => Some(&self.target),
            Side::Attacker => self.attacker.as_ref(),
        };
        let Some(side) = side else {
            return Err(CoreError::plan(
                format!("{base}.while_alive.side"),
                "is the attacker, but the plan lists no attacker models",
            ));
        };
        if w.group >= side.groups.len() {
            return Err(CoreError::plan(
                format!("{base}.while_alive.group"),
                format!("{} is not a group index of that side", w.group),
            ));
        }
        Ok(())
    }

    /// Check a test's roll of several dice, if it has one.
    fn check_roll(&self, t: &Test, f: &dyn Fn(&str) -> String) -> Result<(), CoreError> {
        if !t.reroll_when.is_empty() && (t.dice.is_empty() || t.reroll == Reroll::None) {
            return Err(CoreError::plan(
                f("reroll_when"),
                "says when a roll of several dice is re-rolled: it needs dice and a reroll policy",
            ));
        }
        let classed = t
            .reroll_when
            .iter()
            .any(|w| !matches!(w, super::RerollWhen::Fail | super::RerollWhen::Success));
        if classed && t.compare.is_none() {
            return Err(CoreError::plan(
                f("reroll_when"),
                "names a class of the roll, so the test needs compare",
            ));
        }
        if t.dice.is_empty() {
            return if t.compare.is_some() {
                Err(CoreError::plan(
                    f("compare"),
                    "needs the dice of a roll (dice)",
                ))
            } else {
                Ok(())
            };
        }
        if t.automatic {
            return Err(CoreError::plan(
                f("dice"),
                "an automatic test rolls no dice",
            ));
        }
        if t.reroll_one {
            return Err(CoreError::plan(
                f("reroll_one"),
                "re-rolls one die; a roll of several dice takes none",
            ));
        }
        if t.natural_fail != 0 || t.critical.is_some() {
            return Err(CoreError::plan(
                f("dice"),
                "a roll of several dice takes no natural_fail or critical; criticals come from compare",
            ));
        }
        let mut combinations = 1u64;
        for (i, d) in t.dice.iter().enumerate() {
            check_die(&f(&format!("dice[{i}].sides")), d.sides)?;
            combinations = combinations.saturating_mul(u64::from(d.sides));
        }
        if combinations > MAX_ROLL_COMBINATIONS {
            return Err(CoreError::plan(
                f("dice"),
                format!(
                    "can fall {combinations} ways; at most {MAX_ROLL_COMBINATIONS} are allowed"
                ),
            ));
        }
        for (i, d) in t.dice.iter().enumerate() {
            for mark in d.when.iter().chain(&d.unless) {
                self.mark_index(&f(&format!("dice[{i}]")), mark)?;
            }
        }
        if let Some(c) = t.compare {
            if c.dice
                .iter()
                .any(|&i| t.dice.get(i).is_some_and(RollDie::conditional))
            {
                return Err(CoreError::plan(
                    f("compare.dice"),
                    "the compared dice must always be rolled (not depend on a mark)",
                ));
            }
            if c.dice[0] == c.dice[1] || c.dice.iter().any(|&i| i >= t.dice.len()) {
                return Err(CoreError::plan(
                    f("compare.dice"),
                    format!("{:?} must name two different dice of the roll", c.dice),
                ));
            }
        }
        Ok(())
    }

    /// Check a save (a pool's, or a token's own) and resolve its counter.
    fn check_save(
        &self,
        field: &str,
        save: &Save,
        groups: usize,
    ) -> Result<Option<usize>, CoreError> {
        let counter = self.counter_index(&format!("{field}.counter"), save.counter.as_ref())?;
        check_die(&format!("{field}.die"), save.die)?;
        check_modifier(&format!("{field}.ap"), save.ap)?;
        if save.reroll == Reroll::NonCritical {
            return Err(CoreError::plan(
                format!("{field}.reroll"),
                "is non_critical; a save has no criticals: use none, ones or failures",
            ));
        }
        for (name, len) in [
            ("group_modifiers", save.group_modifiers.len()),
            ("special", save.special.len()),
        ] {
            if len != 0 && len != groups {
                return Err(CoreError::plan(
                    format!("{field}.{name}"),
                    format!("has {len} entries; give one per group ({groups}) or none"),
                ));
            }
        }
        for (i, &m) in save.group_modifiers.iter().enumerate() {
            check_modifier(&format!("{field}.group_modifiers[{i}]"), m)?;
        }
        if let Some(m) = save.modifier_max {
            check_modifier(&format!("{field}.modifier_max"), m)?;
        }
        for (i, &m) in save.modifiers.iter().enumerate() {
            check_modifier(&format!("{field}.modifiers[{i}]"), m)?;
        }
        for (i, s) in save.special.iter().enumerate() {
            if let Some(s) = s {
                if s.target == 0 || s.target > save.die {
                    return Err(CoreError::plan(
                        format!("{field}.special[{i}].target"),
                        format!(
                            "is {}; it must be from 1 to the die's {}",
                            s.target, save.die
                        ),
                    ));
                }
            }
        }
        Ok(counter)
    }

    /// Check one pool and add the most it can count, and the most tokens it
    /// can create, to `bounds`.
    fn validate_pool(
        &self,
        base: &str,
        p: &AttackPool,
        bounds: &mut Bounds,
    ) -> Result<(), CoreError> {
        let attacks = self.validate_attacks(base, p, bounds)?;
        let mortal =
            self.counter_index(&format!("{base}.mortal_counter"), p.mortal_counter.as_ref())?;
        let groups = self.defending(base, p)?.groups.len();
        self.validate_alive_of(base, p)?;
        let saves = self.check_save(&format!("{base}.save"), &p.save, groups)?;
        let fnp = p.feel_no_pain.len();
        if fnp != 0 && fnp != groups {
            return Err(CoreError::plan(
                format!("{base}.feel_no_pain"),
                format!("has {fnp} entries; give one per group ({groups}) or none"),
            ));
        }
        if let Some(i) = p.feel_no_pain.iter().position(|&v| v == Some(0)) {
            return Err(CoreError::plan(
                format!("{base}.feel_no_pain[{i}]"),
                "must be at least 1",
            ));
        }
        for (i, &g) in p.focus.iter().enumerate() {
            if g >= groups {
                return Err(CoreError::plan(
                    format!("{base}.focus[{i}]"),
                    format!("{g} is not a group index"),
                ));
            }
        }
        // Most tokens entering each test (the last slot is the save).
        let n = p.steps.len();
        let mut entering = vec![0u64; n + 1];
        entering[0] = attacks;
        let mut mortal_events = 0u64;
        let mut created = attacks;
        for (ti, t) in p.steps.iter().enumerate() {
            let f = |name: &str| format!("{base}.steps[{ti}].{name}");
            let counter = self.counter_index(&f("counter"), t.counter.as_ref())?;
            check_die(&f("die"), t.die)?;
            self.check_roll(t, &f)?;
            for (i, &m) in t.modifiers.iter().enumerate() {
                check_modifier(&f(&format!("modifiers[{i}]")), m)?;
            }
            if t.modifier_min > t.modifier_max {
                return Err(CoreError::plan(f("modifier_min"), "is above modifier_max"));
            }
            let here = entering[ti];
            let mut extra = 0u64;
            for (ei, e) in t.effects.iter().enumerate() {
                let at = Step {
                    base,
                    test: ti,
                    effect: ei,
                    here,
                    groups,
                };
                match self.validate_effect(p, &at, e, bounds)? {
                    EffectBound::Extra(more) => extra += more,
                    EffectBound::Skip(steps) => {
                        entering[ti + 1 + steps] = entering[ti + 1 + steps].saturating_add(here);
                    }
                    EffectBound::Mortal(most) => {
                        mortal_events = mortal_events.saturating_add(here.saturating_mul(most));
                    }
                    EffectBound::None => {}
                }
            }
            let out = here.saturating_mul(1 + extra);
            bounds.add(counter, out);
            entering[ti + 1] = entering[ti + 1].saturating_add(out);
            created = created.saturating_add(here.saturating_mul(extra));
        }
        bounds.tokens = bounds.tokens.saturating_add(created);
        if bounds.tokens > MAX_TOKENS_PER_TRIAL && bounds.tokens_over.is_none() {
            bounds.tokens_over = Some(format!("{base}.attacks"));
        }
        bounds.add(saves, entering[n]);
        self.validate_damage(base, p, bounds, created.max(entering[n]))?;
        bounds.add(mortal, mortal_events);
        Ok(())
    }

    /// Check a pool's attack dice; the most it can roll, added to `bounds`.
    fn validate_attacks(
        &self,
        base: &str,
        p: &AttackPool,
        bounds: &mut Bounds,
    ) -> Result<u64, CoreError> {
        let mut attacks = 0u64;
        for (ai, a) in p.attacks.iter().enumerate() {
            if a.models > MAX_MODELS {
                return Err(CoreError::limit(
                    format!("{base}.attacks[{ai}].models"),
                    format!("is {}; at most {MAX_MODELS} are allowed", a.models),
                ));
            }
            check_modifier(&format!("{base}.attacks[{ai}].bonus"), a.bonus)?;
            attacks += u64::from(a.per_model(a.dice.max())) * u64::from(a.models);
        }
        bounds.attacks = bounds.attacks.saturating_add(attacks);
        if bounds.attacks > MAX_ATTACKS {
            return Err(CoreError::limit(
                format!("{base}.attacks"),
                format!(
                    "can roll up to {} attack dice in one trial; at most {MAX_ATTACKS} are allowed",
                    bounds.attacks
                ),
            ));
        }
        let c = self.counter_index(
            &format!("{base}.attacks_counter"),
            p.attacks_counter.as_ref(),
        )?;
        bounds.add(c, attacks);
        Ok(attacks)
    }

    /// Check the attack terms that count the attacking side's models.
    fn validate_alive_of(&self, base: &str, p: &AttackPool) -> Result<(), CoreError> {
        let attacking = match p.against {
            Side::Target => self.attacker.as_ref(),
            Side::Attacker => Some(&self.target),
        };
        for (ai, a) in p.attacks.iter().enumerate() {
            if a.reserve > 0 && a.alive_of.is_none() {
                return Err(CoreError::plan(
                    format!("{base}.attacks[{ai}].reserve"),
                    "reserves models alive, so it needs alive_of",
                ));
            }
            if let Some(g) = a.alive_of {
                if attacking.is_none_or(|t| g >= t.groups.len()) {
                    return Err(CoreError::plan(
                        format!("{base}.attacks[{ai}].alive_of"),
                        format!("{g} is not a group of the attacking side"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The side a pool attacks.
    fn defending(&self, base: &str, p: &AttackPool) -> Result<&Target, CoreError> {
        match p.against {
            Side::Target => Ok(&self.target),
            Side::Attacker => self.attacker.as_ref().ok_or_else(|| {
                CoreError::plan(
                    format!("{base}.against"),
                    "attacks the attacker, but the plan lists no attacker models",
                )
            }),
        }
    }

    /// Check one effect of a test, adding what it counts to `bounds`.
    fn validate_effect(
        &self,
        p: &AttackPool,
        at: &Step<'_>,
        e: &Effect,
        bounds: &mut Bounds,
    ) -> Result<EffectBound, CoreError> {
        let Step {
            base,
            test: ti,
            effect: ei,
            here,
            groups,
        } = *at;
        let n = p.steps.len();
        let held = matches!(
            e,
            Effect::Mortal {
                after_all: true,
                ..
            } | Effect::Unsaved {
                after_all: true,
                ..
            }
        );
        if held && p.against == Side::Attacker {
            return Err(CoreError::plan(
                format!("{base}.steps[{ti}].effects[{ei}].after_all"),
                "harm held until every attack is resolved goes to the target; this pool attacks the attacker",
            ));
        }
        if e.class().is_some() && p.steps[ti].compare.is_none() {
            return Err(CoreError::plan(
                format!("{base}.steps[{ti}].effects[{ei}].class"),
                "needs the test to compare two dice (compare)",
            ));
        }
        Ok(match e {
            Effect::Extra { amount, .. } => EffectBound::Extra(u64::from(amount.max())),
            Effect::Skip { steps, .. } => {
                let steps = *steps as usize;
                if steps == 0 || ti + steps >= n {
                    return Err(CoreError::plan(
                        format!("{base}.steps[{ti}].effects[{ei}].steps"),
                        format!(
                            "skips {steps} tests but {} follow; skip 1 to {0}",
                            n - ti - 1
                        ),
                    ));
                }
                for j in ti + 1..=ti + steps {
                    let skipped = self.counter_index(
                        &format!("{base}.steps[{j}].counter"),
                        p.steps[j].counter.as_ref(),
                    )?;
                    bounds.add(skipped, here);
                }
                EffectBound::Skip(steps)
            }
            Effect::Mortal { amount, .. } => EffectBound::Mortal(u64::from(
                amount.map_or(p.damage.roll(), ModifiedDice::from).max(),
            )),
            Effect::Unsaved { bonus, .. } => {
                check_modifier(&format!("{base}.steps[{ti}].effects[{ei}].bonus"), *bonus)?;
                EffectBound::None
            }
            Effect::Count { counter, .. } => {
                let c = self.counter_index(
                    &format!("{base}.steps[{ti}].effects[{ei}].counter"),
                    Some(counter),
                )?;
                bounds.add(c, here);
                EffectBound::None
            }
            Effect::OwnSave { save, bonus, .. } => {
                check_modifier(&format!("{base}.steps[{ti}].effects[{ei}].bonus"), *bonus)?;
                let own = self.check_save(
                    &format!("{base}.steps[{ti}].effects[{ei}].save"),
                    save,
                    groups,
                )?;
                bounds.add(own, here);
                EffectBound::None
            }
        })
    }

    /// Check a pool's damage: its top threshold, whose counter can count up
    /// to `most` attacks.
    fn validate_damage(
        &self,
        base: &str,
        p: &AttackPool,
        bounds: &mut Bounds,
        most: u64,
    ) -> Result<(), CoreError> {
        let top = self.counter_index(
            &format!("{base}.damage.top_threshold_counter"),
            p.damage.top_threshold_counter.as_ref(),
        )?;
        bounds.add(top, most);
        let d = &p.damage;
        if !(1..=MAX_MODIFIER.unsigned_abs()).contains(&d.multiplier) {
            return Err(CoreError::plan(
                format!("{base}.damage.multiplier"),
                format!("is {}; it must be from 1 to {MAX_MODIFIER}", d.multiplier),
            ));
        }
        check_modifier(&format!("{base}.damage.bonus"), d.bonus)?;
        if d.reroll_one && d.reroll != DiceReroll::None {
            return Err(CoreError::plan(
                format!("{base}.damage.reroll_one"),
                "re-rolls a damage roll once, and reroll does already; give one of them",
            ));
        }
        if u64::from(d.minimum) > MAX_VALUE {
            return Err(CoreError::plan(
                format!("{base}.damage.minimum"),
                format!("is {}; at most {MAX_VALUE} is allowed", d.minimum),
            ));
        }
        if let Some(t) = &p.damage.top_threshold {
            if let Some(m) = &t.mark {
                self.mark_index(&format!("{base}.damage.top_threshold.mark"), m)?;
            }
            if let Some(c) = t.check {
                c.validate(&format!("{base}.damage.top_threshold.check"))?;
                if t.mortal.is_none() {
                    return Err(CoreError::plan(
                        format!("{base}.damage.top_threshold.check"),
                        "decides whether mortal wounds are inflicted; give mortal",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Where an effect is: its pool's field path, its test, its index, the most
/// tokens reaching its test, and the groups of the side attacked.
#[derive(Clone, Copy)]
struct Step<'a> {
    base: &'a str,
    test: usize,
    effect: usize,
    here: u64,
    groups: usize,
}

/// What an effect adds to the tokens and harm its pool can make.
enum EffectBound {
    /// This many more tokens for each token that triggers it.
    Extra(u64),
    /// The token skips this many tests.
    Skip(usize),
    /// Up to this many mortal wounds for each token that triggers it.
    Mortal(u64),
    None,
}
