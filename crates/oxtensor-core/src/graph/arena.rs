//! The arena: every variable and apply node of a graph in two vectors,
//! addressed by [`VarId`] and [`NodeId`]. Nothing is ever removed, so ids
//! stay valid; a [`super::FunctionGraph`] tracks which are in use.

use super::ids::{NodeId, VarId};
use crate::error::{Error, Result};
use crate::ops::{Op, OpRef};
use crate::tensor::{format_tensor, Tensor};
use crate::types::Type;
pub use crate::value::{HostValue, Value};

/// A constant: its value and how it prints.
#[derive(Clone, Debug)]
pub struct Constant {
    /// The value.
    pub value: Value,
    /// The text `str(constant)` shows (NumPy's `str` of the data).
    pub display: String,
}

impl Constant {
    /// A tensor constant, printed as NumPy prints it.
    pub fn tensor(value: Tensor) -> Self {
        let display = format_tensor(&value);
        Constant {
            value: Value::Tensor(value),
            display,
        }
    }

    /// Whether two constants hold the same value (`signature` equality).
    pub fn same_value(&self, other: &Constant) -> bool {
        match (&self.value, &other.value) {
            (Value::Tensor(a), Value::Tensor(b)) => a.same_values(b),
            (Value::Host(a), Value::Host(b)) => a.host_eq(b.as_ref()),
            _ => false,
        }
    }
}

/// What a variable is.
#[derive(Clone, Debug)]
pub enum VarKind {
    /// A free variable (a graph input).
    Root,
    /// A constant.
    Constant(Constant),
    /// Output `index` of `node`.
    Output {
        /// The producing node.
        node: NodeId,
        /// Its position in the node's outputs.
        index: usize,
    },
}

/// A variable.
#[derive(Clone, Debug)]
pub struct VarData {
    /// Its type.
    pub ty: Type,
    /// Its name, if any.
    pub name: Option<String>,
    /// Root, constant or node output.
    pub kind: VarKind,
    /// `tag.indestructible`: no inplace op may overwrite it.
    pub indestructible: bool,
    /// A free variable that stands for itself (PyTensor's
    /// `NominalVariable`): like a constant, a graph may hold it without
    /// declaring it as an input.
    pub atomic: bool,
}

impl VarData {
    /// The producing node, if any.
    pub fn owner(&self) -> Option<NodeId> {
        match self.kind {
            VarKind::Output { node, .. } => Some(node),
            _ => None,
        }
    }

    /// The constant, if this is one.
    pub fn constant(&self) -> Option<&Constant> {
        match &self.kind {
            VarKind::Constant(c) => Some(c),
            _ => None,
        }
    }

    /// Constants are atomic: never graph inputs, never cloned.
    pub fn is_constant(&self) -> bool {
        matches!(self.kind, VarKind::Constant(_))
    }

    /// A constant or an atomic free variable: never a required input.
    pub fn is_atomic(&self) -> bool {
        self.atomic || self.is_constant()
    }
}

/// An apply node: an op applied to input variables, producing outputs.
#[derive(Clone, Debug)]
pub struct Node {
    /// The op.
    pub op: OpRef,
    /// Inputs, in order.
    pub inputs: Vec<VarId>,
    /// Outputs, in order.
    pub outputs: Vec<VarId>,
}

