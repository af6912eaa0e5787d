//! Output allocation: fresh buffers, or buffers recycled from values that
//! died earlier (a pool keyed by size), so long chains do not allocate;
//! and fills of fresh outputs.
//!
//! # Zeros on all threads
//!
//! `alloc::zeros_written`: zeros written on all threads, for outputs whose
//! every page is touched anyway (`eye`).

mod granted;
#[cfg(test)]
mod granted_tests;
pub(crate) mod order;
pub(crate) mod stream;

pub use granted::buffers_overlap;

use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::copy::copy_into;
use crate::kernels::PARALLEL_MIN;
use crate::tensor::{layout, Element, Tensor};
use rayon::prelude::*;
use smallvec::SmallVec;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// Recycled buffers, by byte length. Each is kept inside the dead tensor
/// that held it: a call asking for the same dtype and shape again (every
/// call of a function on same-sized arguments does) gets that tensor back
/// without rebuilding its shape and strides.
#[derive(Default, Debug)]
pub struct Pool {
    /// The first buffer kept, outside the map: a one-step function called
    /// in a loop recycles and takes one buffer per call, and skipping the
    /// hash lookup for it saved a tenth of such a call's work.
    last: Option<Tensor>,
    free: HashMap<usize, Bin, BuildHasherDefault<LenHasher>>,
    /// An input the running step is the last to read, which its op may
    /// write its output into (`vm/donation.rs`).
    loan: Option<Tensor>,
    /// The inputs the running step destroys (its `destroy_map`, accepted
    /// by the `DestroyHandler`), which its op may write its outputs into,
    /// one per destroying output (`kernels/alloc/granted.rs`).
    pub(super) grants: SmallVec<[granted::Grant; 2]>,
}

/// The kept buffers of one byte length, and how many the runs ask for.
///
/// Buffers reach the pool from steps and from hosts handing outputs back,
/// and also from outputs no kernel took from it (a summed group's fresh
/// accumulator): kept without a bound, those grew the pool by one buffer
/// per call. [`Pool::trim`] keeps at most as many as one recent run asked
/// for, and none of a length no run asked for in [`IDLE_RUNS`] runs.
#[derive(Default, Debug)]
struct Bin {
    kept: Vec<Tensor>,
    /// Buffers of this length asked for since the last trim.
    asked: usize,
    /// Most asked for by one run since the length was last idle.
    peak: usize,
    /// Runs in a row that asked for none.
    idle: usize,
}

/// Runs after which a length nobody asks for loses its buffers: a function
/// called in turn on a few shapes keeps a set for each.
const IDLE_RUNS: usize = 8;

/// Hashes a byte length by one multiplication: the pool is consulted for
/// every output of every call, where SipHash is a measurable part of the
/// cost of small calls, and lengths are not attacker-chosen keys.
#[derive(Default)]
struct LenHasher(u64);

impl Hasher for LenHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        // The product's high bits mix all of `n`; folding them down gives
        // the low bits (hashbrown's bucket index) that mix too, although
        // lengths are multiples of 8.
        let h = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

impl Pool {
    /// Keeps a dead value's buffer if nobody else can see it.
    pub fn recycle(&mut self, t: Tensor) {
        let buf = t.buffer();
        if Arc::strong_count(buf) == 1 && buf.is_rust_owned() && buf.as_mut_ptr().is_some() {
            if self.last.is_none() {
                self.last = Some(t);
            } else {
                self.free.entry(buf.len()).or_default().kept.push(t);
            }
        }
    }

    /// Called once per run, before it: drops the buffers recent runs did
    /// not ask for (see [`Bin`]), so what the pool holds is bounded by
    /// what one run uses, whatever is handed back to it.
    pub fn trim(&mut self) {
        self.free.retain(|_, bin| {
            if bin.asked > 0 {
                bin.peak = bin.peak.max(bin.asked);
                bin.idle = 0;
            } else {
                bin.idle += 1;
            }
            bin.asked = 0;
            if bin.idle > IDLE_RUNS {
                bin.peak = 0;
            }
            bin.kept.truncate(bin.peak);
            bin.peak > 0
        });
    }

    /// A C-contiguous tensor whose contents are unspecified: a recycled
    /// buffer holds an earlier value, a fresh one is not even cleared
    /// ([`Tensor::uninit`]), so every caller writes all of it (audited:
    /// elemwise, cast, reductions (filled with the identity first), argmax,
    /// softmax, logsumexp, sort, cumulative, dot/matmul (`k == 0` fills),
    /// join, make_vector, repeat, (advanced) subtensor gathers, and the
    /// inc_subtensors, which copy `x` in first).
    /// A `MemoryError` when the shape is too big or memory runs out.
    pub fn take(&mut self, dtype: DType, shape: &[usize]) -> Result<Tensor> {
        match self.recycled(dtype, shape)? {
            Some(t) => Ok(t),
            None => Tensor::uninit(dtype, shape),
        }
    }

