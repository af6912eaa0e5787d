//! A `Composite` and graphs: made from a scalar `FunctionGraph` (nested
//! composites inlined, scalar constants taken in), shown as one
//! (`Composite.fgraph`: inputs `i0, i1, ...`, what `dprint` prints under
//! "Inner graphs"), and spelled out as `Elemwise` nodes over tensors (the
//! gradient of `Elemwise(Composite)` is that graph's).

use crate::build;
use crate::error::{Error, Result};
use crate::graph::{Constant, FunctionGraph, Graph, VarId, VarKind};
use crate::scalar::composite::{Composite, Operand};
use crate::scalar::ScalarOp;
use crate::types::Type;
use crate::value::Value;
use std::collections::HashMap;
use std::sync::Arc;

impl Composite {
    /// The composite computing `fg`'s outputs from its inputs, which must
    /// all be scalars; every node must be a scalar op.
    pub fn from_fgraph(fg: &FunctionGraph) -> Result<Composite> {
        Composite::from_fgraph_of(fg, "Composite")
    }

    /// [`Composite::from_fgraph`], errors naming `owner` (the op whose
    /// graph it is: a `ScalarLoop`'s step is a composite too).
    pub(crate) fn from_fgraph_of(fg: &FunctionGraph, owner: &str) -> Result<Composite> {
        let g = fg.graph();
        let dtypes = fg
            .inputs()
            .iter()
            .map(|&v| scalar_dtype(g, v))
            .collect::<Result<Vec<_>>>()?;
        let mut b = Composite::builder(&dtypes);
        let mut known: HashMap<VarId, Operand> = fg
            .inputs()
            .iter()
            .enumerate()
            .map(|(i, &v)| (v, Operand::Input(i)))
            .collect();
        for n in fg.toposort()? {
            let node = g.node(n);
            let op = node.op.as_any().downcast_ref::<ScalarOp>().ok_or_else(|| {
                Error::Type(format!(
                    "The fgraph of {owner} must be exclusively composed of scalar operations, \
                     got {}",
                    g.describe_node(n)
                ))
            })?;
            if matches!(op, ScalarOp::Loop(_)) && node.outputs.len() > 1 {
                return Err(Error::NotImplemented(format!(
                    "a ScalarLoop of several outputs inside a {owner} ({})",
                    g.describe_node(n)
                )));
            }
            let mut args = Vec::with_capacity(node.inputs.len());
            for &v in &node.inputs {
                args.push(operand(g, v, &mut known, &mut b)?);
            }
            let outs = match op {
                ScalarOp::Composite(c) => b.inline(c, &args)?,
                _ => vec![b.push(op.clone(), &args)?],
            };
            known.extend(node.outputs.iter().copied().zip(outs));
        }
        let mut outs = Vec::with_capacity(fg.outputs().len());
        for &v in fg.outputs() {
            outs.push(operand(g, v, &mut known, &mut b)?);
        }
        b.finish(&outs)
    }

    /// The inner graph as a scalar function graph: inputs named `i0, i1,
    /// ...`, constants as scalar constants.
    pub fn fgraph(&self) -> Result<FunctionGraph> {
        let mut g = Graph::new();
        let inputs: Vec<VarId> = self
            .input_dtypes()
            .iter()
            .enumerate()
            .map(|(i, &d)| g.input(Type::Scalar(d), Some(&format!("i{i}"))))
            .collect();
        let consts: Vec<VarId> = self
            .consts()
            .iter()
            .map(|t| g.constant(Type::Scalar(t.dtype()), Constant::tensor(t.clone()), None))
            .collect();
        let outputs = self.apply_nodes(&mut g, &inputs, &consts, |g, op, args| {
            g.apply_out(Arc::new(op.clone()), args)
        })?;
        FunctionGraph::new(g, inputs, outputs)
    }

    /// The inner graph as `Elemwise` nodes of `g` over tensor `inputs`.
    pub fn expand(&self, g: &mut Graph, inputs: &[VarId]) -> Result<Vec<VarId>> {
        let consts: Vec<VarId> = self
            .consts()
            .iter()
            .map(|t| g.tensor_constant(t.clone()))
            .collect();
        self.apply_nodes(g, inputs, &consts, |g, op, args| {
            build::elemwise(g, op.clone(), args)
        })
    }

