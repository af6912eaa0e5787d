//! `set_subtensor(x[mask], y)` and `inc_subtensor(x[mask], y)` for a mask
//! over `x`'s leading axes, without index arrays. When the program lends
//! `x` (`vm/donation.rs`), `y` is written into the set positions in place;
//! otherwise the result is made in one pass over `x` (each row copied, or
//! replaced by / added to `y`'s next row where the mask is set), where a
//! copy of `x` and then a pass over the set positions read and wrote the
//! whole tensor twice (0.4x `np.where(m, 0.0, x)` on a full mask).

use super::mask_bits::{for_each_set, run_parts, MaskBits, Sink};
use super::mask_index::check_mask_shape;
use super::row_scatter::Rows;
use super::subtensor::{broadcast_value, Accumulate, Write};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::alloc::{modifiable_copy, Pool};
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast::cast;
use crate::tensor::Tensor;
use half::f16;
use num_complex::{Complex32, Complex64 as C64};

/// `x` with `y` (cast to `x`'s dtype, broadcast to `x[mask]`'s shape as
/// `y_bcast` allows) set at, or added to, the positions `mask` (over
/// `x`'s leading axes) sets. `Ok(None)`: `y`'s layout is not one this
/// path takes; nothing was taken from `pool`.
pub fn mask_update(
    pool: &mut Pool,
    x: &Tensor,
    mask: &Tensor,
    y: &Tensor,
    y_bcast: &[bool],
    write: Write,
    what: &str,
) -> Result<Option<Tensor>> {
    check_mask_shape(mask.shape(), x.shape(), 0)?;
    let bits = MaskBits::from_tensor(mask)?;
    let mut shape = vec![bits.count];
    shape.extend_from_slice(&x.shape()[mask.ndim()..]);
    let y = to_contiguous(&cast(y, x.dtype())?)?;
    let strides = broadcast_value(&y, y_bcast, &shape, what)?;
    let update = Update {
        bits: &bits,
        width: shape[1..].iter().product(),
        write,
    };
    macro_rules! typed {
        ($t:ty) => {
            Rows::<$t>::of(&y, &strides, &shape)
                .map(|rows| update.run(pool, x, rows))
                .transpose()?
        };
    }
    use DType::*;
    Ok(match x.dtype() {
        Bool => typed!(bool),
        Int8 => typed!(i8),
        Int16 => typed!(i16),
        Int32 => typed!(i32),
        Int64 => typed!(i64),
        UInt8 => typed!(u8),
        UInt16 => typed!(u16),
        UInt32 => typed!(u32),
        UInt64 => typed!(u64),
        Float16 => typed!(f16),
        Float32 => typed!(f32),
        Float64 => typed!(f64),
        Complex64 => typed!(Complex32),
        Complex128 => typed!(C64),
    })
}

/// What one update does: the packed mask, the row width (elements of
/// `x` per mask position), and whether `y` is set or added.
struct Update<'a> {
    bits: &'a MaskBits,
    width: usize,
    write: Write,
}

