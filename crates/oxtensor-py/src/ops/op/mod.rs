//! `Op`: the base class of every op. Built-in ops carry a core op and build
//! their nodes in Rust; Python subclasses implement the seeds' contract and
//! the core reaches them through the host adapter (`ops/host_op.rs`).

mod call;
mod gradient;
mod props;
mod thunks;

pub use self::props::op_str;
use self::props::overrides;

use oxtensor_core::ops::OpRef;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};

/// `oxtensor.graph.op.Op`.
#[pyclass(subclass, dict, weakref, module = "oxtensor.graph.op", name = "Op")]
pub struct PyOp {
    /// The core op of a built-in op; `None` for ops written in Python.
    pub core: Option<OpRef>,
}

impl PyOp {
    /// A base initializer for a built-in op.
    pub fn builtin(core: OpRef) -> PyClassInitializer<PyOp> {
        PyClassInitializer::from(PyOp { core: Some(core) })
    }
}

#[pymethods]
impl PyOp {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PyOp { core: None }
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn __init__(&self, _args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) {}

    /// Checks `__props__` when a subclass is created and keeps PyTensor's
    /// rules: a class that lists props gets the props-based `__str__` even
    /// if a base defines one, and keeps a hash when it defines `__eq__`.
    #[classmethod]
    #[pyo3(signature = (**_kwargs))]
    fn __init_subclass__(
        cls: &Bound<'_, PyType>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let dict = cls.getattr("__dict__")?;
        let Ok(props) = dict.get_item("__props__") else {
            return Ok(());
        };
        let props = props
            .cast_into::<PyTuple>()
            .map_err(|_| PyTypeError::new_err("__props__ has to be a tuple"))?;
        if props.iter().any(|p| !p.is_instance_of::<PyString>()) {
            return Err(PyTypeError::new_err(
                "elements of __props__ have to be strings",
            ));
        }
        let base = cls.py().get_type::<PyOp>();
        if !dict.contains("__str__")? {
            cls.setattr("__str__", base.getattr("__str__")?)?;
        }
        if dict.get_item("__hash__").is_ok_and(|h| h.is_none()) {
            cls.setattr("__hash__", base.getattr("__hash__")?)?;
        }
        Ok(())
    }

    /// Lets `copy` and `pickle` rebuild an op written in Python from its
    /// `__dict__` (without it, CPython refuses objects with a native
    /// layout). Built-in ops keep their state in Rust, which a bare
    /// `__new__` cannot restore: each defines `__getnewargs_ex__` with its
    /// constructor's arguments, and one that does not is refused by name.
    fn __getnewargs__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        if slf.borrow().core.is_some() {
            return Err(PyTypeError::new_err(format!(
                "cannot copy or pickle the built-in op {}",
                op_str(slf.as_any())?
            )));
        }
        if overrides(slf.as_any(), "__new__")? {
            return Err(PyTypeError::new_err(format!(
                "cannot copy or pickle the op {}: its class defines __new__, so it must also define __getnewargs__ (or __reduce__)",
                op_str(slf.as_any())?
            )));
        }
        Ok(PyTuple::empty(slf.py()))
    }

    /// Pickles with every protocol (see `reduce_ex_any_protocol`).
    fn __reduce_ex__<'py>(slf: &Bound<'py, Self>, protocol: i64) -> PyResult<Bound<'py, PyAny>> {
        crate::pickle::reduce_ex_any_protocol(slf.as_any(), protocol)
    }

    /// Which output `__call__` returns.
    #[classattr]
    fn default_output(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// `{output: [input]}`: outputs that are views of inputs.
    #[classattr]
    fn view_map(py: Python<'_>) -> Py<PyDict> {
        PyDict::new(py).unbind()
    }

    /// `{output: [inputs]}`: outputs computed by overwriting inputs.
    #[classattr]
    fn destroy_map(py: Python<'_>) -> Py<PyDict> {
        PyDict::new(py).unbind()
    }

    /// Input types for the default `make_node` (with `otypes`).
    #[classattr]
    fn itypes(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// Output types for the default `make_node` (with `itypes`).
    #[classattr]
    fn otypes(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    /// Forces `clone_with_new_inputs` to rebuild nodes of this op.
    #[classattr]
    fn _output_type_depends_on_input_value() -> bool {
        false
    }
}
