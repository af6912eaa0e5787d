//! `Bincount`'s loops: one pass finds the largest value (and whether any is
//! negative), a second adds a count or a weight into each value's bin.
//! Long inputs are cut into pieces fixed by the input's length, each with
//! bins of its own, run on several threads and summed in piece order (so
//! float sums do not depend on scheduling).

use super::cast::cast_into;
use super::copy::to_contiguous;
use super::PARALLEL_MIN;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::tensor::{Element, Tensor};
use half::f16;
use rayon::prelude::*;

/// Values per piece at least: below that a thread's start-up costs more
/// than its share of the pass.
const PIECE_MIN: usize = PARALLEL_MIN;

/// At most this many pieces (so at most this many sets of bins to sum).
const MAX_PIECES: usize = 8;

/// An integer element that names a bin.
trait BinValue: Element {
    /// The value's bits as an unsigned number of the same width: a negative
    /// value (two's complement) compares above every non-negative one.
    type Bits: Copy + Ord + Default + Send + Sync + Into<u64>;
    /// The largest non-negative value: bits above it are a negative value.
    const NON_NEGATIVE_MAX: u64;
    /// The bits.
    fn bits(self) -> Self::Bits;
    /// The value, for messages.
    fn wide(self) -> i128;
}

macro_rules! bin_value {
    ($($t:ty => $bits:ty),*) => {$(
        impl BinValue for $t {
            type Bits = $bits;
            const NON_NEGATIVE_MAX: u64 = <$t>::MAX as u64;
            #[inline(always)]
            fn bits(self) -> $bits {
                self as $bits
            }
            fn wide(self) -> i128 {
                self as i128
            }
        }
    )*};
}
bin_value!(i8 => u8, i16 => u16, i32 => u32, i64 => u64,
           u8 => u8, u16 => u16, u32 => u32, u64 => u64);

/// What a bin adds up: int64 counts or integer weights (wrapping, as
/// NumPy's integer addition), float64 float weights.
trait Acc: Element {
    /// An empty bin.
    const ZERO: Self;
    /// What a value adds without weights.
    const ONE: Self;
    /// `self += other`, wrapping for integers.
    fn add(&mut self, other: Self);
}

impl Acc for i64 {
    const ZERO: i64 = 0;
    const ONE: i64 = 1;
    #[inline(always)]
    fn add(&mut self, other: i64) {
        *self = self.wrapping_add(other);
    }
}

impl Acc for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    #[inline(always)]
    fn add(&mut self, other: f64) {
        *self += other;
    }
}

/// A weight element and the accumulator it is summed in: floats in float64
/// (NumPy's sums, rounded once to the weights' dtype at the end), integers
/// in int64 (modulo their width the same bits as sums in their own dtype).
trait Weight: Element {
    /// The accumulator's element.
    type Acc: Acc;
    /// The weight as an accumulator element.
    fn acc(self) -> Self::Acc;
}

macro_rules! weight {
    ($acc:ty: $($t:ty),*) => {$(
        impl Weight for $t {
            type Acc = $acc;
            #[inline(always)]
            fn acc(self) -> $acc {
                self as $acc
            }
        }
    )*};
}
weight!(i64: i8, i16, i32, i64, u8, u16, u32, u64);
weight!(f64: f32, f64);

impl Weight for f16 {
    type Acc = f64;
    #[inline(always)]
    fn acc(self) -> f64 {
        self.to_f64()
    }
}

/// The number of bins: one past the largest value, at least `minlength`.
/// Errors name the first negative value, or a largest value no array can
/// be indexed by.
fn bin_count<B: BinValue>(xs: &[B], minlength: usize) -> Result<usize> {
    if xs.is_empty() {
        return Ok(minlength);
    }
    let top = largest_bits(xs);
    if top > B::NON_NEGATIVE_MAX {
        let negative = |v: &B| v.bits().into() > B::NON_NEGATIVE_MAX;
        let (i, v) = match xs.iter().position(negative) {
            Some(i) => (i.to_string(), xs[i].wide()),
            None => ("?".into(), top as i128),
        };
        return Err(Error::Index(format!(
            "index {v} (x[{i}]) is out of bounds: bincount counts non-negative integers"
        )));
    }
    let len = usize::try_from(top)
        .ok()
        .and_then(|t| t.checked_add(1))
        .filter(|&n| n <= isize::MAX as usize / 8)
        .ok_or_else(|| {
            Error::Value(format!(
                "bincount: the largest value, {top}, needs more bins than an array can hold"
            ))
        })?;
    Ok(len.max(minlength))
}

/// The largest of the values' bits (0 for none), on several threads when long.
fn largest_bits<B: BinValue>(xs: &[B]) -> u64 {
    let fold = |c: &[B]| c.iter().fold(B::Bits::default(), |m, &v| m.max(v.bits()));
    if xs.len() >= 2 * PIECE_MIN {
        let top = xs.par_chunks(PIECE_MIN).map(fold).max();
        top.unwrap_or_default().into()
    } else {
        fold(xs).into()
    }
}

/// How many pieces to cut `n` values into for `len` bins: each piece's
/// bins are zeroed and summed, so pieces are made only while all their
/// bins together stay below an eighth of the values.
fn pieces(n: usize, len: usize) -> usize {
    (n / PIECE_MIN)
        .min(n / (8 * len.max(1)))
        .clamp(1, MAX_PIECES)
}

