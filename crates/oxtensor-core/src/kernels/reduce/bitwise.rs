//! The bitwise folds `CAReduce(and_)`, `CAReduce(or_)` and `CAReduce(xor)`
//! of integers (and `xor` of bools), with NumPy's identities: every bit
//! set for `and_` (`-1`, or the unsigned maximum), none for `or_` and
//! `xor`, so an empty fold gives those. Simple on purpose: the general
//! walk, which already splits large inputs across threads.

use super::run;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::match_ints;
use crate::reduction::ReduceKind;
use crate::tensor::Tensor;

macro_rules! fold_bits {
    ($kind:expr, $t:expr, $axes:expr, $out:expr, $T:ty) => {
        match $kind {
            ReduceKind::BitAnd => run::<$T>($t, $axes, $out, !0, |a: $T, b: $T| a & b),
            ReduceKind::BitOr => run::<$T>($t, $axes, $out, 0, |a: $T, b: $T| a | b),
            _ => run::<$T>($t, $axes, $out, 0, |a: $T, b: $T| a ^ b),
        }
    };
}

/// Folds `t` (in `out`'s dtype) over `axes` into `out` with the bitwise
/// `kind`; other dtypes than integers and bools are a `TypeError`.
pub(super) fn reduce_bits(
    kind: ReduceKind,
    t: &Tensor,
    axes: &[usize],
    out: &mut Tensor,
) -> Result<()> {
    use DType::*;
    match_ints!(
        out.dtype(),
        |T| fold_bits!(kind, t, axes, out, T),
        Bool => bool_bits(kind, t, axes, out),
        other => {
            return Err(Error::Type(format!(
                "CAReduce{{{}}} folds the bits of integers or bools, not {other}",
                kind.scalar_name()
            )))
        }
    );
    Ok(())
}

/// Bools read as bytes (any nonzero byte is true): each step takes in a
/// 0/1 value, so the results stay 0 or 1.
fn bool_bits(kind: ReduceKind, t: &Tensor, axes: &[usize], out: &mut Tensor) {
    let bytes = t.bool_bytes();
    // SAFETY: the output starts at 0 or 1 and each step combines it with
    // a 0/1 value by `&`, `|` or `^`, which keep it 0 or 1.
    unsafe {
        out.as_bool_bytes_mut(|out| match kind {
            ReduceKind::BitAnd => run(&bytes, axes, out, 1u8, |a: u8, b: u8| a & u8::from(b != 0)),
            ReduceKind::BitOr => run(&bytes, axes, out, 0u8, |a: u8, b: u8| a | u8::from(b != 0)),
            _ => run(&bytes, axes, out, 0u8, |a: u8, b: u8| a ^ u8::from(b != 0)),
        })
    }
}
