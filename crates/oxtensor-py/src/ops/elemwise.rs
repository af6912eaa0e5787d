//! `Elemwise` (`oxtensor.tensor.elemwise`): a scalar op mapped over
//! broadcast tensors; plain instances are shared, one per scalar op.

use crate::ops::classes::{core_op, op_object};
use crate::ops::op::PyOp;
use crate::ops::props::core_of;
use crate::ops::props::{cached, op_args, InstanceCache};
use crate::ops::scalar::{self, PyScalarOp};
use oxtensor_core::ops::elemwise::Elemwise;
use oxtensor_core::ops::OpRef;
use oxtensor_core::scalar::ScalarOp;
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{IntoPyDict, PyDict, PyTuple};
use pyo3::PyTraverseError;
use std::sync::Arc;

/// `Elemwise(scalar_op, inplace_pattern=None, name=None)`.
#[pyclass(extends = PyOp, subclass, module = "oxtensor.tensor.elemwise", name = "Elemwise")]
pub struct PyElemwise {
    name: Option<String>,
    /// A scalar op written in Python: the `Elemwise` is then a Python op
    /// too, mapping its `impl` (`oxtensor/tensor/python_elemwise.py`).
    host: Option<Py<PyAny>>,
}

op_args!(PyElemwise, props ["scalar_op", "inplace_pattern"], ["scalar_op"], ["inplace_pattern", "name"]);

impl PyElemwise {
    /// The core op's `(output, input)` pairs computed in place; none for
    /// an `Elemwise` of a Python scalar op.
    fn inplace_pairs(slf: &PyRef<'_, Self>) -> PyResult<Vec<(usize, usize)>> {
        if slf.host.is_some() {
            return Ok(Vec::new());
        }
        Ok(core_of::<Elemwise>(slf.as_super())?.inplace_pattern.clone())
    }
}

#[pymethods]
impl PyElemwise {
    #[new]
    #[pyo3(signature = (scalar_op, inplace_pattern = None, name = None, nfunc_spec = None))]
    fn new(
        scalar_op: Bound<'_, PyScalarOp>,
        inplace_pattern: Option<Bound<'_, PyDict>>,
        name: Option<String>,
        nfunc_spec: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let _ = nfunc_spec;
        let mut pattern: Vec<(usize, usize)> = match inplace_pattern {
            Some(d) => d
                .iter()
                .map(|(k, v)| Ok((k.extract()?, v.extract()?)))
                .collect::<PyResult<_>>()?,
            None => Vec::new(),
        };
        pattern.sort_unstable();
        let Some(op) = scalar_op.borrow().op.clone() else {
            let host = Some(scalar_op.clone().into_any().unbind());
            return Ok(PyClassInitializer::from(PyOp { core: None })
                .add_subclass(PyElemwise { name, host }));
        };
        let core = Elemwise {
            scalar_op: op,
            inplace_pattern: pattern,
        };
        Ok(PyOp::builtin(Arc::new(core)).add_subclass(PyElemwise { name, host: None }))
    }

    /// An `Elemwise` of a scalar op written in Python gets its methods
    /// (`make_node`, `perform`, `L_op`) from `python_elemwise.py`.
    #[pyo3(signature = (*_args, **_kwargs))]
    fn __init__(
        slf: &Bound<'_, Self>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        if slf.borrow().host.is_some() {
            let py = slf.py();
            py.import("oxtensor.tensor.python_elemwise")?
                .call_method1("install", (slf,))?;
        }
        Ok(())
    }

    /// `infer_shape`: a built-in's core rule, or for a Python scalar op's
    /// `Elemwise` the broadcast of its inputs' shapes (`python_elemwise.py`).
    #[getter]
    fn infer_shape<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        if slf.borrow().host.is_none() {
            return PyOp::infer_shape(slf.as_super());
        }
        slf.py()
            .import("oxtensor.tensor.python_elemwise")?
            .call_method1("infer_shape_of", (slf,))
    }

    /// A Python scalar op's `Elemwise` hashes as its scalar op (its
    /// `inplace_pattern`, a dict, cannot be hashed); built-ins as any op.
    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        PyOp::__eq__(slf.as_super(), other)
    }

    fn __hash__(slf: &Bound<'_, Self>) -> PyResult<isize> {
        match &slf.borrow().host {
            Some(h) => (slf.get_type(), h.bind(slf.py()))
                .into_pyobject(slf.py())?
                .hash(),
            None => PyOp::__hash__(slf.as_super()),
        }
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(h) = &self.host {
            visit.call(h)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.host = None;
    }

    /// The scalar op mapped over the tensors.
    #[getter]
    fn scalar_op(slf: PyRef<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(h) = &slf.host {
            return Ok(h.clone_ref(py));
        }
        scalar::instance(py, core_of::<Elemwise>(slf.as_super())?.scalar_op.clone())
    }

    /// `{output: input}` pairs computed in place.
    #[getter]
    fn inplace_pattern<'py>(slf: PyRef<'_, Self>, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        Self::inplace_pairs(&slf)?.into_py_dict(py)
    }

    /// `{output: [input]}`, from the inplace pattern.
    #[getter]
    fn destroy_map<'py>(slf: PyRef<'_, Self>, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let pairs = Self::inplace_pairs(&slf)?;
        pairs
            .into_iter()
            .map(|(o, i)| (o, vec![i]))
            .into_py_dict(py)
    }

    /// The name given at construction, if any.
    #[getter]
    fn name(&self) -> Option<String> {
        self.name.clone()
    }

    fn __str__(slf: PyRef<'_, Self>) -> PyResult<String> {
        if let (None, Some(h)) = (&slf.name, &slf.host) {
            let s = h.bind(slf.py()).str()?.to_string();
            return Ok(oxtensor_core::ops::elemwise::capitalize(&s));
        }
        match &slf.name {
            Some(n) => Ok(n.clone()),
            None => Ok(oxtensor_core::ops::Op::describe(core_of::<Elemwise>(
                slf.as_super(),
            )?)),
        }
    }
}

/// Plain `Elemwise` instances, one per scalar op. FxHash: consulted for
/// every node a user builds.
static SHARED: InstanceCache<ScalarOp> = PyOnceLock::new();

/// The Python object of an `Elemwise`; plain ones are shared (the op is
/// immutable).
pub fn object(py: Python<'_>, core: &OpRef) -> PyResult<Py<PyAny>> {
    let e = core_op::<Elemwise>(core)?;
    let make = || {
        let init = PyOp::builtin(core.clone()).add_subclass(PyElemwise {
            name: None,
            host: None,
        });
        Ok(Py::new(py, init)?.into_any())
    };
    // A composite is one fused node's: cached, it would outlive it.
    let composite = matches!(e.scalar_op, ScalarOp::Composite(_) | ScalarOp::Loop(_));
    if e.inplace_pattern.is_empty() && !composite {
        cached(py, &SHARED, &e.scalar_op, make)
    } else {
        make()
    }
}

/// `oxtensor._core.elemwise_op(scalar_op)`: the shared `Elemwise` of a scalar op.
#[pyfunction]
pub fn elemwise_op(py: Python<'_>, scalar_op: Bound<'_, PyScalarOp>) -> PyResult<Py<PyAny>> {
    let core: OpRef = Arc::new(Elemwise::new(scalar_op.borrow().core_op()?.clone()));
    op_object(py, &core)
}
