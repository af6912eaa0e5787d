//! `Bincount`'s loop: one pass over `x` adds a count or a weight into each
//! value's bin, growing the bins when a value lands past them; the check
//! that finds it is the bounds check the indexing needs anyway, and it
//! finds negative values too. (A first pass for the largest value took
//! three times the counting's time on int64: baseline x86-64 has no
//! vector compare of unsigned 64-bit numbers.) Long inputs are cut into
//! pieces fixed by their length, each with bins of its own, run on several
//! threads and summed in piece order, so float sums do not depend on
//! scheduling.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast::cast_into;
use crate::kernels::match_ints;
use crate::kernels::PARALLEL_MIN;
use crate::tensor::{Element, Tensor};
use half::f16;
use rayon::prelude::*;

/// Values per piece at least: below that a thread's start-up costs more
/// than its share of the pass.
const PIECE_MIN: usize = PARALLEL_MIN;

/// At most this many pieces (so at most this many sets of bins to sum).
const MAX_PIECES: usize = 8;

/// Values read to guess the number of bins before the pass.
const SAMPLE: usize = 256;

/// The most bins an output may have (its bytes must fit `isize`).
const MAX_BINS: usize = isize::MAX as usize / 8;

/// An integer element that names a bin.
trait BinValue: Element {
    /// The value as a bin index: a negative value becomes a huge one (its
    /// two's complement bits), outside any bins.
    fn bin(self) -> usize;
    /// Whether the value is below zero.
    fn is_negative(self) -> bool;
    /// The value, for messages.
    fn wide(self) -> i128;
}

macro_rules! bin_value {
    (|$v:ident| $negative:expr; $($t:ty),*) => {$(
        impl BinValue for $t {
            #[inline(always)]
            fn bin(self) -> usize {
                // Sign-extended for signed types (no-op on 64-bit targets).
                usize::try_from(self as u64).unwrap_or(usize::MAX)
            }
            fn is_negative(self) -> bool {
                let $v = self;
                $negative
            }
            fn wide(self) -> i128 {
                self as i128
            }
        }
    )*};
}
bin_value!(|v| v < 0; i8, i16, i32, i64);
bin_value!(|_v| false; u8, u16, u32, u64);

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

/// Why the bins cannot be counted: a value that cannot name a bin (with
/// its position in `x`), or more bins than can be allocated.
#[derive(Debug)]
enum Refused {
    Negative(usize, i128),
    TooMany(usize, i128),
    Bins(usize),
}

impl From<Refused> for Error {
    fn from(r: Refused) -> Error {
        match r {
            Refused::Negative(i, v) => Error::Index(format!(
                "index {v} (x[{i}]) is out of bounds: bincount counts non-negative integers"
            )),
            Refused::TooMany(i, v) => Error::Value(format!(
                "bincount: x[{i}] = {v} needs more bins than can be allocated"
            )),
            Refused::Bins(n) => Error::Value(format!("bincount: cannot allocate {n} bins")),
        }
    }
}

/// Bins up to `v`'s (outside the hot loop: it runs once per new largest
/// value past the first guess).
#[cold]
#[inline(never)]
fn grow<B: BinValue, A: Acc>(bins: &mut Vec<A>, v: B, i: usize) -> Result<(), Refused> {
    if v.is_negative() {
        return Err(Refused::Negative(i, v.wide()));
    }
    let need = v.bin().checked_add(1).filter(|&n| n <= MAX_BINS);
    let need = need.ok_or(Refused::TooMany(i, v.wide()))?;
    // `try_reserve` grows geometrically, as `push` does, and reports an
    // allocation failure instead of aborting.
    bins.try_reserve(need - bins.len())
        .map_err(|_| Refused::TooMany(i, v.wide()))?;
    bins.resize(need, A::ZERO);
    Ok(())
}

/// Adds each weight into the bin of its value until a value falls outside
/// the bins; returns its position and weight. The loop over a slice keeps
/// the bins' start and length in registers.
#[inline(always)]
fn add_inside<B: BinValue, A: Acc>(
    bins: &mut [A],
    xs: &[B],
    weights: &mut impl Iterator<Item = A>,
) -> Option<(usize, A)> {
    for (i, (&v, w)) in xs.iter().zip(weights).enumerate() {
        match bins.get_mut(v.bin()) {
            Some(b) => b.add(w),
            None => return Some((i, w)),
        }
    }
    None
}

/// Adds each weight into the bin of its value, growing the bins for values
/// past them (positions counted from `first` in messages).
#[inline(always)]
fn add_into<B: BinValue, A: Acc>(
    bins: &mut Vec<A>,
    xs: &[B],
    mut weights: impl Iterator<Item = A>,
    first: usize,
) -> Result<(), Refused> {
    let mut done = 0;
    while let Some((i, w)) = add_inside(bins, &xs[done..], &mut weights) {
        let v = xs[done + i];
        grow(bins, v, first + done + i)?;
        if let Some(b) = bins.get_mut(v.bin()) {
            b.add(w);
        }
        done += i + 1;
    }
    Ok(())
}

