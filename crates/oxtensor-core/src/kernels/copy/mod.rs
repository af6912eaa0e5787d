//! Copying between strided layouts: the one loop behind contiguous copies,
//! joins, fills, broadcasts and gathers. Runs contiguous on both sides go
//! through `memcpy`, broadcast runs become fills, 2-d transposes go through
//! cache-sized tiles (`copy_tile`), short trailing broadcasts write each
//! element's copies together (`copy_spread`), and large copies are cut
//! along their outermost dimension across threads.

mod join;
mod spread;
mod tile;
mod transpose_block;

pub use join::{region, scalar_of, write_into};

use crate::error::{Error, Result};
use crate::kernels::by_width;
use crate::kernels::iter::Nest;
use crate::kernels::PARALLEL_MIN;
use crate::tensor::{c_strides, Strides, Tensor};
use rayon::prelude::*;
use spread::copy_spread;
use tile::{copy_tiled, transpose_dims};

/// Copies of at least this many bytes are split across threads (a copy
/// moves several bytes per nanosecond, so this is ~50 µs of work).
pub(super) const PARALLEL_BYTES: usize = PARALLEL_MIN * 8;

/// The smallest piece of a split copy one task gets.
pub(super) const CHUNK_BYTES: usize = 1 << 18;

/// `t` itself when already C-contiguous, else a C-contiguous copy.
pub fn to_contiguous(t: &Tensor) -> Result<Tensor> {
    if t.is_c_contiguous() {
        return Ok(t.clone());
    }
    copy_contiguous(t)
}

/// A C-contiguous copy of `t` (always a new buffer).
pub fn copy_contiguous(t: &Tensor) -> Result<Tensor> {
    let mut out = Tensor::uninit(t.dtype(), t.shape())?;
    copy_into(t, &mut out)?;
    Ok(out)
}

/// Copies `src` into `dst`, a C-contiguous tensor of the same dtype and
/// shape that only the caller holds (a fresh output).
pub fn copy_into(src: &Tensor, dst: &mut Tensor) -> Result<()> {
    if src.dtype() != dst.dtype() || src.shape() != dst.shape() || !dst.is_c_contiguous() {
        return Err(Error::Value(format!(
            "cannot copy a {} array of shape {:?} into a {} array of shape {:?}",
            src.dtype(),
            src.shape(),
            dst.dtype(),
            dst.shape()
        )));
    }
    let size = src.dtype().itemsize();
    let pd = dst
        .buffer()
        .as_mut_ptr()
        .ok_or_else(|| Error::Value("cannot copy into read-only memory".into()))?;
    let dst_strides = c_strides(src.dtype(), src.shape());
    // SAFETY: `src`'s layout is a checked tensor layout; `dst` has its
    // dtype and shape and is C-contiguous (checked just above), so the C
    // strides of that shape address exactly `dst`'s checked elements;
    // `dst` is a buffer only this call writes, distinct from `src`.
    unsafe {
        copy_strided(
            size,
            src.shape(),
            src.strides(),
            &dst_strides,
            src.as_ptr(),
            pd.add(dst.offset()),
        )
    };
    Ok(())
}

/// Source and destination base pointers, handed to worker threads.
#[derive(Clone, Copy)]
struct Ends(*const u8, *mut u8);

// SAFETY: `Ends` only travels into the tasks of one `copy_strided` call,
// which write disjoint destination elements and only read the source.
unsafe impl Send for Ends {}
// SAFETY: as `Send`.
unsafe impl Sync for Ends {}

impl Ends {
    /// The pointers moved by the given byte offsets.
    ///
    /// # Safety
    /// The offsets must stay inside the caller's layouts.
    unsafe fn at(self, [os, od]: [isize; 2]) -> (*const u8, *mut u8) {
        // SAFETY: the caller's contract.
        unsafe { (self.0.offset(os), self.1.offset(od)) }
    }
}

/// Copies the elements of `size` bytes that `shape` and the byte strides
/// `src` address from `ps` to those `dst` addresses from `pd`, on several
/// threads when the copy is large.
///
/// # Safety
/// Every element both layouts address must lie inside the memory behind
/// `ps` (readable) and `pd` (writable); destination elements must be
/// distinct, must not overlap the source, and nobody else may access them
/// during the call.
pub unsafe fn copy_strided(
    size: usize,
    shape: &[usize],
    src: &[isize],
    dst: &[isize],
    ps: *const u8,
    pd: *mut u8,
) {
    let nest = Nest::new(shape, [src.into(), dst.into()]);
    let bytes = shape.iter().product::<usize>() * size;
    let parts = (bytes / CHUNK_BYTES).min(rayon::current_num_threads() * 4);
    if bytes < PARALLEL_BYTES || parts < 2 || !super::threaded() {
        // SAFETY: the caller's contract.
        return unsafe { copy_nest(&nest, size, ps, pd) };
    }
    let ends = Ends(ps, pd);
    nest.split_outer(parts)
        .into_par_iter()
        .for_each(|(offsets, part)| {
            // SAFETY: the parts are disjoint ranges of the outermost
            // dimension, so they write disjoint destination elements.
            unsafe {
                let (ps, pd) = ends.at(offsets);
                copy_nest(&part, size, ps, pd)
            }
        });
}

