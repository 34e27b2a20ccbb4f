//! Batch hooks: behaviour no Plan primitive expresses, run a chunk at a time.
//!
//! A pool may name a batch hook. Monte Carlo then runs the Plan sequence by
//! sequence over a whole chunk of trials: every trial's tests, then one call
//! of the hook with the chunk's numbers as arrays, then every trial's saves.
//! The hook (in Python, a function of numpy arrays) sees, per trial, the
//! pool's attack dice, each test's passes and criticals, and the tokens about
//! to be saved; it may change how many tokens are saved and add mortal wounds
//! inflicted after the pool's normal damage. One call per chunk keeps it
//! vectorised; the core never calls it once per roll. This module is what
//! crosses to the hook; `montecarlo` runs hooked Plans a chunk at a time.

use crate::error::CoreError;
use crate::plan::{MAX_TOKENS_PER_TRIAL, MAX_VALUE};
use crate::program::RunPool;
use crate::workspace::Workspace;

/// Something that can run the batch hooks a Plan names, by index.
pub trait BatchHooks: Send + Sync + std::fmt::Debug {
    /// Run hook `index` on `batch`, which it may change.
    ///
    /// # Errors
    /// Whatever went wrong in the hook, as [`CoreError::Hook`].
    fn call(&self, index: usize, batch: &mut Batch) -> Result<(), CoreError>;
}

/// One pool's numbers for a batch of trials, each array one entry per trial.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    /// Attack dice the pool gathered.
    pub attacks: Vec<u32>,
    /// Names of the pool's tests, in order.
    pub tests: Vec<String>,
    /// Per test: tokens that passed it by their own roll (successes and
    /// criticals; not the extra tokens it created, nor tokens that skipped it,
    /// which the test's counter also counts).
    pub passed: Vec<Vec<u32>>,
    /// Per test: criticals rolled.
    pub criticals: Vec<Vec<u32>>,
    /// Tokens about to make their save; the hook may change it.
    pub to_save: Vec<u32>,
    /// Mortal wounds to inflict after the pool's normal damage (starts at 0);
    /// the hook may set it.
    pub mortal_wounds: Vec<u32>,
}

impl Batch {
    /// The numbers of `pool` in each workspace, after its tests.
    #[must_use]
    pub(crate) fn gather(pool: &RunPool, workspaces: &[Workspace<'_>]) -> Batch {
        let m = pool.tests.len();
        Batch {
            attacks: workspaces.iter().map(|w| w.attacks).collect(),
            tests: pool.tests.iter().map(|t| t.name.clone()).collect(),
            passed: (0..m)
                .map(|k| workspaces.iter().map(|w| w.passed[k]).collect())
                .collect(),
            criticals: (0..m)
                .map(|k| workspaces.iter().map(|w| w.criticals[k]).collect())
                .collect(),
            to_save: workspaces.iter().map(|w| w.entering[m]).collect(),
            mortal_wounds: vec![0; workspaces.len()],
        }
    }

    /// Check what a hook handed back.
    ///
    /// # Errors
    /// [`CoreError::Hook`] for arrays of the wrong length or values past the limits.
    pub fn check(&self, trials: usize) -> Result<(), CoreError> {
        let hook = |reason: String| Err(CoreError::Hook { reason });
        if self.to_save.len() != trials || self.mortal_wounds.len() != trials {
            return hook(format!(
                "returned arrays of {} and {} values for {trials} trials",
                self.to_save.len(),
                self.mortal_wounds.len()
            ));
        }
        if let Some(v) = self
            .to_save
            .iter()
            .find(|&&v| u64::from(v) > MAX_TOKENS_PER_TRIAL)
        {
            return hook(format!(
                "to_save holds {v}; at most {MAX_TOKENS_PER_TRIAL} per trial"
            ));
        }
        if let Some(v) = self
            .mortal_wounds
            .iter()
            .find(|&&v| u64::from(v) > MAX_VALUE)
        {
            return hook(format!(
                "mortal_wounds holds {v}; at most {MAX_VALUE} per trial"
            ));
        }
        Ok(())
    }

    /// Put trial `t`'s (possibly changed) numbers back into its workspace.
    pub(crate) fn scatter(&self, t: usize, ws: &mut Workspace<'_>) {
        let m = ws.passed.len();
        ws.entering[m] = self.to_save[t];
        ws.extra_mortal = self.mortal_wounds[t];
    }
}

/// The error for a Plan naming a hook nobody supplied.
pub(crate) fn missing(index: usize) -> CoreError {
    CoreError::Hook {
        reason: format!("the plan names batch hook {index}, but no hooks were given"),
    }
}