    /// The outputs of the inner nodes applied in order by `apply` (a scalar
    /// node or its `Elemwise`) over `inputs` and `consts`.
    fn apply_nodes(
        &self,
        g: &mut Graph,
        inputs: &[VarId],
        consts: &[VarId],
        apply: impl Fn(&mut Graph, &ScalarOp, &[VarId]) -> Result<VarId>,
    ) -> Result<Vec<VarId>> {
        let mut made = Vec::with_capacity(self.nodes().len());
        for n in self.nodes() {
            let args: Vec<VarId> = n
                .args
                .iter()
                .map(|&a| pick(a, inputs, &made, consts))
                .collect();
            made.push(apply(g, &n.op, &args)?);
        }
        Ok(self.outputs().iter().map(|&o| made[o]).collect())
    }
}

fn pick(a: Operand, inputs: &[VarId], made: &[VarId], consts: &[VarId]) -> VarId {
    match a {
        Operand::Input(i) => inputs[i],
        Operand::Node(j) => made[j],
        Operand::Const(k) => consts[k],
    }
}

fn scalar_dtype(g: &Graph, v: VarId) -> Result<crate::dtype::DType> {
    g.var(v).ty.as_scalar().ok_or_else(|| {
        Error::Type(format!(
            "a Composite's inputs must be scalars, got {} of type {}",
            g.describe_var(v),
            g.var(v).ty
        ))
    })
}

/// The operand for `v`: known already, or a constant taken in.
fn operand(
    g: &Graph,
    v: VarId,
    known: &mut HashMap<VarId, Operand>,
    b: &mut crate::scalar::composite::CompositeBuilder,
) -> Result<Operand> {
    if let Some(&a) = known.get(&v) {
        return Ok(a);
    }
    let VarKind::Constant(c) = &g.var(v).kind else {
        return Err(Error::Value(format!(
            "{} is not an input of the Composite's graph",
            g.describe_var(v)
        )));
    };
    let Value::Tensor(t) = &c.value else {
        return Err(Error::Type("a Composite constant must be a number".into()));
    };
    let dtype = scalar_dtype(g, v).or_else(|_| Ok::<_, Error>(t.dtype()))?;
    let t = match t.dtype() == dtype {
        true => t.clone(),
        false => crate::kernels::elemwise::cast::cast(t, dtype)?,
    };
    let a = b.constant(t)?;
    known.insert(v, a);
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType::*;
    use crate::graph::testing::scalar_graph_with;
    use crate::print::{debugprint, PrintOptions};
    use crate::scalar::ScalarKind as K;
    use crate::tensor::Tensor;

    #[test]
    fn fgraphs_round_trip() {
        let (mut g, [x, y]) = scalar_graph_with([("x", Float64), ("y", Float64)]);
        let two = g.constant(
            Type::Scalar(Float64),
            Constant::tensor(Tensor::scalar(2.0f64)),
            None,
        );
        let m = g
            .apply_out(Arc::new(ScalarOp::Kind(K::Mul)), &[x, two])
            .unwrap();
        let s = g
            .apply_out(Arc::new(ScalarOp::Kind(K::Add)), &[m, y])
            .unwrap();
        let fg = FunctionGraph::new(g, vec![x, y], vec![s, m]).unwrap();
        let c = Composite::from_fgraph(&fg).unwrap();
        assert_eq!(c.name(), "Composite{((i0 * 2.0) + i1), (i0 * 2.0)}");
        let inner = c.fgraph().unwrap();
        assert_eq!(
            debugprint(&inner, &PrintOptions::default()),
            "add [id A] 1\n ├─ mul [id B] 0\n │  ├─ i0 [id C]\n │  └─ 2.0 [id D]\n └─ i1 [id E]\nmul [id B] 0\n └─ ···\n"
        );
        assert_eq!(Composite::from_fgraph(&inner).unwrap(), c);
    }

    #[test]
    fn non_scalar_graphs_are_refused() {
        let mut g = Graph::new();
        let x = g.input(crate::types::TensorType::scalar(Float64), Some("x"));
        let fg = FunctionGraph::new(g, vec![x], vec![x]).unwrap();
        let err = Composite::from_fgraph(&fg).unwrap_err().to_string();
        assert!(err.contains("inputs must be scalars"), "{err}");
    }
}
