//! `oxtensor.compile.mode.Mode`: a core [`Mode`] seen from Python, built
//! from PyTensor's `Mode(linker=..., optimizer=..., db=...)` arguments
//! (`mode_args.rs`), and the translation of whatever `function(mode=...)`
//! was given into a core mode.

use super::mode_args::{linker_name_of, linker_tags, optimizer_arg, set_linker};
use crate::errors::{choice, IntoPyResult};
use crate::rewriting::db::{PyQuery, PyRewriteDb};
use oxtensor_core::compile::{Mode, Optimizer};
use oxtensor_core::rewrite::db::ExtraPass;
use oxtensor_core::rewrite::OnError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

/// PyTensor's `on_opt_error` values.
const ON_OPT_ERROR: [(&str, OnError); 3] = [
    ("warn", OnError::Warn),
    ("raise", OnError::Raise),
    ("ignore", OnError::Ignore),
];

/// `Mode(linker=None, optimizer="default", db=None)`. Instances take attributes of
/// the caller's (`dict`), as PyTensor's Python modes do: its tests set
/// `mode.check_isfinite` on a copy of the default mode.
#[pyclass(
    module = "oxtensor.compile.mode",
    name = "Mode",
    subclass,
    frozen,
    dict
)]
pub struct PyMode {
    /// The core mode.
    pub inner: Mode,
    linker: String,
    /// The optimizer as given, for `repr` (a name, or the object's repr).
    optimizer: String,
    /// The optimizer object as given, when not a name.
    optimizer_obj: Option<Py<PyAny>>,
    /// The database as given (`db=`); `None` is `optdb`.
    db: Option<Py<PyAny>>,
    /// The checks every node runs under: `"debug"` (DebugMode),
    /// `"view_maps"` (`config.check_view_maps`) or none.
    checks: Option<String>,
}

/// Sets the checks named `checks` on `mode` (see `compile/debug/`):
/// `debug` may name kinds of preallocated output (`debug:previous:strided`).
fn set_checks(checks: Option<&str>, mode: &mut Mode) -> PyResult<()> {
    match checks {
        None => {}
        Some(c) if c == "debug" || c.starts_with("debug:") => {
            let debug = Mode::debug_mode_for(c).py()?;
            mode.link.checker = debug.link.checker;
            mode.name = debug.name;
        }
        Some("view_maps") => *mode = mode.with_view_map_checks(),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "unknown checks {other:?}; expected 'debug', 'view_maps' or None"
            )))
        }
    }
    Ok(())
}

impl PyMode {
    fn derived(&self, py: Python<'_>, inner: Mode) -> PyMode {
        PyMode {
            inner,
            linker: self.linker.clone(),
            optimizer: self.optimizer.clone(),
            optimizer_obj: self.optimizer_obj.as_ref().map(|o| o.clone_ref(py)),
            db: self.db.as_ref().map(|d| d.clone_ref(py)),
            checks: self.checks.clone(),
        }
    }
}

/// `Mode`'s arguments: `linker`, `optimizer` (absent means `"default"`)
/// and `db`, by position or keyword, and the keyword-only `checks`.
struct ModeArgs<'py> {
    linker: Option<Bound<'py, PyAny>>,
    optimizer: Option<Bound<'py, PyAny>>,
    db: Option<Bound<'py, PyAny>>,
    checks: Option<String>,
}

