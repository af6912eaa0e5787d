//! `ScalarLoop` (`oxtensor.scalar.loop`): a scalar step repeated per
//! element, built from scalar variables as PyTensor's is
//! (`ScalarLoop(init, update, constant=None, until=None)`); the core's
//! `ScalarLoop` holds the step and the loop kernel runs it.

use crate::errors::IntoPyResult;
use crate::graph::fgraph::PyFunctionGraph;
use crate::graph::types::core_type;
use crate::ops::scalar::PyScalarOp;
use crate::ops::scalar_node::{as_scalar, scalar_op_node};
use oxtensor_core::graph::FunctionGraph;
use oxtensor_core::ops::OpRef;
use oxtensor_core::scalar::scalar_loop::ScalarLoop;
use oxtensor_core::scalar::ScalarOp;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use pyo3::PyTraverseError;
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// A scalar op's inner graph as a Python `FunctionGraph`, made on first
/// use and kept, so `op.fgraph is op.fgraph` and `op.inputs` are the
/// variables `op.outputs` are computed from (`Composite`, `ScalarLoop`).
#[derive(Default)]
pub struct InnerFgraph(Mutex<Option<Py<PyFunctionGraph>>>);

impl InnerFgraph {
    /// The graph, made from `core` the first time.
    pub fn get<'py>(
        &self,
        py: Python<'py>,
        core: impl FnOnce() -> oxtensor_core::error::Result<FunctionGraph>,
    ) -> PyResult<Bound<'py, PyFunctionGraph>> {
        let mut made = self
            .0
            .lock()
            .map_err(|_| PyRuntimeError::new_err("inner fgraph cache poisoned"))?;
        if let Some(fg) = made.as_ref() {
            return Ok(fg.bind(py).clone());
        }
        let mut core = core().py()?;
        let (fg, log) = PyFunctionGraph::shell(py, Default::default())?;
        core.attach_feature(log).py()?;
        PyFunctionGraph::adopt(&fg, core)?;
        *made = Some(fg.clone().unbind());
        Ok(fg)
    }

    /// For the holder's `__traverse__`.
    pub fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Ok(made) = self.0.try_lock() {
            if let Some(fg) = made.as_ref() {
                visit.call(fg)?;
            }
        }
        Ok(())
    }

    /// For the holder's `__clear__`.
    pub fn clear(&mut self) {
        if let Ok(made) = self.0.get_mut() {
            made.take();
        }
    }
}

/// What a holder of an `InnerFgraph` field `fgraph` (with an `fgraph`
/// getter giving its graph) has: `inputs` and `outputs` of that graph, and
/// the GC's hooks for it. The docs say what the inputs and outputs are.
macro_rules! inner_fgraph_methods {
    ($py:ty, $inputs_doc:literal, $outputs_doc:literal) => {
        #[pymethods]
        impl $py {
            #[doc = $inputs_doc]
            #[getter]
            fn inputs<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                Self::fgraph(slf)?.getattr("inputs")
            }

            #[doc = $outputs_doc]
            #[getter]
            fn outputs<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                Self::fgraph(slf)?.getattr("outputs")
            }

            fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
                self.fgraph.traverse(&visit)
            }

            fn __clear__(&mut self) {
                self.fgraph.clear();
            }
        }
    };
}
pub(crate) use inner_fgraph_methods;

/// `ScalarLoop(init, update, constant=None, until=None, name="ScalarLoop")`.
#[pyclass(extends = PyScalarOp, subclass, module = "oxtensor.scalar.loop", name = "ScalarLoop")]
pub struct PyScalarLoop {
    fgraph: InnerFgraph,
}

inner_fgraph_methods!(
    PyScalarLoop,
    "The step's inputs (the states, then the constants).",
    "The step's outputs (the updates, then `until`)."
);

/// The Python object of a core loop.
pub fn create(py: Python<'_>, op: ScalarOp) -> PyResult<Py<PyAny>> {
    let init = PyScalarOp::init(op).add_subclass(PyScalarLoop {
        fgraph: InnerFgraph::default(),
    });
    Ok(Py::new(py, init)?.into_any())
}

/// The types of `vars`, as a tuple.
fn types_of<'py>(vars: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let types = vars
        .try_iter()?
        .map(|v| v?.getattr("type"))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(vars.py(), types)
}

