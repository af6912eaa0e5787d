//! Importing Python graphs into a core arena, and mapping ids back to the
//! Python objects. The memo keeps every imported object alive, so identity
//! (`is`) holds for everything handed back to Python.

use crate::graph::types::core_type;
use crate::graph::variable::PyVariable;
use crate::ops::host_op::HostOp;
use crate::ops::op::PyOp;

use oxtensor_core::graph::{Constant, Graph, NodeId, Value, VarId};
use oxtensor_core::ops::OpRef;
use oxtensor_core::types::Type;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::{PyTraverseError, PyVisit};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

/// Python objects ↔ arena ids.
#[derive(Default)]
pub struct Memo {
    var_ids: HashMap<usize, VarId>,
    node_ids: HashMap<usize, NodeId>,
    vars: Vec<Option<Py<PyAny>>>,
    nodes: Vec<Option<Py<PyAny>>>,
    ops: HashMap<usize, OpRef>,
}

fn key(obj: &Bound<'_, PyAny>) -> usize {
    obj.as_ptr() as usize
}

impl Memo {
    /// The id of an already imported variable.
    pub fn var_id(&self, obj: &Bound<'_, PyAny>) -> Option<VarId> {
        self.var_ids.get(&key(obj)).copied()
    }

    /// The id of an already imported node.
    pub fn node_id(&self, obj: &Bound<'_, PyAny>) -> Option<NodeId> {
        self.node_ids.get(&key(obj)).copied()
    }

