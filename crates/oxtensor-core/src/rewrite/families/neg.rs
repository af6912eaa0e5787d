//! Negation in canonical form (PyTensor's `local_neg_to_mul` and
//! `local_sub_neg_to_add`, canonicalize): `-x` is written `-1 * x`, so the
//! product canonizer folds it with the other constants (`-(2 * x) ->
//! -2 * x`) and the sum canonizer reads it as a subtracted term
//! (`a + -1 * b -> a - b`); `x - (-y)` is `x + y`. Specialize writes a
//! remaining `-1 * x` as `-x` again (`local_mul_specialize`), so the
//! canonical form costs no node in the end.

use super::util::{constant_in, dtype_of, elemwise, inputs, output, produced_by};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::{Add, Mul, Neg, Sub};
use crate::tensor::Tensor;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let neg_to_mul = scalar_rw!("local_neg_to_mul", [Neg], local_neg_to_mul);
    register_in(db, phase::CANONICALIZE, neg_to_mul, &[])?;
    for p in [phase::CANONICALIZE, phase::SPECIALIZE] {
        let sub_neg = scalar_rw!("local_sub_neg_to_add", [Sub], local_sub_neg_to_add);
        register_in(db, p, sub_neg, &[])?;
    }
    Ok(())
}

/// `-x -> -1 * x`, the `-1` in `x`'s dtype (for unsigned `x` it wraps, as
/// negation does).
fn local_neg_to_mul(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [x] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some(dtype) = dtype_of(fg, x) else {
        return Ok(None);
    };
    let minus_one = constant_in(fg, &Tensor::scalar(-1i64), dtype);
    Ok(Some(Rewrite::one(elemwise(fg, Mul, &[minus_one, x])?)))
}

/// `x - (-y) -> x + y`.
fn local_sub_neg_to_add(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [x, minus_y] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let Some(neg) = produced_by(fg, minus_y, Neg) else {
        return Ok(None);
    };
    let y = inputs(fg, neg)[0];
    let sum = elemwise(fg, Add, &[x, y])?;
    let out = output(fg, node);
    Ok(Some(Rewrite::one(super::util::like(fg, sum, out, &[])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_unchanged, check_prints, Case};
    use crate::build;
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::tensor::Tensor;

    #[test]
    fn negation_is_minus_one_times_even_for_unsigned() {
        let (mut g, [x, u]) = graph_with([("x", DType::Float64, 1), ("u", DType::UInt8, 1)]);
        let (nx, nu) = (
            build::neg(&mut g, x).unwrap(),
            build::neg(&mut g, u).unwrap(),
        );
        let case = Case::new(g, vec![x, u], vec![nx, nu]);
        let args = [
            Tensor::from_vec(vec![2], vec![1.5, -0.0]).unwrap(),
            Tensor::from_vec(vec![2], vec![3u8, 0]).unwrap(),
        ];
        check_prints(&case, &["canonicalize"], &args, 0.0, "Mul [id A]\n ├─ [-1.] [id B]\n └─ x [id C]\nMul [id D]\n ├─ [255] [id E]\n └─ u [id F]\n");
    }

    #[test]
    fn minus_a_negation_is_a_sum_in_specialize() {
        let (mut g, [x, y]) = graph_with([("x", DType::Float64, 1), ("y", DType::Float64, 1)]);
        let ny = build::neg(&mut g, y).unwrap();
        let d = build::sub(&mut g, x, ny).unwrap();
        let plain = build::sub(&mut g, x, y).unwrap();
        let case = Case::new(g, vec![x, y], vec![d]);
        let args = [
            Tensor::from_vec(vec![2], vec![1.5, -2.0]).unwrap(),
            Tensor::from_vec(vec![2], vec![0.25, 4.0]).unwrap(),
        ];
        check_prints(
            &case,
            &["specialize"],
            &args,
            0.0,
            "Add [id A]\n ├─ x [id B]\n └─ y [id C]\n",
        );
        let untouched = Case {
            outputs: vec![plain],
            ..case
        };
        assert_unchanged(&untouched, &["specialize"]);
    }
}
