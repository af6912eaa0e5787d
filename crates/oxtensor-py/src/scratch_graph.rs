//! A scratch arena for the core's graph builders (`build::variance`, the
//! NumPy index parser): the Python variables they start from go in as
//! leaves, the core builds on top of them, and the new nodes come back as
//! Python objects (the memo maps the leaves back to the very objects given).

use crate::convert::export::export_var;
use crate::convert::import::Memo;
use crate::graph::types::core_type;
use crate::graph::variable::PyVariable;
use oxtensor_core::graph::{Graph, VarId};
use pyo3::prelude::*;

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

    /// The Python object of `v`, creating the nodes it needs.
    pub fn export<'py>(&mut self, py: Python<'py>, v: VarId) -> PyResult<Bound<'py, PyAny>> {
        export_var(py, &self.g, &mut self.memo, v)
    }
}