fn core_loop(slf: &Bound<'_, PyScalarLoop>) -> PyResult<Arc<ScalarLoop>> {
    match &slf.as_super().borrow().op {
        Some(ScalarOp::Loop(l)) => Ok(l.clone()),
        _ => Err(PyTypeError::new_err("not a ScalarLoop")),
    }
}

#[pymethods]
impl PyScalarLoop {
    /// The loop updating each of `init` (scalar variables) to its `update`
    /// (scalar expressions of `init` and `constant`) per step, stopping
    /// early where `until` (a bool scalar expression) holds.
    #[new]
    #[pyo3(signature = (init, update, constant = None, until = None, name = "ScalarLoop"))]
    fn new(
        py: Python<'_>,
        init: Vec<Bound<'_, PyAny>>,
        update: Vec<Bound<'_, PyAny>>,
        constant: Option<Vec<Bound<'_, PyAny>>>,
        until: Option<Bound<'_, PyAny>>,
        name: &str,
    ) -> PyResult<PyClassInitializer<Self>> {
        if init.len() != update.len() {
            return Err(PyValueError::new_err(format!(
                "An update must be given for each init variable (got {} init and {} update)",
                init.len(),
                update.len()
            )));
        }
        let n_update = init.len();
        let is_while = until.is_some();
        let inputs: Vec<_> = init
            .into_iter()
            .chain(constant.unwrap_or_default())
            .collect();
        let outputs: Vec<_> = update.into_iter().chain(until).collect();
        let fg = py
            .get_type::<PyFunctionGraph>()
            .call1((PyList::new(py, inputs)?, PyList::new(py, outputs)?))?
            .cast_into::<PyFunctionGraph>()?;
        let l = ScalarLoop::from_fgraph(fg.borrow().core()?, n_update, is_while, name).py()?;
        Ok(
            PyScalarOp::init(ScalarOp::Loop(Arc::new(l))).add_subclass(PyScalarLoop {
                fgraph: InnerFgraph::default(),
            }),
        )
    }

    /// The step as a scalar graph: inputs `i0, i1, ...` (the states, then
    /// the constants), outputs the updates (then `until`).
    #[getter]
    fn fgraph<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyFunctionGraph>> {
        let l = core_loop(slf)?;
        slf.borrow().fgraph.get(slf.py(), || l.fgraph())
    }

    /// Whether the loop stops where `until` holds (it has a `done` output).
    #[getter]
    fn is_while(slf: &Bound<'_, Self>) -> PyResult<bool> {
        Ok(core_loop(slf)?.is_while())
    }

    /// The types of the inputs of the step (not `n_steps`).
    #[getter]
    fn inputs_type<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        types_of(&Self::inputs(slf)?)
    }

    /// The output types.
    #[getter]
    fn outputs_type<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        types_of(&Self::outputs(slf)?)
    }

    /// An equal loop (a new object).
    fn clone(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        create(slf.py(), ScalarOp::Loop(core_loop(slf)?))
    }

    /// The node on `n_steps` (a signed integer) and the states' and
    /// constants' values; on other dtypes than the loop's own, the node of
    /// the loop rebuilt for them, as PyTensor's.
    #[pyo3(signature = (n_steps, *inputs))]
    fn make_node<'py>(
        slf: &Bound<'py, Self>,
        n_steps: Bound<'py, PyAny>,
        inputs: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let l = core_loop(slf)?;
        let mut all = vec![as_scalar(n_steps)?];
        for i in inputs.iter() {
            all.push(as_scalar(i)?);
        }
        let dtypes = all
            .iter()
            .map(|v| {
                let ty = core_type(&v.getattr("type")?)?;
                ty.as_scalar()
                    .ok_or_else(|| PyTypeError::new_err(format!("{ty} is not a scalar type")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let args = PyTuple::new(py, &all)?;
        match l.for_dtypes(&dtypes).py()? {
            Cow::Borrowed(_) => {
                let core: OpRef = Arc::new(ScalarOp::Loop(l.clone()));
                scalar_op_node(slf.as_any(), &core, &args)
            }
            Cow::Owned(rebuilt) => {
                let op = ScalarOp::Loop(Arc::new(rebuilt));
                let core: OpRef = Arc::new(op.clone());
                let obj = create(py, op)?;
                scalar_op_node(obj.bind(py), &core, &args)
            }
        }
    }
}
