//! The loops behind indexing: basic indexing as a view (new shape, strides
//! and offset over the same buffer), and `Blocks`, a list of equally shaped
//! strided blocks copied, set or incremented from a source into a
//! destination. Gathers (advanced indexing) and scatters (`set_subtensor`,
//! `inc_subtensor`) are both block lists; blocks are visited in order, so
//! repeated destinations accumulate (as `np.add.at`) or the last one wins.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::by_width;
use crate::kernels::copy::{copy_nest, run, CHUNK_BYTES, PARALLEL_BYTES};
use crate::kernels::iter::Nest;
use crate::tensor::index::{resolve_slice, scalar_index, wrap_index, IdxEntry};
use crate::tensor::{Element, Strides, Tensor};
use half::f16;
use num_complex::{Complex32, Complex64 as C64};
use rayon::prelude::*;

/// `x[idx_list]` for basic indices: a view of `x`. `values` are the index inputs.
pub fn basic_view(x: &Tensor, idx_list: &[IdxEntry], values: &[&Tensor]) -> Result<Tensor> {
    if idx_list.len() > x.ndim() {
        return Err(Error::Index(format!(
            "too many indices for tensor: tensor is {}-dimensional, but {} were indexed",
            x.ndim(),
            idx_list.len()
        )));
    }
    let value = |p: Option<usize>| -> Result<Option<i64>> {
        p.map(|p| {
            let t = values
                .get(p)
                .ok_or_else(|| Error::Index(format!("missing index input {p}")))?;
            scalar_index(t)
        })
        .transpose()
    };
    let (mut shape, mut strides) = (Vec::new(), Vec::new());
    let mut offset = x.offset() as isize;
    for (axis, entry) in idx_list.iter().enumerate() {
        let (len, stride) = (x.shape()[axis], x.strides()[axis]);
        match *entry {
            IdxEntry::Index(p) => {
                let i = wrap_index(value(Some(p))?.unwrap_or(0), len, axis)?;
                offset += i as isize * stride;
            }
            IdxEntry::Slice { start, stop, step } => {
                let r = resolve_slice(len, value(start)?, value(stop)?, value(step)?)?;
                offset += r.start as isize * stride;
                shape.push(r.count);
                strides.push(stride * r.step);
            }
        }
    }
    shape.extend_from_slice(&x.shape()[idx_list.len()..]);
    strides.extend_from_slice(&x.strides()[idx_list.len()..]);
    if shape.contains(&0) {
        offset = x.offset() as isize;
    }
    x.view(&shape, &strides, offset as usize)
}

/// What a block operation does with each destination element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// `dst = src` (copies and `set_subtensor`).
    Set,
    /// `dst += src` (`inc_subtensor`); `or` for bools, wrapping for integers.
    Inc,
}

/// Equally shaped blocks: each pair holds a source and a destination byte
/// offset (from each tensor's element 0); within a block both operands
/// are walked with their own byte strides.
#[derive(Clone, Debug)]
pub struct Blocks {
    /// The shape of one block.
    pub shape: Vec<usize>,
    /// Source byte strides within a block.
    pub src_strides: Strides,
    /// Destination byte strides within a block.
    pub dst_strides: Strides,
    /// `(source offset, destination offset)` of each block, in order.
    pub pairs: Vec<(isize, isize)>,
}

/// Runs the blocks from `src` into `dst`, which must be the only handle
/// on a writable buffer and share `src`'s dtype.
///
/// # Safety
/// Every block, walked with its strides from each pair's offsets, must lie
/// inside `src`'s and `dst`'s layouts (offsets from bounds-checked indices
/// over checked layouts), and must not overlap `src` in `dst`'s memory.
pub unsafe fn run_blocks(
    blocks: &Blocks,
    src: &Tensor,
    dst: &mut Tensor,
    write: Write,
) -> Result<()> {
    if src.dtype() != dst.dtype() {
        return Err(Error::Type(format!(
            "block copy from {} into {}",
            src.dtype(),
            dst.dtype()
        )));
    }
    let (ps, pd) = block_ends(src, dst)?;
    let nest = Nest::new(
        &blocks.shape,
        [blocks.src_strides.clone(), blocks.dst_strides.clone()],
    );
    // SAFETY: this function's contract; the dtypes are equal (above).
    unsafe {
        match write {
            Write::Set => copy_blocks(&nest, &blocks.pairs, ps, pd, src.dtype().itemsize()),
            Write::Inc => inc_dispatch(src.dtype(), &nest, &blocks.pairs, ps, pd),
        }
    }
    Ok(())
}