/// A lower bound of the number of bins: one past the largest of a few
/// values, the last one included (the largest of sorted input); 0 for no
/// non-negative one.
fn sampled_bins<B: BinValue>(xs: &[B]) -> usize {
    let step = (xs.len() / SAMPLE).max(1);
    let sample = xs.iter().step_by(step).chain(xs.last());
    let top = sample.filter(|v| !v.is_negative()).map(|v| v.bin()).max();
    top.map_or(0, |t| t.saturating_add(1))
}

/// How many pieces to cut `n` values into for about `len` bins: each
/// piece's bins are zeroed and summed, so pieces are made only while all
/// their bins together stay below an eighth of the values.
fn pieces(n: usize, len: usize) -> usize {
    if n < 2 * PIECE_MIN {
        return 1;
    }
    (n / PIECE_MIN)
        .min(n / (8 * len.max(1)))
        .clamp(1, MAX_PIECES)
}

/// The bins of `xs[lo..hi]` (adding `ws`'s weights, or 1 each), starting
/// from `len` empty ones.
fn piece<B: BinValue, W: Weight>(
    xs: &[B],
    ws: Option<&[W]>,
    (lo, hi): (usize, usize),
    len: usize,
) -> Result<Vec<W::Acc>, Refused> {
    let mut bins = Vec::new();
    // `minlength` may ask for any number: refused, not aborted on.
    bins.try_reserve_exact(len.min(MAX_BINS + 1))
        .ok()
        .filter(|_| len <= MAX_BINS)
        .ok_or(Refused::Bins(len))?;
    bins.resize(len, W::Acc::ZERO);
    let xs = &xs[lo..hi];
    match ws {
        Some(ws) => add_into(&mut bins, xs, ws[lo..hi].iter().map(|w| w.acc()), lo)?,
        None => add_into(&mut bins, xs, std::iter::repeat(W::Acc::ONE), lo)?,
    }
    Ok(bins)
}

/// The bins of `xs` (with `ws`'s weights, or counting 1 each), at least
/// `minlength`; in pieces on several threads when long. Each piece stops
/// at its first refused value, so the first piece's error is the first in
/// `x`.
fn accumulate<B: BinValue, W: Weight>(
    xs: &[B],
    ws: Option<&[W]>,
    minlength: usize,
) -> Result<Vec<W::Acc>, Refused> {
    // Bins allocated ahead so that the pass rarely grows them; not more
    // than there are values: those come when the pass reaches their
    // value, after any error before it.
    let sampled = sampled_bins(xs);
    let ahead = if sampled <= xs.len().max(SAMPLE) {
        sampled
    } else {
        0
    };
    let len = ahead.max(minlength);
    let k = pieces(xs.len(), sampled.max(minlength));
    if k == 1 {
        return piece(xs, ws, (0, xs.len()), len);
    }
    let bounds = |p: usize| (xs.len() * p / k, xs.len() * (p + 1) / k);
    let parts: Vec<Result<Vec<W::Acc>, Refused>> = (0..k)
        .into_par_iter()
        .map(|p| piece(xs, ws, bounds(p), len))
        .collect();
    let mut parts = parts.into_iter();
    let mut out = parts.next().unwrap_or(Ok(Vec::new()))?;
    for part in parts {
        let part = part?;
        if part.len() > out.len() {
            out.resize(part.len(), W::Acc::ZERO);
        }
        out.iter_mut().zip(&part).for_each(|(o, &b)| o.add(b));
    }
    Ok(out)
}

/// `bincount` of a contiguous integer vector with weights of type `W` (or
/// without, counting in `W::Acc`), into the accumulator's dtype.
fn bincount_typed<B: BinValue, W: Weight>(
    pool: &mut Pool,
    xs: &[B],
    ws: Option<&[W]>,
    minlength: usize,
) -> Result<Tensor> {
    let bins = accumulate(xs, ws, minlength)?;
    let mut out = pool.take(<W::Acc as Element>::DTYPE, &[bins.len()])?;
    out.as_mut_slice::<W::Acc>()
        .expect("a pool tensor is contiguous, of its dtype and unshared")
        .copy_from_slice(&bins);
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
    match_ints!(
        w.dtype(),
        |T| go!(T),
        DType::Float16 => go!(f16),
        DType::Float32 => go!(f32),
        DType::Float64 => go!(f64),
        other => Err(Error::Type(format!(
            "bincount: the weights must be integers or floats, got {other}"
        ))),
    )
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
    let x = to_contiguous(x)?;
    let w = weights.map(to_contiguous).transpose()?;
    macro_rules! go {
        ($t:ty) => {{
            let xs = x.as_slice::<$t>().expect("a contiguous x of its dtype");
            with_weights::<$t>(pool, xs, w.as_ref(), minlength)
        }};
    }
    let acc = match_ints!(
        x.dtype(),
        |T| go!(T),
        other => Err(Error::Type(format!(
            "bincount: x must be integers, got {other}"
        ))),
    )?;
    let dtype = w.as_ref().map_or(DType::Int64, Tensor::dtype);
    if acc.dtype() == dtype {
        return Ok(acc);
    }
    let mut out = pool.take(dtype, acc.shape())?;
    cast_into(&acc, &mut out);
    pool.recycle(acc);
    Ok(out)
}

#[cfg(test)]
#[path = "bincount_tests.rs"]
mod tests;
