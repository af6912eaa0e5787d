//! The elementwise kernel: checks runtime shapes (only statically
//! broadcastable dimensions may broadcast, as in PyTensor), casts inputs to
//! the dtype the operation computes in, and dispatches to the typed loops:
//! per dtype family (`float_ops`, `int_ops`, `complex_ops`, `bool_ops`,
//! `special`), the float kinds without a loop of their own through the
//! scalar table's element functions (`crate::scalar`). The maps (`map*`,
//! `lanes`) are the strided loops they run on.

pub mod bool_ops;
pub mod cast;
pub(crate) mod complex_ops;
pub(crate) mod float_extremes;
mod float_ops;
pub mod float_scalar;
pub(crate) mod float_vec;
mod int_ops;
pub(crate) mod lane_group;
pub mod lanes;
pub mod map;
mod map_bool;
mod map_gather;
mod map_reversed;
mod polygamma;
mod special;
mod special_bessel;
mod special_beta;
#[cfg(test)]
mod special_check;
mod special_dual;
mod special_gamma;
mod special_halley;
mod special_hyp2f1;
mod special_owens;

use crate::dtype::{promote_all, DType};
use crate::error::{Error, Result};
use crate::kernels::alloc::order;
use crate::kernels::alloc::{fill_chunks, Pool};
use crate::kernels::iter::check_broadcast_size;
use crate::kernels::match_ints;
use crate::scalar::{OutputRule, ScalarKind, ScalarOp};
use crate::tensor::{Dims, Element, Tensor};
use half::f16;
use map::{map1, map2, map3};
use num_complex::Complex;
use smallvec::SmallVec;

/// Folds a binary operation over one or more inputs (`add(a, b, c)`).
pub(crate) fn fold<T: Element>(
    ins: &[&Tensor],
    out: &mut Tensor,
    f: impl Fn(T, T) -> T + Sync + Copy,
) -> Result<()> {
    match ins {
        [a] => map1(a, out, |x: T| x),
        [a, b] => map2(a, b, out, f),
        [a, b, rest @ ..] => {
            let mut acc = Tensor::uninit(out.dtype(), out.shape())?;
            map2(a, b, &mut acc, f);
            for (k, c) in rest.iter().enumerate() {
                if k + 1 == rest.len() {
                    map2(&acc, c, out, f);
                } else {
                    let mut next = Tensor::uninit(out.dtype(), out.shape())?;
                    map2(&acc, c, &mut next, f);
                    acc = next;
                }
            }
        }
        [] => {}
    }
    Ok(())
}

/// The output shape of equal-rank inputs. A dimension may broadcast only
/// where the input's static shape says it is 1 (`bcast[i][d]`), as PyTensor
/// requires; other mismatches are errors naming the shapes.
pub fn output_shape(inputs: &[&Tensor], bcast: &[Vec<bool>]) -> Result<Dims> {
    let ndim = inputs.first().map_or(0, |t| t.ndim());
    if inputs.iter().any(|t| t.ndim() != ndim) {
        return Err(Error::Shape(format!(
            "Elemwise inputs of different ranks: {}",
            shapes(inputs)
        )));
    }
    let mut out = Dims::new();
    for d in 0..ndim {
        let n = inputs
            .iter()
            .map(|t| t.shape()[d])
            .filter(|&n| n != 1)
            .max()
            .unwrap_or(1);
        for (i, t) in inputs.iter().enumerate() {
            let len = t.shape()[d];
            if len == n {
                continue;
            }
            if len != 1 {
                return Err(Error::Shape(format!(
                    "Input dimension mismatch: shapes {} differ in dimension {d}",
                    shapes(inputs)
                )));
            }
            if !bcast
                .get(i)
                .and_then(|b| b.get(d))
                .copied()
                .unwrap_or(false)
            {
                return Err(Error::Shape(
                    "Runtime broadcasting not allowed. At least one input has a distinct dimension length of 1, but was not marked as broadcastable.".into(),
                ));
            }
        }
        out.push(n);
    }
    check_broadcast_size(&out, || {
        format!("Elemwise inputs of shapes {}", shapes(inputs))
    })?;
    Ok(out)
}

