//! `make_py_thunk`'s thunk: a zero-argument callable that runs `perform` on
//! a node's storage cells and marks its outputs computed (the seeds' contract).

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

/// A thunk over one-element storage cells.
#[pyclass(module = "oxtensor.graph.op", name = "Thunk")]
pub struct PyThunk {
    perform: Py<PyAny>,
    node: Py<PyAny>,
    inputs: Py<PyList>,
    outputs: Py<PyList>,
    computed: Option<Py<PyList>>,
}

impl PyThunk {
    /// Binds the cells of `node`'s inputs and outputs from `storage_map`, and
    /// its outputs' `compute_map` cells when a compute map is given.
    pub fn for_node<'py>(
        perform: Bound<'py, PyAny>,
        node: &Bound<'py, PyAny>,
        storage_map: &Bound<'py, PyAny>,
        compute_map: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyThunk>> {
        let py = node.py();
        let cells =
            |vars: Bound<'py, PyAny>, map: &Bound<'py, PyAny>| -> PyResult<Bound<'py, PyList>> {
                let out = PyList::empty(py);
                for v in vars.try_iter()? {
                    out.append(map.get_item(v?)?)?;
                }
                Ok(out)
            };
        let inputs = cells(node.getattr("inputs")?, storage_map)?;
        let outputs = cells(node.getattr("outputs")?, storage_map)?;
        let computed = if compute_map.is_none() {
            None
        } else {
            Some(cells(node.getattr("outputs")?, compute_map)?.unbind())
        };
        Bound::new(
            py,
            PyThunk {
                perform: perform.unbind(),
                node: node.clone().unbind(),
                inputs: inputs.unbind(),
                outputs: outputs.unbind(),
                computed,
            },
        )
    }
}

#[pymethods]
impl PyThunk {
    fn __call__(&self, py: Python<'_>) -> PyResult<()> {
        let values = PyList::empty(py);
        for cell in self.inputs.bind(py).iter() {
            values.append(cell.get_item(0)?)?;
        }
        self.perform
            .bind(py)
            .call1((self.node.bind(py), values, self.outputs.bind(py)))?;
        if let Some(computed) = &self.computed {
            for cell in computed.bind(py).iter() {
                cell.set_item(0, true)?;
            }
        }
        Ok(())
    }

    /// The input storage cells.
    #[getter]
    fn inputs(&self, py: Python<'_>) -> Py<PyList> {
        self.inputs.clone_ref(py)
    }

    /// The output storage cells.
    #[getter]
    fn outputs(&self, py: Python<'_>) -> Py<PyList> {
        self.outputs.clone_ref(py)
    }

    /// The function the thunk calls.
    #[getter]
    fn perform(&self, py: Python<'_>) -> Py<PyAny> {
        self.perform.clone_ref(py)
    }

    /// Python thunks compute everything they are asked for at once.
    #[getter]
    fn lazy(&self) -> bool {
        false
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let args = PyTuple::new(py, [self.node.bind(py)])?;
        Ok(format!("<thunk of {}>", args.get_item(0)?.str()?))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.perform)?;
        visit.call(&self.node)?;
        visit.call(&self.inputs)?;
        visit.call(&self.outputs)?;
        visit.call(&self.computed)
    }
}
