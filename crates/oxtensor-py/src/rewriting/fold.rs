//! Constant folding of Python ops: the core asks, through the bridge, for
//! the node's `do_constant_folding(fgraph, node)`, then runs the op's own
//! thunk (its `perform`) on the constant inputs, as PyTensor does.

use super::bridge::with_python;
use crate::ops::host_thunk::host_thunk;
use oxtensor_core::error::Result as CoreResult;
use oxtensor_core::graph::{FunctionGraph, NodeId};
use oxtensor_core::kernels::alloc::Pool;
use oxtensor_core::rewrite::HostFolder;
use oxtensor_core::value::Value;
use pyo3::prelude::*;

/// Folds Python ops' nodes for the core.
pub struct PyHostFolder;

impl HostFolder for PyHostFolder {
    fn fold(
        &self,
        fg: &mut FunctionGraph,
        node: NodeId,
        inputs: &[Value],
    ) -> CoreResult<Option<Vec<Value>>> {
        let thunk = Python::attach(|py| {
            with_python(py, fg, |shell| {
                let node_obj = shell.borrow_mut().node_object(py, node)?;
                let op = node_obj.getattr("op")?;
                if op.hasattr("do_constant_folding")?
                    && !op
                        .call_method1("do_constant_folding", (shell, &node_obj))?
                        .is_truthy()?
                {
                    return Ok(None);
                }
                host_thunk(&node_obj, false).map(Some)
            })
        })?;
        let Some(thunk) = thunk else {
            return Ok(None);
        };
        let refs: Vec<&Value> = inputs.iter().collect();
        let mut outs = vec![None; fg.graph().node(node).outputs.len()];
        thunk.run(&refs, &mut outs, &mut Pool::default())?;
        Ok(outs.into_iter().collect())
    }
}