/// The source's and the (writable) destination's first-element pointers.
fn block_ends(src: &Tensor, dst: &Tensor) -> Result<(*const u8, *mut u8)> {
    let base = dst
        .buffer()
        .as_mut_ptr()
        .ok_or_else(|| Error::Value("indexing destination is read-only".into()))?;
    // SAFETY: `dst.offset()` is inside the buffer (`Tensor::check_layout`;
    // an empty `dst` has no element to write through it).
    Ok((src.as_ptr(), unsafe { base.add(dst.offset()) }))
}

/// # Safety
/// [`run_blocks`]' contract, for the nest over the blocks' strides.
unsafe fn copy_blocks(
    nest: &Nest<2>,
    pairs: &[(isize, isize)],
    ps: *const u8,
    pd: *mut u8,
    size: usize,
) {
    if let Some(run) = single_run(nest) {
        // SAFETY: `run_blocks`' contract (offsets from bounds-checked
        // indices, blocks inside both checked layouts); the destination is
        // a unique buffer distinct from the source.
        return unsafe { copy_runs(pairs, run, size, ps, pd) };
    }
    for &(s0, d0) in pairs {
        // SAFETY: as above.
        unsafe { copy_nest(nest, size, ps.offset(s0), pd.offset(d0)) };
    }
}

/// Runs `blocks` as [`run_blocks`] does with [`Write::Set`], on several
/// threads when large. Only for blocks whose destinations are disjoint,
/// as a gather's are: there the order of the writes does not matter.
///
/// # Safety
/// As [`run_blocks`], and no two blocks write the same element.
pub unsafe fn gather_blocks(blocks: &Blocks, src: &Tensor, dst: &mut Tensor) -> Result<()> {
    let size = src.dtype().itemsize();
    let block: usize = blocks.shape.iter().product();
    let bytes = blocks.pairs.len() * block * size;
    let parts = (bytes / CHUNK_BYTES).min(rayon::current_num_threads() * 4);
    let small = bytes < PARALLEL_BYTES || parts < 2 || blocks.pairs.len() < 2 * parts;
    if small || src.dtype() != dst.dtype() {
        // SAFETY: this function's contract.
        return unsafe { run_blocks(blocks, src, dst, Write::Set) };
    }
    let (ps, pd) = block_ends(src, dst)?;
    let nest = Nest::new(
        &blocks.shape,
        [blocks.src_strides.clone(), blocks.dst_strides.clone()],
    );
    let ends = (ps as usize, pd as usize);
    if let Some((n, ss, sd)) =
        single_run(&nest).filter(|r| across_pairs(&blocks.pairs, r.0, r.2, size))
    {
        // Tasks take ranges of run positions (rows of `x[:, idx]`), not of
        // pairs: each row is then read by one task, not by every task.
        let per_task = n.div_ceil(parts);
        (0..n.div_ceil(per_task)).into_par_iter().for_each(|t| {
            let (ps, pd) = (ends.0 as *const u8, ends.1 as *mut u8);
            let rows = t * per_task..((t + 1) * per_task).min(n);
            // SAFETY: this function's contract; tasks write disjoint rows.
            unsafe { copy_runs_across(&blocks.pairs, rows, (ss, sd), size, ps, pd) };
        });
        return Ok(());
    }
    let per_task = blocks.pairs.len().div_ceil(parts);
    blocks.pairs.par_chunks(per_task).for_each(|pairs| {
        let (ps, pd) = (ends.0 as *const u8, ends.1 as *mut u8);
        // SAFETY: this function's contract; the blocks' destinations are
        // disjoint, so tasks never write the same element.
        unsafe { copy_blocks(&nest, pairs, ps, pd, size) }
    });
    Ok(())
}

/// The run length and byte steps when a block is one run (at most 1-d
/// after merging).
fn single_run(nest: &Nest<2>) -> Option<(usize, isize, isize)> {
    match nest.shape() {
        [] => Some((1, 0, 0)),
        [n] => Some((*n, nest.strides(0)[0], nest.strides(1)[0])),
        _ => None,
    }
}

/// Copies one run per pair, the element type chosen once.
///
/// # Safety
/// Every run must lie inside both buffers; destinations must not overlap
/// the source.
unsafe fn copy_runs(
    pairs: &[(isize, isize)],
    (n, ss, sd): (usize, isize, isize),
    size: usize,
    ps: *const u8,
    pd: *mut u8,
) {
    // SAFETY: the caller's contract; each arm's type has `size` bytes.
    unsafe { by_width!(size, typed_runs::<_>(pairs, n, ss, sd, ps, pd)) }
}

