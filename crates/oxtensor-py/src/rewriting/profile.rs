//! `RewriteProfile`: what a rewrite run did (PyTensor's `print_profile`),
//! from Python: per rewriter, calls, applications, failures and time; per
//! pass, time and effect.

use oxtensor_core::rewrite::RewriteProfile;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The figures of a rewrite run.
#[pyclass(
    module = "oxtensor.graph.rewriting.basic",
    name = "RewriteProfile",
    frozen
)]
pub struct PyRewriteProfile {
    inner: RewriteProfile,
}

impl From<RewriteProfile> for PyRewriteProfile {
    fn from(inner: RewriteProfile) -> Self {
        PyRewriteProfile { inner }
    }
}

#[pymethods]
impl PyRewriteProfile {
    /// `{rewriter name: {"calls", "applied", "failed", "time"}}`.
    #[getter]
    fn rewriters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, st) in &self.inner.rewriters {
            let row = PyDict::new(py);
            row.set_item("calls", st.calls)?;
            row.set_item("applied", st.applied)?;
            row.set_item("failed", st.failed)?;
            row.set_item("time", st.time.as_secs_f64())?;
            d.set_item(name, row)?;
        }
        Ok(d)
    }

    /// `[(pass name, seconds, changed, nodes after), ...]` in run order.
    #[getter]
    fn passes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = self.inner.passes.iter().map(|p| {
            (
                p.name.clone(),
                p.time.as_secs_f64(),
                p.changed,
                p.nodes_after,
            )
        });
        PyList::new(py, rows)
    }

    /// A printable table.
    fn summary(&self) -> String {
        self.inner.summary()
    }

    fn __str__(&self) -> String {
        self.inner.summary()
    }
}
