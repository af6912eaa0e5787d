//! `Elemwise`: a scalar op mapped over broadcast tensors. Building a node
//! left-pads lower-rank inputs with `ExpandDims` (a `DimShuffle`) and infers
//! the static output shape; only static 1s broadcast. An `Elemwise` of a
//! `Composite` has one output per composite output, all of that shape, and
//! runs on the fused block kernel (`kernels/fused/`).
//! Mirrors `Elemwise` in `pytensor/tensor/elemwise.py`.

use crate::error::{Error, Result};
use crate::graph::{Graph, NodeId, VarId};
use crate::kernels::elemwise::bool_ops;
use crate::kernels::elemwise::{elemwise, elemwise_into};
use crate::kernels::fused::{interpret, FusedKernel, FusedThunk};
use crate::op_identity;
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::infer_shape;
use crate::ops::scalar_grad;
use crate::ops::Tangents;
use crate::ops::{Dims, InferredShapes, Outs};
use crate::ops::{IoMap, Op, PerformCtx};
use crate::scalar::{ScalarKind, ScalarOp};
use crate::types::{StaticShape, TensorType, Type};
use crate::value::Value;
use smallvec::SmallVec;

/// `Elemwise(scalar_op, inplace_pattern)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Elemwise {
    /// The element operation.
    pub scalar_op: ScalarOp,
    /// `(output, input)` pairs computed in place, sorted by output.
    pub inplace_pattern: Vec<(usize, usize)>,
}

/// How to build an `Elemwise` node from inputs of mixed rank.
#[derive(Clone, Debug, PartialEq)]
pub struct BroadcastPlan {
    /// For each input, the `ExpandDims` to insert before it, if any.
    pub expand: SmallVec<[Option<DimShuffle>; 4]>,
    /// For each expanded input, the type its `ExpandDims` outputs.
    pub expanded: SmallVec<[Option<TensorType>; 4]>,
    /// The output types (one, or one per output of a `Composite`).
    pub outputs: SmallVec<[TensorType; 1]>,
}

impl Elemwise {
    /// An elemwise op that computes a new output.
    pub fn new(scalar_op: impl Into<ScalarOp>) -> Self {
        Elemwise {
            scalar_op: scalar_op.into(),
            inplace_pattern: Vec::new(),
        }
    }

    /// Plans a node over inputs of any ranks: which inputs get an
    /// `ExpandDims`, and the output type.
    pub fn plan(&self, inputs: &[&TensorType]) -> Result<BroadcastPlan> {
        let ndim = inputs.iter().map(|t| t.ndim()).max().unwrap_or(0);
        if inputs.iter().all(|t| t.ndim() == ndim) {
            // The common node (e.g. `y + x`): nothing to expand, no types to make.
            return Ok(BroadcastPlan {
                expand: inputs.iter().map(|_| None).collect(),
                expanded: inputs.iter().map(|_| None).collect(),
                outputs: self.output_types_of(inputs)?,
            });
        }
        let expand: SmallVec<[Option<DimShuffle>; 4]> = inputs
            .iter()
            .map(|t| (t.ndim() < ndim).then(|| DimShuffle::expand_left(t.ndim(), ndim)))
            .collect();
        // An expanded input's type is its own with 1s on the left (what
        // `ExpandDims` infers); the others are borrowed. This runs for every
        // elementwise node a user builds.
        let expanded: SmallVec<[Option<TensorType>; 4]> = inputs
            .iter()
            .map(|t| (t.ndim() < ndim).then(|| padded_left(t, ndim)))
            .collect();
        let padded: SmallVec<[&TensorType; 4]> = inputs
            .iter()
            .zip(&expanded)
            .map(|(&t, e)| e.as_ref().unwrap_or(t))
            .collect();
        let outputs = self.output_types_of(&padded)?;
        drop(padded);
        Ok(BroadcastPlan {
            expand,
            expanded,
            outputs,
        })
    }

