//! Reductions (`sum`, `prod`, `max`, `min`, `all`, `any`) over any axes:
//! the accumulator dtype, each kind's starting value and combining
//! function per dtype (NumPy's NaN and complex-order rules), and NumPy's
//! errors for empty reductions. The loops themselves are in `reduce_walk`.

pub(crate) mod byte_fold;
mod cumulative;
mod mapped;
mod pieces;
mod variance;
pub(crate) mod walk;

pub use cumulative::{cumulative, CumMode};
pub use variance::centred_squares;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::kernels::cast;
use crate::kernels::complex_ops::{maximum, minimum};
#[cfg(target_arch = "x86_64")]
use crate::kernels::float_extremes::trailing_extremes;
use crate::kernels::lane_group::{extremes, folds, Extreme};
use crate::kernels::lanes::for_each_lane;
use crate::kernels::reduce::byte_fold::{min_bytes, or_bytes};
use crate::kernels::reduce::mapped::reduce_mapped;
use crate::kernels::reduce::pieces::{reduce_slabs, worth_slabs};
use crate::kernels::reduce::walk::{fill, reduce_typed, Fold};
use crate::reduction::ReduceKind;
use crate::tensor::{Element, Tensor};
use num_complex::Complex;

fn run<T: Element>(t: &Tensor, axes: &[usize], out: &mut Tensor, init: T, f: impl Fold<T>) {
    fill(out, init);
    reduce_typed(t, axes, out, init, f);
}

macro_rules! numeric {
    ($kind:expr, $t:expr, $axes:expr, $out:expr, $T:ty, $min:expr, $max:expr, $add:expr, $mul:expr, $maxf:expr, $minf:expr) => {
        match $kind {
            ReduceKind::Sum => run::<$T>($t, $axes, $out, <$T>::default(), $add),
            ReduceKind::Prod => run::<$T>($t, $axes, $out, 1 as $T, $mul),
            ReduceKind::Max => run::<$T>($t, $axes, $out, $min, $maxf),
            ReduceKind::Min => run::<$T>($t, $axes, $out, $max, $minf),
            ReduceKind::All | ReduceKind::Any => unreachable!("logical reductions run on bools"),
        }
    };
}

macro_rules! int_reduce {
    ($kind:expr, $t:expr, $axes:expr, $out:expr, $T:ty) => {
        numeric!(
            $kind,
            $t,
            $axes,
            $out,
            $T,
            <$T>::MIN,
            <$T>::MAX,
            |a: $T, b: $T| a.wrapping_add(b),
            |a: $T, b: $T| a.wrapping_mul(b),
            |a: $T, b: $T| a.max(b),
            |a: $T, b: $T| a.min(b)
        )
    };
}

macro_rules! float_reduce {
    ($kind:expr, $t:expr, $axes:expr, $out:expr, $T:ty) => {
        numeric!(
            $kind,
            $t,
            $axes,
            $out,
            $T,
            <$T>::NEG_INFINITY,
            <$T>::INFINITY,
            |a: $T, b: $T| a + b,
            |a: $T, b: $T| a * b,
            FloatExtreme::<false>,
            FloatExtreme::<true>
        )
    };
}

/// `max` (`min` with `MIN`) of floats, NaN winning. One at a time: a NaN
/// `acc` stays (no comparison with it holds), a NaN `x` is taken, in two
/// compares and a select. Four rows at once (`max` down the columns): the
/// four are paired (a compare and select each, a vector max), and their
/// NaNs found in two unordered compares, half the work per element of
/// four in order. Ties keep the earlier value, as in order. `max` along
/// axis 0 of 4000x4000 float64: 4.7 -> 4.3 ms on one thread, 2.2-2.4 ->
/// 2.1-2.2 ms on two (the loop waits on its loads either way).
#[derive(Clone, Copy)]
struct FloatExtreme<const MIN: bool>;

