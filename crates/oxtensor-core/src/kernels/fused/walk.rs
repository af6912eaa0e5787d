//! How a fused step walks its output: in blocks that never cross the end
//! of a *run*, a stretch of the output (its trailing dimensions) over which
//! each leaf is contiguous or one repeated element. Within a block a leaf is
//! then read as a slice of itself, as its single element, or, when it is
//! strided or broadcast inside the run (a transposed matrix, a column
//! against a matrix with short rows), as a block gathered into scratch. The
//! kernels see 1-d operands either way and compute the same per-element
//! operations as on the whole arrays, so results stay bit-identical.

use crate::error::{Error, Result};
use crate::kernels::copy::to_contiguous;
use crate::kernels::iter::broadcast_strides;
use crate::tensor::{Dims, Element, Strides, Tensor};
use smallvec::SmallVec;

/// Elements per block: a block of every intermediate stays in L2.
pub(super) const BLOCK: usize = 2048;

/// Runs shorter than this are not worth a block each (every block pays a
/// kernel call per node, tens of ns, against ~1 ns per element): the walk
/// then takes longer runs and gathers the leaves that break them.
const MIN_RUN: usize = 256;

/// How a leaf is read in each block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    /// Contiguous over the run: a slice view.
    Slice,
    /// Constant over the run: its one element.
    Single,
    /// Anything else: copied element by element into scratch.
    Gather,
}

/// One leaf's layout at the output's shape.
struct LeafWalk {
    /// Byte strides, 0 along broadcast dimensions.
    strides: Strides,
    read: Read,
}

/// Output elements `[at, at + len)`, inside one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Block {
    pub(super) at: usize,
    pub(super) len: usize,
}

/// The block plan of one call.
pub(super) struct Walk {
    shape: Dims,
    /// Dimensions `..split` number the runs; the rest make up one run.
    split: usize,
    /// Elements per run.
    run: usize,
    leaves: SmallVec<[LeafWalk; 4]>,
}

/// The smallest `k` such that, over dimensions `k..` (those of length 1
/// aside), `strides` are C-contiguous for elements of `size` bytes, and the
/// smallest such that they are all 0.
fn reach(shape: &[usize], strides: &[isize], size: usize) -> (usize, usize) {
    let (mut contig, mut single) = (shape.len(), shape.len());
    let mut expect = size as isize;
    for d in (0..shape.len()).rev() {
        if shape[d] != 1 {
            if contig == d + 1 && strides[d] == expect {
                contig = d;
            }
            if single == d + 1 && strides[d] == 0 {
                single = d;
            }
            expect *= shape[d] as isize;
        } else {
            // A dimension of length 1 is never stepped along.
            contig -= usize::from(contig == d + 1);
            single -= usize::from(single == d + 1);
        }
    }
    (contig, single)
}

impl Walk {
    /// The plan for `leaves` (each broadcasting to `shape`): the split that
    /// keeps runs at least `MIN_RUN` long (or the whole output) with the
    /// fewest gathered leaves, the longest runs among those.
    pub(super) fn new(shape: &[usize], leaves: &[&Tensor]) -> Walk {
        let strides: SmallVec<[Strides; 4]> =
            leaves.iter().map(|t| broadcast_strides(t, shape)).collect();
        let reaches: SmallVec<[(usize, usize); 4]> = leaves
            .iter()
            .zip(&strides)
            .map(|(t, s)| reach(shape, s, t.dtype().itemsize()))
            .collect();
        let total: usize = shape.iter().product();
        let run_at = |k: usize| shape[k..].iter().product::<usize>();
        let gathers = |k: usize| reaches.iter().filter(|r| r.0 > k && r.1 > k).count();
        let split = (0..=shape.len())
            .filter(|&k| k == 0 || run_at(k) >= MIN_RUN.min(total))
            .min_by_key(|&k| (gathers(k), k))
            .unwrap_or(0);
        let leaves = strides
            .into_iter()
            .zip(&reaches)
            .map(|(strides, &(contig, single))| LeafWalk {
                strides,
                read: match () {
                    _ if single <= split => Read::Single,
                    _ if contig <= split => Read::Slice,
                    _ => Read::Gather,
                },
            })
            .collect();
        Walk {
            shape: shape.into(),
            split,
            run: run_at(split),
            leaves,
        }
    }

