//! A scratch arena for the core's graph builders (`build::variance`, the
//! NumPy index parser): the Python variables they start from go in as
//! leaves, the core builds on top of them, and the new nodes come back as
//! Python objects (the memo maps the leaves back to the very objects given).

use crate::convert::export::export_var;
use crate::convert::import::Memo;
use crate::errors::IntoPyResult;
use crate::graph::types::core_type;
use crate::graph::variable::PyVariable;
use crate::ops::op::PyOp;
use oxtensor_core::graph::{Graph, VarId};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// An arena and the memo tying its leaves to Python objects.
#[derive(Default)]
pub struct ScratchGraph {
    /// The arena the core builds in.
    pub g: Graph,
    memo: Memo,
}

impl ScratchGraph {
    /// `var` as a leaf of the arena. A root or a constant is imported as
    /// such (constants keep their values, which static types read); the
    /// output of a node becomes an input of its type, since building on it
    /// needs nothing of the graph behind it.
    pub fn leaf(&mut self, var: &Bound<'_, PyAny>) -> PyResult<VarId> {
        if let Some(id) = self.memo.var_id(var) {
            return Ok(id);
        }
        let v = var.cast::<PyVariable>()?;
        if v.borrow().owner.is_none() {
            return self.memo.import_var(&mut self.g, var);
        }
        let (ty, name) = {
            let this = v.borrow();
            (core_type(&this.ty(var.py()))?, this.name_str(var.py()))
        };
        let id = self.g.input(ty, name.as_deref());
        self.memo.adopt_var(var, id);
        Ok(id)
    }

    /// `var` with the node that made it (one level deep: the node's inputs
    /// are leaves), so the core can read that node's op; a variable no
    /// built-in op made is a [`leaf`](Self::leaf).
    pub fn with_owner(&mut self, var: &Bound<'_, PyAny>) -> PyResult<VarId> {
        if let Some(id) = self.memo.var_id(var) {
            return Ok(id);
        }
        let py = var.py();
        let owner = var
            .cast::<PyVariable>()?
            .borrow()
            .owner
            .as_ref()
            .map(|o| o.bind(py).clone());
        let Some(node) = owner else {
            return self.leaf(var);
        };
        let op = node.getattr("op")?;
        let Some(core) = op.cast::<PyOp>().ok().and_then(|o| o.borrow().core.clone()) else {
            return self.leaf(var);
        };
        let inputs = node.getattr("inputs")?.cast_into::<PyList>()?;
        let inputs = inputs
            .iter()
            .map(|i| self.leaf(&i))
            .collect::<PyResult<Vec<_>>>()?;
        let outputs = node.getattr("outputs")?.cast_into::<PyList>()?;
        let types = outputs
            .iter()
            .map(|o| core_type(&o.cast::<PyVariable>()?.borrow().ty(py)))
            .collect::<PyResult<Vec<_>>>()?;
        let id = self.g.add_node(core, inputs, types).py()?;
        self.memo.adopt_node(&node, id);
        for (o, &out) in outputs.iter().zip(&self.g.node(id).outputs) {
            self.memo.adopt_var(&o, out);
        }
        self.leaf(var)
    }

    /// The Python object of `v`, creating the nodes it needs.
    pub fn export<'py>(&mut self, py: Python<'py>, v: VarId) -> PyResult<Bound<'py, PyAny>> {
        export_var(py, &self.g, &mut self.memo, v)
    }
}
