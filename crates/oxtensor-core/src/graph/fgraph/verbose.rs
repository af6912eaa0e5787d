//! PyTensor's `optimizer_verbose`: one line per replacement, in PyTensor's
//! words (`rewriting: rewrite {reason} replaces {var} of {owner} with {new}
//! of {owner}`), except for the reasons listed in `optimizer_verbose_ignore`.
//! The lines go to a sink so that the embedding decides where they appear
//! (the core never prints; Python's sink writes to `sys.stdout`).

use super::FunctionGraph;
use crate::graph::VarId;
use std::fmt;
use std::sync::Arc;

/// Where the lines go.
pub type LogSink = Arc<dyn Fn(&str) + Send + Sync>;

/// The log a function graph writes its replacements to.
#[derive(Clone)]
pub struct ReplaceLog {
    ignore: Vec<String>,
    sink: LogSink,
}

impl ReplaceLog {
    /// Lines to `sink`, except for replacements whose reason is in `ignore`.
    pub fn new(ignore: Vec<String>, sink: LogSink) -> Self {
        ReplaceLog { ignore, sink }
    }

    /// The line for replacing `var` (of `var_owner`) by `new` (of
    /// `new_owner`), each given as PyTensor's `str` of it. The one place
    /// the format is written: the core's log and Python's
    /// `FunctionGraph.replace` (which names variables by their Python
    /// `str`, a subclass's own included) both use it.
    pub fn line(reason: &str, var: &str, var_owner: &str, new: &str, new_owner: &str) -> String {
        format!(
            "rewriting: rewrite {reason} replaces {var} of {var_owner} with {new} of {new_owner}"
        )
    }
}

/// Two logs are the same if they ignore the same reasons and write to the
/// same sink (settings compare their logs).
impl PartialEq for ReplaceLog {
    fn eq(&self, other: &Self) -> bool {
        self.ignore == other.ignore && Arc::ptr_eq(&self.sink, &other.sink)
    }
}

impl fmt::Debug for ReplaceLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplaceLog")
            .field("ignore", &self.ignore)
            .finish_non_exhaustive()
    }
}

impl FunctionGraph {
    /// Starts (`Some`) or stops (`None`) logging replacements.
    pub fn set_replace_log(&mut self, log: Option<ReplaceLog>) {
        self.replace_log = log;
    }

    /// Writes the line for replacing `var` by `new`, if logging.
    pub(super) fn log_replace(&self, var: VarId, new: VarId, reason: &str) {
        let Some(log) = &self.replace_log else {
            return;
        };
        if log.ignore.iter().any(|r| r == reason) {
            return;
        }
        let line = ReplaceLog::line(
            reason,
            &self.graph.describe_var(var),
            &self.owner_text(var),
            &self.graph.describe_var(new),
            &self.owner_text(new),
        );
        (log.sink)(&line);
    }

    /// The owner node as PyTensor prints it, `None` for a free variable.
    fn owner_text(&self, v: VarId) -> String {
        self.graph
            .var(v)
            .owner()
            .map_or_else(|| "None".to_owned(), |n| self.graph.describe_node(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::graph::testing::graph_with;

    use crate::ops::elemwise::Elemwise;
    use crate::scalar::ScalarKind;

    use std::sync::Mutex;

    fn logged(ignore: &[&str], reason: &str) -> Vec<String> {
        let (mut g, [x, y]) = graph_with([("x", DType::Float64, 0), ("y", DType::Float64, 0)]);
        let s = g
            .apply_out(Arc::new(Elemwise::new(ScalarKind::Add)), &[x, y])
            .unwrap();
        let e = g
            .apply_out(Arc::new(Elemwise::new(ScalarKind::Exp)), &[s])
            .unwrap();
        let mut fg = FunctionGraph::new(g, vec![x, y], vec![e]).unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&lines);
        let sink: LogSink = Arc::new(move |l: &str| seen.lock().unwrap().push(l.to_owned()));
        let ignore = ignore.iter().map(|s| s.to_string()).collect();
        fg.set_replace_log(Some(ReplaceLog::new(ignore, sink)));
        fg.replace(s, x, reason, false).unwrap();
        let out = lines.lock().unwrap().clone();
        out
    }

    #[test]
    fn a_replacement_is_logged_in_pytensor_words() {
        let lines = logged(&[], "x->y");
        assert_eq!(
            lines,
            vec!["rewriting: rewrite x->y replaces Add.0 of Add(x, y) with x of None"]
        );
    }

    #[test]
    fn ignored_reasons_are_not_logged() {
        assert!(logged(&["x->y"], "x->y").is_empty());
        assert_eq!(logged(&["z"], "x->y").len(), 1);
    }
}