    fn blocks_per_run(&self) -> usize {
        self.run.div_ceil(BLOCK)
    }

    /// How many blocks cover the output.
    pub(super) fn len(&self) -> usize {
        let runs: usize = self.shape[..self.split].iter().product();
        runs * self.blocks_per_run()
    }

    /// Block `b` (blocks tile the output in order).
    pub(super) fn block(&self, b: usize) -> Block {
        let per = self.blocks_per_run();
        let (q, i) = (b / per, b % per);
        Block {
            at: q * self.run + i * BLOCK,
            len: BLOCK.min(self.run - i * BLOCK),
        }
    }

    /// Block `b` when the blocks are taken a column of blocks at a time:
    /// every run's first block, then every run's second, and so on (a
    /// range of these touches one block's stretch of the runs' positions).
    pub(super) fn block_by_columns(&self, b: usize) -> Block {
        let per = self.blocks_per_run();
        let runs = self.len() / per.max(1);
        self.block((b % runs) * per + b / runs)
    }

    /// Elements per run.
    pub(super) fn run_len(&self) -> usize {
        self.run
    }

    /// The longest block (what scratch must hold).
    pub(super) fn max_block(&self) -> usize {
        BLOCK.min(self.run)
    }

    /// Whether leaf `leaf` is gathered (and so needs scratch).
    pub(super) fn gathers(&self, leaf: usize) -> bool {
        self.leaves[leaf].read == Read::Gather
    }

    /// Each leaf's operand for `block`; gathered leaves are copied into
    /// `scratch[i]` (at least `block.len` long) and viewed there.
    pub(super) fn operands<T: Element>(
        &self,
        leaves: &[&Tensor],
        block: Block,
        scratch: &mut [Option<Tensor>],
    ) -> Result<SmallVec<[Tensor; 4]>> {
        let (q, j) = (block.at / self.run, block.at % self.run);
        let size = std::mem::size_of::<T>() as isize;
        let mut out = SmallVec::new();
        for (i, (t, lw)) in leaves.iter().zip(&self.leaves).enumerate() {
            let base = t.offset() as isize + self.run_offset(q, &lw.strides);
            let view = match lw.read {
                Read::Slice => t.view(&[block.len], &[size], (base + j as isize * size) as usize),
                Read::Single => t.view(&[1], &[size], base as usize),
                Read::Gather => {
                    let dst = scratch[i]
                        .as_mut()
                        .ok_or_else(|| Error::Value("fused gather scratch is missing".into()))?;
                    let ys = dst
                        .as_mut_slice::<T>()
                        .ok_or_else(|| Error::Value("fused gather scratch is shared".into()))?;
                    gather(t, &lw.strides, &self.shape, block.at, &mut ys[..block.len]);
                    dst.view(&[block.len], &[size], 0)
                }
            }?;
            out.push(view);
        }
        Ok(out)
    }

    /// Byte offset of run `q`'s first element in a leaf with `strides`.
    fn run_offset(&self, q: usize, strides: &[isize]) -> isize {
        let mut rest = q;
        let mut off = 0;
        for d in (0..self.split).rev() {
            let n = self.shape[d];
            off += (rest % n) as isize * strides[d];
            rest /= n;
        }
        off
    }
}

