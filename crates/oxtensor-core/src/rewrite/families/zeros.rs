//! Multiplying or dividing by a constant that decides the result
//! (PyTensor's `local_mul_zero`, `local_zero_div`, `local_div_by_one`,
//! canonicalize): `x * 0 -> 0`, `0 / x -> 0`, `x / 1 -> x`, each with the
//! replaced node's dtype and broadcast shape. As in PyTensor the first two
//! assume `x` finite (NumPy gives NaN for `inf * 0` and `0 / 0`).

use super::util::{constant_f64, dtype_of, inputs, like, output, tensor_is, unique_value};
use crate::build;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{IntDiv, Mul, TrueDiv};

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let mul_zero = scalar_rw!("local_mul_zero", [Mul], local_mul_zero);
    register_in(db, phase::CANONICALIZE, mul_zero, &[])?;
    let by_one = scalar_rw!("local_div_by_one", [TrueDiv, IntDiv], local_div_by_one);
    register_in(db, phase::CANONICALIZE, by_one, &[])?;
    for p in [phase::CANONICALIZE, phase::SPECIALIZE] {
        let zero_div = scalar_rw!("local_zero_div", [TrueDiv, IntDiv], local_zero_div);
        register_in(db, p, zero_div, &[])?;
    }
    Ok(())
}

/// Zeros of `node`'s output type, broadcast against its inputs (variable
/// ones first: a constant input carries no shape worth a `fill`).
fn zeros_like_output(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let out = output(fg, node);
    let Some(dtype) = dtype_of(fg, out) else {
        return Ok(None);
    };
    let mut ins = inputs(fg, node);
    ins.sort_by_key(|&i| constant_f64(fg, i).is_some());
    let zero = build::scalar_constant(fg.graph_mut(), dtype, 0.0);
    Ok(Some(Rewrite::one(like(fg, zero, out, &ins)?)))
}

/// `x * 0 -> fill(x, 0)`: a factor that is zero everywhere (a constant,
/// seen through broadcasts and fills) zeroes the product.
fn local_mul_zero(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let ins = inputs(fg, node);
    if !ins.iter().any(|&i| constant_f64(fg, i) == Some(0.0)) {
        return Ok(None);
    }
    zeros_like_output(fg, node)
}

/// The two operands of `node` (a division) when operand `i` is `value`
/// everywhere.
fn operands_if(fg: &FunctionGraph, node: NodeId, i: usize, value: f64) -> Option<[VarId; 2]> {
    let operands: [VarId; 2] = inputs(fg, node).try_into().ok()?;
    let decides = unique_value(fg, operands[i]).is_some_and(|t| tensor_is(&t, value));
    decides.then_some(operands)
}

/// `0 / x -> 0` (true and integer division).
fn local_zero_div(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    if operands_if(fg, node, 0, 0.0).is_none() {
        return Ok(None);
    }
    zeros_like_output(fg, node)
}

/// `x / 1 -> x` (true and integer division).
fn local_div_by_one(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some([x, den]) = operands_if(fg, node, 1, 1.0) else {
        return Ok(None);
    };
    let out = output(fg, node);
    Ok(Some(Rewrite::one(like(fg, x, out, &[x, den])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_unchanged, check, printed, Case};
    use crate::build;
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::tensor::Tensor;

    #[test]
    fn zero_factor_zero_numerator_and_unit_divisor() {
        let (mut g, [x, i]) = graph_with([("x", DType::Float64, 1), ("i", DType::Int32, 1)]);
        let zero = g.tensor_constant(Tensor::scalar(0.0f64));
        let one = g.tensor_constant(Tensor::scalar(1i8));
        let times_zero = build::mul(&mut g, x, zero).unwrap();
        let zero_over = build::true_div(&mut g, zero, x).unwrap();
        let int_over_one = build::int_div(&mut g, i, one).unwrap();
        let case = Case::new(g, vec![x, i], vec![times_zero, zero_over, int_over_one]);
        let args = [
            Tensor::from_vec(vec![3], vec![1.5, -2.0, 0.5]).unwrap(),
            Tensor::from_vec(vec![3], vec![7i32, -3, 0]).unwrap(),
        ];
        let fg = check(&case, &["canonicalize"], &args, 0.0);
        let zeros = "Second [id A]\n ├─ x [id B]\n └─ [0.] [id C]\n";
        assert_eq!(
            printed(&fg),
            format!("{zeros}Second [id A]\n └─ ···\ni [id D]\n")
        );
    }

    #[test]
    fn a_zero_divisor_is_no_zero_numerator() {
        let (mut g, [x]) = graph_with([("x", DType::Int32, 1)]);
        let zero = g.tensor_constant(Tensor::from_vec(vec![1], vec![0i32]).unwrap());
        let q = build::int_div(&mut g, x, zero).unwrap();
        let case = Case::new(g, vec![x], vec![q]);
        assert_unchanged(&case, &["canonicalize"]);
    }
}
