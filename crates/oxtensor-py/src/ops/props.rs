//! What every built-in op class shares: its core op (`core_of`), the
//! constructor arguments `copy` and `pickle` rebuild it from (`new_args`),
//! classes without props (`unit_op!`), `view_map`s and shared instances.

use crate::ops::op::PyOp;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use rustc_hash::FxHashMap;
use std::sync::Mutex;

pub(crate) fn core_of<'a, T: 'static>(op: &'a PyRef<'_, PyOp>) -> PyResult<&'a T> {
    op.core
        .as_ref()
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| PyRuntimeError::new_err("built-in op without its core op"))
}

/// `(args, kwargs)` of `__getnewargs_ex__`.
pub(crate) type NewArgs<'py> = (Bound<'py, PyTuple>, Bound<'py, PyDict>);

/// `__getnewargs_ex__` from the op's own attributes, so that `copy` and
/// `pickle` call the constructor again (`Shape_i(i)`, `DimShuffle(
/// input_ndim=..., new_order=...)`) and the core op is rebuilt from them.
pub(crate) fn new_args<'py>(
    op: &Bound<'py, PyAny>,
    args: &[&str],
    kwargs: &[&str],
) -> PyResult<NewArgs<'py>> {
    let py = op.py();
    let values = args
        .iter()
        .map(|a| op.getattr(*a))
        .collect::<PyResult<Vec<_>>>()?;
    let named = PyDict::new(py);
    for k in kwargs {
        named.set_item(k, op.getattr(*k)?)?;
    }
    Ok((PyTuple::new(py, values)?, named))
}

/// `__props__` and `__getnewargs_ex__` of a built-in op class, in a
/// `#[pymethods]` block of their own: `op_args!(PyRepeat, ["axis"], [])`
/// passes `axis` to the constructor by position (the second list: by
/// name), and the props are both lists; `op_args!(PyX, props [...], [...],
/// [...])` names props of its own.
macro_rules! op_args {
    ($py:ty, [$($a:expr),*], [$($k:expr),*]) => {
        $crate::ops::props::op_args!($py, props [$($a,)* $($k),*], [$($a),*], [$($k),*]);
    };
    ($py:ty, props [$($p:expr),* $(,)?], [$($a:expr),*], [$($k:expr),*]) => {
        #[pymethods]
        impl $py {
            #[classattr]
            fn __props__<'py>(py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                let names: &[&str] = &[$($p),*];
                pyo3::types::PyTuple::new(py, names)
            }

            /// The constructor's arguments (`copy` and `pickle` call it).
            fn __getnewargs_ex__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<$crate::ops::props::NewArgs<'py>> {
                $crate::ops::props::new_args(slf.as_any(), &[$($a),*], &[$($k),*])
            }
        }
    };
}
pub(crate) use op_args;

/// The Python class of a core op without props (`Matmul()`, `Det()`):
/// `unit_op!(PyDet, Det, "oxtensor.tensor.linalg", "Det", "doc")`. A class
/// with methods of its own adds them in another `#[pymethods]` block.
macro_rules! unit_op {
    ($py:ident, $core:ident, $module:literal, $name:literal, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(extends = $crate::ops::op::PyOp, subclass, module = $module, name = $name)]
        pub struct $py;

        $crate::ops::props::op_args!($py, [], []);

        #[pymethods]
        impl $py {
            #[new]
            fn new() -> PyClassInitializer<Self> {
                $crate::ops::op::PyOp::builtin(std::sync::Arc::new($core)).add_subclass($py)
            }
        }
    };
}
pub(crate) use unit_op;

