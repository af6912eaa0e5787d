//! `local_argmax_of_reversed` (specialize): `argmin`, which PyTensor builds
//! as `Argmax(-x)` for floats and `Argmax(~x)` for integers and bools, as
//! one `Argmin(x)` (`ops/argmin.rs`): the argmin kernel on `x`, with no
//! reversed copy written (on 4000x4000 float64 rows that copy cost as much
//! as the argmax itself). Only exact reversals qualify: negating a float
//! reverses its order (NaN stays NaN, which both pick first; -0 and +0 stay
//! equal), and so does `~` on integers and bools. Negating an integer does
//! not (the most negative value overflows), so `Argmax(-int)` stays.
//! Where the reversed copy has other readers it is still computed for them;
//! the positions are the same either way.

use super::util::{dtype_of, inputs, negated, op_as, output, produced_by, tensor_type};
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::ops::argmax::Argmax;
use crate::ops::argmin::Argmin;
use crate::rewrite::db::RewriteDb;
use crate::rewrite::node_rw;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::{Rewrite, Tracks};
use crate::scalar::ScalarKind::*;
use std::sync::Arc;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let rw = node_rw(
        "local_argmax_of_reversed",
        || Tracks::classes(&["Argmax"]),
        local_argmax_of_reversed,
    );
    register_in(db, phase::SPECIALIZE, rw, &[])
}

/// `x` when `v` reverses its order exactly and elementwise, in its shape:
/// `-x` (or `-1 * x`) of a float, `~x` of an integer or bool.
fn reversed(fg: &FunctionGraph, v: VarId) -> Option<VarId> {
    let dtype = dtype_of(fg, v)?;
    let x = match produced_by(fg, v, Invert) {
        Some(n) if dtype.is_discrete() => inputs(fg, n)[0],
        Some(_) => return None,
        None if dtype.is_float() => negated(fg, v)?,
        None => return None,
    };
    // `~` and `neg` keep the type; a `-1` constant that broadcast would not.
    (tensor_type(fg, x) == tensor_type(fg, v)).then_some(x)
}

fn local_argmax_of_reversed(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let Some(argmax) = op_as::<Argmax>(fg, node) else {
        return Ok(None);
    };
    let axis = argmax.axis.clone();
    let Some(x) = reversed(fg, inputs(fg, node)[0]) else {
        return Ok(None);
    };
    let new = fg.graph_mut().apply_out(Arc::new(Argmin { axis }), &[x])?;
    debug_assert_eq!(tensor_type(fg, new), tensor_type(fg, output(fg, node)));
    Ok(Some(Rewrite::one(new)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, printed, Case};
    use crate::build;
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::ops::argmax::Argmax;
    use crate::scalar::ScalarKind::{self, *};
    use crate::tensor::Tensor;

    use std::sync::Arc;

    /// `Argmax{axis}(reverse(x))` of a 2-d `x`, the reversed copy also an
    /// output when `expose`.
    fn case(dtype: DType, kind: ScalarKind, axis: Option<&[i64]>, expose: bool) -> Case {
        let (mut g, [x]) = graph_with([("x", dtype, 2)]);
        let r = build::elemwise(&mut g, kind, &[x]).unwrap();
        let out = g
            .apply_out(Arc::new(Argmax::new(axis, 2).unwrap()), &[r])
            .unwrap();
        let outputs = if expose { vec![out, r] } else { vec![out] };
        Case::new(g, vec![x], outputs)
    }

    fn floats(dtype: DType) -> Tensor {
        let mut v: Vec<f64> = (0..6 * 50)
            .map(|i| ((i * 37) % 101) as f64 - 50.0)
            .collect();
        v[2 * 50 + 7] = f64::NAN;
        v[4 * 50 + 3] = -0.0;
        v[5 * 50 + 49] = f64::NEG_INFINITY;
        crate::kernels::elemwise::cast::cast(&Tensor::from_vec(vec![6, 50], v).unwrap(), dtype)
            .unwrap()
    }

    /// The printed graph of `case` after `specialize`, checked on `arg`.
    fn specialized(case: &Case, arg: Tensor) -> String {
        printed(&check(case, &["specialize"], &[arg], 0.0))
    }

    #[test]
    fn argmax_of_negated_floats_is_argmin() {
        for dtype in [DType::Float64, DType::Float32] {
            for (axis, want) in [
                (
                    Some(&[1i64][..]),
                    "Argmin{axis=(1,)} [id A]\n └─ x [id B]\n",
                ),
                (Some(&[0][..]), "Argmin{axis=(0,)} [id A]\n └─ x [id B]\n"),
                (None, "Argmin{axis=None} [id A]\n └─ x [id B]\n"),
            ] {
                let p = specialized(&case(dtype, Neg, axis, false), floats(dtype));
                assert_eq!(p, want, "{dtype} {axis:?}");
            }
        }
    }

    #[test]
    fn argmax_of_inverted_integers_and_bools_is_argmin() {
        let v: Vec<i32> = (0..40).map(|i| (i * 7919) % 23 - 11).collect();
        let x = Tensor::from_vec(vec![4, 10], v).unwrap();
        let p = specialized(&case(DType::Int32, Invert, Some(&[1]), false), x);
        assert_eq!(p, "Argmin{axis=(1,)} [id A]\n └─ x [id B]\n");
        let b = Tensor::from_vec(vec![2, 3], vec![true, false, false, true, true, true]).unwrap();
        let p = specialized(&case(DType::Bool, Invert, Some(&[1]), false), b);
        assert!(p.starts_with("Argmin"));
        // A reversed copy read elsewhere is still computed for its reader.
        let p = specialized(
            &case(DType::Float64, Neg, Some(&[1]), true),
            floats(DType::Float64),
        );
        assert!(p.starts_with("Argmin{axis=(1,)} [id A]\n └─ x [id B]\nNeg"));
    }

    #[test]
    fn negated_integers_and_other_maps_stay() {
        // -i64::MIN overflows: argmax(-x) is not argmin(x) there.
        let x = Tensor::from_vec(vec![2, 3], vec![i64::MIN, 0, 5, 3, -2, 1]).unwrap();
        let p = specialized(&case(DType::Int64, Neg, Some(&[1]), false), x);
        assert!(p.starts_with("Argmax"));
        let p = specialized(
            &case(DType::Float64, Exp, Some(&[1]), false),
            floats(DType::Float64),
        );
        assert!(p.starts_with("Argmax"));
    }
}