/// `dst[i]` = the element of `t` (byte `strides` at the output's `shape`)
/// at output position `at + i`, in C order.
fn gather<T: Element>(t: &Tensor, strides: &[isize], shape: &[usize], at: usize, dst: &mut [T]) {
    let Some(last) = shape.len().checked_sub(1) else {
        // A 0-d output has one element, at offset 0.
        // SAFETY: `t` broadcasts to the 0-d `shape` (`broadcast_strides`
        // asserted it when the walk was made), so it has one element.
        dst.iter_mut()
            // SAFETY: as above: `t` holds the one element a 0-d output reads.
            .for_each(|y| *y = unsafe { *(t.as_ptr() as *const T) });
        return;
    };
    let mut idx: SmallVec<[usize; 4]> = SmallVec::from_elem(0, shape.len());
    let (mut rest, mut off) = (at, 0isize);
    for d in (0..shape.len()).rev() {
        idx[d] = rest % shape[d];
        rest /= shape[d];
        off += idx[d] as isize * strides[d];
    }
    let (base, step) = (t.as_ptr(), strides[last]);
    let mut done = 0;
    while done < dst.len() {
        let n = (shape[last] - idx[last]).min(dst.len() - done);
        for (k, y) in dst[done..done + n].iter_mut().enumerate() {
            // SAFETY: the index stays inside `shape`, and `strides` are
            // `broadcast_strides(t, shape)` (asserted to broadcast) over
            // `t`'s layout, which `Tensor::check_layout` bounded.
            *y = unsafe { *(base.offset(off + k as isize * step) as *const T) };
        }
        done += n;
        idx[last] += n;
        off += n as isize * step;
        let mut d = last;
        while d > 0 && idx[d] == shape[d] {
            off -= shape[d] as isize * strides[d];
            idx[d] = 0;
            d -= 1;
            idx[d] += 1;
            off += strides[d];
        }
    }
}

/// Bytes between elements along the output's last axis from which a leaf
/// is copied whole before the walk rather than gathered per block.
const FAR: usize = 64;

/// `leaves`, with those whose elements along the output's last (longer
/// than 1) dimension lie a cache line or more apart (a transposed matrix)
/// copied to C order by the tiled copy kernel into `copies`: gathered block
/// by block, they would cost a cache line and often a TLB miss per element
/// (measured on a transposed 4000x4000 float64: 4x NumPy's time).
pub(super) fn compact<'a>(
    leaves: &[&'a Tensor],
    shape: &[usize],
    copies: &'a mut SmallVec<[Option<Tensor>; 4]>,
) -> Result<SmallVec<[&'a Tensor; 4]>> {
    let last = (0..shape.len()).rev().find(|&d| shape[d] > 1);
    let far =
        |t: &Tensor| last.is_some_and(|d| broadcast_strides(t, shape)[d].unsigned_abs() >= FAR);
    for t in leaves {
        copies.push(far(t).then(|| to_contiguous(t)).transpose()?);
    }
    let copies: &'a SmallVec<[Option<Tensor>; 4]> = copies;
    Ok(leaves
        .iter()
        .zip(copies)
        .map(|(&t, c)| c.as_ref().unwrap_or(t))
        .collect())
}

