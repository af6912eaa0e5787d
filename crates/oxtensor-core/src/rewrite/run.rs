//! The state one rewrite run carries through its passes: what to do when a
//! rewriter fails (PyTensor's `on_opt_error`), the equilibrium bound
//! (`optdb__max_use_ratio`), the warnings to hand to the caller, and the
//! profile.

use super::profile::RewriteProfile;
use crate::error::{Error, Result};

/// What a failing rewriter does to the run (`config.on_opt_error`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnError {
    /// Record a warning, revert the rewriter's change and go on.
    #[default]
    Warn,
    /// Stop the run with the error.
    Raise,
    /// Revert and go on silently.
    Ignore,
}

impl std::str::FromStr for OnError {
    type Err = Error;

    /// PyTensor's `on_opt_error` values: `"warn"`, `"raise"`, `"ignore"`.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "warn" => Ok(OnError::Warn),
            "raise" => Ok(OnError::Raise),
            "ignore" => Ok(OnError::Ignore),
            other => Err(Error::Value(format!(
                "on_opt_error must be 'warn', 'raise' or 'ignore', got {other:?}"
            ))),
        }
    }
}

/// Settings of a rewrite run.
#[derive(Clone, Debug, PartialEq)]
pub struct RewriteSettings {
    /// What a failing rewriter does.
    pub on_error: OnError,
    /// An equilibrium stops once one rewriter was applied more than this
    /// many times the largest node count it saw (PyTensor's 8).
    pub max_use_ratio: f64,
}

impl Default for RewriteSettings {
    fn default() -> Self {
        RewriteSettings {
            on_error: OnError::Warn,
            max_use_ratio: 8.0,
        }
    }
}

/// What a run carries: settings in, warnings and profile out.
#[derive(Debug, Default)]
pub struct RunContext {
    /// The settings.
    pub settings: RewriteSettings,
    /// Warnings for the caller to show (Python turns them into `warnings.warn`).
    pub warnings: Vec<String>,
    /// Counters and timers.
    pub profile: RewriteProfile,
}

impl RunContext {
    /// A run with these settings.
    pub fn new(settings: RewriteSettings) -> Self {
        RunContext {
            settings,
            ..RunContext::default()
        }
    }

    /// Handles a rewriter's failure per `on_error`; `Err` only when raising.
    /// An `InconsistencyError` is never reported: it is how a graph refuses
    /// a proposal (an inplace one, say), which is normal (PyTensor's
    /// `warn_inplace`).
    pub fn failure(&mut self, err: Error) -> Result<()> {
        if matches!(err.root(), Error::Inconsistency(_)) {
            return Ok(());
        }
        match self.settings.on_error {
            OnError::Raise => Err(err),
            OnError::Warn => {
                self.warnings.push(err.to_string());
                Ok(())
            }
            OnError::Ignore => Ok(()),
        }
    }

    /// Adds a warning.
    pub fn warn(&mut self, message: String) {
        self.warnings.push(message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_error_parses_pytensor_values_and_names_a_bad_one() {
        assert_eq!("raise".parse::<OnError>().ok(), Some(OnError::Raise));
        assert_eq!("ignore".parse::<OnError>().ok(), Some(OnError::Ignore));
        assert_eq!("warn".parse::<OnError>().ok(), Some(OnError::Warn));
        let err = "loud".parse::<OnError>().err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("\"loud\"")));
    }
}
