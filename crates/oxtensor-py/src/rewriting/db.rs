//! Rewrite databases from Python (`oxtensor.graph.rewriting.db`): views of
//! core databases (`optdb` and its phases, or new ones), registration of
//! Python or built-in rewriters, and queries that give a `GraphRewriter`.

use super::graph::{self, PyGraphRewriter};
use super::node::{self, PyNodeRewriter};
use crate::errors::{choice, IntoPyResult};
use oxtensor_core::rewrite::db::ExtraPass;
use oxtensor_core::rewrite::optdb::optdb;
use oxtensor_core::rewrite::{DbKind, Entry, Query, RewriteDb, Role, WalkOrder};
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The kinds of rewrite databases, by name.
const DB_KINDS: [(&str, DbKind); 4] = [
    ("sequence", DbKind::Sequence),
    ("equilibrium", DbKind::Equilibrium),
    ("in_to_out", DbKind::Walk(WalkOrder::InToOut)),
    ("out_to_in", DbKind::Walk(WalkOrder::OutToIn)),
];

/// `RewriteDatabaseQuery(include, require=None, exclude=None, subquery=None,
/// position_cutoff=inf, extra_rewrites=None)`.
#[pyclass(
    module = "oxtensor.graph.rewriting.db",
    name = "RewriteDatabaseQuery",
    frozen
)]
#[derive(Clone)]
pub struct PyQuery {
    pub(crate) inner: Query,
}

fn strings(v: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    match v.filter(|v| !v.is_none()) {
        Some(v) if v.is_instance_of::<PyString>() => Ok(vec![v.extract()?]),
        Some(v) => v.try_iter()?.map(|t| t?.extract()).collect(),
        None => Ok(Vec::new()),
    }
}

/// Tags to include or exclude. A `None` among them is a tag no rewriter
/// carries (PyTensor's tests write `include=[None]` for "no rewrites"), so
/// it selects, or removes, nothing and is dropped here.
fn optional_tags(v: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    match v.filter(|v| !v.is_none()) {
        Some(v) if !v.is_instance_of::<PyString>() => v
            .try_iter()?
            .filter(|t| t.as_ref().map_or(true, |t| !t.is_none()))
            .map(|t| t?.extract())
            .collect(),
        other => strings(other),
    }
}

#[pymethods]
impl PyQuery {
    #[new]
    #[pyo3(signature = (include, require = None, exclude = None, subquery = None, position_cutoff = f64::INFINITY, extra_rewrites = None))]
    fn new(
        include: &Bound<'_, PyAny>,
        require: Option<&Bound<'_, PyAny>>,
        exclude: Option<&Bound<'_, PyAny>>,
        subquery: Option<&Bound<'_, PyDict>>,
        position_cutoff: f64,
        extra_rewrites: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut extra = Vec::new();
        for item in extra_rewrites.filter(|e| !e.is_none()).into_iter() {
            for pair in item.try_iter()? {
                let pair = pair?;
                let (rw, position): (Bound<'_, PyAny>, f64) = pair.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "extra_rewrites holds (rewriter, position) pairs, got {}",
                        pair.repr().map(|r| r.to_string()).unwrap_or_default()
                    ))
                })?;
                let pass = graph::to_core(&rw)?;
                extra.push(ExtraPass { position, pass });
            }
        }
        let mut sub = HashMap::new();
        for (k, v) in subquery.into_iter().flat_map(|d| d.iter()) {
            sub.insert(
                k.extract::<String>()?,
                v.cast::<PyQuery>()?.get().inner.clone(),
            );
        }
        Ok(PyQuery {
            inner: Query {
                include: optional_tags(Some(include))?,
                require: strings(require)?,
                exclude: optional_tags(exclude)?,
                position_cutoff,
                subquery: sub,
                extra,
            },
        })
    }

    #[getter]
    fn include(&self) -> Vec<String> {
        self.inner.include.clone()
    }

    #[getter]
    fn require(&self) -> Vec<String> {
        self.inner.require.clone()
    }

    #[getter]
    fn exclude(&self) -> Vec<String> {
        self.inner.exclude.clone()
    }

    #[getter]
    fn position_cutoff(&self) -> f64 {
        self.inner.position_cutoff
    }

    /// This query with more included tags.
    #[pyo3(signature = (*tags))]
    fn including(&self, tags: Vec<String>) -> PyQuery {
        let mut q = self.clone();
        q.inner.include.extend(tags);
        q
    }

    /// This query with more excluded tags.
    #[pyo3(signature = (*tags))]
    fn excluding(&self, tags: Vec<String>) -> PyQuery {
        let mut q = self.clone();
        q.inner.exclude.extend(tags);
        q
    }

    /// This query with more required tags.
    #[pyo3(signature = (*tags))]
    fn requiring(&self, tags: Vec<String>) -> PyQuery {
        let mut q = self.clone();
        q.inner.require.extend(tags);
        q
    }

    fn __repr__(&self) -> String {
        let q = &self.inner;
        format!(
            "RewriteDatabaseQuery(include={:?}, require={:?}, exclude={:?}, position_cutoff={})",
            q.include, q.require, q.exclude, q.position_cutoff
        )
    }
}