/// # Safety
/// As [`copy_runs`], with `T` of the element's size.
unsafe fn typed_runs<T: Copy>(
    pairs: &[(isize, isize)],
    n: usize,
    ss: isize,
    sd: isize,
    ps: *const u8,
    pd: *mut u8,
) {
    if across_pairs(pairs, n, sd, std::mem::size_of::<T>()) {
        // SAFETY: the same elements as the loop below, in another order.
        return unsafe { typed_runs_across::<T>(pairs, 0..n, ss, sd, ps, pd) };
    }
    for &(s0, d0) in pairs {
        // SAFETY: the caller's contract.
        unsafe { run::<T>(ps.offset(s0), pd.offset(d0), n, ss, sd) };
    }
}

/// Whether to copy a run's position `i` for every pair before `i + 1`:
/// when the runs are strided in the destination but consecutive pairs
/// are adjacent there (`x[:, idx]`: a run is a column, a pair a column
/// index), so each pass writes one contiguous row. Column by column
/// wrote and read a cache line per element (0.6x NumPy on 2000²).
fn across_pairs(pairs: &[(isize, isize)], n: usize, sd: isize, size: usize) -> bool {
    let adjacent = matches!(pairs, [(_, a), (_, b), ..] if b - a == size as isize);
    n > 1 && sd.unsigned_abs() != size && adjacent
}

/// [`typed_runs_across`] over `rows`, the element type chosen once.
///
/// # Safety
/// As [`copy_runs`].
unsafe fn copy_runs_across(
    pairs: &[(isize, isize)],
    rows: std::ops::Range<usize>,
    (ss, sd): (isize, isize),
    size: usize,
    ps: *const u8,
    pd: *mut u8,
) {
    // SAFETY: the caller's contract; each arm's type has `size` bytes.
    unsafe { by_width!(size, typed_runs_across::<_>(pairs, rows, ss, sd, ps, pd)) }
}

/// # Safety
/// As [`copy_runs`], with `T` of the element's size.
unsafe fn typed_runs_across<T: Copy>(
    pairs: &[(isize, isize)],
    positions: std::ops::Range<usize>,
    ss: isize,
    sd: isize,
    ps: *const u8,
    pd: *mut u8,
) {
    for i in positions.start as isize..positions.end as isize {
        let (ps, pd) = (ps.wrapping_offset(i * ss), pd.wrapping_offset(i * sd));
        for &(s0, d0) in pairs {
            // SAFETY: element `i` of the run at (`s0`, `d0`), inside both
            // buffers (the caller's contract); unaligned, as `run` reads
            // (16-byte complex elements may sit at 8-byte addresses).
            unsafe {
                let v = (ps.offset(s0) as *const T).read_unaligned();
                (pd.offset(d0) as *mut T).write_unaligned(v);
            }
        }
    }
}

/// Element addition as `inc_subtensor` does it.
pub(super) trait Accumulate: Element {
    fn acc(self, other: Self) -> Self;
}

macro_rules! accumulate {
    (wrapping: $($t:ty),*) => {$(
        impl Accumulate for $t { fn acc(self, o: Self) -> Self { self.wrapping_add(o) } }
    )*};
    (plus: $($t:ty),*) => {$(
        impl Accumulate for $t { fn acc(self, o: Self) -> Self { self + o } }
    )*};
}
accumulate!(wrapping: i8, i16, i32, i64, u8, u16, u32, u64);
accumulate!(plus: f16, f32, f64, Complex32, C64);

impl Accumulate for bool {
    fn acc(self, o: Self) -> Self {
        self | o
    }
}

/// # Safety
/// [`run_blocks`]' contract, both operands holding `T`s.
unsafe fn inc_blocks<T: Accumulate>(
    nest: &Nest<2>,
    pairs: &[(isize, isize)],
    ps: *const u8,
    pd: *mut u8,
) {
    if nest.shape().is_empty() {
        // Blocks of one element (`x[idx] += y` of a vector, a histogram):
        // one addition per pair, without walking a nest per pair (which
        // cost 5x the additions).
        for &(s0, d0) in pairs {
            // SAFETY: the caller's contract: `d0`/`s0` address `T`s inside
            // both layouts (bounds-checked indices over checked layouts).
            unsafe {
                let d = pd.offset(d0) as *mut T;
                *d = (*d).acc(*(ps.offset(s0) as *const T));
            }
        }
        return;
    }
    for &(s0, d0) in pairs {
        nest.for_each_run(|[os, od], n, [ss, sd]| {
            for i in 0..n as isize {
                // SAFETY: the caller's contract; the nest's runs walk the
                // blocks' strides, inside both layouts.
                unsafe {
                    let s = ps.offset(s0 + os + i * ss) as *const T;
                    let d = pd.offset(d0 + od + i * sd) as *mut T;
                    *d = (*d).acc(*s);
                }
            }
        });
    }
}

