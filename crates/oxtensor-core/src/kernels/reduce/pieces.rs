//! Sums and products whose accumulator is wider than the input (float32
//! summed in float64, as PyTensor's `acc_dtype`; int32 in int64): casting
//! the whole input first wrote an accumulator-sized copy (128 MiB for a
//! 4000x4000 float32 sum, 3.5-4x NumPy's time). Here the input is cut
//! into slabs of its first axis, each cast and reduced on its own (in
//! parallel, the cast copy staying in cache), and the slabs' results are
//! joined in order: written side by side when the first axis is kept,
//! combined one after the other when it is reduced, so the result does not
//! depend on the thread count.

use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::elemwise::cast;
use crate::reduction::ReduceKind;
use crate::tensor::{Element, Tensor};
use rayon::prelude::*;

/// Elements per slab (2 MiB of float64 once cast).
const SLAB: usize = 1 << 18;

/// Inputs below this many elements are cast whole.
const MIN_ELEMENTS: usize = 1 << 20;

/// Whether `reduce_slabs` takes a reduction of `t` into `acc`.
pub(super) fn worth_slabs(kind: ReduceKind, t: &Tensor, acc: DType) -> bool {
    let widening = t.dtype() != acc && combinable(acc);
    matches!(kind, ReduceKind::Sum | ReduceKind::Prod)
        && widening
        && t.ndim() >= 1
        && t.shape()[0] >= 2
        && t.len() >= MIN_ELEMENTS
}

fn combinable(acc: DType) -> bool {
    matches!(
        acc,
        DType::Float64 | DType::Float32 | DType::Int64 | DType::UInt64
    )
}

/// Reduces `t` over `axes` into `out` (accumulator dtype, the kept shape)
/// slab by slab; `reduce` reduces one cast slab into its output.
pub(super) fn reduce_slabs(
    kind: ReduceKind,
    t: &Tensor,
    axes: &[usize],
    out: &mut Tensor,
    reduce: impl Fn(&Tensor, &mut Tensor) -> Result<()> + Sync,
) -> Result<()> {
    let acc = out.dtype();
    let rows = t.shape()[0];
    let per_row = t.len() / rows;
    let step = (SLAB / per_row.max(1)).max(1);
    let first_reduced = axes.contains(&0);
    let parts: Vec<Tensor> = (0..rows.div_ceil(step))
        .into_par_iter()
        .map(|k| {
            let (r0, r1) = (k * step, rows.min((k + 1) * step));
            let slab = slab(t, r0, r1)?;
            let mut shape = out.shape().to_vec();
            if !first_reduced {
                shape[0] = r1 - r0;
            }
            let mut part = Tensor::uninit(acc, &shape)?;
            reduce(&cast::cast(&slab, acc)?, &mut part)?;
            Ok(part)
        })
        .collect::<Result<_>>()?;
    use DType::*;
    match (acc, kind) {
        (Float64, ReduceKind::Sum) => join(&parts, out, first_reduced, |a: f64, b| a + b),
        (Float64, _) => join(&parts, out, first_reduced, |a: f64, b| a * b),
        (Float32, ReduceKind::Sum) => join(&parts, out, first_reduced, |a: f32, b| a + b),
        (Float32, _) => join(&parts, out, first_reduced, |a: f32, b| a * b),
        // Wrapping, as the integer kernels (and NumPy) do.
        (Int64, ReduceKind::Sum) => join(&parts, out, first_reduced, i64::wrapping_add),
        (Int64, _) => join(&parts, out, first_reduced, i64::wrapping_mul),
        (UInt64, ReduceKind::Sum) => join(&parts, out, first_reduced, u64::wrapping_add),
        (UInt64, _) => join(&parts, out, first_reduced, u64::wrapping_mul),
        (other, _) => unreachable!("worth_slabs only takes combinable dtypes, not {other}"),
    }
    Ok(())
}

/// Rows `r0..r1` of `t`'s first axis, as a view.
fn slab(t: &Tensor, r0: usize, r1: usize) -> Result<Tensor> {
    let mut shape = t.shape().to_vec();
    shape[0] = r1 - r0;
    let skip = r0 as isize * t.strides()[0];
    t.view(&shape, t.strides(), (t.offset() as isize + skip) as usize)
}