impl<const MIN: bool> FloatExtreme<MIN> {
    /// `later` if it beats `earlier`, else `earlier` (also when either is
    /// NaN): one `maxpd`/`minpd`.
    #[inline(always)]
    fn pick<T: num_traits::Float>(later: T, earlier: T) -> T {
        let beats = if MIN {
            later < earlier
        } else {
            later > earlier
        };
        if beats {
            later
        } else {
            earlier
        }
    }
}

impl<T: num_traits::Float + Send + Sync, const MIN: bool> Fold<T> for FloatExtreme<MIN> {
    #[inline(always)]
    fn one(&self, acc: T, x: T) -> T {
        if x.is_nan() {
            x
        } else {
            Self::pick(x, acc)
        }
    }

    #[inline(always)]
    fn four(&self, acc: T, a: T, b: T, c: T, d: T) -> T {
        let best = Self::pick(Self::pick(d, c), Self::pick(b, a));
        // `a + b + c + d` is one of their NaNs when any is NaN.
        match a.is_nan() | b.is_nan() | c.is_nan() | d.is_nan() {
            true => (a + b) + (c + d),
            false => Self::pick(best, acc),
        }
    }
}

/// Reduces `t` over `axes` (sorted, in range), accumulating in `acc` and
/// returning `out_dtype`.
pub fn reduce(
    kind: ReduceKind,
    t: &Tensor,
    axes: &[usize],
    acc: DType,
    out_dtype: DType,
    pool: Option<&mut Pool>,
) -> Result<Tensor> {
    let out_shape: Vec<usize> = (0..t.ndim())
        .filter(|d| !axes.contains(d))
        .map(|d| t.shape()[d])
        .collect();
    let reduced: usize = axes.iter().map(|&d| t.shape()[d]).product();
    // NumPy refuses an empty reduction without identity even when the
    // output is empty too (`np.zeros((0, 0)).max(axis=1)`).
    if reduced == 0 && matches!(kind, ReduceKind::Max | ReduceKind::Min) {
        return Err(Error::Value(format!(
            "zero-size array to reduction operation {} which has no identity",
            if kind == ReduceKind::Max {
                "maximum"
            } else {
                "minimum"
            }
        )));
    }
    let acc = match kind {
        ReduceKind::All | ReduceKind::Any => DType::Bool,
        _ if acc == DType::Float16 => DType::Float32,
        _ => acc,
    };
    let mut out = crate::kernels::alloc::output(pool, acc, &out_shape)?;
    let run = |input: &Tensor, out: &mut Tensor| {
        if !trailing_extremes(kind, input, axes, out) && !last_axes(kind, input, axes, out) {
            dispatch(kind, input, axes, out)?;
        }
        Ok(())
    };
    if reduce_mapped(kind, t, axes, &mut out) {
        return cast::cast(&out, out_dtype);
    }
    if worth_slabs(kind, t, acc) {
        reduce_slabs(kind, t, axes, &mut out, run)?;
    } else {
        run(&cast::cast(t, acc)?, &mut out)?;
    }
    cast::cast(&out, out_dtype)
}

/// Without x86-64 the general walk does every float `max`/`min`.
#[cfg(not(target_arch = "x86_64"))]
fn trailing_extremes(_: ReduceKind, _: &Tensor, _: &[usize], _: &mut Tensor) -> bool {
    false
}

/// The length of the lanes `axes` cut `t` into, when they are its last
/// axes (so each lane is contiguous if `t` is) and the lanes are not
/// empty; `None` otherwise, and for no axes.
pub(super) fn trailing_lane(t: &Tensor, axes: &[usize]) -> Option<usize> {
    let first = t.ndim() - axes.len();
    let trailing = axes.iter().enumerate().all(|(i, &d)| d == first + i);
    let n: usize = axes.iter().map(|&d| t.shape()[d]).product();
    (!axes.is_empty() && trailing && n > 0).then_some(n)
}

/// Lanes per thread below which [`last_axes`] leaves a reduction to the
/// general walk.
const LANES_PER_THREAD: usize = 16;

