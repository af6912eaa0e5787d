//! `Mode`: how a function is compiled — which rewrites run (a query of
//! [`optdb`](crate::rewrite::optdb::optdb), a pass of one's own, or none),
//! how they behave on failure, and how the result is linked. The
//! predefined modes are PyTensor's: `FAST_RUN` (every `fast_run` rewrite)
//! and `FAST_COMPILE` (the `fast_compile` ones: canonicalization and
//! constant folding, no fusion, no inplace).

use crate::error::{Error, Result};
use crate::rewrite::db::{ExtraPass, RewriteDb};
use crate::rewrite::optdb::optdb;
use crate::rewrite::{GraphRewriter, Query, RewriteSettings};
use crate::vm::LinkOptions;
use std::fmt;
use std::sync::Arc;

/// Which rewrites a mode runs.
#[derive(Clone)]
pub enum Optimizer {
    /// What this query selects from `optdb`.
    Query(Query),
    /// A pass of the caller's own.
    Pass(Arc<dyn GraphRewriter>),
    /// No rewriting at all (`optimizer=None`).
    None,
}

impl fmt::Debug for Optimizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Optimizer::Query(q) => write!(f, "Query({q:?})"),
            Optimizer::Pass(p) => write!(f, "Pass({})", p.name()),
            Optimizer::None => f.write_str("None"),
        }
    }
}

/// A compilation mode.
#[derive(Clone, Debug)]
pub struct Mode {
    /// Its name (`FAST_RUN`, or the caller's).
    pub name: String,
    /// The rewrites.
    pub optimizer: Optimizer,
    /// The database a query selects from (`optdb` when `None`; PyTensor's
    /// `Mode(db=...)`).
    pub db: Option<Arc<RewriteDb>>,
    /// What a failing rewriter does, and the equilibrium bound.
    pub settings: RewriteSettings,
    /// How the graph is linked.
    pub link: LinkOptions,
}

impl Mode {
    /// A mode running what `query` selects.
    pub fn with_query(name: &str, query: Query) -> Mode {
        Mode {
            name: name.to_owned(),
            optimizer: Optimizer::Query(query),
            db: None,
            settings: RewriteSettings::default(),
            link: LinkOptions::default(),
        }
    }

    /// `FAST_RUN`: every `fast_run` rewrite.
    pub fn fast_run() -> Mode {
        Mode::with_query("FAST_RUN", Query::including(&["fast_run"]))
    }

    /// `FAST_COMPILE`: the `fast_compile` rewrites only.
    pub fn fast_compile() -> Mode {
        Mode::with_query("FAST_COMPILE", Query::including(&["fast_compile"]))
    }

    /// A predefined mode by name: `FAST_RUN` (and PyTensor's names for its
    /// backends, which all mean the native VM here) or `FAST_COMPILE`.
    pub fn predefined(name: &str) -> Result<Mode> {
        match name {
            "FAST_RUN" | "NUMBA" | "CVM" | "VM" | "C" | "Mode" => Ok(Mode::fast_run()),
            "FAST_COMPILE" | "py" => Ok(Mode::fast_compile()),
            "DebugMode" | "DEBUG_MODE" => Ok(Mode::debug_mode()),
            other => Err(Error::Value(format!(
                "unknown mode '{other}'; expected one of FAST_RUN, FAST_COMPILE, DebugMode, NUMBA, CVM, VM, C, py"
            ))),
        }
    }

    fn map_query(&self, f: impl FnOnce(Query) -> Query) -> Mode {
        let mut m = self.clone();
        if let Optimizer::Query(q) = &self.optimizer {
            m.optimizer = Optimizer::Query(f(q.clone()));
        }
        m
    }

    /// This mode with rewrites of these tags added.
    pub fn including(&self, tags: &[&str]) -> Mode {
        self.map_query(|q| q.with_include(tags))
    }

    /// This mode without the rewrites of these tags.
    pub fn excluding(&self, tags: &[&str]) -> Mode {
        self.map_query(|q| q.with_exclude(tags))
    }

    /// This mode keeping only rewrites with all of these tags.
    pub fn requiring(&self, tags: &[&str]) -> Mode {
        self.map_query(|q| q.with_require(tags))
    }

    /// This mode with passes of the caller's own run at these positions
    /// among its query's (`Mode.register`); a mode running a pass of its
    /// own, or none, cannot take them.
    pub fn registering(&self, extra: Vec<ExtraPass>) -> Result<Mode> {
        match &self.optimizer {
            Optimizer::Query(_) => Ok(self.map_query(|q| q.with_extra(extra))),
            other => Err(Error::Type(format!(
                "Mode.register needs a mode whose optimizer is a database query, not {other:?}"
            ))),
        }
    }

    /// The pass this mode runs, if any.
    pub fn rewriter(&self) -> Result<Option<Arc<dyn GraphRewriter>>> {
        Ok(match &self.optimizer {
            Optimizer::Query(q) => Some(self.db.clone().unwrap_or_else(optdb).query(q)?),
            Optimizer::Pass(p) => Some(p.clone()),
            Optimizer::None => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_query_tags_and_derive() {
        let m = Mode::fast_run()
            .excluding(&["fusion"])
            .including(&["unsafe"]);
        let Optimizer::Query(q) = &m.optimizer else {
            panic!("a query")
        };
        assert_eq!(q.include, ["fast_run", "unsafe"]);
        assert_eq!(q.exclude, ["fusion"]);
        assert!(Mode::predefined("FAST_COMPILE").is_ok());
        let err = Mode::predefined("FASTEST").unwrap_err().to_string();
        assert!(err.contains("unknown mode 'FASTEST'"), "{err}");
    }

    /// `Mode(db=...)` queries that database, and registered passes join
    /// the query; a mode without a query cannot take them.
    #[test]
    fn a_mode_queries_its_own_database_with_registered_passes() -> Result<()> {
        use crate::rewrite::db::{DbKind, Entry, Role};
        use crate::rewrite::Sequence;
        let db = Arc::new(RewriteDb::new("mine", DbKind::Sequence));
        let merge: Arc<dyn GraphRewriter> = Arc::new(crate::rewrite::MergeRewriter);
        db.register("m", Entry::Graph(merge.clone()), &["t"], 1.0, Role::Global)?;
        let mut mode = Mode::with_query("mine", Query::including(&["t"]));
        mode.db = Some(db);
        let extra = ExtraPass {
            position: 0.5,
            pass: Arc::new(Sequence::new("first", vec![])),
        };
        let mode = mode.registering(vec![extra.clone()])?;
        let Optimizer::Query(q) = &mode.optimizer else {
            panic!("a query")
        };
        assert_eq!(q.extra.len(), 1);
        assert!(q.extra[0] == extra, "{:?}", q.extra);
        let pass = mode.rewriter()?.map(|p| p.name().to_owned());
        assert_eq!(pass.as_deref(), Some("mine"), "the mode's own database");
        let mut none = mode.clone();
        none.optimizer = Optimizer::None;
        let err = none.registering(vec![extra]).unwrap_err().to_string();
        assert!(
            err.contains("optimizer is a database query, not None"),
            "{err}"
        );
        Ok(())
    }
}
