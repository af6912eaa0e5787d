//! `FunctionGraph.freeze()`: the graph as a `FrozenFunctionGraph` (a
//! Python class, `oxtensor.graph.fg`, registered at import).

use super::PyFunctionGraph;
use crate::registry;
use pyo3::prelude::*;

#[pymethods]
impl PyFunctionGraph {
    /// An immutable, hashable copy of this graph over nominal inputs.
    fn freeze<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let frozen = registry::registered(slf.py(), "FrozenFunctionGraph")?;
        frozen.call1((slf.getattr("inputs")?, slf.getattr("outputs")?))
    }
}