/// `max`/`min` of float64 and `sum` of float32/float64 over the last axes
/// of a C-contiguous input: its lanes are contiguous and read several at
/// a time (`lane_group`; the general walk folds one row at a time and was
/// 1.3x slower on 4000x4000 rows). `max`/`min` come here only when
/// `float_extremes` did not take them (no AVX2). Returns whether it ran.
fn last_axes(kind: ReduceKind, t: &Tensor, axes: &[usize], out: &mut Tensor) -> bool {
    // Few long lanes are better split across threads within a lane, as
    // the general walk does (e.g. a sum over all axes).
    let enough_lanes = out.len() >= LANES_PER_THREAD * rayon::current_num_threads();
    let Some(n) = trailing_lane(t, axes).filter(|_| enough_lanes) else {
        return false;
    };
    let ext = match kind {
        ReduceKind::Max => Extreme::Max,
        ReduceKind::Min => Extreme::Min,
        ReduceKind::Sum => {
            return last_axes_sum::<f64>(t, n, out) || last_axes_sum::<f32>(t, n, out)
        }
        _ => return false,
    };
    let (Some(x), Some(y)) = (t.as_slice::<f64>(), out.as_mut_slice::<f64>()) else {
        return false;
    };
    extremes(x, n, y, ext);
    true
}

/// The sum part of [`last_axes`] for dtype `T`, in the general walk's
/// order within a lane (so with its results when it does not split lanes
/// across threads, which it does only for few lanes).
fn last_axes_sum<T: Element + num_traits::Float>(t: &Tensor, n: usize, out: &mut Tensor) -> bool {
    let (Some(x), Some(y)) = (t.as_slice::<T>(), out.as_mut_slice::<T>()) else {
        return false;
    };
    folds(x, n, y, T::zero(), |a: T, b: T| a + b);
    true
}

fn dispatch(kind: ReduceKind, t: &Tensor, axes: &[usize], out: &mut Tensor) -> Result<()> {
    use DType::*;
    match out.dtype() {
        Bool => logical(kind, t, axes, out),
        Int8 => int_reduce!(kind, t, axes, out, i8),
        Int16 => int_reduce!(kind, t, axes, out, i16),
        Int32 => int_reduce!(kind, t, axes, out, i32),
        Int64 => int_reduce!(kind, t, axes, out, i64),
        UInt8 => int_reduce!(kind, t, axes, out, u8),
        UInt16 => int_reduce!(kind, t, axes, out, u16),
        UInt32 => int_reduce!(kind, t, axes, out, u32),
        UInt64 => int_reduce!(kind, t, axes, out, u64),
        Float32 => float_reduce!(kind, t, axes, out, f32),
        Float64 => float_reduce!(kind, t, axes, out, f64),
        Complex64 => complex_reduce::<f32>(kind, t, axes, out)?,
        Complex128 => complex_reduce::<f64>(kind, t, axes, out)?,
        Float16 => {
            return Err(Error::Type(
                "reductions accumulate float16 in float32".into(),
            ))
        }
    }
    Ok(())
}

/// A reduction of bools, read as bytes (any nonzero byte is true, as host
/// memory may hold them; `kernels/bool_ops.rs`). Each step takes in a 0/1
/// value, so the running results, partial ones too, stay 0 or 1.
fn logical(kind: ReduceKind, t: &Tensor, axes: &[usize], out: &mut Tensor) {
    let bytes = t.bool_bytes();
    let all = matches!(kind, ReduceKind::All | ReduceKind::Prod | ReduceKind::Min);
    // SAFETY: the output starts at 0 or 1 and each step ANDs or ORs in a
    // 0/1 value, so every byte it holds is 0 or 1; `logical_rows` writes
    // comparisons.
    unsafe {
        out.as_bool_bytes_mut(|out| {
            if logical_rows(&bytes, axes, out, all) {
                return;
            }
            if all {
                run(&bytes, axes, out, 1u8, |a: u8, b: u8| a & (b != 0) as u8)
            } else {
                run(&bytes, axes, out, 0u8, |a: u8, b: u8| a | (b != 0) as u8)
            }
        })
    }
}