/// A query from PyTensor's forms: a `RewriteDatabaseQuery`, or tag strings
/// where `+t` includes, `&t` requires, `-t` excludes and a bare `t` includes.
fn query_of(args: &Bound<'_, PyTuple>) -> PyResult<Query> {
    if let [one] = args.as_slice() {
        if let Ok(q) = one.cast::<PyQuery>() {
            return Ok(q.get().inner.clone());
        }
    }
    let mut q = Query::including(&[]);
    for a in args.iter() {
        let t: String = a.extract().map_err(|_| {
            PyTypeError::new_err("query takes a RewriteDatabaseQuery or tag strings")
        })?;
        match t.split_at(t.chars().next().map_or(0, char::len_utf8)) {
            ("+", rest) => q.include.push(rest.to_owned()),
            ("&", rest) => q.require.push(rest.to_owned()),
            ("-", rest) => q.exclude.push(rest.to_owned()),
            _ => q.include.push(t),
        }
    }
    Ok(q)
}

/// Python objects registered from Python, by (database, name).
type Registry = HashMap<(usize, String), Py<PyAny>>;

/// `RewriteDatabase`: `SequenceDB`, `EquilibriumDB` and `TopoDB`-like
/// kinds; `optdb` is the process-wide one.
#[pyclass(
    subclass,
    module = "oxtensor.graph.rewriting.db",
    name = "RewriteDatabase"
)]
pub struct PyRewriteDb {
    pub(crate) inner: Arc<RewriteDb>,
}

impl PyRewriteDb {
    pub(crate) fn of(inner: Arc<RewriteDb>) -> Self {
        PyRewriteDb { inner }
    }

    /// Where the Python objects registered from Python are kept, by
    /// database and name, so lookups give back the user's own object
    /// whichever view of the database asks.
    fn registered() -> &'static Mutex<Registry> {
        static REGISTERED: OnceLock<Mutex<Registry>> = OnceLock::new();
        REGISTERED.get_or_init(Mutex::default)
    }

    fn key(&self, name: &str) -> (usize, String) {
        (Arc::as_ptr(&self.inner) as usize, name.to_owned())
    }
}

fn kind_of(kind: &str) -> PyResult<DbKind> {
    choice(kind, &DB_KINDS, |other| {
        format!(
            "a database is 'sequence', 'equilibrium', 'in_to_out' or 'out_to_in', got '{other}'"
        )
    })
}

/// The core entry for a registered object.
fn entry_of(obj: &Bound<'_, PyAny>) -> PyResult<Entry> {
    if let Ok(db) = obj.cast::<PyRewriteDb>() {
        return Ok(Entry::Db(db.borrow().inner.clone()));
    }
    if obj.is_instance_of::<PyNodeRewriter>() || obj.hasattr("transform")? {
        return Ok(Entry::Node(node::to_core(obj)?));
    }
    if obj.is_instance_of::<PyGraphRewriter>() || obj.hasattr("apply")? {
        return Ok(Entry::Graph(graph::to_core(obj)?));
    }
    Err(PyTypeError::new_err(format!(
        "only rewriters and databases can be registered, got {}",
        obj.repr()?
    )))
}

#[pymethods]
impl PyRewriteDb {
    #[new]
    #[pyo3(signature = (kind = "sequence", *_args, **_kwargs))]
    fn new(
        kind: &str,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        Ok(PyRewriteDb::of(Arc::new(RewriteDb::new(
            "",
            kind_of(kind)?,
        ))))
    }

