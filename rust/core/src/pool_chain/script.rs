//! Dice read from a script, and every script a resolution can read: how
//! the lookups enumerate what a resolution does for every roll of its dice.

use crate::rng::DiceSource;

/// The most runs of one resolution enumerated from one state.
pub(crate) const MAX_RUNS: usize = 1 << 12;

/// Dice read from a script of (value, sides), then a note of the sides of
/// the first die asked past its end.
pub(crate) struct Script<'a> {
    pub(crate) prefix: &'a [(u32, u32)],
    pub(crate) at: usize,
    pub(crate) beyond: Option<u32>,
}

impl DiceSource for Script<'_> {
    fn roll(&mut self, sides: u32) -> u32 {
        let value = if let Some(&(value, _)) = self.prefix.get(self.at) {
            value.min(sides)
        } else {
            self.beyond.get_or_insert(sides);
            1
        };
        self.at += 1;
        value
    }
}

/// What `run` returns for every script of dice it can read, each with its
/// chance: a run that asks for a die past its script is run again once per
/// face of that die. `None` past [`MAX_RUNS`] runs.
pub(crate) fn enumerate<T>(mut run: impl FnMut(&mut Script<'_>) -> T) -> Option<Vec<(T, f64)>> {
    let mut out = Vec::new();
    let mut pending: Vec<Vec<(u32, u32)>> = vec![Vec::new()];
    let mut runs = 0;
    while let Some(prefix) = pending.pop() {
        runs += 1;
        if runs > MAX_RUNS {
            return None;
        }
        let mut script = Script {
            prefix: &prefix,
            at: 0,
            beyond: None,
        };
        let result = run(&mut script);
        if let Some(sides) = script.beyond {
            for face in 1..=sides {
                let mut longer = prefix.clone();
                longer.push((face, sides));
                pending.push(longer);
            }
        } else {
            let chance = prefix.iter().map(|&(_, s)| 1.0 / f64::from(s)).product();
            out.push((result, chance));
        }
    }
    Some(out)
}
