//! The state one rewrite run carries through its passes: what to do when a
//! rewriter fails (PyTensor's `on_opt_error`), the equilibrium bound
//! (`optdb__max_use_ratio`), the warnings to hand to the caller, and the
//! profile.

use super::profile::RewriteProfile;
use crate::error::{Error, Result};
use crate::graph::ReplaceLog;

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
    /// Where each replacement is logged (PyTensor's `optimizer_verbose`).
    pub log: Option<ReplaceLog>,
}

impl Default for RewriteSettings {
    fn default() -> Self {
        RewriteSettings {
            on_error: OnError::Warn,
            max_use_ratio: 8.0,
            log: None,
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
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;
    use crate::graph::{FunctionGraph, LogSink};
    use crate::ops::elemwise::Elemwise;
    use crate::rewrite::db::Query;
    use crate::rewrite::optdb::optdb;
    use crate::rewrite::rewrite_graph;
    use crate::scalar::ScalarKind;

    use std::sync::{Arc, Mutex};

    /// `log(1 + x)` through canonicalize and stabilize with a log, and the
    /// lines the log received.
    fn verbose_run(ignore: Vec<String>) -> (Vec<String>, FunctionGraph) {
        let (mut g, [x]) = graph_with([("x", DType::Float64, 1)]);
        let one = crate::build::scalar_constant(&mut g, DType::Float64, 1.0);
        let op = |k| Arc::new(Elemwise::new(k));
        let s = crate::build::elemwise(&mut g, ScalarKind::Add, &[one, x]).unwrap();
        let l = g.apply_out(op(ScalarKind::Log), &[s]).unwrap();
        let mut fg = FunctionGraph::new(g, vec![x], vec![l]).unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&lines);
        let sink: LogSink = Arc::new(move |l: &str| seen.lock().unwrap().push(l.to_owned()));
        let mut run = RunContext::new(RewriteSettings {
            log: Some(ReplaceLog::new(ignore, sink)),
            ..RewriteSettings::default()
        });
        let pass = optdb()
            .query(&Query::including(&["canonicalize", "stabilize"]))
            .unwrap();
        rewrite_graph(pass.as_ref(), &mut fg, &mut run).unwrap();
        let out = lines.lock().unwrap().clone();
        (out, fg)
    }

    #[test]
    fn a_logged_run_names_each_rewrite_and_stops_logging_after() {
        let (lines, mut fg) = verbose_run(Vec::new());
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("rewriting: rewrite local_log1p replaces ")),
            "{lines:?}"
        );
        // The log belongs to the run: later edits of the graph are silent.
        let out = fg.outputs()[0];
        let x = fg.inputs()[0];
        let e = fg
            .graph_mut()
            .apply_out(Arc::new(Elemwise::new(ScalarKind::Exp)), &[x])
            .unwrap();
        fg.replace(out, e, "later", true).unwrap();
    }

    #[test]
    fn a_logged_run_skips_ignored_reasons() {
        let (lines, _) = verbose_run(vec!["local_log1p".to_owned()]);
        assert!(
            !lines.iter().any(|l| l.contains("local_log1p")),
            "{lines:?}"
        );
    }

    #[test]
    fn on_error_parses_pytensor_values_and_names_a_bad_one() {
        assert_eq!("raise".parse::<OnError>().ok(), Some(OnError::Raise));
        assert_eq!("ignore".parse::<OnError>().ok(), Some(OnError::Ignore));
        assert_eq!("warn".parse::<OnError>().ok(), Some(OnError::Warn));
        let err = "loud".parse::<OnError>().err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("\"loud\"")));
    }
}
