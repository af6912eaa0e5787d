//! What the fused block kernel runs, in one place: the fusion rewrite asks
//! it which nodes may join a group, and the kernel asks it whether a
//! `Composite` it is given can take the blocked path (else it is run node
//! by node, `interpret.rs`).
//!
//! The kernel computes every node of a group in one float dtype, block by
//! block, with the elementwise kernels of the kinds below: those compute
//! in their output dtype, so an input of another (real) dtype is
//! converted first, as the node itself converts it, and results are the
//! unfused nodes' to the bit.

use crate::dtype::DType;
use crate::reduction::ReduceKind;
use crate::scalar::{ScalarKind, ScalarOp};

/// Whether the kernel runs `kind` (in float32 and float64): the scalar
/// table's `fused` flag (`scalar/table.rs`).
pub fn runs_kind(kind: ScalarKind) -> bool {
    kind.fused()
}

/// Whether the kernel computes in `dtype`.
pub fn runs_dtype(dtype: DType) -> bool {
    matches!(dtype, DType::Float32 | DType::Float64)
}

/// Whether one node `op(inputs) -> out` may be computed by the kernel in
/// `out`: a kind it runs, a float output, real inputs.
pub fn runs_node(op: &ScalarOp, inputs: &[DType], out: DType) -> bool {
    let kind_ok = op.kind().is_some_and(runs_kind);
    kind_ok && runs_dtype(out) && inputs.iter().all(|d| !d.is_complex())
}

/// Whether a reduction may consume a group's values block by block: a
/// `Sum` whose input and output have the group's float dtype, accumulated
/// in it or in float64 (float32's default).
pub fn runs_sum(kind: ReduceKind, input: DType, acc: DType, out: DType) -> bool {
    kind == ReduceKind::Sum
        && runs_dtype(input)
        && out == input
        && (acc == input || acc == DType::Float64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn float_arithmetic_runs_and_the_rest_does_not() {
        let add = ScalarOp::Kind(ScalarKind::Add);
        assert!(runs_node(&add, &[Float32, Int8], Float32));
        assert!(!runs_node(&add, &[Int64, Int64], Int64));
        assert!(!runs_node(&add, &[Complex64, Float32], Complex64));
        assert!(!runs_node(&ScalarOp::Cast(Float32), &[Float64], Float32));
        assert!(!runs_node(
            &ScalarKind::Lt.into(),
            &[Float64, Float64],
            Bool
        ));
        assert!(runs_sum(ReduceKind::Sum, Float32, Float64, Float32));
        assert!(!runs_sum(ReduceKind::Prod, Float64, Float64, Float64));
        assert!(!runs_sum(ReduceKind::Sum, Float32, Float32, Float64));
    }
}