/// `out` from the slabs' results: combined with `f` in order when the
/// first axis is reduced, else their rows one after the other.
fn join<T: Element>(
    parts: &[Tensor],
    out: &mut Tensor,
    first_reduced: bool,
    f: impl Fn(T, T) -> T,
) {
    let y = out.as_mut_slice::<T>().expect("fresh output");
    if first_reduced {
        y.copy_from_slice(parts[0].as_slice::<T>().expect("fresh part"));
        for p in &parts[1..] {
            let p = p.as_slice::<T>().expect("fresh part");
            y.iter_mut().zip(p).for_each(|(a, &b)| *a = f(*a, b));
        }
    } else {
        let mut at = 0;
        for p in parts {
            let p = p.as_slice::<T>().expect("fresh part");
            y[at..at + p.len()].copy_from_slice(p);
            at += p.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::reduce;
    use super::*;
    use crate::kernels::reduce::tests::close;

    /// The reduction with the whole input cast first (the plain path).
    fn whole(kind: ReduceKind, t: &Tensor, axes: &[usize], acc: DType) -> Vec<f64> {
        let wide = cast::cast(t, acc).unwrap();
        let out = reduce(kind, &wide, axes, acc, DType::Float64, None).unwrap();
        out.as_slice::<f64>().unwrap().to_vec()
    }

    fn slabs(kind: ReduceKind, t: &Tensor, axes: &[usize], acc: DType) -> Vec<f64> {
        assert!(worth_slabs(kind, t, acc), "{:?} {axes:?}", t.shape());
        let out = reduce(kind, t, axes, acc, DType::Float64, None).unwrap();
        out.as_slice::<f64>().unwrap().to_vec()
    }

    #[test]
    fn float32_slabs_match_the_whole_cast_over_every_axis_and_layout() {
        let (r, c) = (1100, 1031);
        let v: Vec<f32> = (0..r * c)
            .map(|i| ((i * 7) % 113) as f32 * 0.25 - 9.0)
            .collect();
        let t = Tensor::from_vec(vec![r, c], v).unwrap();
        let tt = t.view(&[c, r], &[4, 4 * c as isize], 0).unwrap();
        let cube = t
            .view(&[10, 110, c], &[4 * 110 * c as isize, 4 * c as isize, 4], 0)
            .unwrap();
        let cases: [(&Tensor, &[usize]); 7] = [
            (&t, &[0]),
            (&t, &[1]),
            (&t, &[0, 1]),
            (&tt, &[0]),
            (&tt, &[1]),
            (&cube, &[0, 2]),
            (&cube, &[1]),
        ];
        for (x, axes) in cases {
            let case = format!("{:?} {axes:?}", x.shape());
            let got = slabs(ReduceKind::Sum, x, axes, DType::Float64);
            close(
                &got,
                &whole(ReduceKind::Sum, x, axes, DType::Float64),
                &case,
            );
        }
        // Products of values near one, NaN and infinities propagate.
        let mut p: Vec<f32> = (0..r * c)
            .map(|i| 1.0 + ((i % 7) as f32 - 3.0) * 1e-5)
            .collect();
        p[5 * c + 3] = f32::NAN;
        p[700 * c + 9] = f32::INFINITY;
        let pt = Tensor::from_vec(vec![r, c], p).unwrap();
        for axes in [&[0][..], &[1]] {
            let got = slabs(ReduceKind::Prod, &pt, axes, DType::Float64);
            let want = whole(ReduceKind::Prod, &pt, axes, DType::Float64);
            for (x, y) in got.iter().zip(&want) {
                let same = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= 1e-12;
                assert!(same, "prod {axes:?}: {x} vs {y}");
            }
        }
    }

    #[test]
    fn integer_sums_wrap_as_the_whole_cast_does() {
        let v: Vec<i32> = (0..3 * (1 << 19)).map(|i| i32::MAX - (i % 5)).collect();
        let t = Tensor::from_vec(vec![3 << 9, 1 << 10], v).unwrap();
        for axes in [&[0][..], &[1], &[0, 1]] {
            let wide = cast::cast(&t, DType::Int64).unwrap();
            let want = reduce(
                ReduceKind::Sum,
                &wide,
                axes,
                DType::Int64,
                DType::Int64,
                None,
            )
            .unwrap();
            assert!(worth_slabs(ReduceKind::Sum, &t, DType::Int64));
            let got = reduce(ReduceKind::Sum, &t, axes, DType::Int64, DType::Int64, None).unwrap();
            assert_eq!(got.as_slice::<i64>(), want.as_slice::<i64>(), "{axes:?}");
        }
    }

    #[test]
    fn small_or_same_dtype_inputs_are_left_to_the_plain_path() {
        let t = Tensor::zeros(DType::Float32, &[4, 4]).unwrap();
        assert!(!worth_slabs(ReduceKind::Sum, &t, DType::Float64));
        let big = Tensor::zeros(DType::Float64, &[2048, 1024]).unwrap();
        assert!(!worth_slabs(ReduceKind::Sum, &big, DType::Float64));
        let f = Tensor::zeros(DType::Float32, &[2048, 1024]).unwrap();
        assert!(!worth_slabs(ReduceKind::Max, &f, DType::Float64));
    }
}
