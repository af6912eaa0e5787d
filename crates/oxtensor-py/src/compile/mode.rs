//! `oxtensor.compile.mode.Mode`: a core [`Mode`] seen from Python, built
//! from PyTensor's `Mode(linker=..., optimizer=...)` arguments, and the
//! translation of whatever `function(mode=...)` was given into a core mode.

use crate::errors::IntoPyResult;
use oxtensor_core::compile::{Mode, Optimizer};
use oxtensor_core::rewrite::{OnError, Query};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `Mode(linker=None, optimizer="default")`. Instances take attributes of
/// the caller's (`dict`), as PyTensor's Python modes do: its tests set
/// `mode.check_isfinite` on a copy of the default mode.
#[pyclass(
    module = "oxtensor.compile.mode",
    name = "Mode",
    subclass,
    frozen,
    dict
)]
#[derive(Clone)]
pub struct PyMode {
    /// The core mode.
    pub inner: Mode,
    linker: String,
    optimizer: String,
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

/// PyTensor's named optimizers (`mode.py`'s `OPT_*` queries).
fn named_optimizer(name: Option<&str>) -> PyResult<Optimizer> {
    let fast_run = || Query::including(&["fast_run"]);
    let fast_compile = || Query::including(&["fast_compile"]);
    Ok(Optimizer::Query(match name {
        None | Some("None") => return Ok(Optimizer::None),
        Some("default" | "o4" | "fast_run") => fast_run(),
        Some("o3") => fast_run().with_exclude(&["inplace"]),
        Some("o2") => fast_compile().with_include(&["fusion"]),
        Some("o1" | "fast_compile") => fast_compile(),
        Some("merge") => Query::including(&["merge"]),
        Some("unsafe") => fast_run()
            .with_exclude(&["inplace"])
            .with_include(&["unsafe"]),
        Some("stabilize") => Query {
            position_cutoff: 1.5000001,
            ..fast_run()
        },
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "unknown optimizer '{other}'; expected one of None, 'fast_run', 'fast_compile', \
                 'o1', 'o2', 'o3', 'o4', 'merge', 'unsafe', 'stabilize'"
            )))
        }
    }))
}

/// Linkers: every PyTensor name but `jax` runs the native VM; `_nogc` ones
/// keep intermediates between calls. `jax` rewrites without the inplace and
/// fusion rewrites (XLA owns memory and fuses itself, as in PyTensor's JAX
/// mode); `oxtensor.function` then hands the graph to `oxtensor.link.jax`.
fn set_linker(name: &str, mode: &mut Mode) -> PyResult<()> {
    match name {
        "auto" | "vm" | "cvm" | "py" | "c" | "c|py" | "numba" => Ok(()),
        "vm_nogc" | "cvm_nogc" | "c|py_nogc" => {
            mode.link.allow_gc = false;
            Ok(())
        }
        "jax" => {
            *mode = mode.excluding(&["inplace", "fusion"]);
            Ok(())
        }
        "pytorch" | "mlx" => Err(PyNotImplementedError::new_err(format!(
            "not supported: the '{name}' linker; oxtensor runs its native VM or JAX"
        ))),
        other => Err(PyValueError::new_err(format!(
            "unknown linker '{other}'; expected one of auto, vm, cvm, py, c, c|py, numba, \
             vm_nogc, cvm_nogc, c|py_nogc, jax"
        ))),
    }
}

impl PyMode {
    fn derived(&self, inner: Mode) -> PyMode {
        PyMode {
            inner,
            linker: self.linker.clone(),
            optimizer: self.optimizer.clone(),
            checks: self.checks.clone(),
        }
    }
}

/// A `linker=` argument's name: a string, or a linker object's `mode_linker`.
fn linker_name_of(linker: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(name) = linker.extract::<String>() {
        return Ok(name);
    }
    match linker.getattr("mode_linker") {
        Ok(name) => name.extract(),
        Err(_) => Err(PyTypeError::new_err(format!(
            "linker must be a linker name or a Linker object, got {}",
            linker.repr()?
        ))),
    }
}

fn tag_list(args: &Bound<'_, PyTuple>) -> PyResult<Vec<String>> {
    args.iter().map(|t| t.extract()).collect()
}

