//! `Dot` (PyTensor's `tensor/rewriting/math.py`): a product whose summed
//! axis has length 1 and which is not an outer product is a `mul`
//! (`local_dot_to_mul`); a product with a constant zero operand is zeros
//! of the output's shape (`local_0_dot_x`, shape-unsafe); and `dot(x, y).T`
//! is `dot(y.T, x.T)`, so the transposes can merge with others
//! (`local_lift_transpose_through_dot`).

use super::shape_feature::{shape_of, shape_rewriter};
use super::util::{
    apply, elemwise, inputs, is_constant, like, op_as, output, register_phases, tensor_type,
};
use crate::error::Result;
use crate::graph::{Client, FunctionGraph, NodeId, VarId};
use crate::ops::alloc::Alloc;
use crate::ops::dimshuffle::DimShuffle;
use crate::ops::infer_shape::dim_constant;
use crate::ops::specify_shape::SpecifyShape;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::phase::{CANONICALIZE, SPECIALIZE, STABILIZE};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::scalar::ScalarKind;
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let dot = || Tracks::classes(&["Dot"]);
    let mul = shape_rewriter("local_dot_to_mul", dot, local_dot_to_mul);
    register_phases(db, &[CANONICALIZE, SPECIALIZE], mul, &[])?;
    let zero = shape_rewriter("local_0_dot_x", dot, local_0_dot_x);
    register_phases(db, &[CANONICALIZE, STABILIZE], zero, &["shape_unsafe"])?;
    let lift = shape_rewriter(
        "local_lift_transpose_through_dot",
        dot,
        local_lift_transpose_through_dot,
    );
    register_phases(db, &[CANONICALIZE], lift, &[])
}

/// `x` with its static shape refined so axis `axis` is 1 (a runtime check
/// where it is not static), so `mul` broadcasts it as `dot` summed it.
fn specify_one(fg: &mut FunctionGraph, x: VarId, axis: usize) -> Result<VarId> {
    let Some(ty) = tensor_type(fg, x).cloned() else {
        return Ok(x);
    };
    if ty.shape[axis] == Some(1) {
        return Ok(x);
    }
    let mut args = vec![x];
    for i in 0..ty.ndim() {
        let n = if i == axis { 1 } else { -1 };
        args.push(dim_constant(fg.graph_mut(), n));
    }
    apply(fg, Arc::new(SpecifyShape), &args)
}

fn local_dot_to_mul(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [a, b] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let (Some(ta), Some(tb)) = (tensor_type(fg, a), tensor_type(fg, b)) else {
        return Ok(None);
    };
    if ta.ndim() != 2 || tb.ndim() != 2 {
        return Ok(None);
    }
    let summed_one = ta.shape[1] == Some(1) || tb.shape[0] == Some(1);
    // An outer product (m, 1) x (1, n) stays a `Dot` (PyTensor keeps it
    // for GER); one with a length-1 row or column side is a broadcast `mul`.
    let not_outer = ta.shape[0] == Some(1) || tb.shape[1] == Some(1);
    if !summed_one || !not_outer {
        return Ok(None);
    }
    let a = specify_one(fg, a, 1)?;
    let b = specify_one(fg, b, 0)?;
    let new = elemwise(fg, ScalarKind::Mul, &[a, b])?;
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, new, out, &[])?)))
}

fn local_0_dot_x(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [x, y] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    if !is_constant(fg, x, 0.0) && !is_constant(fg, y, 0.0) {
        return Ok(None);
    }
    let out = output(fg, node);
    let Some(dtype) = tensor_type(fg, out).map(|t| t.dtype) else {
        return Ok(None);
    };
    let (nx, ny) = (
        tensor_type(fg, x).map_or(0, |t| t.ndim()),
        tensor_type(fg, y).map_or(0, |t| t.ndim()),
    );
    let zero = crate::build::scalar_constant(fg.graph_mut(), dtype, 0.0);
    let mut args = vec![zero];
    if nx == 2 {
        args.push(shape_of(fg, x)?[0]);
    }
    if ny == 2 {
        args.push(shape_of(fg, y)?[1]);
    }
    let new = apply(fg, Arc::new(Alloc), &args)?;
    Ok(Some(Rewrite::one(new)))
}

