//! Boolean-mask indexing without index arrays, for a mask over `x`'s
//! leading axes (`x[mask]`, NumPy's most common boolean index): the gather
//! copies each set position's element (or row of the trailing axes)
//! straight into the result, and `set_subtensor`/`inc_subtensor` write `y`
//! into those positions of a modifiable copy of `x`. The general plan
//! (`advanced_index`) turns the mask into one int64 array per axis, then a
//! byte offset and a block pair per position: 3x NumPy's time for
//! `x[x > 0]`. Both passes here run over the packed mask ([`MaskBits`]).

use super::alloc::Pool;
use super::cast::cast;
use super::copy::to_contiguous;
use super::mask_bits::{for_each_set, run_parts, MaskBits, Sink};
use super::row_scatter::Rows;
use super::subtensor::{broadcast_value, Accumulate, Write};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::index_list::IdxEntry;
use crate::tensor::Tensor;
use half::f16;
use num_complex::{Complex32, Complex64 as C64};

/// The mask of an index that is one boolean array on `x`'s leading axes,
/// then only full slices: the case this module takes.
pub fn leading_mask<'a>(
    idx_list: &[IdxEntry],
    values: &[&'a Tensor],
    x_ndim: usize,
) -> Option<&'a Tensor> {
    let ([IdxEntry::Index(0), rest @ ..], [mask, ..]) = (idx_list, values) else {
        return None;
    };
    let fits = mask.dtype() == DType::Bool
        && mask.ndim() >= 1
        && mask.ndim() + rest.len() <= x_ndim
        && rest.iter().all(|e| *e == IdxEntry::FULL);
    fits.then_some(*mask)
}

/// NumPy's error when a boolean index at `axis` does not match `x`'s shape.
pub fn check_mask_shape(mask: &[usize], x: &[usize], axis: usize) -> Result<()> {
    for (d, &n) in mask.iter().enumerate() {
        if x.get(axis + d) != Some(&n) {
            return Err(Error::Index(format!(
                "boolean index did not match indexed array along axis {}; size of axis is {} but size of corresponding boolean axis is {n}",
                axis + d,
                x.get(axis + d).map_or("missing".into(), |s| s.to_string()),
            )));
        }
    }
    Ok(())
}

/// `x[mask]` for a mask over `x`'s leading axes: the set positions' rows,
/// in C order, in a fresh tensor from `pool`.
pub fn mask_gather(x: &Tensor, mask: &Tensor, pool: &mut Pool) -> Result<Tensor> {
    check_mask_shape(mask.shape(), x.shape(), 0)?;
    let bits = MaskBits::from_tensor(mask);
    let x = to_contiguous(x);
    let mut shape = vec![bits.count];
    shape.extend_from_slice(&x.shape()[mask.ndim()..]);
    let out = pool.take(x.dtype(), &shape);
    let width: usize = shape[1..].iter().product();
    if out.is_empty() {
        return Ok(out);
    }
    let size = x.dtype().itemsize();
    let base = out.buffer().as_mut_ptr().expect("a fresh output buffer");
    // SAFETY: the offset of a fresh tensor's first element is inside it.
    let dst = unsafe { base.add(out.offset()) } as usize;
    let src = x.as_ptr() as usize;
    run_parts(&bits, vec![(); bits.parts.len()], |part, ()| {
        let words = &bits.words[part.words.clone()];
        let row = width * size;
        // SAFETY: `x` is C-contiguous with one row of `row` bytes per mask
        // position, and `out` holds `bits.count` rows; this part writes
        // rows `start..start + count`, which no other part writes.
        unsafe {
            let dst = (dst as *mut u8).add(part.start * row);
            gather_part(words, part.words.start * 64, src as *const u8, dst, width, size);
        }
    });
    Ok(out)
}

/// Copies the set positions' rows of `width` elements of `size` bytes.
///
/// # Safety
/// Every set position's row lies inside `src`; `dst` has room for one row
/// per set bit, and no one else reads or writes it.
unsafe fn gather_part(
    words: &[u64],
    first: usize,
    src: *const u8,
    dst: *mut u8,
    width: usize,
    size: usize,
) {
    if width != 1 {
        let row = width * size;
        return for_each_set(words, first, &mut RowCopy { src, dst, row });
    }
    macro_rules! elements {
        ($t:ty) => {
            for_each_set(
                words,
                first,
                &mut ElementCopy {
                    src: src as *const $t,
                    dst: dst as *mut $t,
                },
            )
        };
    }
    match size {
        1 => elements!(u8),
        2 => elements!(u16),
        4 => elements!(u32),
        8 => elements!(u64),
        _ => elements!([u64; 2]),
    }
}

/// Copies one element per set position, the destination moving on.
struct ElementCopy<T> {
    src: *const T,
    dst: *mut T,
}

impl<T: Copy> Sink for ElementCopy<T> {
    #[inline(always)]
    fn one(&mut self, i: usize) {
        // SAFETY: `gather_part`'s contract: `i` is a set position of the
        // source, and the destination has room for every set position.
        unsafe {
            *self.dst = *self.src.add(i);
            self.dst = self.dst.add(1);
        }
    }