/// # Safety
/// [`run_blocks`]' contract, both operands of `dtype`.
unsafe fn inc_dispatch(
    dtype: DType,
    nest: &Nest<2>,
    pairs: &[(isize, isize)],
    ps: *const u8,
    pd: *mut u8,
) {
    use DType::*;
    // SAFETY: (every arm) the caller's contract, with `T` of `dtype`.
    unsafe {
        match dtype {
            Bool => inc_blocks::<bool>(nest, pairs, ps, pd),
            Int8 => inc_blocks::<i8>(nest, pairs, ps, pd),
            Int16 => inc_blocks::<i16>(nest, pairs, ps, pd),
            Int32 => inc_blocks::<i32>(nest, pairs, ps, pd),
            Int64 => inc_blocks::<i64>(nest, pairs, ps, pd),
            UInt8 => inc_blocks::<u8>(nest, pairs, ps, pd),
            UInt16 => inc_blocks::<u16>(nest, pairs, ps, pd),
            UInt32 => inc_blocks::<u32>(nest, pairs, ps, pd),
            UInt64 => inc_blocks::<u64>(nest, pairs, ps, pd),
            Float16 => inc_blocks::<f16>(nest, pairs, ps, pd),
            Float32 => inc_blocks::<f32>(nest, pairs, ps, pd),
            Float64 => inc_blocks::<f64>(nest, pairs, ps, pd),
            Complex64 => inc_blocks::<Complex32>(nest, pairs, ps, pd),
            Complex128 => inc_blocks::<C64>(nest, pairs, ps, pd),
        }
    }
}

/// Byte strides of `y` broadcast against a block of `shape` (right-aligned),
/// allowing a length-1 axis to broadcast only where `y_bcast` (its static
/// broadcastable flags) says so, as `Elemwise` does.
pub fn broadcast_value(
    y: &Tensor,
    y_bcast: &[bool],
    shape: &[usize],
    what: &str,
) -> Result<Strides> {
    let pad = shape.len().checked_sub(y.ndim());
    let fits = pad.is_some_and(|pad| {
        (0..y.ndim()).all(|d| {
            let n = y.shape()[d];
            n == shape[pad + d] || (n == 1 && y_bcast.get(d).copied().unwrap_or(true))
        })
    });
    if !fits {
        return Err(Error::Shape(format!(
            "{what}: cannot assign slice of shape {:?} from input of shape {:?}",
            shape,
            y.shape()
        )));
    }
    Ok(crate::kernels::iter::broadcast_strides(y, shape))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::c_strides;

    fn idx(v: i64) -> Tensor {
        Tensor::scalar(v)
    }

    #[test]
    fn views_and_blocks() {
        let x = Tensor::from_vec(vec![3, 4], (0..12).map(|v| v as f64).collect()).unwrap();
        let (one, neg) = (idx(1), idx(-1));
        let list = [
            IdxEntry::Index(0),
            IdxEntry::Slice {
                start: None,
                stop: None,
                step: Some(1),
            },
        ];
        let v = basic_view(&x, &list, &[&one, &neg]).unwrap();
        assert_eq!(v.shape(), &[4]);
        assert!(v.shares_buffer(&x));
        assert_eq!(v.get(0), crate::tensor::Scalar::Float(7.0, DType::Float64));
        let three = idx(3);
        let err = basic_view(&x, &[IdxEntry::Index(0)], &[&three]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "index 3 is out of bounds for axis 0 with size 3"
        );

        let src = Tensor::from_vec(vec![2], vec![1.0f64, 2.0]).unwrap();
        let mut dst = Tensor::zeros(DType::Float64, &[3]).unwrap();
        let blocks = Blocks {
            shape: vec![],
            src_strides: Strides::new(),
            dst_strides: Strides::new(),
            pairs: vec![(0, 0), (8, 0), (8, 16)],
        };
        // SAFETY: the blocks' offsets and strides stay inside both tensors.
        unsafe { run_blocks(&blocks, &src, &mut dst, Write::Inc).unwrap() };
        assert_eq!(
            dst.to_c_bytes().unwrap(),
            Tensor::from_vec(vec![3], vec![3.0f64, 0.0, 2.0])
                .unwrap()
                .to_c_bytes()
                .unwrap()
        );
        let strides = broadcast_value(&src, &[false], &[4, 2], "t").unwrap();
        assert_eq!(strides.as_slice(), &[0, 8]);
        assert!(broadcast_value(&src, &[false], &[2, 3], "t").is_err());
        assert_eq!(c_strides(DType::Float64, &[2]).as_slice(), &[8]);
    }
}