impl Update<'_> {
    /// Writes in place into a lent `x`, in one pass into a fresh tensor
    /// from a C-contiguous `x`, or else into a copy.
    fn run<T: Accumulate>(&self, pool: &mut Pool, x: &Tensor, rows: Rows<'_, T>) -> Result<Tensor> {
        if x.is_empty() {
            // No rows to write (and `y` may have no elements to read).
            return modifiable_copy(pool, x);
        }
        let granted = pool.take_grant(x).map(|g| g.into_parts().0);
        if let Some(mut out) = granted.or_else(|| pool.take_loan(x)) {
            self.in_place(&mut out, rows);
            return Ok(out);
        }
        let Some(src) = x.as_slice::<T>() else {
            let mut out = modifiable_copy(pool, x)?;
            self.in_place(&mut out, rows);
            return Ok(out);
        };
        let mut out = pool.take(x.dtype(), x.shape())?;
        let dst = out
            .as_mut_slice::<T>()
            .expect("a fresh output")
            .as_mut_ptr() as usize;
        let len = src.len() / self.width.max(1);
        run_parts(self.bits, vec![(); self.bits.parts.len()], |part, ()| {
            let words = &self.bits.words[part.words.clone()];
            let first = part.words.start * 64;
            // SAFETY: `dst` is `out`, taken with `x`'s shape, so it holds as
            // many elements as `src`; the mask's shape is `x`'s leading axes
            // (`check_mask_shape`), so each set position's row is inside
            // both; this part writes only the rows of its own positions.
            unsafe { self.select(words, (first, len), src, dst as *mut T, rows, part.start) };
        });
        Ok(out)
    }

    /// Writes `y`'s rows into the set positions of `out` (the caller's to
    /// write: a loan or a fresh copy, C-contiguous).
    fn in_place<T: Accumulate>(&self, out: &mut Tensor, rows: Rows<'_, T>) {
        // SAFETY: `out` is a loan only its storage slot also holds, which
        // nothing reads while this op runs, a grant of the input this op
        // destroys (`kernels/alloc/granted.rs`: the same), or a fresh copy.
        let dst = unsafe { out.as_granted_mut_slice::<T>() }
            .expect("a C-contiguous, writable tensor of T")
            .as_mut_ptr() as usize;
        let (width, write) = (self.width, self.write);
        run_parts(self.bits, vec![(); self.bits.parts.len()], |part, ()| {
            let (words, first) = (&self.bits.words[part.words.clone()], part.words.start * 64);
            let dst = dst as *mut T;
            let k = part.start;
            for_each_set(
                words,
                first,
                &mut RowWrite {
                    dst,
                    width,
                    rows,
                    k,
                    write,
                },
            );
        });
    }

    /// The rows of mask positions `first..` covered by `words` (at most
    /// `len` in all), from `src` into `dst`: copied where the bit is clear,
    /// `y`'s row `k` (counting on from `k`) written where it is set.
    ///
    /// # Safety
    /// `dst` holds `src.len()` elements, and nothing else writes the rows
    /// of these positions.
    unsafe fn select<T: Accumulate>(
        &self,
        words: &[u64],
        (first, len): (usize, usize),
        src: &[T],
        dst: *mut T,
        rows: Rows<'_, T>,
        mut k: usize,
    ) {
        let w = self.width;
        // Rows of empty words are copied a run at a time: one copy per
        // word of 64 rows ran at half NumPy's `where` on a sparse mask.
        let copy = |rows: std::ops::Range<usize>| {
            // SAFETY: the caller's contract, for these rows.
            let to =
                unsafe { std::slice::from_raw_parts_mut(dst.add(rows.start * w), rows.len() * w) };
            to.copy_from_slice(&src[rows.start * w..rows.end * w]);
        };
        let mut unset_from = None;
        for (j, &bits) in words.iter().enumerate() {
            let base = first + 64 * j;
            if bits == 0 {
                unset_from.get_or_insert(base);
                continue;
            }
            if let Some(start) = unset_from.take() {
                copy(start..base);
            }
            let n = 64.min(len - base);
            let from = &src[base * w..(base + n) * w];
            // SAFETY: the caller's contract, for these `n` rows.
            let to = unsafe { std::slice::from_raw_parts_mut(dst.add(base * w), n * w) };
            if let (Rows::Repeated { data, step: 0 }, 1) = (rows, w) {
                select_value(to, from, bits, data[0], self.write);
                k += bits.count_ones() as usize;
                continue;
            }
            for (b, (t, f)) in to.chunks_exact_mut(w).zip(from.chunks_exact(w)).enumerate() {
                if (bits >> b) & 1 == 0 || self.write == Write::Inc {
                    t.copy_from_slice(f);
                }
                if (bits >> b) & 1 == 1 {
                    rows.write_into(k, t, self.write);
                    k += 1;
                }
            }
        }
        if let Some(start) = unset_from {
            copy(start..len.min(first + 64 * words.len()));
        }
    }
}

/// `to[b] = bit b ? value (or from[b] + value) : from[b]`, a branch-free
/// select the compiler can vectorise.
#[inline]
fn select_value<T: Accumulate>(to: &mut [T], from: &[T], bits: u64, value: T, write: Write) {
    let set = |b: usize| (bits >> b) & 1 == 1;
    match write {
        Write::Set if bits == u64::MAX => to.fill(value),
        Write::Inc if bits == u64::MAX => {
            for (t, &f) in to.iter_mut().zip(from) {
                *t = f.acc(value);
            }
        }
        Write::Set => {
            for (b, (t, &f)) in to.iter_mut().zip(from).enumerate() {
                *t = if set(b) { value } else { f };
            }
        }
        Write::Inc => {
            for (b, (t, &f)) in to.iter_mut().zip(from).enumerate() {
                *t = if set(b) { f.acc(value) } else { f };
            }
        }
    }
}

/// Writes row `k` of the values into the row of each set position.
struct RowWrite<'a, T> {
    /// `out`'s first element; a row of `width` elements per position.
    dst: *mut T,
    width: usize,
    rows: Rows<'a, T>,
    /// The next row of values (the set positions before this one).
    k: usize,
    write: Write,
}

impl<T: Accumulate> Sink for RowWrite<'_, T> {
    #[inline(always)]
    fn one(&mut self, i: usize) {
        // SAFETY: `i` is a position of the mask, whose rows `out` holds;
        // the mask's positions are distinct, so no other sink (thread)
        // writes this row.
        let row =
            unsafe { std::slice::from_raw_parts_mut(self.dst.add(i * self.width), self.width) };
        self.rows.write_into(self.k, row, self.write);
        self.k += 1;
    }

    #[inline(always)]
    fn full(&mut self, base: usize) {
        if let Rows::Repeated { step: 0, .. } = self.rows {
            // One value for every position: the 64 rows are one run.
            let n = 64 * self.width;
            // SAFETY: as in `one`, for the 64 rows from `base`.
            let run = unsafe { std::slice::from_raw_parts_mut(self.dst.add(base * self.width), n) };
            self.rows.write_into(0, run, self.write);
            self.k += 64;
            return;
        }
        for i in base..base + 64 {
            self.one(i);
        }
    }
}

#[cfg(test)]
#[path = "mask_update_tests.rs"]
mod tests;