    #[inline(always)]
    fn full(&mut self, base: usize) {
        // SAFETY: as in `one`, for 64 set positions.
        unsafe {
            std::ptr::copy_nonoverlapping(self.src.add(base), self.dst, 64);
            self.dst = self.dst.add(64);
        }
    }
}

/// Copies one row of `row` bytes per set position.
struct RowCopy {
    src: *const u8,
    dst: *mut u8,
    row: usize,
}

impl Sink for RowCopy {
    #[inline(always)]
    fn one(&mut self, i: usize) {
        // SAFETY: `gather_part`'s contract, for rows.
        unsafe {
            std::ptr::copy_nonoverlapping(self.src.add(i * self.row), self.dst, self.row);
            self.dst = self.dst.add(self.row);
        }
    }
}

/// Writes `y` (cast to `out`'s dtype and broadcast to `x[mask]`'s shape as
/// `y_bcast` allows) into the positions of C-contiguous `out` that `mask`
/// (over its leading axes) sets, or adds it there. `out` must be the
/// caller's to write (`alloc::modifiable_copy`). `Ok(false)`: `y`'s layout
/// is not one this path takes, nothing was written.
pub fn mask_scatter(
    out: &mut Tensor,
    mask: &Tensor,
    y: &Tensor,
    y_bcast: &[bool],
    write: Write,
    what: &str,
) -> Result<bool> {
    check_mask_shape(mask.shape(), out.shape(), 0)?;
    if !out.is_c_contiguous() {
        return Ok(false);
    }
    let bits = MaskBits::from_tensor(mask);
    let mut shape = vec![bits.count];
    shape.extend_from_slice(&out.shape()[mask.ndim()..]);
    let y = to_contiguous(&cast(y, out.dtype()));
    let strides = broadcast_value(&y, y_bcast, &shape, what)?;
    macro_rules! typed {
        ($t:ty) => {
            scatter_typed::<$t>(out, &bits, &y, &strides, &shape, write)
        };
    }
    use DType::*;
    Ok(match out.dtype() {
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

/// [`mask_scatter`] for elements of `T`; `false` when `y`'s layout does
/// not give rows.
fn scatter_typed<T: Accumulate>(
    out: &mut Tensor,
    bits: &MaskBits,
    y: &Tensor,
    strides: &[isize],
    shape: &[usize],
    write: Write,
) -> bool {
    let Some(rows) = Rows::<T>::of(y, strides, shape) else {
        return false;
    };
    // SAFETY: `out` is the caller's to write (a fresh copy of `x` or a
    // loan only the storage slot also holds, which nothing reads while
    // this op runs), and `y` is another buffer.
    let Some(dst) = (unsafe { out.as_granted_mut_slice::<T>() }) else {
        return false;
    };
    let width: usize = shape[1..].iter().product();
    let dst = dst.as_mut_ptr() as usize;
    run_parts(bits, vec![(); bits.parts.len()], |part, ()| {
        let (words, first) = (&bits.words[part.words.clone()], part.words.start * 64);
        let dst = dst as *mut T;
        match rows {
            // One value for every element (`x[x > 0] = 0`): no rows to track.
            Rows::Repeated { data, step: 0 } if width == 1 => {
                let value = data[0];
                match write {
                    Write::Set => for_each_set(words, first, &mut Fill { dst, value }),
                    Write::Inc => for_each_set(words, first, &mut Add { dst, value }),
                }
            }
            _ => {
                let k = part.start;
                let mut sink = RowWrite { dst, width, rows, k, write };
                for_each_set(words, first, &mut sink);
            }
        }
    });
    true
}

/// Sets each set position's element to `value`.
struct Fill<T> {
    dst: *mut T,
    value: T,
}

impl<T: Copy> Sink for Fill<T> {
    #[inline(always)]
    fn one(&mut self, i: usize) {
        // SAFETY: as in `RowWrite::one`, for rows of one element.
        unsafe { *self.dst.add(i) = self.value };
    }

    #[inline(always)]
    fn full(&mut self, base: usize) {
        // SAFETY: as in `one`, for the 64 positions from `base`.
        let run = unsafe { std::slice::from_raw_parts_mut(self.dst.add(base), 64) };
        run.fill(self.value);
    }
}

/// Adds `value` to each set position's element.
struct Add<T> {
    dst: *mut T,
    value: T,
}

impl<T: Accumulate> Sink for Add<T> {
    #[inline(always)]
    fn one(&mut self, i: usize) {
        // SAFETY: as in `RowWrite::one`, for rows of one element.
        unsafe {
            let d = self.dst.add(i);
            *d = (*d).acc(self.value);
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
        let row = unsafe { std::slice::from_raw_parts_mut(self.dst.add(i * self.width), self.width) };
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
#[path = "mask_index_tests.rs"]
mod tests;