fn local_lift_transpose_through_dot(
    fg: &mut FunctionGraph,
    node: NodeId,
) -> Result<Option<Rewrite>> {
    let out = output(fg, node);
    let Some(&Client::Node(client, _)) = fg.clients(out).only() else {
        return Ok(None);
    };
    let transpose = DimShuffle::transpose(2);
    if op_as::<DimShuffle>(fg, client) != Some(&transpose) {
        return Ok(None);
    }
    let [x, y] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let both_matrices = [x, y]
        .iter()
        .all(|&v| tensor_type(fg, v).is_some_and(|t| t.ndim() == 2));
    if !both_matrices {
        return Ok(None);
    }
    let g = fg.graph_mut();
    let yt = g.apply_out(Arc::new(transpose.clone()), &[y])?;
    let xt = g.apply_out(Arc::new(transpose), &[x])?;
    let op = g.node(node).op.clone();
    let new = g.apply_out(op, &[yt, xt])?;
    let old = fg.graph().node(client).outputs[0];
    Ok(Some(Rewrite::Pairs {
        pairs: vec![(old, new)],
        remove: Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_prints, Case};
    use crate::build;
    use crate::dtype::DType;
    use crate::graph::{Graph, VarId};
    use crate::tensor::Tensor;
    use crate::types::TensorType;

    fn input(g: &mut Graph, dtype: DType, shape: [Option<u64>; 2], name: &str) -> VarId {
        g.input(TensorType::new(dtype, shape).unwrap(), Some(name))
    }

    fn m(rows: usize, cols: usize, k: f64) -> Tensor {
        Tensor::from_vec(
            vec![rows, cols],
            (0..rows * cols).map(|i| i as f64 * k - 1.0).collect(),
        )
        .unwrap()
    }

    #[test]
    fn products_without_a_sum_zeros_and_transposes() {
        let mut g = Graph::new();
        let a = input(&mut g, DType::Float64, [None, None], "a");
        let b = input(&mut g, DType::Float64, [Some(1), Some(1)], "b");
        let scaled = build::dot(&mut g, a, b).unwrap();
        let c = input(&mut g, DType::Float64, [Some(1), None], "c");
        let outer = build::dot(&mut g, a, c).unwrap();
        let zeros = g.tensor_constant(Tensor::zeros(DType::Float64, &[2, 3]).unwrap());
        let y = input(&mut g, DType::Float64, [Some(3), None], "y");
        let z = build::dot(&mut g, zeros, y).unwrap();
        let x = input(&mut g, DType::Float64, [None, None], "x");
        let d = build::dot(&mut g, x, y).unwrap();
        let t = build::dimshuffle(&mut g, d, vec![Some(1), Some(0)]).unwrap();
        let case = Case::new(g, vec![a, b, c, y, x], vec![scaled, outer, z, t]);
        let args = [
            m(3, 1, 0.5),
            m(1, 1, 1.0),
            m(1, 2, 2.0),
            m(3, 2, 0.25),
            m(2, 3, 1.5),
        ];
        check_prints(&case, &["canonicalize"], &args, 1e-15, "Mul [id A]\n ├─ SpecifyShape [id B]\n │  ├─ a [id C]\n │  ├─ -1 [id D]\n │  └─ 1 [id E]\n └─ b [id F]\nDot [id G]\n ├─ a [id C]\n └─ c [id H]\nAlloc [id I]\n ├─ 0.0 [id J]\n ├─ 2 [id K]\n └─ Shape_i{1} [id L]\n    └─ y [id M]\nDot [id N]\n ├─ MatrixTranspose [id O]\n │  └─ y [id M]\n └─ MatrixTranspose [id P]\n    └─ x [id Q]\n");
    }
}