impl<'py> ModeArgs<'py> {
    fn parse(args: &Bound<'py, PyTuple>, kwargs: Option<&Bound<'py, PyDict>>) -> PyResult<Self> {
        const NAMES: [&str; 3] = ["linker", "optimizer", "db"];
        if args.len() > NAMES.len() {
            return Err(PyTypeError::new_err(format!(
                "Mode() takes at most 3 positional arguments (linker, optimizer, db), got {}",
                args.len()
            )));
        }
        let mut given: [Option<Bound<'py, PyAny>>; 3] = [None, None, None];
        for (i, a) in args.iter().enumerate() {
            given[i] = Some(a);
        }
        let mut checks = None;
        for (k, v) in kwargs.into_iter().flat_map(|d| d.iter()) {
            let key: String = k.extract()?;
            if key == "checks" {
                checks = v.extract()?;
                continue;
            }
            let Some(i) = NAMES.iter().position(|n| *n == key) else {
                return Err(PyTypeError::new_err(format!(
                    "Mode() got an unexpected keyword argument '{key}'"
                )));
            };
            if given[i].replace(v).is_some() {
                return Err(PyTypeError::new_err(format!(
                    "Mode() got multiple values for argument '{key}'"
                )));
            }
        }
        let [linker, optimizer, db] = given;
        Ok(ModeArgs {
            linker,
            optimizer,
            db,
            checks,
        })
    }
}

/// PyTensor's `Mode.including`, `excluding` and `requiring`: this mode
/// with its query changed by `*tags`, through the core `Mode`'s method of
/// the same name.
macro_rules! tag_queries {
    ($($(#[doc = $doc:literal])* $method:ident),* $(,)?) => {
        #[pymethods]
        impl PyMode {
            $(
                $(#[doc = $doc])*
                #[pyo3(signature = (*tags))]
                fn $method(&self, tags: &Bound<'_, PyTuple>) -> PyResult<PyMode> {
                    let t = tag_list(tags)?;
                    let tags_str: Vec<&str> = t.iter().map(String::as_str).collect();
                    Ok(self.derived(tags.py(), self.inner.$method(&tags_str)))
                }
            )*
        }
    };
}

tag_queries! {
    /// This mode with the rewrites of these tags added.
    including,
    /// This mode without the rewrites of these tags.
    excluding,
    /// This mode keeping only the rewrites with all of these tags.
    requiring,
}

fn tag_list(args: &Bound<'_, PyTuple>) -> PyResult<Vec<String>> {
    args.iter().map(|t| t.extract()).collect()
}

#[pymethods]
impl PyMode {
    /// `Mode(linker=None, optimizer="default", db=None, *, checks=None)`.
    #[new]
    #[pyo3(signature = (*args, **kwargs))]
    fn new(args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let a = ModeArgs::parse(args, kwargs)?;
        let linker_name = match a.linker.filter(|l| !l.is_none()) {
            None => "auto".to_owned(),
            Some(l) => linker_name_of(&l)?,
        };
        let opt = match &a.optimizer {
            Some(o) => optimizer_arg(Some(o))?,
            None => optimizer_arg(Some(&PyString::new(args.py(), "default").into_any()))?,
        };
        let mut inner = Mode::fast_run();
        inner.optimizer = opt.core;
        inner.name = "Mode".to_owned();
        let db = a.db.filter(|d| !d.is_none());
        if let Some(d) = &db {
            inner.db = Some(d.cast::<PyRewriteDb>()?.borrow().inner.clone());
        }
        inner = inner.including(linker_tags(&linker_name));
        set_linker(&linker_name, &mut inner)?;
        set_checks(a.checks.as_deref(), &mut inner)?;
        Ok(PyMode {
            inner,
            linker: linker_name,
            optimizer: opt.text,
            optimizer_obj: opt.obj,
            db: db.map(Bound::unbind),
            checks: a.checks,
        })
    }

    /// This mode with passes of the caller's own, each given as a
    /// `(rewriter, position)` pair, run at those positions among the
    /// query's (`AddFeatureOptimizer(NoOutputFromInplace(...))` at 49.9,
    /// say).
    #[pyo3(signature = (*optimizations))]
    fn register(&self, optimizations: &Bound<'_, PyTuple>) -> PyResult<PyMode> {
        let mut extra = Vec::with_capacity(optimizations.len());
        for item in optimizations.iter() {
            let (rw, position): (Bound<'_, PyAny>, f64) = item.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "Mode.register takes (rewriter, position) pairs, got {}",
                    item.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?;
            extra.push(ExtraPass {
                position,
                pass: crate::rewriting::graph::to_core(&rw)?,
            });
        }
        Ok(self.derived(optimizations.py(), self.inner.registering(extra).py()?))
    }

    /// The query the mode runs (a `RewriteDatabaseQuery`, the linker's
    /// required tags included), the optimizer object given, or `None`.
    #[getter(_optimizer)]
    fn optimizer_query<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match (&self.inner.optimizer, &self.optimizer_obj) {
            (Optimizer::Query(q), _) => Bound::new(py, PyQuery { inner: q.clone() })?.into_any(),
            (Optimizer::Pass(_), Some(obj)) => obj.bind(py).clone(),
            _ => py.None().into_bound(py),
        })
    }

    /// The database the mode's query selects from (`oxtensor.compile.mode.optdb`
    /// unless `db=` was given).
    #[getter]
    fn optdb<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.db {
            Some(d) => Ok(d.bind(py).clone()),
            None => py.import("oxtensor.compile.mode")?.getattr("optdb"),
        }
    }

    /// This mode with PyTensor's `on_opt_error` (`"warn"`, `"raise"`,
    /// `"ignore"`) and `optdb__max_use_ratio`, as `oxtensor.config` sets them.
    fn with_rewrite_settings(
        &self,
        py: Python<'_>,
        on_opt_error: &str,
        max_use_ratio: f64,
    ) -> PyResult<PyMode> {
        let on_error = choice(on_opt_error, &ON_OPT_ERROR, |other| {
            format!("on_opt_error must be 'warn', 'raise' or 'ignore', got {other:?}")
        })?;
        if max_use_ratio.is_nan() || max_use_ratio <= 0.0 {
            return Err(PyValueError::new_err(format!(
                "optdb__max_use_ratio must be positive, got {max_use_ratio}"
            )));
        }
        let mut inner = self.inner.clone();
        inner.settings.on_error = on_error;
        inner.settings.max_use_ratio = max_use_ratio;
        Ok(self.derived(py, inner))
    }

    /// The linker, as an object of PyTensor's linker class for its name
    /// (`VMLinker`, `PerformLinker`, `JAXLinker`, ...; a fresh one, bound to
    /// no graph).
    #[getter]
    fn linker<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("oxtensor.link.modes")?
            .getattr("linker_for_mode")?
            .call1((self.linker.as_str(), self.checks.as_deref()))
    }

    /// The linker's name (`"vm"`, `"py"`, `"jax"`, ...).
    #[getter]
    fn linker_name(&self) -> &str {
        &self.linker
    }

    /// The checks every node runs under (`"debug"`, `"view_maps"`, None).
    #[getter]
    fn checks(&self) -> Option<&str> {
        self.checks.as_deref()
    }

    /// This mode with `config.check_view_maps`'s check (DebugMode already
    /// checks more and stays as it is).
    fn with_view_map_checks(&self, py: Python<'_>) -> PyMode {
        let mut m = self.derived(py, self.inner.with_view_map_checks());
        if m.checks.is_none() {
            m.checks = Some("view_maps".to_owned());
        }
        m
    }

    /// The optimizer as given: its name, or the query or rewriter object.
    #[getter]
    fn provided_optimizer<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.optimizer_obj {
            Some(o) => Ok(o.bind(py).clone()),
            None => Ok(PyString::new(py, &self.optimizer).into_any()),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Mode(linker={}, optimizer={}, query={:?})",
            self.linker, self.optimizer, self.inner.optimizer
        )
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for obj in self.optimizer_obj.iter().chain(&self.db) {
            visit.call(obj)?;
        }
        Ok(())
    }