    /// Like [`Pool::take`], but a fresh buffer is zeroed: for outputs
    /// nobody writes (`AllocEmpty`), whose bytes must still be defined
    /// before the next op reads them.
    pub fn take_defined(&mut self, dtype: DType, shape: &[usize]) -> Result<Tensor> {
        match self.recycled(dtype, shape)? {
            Some(t) => Ok(t),
            None => Tensor::zeros(dtype, shape),
        }
    }

    /// A kept buffer of the shape's byte size, if any; the size checked
    /// first ([`layout::nbytes`]), so a shape too big for any buffer is a
    /// `MemoryError` and never matches a smaller buffer by wrapping around.
    fn recycled(&mut self, dtype: DType, shape: &[usize]) -> Result<Option<Tensor>> {
        let len = layout::nbytes(dtype, shape)?;
        let t = if self.last.as_ref().is_some_and(|t| t.buffer().len() == len) {
            self.last.take()
        } else {
            let bin = self.free.entry(len).or_default();
            bin.asked += 1;
            bin.kept.pop()
        };
        let Some(t) = t else {
            return Ok(None);
        };
        // Its buffer holds exactly `len` bytes, so a C-contiguous tensor of
        // the same dtype and shape at offset 0 spans all of it.
        if t.dtype() == dtype && t.shape() == shape && t.is_c_contiguous() && t.offset() == 0 {
            return Ok(Some(t));
        }
        Ok(Tensor::contiguous_in(dtype, shape, t.buffer().clone()))
    }

    /// Offers `t`, an input the running step reads last, to its op (see
    /// [`Pool::take_loan`]). The program's storage slot still holds `t`.
    pub fn lend(&mut self, t: Tensor) {
        self.loan = Some(t);
    }

    /// Ends the running step's loan.
    pub fn end_loan(&mut self) {
        self.loan = None;
    }

    /// The lent tensor, for the op to write in place as its output, when it
    /// is `x` (same buffer, C-contiguous from the start, same dtype and
    /// shape), Rust's own writable memory, and held by nothing but the
    /// storage slot and the loan: two references. Any alias (a view, a
    /// Python object, a caller's array) holds another, so an op that gets
    /// the tensor is the only one that can see the change.
    pub fn take_loan(&mut self, x: &Tensor) -> Option<Tensor> {
        let t = self.loan.as_ref()?;
        let buf = t.buffer();
        let same = Arc::ptr_eq(buf, x.buffer())
            && t.offset() == x.offset()
            && t.shape() == x.shape()
            && t.dtype() == x.dtype();
        let whole = t.is_c_contiguous() && t.offset() == 0;
        let private = Arc::strong_count(buf) == 2 && buf.is_rust_owned();
        if same && whole && private && buf.as_mut_ptr().is_some() {
            return self.loan.take();
        }
        None
    }