fn shapes(inputs: &[&Tensor]) -> String {
    inputs
        .iter()
        .map(|t| format!("{:?}", t.shape()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The dtype `op` computes in, before any conversion to the output dtype.
fn compute_dtype(op: &ScalarOp, inputs: &[DType], out: DType) -> Result<DType> {
    let ScalarOp::Kind(k) = *op else {
        return Ok(out);
    };
    let dtype = match k.rule() {
        // NumPy's promotion, not `upcast`: how a node computes does not
        // follow the cast policy in force when it runs.
        OutputRule::Bool | OutputRule::ComplexToReal => promote_all(inputs)?,
        // `angle` of a complex input reads both parts, in double precision.
        OutputRule::Float64 if promote_all(inputs)?.is_complex() => DType::Complex128,
        _ => out,
    };
    // float16 arithmetic runs in float32 and is rounded back at the end.
    Ok(if dtype == DType::Float16 {
        DType::Float32
    } else {
        dtype
    })
}

/// The dtype input `i` is converted to before the loop runs, if any: the
/// computation dtype, except for `switch`'s condition and `second`'s first
/// input, which keep their own.
fn input_cast(k: ScalarKind, i: usize, dtype: DType, compute: DType) -> Option<DType> {
    let keep = matches!(k, ScalarKind::Switch | ScalarKind::Second) && i == 0;
    (!keep && dtype != compute).then_some(compute)
}

/// Input `i` (a constant) as [`elemwise`] would convert it on every call,
/// or `None` when it is used as is; `dtypes` are the node's input dtypes.
/// Handing the result to `elemwise` in the constant's place gives the same
/// values: the computation dtype is the upcast of all inputs (or the
/// output dtype), so it is unchanged when one input already has it.
pub fn prepare_input(
    op: &ScalarOp,
    i: usize,
    value: &Tensor,
    dtypes: &[DType],
    out_dtype: DType,
) -> Option<Tensor> {
    let ScalarOp::Kind(k) = *op else {
        return None;
    };
    let compute = compute_dtype(op, dtypes, out_dtype).ok()?;
    let to = input_cast(k, i, value.dtype(), compute)?;
    // A constant that cannot be converted now is converted (and reported)
    // on every call instead.
    cast::cast(value, to).ok()
}

/// `op` (one output: not a composite, see `kernels/fused/`) applied
/// elementwise; `bcast` holds each input's static broadcastable flags. The
/// output is laid out in NumPy's `order='K'` (`kernels/alloc/order.rs`).
pub fn elemwise(
    op: &ScalarOp,
    inputs: &[&Tensor],
    bcast: &[Vec<bool>],
    out_dtype: DType,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let shape = output_shape(inputs, bcast)?;
    let Some(axes) = order::k_order(&shape, inputs) else {
        return elemwise_c(op, inputs, shape, out_dtype, pool);
    };
    // The flags are only read by `output_shape`, checked above; the inputs
    // seen in `axes` order broadcast alike.
    order::in_order(&axes, &shape, inputs, |ins, shape| {
        elemwise_c(op, ins, shape.into(), out_dtype, pool)
    })
}

/// [`elemwise`] into a C-ordered output of `shape`, already checked.
fn elemwise_c(
    op: &ScalarOp,
    inputs: &[&Tensor],
    shape: Dims,
    out_dtype: DType,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let k = match *op {
        ScalarOp::Kind(k) => k,
        ScalarOp::Cast(to) => {
            let mut out = crate::kernels::alloc::output(pool, to, &shape)?;
            cast::cast_into(inputs[0], &mut out);
            return Ok(out);
        }
        ScalarOp::Composite(_) | ScalarOp::Loop(_) => {
            return Err(Error::Value(format!(
                "{op} runs on the fused kernel, not the single-op one"
            )))
        }
    };
    let dtypes: SmallVec<[DType; 4]> = inputs.iter().map(|t| t.dtype()).collect();
    let compute = compute_dtype(op, &dtypes, out_dtype)?;
    let produced = if out_dtype == DType::Float16 {
        DType::Float32
    } else {
        out_dtype
    };
    let mut out = crate::kernels::alloc::output(pool, produced, &shape)?;
    run_converted(k, compute, inputs, &mut out)?;
    Ok(if produced == out_dtype {
        out
    } else {
        cast::cast(&out, out_dtype)?
    })
}

/// `k` over `inputs` into `out`, converting the inputs of another dtype
/// than `compute` first (the rest are borrowed).
fn run_converted(
    k: ScalarKind,
    compute: DType,
    inputs: &[&Tensor],
    out: &mut Tensor,
) -> Result<()> {
    let casts = |i: usize, t: &Tensor| input_cast(k, i, t.dtype(), compute);
    if inputs
        .iter()
        .enumerate()
        .all(|(i, t)| casts(i, t).is_none())
    {
        return run(k, compute, inputs, out);
    }
    let converted: SmallVec<[Option<Tensor>; 4]> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| casts(i, t).map(|to| cast::cast(t, to)).transpose())
        .collect::<Result<_>>()?;
    let ins: SmallVec<[&Tensor; 4]> = inputs
        .iter()
        .zip(&converted)
        .map(|(&t, c)| c.as_ref().unwrap_or(t))
        .collect();
    run(k, compute, &ins, out)
}

/// [`elemwise`] written into `out`, the buffer of an input the node
/// destroys (`kernels/alloc/granted.rs`); whether it was (`false`: nothing was
/// written, allocate instead). Only in C order at the output's own shape
/// and dtype: there every kernel reads an element of each input before it
/// writes the output at that position (one pass, in chunks, on threads by
/// disjoint ranges), so an input sharing the output's memory is read
/// before it is overwritten. Other orders and float16 (computed in
/// float32, then converted) allocate.
pub fn elemwise_into(
    op: &ScalarOp,
    inputs: &[&Tensor],
    bcast: &[Vec<bool>],
    out: &mut Tensor,
) -> Result<bool> {
    let ScalarOp::Kind(k) = *op else {
        return Ok(false);
    };
    if !overwrites_in_one_pass(k) {
        return Ok(false);
    }
    let shape = output_shape(inputs, bcast)?;
    let c_order = order::k_order(&shape, inputs).is_none();
    if shape.as_slice() != out.shape() || !c_order || out.dtype() == DType::Float16 {
        return Ok(false);
    }
    let dtypes: SmallVec<[DType; 4]> = inputs.iter().map(|t| t.dtype()).collect();
    let compute = compute_dtype(op, &dtypes, out.dtype())?;
    run_converted(k, compute, inputs, out)?;
    Ok(true)
}

/// Kinds whose kernels may read an input element again after writing the
/// output there: the vectorised math that runs a branch-free fast path
/// over a block, then redoes the block's edge elements from the input
/// (`vmath/guarded.rs` and the like). Overwriting their input would feed
/// the redo its own output, so they allocate. `kernels/alloc/granted_tests.rs`
/// runs every kind into its own input against a fresh output, so a new
/// two-pass kernel is caught there and belongs here.
const TWO_PASS: [ScalarKind; 19] = [
    ScalarKind::Pow,
    ScalarKind::Log,
    ScalarKind::Log1p,
    ScalarKind::Log2,
    ScalarKind::Log10,
    ScalarKind::Log1mexp,
    ScalarKind::Sin,
    ScalarKind::Cos,
    ScalarKind::Tan,
    ScalarKind::ArcTan2,
    ScalarKind::Sinh,
    ScalarKind::Cosh,
    ScalarKind::ArcSinh,
    ScalarKind::ArcCosh,
    ScalarKind::ArcTanh,
    ScalarKind::Erfinv,
    ScalarKind::Erfcinv,
    ScalarKind::Gamma,
    ScalarKind::Psi,
];

/// Whether `k`'s kernels read each input element before writing the
/// output at its position, and never after (see [`TWO_PASS`]).
pub fn overwrites_in_one_pass(k: ScalarKind) -> bool {
    !TWO_PASS.contains(&k)
}

/// Dispatches on the compute dtype (inputs already in it; `out` fresh, of
/// the dtype `k` produces from it). The fused kernel calls it per block.
pub fn run_kind(k: ScalarKind, dtype: DType, ins: &[&Tensor], out: &mut Tensor) -> Result<()> {
    run(k, dtype, ins, out)
}

/// Dispatches on the compute dtype.
fn run(k: ScalarKind, dtype: DType, ins: &[&Tensor], out: &mut Tensor) -> Result<()> {
    if let Some(()) = generic(k, dtype, ins, out)? {
        return Ok(());
    }
    if let Some(()) = special::apply(k, dtype, ins, out)? {
        return Ok(());
    }
    use DType::*;
    match_ints!(
        dtype,
        |T| int_ops::apply::<T>(k, ins, out),
        Float32 => float_ops::apply::<f32>(k, ins, out),
        Float64 => float_ops::apply::<f64>(k, ins, out),
        Bool => bool_ops::apply_bool(k, ins, out),
        Complex64 => complex_ops::apply::<f32>(k, ins, out),
        Complex128 => complex_ops::apply::<f64>(k, ins, out),
        Float16 => Err(Error::Type(format!(
            "{} cannot compute in float16",
            k.name()
        ))),
    )
}

/// Ops that only move values (`identity`, `second`, `switch`), for any dtype.
fn generic(k: ScalarKind, dtype: DType, ins: &[&Tensor], out: &mut Tensor) -> Result<Option<()>> {
    macro_rules! by_type {
        ($f:ident, $ins:expr) => {{
            use DType::*;
            match_ints!(
                dtype,
                |T| $f::<T>($ins, out),
                Bool => $f::<bool>($ins, out),
                Float16 => $f::<f16>($ins, out),
                Float32 => $f::<f32>($ins, out),
                Float64 => $f::<f64>($ins, out),
                Complex64 => $f::<Complex<f32>>($ins, out),
                Complex128 => $f::<Complex<f64>>($ins, out),
            )
        }};
    }
    fn identity<T: Element>(ins: &[&Tensor], out: &mut Tensor) {
        map1(ins[0], out, |x: T| x);
    }
    fn second<T: Element>(ins: &[&Tensor], out: &mut Tensor) {
        // The first input gives only the shape, which is the output's: its
        // values are never read (`ones_like` read and cast all of `x`).
        match ins[1].as_slice::<T>() {
            Some(&[v]) => fill_chunks(out, |_, chunk: &mut [T]| chunk.fill(v)),
            _ => map1(ins[1], out, |y: T| y),
        }
    }
    fn switch<T: Element>(ins: &[&Tensor], out: &mut Tensor) {
        map3(
            ins[0],
            ins[1],
            ins[2],
            out,
            |c: bool, x: T, y: T| if c { x } else { y },
        );
    }
    fn zeros<T: Element>(ins: &[&Tensor], out: &mut Tensor) {
        map1(ins[0], out, |_: T| T::default());
    }
    match k {
        ScalarKind::Identity => by_type!(identity, ins),
        // The real part of a real number is itself, its imaginary part 0.
        ScalarKind::Real | ScalarKind::Conj if !dtype.is_complex() => by_type!(identity, ins),
        ScalarKind::Imag if !dtype.is_complex() => by_type!(zeros, ins),
        ScalarKind::Second => by_type!(second, ins),
        ScalarKind::Switch => {
            let cond = cast::cast(ins[0], DType::Bool)?;
            let triple = [&cond, ins[1], ins[2]];
            by_type!(switch, &triple[..])
        }
        _ => return Ok(None),
    }
    Ok(Some(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    /// The elementwise kernel of `kind` (no output buffer given).
    fn kind(k: ScalarKind, inputs: &[&Tensor], bc: &[Vec<bool>], out: DType) -> Result<Tensor> {
        elemwise(&ScalarOp::Kind(k), inputs, bc, out, None)
    }

    fn f64s(t: &Tensor) -> Vec<f64> {
        t.float_values().expect("float values")
    }

    #[test]
    fn mixed_dtypes_and_broadcast() {
        let a = Tensor::from_vec(vec![2, 2], vec![1i8, 2, 3, 4]).unwrap();
        let b = Tensor::from_vec(vec![1, 2], vec![0.5f64, 1.5]).unwrap();
        let bc = [vec![false, false], vec![true, false]];
        let out = kind(ScalarKind::Add, &[&a, &b], &bc, DType::Float64).unwrap();
        assert_eq!(f64s(&out), vec![1.5, 3.5, 3.5, 5.5]);
        let err = kind(
            ScalarKind::Add,
            &[&a, &b],
            &[vec![false; 2], vec![false; 2]],
            DType::Float64,
        );
        assert!(err
            .unwrap_err()
            .to_string()
            .starts_with("Runtime broadcasting not allowed"));
    }

    #[test]
    fn prepared_inputs_are_the_per_call_casts() {
        let add = ScalarOp::Kind(ScalarKind::Add);
        let two = Tensor::from_vec(vec![1], vec![2i8]).unwrap();
        // (op, input, input dtypes, output dtype, prepared dtype)
        let cases = [
            (
                add.clone(),
                1,
                [DType::Float64, DType::Int8],
                DType::Float64,
                Some(DType::Float64),
            ),
            (
                add.clone(),
                1,
                [DType::Int8, DType::Int8],
                DType::Int8,
                None,
            ),
            (
                ScalarOp::Kind(ScalarKind::Lt),
                1,
                [DType::Float32, DType::Int8],
                DType::Bool,
                Some(DType::Float32),
            ),
            (
                ScalarOp::Cast(DType::Float64),
                0,
                [DType::Int8, DType::Int8],
                DType::Float64,
                None,
            ),
        ];
        for (op, i, dtypes, out, want) in cases {
            let got = prepare_input(&op, i, &two, &dtypes, out).map(|t| t.dtype());
            assert_eq!(got, want, "{op:?} input {i} of {dtypes:?}");
        }
        // The prepared constant gives the same values as the original.
        let x = Tensor::from_vec(vec![2], vec![0.5f64, 1.0]).unwrap();
        let bc = [vec![false], vec![true]];
        let prepared = prepare_input(
            &add,
            1,
            &two,
            &[DType::Float64, DType::Int8],
            DType::Float64,
        )
        .unwrap();
        let a = elemwise(&add, &[&x, &two], &bc, DType::Float64, None).unwrap();
        let b = elemwise(&add, &[&x, &prepared], &bc, DType::Float64, None).unwrap();
        assert_eq!((f64s(&a), f64s(&b)), (vec![2.5, 3.0], vec![2.5, 3.0]));
    }

    #[test]
    fn every_family_runs() {
        let i = Tensor::from_vec(vec![3], vec![-7i32, 0, 7]).unwrap();
        let two = Tensor::from_vec(vec![3], vec![2i32, 2, 0]).unwrap();
        let bc = [vec![false], vec![false]];
        let q = kind(ScalarKind::IntDiv, &[&i, &two], &bc, DType::Int32).unwrap();
        assert_eq!((q.get(0), q.get(2)), (Scalar::Int(-4), Scalar::Int(0)));
        let d = kind(ScalarKind::TrueDiv, &[&i, &two], &bc, DType::Float64).unwrap();
        assert_eq!(f64s(&d)[0], -3.5);
        let lt = kind(ScalarKind::Lt, &[&i, &two], &bc, DType::Bool).unwrap();
        assert_eq!(lt.get(0), Scalar::Bool(true));
        let h = Tensor::from_vec(vec![1], vec![f16::from_f32(4.0)]).unwrap();
        let s = kind(ScalarKind::Sqrt, &[&h], &[vec![false]], DType::Float16).unwrap();
        assert_eq!(s.get(0), Scalar::Float(2.0, DType::Float16));
        let c = Tensor::from_vec(vec![1], vec![Complex::new(3.0f64, 4.0)]).unwrap();
        let m = kind(ScalarKind::Abs, &[&c], &[vec![false]], DType::Float64).unwrap();
        assert_eq!(f64s(&m), vec![5.0]);
        let cond = Tensor::from_vec(vec![3], vec![true, false, true]).unwrap();
        let sw = kind(
            ScalarKind::Switch,
            &[&cond, &i, &two],
            &vec![vec![false]; 3],
            DType::Int32,
        )
        .unwrap();
        assert_eq!(sw.get(1), Scalar::Int(2));
    }
}
