//! The arguments of `Mode(linker, optimizer, db)` translated for the core:
//! PyTensor's optimizer names (`mode.py`'s `OPT_*` queries), a
//! `RewriteDatabaseQuery` or a graph rewriter of the caller's own, the
//! linker names, and the tags each linker requires of the query.

use crate::rewriting::db::PyQuery;
use crate::rewriting::graph;
use oxtensor_core::compile::{Mode, Optimizer};
use oxtensor_core::rewrite::Query;
use pyo3::exceptions::{PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// PyTensor's named optimizers (`mode.py`'s `OPT_*` queries).
pub fn named_optimizer(name: Option<&str>) -> PyResult<Optimizer> {
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

/// What `optimizer=` was given: the core optimizer, its text for `repr`,
/// and the object itself when it is not a name.
pub struct OptimizerArg {
    pub core: Optimizer,
    pub text: String,
    pub obj: Option<Py<PyAny>>,
}

/// A name, `None`, a `RewriteDatabaseQuery`, or a graph rewriter.
pub fn optimizer_arg(optimizer: Option<&Bound<'_, PyAny>>) -> PyResult<OptimizerArg> {
    let Some(o) = optimizer.filter(|o| !o.is_none()) else {
        return Ok(OptimizerArg {
            core: Optimizer::None,
            text: "None".to_owned(),
            obj: None,
        });
    };
    if let Ok(name) = o.extract::<String>() {
        return Ok(OptimizerArg {
            core: named_optimizer(Some(&name))?,
            text: name,
            obj: None,
        });
    }
    let core = if let Ok(q) = o.cast::<PyQuery>() {
        Optimizer::Query(q.get().inner.clone())
    } else if o.hasattr("apply")? {
        Optimizer::Pass(graph::to_core(o)?)
    } else {
        return Err(PyTypeError::new_err(format!(
            "optimizer must be a name, a RewriteDatabaseQuery or a GraphRewriter, got {}",
            o.repr()?
        )));
    };
    Ok(OptimizerArg {
        core,
        text: o.repr()?.to_string(),
        obj: Some(o.clone().unbind()),
    })
}

/// The tags a linker requires of the query (PyTensor's `required_rewrites`):
/// `minimum_compile` always, and `py_only` for the Python linkers. The
/// backend tags (`numba`, `jax`) are left out: the native VM runs every
/// mode, and oxtensor's `numba`-tagged rewrites are not for it.
pub fn linker_tags(name: &str) -> &'static [&'static str] {
    match name {
        "py" | "vm" | "vm_nogc" => &["minimum_compile", "py_only"],
        _ => &["minimum_compile"],
    }
}

/// Linkers: every PyTensor name but `jax` runs the native VM; `_nogc` ones
/// keep intermediates between calls. `jax` rewrites without the inplace and
/// fusion rewrites (XLA owns memory and fuses itself, as in PyTensor's JAX
/// mode); `oxtensor.function` then hands the graph to `oxtensor.link.jax`.
pub fn set_linker(name: &str, mode: &mut Mode) -> PyResult<()> {
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

/// A `linker=` argument's name: a string, or a linker object's `mode_linker`.
pub fn linker_name_of(linker: &Bound<'_, PyAny>) -> PyResult<String> {
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