#[pymethods]
impl PyMode {
    #[new]
    #[pyo3(signature = (linker = None, optimizer = Some("default".to_owned()), *, checks = None))]
    fn new(
        linker: Option<Bound<'_, PyAny>>,
        optimizer: Option<String>,
        checks: Option<String>,
    ) -> PyResult<Self> {
        let linker_name = match linker.filter(|l| !l.is_none()) {
            None => "auto".to_owned(),
            Some(l) => linker_name_of(&l)?,
        };
        let optimizer_name = optimizer;
        let mut inner = Mode::fast_run();
        inner.optimizer = named_optimizer(optimizer_name.as_deref())?;
        inner.name = "Mode".to_owned();
        set_linker(&linker_name, &mut inner)?;
        set_checks(checks.as_deref(), &mut inner)?;
        Ok(PyMode {
            inner,
            linker: linker_name,
            optimizer: optimizer_name.unwrap_or_else(|| "None".to_owned()),
            checks,
        })
    }

    /// This mode with PyTensor's `on_opt_error` (`"warn"`, `"raise"`,
    /// `"ignore"`) and `optdb__max_use_ratio`, as `oxtensor.config` sets them.
    fn with_rewrite_settings(&self, on_opt_error: &str, max_use_ratio: f64) -> PyResult<PyMode> {
        let on_error = match on_opt_error {
            "warn" => OnError::Warn,
            "raise" => OnError::Raise,
            "ignore" => OnError::Ignore,
            other => {
                return Err(PyValueError::new_err(format!(
                    "on_opt_error must be 'warn', 'raise' or 'ignore', got {other:?}"
                )))
            }
        };
        if max_use_ratio.is_nan() || max_use_ratio <= 0.0 {
            return Err(PyValueError::new_err(format!(
                "optdb__max_use_ratio must be positive, got {max_use_ratio}"
            )));
        }
        let mut inner = self.inner.clone();
        inner.settings.on_error = on_error;
        inner.settings.max_use_ratio = max_use_ratio;
        Ok(self.derived(inner))
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
    fn with_view_map_checks(&self) -> PyMode {
        let mut m = self.derived(self.inner.with_view_map_checks());
        if m.checks.is_none() {
            m.checks = Some("view_maps".to_owned());
        }
        m
    }

    /// The optimizer's name (as given).
    #[getter]
    fn provided_optimizer(&self) -> &str {
        &self.optimizer
    }

    /// This mode with the rewrites of these tags added.
    #[pyo3(signature = (*tags))]
    fn including(&self, tags: &Bound<'_, PyTuple>) -> PyResult<PyMode> {
        let t = tag_list(tags)?;
        Ok(self.derived(
            self.inner
                .including(&t.iter().map(String::as_str).collect::<Vec<_>>()),
        ))
    }

    /// This mode without the rewrites of these tags.
    #[pyo3(signature = (*tags))]
    fn excluding(&self, tags: &Bound<'_, PyTuple>) -> PyResult<PyMode> {
        let t = tag_list(tags)?;
        Ok(self.derived(
            self.inner
                .excluding(&t.iter().map(String::as_str).collect::<Vec<_>>()),
        ))
    }

    /// This mode keeping only the rewrites with all of these tags.
    #[pyo3(signature = (*tags))]
    fn requiring(&self, tags: &Bound<'_, PyTuple>) -> PyResult<PyMode> {
        let t = tag_list(tags)?;
        Ok(self.derived(
            self.inner
                .requiring(&t.iter().map(String::as_str).collect::<Vec<_>>()),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "Mode(linker={}, optimizer={}, query={:?})",
            self.linker, self.optimizer, self.inner.optimizer
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let m = slf.get();
        if m.checks.is_none() {
            return (slf.get_type(), (m.linker.clone(), m.optimizer.clone()))
                .into_pyobject(slf.py());
        }
        // `checks` is keyword-only: a partial of the class carries it.
        let kwargs = pyo3::types::PyDict::new(slf.py());
        kwargs.set_item("checks", m.checks.clone())?;
        let new = slf
            .py()
            .import("functools")?
            .getattr("partial")?
            .call((slf.get_type(),), Some(&kwargs))?;
        (new, (m.linker.clone(), m.optimizer.clone())).into_pyobject(slf.py())
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