    /// The (first) output type for inputs of equal rank.
    pub fn output_type(&self, inputs: &[&TensorType]) -> Result<TensorType> {
        let mut all = self.output_types_of(inputs)?;
        Ok(all.swap_remove(0))
    }

    /// Every output's type for inputs of equal rank.
    pub fn output_types_of(&self, inputs: &[&TensorType]) -> Result<SmallVec<[TensorType; 1]>> {
        let dtypes: SmallVec<[_; 4]> = inputs.iter().map(|t| t.dtype).collect();
        let out_dtypes = self.scalar_op.output_dtypes(&dtypes)?;
        let shape = broadcast_shapes(inputs)?;
        for &(out, inp) in &self.inplace_pattern {
            let fits = out_dtypes
                .get(out)
                .is_some_and(|&d| inputs.get(inp).is_some_and(|t| t.dtype == d));
            if !fits {
                return Err(Error::Type(format!(
                    "Cannot do an inplace operation on incompatible data types: output {out} on input {inp}"
                )));
            }
        }
        out_dtypes
            .into_iter()
            .map(|d| TensorType::new(d, shape.clone()))
            .collect()
    }
}

impl Elemwise {
    /// The outputs written into the inputs they destroy, when the program
    /// granted their buffers (`kernels/alloc/granted.rs`) and the kernel
    /// can write them there: a composite's every output of
    /// `inplace_pattern`, a single scalar op's one; `None`: allocate, as
    /// a pure op.
    fn write_destroyed(
        &self,
        ctx: &mut PerformCtx<'_>,
        tensors: &[&crate::tensor::Tensor],
    ) -> Result<Option<smallvec::SmallVec<[crate::tensor::Tensor; 2]>>> {
        if let ScalarOp::Loop(_) = &self.scalar_op {
            return self.loop_into_granted(ctx, tensors);
        }
        if let ScalarOp::Composite(c) = &self.scalar_op {
            return match FusedKernel::new(c, ctx.input_types, ctx.output_types) {
                Some(k) => k.run_destroying(tensors, ctx.pool, &self.inplace_pattern),
                None => Ok(None),
            };
        }
        let Some(&(_, i)) = self.inplace_pattern.first() else {
            return Ok(None);
        };
        let Some(granted) = tensors.get(i).and_then(|x| ctx.pool.take_grant(x)) else {
            return Ok(None);
        };
        let (target, mut writer) = granted.into_parts();
        let done = elemwise_into(&self.scalar_op, tensors, ctx.input_bcast, &mut writer)?;
        // The writer (dropped here) and the target are one memory.
        drop(writer);
        Ok(done.then(|| smallvec::smallvec![target]))
    }
}

/// `t` with static 1s prepended up to rank `ndim`.
fn padded_left(t: &TensorType, ndim: usize) -> TensorType {
    let mut shape: StaticShape = std::iter::repeat_n(Some(1), ndim - t.ndim()).collect();
    shape.extend_from_slice(&t.shape);
    TensorType {
        dtype: t.dtype,
        shape,
    }
}

/// Static output shape of broadcasting equal-rank inputs
/// (`broadcast_static_dim_lengths` per dimension).
pub fn broadcast_shapes(inputs: &[&TensorType]) -> Result<StaticShape> {
    let ndim = inputs.first().map_or(0, |t| t.ndim());
    if inputs.iter().any(|t| t.ndim() != ndim) {
        return Err(Error::Type(format!(
            "Elemwise inputs must have the same rank, got {}",
            fmt_shapes(inputs)
        )));
    }
    (0..ndim)
        .map(|d| {
            broadcast_dim(inputs.iter().map(|t| t.shape[d])).ok_or_else(|| {
                Error::Value(format!(
                    "Incompatible Elemwise input shapes {}",
                    fmt_shapes(inputs)
                ))
            })
        })
        .collect()
}