/// Copies one nest of `size`-byte elements on this thread.
///
/// # Safety
/// As [`copy_strided`], for the nest's layouts.
pub unsafe fn copy_nest(nest: &Nest<2>, size: usize, ps: *const u8, pd: *mut u8) {
    if let Some(dims) = transpose_dims(nest, size) {
        // SAFETY: the caller's contract.
        return unsafe { copy_tiled(nest, dims, size, ps, pd) };
    }
    // SAFETY: the caller's contract.
    if unsafe { copy_spread(nest, size, ps, pd) } {
        return;
    }
    let nest = short_inner_last(nest);
    // SAFETY: the caller's contract; each arm's type has `size` bytes.
    unsafe { by_width!(size, walk::<_>(&nest, ps, pd), else walk_bytes(&nest, size, ps, pd)) }
}

/// Runs shorter than this are swapped for a longer dimension: the walk
/// costs a few nanoseconds per run, a `repeat` along the last axis would
/// otherwise pay it for every two elements.
const SHORT_RUN: usize = 8;

/// `nest` with a much longer dimension moved innermost when the innermost
/// run is short (the copy does not depend on the order it walks in).
fn short_inner_last(nest: &Nest<2>) -> Nest<2> {
    let shape = nest.shape();
    let Some(&inner) = shape.last() else {
        return nest.clone();
    };
    let longer = (0..shape.len())
        .filter(|&d| inner < SHORT_RUN && shape[d] >= 4 * inner.max(SHORT_RUN))
        .min_by_key(|&d| nest.strides(1)[d].unsigned_abs());
    let Some(k) = longer else {
        return nest.clone();
    };
    let order: Vec<usize> = (0..shape.len()).filter(|&d| d != k).chain([k]).collect();
    let pick = |s: &[isize]| order.iter().map(|&d| s[d]).collect::<Strides>();
    let dims: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
    Nest::new(&dims, [pick(nest.strides(0)), pick(nest.strides(1))])
}

/// Walks `nest` two dimensions at a time: the innermost run is handled
/// inline for every position of the next one.
///
/// # Safety
/// As [`copy_strided`], with `T` of the element's size.
unsafe fn walk<T: Copy>(nest: &Nest<2>, ps: *const u8, pd: *mut u8) {
    let Some((outer, n, [ss, sd])) = nest.split_inner() else {
        // SAFETY: a 0-d nest is one element at the base pointers.
        return unsafe { run::<T>(ps, pd, 1, 0, 0) };
    };
    outer.for_each_run(|[os, od], m, [s2, d2]| {
        for j in 0..m as isize {
            // SAFETY: the caller's contract; offsets come from the nest.
            unsafe { run::<T>(ps.offset(os + j * s2), pd.offset(od + j * d2), n, ss, sd) };
        }
    });
}

/// Copies a run of `n` elements of type `T` with byte steps `ss` and `sd`.
/// Elements are read and written unaligned: host arrays need not be.
///
/// # Safety
/// As [`copy_strided`], for the run.
#[inline(always)]
pub(super) unsafe fn run<T: Copy>(ps: *const u8, pd: *mut u8, n: usize, ss: isize, sd: isize) {
    let size = std::mem::size_of::<T>() as isize;
    // SAFETY: (all branches) the caller's contract.
    unsafe {
        if ss == size && sd == size {
            return std::ptr::copy_nonoverlapping(ps, pd, n * size as usize);
        }
        if ss == 0 {
            let v = (ps as *const T).read_unaligned();
            for i in 0..n as isize {
                (pd.offset(i * sd) as *mut T).write_unaligned(v);
            }
            return;
        }
        for i in 0..n as isize {
            let v = (ps.offset(i * ss) as *const T).read_unaligned();
            (pd.offset(i * sd) as *mut T).write_unaligned(v);
        }
    }
}

/// The walk for element sizes no dtype has today: one `memcpy` each.
///
/// # Safety
/// As [`copy_strided`].
unsafe fn walk_bytes(nest: &Nest<2>, size: usize, ps: *const u8, pd: *mut u8) {
    nest.for_each_run(|[os, od], n, [ss, sd]| {
        for i in 0..n as isize {
            // SAFETY: the caller's contract.
            unsafe {
                std::ptr::copy_nonoverlapping(ps.offset(os + i * ss), pd.offset(od + i * sd), size)
            };
        }
    });
}

#[cfg(test)]
mod tests;