/// Read-only properties of a built-in op class that read its core op, in a
/// `#[pymethods]` block of their own: `core_props!(PySvd, Svd { /// doc
/// full_matrices: bool, ... })` returns the core's field of that name; a
/// prop that is not a copy of a field says how to read it from the core:
/// `mode: String = |c| c.mode.clone()`.
macro_rules! core_props {
    ($py:ty, $core:ty {
        $($(#[doc = $doc:literal])* $name:ident: $t:ty $(= |$c:ident| $e:expr)?),* $(,)?
    }) => {
        #[pymethods]
        impl $py {
            $(
                $(#[doc = $doc])*
                #[getter]
                fn $name(slf: PyRef<'_, Self>) -> PyResult<$t> {
                    let core = $crate::ops::props::core_of::<$core>(slf.as_super())?;
                    Ok($crate::ops::props::core_props!(@read core, $name $(, |$c| $e)?))
                }
            )*
        }
    };
    (@read $core:ident, $name:ident) => {
        $core.$name
    };
    (@read $core:ident, $name:ident, |$c:ident| $e:expr) => {{
        let $c = $core;
        $e
    }};
}
pub(crate) use core_props;

/// `inplace` and the `destroy_map` it gives of an op class whose core op
/// has an `inplace` flag meaning that output 0 overwrites input 0:
/// `inplace_props!(PyGemv, Gemv, "Whether `y` may be overwritten.")`.
macro_rules! inplace_props {
    ($py:ty, $core:ty, $doc:literal) => {
        $crate::ops::props::core_props!(
            $py,
            $core {
                #[doc = $doc]
                inplace: bool,
            }
        );

        #[pymethods]
        impl $py {
            /// `{0: [0]}` when inplace, else empty.
            #[getter]
            fn destroy_map<'py>(
                slf: PyRef<'_, Self>,
                py: Python<'py>,
            ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
                let inplace = $crate::ops::props::core_of::<$core>(slf.as_super())?.inplace;
                $crate::ops::props::destroy_map_of(py, inplace)
            }
        }
    };
}
pub(crate) use inplace_props;

/// The `destroy_map` of an op with an `inplace` flag: input 0 is output 0
/// when inplace.
pub(crate) fn destroy_map_of(py: Python<'_>, inplace: bool) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    if inplace {
        d.set_item(0, vec![0])?;
    }
    Ok(d)
}

/// The Python class of a core op built from one argument, by position,
/// that is the core op's one field and the class's prop:
/// `field_op!(PyShapeI, ShapeI { i: usize }, "oxtensor.tensor.shape",
/// "Shape_i", "doc", "the prop's doc")`. Methods of its own go in another
/// `#[pymethods]` block.
macro_rules! field_op {
    (
        $py:ident,
        $core:ident { $field:ident: $t:ty },
        $module:literal,
        $name:literal,
        $doc:literal,
        $field_doc:literal
    ) => {
        #[doc = $doc]
        #[pyclass(extends = $crate::ops::op::PyOp, subclass, module = $module, name = $name)]
        pub struct $py;

        $crate::ops::props::op_args!($py, [stringify!($field)], []);

        #[pymethods]
        impl $py {
            #[new]
            fn new($field: $t) -> PyClassInitializer<Self> {
                let core = std::sync::Arc::new($core { $field });
                $crate::ops::op::PyOp::builtin(core).add_subclass($py)
            }
        }

        $crate::ops::props::core_props!(
            $py,
            $core {
                #[doc = $field_doc]
                $field: $t,
            }
        );
    };
}
pub(crate) use field_op;

/// The Python class of a core op made from one string argument, which is
/// also its prop: `str_op!(/// doc
/// PyChoose("oxtensor.tensor.basic", "Choose"), mode = "raise" => choose)`
/// with `fn choose(mode: &str) -> PyResult<Choose>`; the prop's getter goes
/// in `core_props!`.
macro_rules! str_op {
    (
        $(#[doc = $doc:literal])*
        $py:ident($module:literal, $name:literal),
        $arg:ident = $default:literal => $make:path
    ) => {
        $(#[doc = $doc])*
        #[pyclass(extends = $crate::ops::op::PyOp, subclass, module = $module, name = $name)]
        pub struct $py;

        $crate::ops::props::op_args!($py, [stringify!($arg)], []);

        #[pymethods]
        impl $py {
            #[new]
            #[pyo3(signature = ($arg = $default))]
            fn new($arg: &str) -> PyResult<PyClassInitializer<Self>> {
                let core = std::sync::Arc::new($make($arg)?);
                Ok($crate::ops::op::PyOp::builtin(core).add_subclass($py))
            }
        }
    };
}
pub(crate) use str_op;

/// `{0: [0]}`: the output is a view of the input (`view_map`).
pub(crate) fn view_of_input<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(0, vec![0])?;
    Ok(d)
}

/// Shared instances of immutable ops, by a key of their fields.
pub(crate) type InstanceCache<K> = PyOnceLock<Mutex<FxHashMap<K, Py<PyAny>>>>;

/// The cached instance for `key`, made by `make` the first time.
pub(crate) fn cached<K: std::hash::Hash + Eq + Clone>(
    py: Python<'_>,
    cell: &'static InstanceCache<K>,
    key: &K,
    make: impl FnOnce() -> PyResult<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let map = cell.get_or_init(py, || Mutex::new(FxHashMap::default()));
    let poisoned = |_| PyRuntimeError::new_err("op cache poisoned");
    if let Some(o) = map.lock().map_err(poisoned)?.get(key) {
        return Ok(o.clone_ref(py));
    }
    let obj = make()?;
    map.lock()
        .map_err(poisoned)?
        .insert(key.clone(), obj.clone_ref(py));
    Ok(obj)
}
