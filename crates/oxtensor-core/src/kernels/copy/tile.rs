//! Blocked copies for transposes. When the dimension along which the
//! destination is contiguous is a long stride in the source (and the other
//! way round), an element-by-element walk touches a new cache line on one
//! side for every element. Walking square tiles instead keeps the tile's
//! lines of both sides in L1 until every element in them has been used.

use super::run;
use super::transpose_block::{block_for, Block};
use crate::kernels::iter::Nest;
use crate::tensor::Strides;

/// Strides (in bytes) up to this long are within a cache line or two: a
/// plain walk already uses every line it loads.
const NEAR: usize = 64;

/// Bytes along one side of a tile: 32x32 float64 tiles, 16 KB for both
/// sides together, fit L1 next to everything else.
const TILE_BYTES: usize = 256;

/// The two dimensions to tile, `(a, b)`: `a` is where the destination's
/// stride is smallest, `b` the source's, when they differ and each side's
/// stride along the other's dimension is far. `None` when a plain walk is
/// as good.
pub(super) fn transpose_dims(nest: &Nest<2>, size: usize) -> Option<(usize, usize)> {
    let shape = nest.shape();
    let tile = tile_len(size);
    let fastest = |k: usize| {
        let strides = nest.strides(k);
        (0..shape.len())
            .filter(|&d| strides[d] != 0 && shape[d] >= tile)
            .min_by_key(|&d| strides[d].unsigned_abs())
    };
    let (a, b) = (fastest(1)?, fastest(0)?);
    let far = |k: usize, d: usize| nest.strides(k)[d].unsigned_abs() > NEAR;
    let near = |k: usize, d: usize| nest.strides(k)[d].unsigned_abs() <= NEAR;
    (a != b && far(0, a) && far(1, b) && near(1, a) && near(0, b)).then_some((a, b))
}

/// Elements along one side of a tile.
fn tile_len(size: usize) -> usize {
    (TILE_BYTES / size.max(1)).clamp(16, 64)
}

/// Copies `nest` tile by tile over dimensions `(a, b)` (from
/// [`transpose_dims`]), walking the other dimensions outside.
///
/// # Safety
/// As [`super::copy_strided`], for the nest's layouts.
pub(super) unsafe fn copy_tiled(
    nest: &Nest<2>,
    (a, b): (usize, usize),
    size: usize,
    ps: *const u8,
    pd: *mut u8,
) {
    let shape = nest.shape();
    let rest: Vec<usize> = (0..shape.len()).filter(|&d| d != a && d != b).collect();
    let pick = |k: usize| {
        rest.iter()
            .map(|&d| nest.strides(k)[d])
            .collect::<Strides>()
    };
    let dims: Vec<usize> = rest.iter().map(|&d| shape[d]).collect();
    let outer = Nest::new(&dims, [pick(0), pick(1)]);
    let plane = Plane {
        len: [shape[a], shape[b]],
        src: [nest.strides(0)[a], nest.strides(0)[b]],
        dst: [nest.strides(1)[a], nest.strides(1)[b]],
        tile: tile_len(size),
    };
    outer.for_each_run(|[os, od], m, [s2, d2]| {
        for j in 0..m as isize {
            // SAFETY: the caller's contract; offsets come from the nest.
            let (ps, pd) = unsafe { (ps.offset(os + j * s2), pd.offset(od + j * d2)) };
            // SAFETY: the caller's contract; each arm's type has `size` bytes.
            unsafe {
                match size {
                    1 => plane.copy::<u8>(ps, pd),
                    2 => plane.copy::<u16>(ps, pd),
                    4 => plane.copy::<u32>(ps, pd),
                    8 => plane.copy::<u64>(ps, pd),
                    _ => plane.copy::<u128>(ps, pd),
                }
            }
        }
    });
}

/// One 2-d slice of a tiled copy: lengths and byte strides along `a`
/// (the destination's fast dimension) and `b` (the source's).
struct Plane {
    len: [usize; 2],
    src: [isize; 2],
    dst: [isize; 2],
    tile: usize,
}

impl Plane {
    /// # Safety
    /// As [`copy_tiled`], with `T` of the element's size.
    unsafe fn copy<T: Copy>(&self, ps: *const u8, pd: *mut u8) {
        let size = std::mem::size_of::<T>() as isize;
        let block = block_for(size as usize).filter(|_| self.src[1] == size && self.dst[0] == size);
        let [na, nb] = self.len;
        for b0 in (0..nb).step_by(self.tile) {
            let b1 = (b0 + self.tile).min(nb);
            for a0 in (0..na).step_by(self.tile) {
                let a1 = (a0 + self.tile).min(na);
                // SAFETY: the caller's contract; the tile is inside the plane.
                unsafe {
                    match block {
                        Some(block) => self.tile_blocks::<T>(block, [a0, a1], [b0, b1], ps, pd),
                        None => self.tile_runs::<T>([a0, a1], b0..b1, ps, pd),
                    }
                }
            }
        }
    }

    /// Copies the tile `a0..a1` by the `b` range one run along `a` at a time.
    ///
    /// # Safety
    /// As [`Plane::copy`], for a tile inside the plane.
    unsafe fn tile_runs<T: Copy>(
        &self,
        [a0, a1]: [usize; 2],
        bs: std::ops::Range<usize>,
        ps: *const u8,
        pd: *mut u8,
    ) {
        let (n, [ss, sd]) = (a1 - a0, [self.src[0], self.dst[0]]);
        for j in bs {
            let s = ss * a0 as isize + self.src[1] * j as isize;
            let d = sd * a0 as isize + self.dst[1] * j as isize;
            // SAFETY: the caller's contract; inside the plane.
            unsafe { run::<T>(ps.offset(s), pd.offset(d), n, ss, sd) };
        }
    }

    /// Copies a tile in 4x4 blocks (both sides contiguous along their fast
    /// dimension), its ragged right and bottom edges by runs.
    ///
    /// # Safety
    /// As [`Plane::copy`], for a tile inside the plane; `block` runs here.
    unsafe fn tile_blocks<T: Copy>(
        &self,
        block: Block,
        [a0, a1]: [usize; 2],
        [b0, b1]: [usize; 2],
        ps: *const u8,
        pd: *mut u8,
    ) {
        let (a4, b4) = (a0 + (a1 - a0) / 4 * 4, b0 + (b1 - b0) / 4 * 4);
        for j in (b0..b4).step_by(4) {
            for i in (a0..a4).step_by(4) {
                let s = self.src[0] * i as isize + self.src[1] * j as isize;
                let d = self.dst[0] * i as isize + self.dst[1] * j as isize;
                // SAFETY: the caller's contract; the block is inside the tile.
                unsafe { block(ps.offset(s), self.src[0], pd.offset(d), self.dst[1]) };
            }
        }
        // SAFETY: the caller's contract; the edges are inside the tile.
        unsafe {
            if a4 < a1 {
                self.tile_runs::<T>([a4, a1], b0..b4, ps, pd);
            }
            self.tile_runs::<T>([a0, a1], b4..b1, ps, pd);
        }
    }
}