/// One dimension: equal lengths stay, `{None, 1}` is unknown, and otherwise
/// the single length left after dropping 1s and unknowns (`None` if clashing).
fn broadcast_dim(lengths: impl Iterator<Item = Option<u64>> + Clone) -> Option<Option<u64>> {
    // Iterates twice instead of collecting: this runs per dimension of
    // every elementwise node built.
    let mut all = lengths.clone();
    let Some(first) = all.next() else {
        return Some(None);
    };
    if all.all(|l| l == first) {
        return Some(first);
    }
    let mut known = lengths.flatten().filter(|&l| l != 1);
    match known.next() {
        None => Some(None),
        Some(first) if known.all(|l| l == first) => Some(Some(first)),
        Some(_) => None,
    }
}

fn fmt_shapes(inputs: &[&TensorType]) -> String {
    let shapes: Vec<String> = inputs.iter().map(|t| t.repr_shape()).collect();
    format!("[{}]", shapes.join(", "))
}

impl Op for Elemwise {
    op_identity!("Elemwise");

    /// `str(scalar_op).capitalize()`, as PyTensor prints it.
    fn describe(&self) -> String {
        capitalize(&self.scalar_op.to_string())
    }

    fn output_types(&self, inputs: &[&Type]) -> Result<Vec<Type>> {
        let tensors: Vec<&TensorType> = inputs
            .iter()
            .map(|t| t.expect_tensor("An Elemwise input"))
            .collect::<Result<_>>()?;
        Ok(self
            .output_types_of(&tensors)?
            .into_iter()
            .map(Type::from)
            .collect())
    }

    fn destroy_map(&self) -> IoMap {
        self.inplace_pattern
            .iter()
            .map(|&(o, i)| (o, vec![i]))
            .collect()
    }

    /// `add_inplace(x, x)` is safe: each element is read at the position
    /// it is written, so the very variable destroyed may come in again at
    /// any other position (an alias such as `x.T` may not). Variadic ops
    /// list positions up to 64; ones past a node's inputs are never read.
    fn destroyhandler_tolerate_same(&self) -> Vec<(usize, usize)> {
        let n = self.scalar_op.nin().unwrap_or(64);
        self.inplace_pattern
            .iter()
            .flat_map(|&(_, d)| (0..n).filter(move |&j| j != d).map(move |j| (d, j)))
            .collect()
    }

    fn prepare_constant(
        &self,
        input: usize,
        value: &Value,
        input_types: &[Type],
        output_types: &[Type],
    ) -> Option<Value> {
        let dtypes: Vec<_> = input_types
            .iter()
            .map(|t| t.as_tensor().map(|t| t.dtype))
            .collect::<Option<_>>()?;
        let out = output_types.first()?.as_tensor()?.dtype;
        crate::kernels::elemwise::prepare_input(
            &self.scalar_op,
            input,
            value.tensor().ok()?,
            &dtypes,
            out,
        )
        .map(Value::Tensor)
    }

    fn perform(&self, ctx: &mut PerformCtx, inputs: &[&Value], outputs: &mut Outs) -> Result<()> {
        let tensors = inputs
            .iter()
            .map(|v| v.tensor())
            .collect::<Result<smallvec::SmallVec<[_; 4]>>>()?;
        if let Some(outs) = self.write_destroyed(ctx, &tensors)? {
            for (slot, t) in outputs.iter_mut().zip(outs) {
                *slot = Some(t.into());
            }
            return Ok(());
        }
        if let ScalarOp::Loop(_) = &self.scalar_op {
            let outs =
                interpret::evaluate(&self.scalar_op, &tensors, ctx.input_bcast, &[], ctx.pool)?;
            for (slot, t) in outputs.iter_mut().zip(outs) {
                *slot = Some(t.into());
            }
            return Ok(());
        }
        if let ScalarOp::Composite(c) = &self.scalar_op {
            let outs = match FusedKernel::new(c, ctx.input_types, ctx.output_types) {
                Some(k) => k.run(&tensors, ctx.pool)?,
                None => {
                    let dtypes = c.output_dtypes();
                    interpret::evaluate(
                        &self.scalar_op,
                        &tensors,
                        ctx.input_bcast,
                        &dtypes,
                        ctx.pool,
                    )?
                }
            };
            for (slot, t) in outputs.iter_mut().zip(outs) {
                *slot = Some(t.into());
            }
            return Ok(());
        }
        let out = elemwise(
            &self.scalar_op,
            &tensors,
            ctx.input_bcast,
            ctx.output_dtype(0)?,
            Some(ctx.pool),
        )?;
        outputs[0] = Some(out.into());
        Ok(())
    }