/// The arena of a graph.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    vars: Vec<VarData>,
    nodes: Vec<Node>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a free variable.
    pub fn input(&mut self, ty: impl Into<Type>, name: Option<&str>) -> VarId {
        self.push_var(VarData {
            ty: ty.into(),
            name: name.map(str::to_owned),
            kind: VarKind::Root,
            indestructible: false,
            atomic: false,
        })
    }

    /// Adds a constant.
    pub fn constant(
        &mut self,
        ty: impl Into<Type>,
        constant: Constant,
        name: Option<&str>,
    ) -> VarId {
        self.push_var(VarData {
            ty: ty.into(),
            name: name.map(str::to_owned),
            kind: VarKind::Constant(constant),
            indestructible: false,
            atomic: false,
        })
    }

    /// Adds a tensor constant whose type is the value's dtype and full shape.
    pub fn tensor_constant(&mut self, value: Tensor) -> VarId {
        let ty = crate::types::TensorType::new(
            value.dtype(),
            value.shape().iter().map(|&d| Some(d as u64)),
        )
        .expect("a tensor's rank is within NumPy's limit");
        self.constant(ty, Constant::tensor(value), None)
    }

    /// Adds a node with outputs of the given types (no inference).
    pub fn add_node(
        &mut self,
        op: OpRef,
        inputs: Vec<VarId>,
        output_types: Vec<Type>,
    ) -> Result<NodeId> {
        if let Some(bad) = inputs.iter().find(|v| v.index() >= self.vars.len()) {
            return Err(Error::Index(format!(
                "variable {bad:?} is not in this graph"
            )));
        }
        let id = NodeId(self.nodes.len() as u32);
        let outputs = output_types
            .into_iter()
            .enumerate()
            .map(|(index, ty)| {
                self.push_var(VarData {
                    ty,
                    name: None,
                    kind: VarKind::Output { node: id, index },
                    indestructible: false,
                    atomic: false,
                })
            })
            .collect();
        self.nodes.push(Node {
            op,
            inputs,
            outputs,
        });
        Ok(id)
    }

    /// Applies an op, inferring output types with the op's `output_types`.
    pub fn apply(&mut self, op: OpRef, inputs: &[VarId]) -> Result<NodeId> {
        let types: Vec<&Type> = inputs
            .iter()
            .map(|v| self.try_var(*v).map(|d| &d.ty))
            .collect::<Result<_>>()?;
        let out = op
            .output_types(&types)
            .map_err(|e| e.at_node(self.describe_call(op.as_ref(), inputs)))?;
        self.add_node(op, inputs.to_vec(), out)
    }

    /// Applies an op and returns its default output (or its only output).
    pub fn apply_out(&mut self, op: OpRef, inputs: &[VarId]) -> Result<VarId> {
        let node = self.apply(op, inputs)?;
        self.default_output(node)
    }

    /// The output `__call__` returns: `default_output`, else the only one.
    pub fn default_output(&self, node: NodeId) -> Result<VarId> {
        let n = self.node(node);
        match (n.op.default_output(), n.outputs.as_slice()) {
            (Some(i), outs) => outs.get(i).copied().ok_or_else(|| {
                Error::Index(format!("default_output {i} of {} is out of range", n.op))
            }),
            (None, [one]) => Ok(*one),
            (None, _) => Err(Error::Value(format!(
                "Multi-output Op {} default_output not specified",
                n.op
            ))),
        }
    }

    fn push_var(&mut self, data: VarData) -> VarId {
        self.vars.push(data);
        VarId(self.vars.len() as u32 - 1)
    }

    /// A variable; panics on an id from another graph (an internal bug).
    pub fn var(&self, id: VarId) -> &VarData {
        &self.vars[id.index()]
    }

    /// A variable, or an `IndexError` for an id that is not in this graph.
    pub fn try_var(&self, id: VarId) -> Result<&VarData> {
        self.vars
            .get(id.index())
            .ok_or_else(|| Error::Index(format!("variable {id:?} is not in this graph")))
    }

    /// A variable, mutably.
    pub fn var_mut(&mut self, id: VarId) -> &mut VarData {
        &mut self.vars[id.index()]
    }

    /// A node; panics on an id from another graph (an internal bug).
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// A node, mutably (for the function graph's input changes).
    pub(crate) fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }

    /// Number of variables ever added.
    pub fn num_vars(&self) -> usize {
        self.vars.len()
    }

    /// Number of nodes ever added.
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Sets a variable's name.
    pub fn set_name(&mut self, id: VarId, name: Option<&str>) {
        self.vars[id.index()].name = name.map(str::to_owned);
    }

    /// PyTensor's `str(variable)`: its name; else `op.out` / `op.k` for a
    /// node output; else the constant's data; else `<type>`.
    pub fn describe_var(&self, id: VarId) -> String {
        let v = self.var(id);
        if let Some(name) = &v.name {
            return name.clone();
        }
        match &v.kind {
            VarKind::Output { node, index } => {
                let op = &self.node(*node).op;
                if op.default_output() == Some(*index) {
                    format!("{op}.out")
                } else {
                    format!("{op}.{index}")
                }
            }
            VarKind::Constant(c) => shorten_constant(&c.display),
            VarKind::Root => format!("<{}>", v.ty),
        }
    }

    /// PyTensor's `str(apply)`: `Add(x, ExpandDims{axis=0}.0)`.
    pub fn describe_node(&self, id: NodeId) -> String {
        let n = self.node(id);
        self.describe_call(n.op.as_ref(), &n.inputs)
    }

    fn describe_call(&self, op: &dyn Op, inputs: &[VarId]) -> String {
        let args: Vec<String> = inputs.iter().map(|v| self.describe_var(*v)).collect();
        format!("{op}({})", args.join(", "))
    }
}

/// The constant rule: newlines dropped, and more than 20 characters become
/// the first ten, ` ... `, and the last ten, each trimmed.
pub fn shorten_constant(text: &str) -> String {
    let flat: String = text.chars().filter(|&c| c != '\n').collect();
    let chars: Vec<char> = flat.chars().collect();
    if chars.len() > 20 {
        let head: String = chars[..10].iter().collect();
        let tail: String = chars[chars.len() - 10..].iter().collect();
        format!("{} ... {}", head.trim(), tail.trim())
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::graph::testing::x_and_constant;
    use crate::ops::elemwise::Elemwise;
    use crate::scalar::ScalarKind;
    use crate::types::TensorType;
    use std::sync::Arc;

    #[test]
    fn build_and_describe() {
        let (mut g, x, c) = x_and_constant(2.0);
        assert_eq!(g.describe_var(c), "2.0");
        let y = g.input(TensorType::with_ndim(DType::Float64, 1), None);
        assert_eq!(g.describe_var(y), "<Vector(float64, shape=(?,))>");
        let add = g
            .apply(Arc::new(Elemwise::new(ScalarKind::Add)), &[x, y])
            .unwrap();
        let out = g.default_output(add).unwrap();
        assert_eq!(g.describe_var(out), "Add.0");
        assert_eq!(
            g.describe_node(add),
            "Add(x, <Vector(float64, shape=(?,))>)"
        );
        let bad = g
            .apply(Arc::new(Elemwise::new(ScalarKind::Add)), &[x, c])
            .unwrap_err();
        assert!(
            bad.to_string()
                .contains("Apply node that caused the error: Add(x, 2.0)"),
            "{bad}"
        );
    }

    #[test]
    fn shorten_long_constants() {
        assert_eq!(
            shorten_constant("[0 1 2 3 4 5 6 7 8 9 10 11]"),
            "[0 1 2 3 4 ... 8 9 10 11]"
        );
        assert_eq!(shorten_constant("[1.\n 2.]"), "[1. 2.]");
    }
}