    /// The Python object of a variable id.
    pub fn var<'py>(&self, py: Python<'py>, id: VarId) -> PyResult<Bound<'py, PyAny>> {
        match self.vars.get(id.index()).and_then(Option::as_ref) {
            Some(o) => Ok(o.bind(py).clone()),
            None => Err(PyValueError::new_err(format!(
                "variable {id:?} has no Python object"
            ))),
        }
    }

    /// Whether a variable id has a Python object.
    pub fn has_var(&self, id: VarId) -> bool {
        self.vars.get(id.index()).is_some_and(Option::is_some)
    }

    /// Whether a node id has a Python object.
    pub fn has_node(&self, id: NodeId) -> bool {
        self.nodes.get(id.index()).is_some_and(Option::is_some)
    }

    /// The Python object of a node id.
    pub fn node<'py>(&self, py: Python<'py>, id: NodeId) -> PyResult<Bound<'py, PyAny>> {
        match self.nodes.get(id.index()).and_then(Option::as_ref) {
            Some(o) => Ok(o.bind(py).clone()),
            None => Err(PyValueError::new_err(format!(
                "node {id:?} has no Python object"
            ))),
        }
    }

    /// Every imported variable object.
    pub fn all_vars(&self) -> impl Iterator<Item = &Py<PyAny>> {
        self.vars.iter().flatten()
    }

    fn bind_var(&mut self, obj: &Bound<'_, PyAny>, id: VarId) {
        if self.vars.len() <= id.index() {
            self.vars.resize_with(id.index() + 1, || None);
        }
        self.vars[id.index()] = Some(obj.clone().unbind());
        self.var_ids.insert(key(obj), id);
    }

    fn bind_node(&mut self, obj: &Bound<'_, PyAny>, id: NodeId) {
        if self.nodes.len() <= id.index() {
            self.nodes.resize_with(id.index() + 1, || None);
        }
        self.nodes[id.index()] = Some(obj.clone().unbind());
        self.node_ids.insert(key(obj), id);
    }

    /// Imports a list of variables; see [`Memo::import_var`].
    pub fn import_vars(&mut self, g: &mut Graph, vars: &Bound<'_, PyAny>) -> PyResult<Vec<VarId>> {
        vars.try_iter()?.map(|v| self.import_var(g, &v?)).collect()
    }

    /// Imports a variable and everything it is computed from, iteratively
    /// (graphs can be deeper than the Rust stack). A variable met again
    /// while its own inputs are being imported depends on itself: Python
    /// code can build such a cycle by editing `node.inputs`, and it is
    /// refused rather than followed forever.
    pub fn import_var(&mut self, g: &mut Graph, root: &Bound<'_, PyAny>) -> PyResult<VarId> {
        let mut stack: Vec<(Bound<'_, PyAny>, bool)> = vec![(root.clone(), false)];
        let mut expanding: HashSet<usize> = HashSet::default();
        while let Some((var, expanded)) = stack.pop() {
            if self.var_id(&var).is_some() {
                continue;
            }
            if !expanded && expanding.contains(&key(&var)) {
                return Err(PyValueError::new_err(format!(
                    "graph contains cycles: {} depends on itself",
                    var.str()?
                )));
            }
            let v = var.cast::<PyVariable>().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(format!(
                    "Expected a Variable, got {} of type {}",
                    var.repr().map(|r| r.to_string()).unwrap_or_default(),
                    crate::errors::type_name(&var)
                ))
            })?;
            let owner = v.borrow().owner.as_ref().map(|o| o.bind(var.py()).clone());
            match owner {
                None => {
                    let id = self.leaf(g, v)?;
                    self.bind_var(&var, id);
                }
                Some(node) if expanded => self.import_node(g, &node, &var)?,
                Some(node) => {
                    expanding.insert(key(&var));
                    stack.push((var.clone(), true));
                    let inputs = node.getattr("inputs")?.cast_into::<PyList>()?;
                    for inp in inputs.iter().rev() {
                        if self.var_id(&inp).is_none() {
                            stack.push((inp, false));
                        }
                    }
                }
            }
        }
        self.var_id(root)
            .ok_or_else(|| PyValueError::new_err("variable was not imported"))
    }

    /// A root or constant.
    fn leaf(&mut self, g: &mut Graph, v: &Bound<'_, PyVariable>) -> PyResult<VarId> {
        let py = v.py();
        let this = v.borrow();
        let ty = core_type(&this.ty(py))?;
        let name = this.name_str(py);
        let indestructible = match &this.tag {
            Some(t) => t
                .bind(py)
                .getattr("indestructible")
                .map(|b| b.is_truthy().unwrap_or(false))
                .unwrap_or(false),
            None => false,
        };
        let id = match (&this.tensor, &this.data) {
            (Some(t), _) => g.constant(ty.clone(), Constant::tensor(t.clone()), name.as_deref()),
            (None, Some(data)) => g.constant(
                ty.clone(),
                constant_value(data.bind(py), &ty)?,
                name.as_deref(),
            ),
            (None, None) => g.input(ty, name.as_deref()),
        };
        g.var_mut(id).indestructible = indestructible;
        g.var_mut(id).atomic = v.is_instance(nominal_class(py)?)?;
        Ok(id)
    }

    /// A node whose inputs are imported; `var` is one of its outputs.
    fn import_node(
        &mut self,
        g: &mut Graph,
        node: &Bound<'_, PyAny>,
        var: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if self.node_id(node).is_some() {
            return Err(PyValueError::new_err(format!(
                "{} is an output of {} but not among its outputs",
                var.str()?,
                node.str()?
            )));
        }
        let inputs = node.getattr("inputs")?.cast_into::<PyList>()?;
        let outputs = node.getattr("outputs")?.cast_into::<PyList>()?;
        let input_ids: Vec<VarId> = inputs
            .iter()
            .map(|i| {
                self.var_id(&i)
                    .ok_or_else(|| PyValueError::new_err("input not imported"))
            })
            .collect::<PyResult<_>>()?;
        let types: Vec<Type> = outputs
            .iter()
            .map(|o| core_type(&o.getattr("type")?))
            .collect::<PyResult<_>>()?;
        let op = self.core_op(&node.getattr("op")?, inputs.len(), outputs.len())?;
        let id = g
            .add_node(op, input_ids, types)
            .map_err(crate::errors::to_pyerr)?;
        self.bind_node(node, id);
        for (out, &out_id) in outputs.iter().zip(&g.node(id).outputs.clone()) {
            self.bind_var(&out, out_id);
            if let Some(name) = out.cast::<PyVariable>()?.borrow().name_str(out.py()) {
                g.set_name(out_id, Some(&name));
            }
        }
        Ok(())
    }

    /// The core op of a Python op object: a built-in's own, or a host adapter.
    fn core_op(&mut self, op: &Bound<'_, PyAny>, n_in: usize, n_out: usize) -> PyResult<OpRef> {
        if let Ok(o) = op.cast::<PyOp>() {
            if let Some(core) = &o.borrow().core {
                return Ok(core.clone());
            }
        }
        if let Some(existing) = self.ops.get(&key(op)) {
            return Ok(existing.clone());
        }
        let host = HostOp::new(op)?;
        host.check_maps(n_in, n_out)?;
        let host: OpRef = Arc::new(host);
        self.ops.insert(key(op), host.clone());
        Ok(host)
    }

    /// Reports the variables and nodes the memo keeps alive to the cycle
    /// collector: each entry is a strong reference of its own, so a tag
    /// pointing back at the graph does not leak it. The Python ops and types
    /// held by the core (`HostOp`, `HostTypeAdapter`) are not reported: they
    /// sit behind `Arc`s that other owners may share, and a reference
    /// reported twice would corrupt the collector's counts.
    pub fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        for obj in self.vars.iter().chain(&self.nodes).flatten() {
            visit.call(obj)?;
        }
        Ok(())
    }

    /// Registers a Python object for an arena node created by the core.
    pub fn adopt_node(&mut self, obj: &Bound<'_, PyAny>, id: NodeId) {
        self.bind_node(obj, id);
    }

    /// Registers a Python object for an arena variable created by the core.
    pub fn adopt_var(&mut self, obj: &Bound<'_, PyAny>, id: VarId) {
        self.bind_var(obj, id);
    }
}

/// A constant's value for the core: a tensor viewing the (read-only)
/// ndarray, printed by the core; other data stays a host value.
pub(crate) fn constant_value(data: &Bound<'_, PyAny>, ty: &Type) -> PyResult<Constant> {
    if let Type::Tensor(_) = ty {
        return Ok(Constant::tensor(crate::convert::array::tensor_from_array(
            data,
        )?));
    }
    if let Type::Scalar(_) = ty {
        // A scalar constant's NumPy scalar, as the 0-d tensor the core runs.
        let arr = crate::convert::constant::numpy(data.py())?.call_method1("asarray", (data,))?;
        return Ok(Constant::tensor(crate::convert::array::tensor_from_array(
            &arr,
        )?));
    }
    let display = data.str()?.to_string();
    Ok(Constant {
        value: Value::Host(Arc::new(crate::convert::host_value::PyHostValue::new(
            data.clone().unbind(),
        ))),
        display,
    })
}

/// `oxtensor.graph.nominal.NominalVariable`, whose instances import as
/// atomic roots.
fn nominal_class(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static CLASS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    CLASS.import(py, "oxtensor.graph.nominal", "NominalVariable")
}
