//! Copies of a `FunctionGraph` (`clone`, `clone_get_equiv`), its printout,
//! and linking it for the VM.

use super::PyFunctionGraph;
use crate::errors::IntoPyResult;
use oxtensor_core::graph::NodeId;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

#[pymethods]
impl PyFunctionGraph {
    /// A copy of this graph with cloned variables and nodes, and `equiv`
    /// mapping each old variable and node to its copy.
    #[pyo3(signature = (check_integrity = true, attach_feature = true))]
    pub(crate) fn clone_get_equiv<'py>(
        slf: &Bound<'py, Self>,
        check_integrity: bool,
        attach_feature: bool,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let py = slf.py();
        let (inputs, outputs) = (
            slf.getattr("inputs")?.cast_into::<PyList>()?,
            slf.getattr("outputs")?.cast_into::<PyList>()?,
        );
        let equiv = crate::graph::utils::clone_get_equiv(&inputs, &outputs, true, true, None)?;
        let copies = |vars: &Bound<'py, PyList>| -> PyResult<Bound<'py, PyList>> {
            let copied = vars.iter().map(|v| crate::graph::utils::lookup(&equiv, &v));
            PyList::new(py, copied.collect::<PyResult<Vec<_>>>()?)
        };
        let (new_in, new_out) = (copies(&inputs)?, copies(&outputs)?);
        let kwargs = PyDict::new(py);
        kwargs.set_item("clone", false)?;
        let new_fg = slf.get_type().call((new_in, new_out), Some(&kwargs))?;
        if check_integrity {
            new_fg.call_method0("check_integrity")?;
        }
        if attach_feature {
            for f in slf
                .borrow()
                .features
                .iter()
                .map(|f| f.clone_ref(py))
                .collect::<Vec<_>>()
            {
                let f = f.bind(py);
                let copy = if f.hasattr("clone")? {
                    f.call_method0("clone")?
                } else {
                    f.clone()
                };
                new_fg.call_method1("attach_feature", (copy,))?;
            }
        }
        Ok((new_fg, equiv))
    }

    /// A copy of this graph (see `clone_get_equiv`).
    #[pyo3(signature = (check_integrity = true))]
    pub(crate) fn clone<'py>(
        slf: &Bound<'py, Self>,
        check_integrity: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        Ok(Self::clone_get_equiv(slf, check_integrity, true)?.0)
    }

    /// `debugprint(self, **kwargs)`.
    #[pyo3(signature = (**kwargs))]
    pub(crate) fn dprint<'py>(
        slf: &Bound<'py, Self>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::graph::print::dprint_method(slf.as_any(), kwargs)
    }
}

impl PyFunctionGraph {
    /// Links the graph for the VM: Python ops get host thunks, built-in ops
    /// run natively.
    pub fn link(
        &self,
        py: Python<'_>,
        opts: &oxtensor_core::vm::LinkOptions,
    ) -> PyResult<oxtensor_core::vm::Program> {
        let fg = self.core()?;
        let debug = opts.checker.as_ref().is_some_and(|c| c.debug_host());
        let thunks = self.host_thunks(py, fg, debug)?;
        crate::errors::panics::guard(|| oxtensor_core::vm::Program::link(fg, thunks, opts).py())
    }

    /// Host thunks for the Python ops of `fg`, a graph over this one's
    /// arena (this graph, or one made from its arena: DebugMode's witness).
    pub fn host_thunks(
        &self,
        py: Python<'_>,
        fg: &oxtensor_core::graph::FunctionGraph,
        debug: bool,
    ) -> PyResult<std::collections::HashMap<NodeId, Box<dyn oxtensor_core::vm::Thunk>>> {
        let mut thunks: std::collections::HashMap<NodeId, Box<dyn oxtensor_core::vm::Thunk>> =
            std::collections::HashMap::new();
        for n in fg.apply_nodes() {
            if fg
                .graph()
                .node(n)
                .op
                .as_any()
                .is::<crate::ops::host_op::HostOp>()
            {
                thunks.insert(
                    n,
                    crate::ops::host_thunk::host_thunk(&self.memo.node(py, n)?, debug)?,
                );
            }
        }
        Ok(thunks)
    }
}