/// `all`/`any` over the trailing axes of a C-contiguous input: each output
/// byte folds one contiguous row, 32 bytes at a time (the general walk's
/// sixteen-lane fold of `a | (b != 0)` ran at a tenth of NumPy's `any`
/// over rows of 2000x2000). Returns whether it ran.
fn logical_rows(bytes: &Tensor, axes: &[usize], out: &mut Tensor, all: bool) -> bool {
    let Some(n) = trailing_lane(bytes, axes) else {
        return false;
    };
    let (Some(x), Some(y)) = (bytes.as_slice::<u8>(), out.as_mut_slice::<u8>()) else {
        return false;
    };
    let row = |a: &[u8], b: &mut [u8]| {
        b[0] = if all {
            min_bytes(a) != 0
        } else {
            or_bytes(a) != 0
        } as u8;
    };
    if x.len() < crate::kernels::PARALLEL_BYTES {
        x.chunks_exact(n)
            .zip(y.iter_mut())
            .for_each(|(a, b)| row(a, std::slice::from_mut(b)));
    } else {
        for_each_lane(x, n, y, 1, row);
    }
    true
}

fn complex_reduce<T: num_traits::Float + Default + Send + Sync + 'static>(
    kind: ReduceKind,
    t: &Tensor,
    axes: &[usize],
    out: &mut Tensor,
) -> Result<()>
where
    Complex<T>: Element,
{
    match kind {
        ReduceKind::Sum => run(
            t,
            axes,
            out,
            Complex::new(T::zero(), T::zero()),
            |a: Complex<T>, b: Complex<T>| a + b,
        ),
        ReduceKind::Prod => run(
            t,
            axes,
            out,
            Complex::new(T::one(), T::zero()),
            |a: Complex<T>, b: Complex<T>| a * b,
        ),
        // NumPy orders complex numbers lexicographically; these starting
        // values lose to every number, and NaNs propagate.
        ReduceKind::Max => run(
            t,
            axes,
            out,
            Complex::new(T::neg_infinity(), T::neg_infinity()),
            maximum::<T>,
        ),
        ReduceKind::Min => run(
            t,
            axes,
            out,
            Complex::new(T::infinity(), T::infinity()),
            minimum::<T>,
        ),
        ReduceKind::All | ReduceKind::Any => {
            unreachable!("logical reductions run on bools")
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    #[test]
    fn all_and_any_read_bool_bytes_as_nonzero() {
        // Columns: all nonzero bytes, one zero, all zero.
        let bytes = vec![2, 0x80, 0, 0xff, 0, 0, 7, 3, 0];
        let t = Tensor::from_bytes(DType::Bool, vec![3, 3], bytes).unwrap();
        let run = |kind, axes: &[usize]| {
            let r = reduce(kind, &t, axes, DType::Bool, DType::Bool, None).unwrap();
            assert!(r.to_c_bytes().unwrap().iter().all(|&b| b <= 1));
            (0..r.len()).map(|i| r.get(i)).collect::<Vec<_>>()
        };
        let b = |v: &[bool]| v.iter().map(|&x| Scalar::Bool(x)).collect::<Vec<_>>();
        assert_eq!(run(ReduceKind::All, &[0]), b(&[true, false, false]));
        assert_eq!(run(ReduceKind::Any, &[0]), b(&[true, true, false]));
        assert_eq!(run(ReduceKind::All, &[1]), b(&[false, false, false]));
        assert_eq!(run(ReduceKind::Any, &[0, 1]), b(&[true]));
        assert_eq!(
            run(ReduceKind::All, &[]),
            b(&[true, true, false, true, false, false, true, true, false])
        );
    }

    fn m() -> Tensor {
        Tensor::from_vec(vec![2, 3], vec![1.0f64, 2., 3., 4., 5., 6.]).unwrap()
    }

    #[test]
    fn sums_over_each_axis() {
        let s0 = reduce(
            ReduceKind::Sum,
            &m(),
            &[0],
            DType::Float64,
            DType::Float64,
            None,
        )
        .unwrap();
        assert_eq!(s0.shape(), &[3]);
        assert_eq!(s0.get(2), Scalar::Float(9.0, DType::Float64));
        let s1 = reduce(
            ReduceKind::Sum,
            &m(),
            &[1],
            DType::Float64,
            DType::Float64,
            None,
        )
        .unwrap();
        assert_eq!(s1.get(1), Scalar::Float(15.0, DType::Float64));
        let all = reduce(
            ReduceKind::Max,
            &m(),
            &[0, 1],
            DType::Float64,
            DType::Float64,
            None,
        )
        .unwrap();
        assert_eq!(all.get(0), Scalar::Float(6.0, DType::Float64));
        let t = m().view(&[3, 2], &[8, 24], 0).unwrap();
        let s = reduce(
            ReduceKind::Sum,
            &t,
            &[1],
            DType::Float64,
            DType::Float64,
            None,
        )
        .unwrap();
        assert_eq!(s.get(0), Scalar::Float(5.0, DType::Float64));
    }

    #[test]
    fn parallel_paths_match_exact_sums() {
        // 600x600 int64 is above the parallel threshold; integers make the
        // result independent of summation order.
        let (r, c) = (600usize, 600usize);
        let data: Vec<i64> = (0..(r * c) as i64).map(|v| v % 97 - 40).collect();
        let t = Tensor::from_vec(vec![r, c], data.clone()).unwrap();
        let col = |j: usize| (0..r).map(|i| data[i * c + j]).sum::<i64>();
        let row = |i: usize| data[i * c..(i + 1) * c].iter().sum::<i64>();
        let s0 = reduce(ReduceKind::Sum, &t, &[0], DType::Int64, DType::Int64, None).unwrap();
        assert!((0..c).all(|j| s0.get(j) == Scalar::Int(col(j))));
        let s1 = reduce(ReduceKind::Sum, &t, &[1], DType::Int64, DType::Int64, None).unwrap();
        assert!((0..r).all(|i| s1.get(i) == Scalar::Int(row(i))));
        let all = reduce(
            ReduceKind::Sum,
            &t,
            &[0, 1],
            DType::Int64,
            DType::Int64,
            None,
        )
        .unwrap();
        assert_eq!(all.get(0), Scalar::Int(data.iter().sum()));
        let max = reduce(
            ReduceKind::Max,
            &t,
            &[0, 1],
            DType::Int64,
            DType::Int64,
            None,
        )
        .unwrap();
        assert_eq!(max.get(0), Scalar::Int(56));
    }

    /// Sum of a 2-d tensor over `axes` by the plain index loop.
    fn reference_sum(t: &Tensor, axes: &[usize]) -> Vec<f64> {
        let (r, c) = (t.shape()[0], t.shape()[1]);
        let at = |i: usize, j: usize| match t.get(i * c + j) {
            Scalar::Float(v, _) => v,
            other => panic!("not a float: {other:?}"),
        };
        match axes {
            [0] => (0..c).map(|j| (0..r).map(|i| at(i, j)).sum()).collect(),
            [1] => (0..r).map(|i| (0..c).map(|j| at(i, j)).sum()).collect(),
            _ => vec![(0..r)
                .flat_map(|i| (0..c).map(move |j| (i, j)))
                .map(|(i, j)| at(i, j))
                .sum()],
        }
    }

    #[test]
    fn row_blocks_and_splits_match_the_reference_loop() {
        // Small integers in float64 make every summation order exact.
        // 1003 rows: not a multiple of the 4-row blocks; 1003x301 is above
        // the parallel threshold, so the splits run too.
        let (r, c) = (1003usize, 301usize);
        let data: Vec<f64> = (0..r * c).map(|v| (v % 13) as f64 - 6.0).collect();
        let full = Tensor::from_vec(vec![r, c], data).unwrap();
        let transposed = full.view(&[c, r], &[8, 8 * c as isize], 0).unwrap();
        // Every other column: rows are not contiguous.
        let strided = full.view(&[r, c / 2], &[8 * c as isize, 16], 8).unwrap();
        let small = full.view(&[7, 5], &[8 * c as isize, 8], 0).unwrap();
        let empty = Tensor::zeros(DType::Float64, &[0, 4]).unwrap();
        for (name, t) in [
            ("contiguous", &full),
            ("transposed", &transposed),
            ("strided", &strided),
            ("small", &small),
            ("empty", &empty),
        ] {
            for axes in [&[0][..], &[1], &[0, 1]] {
                let got = reduce(
                    ReduceKind::Sum,
                    t,
                    axes,
                    DType::Float64,
                    DType::Float64,
                    None,
                )
                .unwrap();
                let got: Vec<f64> = (0..got.len())
                    .map(|i| match got.get(i) {
                        Scalar::Float(v, _) => v,
                        other => panic!("not a float: {other:?}"),
                    })
                    .collect();
                assert_eq!(got, reference_sum(t, axes), "{name} over {axes:?}");
            }
        }
    }

    /// Column `max`/`min` (rows four at a time, `FloatExtreme::four`)
    /// against folding each column in order: NaNs in every position of a
    /// group of four and in the leftover rows, signed zeros tied in both
    /// orders (the earlier one stays), infinities; float64 and float32,
    /// above the parallel threshold and below it.
    #[test]
    fn column_extremes_match_the_in_order_fold() {
        for (r, c) in [(1003usize, 301usize), (9, 7)] {
            let mut data: Vec<f64> = (0..r * c)
                .map(|v| ((v * 7919) % 31) as f64 - 15.0)
                .collect();
            for (row, col) in [(0, 0), (1, 1), (2, 2), (3, 3), (r - 1, 4), (5, 5), (6, 5)] {
                data[row * c + col] = f64::NAN;
            }
            for row in 0..r {
                data[row * c + 6] = if row % 2 == 0 { 0.0 } else { -0.0 };
            }
            data[c + 6] = -0.0;
            data[(r / 2) * c + 1] = f64::INFINITY;
            data[(r / 2) * c + 2] = f64::NEG_INFINITY;
            let t = Tensor::from_vec(vec![r, c], data.clone()).unwrap();
            for (kind, min) in [(ReduceKind::Max, false), (ReduceKind::Min, true)] {
                let want: Vec<f64> = (0..c)
                    .map(|j| {
                        let start = if min {
                            f64::INFINITY
                        } else {
                            f64::NEG_INFINITY
                        };
                        let f = FloatExtreme::<false>;
                        let g = FloatExtreme::<true>;
                        (0..r).fold(start, |acc, i| match min {
                            true => g.one(acc, data[i * c + j]),
                            false => f.one(acc, data[i * c + j]),
                        })
                    })
                    .collect();
                for dtype in [DType::Float64, DType::Float32] {
                    let got = reduce(
                        kind,
                        &cast::cast(&t, dtype).unwrap(),
                        &[0],
                        dtype,
                        DType::Float64,
                        None,
                    );
                    let got = got.unwrap();
                    let got = got.as_slice::<f64>().unwrap();
                    for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                        let same = g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
                        assert!(same, "{kind:?} {dtype} {r}x{c} column {j}: {g} against {w}");
                    }
                }
            }
        }
    }

    #[test]
    fn long_rows_use_lanes() {
        let t = Tensor::from_vec(vec![1, 1000], (0..1000).map(|v| v as i64).collect()).unwrap();
        let s = reduce(ReduceKind::Sum, &t, &[1], DType::Int64, DType::Int64, None).unwrap();
        assert_eq!(s.get(0), Scalar::Int(499500));
        let e = Tensor::zeros(DType::Float64, &[0, 3]).unwrap();
        assert!(reduce(
            ReduceKind::Max,
            &e,
            &[0],
            DType::Float64,
            DType::Float64,
            None
        )
        .is_err());
        let z = reduce(
            ReduceKind::Prod,
            &e,
            &[0],
            DType::Float64,
            DType::Float64,
            None,
        )
        .unwrap();
        assert_eq!(z.get(0), Scalar::Float(1.0, DType::Float64));
    }

    #[test]
    fn complex_max_and_min_are_lexicographic() {
        let c = |re: f64, im: f64| Complex::new(re, im);
        let t = Tensor::from_vec(
            vec![4],
            vec![c(1.0, 5.0), c(2.0, -1.0), c(2.0, 3.0), c(-4.0, 9.0)],
        )
        .unwrap();
        let max = reduce(
            ReduceKind::Max,
            &t,
            &[0],
            DType::Complex128,
            DType::Complex128,
            None,
        );
        let min = reduce(
            ReduceKind::Min,
            &t,
            &[0],
            DType::Complex128,
            DType::Complex128,
            None,
        );
        assert_eq!(
            max.unwrap().get(0),
            Scalar::Complex(2.0, 3.0, DType::Complex128)
        );
        assert_eq!(
            min.unwrap().get(0),
            Scalar::Complex(-4.0, 9.0, DType::Complex128)
        );
    }

    #[test]
    fn empty_max_raises_whenever_the_reduced_axes_are_empty() {
        // (shape, axes, raises), as NumPy decides.
        let cases: [(&[usize], &[usize], bool); 5] = [
            (&[0, 0], &[1], true),
            (&[0, 3], &[0], true),
            (&[3, 0], &[0], false),
            (&[0, 3], &[1], false),
            (&[2, 0], &[0, 1], true),
        ];
        for (shape, axes, raises) in cases {
            let t = Tensor::zeros(DType::Float64, shape).unwrap();
            let got = reduce(
                ReduceKind::Min,
                &t,
                axes,
                DType::Float64,
                DType::Float64,
                None,
            );
            assert_eq!(got.is_err(), raises, "min of {shape:?} over {axes:?}");
        }
    }

    #[test]
    fn last_axes_paths_match_the_general_walk() {
        // The same values contiguous (the lane path when there are enough
        // lanes) and as every other column of a wider tensor (the walk).
        for (rows, n) in [(40, 3), (40, 100), (67, 1003), (5, 40)] {
            let mut wide: Vec<f64> = (0..rows * 2 * n)
                .map(|i| ((i * 29) % 41) as f64 - 20.0)
                .collect();
            wide[2 * 2 * n + 4] = f64::NAN; // lane 2, element 2
            wide[(rows - 1) * 2 * n + 2 * (n - 1)] = f64::NAN; // last lane, last element
            let narrow: Vec<f64> = wide.iter().step_by(2).copied().collect();
            let c = Tensor::from_vec(vec![rows, n], narrow).unwrap();
            let w = Tensor::from_vec(vec![rows, 2 * n], wide).unwrap();
            let strided = w.view(&[rows, n], &[16 * n as isize, 16], 0).unwrap();
            for kind in [ReduceKind::Max, ReduceKind::Min, ReduceKind::Sum] {
                let run = |t: &Tensor| {
                    let r = reduce(kind, t, &[1], DType::Float64, DType::Float64, None).unwrap();
                    r.as_slice::<f64>().unwrap().to_vec()
                };
                let (fast, walk) = (run(&c), run(&strided));
                for (i, (a, b)) in fast.iter().zip(&walk).enumerate() {
                    assert!(
                        a == b || (a.is_nan() && b.is_nan()),
                        "{kind:?} {rows}x{n} lane {i}: {a} vs {b}"
                    );
                }
                assert!(fast[2].is_nan() && fast[rows - 1].is_nan());
            }
        }
    }
}