/// `t`'s `[len]` prefix as a writable tensor: reuses its buffer when it is
/// large enough (block lengths change at the end of each run).
pub(super) fn resized(t: Tensor, len: usize) -> Result<Tensor> {
    if t.len() == len {
        return Ok(t);
    }
    let (dtype, buffer) = (t.dtype(), t.buffer().clone());
    drop(t);
    match Tensor::contiguous_in(dtype, &[len], buffer) {
        Some(t) => Ok(t),
        None => Tensor::uninit(dtype, &[len]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::tensor::Scalar;

    fn matrix(rows: usize, cols: usize) -> Tensor {
        let xs: Vec<f64> = (0..rows * cols).map(|i| i as f64).collect();
        Tensor::from_vec(vec![rows, cols], xs).unwrap()
    }

    fn reads(w: &Walk) -> Vec<Read> {
        w.leaves.iter().map(|l| l.read).collect()
    }

    /// Every block's operands, flattened, against `t.get` at the output positions.
    fn check_operands(w: &Walk, leaves: &[&Tensor], shape: &[usize]) {
        let total: usize = shape.iter().product();
        let mut scratch: Vec<Option<Tensor>> = (0..leaves.len())
            .map(|i| {
                w.gathers(i)
                    .then(|| Tensor::uninit(DType::Float64, &[BLOCK]).unwrap())
            })
            .collect();
        let mut next = 0;
        for b in 0..w.len() {
            let block = w.block(b);
            assert_eq!(block.at, next, "blocks tile the output");
            next += block.len;
            let ops = w.operands::<f64>(leaves, block, &mut scratch).unwrap();
            for (t, op) in leaves.iter().zip(&ops) {
                let strides = broadcast_strides(t, shape);
                for k in 0..block.len {
                    let want = element_at(t, &strides, shape, block.at + k);
                    let got = op.get(if op.len() == 1 { 0 } else { k });
                    assert_eq!(got, want, "block {block:?} element {k}");
                }
            }
        }
        assert_eq!(next, total);
    }

    fn element_at(t: &Tensor, strides: &[isize], shape: &[usize], at: usize) -> Scalar {
        let mut ys = [0.0f64];
        gather(t, strides, shape, at, &mut ys);
        Scalar::Float(ys[0], DType::Float64)
    }

    #[test]
    fn rows_and_columns_read_as_slices_and_singles() {
        let x = matrix(3, 5000);
        let row = matrix(1, 5000);
        let col = matrix(3, 1);
        let w = Walk::new(&[3, 5000], &[&x, &row, &col]);
        assert_eq!((w.split, w.run), (1, 5000));
        assert_eq!(reads(&w), [Read::Slice, Read::Slice, Read::Single]);
        assert_eq!(w.len(), 9);
        assert_eq!(w.block(2), Block { at: 4096, len: 904 });
        check_operands(&w, &[&x, &row, &col], &[3, 5000]);
    }

    #[test]
    fn short_rows_take_the_whole_output_and_gather() {
        let x = matrix(700, 10);
        let row = matrix(1, 10);
        let w = Walk::new(&[700, 10], &[&x, &row]);
        assert_eq!((w.split, w.run), (0, 7000));
        assert_eq!(reads(&w), [Read::Slice, Read::Gather]);
        check_operands(&w, &[&x, &row], &[700, 10]);
    }

    #[test]
    fn transposed_and_reversed_leaves_are_gathered() {
        let x = matrix(60, 70);
        let xt = x.view(&[70, 60], &[8, 70 * 8], 0).unwrap();
        let rev = Tensor::from_vec(vec![60], (0..60).map(f64::from).collect()).unwrap();
        let rev = rev.view(&[1, 60], &[0, -8], 59 * 8).unwrap();
        let w = Walk::new(&[70, 60], &[&xt, &rev]);
        assert_eq!(reads(&w), [Read::Gather, Read::Gather]);
        check_operands(&w, &[&xt, &rev], &[70, 60]);
    }

    #[test]
    fn single_elements_zero_d_and_empty_outputs() {
        let one = Tensor::from_vec(vec![1, 1], vec![4.0f64]).unwrap();
        let x = matrix(40, 300);
        let w = Walk::new(&[40, 300], &[&x, &one]);
        assert_eq!(reads(&w), [Read::Slice, Read::Single]);
        check_operands(&w, &[&x, &one], &[40, 300]);
        let s = Tensor::scalar(2.0f64);
        let w = Walk::new(&[], &[&s]);
        assert_eq!((w.len(), w.block(0)), (1, Block { at: 0, len: 1 }));
        check_operands(&w, &[&s], &[]);
        let e = matrix(0, 7);
        assert_eq!(Walk::new(&[0, 7], &[&e]).len(), 0);
        let e = matrix(7, 0);
        assert_eq!(Walk::new(&[7, 0], &[&e]).len(), 0);
    }

    #[test]
    fn three_d_broadcasts_in_middle_dimensions() {
        let x = Tensor::from_vec(vec![4, 3, 300], (0..3600).map(f64::from).collect()).unwrap();
        let mid = Tensor::from_vec(vec![4, 1, 300], (0..1200).map(f64::from).collect()).unwrap();
        let lead = Tensor::from_vec(vec![1, 3, 1], vec![1.0, 2.0, 3.0]).unwrap();
        let w = Walk::new(&[4, 3, 300], &[&x, &mid, &lead]);
        assert_eq!((w.split, w.run), (2, 300));
        assert_eq!(reads(&w), [Read::Slice, Read::Slice, Read::Single]);
        check_operands(&w, &[&x, &mid, &lead], &[4, 3, 300]);
    }

    #[test]
    fn resized_reuses_the_buffer() {
        let t = Tensor::uninit(DType::Float64, &[BLOCK]).unwrap();
        let ptr = t.as_ptr();
        let mut s = resized(t, 10).unwrap();
        assert_eq!((s.shape(), s.as_ptr()), (&[10][..], ptr));
        assert!(s.as_mut_slice::<f64>().is_some());
        assert_eq!(resized(s, BLOCK).unwrap().len(), BLOCK);
    }
}