    /// Number of pooled buffers (for tests).
    pub fn len(&self) -> usize {
        usize::from(self.last.is_some()) + self.free.values().map(|b| b.kept.len()).sum::<usize>()
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A C-contiguous tensor holding `x`'s values for an op to modify and
/// return (`inc_subtensor`'s output): `x` itself when the op destroys it
/// and the program granted it ([`Pool::take_grant`]), or lent it and
/// nothing else can see it ([`Pool::take_loan`]); else a copy.
pub fn modifiable_copy(pool: &mut Pool, x: &Tensor) -> Result<Tensor> {
    if let Some(granted) = pool.take_grant(x) {
        // The destroyed input itself (an inplace op's, `kernels/alloc/granted.rs`).
        return Ok(granted.into_parts().0);
    }
    if let Some(t) = pool.take_loan(x) {
        return Ok(t);
    }
    let mut out = pool.take(x.dtype(), x.shape())?;
    copy_into(x, &mut out)?;
    Ok(out)
}

/// A fresh output, taken from `pool` when one is given; its contents are
/// unspecified either way (see [`Pool::take`]). This is where ops and
/// kernels get outputs of shapes they computed from user data: the shape
/// is checked here ([`layout::nbytes`]), a `MemoryError` if too big.
pub fn output(pool: Option<&mut Pool>, dtype: DType, shape: &[usize]) -> Result<Tensor> {
    match pool {
        Some(p) => p.take(dtype, shape),
        None => Tensor::uninit(dtype, shape),
    }
}

/// Elements per task when a fill is split across threads.
const FILL_CHUNK: usize = 1 << 15;

/// Fills `out` (fresh, C-contiguous, of `T`'s dtype) by calling
/// `f(first, chunk)` on consecutive chunks, `first` being the index of the
/// chunk's first element; on several threads when large. A chunk holds
/// at most `FILL_CHUNK` (2^15) elements, so indices within it fit `i32`
/// (which converts to floats in SIMD lanes, unlike `usize`).
pub fn fill_chunks<T: Element>(out: &mut Tensor, f: impl Fn(usize, &mut [T]) + Sync) {
    let Some(xs) = out.as_mut_slice::<T>() else {
        return;
    };
    let fill = |(k, chunk): (usize, &mut [T])| f(k * FILL_CHUNK, chunk);
    if xs.len() >= PARALLEL_MIN && super::threaded() {
        xs.par_chunks_mut(FILL_CHUNK).enumerate().for_each(fill);
    } else {
        xs.chunks_mut(FILL_CHUNK).enumerate().for_each(fill);
    }
}

/// A zero-filled C-contiguous tensor whose zeros are written here, on
/// several threads when large, into an uninitialised (possibly kept, see
/// `tensor/spare.rs`) allocation. For outputs whose every page is touched
/// anyway (`eye`'s diagonal reaches each 2 MiB huge page): `calloc`'s
/// zero pages would each fault and be cleared by the kernel, one thread at
/// a time. [`Tensor::zeros`] stays the choice when most pages stay untouched.
pub fn zeros_written(dtype: DType, shape: &[usize]) -> Result<Tensor> {
    let bytes = layout::nbytes(dtype, shape)?;
    let mut raw = Tensor::uninit(DType::UInt8, &[bytes])
        .map_err(|_| layout::allocation_failed(dtype, shape, bytes))?;
    fill_chunks(&mut raw, |_, xs: &mut [u8]| xs.fill(0));
    let buffer = raw.buffer().clone();
    drop(raw);
    Ok(Tensor::contiguous_in(dtype, shape, buffer).expect("the buffer was sized for the shape"))
}

/// Whether every byte of `t` is zero (so a calloc'd buffer already holds
/// its value broadcast anywhere: `0`, `0.0`, `False`, but not `-0.0`).
pub fn is_zero_bytes(t: &Tensor) -> bool {
    t.len() <= 64 && t.to_c_bytes().is_ok_and(|b| b.iter().all(|&b| b == 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_hands_back_kept_buffers_by_size() {
        let mut pool = Pool::default();
        let a = Tensor::uninit(DType::Float64, &[2, 3]).unwrap();
        let b = Tensor::uninit(DType::Float32, &[5]).unwrap();
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        pool.recycle(a);
        pool.recycle(b);
        assert_eq!(pool.len(), 2);
        // Same byte length, other dtype and shape: the buffer is reused.
        let t = pool.take(DType::Int32, &[3, 4]).unwrap();
        assert_eq!((t.as_ptr(), t.shape()), (pa, &[3usize, 4][..]));
        assert!(t.is_c_contiguous() && t.dtype() == DType::Int32);
        let t = pool.take(DType::Float32, &[5]).unwrap();
        assert_eq!(t.as_ptr(), pb);
        assert!(pool.is_empty());
        // A buffer someone else still sees is not kept.
        let shared = Tensor::uninit(DType::Float64, &[4]).unwrap();
        let view = shared.clone();
        pool.recycle(shared);
        assert!(pool.is_empty());
        assert_ne!(
            pool.take(DType::Float64, &[4]).unwrap().as_ptr(),
            view.as_ptr()
        );
    }

    #[test]
    fn the_pool_keeps_what_runs_ask_for_and_no_more() {
        let mut pool = Pool::default();
        pool.recycle(Tensor::uninit(DType::Float64, &[100]).unwrap());
        // Outputs handed back that no run takes (a fresh accumulator per
        // call) do not pile up.
        for _ in 0..50 {
            pool.trim();
            pool.recycle(Tensor::uninit(DType::Float64, &[1]).unwrap());
        }
        assert_eq!(pool.len(), 2, "`last` and one unclaimed buffer");
        pool.trim();
        assert_eq!(pool.len(), 1);
        // A run asking for three buffers of a length keeps three.
        for _ in 0..5 {
            pool.trim();
            let taken: Vec<Tensor> = (0..3)
                .map(|_| pool.take(DType::Int8, &[7]).unwrap())
                .collect();
            taken.into_iter().for_each(|t| pool.recycle(t));
        }
        pool.trim();
        assert_eq!(pool.len(), 4);
        // Two shapes in turn keep theirs; a length idle for long is dropped.
        for k in 0..IDLE_RUNS + 2 {
            pool.trim();
            let t = pool.take(DType::Int8, &[8 + k % 2]).unwrap();
            pool.recycle(t);
        }
        pool.trim();
        assert_eq!(pool.len(), 3, "`last`, one buffer per shape in use");
    }

    #[test]
    fn a_loan_is_handed_over_only_when_nobody_else_sees_it() {
        let mut pool = Pool::default();
        let slot = Tensor::from_vec(vec![2, 2], vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
        // The storage slot (`slot`) and the loan: the op may write it.
        pool.lend(slot.clone());
        let got = pool.take_loan(&slot).expect("a private loan");
        assert!(got.shares_buffer(&slot));
        // A third reference (a view in another slot) keeps it.
        pool.lend(slot.clone());
        let view = slot.view(&[2], &[16], 8).unwrap();
        drop(got);
        assert!(pool.take_loan(&slot).is_none());
        drop(view);
        // Only the lent tensor itself, whole: not another value, not a view.
        let other = Tensor::from_vec(vec![2, 2], vec![0.0f64; 4]).unwrap();
        assert!(pool.take_loan(&other).is_none());
        let row = slot.view(&[2], &[8], 0).unwrap();
        assert!(pool.take_loan(&row).is_none());
        drop(row);
        pool.end_loan();
        assert!(pool.take_loan(&slot).is_none());
        // A transposed (non-C-contiguous) value is copied.
        let t = slot.view(&[2, 2], &[8, 16], 0).unwrap();
        drop(slot);
        pool.lend(t.clone());
        assert!(pool.take_loan(&t).is_none());
    }

    #[test]
    fn modifiable_copy_copies_what_is_not_lent() {
        let mut pool = Pool::default();
        let x = Tensor::from_vec(vec![3], vec![1i64, 2, 3]).unwrap();
        let out = modifiable_copy(&mut pool, &x).unwrap();
        assert!(!out.shares_buffer(&x));
        assert_eq!(out.as_slice::<i64>().unwrap(), &[1, 2, 3]);
        pool.lend(x.clone());
        assert!(modifiable_copy(&mut pool, &x).unwrap().shares_buffer(&x));
    }

    #[test]
    fn fill_chunks_writes_every_index() {
        let thirds = |first: usize, xs: &mut [i64]| {
            for (i, x) in xs.iter_mut().enumerate() {
                *x = 3 * (first + i) as i64 - 1;
            }
        };
        for n in [0, 5, FILL_CHUNK + 3, PARALLEL_MIN + 7] {
            let mut t = Tensor::zeros(DType::Int64, &[n]).unwrap();
            fill_chunks(&mut t, thirds);
            let want: Vec<i64> = (0..n as i64).map(|i| 3 * i - 1).collect();
            assert_eq!(t.as_slice::<i64>().unwrap(), want.as_slice());
        }
        let mut t = Tensor::zeros(DType::Float32, &[2, 3]).unwrap();
        fill_chunks(&mut t, |first, xs: &mut [f32]| {
            xs.iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = (first + i) as f32 / 2.0)
        });
        assert_eq!(
            t.as_slice::<f32>().unwrap(),
            &[0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
        );
    }

    #[test]
    fn written_zeros_are_zeros_of_the_dtype() {
        for shape in [&[0usize][..], &[3, 5], &[PARALLEL_MIN + 3]] {
            let t = zeros_written(DType::Float64, shape).unwrap();
            assert_eq!(t.shape(), shape);
            assert!(t
                .as_slice::<f64>()
                .unwrap()
                .iter()
                .all(|v| v.to_bits() == 0));
        }
        let b = zeros_written(DType::Int16, &[4, 1]).unwrap();
        assert_eq!(b.as_slice::<i16>().unwrap(), &[0; 4]);
    }

    #[test]
    fn zero_bytes() {
        assert!(is_zero_bytes(&Tensor::scalar(0.0f64)));
        assert!(!is_zero_bytes(&Tensor::scalar(-0.0f64)));
        assert!(is_zero_bytes(&Tensor::scalar(false)));
        assert!(!is_zero_bytes(
            &Tensor::from_vec(vec![2], vec![0i32, 1]).unwrap()
        ));
    }
}