    fn inner_fgraph(&self) -> Option<Result<crate::graph::FunctionGraph>> {
        match &self.scalar_op {
            ScalarOp::Composite(c) => Some(c.fgraph()),
            ScalarOp::Loop(l) => Some(l.fgraph()),
            _ => None,
        }
    }

    /// A composite's fused kernel, its plan made once for the node's types.
    fn make_thunk(
        &self,
        input_types: &[Type],
        output_types: &[Type],
    ) -> Option<Box<dyn crate::vm::Thunk>> {
        let ScalarOp::Composite(c) = &self.scalar_op else {
            return None;
        };
        let kernel = FusedKernel::new(c, input_types, output_types)?;
        Some(Box::new(
            FusedThunk::new(kernel).destroying(&self.inplace_pattern),
        ))
    }

    /// The logical kinds computing in bool: every input and the output are
    /// bool, so no input is cast (a cast would read real `bool`s).
    fn reads_bool_bytes(&self, input: usize, input_types: &[Type], output_types: &[Type]) -> bool {
        matches!(self.scalar_op, ScalarOp::Kind(k) if bool_ops::reads_bytes(k))
            && input < input_types.len()
            && input_types
                .iter()
                .chain(output_types)
                .all(Type::is_bool_tensor)
    }

    /// `second` reads only the shape of its first input.
    fn connection_pattern(&self, _n_inputs: usize) -> Result<Option<Vec<Vec<bool>>>> {
        Ok(match self.scalar_op {
            ScalarOp::Kind(ScalarKind::Second) => Some(vec![vec![false], vec![true]]),
            _ => None,
        })
    }

    /// Each axis: the output's static length, else the first input that
    /// does not broadcast along it (inputs already share one rank).
    fn infer_shape(&self, g: &mut Graph, node: NodeId, input_shapes: &[Dims]) -> InferredShapes {
        let n = g.node(node).clone();
        let out = g.var(n.outputs[0]).ty.expect_tensor("The output")?.clone();
        let shape = broadcast_dims(g, &n.inputs, &out, input_shapes)?;
        Ok(Some(vec![shape; n.outputs.len()]))
    }

    fn pullback(&self, g: &mut Graph, node: NodeId, output_grads: &[VarId]) -> Result<Vec<VarId>> {
        if let ScalarOp::Composite(c) = &self.scalar_op {
            return composite_pullback(c, g, node, output_grads);
        }
        scalar_grad::elemwise_pullback(g, &self.scalar_op, node, output_grads)
    }

    fn pushforward(&self, g: &mut Graph, node: NodeId, tangents: &[Option<VarId>]) -> Tangents {
        if let ScalarOp::Composite(_) = &self.scalar_op {
            // The driver derives it from the pullback (the double pullback).
            return Ok(None);
        }
        scalar_grad::elemwise_pushforward(g, &self.scalar_op, node, tangents).map(Some)
    }
}

