//! `Function.profile`: per-node counts and times, as PyTensor's profiler
//! reports them.

use oxtensor_core::vm::Profile;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// A function's profile.
#[pyclass(
    frozen,
    module = "oxtensor.compile.debug.profiling",
    name = "ProfileStats"
)]
pub struct PyProfile {
    inner: Profile,
    name: Option<String>,
    /// The rewrites' table, shown under "Rewriter Profile" when set.
    pub(crate) rewrites: Option<String>,
}

impl PyProfile {
    /// Wraps a core profile.
    pub fn new(inner: Profile, name: Option<String>) -> Self {
        PyProfile {
            inner,
            name,
            rewrites: None,
        }
    }

    fn text(&self) -> String {
        let mut text = self
            .inner
            .summary(self.name.as_deref().unwrap_or("oxtensor function"));
        if let Some(rewrites) = &self.rewrites {
            text.push_str("\nRewriter Profile\n----------------\n");
            text.push_str(rewrites);
        }
        text
    }
}

#[pymethods]
impl PyProfile {
    /// Number of calls.
    #[getter]
    fn calls(&self) -> u64 {
        self.inner.calls
    }

    /// Total seconds spent in calls.
    #[getter]
    fn total_time(&self) -> f64 {
        self.inner.total.as_secs_f64()
    }

    /// `[(node, op class, calls, seconds, is_python), ...]` in toposort order.
    #[getter]
    fn apply_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = self.inner.nodes.iter().map(|n| {
            (
                n.node.clone(),
                n.op_class.clone(),
                n.calls,
                n.time.as_secs_f64(),
                n.host,
            )
        });
        PyList::new(py, rows)
    }

    /// The report as text (sorted by time), also written to `file` (an
    /// object with a `write` method, as PyTensor's `summary(file=...)`)
    /// when one is given.
    #[pyo3(signature = (file = None))]
    fn summary(&self, file: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let text = self.text();
        if let Some(file) = file.filter(|f| !f.is_none()) {
            file.call_method1("write", (text.as_str(),))?;
        }
        Ok(text)
    }

    fn __str__(&self) -> String {
        self.text()
    }
}
