//! Boolean-mask indexing without index arrays, for a mask over `x`'s
//! leading axes (`x[mask]`, NumPy's most common boolean index): the gather
//! copies each set position's element (or row of the trailing axes)
//! straight into the result (`set_subtensor`/`inc_subtensor` are in
//! `mask_update`). The general plan (`advanced_index`) turns the mask into
//! one int64 array per axis, then a byte offset and a block pair per
//! position: 3x NumPy's time for `x[x > 0]`. Both passes here run over the
//! packed mask ([`MaskBits`]).

use super::mask_bits::{for_each_set, run_parts, MaskBits, Sink};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::alloc::Pool;
use crate::kernels::copy::to_contiguous;
use crate::tensor::index::IdxEntry;
use crate::tensor::Tensor;

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
    let bits = MaskBits::from_tensor(mask)?;
    let x = to_contiguous(x)?;
    let mut shape = vec![bits.count];
    shape.extend_from_slice(&x.shape()[mask.ndim()..]);
    let out = pool.take(x.dtype(), &shape)?;
    let width: usize = shape[1..].iter().product();
    if out.is_empty() {
        return Ok(out);
    }
    let size = x.dtype().itemsize();
    let base = out.buffer().as_mut_ptr().expect("a fresh output buffer");
    // SAFETY: `out` is not empty, so its first element is inside its buffer
    // (`Tensor::check_layout`).
    let dst = unsafe { base.add(out.offset()) } as usize;
    let src = x.as_ptr() as usize;
    run_parts(&bits, vec![(); bits.parts.len()], |part, ()| {
        let words = &bits.words[part.words.clone()];
        let row = width * size;
        // SAFETY: `check_mask_shape` made the mask's shape `x`'s leading
        // axes, so every set position has a row of `row` bytes in the
        // C-contiguous `x`; `out` was allocated with `bits.count` rows
        // (`pool.take`, `layout::nbytes`) and this part writes rows
        // `start..start + count`, which no other part writes.
        unsafe {
            let dst = (dst as *mut u8).add(part.start * row);
            gather_part(
                words,
                part.words.start * 64,
                src as *const u8,
                dst,
                width,
                size,
            );
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

#[cfg(test)]
#[path = "mask_index_tests.rs"]
mod tests;
