//! A boolean mask packed to bits: the first pass of `nonzero` and of
//! boolean indexing. Every 64 mask bytes become one `u64` (bit `i` set when
//! byte `i` is nonzero, so any nonzero byte counts as `True`), counted as
//! they are packed, in parts that threads then fill independently: each
//! part knows how many set bits come before it, which is where its output
//! starts. The second pass walks the set bits of each word
//! ([`for_each_set`]), skipping empty words and taking full ones whole.

use crate::dtype::DType;
use crate::kernels::copy::to_contiguous;
use crate::kernels::elemwise::cast::cast;
use crate::kernels::PARALLEL_MIN;
use crate::tensor::Tensor;
use rayon::prelude::*;
use std::ops::Range;

/// Mask elements one part covers at least: a part is one rayon task in
/// each pass, and the second pass costs about a nanosecond per set element.
const PART_MIN: usize = PARALLEL_MIN;

/// A range of words and the number of set bits before and within it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The words of this part.
    pub words: Range<usize>,
    /// Set bits in the parts before this one: where its output starts.
    pub start: usize,
    /// Set bits in this part.
    pub count: usize,
}

/// A packed mask, its set-bit count, and its parts.
#[derive(Clone, Debug)]
pub struct MaskBits {
    /// Bit `i % 64` of word `i / 64` is mask element `i`; bits past the
    /// mask's length are zero.
    pub words: Vec<u64>,
    /// The parts, in order, covering every word.
    pub parts: Vec<Part>,
    /// Set bits in all.
    pub count: usize,
}

impl MaskBits {
    /// Packs mask bytes (any nonzero byte is set).
    pub fn from_bytes(bytes: &[u8]) -> MaskBits {
        let n_words = bytes.len().div_ceil(64);
        let mut words = vec![0u64; n_words];
        let ranges = part_ranges(bytes.len());
        let mut parts: Vec<Part> = Vec::with_capacity(ranges.len());
        let pack_part = |(r, w): (&Range<usize>, &mut [u64])| {
            let end = (r.end * 64).min(bytes.len());
            pack(&bytes[r.start * 64..end], w)
        };
        let chunks = split_mut(&mut words, &ranges, 1);
        let counts: Vec<usize> = if ranges.len() > 1 {
            ranges.par_iter().zip(chunks).map(pack_part).collect()
        } else {
            ranges.iter().zip(chunks).map(pack_part).collect()
        };
        let mut start = 0;
        for (r, count) in ranges.into_iter().zip(counts) {
            parts.push(Part {
                words: r,
                start,
                count,
            });
            start += count;
        }
        MaskBits {
            words,
            parts,
            count: start,
        }
    }

    /// Packs the truth of each element of `t` (any dtype and layout;
    /// NaN is true, as in NumPy), in C order.
    pub fn from_tensor(t: &Tensor) -> crate::error::Result<MaskBits> {
        let mask = to_contiguous(&cast(t, DType::Bool)?)?;
        Ok(MaskBits::from_bytes(mask_bytes(&mask)))
    }

    /// Whether the parts run on several threads.
    pub fn parallel(&self) -> bool {
        self.parts.len() > 1
    }
}

/// The bytes of a C-contiguous bool tensor, read as `u8` so that a byte
/// other than 0 or 1 (NumPy can hold them) is never read as a Rust `bool`.
pub fn mask_bytes(mask: &Tensor) -> &[u8] {
    assert!(mask.dtype() == DType::Bool && mask.is_c_contiguous());
    // SAFETY: a C-contiguous tensor of one-byte elements spans `len`
    // bytes from its first element (construction invariant).
    unsafe { std::slice::from_raw_parts(mask.as_ptr(), mask.len()) }
}

/// Word ranges of the parts for a mask of `len` elements: one part when
/// small, else enough for every thread to take several (parts are uneven
/// when the set bits cluster).
fn part_ranges(len: usize) -> Vec<Range<usize>> {
    let n_words = len.div_ceil(64);
    let threads = rayon::current_num_threads();
    let n_parts = (len / PART_MIN).clamp(1, threads * 4);
    if threads < 2 || n_parts < 2 {
        let all = 0..n_words;
        return vec![all];
    }
    let per = n_words.div_ceil(n_parts);
    (0..n_words)
        .step_by(per)
        .map(|s| s..(s + per).min(n_words))
        .collect()
}

