//! Large freed allocations, kept for the next output of the same size.
//!
//! glibc serves allocations below 32 MiB from its heap, whose pages stay
//! mapped from one call to the next; larger ones are fresh `mmap`s, and
//! the first write to each of their pages faults (the kernel zeroes it).
//! For a 128 MB output those faults were most of the call (measured:
//! broadcasting a row to 4000x4000 float64 took 25 ms, the copy itself
//! 8 ms). A function called in a loop drops its previous result before the
//! next call allocates, so keeping a few such allocations spares the
//! faults. (Keeping allocations from 4 MiB also spared `split` of
//! 4000x4000 into four 32 MB blocks its 2091 faults a call, 9 ms to 5.6
//! ms, but it stopped glibc from trimming those blocks off its heap, so
//! `calloc` then cleared recycled memory for zero-filled outputs: `diag`
//! of a 2000-vector went from 0.99x to 0.44x NumPy. Measured, reverted.)
//! Only outputs that kernels overwrite take them
//! ([`super::Buffer::uninit`]); `MAX_BYTES` bounds what stays held after
//! the user has dropped their arrays.

use std::mem::MaybeUninit;
use std::sync::{Mutex, PoisonError};

/// An allocation in 8-byte words.
pub(super) type Words = Vec<MaybeUninit<u64>>;

/// Allocations of at least this many bytes are kept (the allocator
/// recycles smaller ones itself).
const MIN_BYTES: usize = 32 << 20;
/// At most this many bytes are held in all: two 4000x4000 float64 arrays.
const MAX_BYTES: usize = 256 << 20;

/// Kept allocations, oldest first. The process-wide one is [`SPARE`];
/// tests make their own, which no other test can change under them.
struct Store(Vec<Words>);

impl Store {
    /// A kept allocation of exactly `n` words, if there is one.
    fn take(&mut self, n: usize) -> Option<Words> {
        if n.saturating_mul(8) < MIN_BYTES {
            return None;
        }
        let i = self.0.iter().position(|w| w.len() == n)?;
        Some(self.0.remove(i))
    }

    /// Keeps `words` when large enough, then gives back those to free:
    /// the oldest kept ones beyond `MAX_BYTES`, or `words` itself when it
    /// is too small or too large to keep.
    fn give(&mut self, words: Words) -> Vec<Words> {
        if !(MIN_BYTES..=MAX_BYTES).contains(&bytes(&words)) {
            return vec![words];
        }
        self.0.push(words);
        let mut evicted = Vec::new();
        while self.held() > MAX_BYTES {
            evicted.push(self.0.remove(0));
        }
        evicted
    }

    fn held(&self) -> usize {
        self.0.iter().map(bytes).sum()
    }
}

static SPARE: Mutex<Store> = Mutex::new(Store(Vec::new()));

fn bytes(w: &Words) -> usize {
    w.len() * std::mem::size_of::<u64>()
}

/// A kept allocation of exactly `n` words, if there is one.
pub(super) fn take(n: usize) -> Option<Words> {
    // Most allocations are small: they skip the lock.
    if n.saturating_mul(8) < MIN_BYTES {
        return None;
    }
    let mut spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner);
    spare.take(n)
}

/// Keeps `words` when large enough, then frees the oldest kept ones beyond
/// `MAX_BYTES` (outside the lock: `munmap` is not free). Small or oversized
/// allocations are freed at once.
pub(super) fn give(words: Words) {
    let evicted = SPARE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .give(words);
    drop(evicted);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An allocation of `n` words (left unwritten: `MaybeUninit` needs no
    /// value, and untouched pages cost nothing).
    fn words(n: usize) -> Words {
        let mut w = Vec::with_capacity(n);
        // SAFETY: the capacity is `n`, and `MaybeUninit` words are valid
        // uninitialised.
        unsafe { w.set_len(n) };
        w
    }

    /// A store of its own: the process-wide one changes with whatever
    /// other tests, running alongside, free.
    #[test]
    fn large_allocations_come_back_and_the_total_stays_bounded() {
        let mut store = Store(Vec::new());
        let n = (MIN_BYTES >> 3) + 1_234;
        let w = words(n);
        let at = w.as_ptr();
        assert!(store.give(w).is_empty());
        let again = store.take(n).expect("a kept allocation of that size");
        assert_eq!(again.as_ptr(), at);
        assert!(store.take(n).is_none(), "taken once only");
        assert_eq!(store.give(words(1_000)).len(), 1, "small ones are freed");
        assert!(
            store.take(1_000).is_none(),
            "small allocations are not kept"
        );
        let big = (MAX_BYTES >> 3) / 2 + 4_321;
        assert!(store.give(words(big)).is_empty());
        assert_eq!(store.give(words(big)).len(), 1, "the older one goes");
        assert!(store.held() <= MAX_BYTES, "{} bytes held", store.held());
        assert!(store.take(big).is_some() && store.take(big).is_none());
    }
}