/// An `Elemwise(Composite)` node's pullback: that of its inner graph
/// spelled out as `Elemwise` nodes over the node's inputs (outputs whose
/// gradient is disconnected are left out).
fn composite_pullback(
    c: &crate::scalar::composite::Composite,
    g: &mut Graph,
    node: NodeId,
    output_grads: &[VarId],
) -> Result<Vec<VarId>> {
    let inputs = g.node(node).inputs.clone();
    let outs = c.expand(g, &inputs)?;
    let (fs, gzs): (Vec<VarId>, Vec<VarId>) = outs
        .into_iter()
        .zip(output_grads)
        .filter(|(_, &gz)| !matches!(g.var(gz).ty, Type::Disconnected))
        .unzip();
    if fs.is_empty() {
        return Ok(inputs
            .iter()
            .map(|_| scalar_grad::disconnected(g))
            .collect());
    }
    let found = crate::grad::pullback(g, &fs, &inputs, &gzs, None)?;
    Ok(found
        .grads
        .into_iter()
        .map(|gr| gr.unwrap_or_else(|| scalar_grad::disconnected(g)))
        .collect())
}

/// The shape of `inputs` broadcast to `out` (their broadcast type), one
/// variable per axis: `out`'s static length, else that of the first input
/// that does not broadcast along it.
pub(crate) fn broadcast_dims(
    g: &mut Graph,
    inputs: &[VarId],
    out: &TensorType,
    input_shapes: &[Dims],
) -> Result<Vec<VarId>> {
    let bcast: Vec<Vec<bool>> = inputs
        .iter()
        .map(|&i| {
            Ok(g.var(i)
                .ty
                .expect_tensor("An Elemwise input")?
                .broadcastable())
        })
        .collect::<Result<_>>()?;
    let mut shape = Vec::with_capacity(out.ndim());
    for (axis, dim) in out.shape.iter().enumerate() {
        let from = bcast.iter().position(|b| !b[axis]);
        shape.push(match (dim, from) {
            (None, Some(j)) => input_shapes[j][axis],
            (Some(len), _) => infer_shape::dim_constant(g, *len as i64),
            (None, None) => infer_shape::dim_constant(g, 1),
        });
    }
    Ok(shape)
}

/// Python's `str.capitalize`: first character upper, the rest lower.
pub fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType::*;
    use crate::graph::testing::tt;
    use crate::scalar::ScalarKind;

    #[test]
    fn plan_expands_lower_rank() {
        let mul = Elemwise::new(ScalarKind::Mul);
        let x = tt(Float64, &[None, None]);
        let two = tt(Float32, &[]);
        let plan = mul.plan(&[&x, &two]).unwrap();
        assert!(plan.expand[0].is_none());
        assert_eq!(
            plan.expand[1].as_ref().unwrap().describe(),
            "ExpandDims{axes=(0, 1)}"
        );
        assert_eq!(plan.outputs[0], tt(Float64, &[None, None]));
        // The padded type the plan assumes is the one ExpandDims infers.
        let v = tt(Float32, &[Some(3)]);
        let ds = DimShuffle::expand_left(1, 3);
        assert_eq!(padded_left(&v, 3), ds.output_type(&v).unwrap());
        let same = mul.plan(&[&x, &x]).unwrap();
        assert!(same.expand.iter().all(Option::is_none) && same.expand.len() == 2);
        assert_eq!(mul.describe(), "Mul");
        assert_eq!(Elemwise::new(ScalarKind::TrueDiv).describe(), "True_div");
    }

    #[test]
    fn static_shapes() {
        let add = Elemwise::new(ScalarKind::Add);
        let out = add
            .output_type(&[
                &tt(Float64, &[Some(1), None]),
                &tt(Float64, &[None, Some(3)]),
            ])
            .unwrap();
        assert_eq!(out.shape.as_slice(), &[None, Some(3)]);
        let err = add
            .output_type(&[&tt(Float64, &[Some(2)]), &tt(Float64, &[Some(3)])])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Incompatible Elemwise input shapes [(2,), (3,)]"
        );
        let out = add
            .output_type(&[&tt(Float64, &[Some(1)]), &tt(Float64, &[Some(1)])])
            .unwrap();
        assert_eq!(out.shape.as_slice(), &[Some(1)]);
    }
}
