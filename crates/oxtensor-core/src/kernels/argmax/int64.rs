//! int64 argmax lanes with AVX-512's 64-bit integer maximum. AVX2 has none
//! (a compare and a blend per vector instead): int64 rows of 2000x2000 ran
//! at 0.74x NumPy on one thread. Left to LLVM, the AVX-512 build of the
//! generic pass gathered across blocks (3.3 ms where AVX2 took 0.9), so
//! the span maximum is written with intrinsics.

use super::lane::{argmax_body, argmax_lane};

/// [`argmax_lane`] for int64: the AVX-512 span maximum where
/// `cpu::level` names AVX-512, else the generic lane.
pub(super) fn argmax_lane_i64<const MIN: bool>(x: &[i64], avx2: bool) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if avx2 && crate::kernels::cpu::has_avx512() {
        // SAFETY: `level` never names a build the CPU does not run.
        return unsafe { x86::argmax::<MIN>(x) };
    }
    argmax_lane::<i64, MIN>(x, avx2)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::argmax_body;
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must run AVX-512 F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn argmax<const MIN: bool>(x: &[i64]) -> i64 {
        // SAFETY: this function's own features.
        argmax_body::<i64, MIN>(x, |span| (unsafe { extreme::<MIN>(span) }, false))
    }

    /// The span's maximum (minimum with `MIN`), 32 elements a step in four
    /// independent vectors.
    ///
    /// # Safety
    /// The CPU must run AVX-512 F; `x` is not empty.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn extreme<const MIN: bool>(x: &[i64]) -> i64 {
        let pick = |a, b| {
            if MIN {
                _mm512_min_epi64(a, b)
            } else {
                _mm512_max_epi64(a, b)
            }
        };
        let mut acc = [_mm512_set1_epi64(x[0]); 4];
        let blocks = x.chunks_exact(32);
        let tail = blocks.remainder();
        for block in blocks {
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: the block has 32 elements, this reads 8 of them.
                let v = unsafe { _mm512_loadu_si512(block.as_ptr().add(8 * k).cast()) };
                *a = pick(*a, v);
            }
        }
        let v = pick(pick(acc[0], acc[1]), pick(acc[2], acc[3]));
        let m = if MIN {
            _mm512_reduce_min_epi64(v)
        } else {
            _mm512_reduce_max_epi64(v)
        };
        tail.iter()
            .fold(m, |m, &t| if MIN { m.min(t) } else { m.max(t) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first index of the extreme, by definition.
    fn first<const MIN: bool>(x: &[i64]) -> i64 {
        let m = if MIN { x.iter().min() } else { x.iter().max() };
        x.iter().position(|v| Some(v) == m).unwrap() as i64
    }

    #[test]
    fn first_extremes_at_every_place_and_length() {
        let avx2 = crate::kernels::cpu::has_avx2();
        for n in [1, 7, 31, 32, 33, 511, 512, 513, 1500] {
            let base: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1000 - 500).collect();
            for at in [0, n / 3, n - 1] {
                for v in [i64::MIN, i64::MAX, 600] {
                    let mut x = base.clone();
                    x[at] = v;
                    x[n - 1 - at / 2] = v;
                    assert_eq!(argmax_lane_i64::<false>(&x, avx2), first::<false>(&x));
                    assert_eq!(argmax_lane_i64::<true>(&x, avx2), first::<true>(&x));
                }
            }
        }
    }
}