/// Splits `data` into one slice per part, `width` elements per unit of
/// each range (`ranges` cover `data` in order).
pub fn split_mut<'a, T>(
    mut data: &'a mut [T],
    ranges: &[Range<usize>],
    width: usize,
) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(ranges.len());
    for r in ranges {
        let (head, tail) = data.split_at_mut(r.len() * width);
        out.push(head);
        data = tail;
    }
    out
}

/// Each part's output range, `width` elements per set bit.
pub fn output_ranges(parts: &[Part]) -> Vec<Range<usize>> {
    parts.iter().map(|p| p.start..p.start + p.count).collect()
}

/// Packs `bytes` into `words` (64 bytes a word, the last one partial) and
/// returns the number of set bits.
fn pack(bytes: &[u8], words: &mut [u64]) -> usize {
    let full = bytes.len() / 64;
    let mut count = pack_full(&bytes[..full * 64], &mut words[..full]);
    let tail = &bytes[full * 64..];
    if !tail.is_empty() {
        let w = tail
            .iter()
            .enumerate()
            .fold(0u64, |w, (i, &b)| w | (((b != 0) as u64) << i));
        words[bytes.len() / 64] = w;
        count += w.count_ones() as usize;
    }
    count
}

/// Packs whole 64-byte chunks.
fn pack_full(bytes: &[u8], words: &mut [u64]) -> usize {
    let mut count = 0;
    for (w, chunk) in words.iter_mut().zip(bytes.chunks_exact(64)) {
        let chunk: &[u8; 64] = chunk.try_into().expect("a chunk of 64 bytes");
        *w = pack64(chunk);
        count += w.count_ones() as usize;
    }
    count
}

/// One word from 64 bytes: SSE2 (always there on x86_64) compares 16
/// bytes at once against zero and gathers their top bits.
#[cfg(target_arch = "x86_64")]
#[inline]
fn pack64(chunk: &[u8; 64]) -> u64 {
    use std::arch::x86_64::*;
    let mut zeros = 0u64;
    for k in 0..4 {
        // SAFETY: SSE2 is part of x86_64; the load reads bytes 16k..16k+16
        // of the 64-byte array, unaligned loads allowed.
        let bits = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().add(16 * k) as *const __m128i);
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) as u32 as u64
        };
        zeros |= bits << (16 * k);
    }
    !zeros
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn pack64(chunk: &[u8; 64]) -> u64 {
    pack64_portable(chunk)
}

/// [`pack64`] in plain Rust (other targets, and the reference in tests).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn pack64_portable(chunk: &[u8; 64]) -> u64 {
    chunk
        .iter()
        .enumerate()
        .fold(0u64, |w, (i, &b)| w | (((b != 0) as u64) << i))
}

/// What the second pass does with each set position, in order.
pub trait Sink {
    /// Takes mask position `i`.
    fn one(&mut self, i: usize);

    /// Takes positions `base..base + 64` (a word whose bits are all set):
    /// sinks that can copy or fill a run at once say so here.
    #[inline(always)]
    fn full(&mut self, base: usize) {
        for i in base..base + 64 {
            self.one(i);
        }
    }
}

/// Feeds every set bit of `words` to `sink` in order, counting positions
/// from `first` (the position of word 0's bit 0); empty words cost one
/// test and full ones go to [`Sink::full`].
#[inline(always)]
pub fn for_each_set<S: Sink>(words: &[u64], first: usize, sink: &mut S) {
    for (j, &w) in words.iter().enumerate() {
        let base = first + j * 64;
        if w == u64::MAX {
            sink.full(base);
            continue;
        }
        let mut w = w;
        while w != 0 {
            sink.one(base + w.trailing_zeros() as usize);
            w &= w - 1;
        }
    }
}

/// Runs `job(part, k)` for each part `k`, on several threads when the mask
/// was packed in several parts.
pub fn run_parts<I: Send>(bits: &MaskBits, per_part: Vec<I>, job: impl Fn(&Part, I) + Sync) {
    if bits.parallel() {
        bits.parts
            .par_iter()
            .zip(per_part)
            .for_each(|(p, i)| job(p, i));
    } else {
        bits.parts.iter().zip(per_part).for_each(|(p, i)| job(p, i));
    }
}

#[cfg(test)]
#[path = "mask_bits_tests.rs"]
mod tests;
