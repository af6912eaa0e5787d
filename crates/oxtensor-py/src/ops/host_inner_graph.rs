//! The inner graph of an op written in Python (PyTensor's `HasInnerGraph`:
//! `OpFromGraph`, `Scan`), imported for the core's `debugprint`, which
//! shows it under "Inner graphs". Inner inputs print as PyTensor prints
//! them, `i0`, `i1`, ... by position (its inner inputs are
//! `NominalVariable`s, whose `str` is that).

use crate::convert::import::Memo;
use crate::errors::{from_pyerr, to_pyerr};
use crate::ops::host_op::HostOp;
use oxtensor_core::error::Result;
use oxtensor_core::graph::{FunctionGraph, Graph};
use pyo3::prelude::*;

/// The op's inner graph, `None` for an op that has none.
pub fn inner_fgraph(op: &HostOp) -> Option<Result<FunctionGraph>> {
    Python::attach(|py| {
        let obj = op.obj.bind(py);
        match has_inner_graph(obj) {
            Ok(false) => None,
            Ok(true) => Some(import(obj).map_err(from_pyerr)),
            Err(e) => Some(Err(from_pyerr(e))),
        }
    })
}

fn has_inner_graph(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let class = obj
        .py()
        .import("oxtensor.graph.op")?
        .getattr("HasInnerGraph")?;
    obj.is_instance(&class)
}

/// `inner_inputs` → `inner_outputs` as a function graph of its own arena.
fn import(obj: &Bound<'_, PyAny>) -> PyResult<FunctionGraph> {
    let mut g = Graph::new();
    let mut memo = Memo::default();
    let inputs = memo.import_vars(&mut g, &obj.getattr("inner_inputs")?)?;
    let outputs = memo.import_vars(&mut g, &obj.getattr("inner_outputs")?)?;
    for (k, &v) in inputs.iter().enumerate() {
        g.set_name(v, Some(format!("i{k}").as_str()));
    }
    FunctionGraph::new(g, inputs, outputs).map_err(to_pyerr)
}