/// Adds `weight(i)` into bin `xs[i]` for every `i`; false if a value fell
/// outside the bins. The bins were sized past the largest value, but a host
/// buffer may change between the passes, and must not make us write
/// outside them (the same branch a bounds check costs).
#[inline(always)]
fn add_into<B: BinValue, A: Acc>(bins: &mut [A], xs: &[B], weight: impl Fn(usize) -> A) -> bool {
    let mut inside = true;
    for (i, &v) in xs.iter().enumerate() {
        let at: u64 = v.bits().into();
        match bins.get_mut(at as usize) {
            Some(b) => b.add(weight(i)),
            None => inside = false,
        }
    }
    inside
}

/// The bins of `xs` (adding `ws`'s weights, or 1 each) into `out`, which
/// is zero-filled here; in pieces on several threads when long.
fn accumulate<B: BinValue, W: Weight>(out: &mut [W::Acc], xs: &[B], ws: Option<&[W]>) -> bool {
    let run = |bins: &mut [W::Acc], lo: usize, hi: usize| match ws {
        Some(ws) => {
            let ws = &ws[lo..hi];
            add_into(bins, &xs[lo..hi], |i| ws[i].acc())
        }
        None => add_into(bins, &xs[lo..hi], |_| W::Acc::ONE),
    };
    out.fill(W::Acc::ZERO);
    let k = pieces(xs.len(), out.len());
    if k == 1 {
        return run(out, 0, xs.len());
    }
    let bounds = |p: usize| xs.len() * p / k;
    let parts: Vec<(Vec<W::Acc>, bool)> = (0..k)
        .into_par_iter()
        .map(|p| {
            let mut bins = vec![W::Acc::ZERO; out.len()];
            let inside = run(&mut bins, bounds(p), bounds(p + 1));
            (bins, inside)
        })
        .collect();
    for (part, _) in &parts {
        out.iter_mut().zip(part).for_each(|(o, &b)| o.add(b));
    }
    parts.iter().all(|(_, inside)| *inside)
}

/// `bincount` of a contiguous integer vector with weights of type `W` (or
/// without, counting in `W::Acc`), into the accumulator's dtype.
fn bincount_typed<B: BinValue, W: Weight>(
    pool: &mut Pool,
    xs: &[B],
    ws: Option<&[W]>,
    minlength: usize,
) -> Result<Tensor> {
    let len = bin_count(xs, minlength)?;
    let mut out = pool.take(<W::Acc as Element>::DTYPE, &[len]);
    let bins = out
        .as_mut_slice::<W::Acc>()
        .expect("a pool tensor is contiguous, of its dtype and unshared");
    if !accumulate(bins, xs, ws) {
        return Err(Error::Value(
            "bincount: x was changed by another thread while it was read".into(),
        ));
    }
    Ok(out)
}

/// Dispatches on the weights' dtype (`w` contiguous), `x`'s being known.
fn with_weights<B: BinValue>(
    pool: &mut Pool,
    xs: &[B],
    w: Option<&Tensor>,
    minlength: usize,
) -> Result<Tensor> {
    let Some(w) = w else {
        return bincount_typed::<B, i64>(pool, xs, None, minlength);
    };
    macro_rules! go {
        ($t:ty) => {{
            let ws = w
                .as_slice::<$t>()
                .expect("contiguous weights of their dtype");
            bincount_typed::<B, $t>(pool, xs, Some(ws), minlength)
        }};
    }
    match w.dtype() {
        DType::Int8 => go!(i8),
        DType::Int16 => go!(i16),
        DType::Int32 => go!(i32),
        DType::Int64 => go!(i64),
        DType::UInt8 => go!(u8),
        DType::UInt16 => go!(u16),
        DType::UInt32 => go!(u32),
        DType::UInt64 => go!(u64),
        DType::Float16 => go!(f16),
        DType::Float32 => go!(f32),
        DType::Float64 => go!(f64),
        other => Err(Error::Type(format!(
            "bincount: the weights must be integers or floats, got {other}"
        ))),
    }
}

/// NumPy's `bincount(x, weights, minlength)` of an integer vector `x` (any
/// layout): int64 counts without weights, sums in the weights' dtype with
/// them (PyTensor's rule; NumPy gives float64). Negative values raise an
/// `Index` error, weights of another length a `Shape` error.
pub fn bincount(
    pool: &mut Pool,
    x: &Tensor,
    weights: Option<&Tensor>,
    minlength: usize,
) -> Result<Tensor> {
    if let Some(w) = weights {
        if w.shape() != x.shape() {
            return Err(Error::Shape(format!(
                "bincount: the weights and x must have the same length, got {} weights for {} values",
                w.len(),
                x.len()
            )));
        }
    }
    let x = to_contiguous(x);
    let w = weights.map(to_contiguous);
    macro_rules! go {
        ($t:ty) => {{
            let xs = x.as_slice::<$t>().expect("a contiguous x of its dtype");
            with_weights::<$t>(pool, xs, w.as_ref(), minlength)
        }};
    }
    let acc = match x.dtype() {
        DType::Int8 => go!(i8),
        DType::Int16 => go!(i16),
        DType::Int32 => go!(i32),
        DType::Int64 => go!(i64),
        DType::UInt8 => go!(u8),
        DType::UInt16 => go!(u16),
        DType::UInt32 => go!(u32),
        DType::UInt64 => go!(u64),
        other => Err(Error::Type(format!(
            "bincount: x must be integers, got {other}"
        ))),
    }?;
    let dtype = w.as_ref().map_or(DType::Int64, Tensor::dtype);
    if acc.dtype() == dtype {
        return Ok(acc);
    }
    let mut out = pool.take(dtype, acc.shape());
    cast_into(&acc, &mut out);
    pool.recycle(acc);
    Ok(out)
}

#[cfg(test)]
#[path = "bincount_tests.rs"]
mod tests;