    /// `(class, (linker, optimizer, db))`, the class a partial carrying
    /// `checks`; passes added by `register` cannot be pickled.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let m = slf.get();
        if matches!(&m.inner.optimizer, Optimizer::Query(q) if !q.extra.is_empty()) {
            return Err(PyTypeError::new_err(
                "not supported: pickling or copying a Mode with passes added by Mode.register",
            ));
        }
        let optimizer = m.provided_optimizer(py)?;
        let db = m.db.as_ref().map(|d| d.bind(py).clone());
        let args = (m.linker.clone(), optimizer, db);
        if m.checks.is_none() {
            return (slf.get_type(), args).into_pyobject(py);
        }
        // `checks` is keyword-only: a partial of the class carries it.
        let kwargs = PyDict::new(py);
        kwargs.set_item("checks", m.checks.clone())?;
        let new = py
            .import("functools")?
            .getattr("partial")?
            .call((slf.get_type(),), Some(&kwargs))?;
        (new, args).into_pyobject(py)
    }
}

/// The core mode of `function(mode=...)`: `None` (`FAST_RUN`), a
/// predefined name, or a `Mode`.
pub fn core_mode(mode: Option<&Bound<'_, PyAny>>) -> PyResult<Mode> {
    let Some(m) = mode.filter(|m| !m.is_none()) else {
        return Ok(Mode::fast_run());
    };
    if let Ok(pm) = m.cast::<PyMode>() {
        return Ok(pm.get().inner.clone());
    }
    match m.extract::<String>() {
        Ok(name) => Mode::predefined(&name).py(),
        Err(_) => Err(PyTypeError::new_err(format!(
            "mode must be a string or a Mode, got {}",
            m.repr()?
        ))),
    }
}
