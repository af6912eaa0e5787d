//! `vectorize_graph` and `vectorize_node` over the core's
//! (`build/vectorize/`): the Python graph is imported into an arena, the
//! core rebuilds it, and the new nodes come back as Python objects. Python
//! ops are first offered to the host rule (`_vectorize_node`'s registered
//! functions), called back through [`PyVectorizeHost`].

use crate::convert::export::{export_var, export_vars};
use crate::convert::import::Memo;
use crate::errors::{from_pyerr, panics, to_pyerr};
use crate::ops::host_op::HostOp;
use oxtensor_core::build::vectorize::{vectorize_graph, vectorize_node, VectorizeHost};
use oxtensor_core::error::{Error, Result};
use oxtensor_core::graph::{Graph, NodeId, VarId};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// Offers Python ops to the host rule: `rule(op, node, *inputs)` returns
/// the new outputs, or `None` for the core's `Blockwise` fallback.
struct PyVectorizeHost<'a, 'py> {
    py: Python<'py>,
    memo: &'a mut Memo,
    rule: Option<Bound<'py, PyAny>>,
}

impl PyVectorizeHost<'_, '_> {
    fn call(
        &mut self,
        g: &mut Graph,
        node: NodeId,
        inputs: &[VarId],
    ) -> PyResult<Option<Vec<VarId>>> {
        let Some(rule) = self.rule.clone() else {
            return Ok(None);
        };
        let Some(op) = g.node(node).op.as_any().downcast_ref::<HostOp>() else {
            return Ok(None);
        };
        let op = op.obj.bind(self.py).clone();
        let node_obj = self.memo.node(self.py, node)?;
        let mut args = vec![op, node_obj];
        args.extend(export_vars(self.py, g, self.memo, inputs)?.iter());
        let outs = rule.call1(PyTuple::new(self.py, args)?)?;
        if outs.is_none() {
            return Ok(None);
        }
        self.memo.import_vars(g, &outs).map(Some)
    }
}

impl VectorizeHost for PyVectorizeHost<'_, '_> {
    fn vectorize_node(
        &mut self,
        g: &mut Graph,
        node: NodeId,
        inputs: &[VarId],
    ) -> Result<Option<Vec<VarId>>> {
        self.call(g, node, inputs).map_err(from_pyerr)
    }
}

/// Runs `f` with the host rule behind a [`PyVectorizeHost`], panics and
/// core errors mapped to Python exceptions.
fn with_host<'py, T>(
    py: Python<'py>,
    memo: &mut Memo,
    rule: Option<Bound<'py, PyAny>>,
    f: impl FnOnce(&mut PyVectorizeHost<'_, 'py>) -> Result<T>,
) -> PyResult<T> {
    let mut host = PyVectorizeHost { py, memo, rule };
    panics::guard(|| f(&mut host).map_err(to_pyerr))
}

/// The core of `vectorize_graph`: a list of outputs, `(old, new)` pairs and
/// the host rule; the rebuilt outputs.
#[pyfunction]
#[pyo3(signature = (outputs, replace, host_rule = None))]
pub fn _vectorize_graph<'py>(
    py: Python<'py>,
    outputs: Vec<Bound<'py, PyAny>>,
    replace: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    host_rule: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut g = Graph::new();
    let mut memo = Memo::default();
    let outs = outputs
        .iter()
        .map(|v| memo.import_var(&mut g, v))
        .collect::<PyResult<Vec<_>>>()?;
    let pairs = replace
        .iter()
        .map(|(o, n)| Ok((memo.import_var(&mut g, o)?, memo.import_var(&mut g, n)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let result = with_host(py, &mut memo, host_rule, |host| {
        vectorize_graph(&mut g, &outs, &pairs, Some(host))
    })?;
    export_vars(py, &g, &mut memo, &result)
}

/// The core of `vectorize_node`: `node` rebuilt on the batched `inputs`;
/// the new outputs.
#[pyfunction]
#[pyo3(signature = (node, inputs, host_rule = None))]
pub fn _vectorize_node<'py>(
    py: Python<'py>,
    node: Bound<'py, PyAny>,
    inputs: Vec<Bound<'py, PyAny>>,
    host_rule: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut g = Graph::new();
    let mut memo = Memo::default();
    memo.import_vars(&mut g, &node.getattr("outputs")?)?;
    let id = memo.node_id(&node).ok_or_else(|| {
        to_pyerr(Error::Value(
            "vectorize_node: the node could not be imported".into(),
        ))
    })?;
    let ins = inputs
        .iter()
        .map(|v| memo.import_var(&mut g, v))
        .collect::<PyResult<Vec<_>>>()?;
    let result = with_host(py, &mut memo, host_rule, |host| {
        vectorize_node(&mut g, id, &ins, Some(host))
    })?;
    let objs = result
        .iter()
        .map(|&v| export_var(py, &g, &mut memo, v))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, objs)
}
