//! `nonzero`'s positions of a 1-d mask with AVX-512: for each byte of a
//! packed word, the eight positions it covers are compressed to the set
//! ones and stored with a store masked to their count. A set bit then
//! costs no branch and no single store; walking the bits one by one ran
//! at about NumPy's speed on a mask half set at random.

use std::arch::x86_64::*;

/// Writes `first + i` for every set bit `i` of `words` into `out`, in
/// order, and returns how many it wrote.
///
/// # Safety
/// The CPU must have AVX-512F, and `out` must have room for as many
/// int64s as `words` has set bits.
#[target_feature(enable = "avx512f,popcnt")]
pub(super) unsafe fn positions(words: &[u64], first: usize, out: *mut i64) -> usize {
    let step = _mm512_set1_epi64(8);
    let word = _mm512_set1_epi64(64);
    let start = _mm512_set1_epi64(first as i64);
    let mut at = _mm512_add_epi64(start, _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    let mut k = 0;
    for &w in words {
        if w == 0 {
            at = _mm512_add_epi64(at, word);
            continue;
        }
        for byte in w.to_le_bytes() {
            let n = byte.count_ones() as usize;
            let set = _mm512_maskz_compress_epi64(byte, at);
            // SAFETY: the first `n` lanes land at `out[k..k + n]`, inside
            // `out` (one slot per set bit, the caller's contract); the
            // masked-off lanes are not written.
            unsafe { _mm512_mask_storeu_epi64(out.add(k), ((1u16 << n) - 1) as u8, set) };
            k += n;
            at = _mm512_add_epi64(at, step);
        }
    }
    k
}
