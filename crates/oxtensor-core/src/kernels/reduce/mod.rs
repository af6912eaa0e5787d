//! Reductions (`sum`, `prod`, `max`, `min`, `all`, `any`, and the bitwise
//! folds of `bitwise.rs`) over any axes:
//! the accumulator dtype, each kind's starting value and combining
//! function per dtype (NumPy's NaN and complex-order rules), and NumPy's
//! errors for empty reductions. The loops themselves are in `walk.rs`.
//!
//! # How reductions split across threads
//!
//! Reductions split from 4 × `PARALLEL_MIN` elements along the outermost axis
//! in memory order, so each thread streams one contiguous stretch (splitting an
//! inner axis interleaves the threads' reads: a sum over axis 0 or all axes of
//! 4000² float64 took 1.5× as long); when that axis is reduced each thread
//! fills a partial result, allowed while the partials stay under 1/16 of the
//! input. Otherwise they split along a kept axis when one is long enough, else
//! into partials.

mod bitwise;
pub(crate) mod byte_fold;
mod cumulative;
mod mapped;
mod pieces;
mod variance;
pub(crate) mod walk;

pub use cumulative::{cumulative, cumulative_in_place, CumMode};
pub use variance::centred_squares;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::kernels::complex_ops::{maximum, minimum};
use crate::kernels::elemwise::cast;
use crate::kernels::elemwise::lanes::for_each_lane;
#[cfg(target_arch = "x86_64")]
use crate::kernels::float_extremes::trailing_extremes;
use crate::kernels::lane_group::{extremes, folds, Extreme};
use crate::kernels::match_ints;
use crate::reduction::ReduceKind;
use crate::tensor::{Element, Tensor};
use byte_fold::{min_bytes, or_bytes};
use mapped::reduce_mapped;
use num_complex::Complex;
use pieces::{reduce_slabs, worth_slabs};
use walk::{fill, reduce_typed, Fold};

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
            _ => unreachable!("logical and bitwise reductions are dispatched apart"),
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
    if kind.is_bitwise() {
        return bitwise::reduce_bits(kind, t, axes, out);
    }
    match_ints!(
        out.dtype(),
        |T| int_reduce!(kind, t, axes, out, T),
        Bool => logical(kind, t, axes, out),
        Float32 => float_reduce!(kind, t, axes, out, f32),
        Float64 => float_reduce!(kind, t, axes, out, f64),
        Complex64 => complex_reduce::<f32>(kind, t, axes, out)?,
        Complex128 => complex_reduce::<f64>(kind, t, axes, out)?,
        Float16 => {
            return Err(Error::Type(
                "reductions accumulate float16 in float32".into(),
            ))
        }
    );
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
        _ => unreachable!("logical and bitwise reductions are dispatched apart"),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
