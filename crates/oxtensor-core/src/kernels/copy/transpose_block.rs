//! 4x4 transposes in vector registers, for the tiles of a transposing copy
//! (`copy_tile`). Inside a tile the plain walk loads one element per source
//! row and stores it alone; a block loads four rows of four, shuffles, and
//! stores four columns of four (measured: a float64 transposed copy of
//! 2000x2000 on one thread, 5.6 ms against NumPy's 4.0 ms before).

/// Transposes one 4x4 block: source rows `ps + k * src_row` (four
/// contiguous elements each) become destination rows `pd + j * dst_row`.
///
/// # Safety
/// The CPU must run the block's build, the 16 source elements must be
/// readable, the 16 destination elements writable and apart from them.
pub(super) type Block = unsafe fn(ps: *const u8, src_row: isize, pd: *mut u8, dst_row: isize);

/// The block transpose for elements of `size` bytes on this CPU, if any.
pub(super) fn block_for(size: usize) -> Option<Block> {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::kernels::cpu::{level, Level};
        match size {
            4 => return Some(x86::block32),
            8 if level() >= Level::Avx2 => return Some(x86::block64),
            _ => {}
        }
    }
    let _ = size;
    None
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// 4-byte elements in SSE registers (every x86-64 CPU has SSE).
    ///
    /// # Safety
    /// As [`super::Block`].
    pub(super) unsafe fn block32(ps: *const u8, src_row: isize, pd: *mut u8, dst_row: isize) {
        // SAFETY: the caller's contract; unaligned loads and stores.
        unsafe {
            let row = |k: isize| _mm_loadu_ps(ps.offset(k * src_row) as *const f32);
            let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
            let t0 = _mm_unpacklo_ps(r0, r1);
            let t1 = _mm_unpackhi_ps(r0, r1);
            let t2 = _mm_unpacklo_ps(r2, r3);
            let t3 = _mm_unpackhi_ps(r2, r3);
            let out = |j: isize| pd.offset(j * dst_row) as *mut f32;
            _mm_storeu_ps(out(0), _mm_movelh_ps(t0, t2));
            _mm_storeu_ps(out(1), _mm_movehl_ps(t2, t0));
            _mm_storeu_ps(out(2), _mm_movelh_ps(t1, t3));
            _mm_storeu_ps(out(3), _mm_movehl_ps(t3, t1));
        }
    }

    /// 8-byte elements in AVX registers.
    ///
    /// # Safety
    /// As [`super::Block`]; the CPU must run AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block64(ps: *const u8, src_row: isize, pd: *mut u8, dst_row: isize) {
        // SAFETY: the caller's contract; unaligned loads and stores.
        unsafe {
            let row = |k: isize| _mm256_loadu_pd(ps.offset(k * src_row) as *const f64);
            let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
            // t0 = [r0[0] r1[0] r0[2] r1[2]], t1 = [r0[1] r1[1] r0[3] r1[3]], ...
            let t0 = _mm256_unpacklo_pd(r0, r1);
            let t1 = _mm256_unpackhi_pd(r0, r1);
            let t2 = _mm256_unpacklo_pd(r2, r3);
            let t3 = _mm256_unpackhi_pd(r2, r3);
            let out = |j: isize| pd.offset(j * dst_row) as *mut f64;
            _mm256_storeu_pd(out(0), _mm256_permute2f128_pd(t0, t2, 0x20));
            _mm256_storeu_pd(out(1), _mm256_permute2f128_pd(t1, t3, 0x20));
            _mm256_storeu_pd(out(2), _mm256_permute2f128_pd(t0, t2, 0x31));
            _mm256_storeu_pd(out(3), _mm256_permute2f128_pd(t1, t3, 0x31));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each size's block against the definition, with padded rows.
    fn check<T: Copy + PartialEq + std::fmt::Debug + From<u16>>() {
        let size = std::mem::size_of::<T>();
        let Some(block) = block_for(size) else {
            return;
        };
        let (sw, dw) = (7usize, 5usize);
        let src: Vec<T> = (0..4 * sw as u16).map(T::from).collect();
        let mut dst = vec![T::from(999); 4 * dw];
        // SAFETY: the build is this CPU's; rows of `sw`/`dw` elements hold 4.
        unsafe {
            block(
                src.as_ptr() as *const u8,
                (sw * size) as isize,
                dst.as_mut_ptr() as *mut u8,
                (dw * size) as isize,
            )
        };
        for j in 0..4 {
            for k in 0..4 {
                assert_eq!(dst[j * dw + k], src[k * sw + j], "({j}, {k})");
            }
            assert_eq!(dst[j * dw + 4], T::from(999), "row {j} past the block");
        }
    }

    #[test]
    fn blocks_transpose_four_by_four() {
        check::<u32>();
        check::<u64>();
    }
}