    /// The database's name (given when it is registered in another).
    #[getter]
    fn name(&self) -> String {
        self.inner.name()
    }

    /// Registers `rewriter` as `name` with `tags`; `position` orders
    /// sequences (a number or `"last"`), `final_rewriter`/`cleanup` place a
    /// graph rewriter in an equilibrium.
    #[pyo3(signature = (name, rewriter, *tags, position = None, final_rewriter = false, cleanup = false, use_db_name_as_tag = true))]
    #[allow(clippy::too_many_arguments)]
    fn register(
        &self,
        name: &str,
        rewriter: &Bound<'_, PyAny>,
        tags: Vec<String>,
        position: Option<&Bound<'_, PyAny>>,
        final_rewriter: bool,
        cleanup: bool,
        use_db_name_as_tag: bool,
    ) -> PyResult<()> {
        let _ = use_db_name_as_tag;
        let position = match position.filter(|p| !p.is_none()) {
            None => 0.0,
            Some(p) if p.extract::<String>().is_ok_and(|s| s == "last") => {
                self.last_position()? + 1.0
            }
            Some(p) => p.extract::<f64>()?,
        };
        let role = match (final_rewriter, cleanup) {
            (true, _) => Role::Final,
            (_, true) => Role::Cleanup,
            _ => Role::Global,
        };
        let tag_refs: Vec<&str> = tags.iter().map(String::as_str).collect();
        self.inner
            .register(name, entry_of(rewriter)?, &tag_refs, position, role)
            .py()?;
        if let Ok(mut m) = Self::registered().lock() {
            m.insert(self.key(name), rewriter.clone().unbind());
        }
        Ok(())
    }

    /// Adds tags to a registered rewriter.
    #[pyo3(signature = (name, *tags))]
    fn add_tags(&self, name: &str, tags: Vec<String>) -> PyResult<()> {
        let refs: Vec<&str> = tags.iter().map(String::as_str).collect();
        self.inner.add_tags(name, &refs).py()
    }

    /// Removes a registered rewriter.
    fn remove(&self, name: &str) -> PyResult<bool> {
        if let Ok(mut m) = Self::registered().lock() {
            m.remove(&self.key(name));
        }
        self.inner.remove(name).py()
    }

    /// The `GraphRewriter` running what the query selects.
    #[pyo3(signature = (*args))]
    fn query(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyGraphRewriter>> {
        let pass = self.inner.query(&query_of(args)?).py()?;
        Py::new(py, PyGraphRewriter { inner: Some(pass) })
    }

    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let mine = Self::registered()
            .lock()
            .ok()
            .and_then(|m| m.get(&self.key(name)).map(|o| o.clone_ref(py)));
        if let Some(obj) = mine {
            return Ok(obj);
        }
        let r = self
            .inner
            .get(name)
            .map_err(|_| PyKeyError::new_err(name.to_owned()))?;
        Ok(match r.entry {
            Entry::Db(db) => Py::new(py, PyRewriteDb::of(db))?.into_any(),
            Entry::Node(n) => Py::new(py, PyNodeRewriter { inner: Some(n) })?.into_any(),
            Entry::Graph(g) => Py::new(py, PyGraphRewriter { inner: Some(g) })?.into_any(),
        })
    }

    fn __contains__(&self, name: &str) -> bool {
        self.inner.get(name).is_ok()
    }

    /// The registered names.
    fn names(&self) -> PyResult<Vec<String>> {
        Ok(self
            .inner
            .entries()
            .py()?
            .into_iter()
            .map(|r| r.name)
            .collect())
    }

    fn __repr__(&self) -> String {
        format!("RewriteDatabase({})", self.inner.name())
    }
}

impl PyRewriteDb {
    fn last_position(&self) -> PyResult<f64> {
        Ok(self
            .inner
            .entries()
            .py()?
            .iter()
            .map(|r| r.position)
            .fold(0.0, f64::max))
    }
}

/// The process-wide database of compilation phases.
#[pyfunction]
pub fn optdb_object(py: Python<'_>) -> PyResult<Py<PyRewriteDb>> {
    Py::new(py, PyRewriteDb::of(optdb()))
}
