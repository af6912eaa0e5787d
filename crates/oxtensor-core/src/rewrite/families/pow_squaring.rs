//! `local_pow_to_nested_squaring` (specialize, as PyTensor's
//! `tensor/rewriting/math.py`): `x ** n` for a constant integer `n` with
//! `2 < |n| <= 512` (PyTensor's bound) as repeated squaring, `x ** 13 =
//! x * x⁴ * x⁸` with `x⁴ = sqr(sqr(x))`, and its reciprocal for negative
//! `n` on floats: a few multiplications instead of `powf`. Smaller powers
//! are `local_pow_specialize`'s. Integer results are exact (wrapping
//! products are associative); float results differ from `pow` by rounding:
//! at most about `|n|` units in the last place, no more than a change of
//! `x` in its last place makes in `x ** n` itself.

use super::util::{cast_to, constant_f64, dtype_of, elemwise, inputs, like, output};
use crate::dtype::Kind;
use crate::error::Result;
use crate::graph::{FunctionGraph, NodeId, VarId};
use crate::rewrite::db::RewriteDb;
use crate::rewrite::optdb::{phase, register_in};
use crate::rewrite::rewriter::Rewrite;
use crate::scalar::ScalarKind::*;

/// The largest exponent written out (PyTensor's "512 is too small for the
/// cpu and too big for some gpu").
const MAX_POWER: u32 = 512;

pub(super) fn register(db: &RewriteDb) -> Result<()> {
    let rw = scalar_rw!(
        "local_pow_to_nested_squaring",
        [Pow],
        local_pow_to_nested_squaring
    );
    register_in(db, phase::SPECIALIZE, rw, &[])
}

/// `|p|` when `p` is an integer with `2 < |p| <= MAX_POWER`.
fn exponent(p: f64) -> Option<u32> {
    let n = p.abs();
    (n.fract() == 0.0 && n > 2.0 && n <= MAX_POWER as f64).then_some(n as u32)
}

/// `x ** n` as products of repeated squares (the set bits of `n`).
fn squarings(fg: &mut FunctionGraph, x: VarId, n: u32) -> Result<VarId> {
    let mut square = x;
    let mut factors = Vec::new();
    for bit in 0..u32::BITS - n.leading_zeros() {
        if bit > 0 {
            square = elemwise(fg, Sqr, &[square])?;
        }
        if n & (1 << bit) != 0 {
            factors.push(square);
        }
    }
    match factors.as_slice() {
        [one] => Ok(*one),
        many => elemwise(fg, Mul, many),
    }
}

fn local_pow_to_nested_squaring(fg: &mut FunctionGraph, node: NodeId) -> Result<Option<Rewrite>> {
    let [x, y] = inputs(fg, node)[..] else {
        return Ok(None);
    };
    let out = output(fg, node);
    let (Some(p), Some(dtype)) = (constant_f64(fg, y), dtype_of(fg, out)) else {
        return Ok(None);
    };
    let Some(n) = exponent(p) else {
        return Ok(None);
    };
    // Integer powers with a negative exponent raise; float16 and complex
    // have no exact-enough squares here.
    let ok = match dtype.kind() {
        Kind::Int | Kind::UInt => p > 0.0,
        Kind::Float => dtype != crate::dtype::DType::Float16,
        Kind::Bool | Kind::Complex => false,
    };
    if !ok {
        return Ok(None);
    }
    let x_t = cast_to(fg, x, dtype)?;
    let mut new = squarings(fg, x_t, n)?;
    if p < 0.0 {
        new = elemwise(fg, Reciprocal, &[new])?;
    }
    Ok(Some(Rewrite::one(like(fg, new, out, &[x, y])?)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, check_prints, printed, rewrite, Case};
    use crate::build;
    use crate::dtype::DType;

    use crate::graph::testing::graph_with;
    use crate::tensor::Tensor;

    /// `x ** p` of a 1-d `x` of `dtype` (the exponent an int16 constant
    /// when it is an integer, else one of `x`'s dtype).
    fn power(dtype: DType, p: f64) -> Case {
        let (mut g, [x]) = graph_with([("x", dtype, 1)]);
        let c_dtype = if p.fract() == 0.0 {
            DType::Int16
        } else {
            dtype
        };
        let c = build::scalar_constant(&mut g, c_dtype, p);
        let y = build::pow(&mut g, x, c).unwrap();
        Case::new(g, vec![x], vec![y])
    }

    fn values(dtype: DType) -> [Tensor; 1] {
        let t = Tensor::from_vec(vec![4], vec![1.5f64, -2.0, 0.75, 3.0]).unwrap();
        [crate::kernels::elemwise::cast::cast(&t, dtype).unwrap()]
    }

    #[test]
    fn integer_powers_are_repeated_squares() {
        let fg = check(
            &power(DType::Float64, 13.0),
            &["specialize"],
            &values(DType::Float64),
            1e-14,
        );
        assert_eq!(
            printed(&fg),
            "Mul [id A]\n ├─ x [id B]\n ├─ Sqr [id C]\n │  └─ Sqr [id D]\n │     └─ x [id B]\n └─ Sqr [id E]\n    └─ Sqr [id C]\n       └─ ···\n"
        );
        check_prints(
            &power(DType::Float32, -4.0),
            &["specialize"],
            &values(DType::Float32),
            1e-6,
            "Reciprocal [id A]\n └─ Sqr [id B]\n    └─ Sqr [id C]\n       └─ x [id D]\n",
        );
        // Integers: exact, wrapping as `pow` does (3 ** 100 in int64).
        check(
            &power(DType::Int8, 5.0),
            &["specialize"],
            &values(DType::Int8),
            0.0,
        );
        check(
            &power(DType::Int64, 100.0),
            &["specialize"],
            &values(DType::Int64),
            0.0,
        );
    }

    #[test]
    fn other_powers_stay() {
        for p in [2.5, 600.0] {
            let args = values(DType::Float64);
            let fg = check(&power(DType::Float64, p), &["specialize"], &args, 0.0);
            assert!(printed(&fg).starts_with("Pow"), "x ** {p}");
        }
        // A negative integer power of integers raises when run: kept so.
        let mut fg = power(DType::Int32, -3.0).fgraph();
        rewrite(&mut fg, &["specialize"]);
        assert!(printed(&fg).starts_with("Pow"));
    }
}
