//! Memory behind tensors: a byte range either allocated by Rust or borrowed
//! from the host (e.g. a NumPy array, kept alive by a handle). Shared by
//! `Arc`, so views and outputs that alias inputs keep their memory alive.

use std::any::Any;
use std::fmt;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::Arc;

use super::spare;

/// Who owns a buffer's memory.
enum Owner {
    /// Rust's own allocation; `u64` words give 8-byte alignment, enough for
    /// every dtype we store. `MaybeUninit` because [`Buffer::uninit`]'s
    /// words hold no value until a kernel writes them.
    Rust(#[allow(dead_code)] Vec<MaybeUninit<u64>>),
    /// The host's memory, alive as long as this handle is.
    Host(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
    /// The host's memory, alive until this handle is released.
    Handle(HostHandle),
}

/// A host object one pointer wide that keeps host memory alive (a NumPy
/// array, for instance), released by a function of the host's. Unlike a
/// boxed owner it costs no allocation: arguments of every call of a
/// compiled function are wrapped in one.
pub struct HostHandle {
    object: NonNull<()>,
    release: unsafe fn(NonNull<()>),
}

impl HostHandle {
    /// A handle on `object`, which `release` gives back.
    ///
    /// # Safety
    /// `release(object)` must be sound to call exactly once, from any
    /// thread, at any time (it must not block on a lock the dropping thread
    /// may hold, such as an interpreter lock).
    pub unsafe fn new(object: NonNull<()>, release: unsafe fn(NonNull<()>)) -> Self {
        HostHandle { object, release }
    }
}

/// A contiguous byte range.
pub struct Buffer {
    ptr: NonNull<u8>,
    len: usize,
    writable: bool,
    owner: Owner,
}

// SAFETY: the memory is either a Rust `Vec` owned by the buffer or host
// memory whose owner handle is `Send + Sync`. Writes happen only through
// `as_mut_ptr` on buffers the writer holds uniquely (fresh outputs) or that
// the destroy handler has granted to one op; reads never race with them.
unsafe impl Send for Buffer {}
// SAFETY: see `Send`.
unsafe impl Sync for Buffer {}

impl Buffer {
    /// A zero-filled buffer of `len` bytes, or `None` when the system
    /// cannot give that much memory.
    pub fn zeroed(len: usize) -> Option<Arc<Buffer>> {
        Buffer::rust_owned(len, true)
    }

    /// A buffer of `len` bytes whose contents are unspecified, for outputs
    /// a kernel writes in full before anything reads them (NumPy's
    /// `empty`), or `None` when the system cannot give that much memory.
    /// `calloc` cannot hand out recycled heap memory without clearing it
    /// first: for a 1e6-element float64 `floor` that memset was a third of
    /// the call (measured, see `docs/decisions.md`, "Output memory").
    pub fn uninit(len: usize) -> Option<Arc<Buffer>> {
        Buffer::rust_owned(len, false)
    }

    fn rust_owned(len: usize, zeroed: bool) -> Option<Arc<Buffer>> {
        let n = len.div_ceil(8).max(1);
        let kept = if zeroed { None } else { spare::take(n) };
        let from_allocator = kept.is_none();
        let mut words = match kept {
            Some(words) => words,
            None => {
                let mut fresh = alloc_words(n, zeroed)?;
                advise_huge_pages(&mut fresh);
                fresh
            }
        };
        super::alloc_stats::record(len, from_allocator);
        let ptr = NonNull::new(words.as_mut_ptr() as *mut u8).expect("Vec pointers are non-null");
        Some(Arc::new(Buffer {
            ptr,
            len,
            writable: true,
            owner: Owner::Rust(words),
        }))
    }

    /// A buffer holding a copy of `bytes` (`None` when out of memory).
    pub fn from_bytes(bytes: &[u8]) -> Option<Arc<Buffer>> {
        let buf = Buffer::uninit(bytes.len())?;
        // SAFETY: the buffer was just allocated with `bytes.len()` bytes and
        // nobody else holds it.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.ptr.as_ptr(), bytes.len()) };
        Some(buf)
    }

    /// Host memory of `len` bytes at `ptr`, kept alive by `owner`.
    ///
    /// # Safety
    /// `ptr..ptr+len` must stay valid (and, if `writable`, writable) for as
    /// long as `owner` lives, and must not be freed by anyone else.
    pub unsafe fn from_host(
        ptr: NonNull<u8>,
        len: usize,
        writable: bool,
        owner: Box<dyn Any + Send + Sync>,
    ) -> Arc<Buffer> {
        Arc::new(Buffer {
            ptr,
            len,
            writable,
            owner: Owner::Host(owner),
        })
    }

    /// Host memory of `len` bytes at `ptr`, kept alive until `handle` is
    /// released (when the buffer drops).
    ///
    /// # Safety
    /// As [`Buffer::from_host`], with `handle` for `owner`.
    pub unsafe fn from_handle(
        ptr: NonNull<u8>,
        len: usize,
        writable: bool,
        handle: HostHandle,
    ) -> Arc<Buffer> {
        Arc::new(Buffer {
            ptr,
            len,
            writable,
            owner: Owner::Handle(handle),
        })
    }

    /// Start of the memory.
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// Start of the memory, for writing; `None` for read-only host memory.
    pub fn as_mut_ptr(&self) -> Option<*mut u8> {
        self.writable.then_some(self.ptr.as_ptr())
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the memory belongs to Rust (not borrowed from the host).
    pub fn is_rust_owned(&self) -> bool {
        matches!(self.owner, Owner::Rust(_))
    }
}

/// Buffers at least this large ask for transparent huge pages, as NumPy's
/// allocator does: first-touch page faults on 4 KiB pages cost more than the
/// arithmetic (measured: 10^7 float64 outputs 5x slower without it here).
const HUGE_PAGE_MIN: usize = 4 << 20;

#[cfg(target_os = "linux")]
fn advise_huge_pages(words: &mut [MaybeUninit<u64>]) {
    let bytes = std::mem::size_of_val(words);
    if bytes < HUGE_PAGE_MIN {
        return;
    }
    const PAGE: usize = 4096;
    let start = (words.as_mut_ptr() as usize).next_multiple_of(PAGE);
    let end = (words.as_mut_ptr() as usize + bytes) / PAGE * PAGE;
    if end > start {
        // SAFETY: `start..end` lies inside `words`' allocation, page aligned;
        // MADV_HUGEPAGE only changes how the kernel backs the pages, never
        // their contents, and failure is harmless (we ignore the result).
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_words: &mut [MaybeUninit<u64>]) {}

impl Drop for Buffer {
    /// Large Rust allocations go to [`spare`] for the next output.
    fn drop(&mut self) {
        match &mut self.owner {
            Owner::Rust(words) => {
                super::alloc_stats::release(self.len);
                spare::give(std::mem::take(words))
            }
            // SAFETY: `HostHandle::new`'s contract; this is the one release.
            Owner::Handle(h) => unsafe { (h.release)(h.object) },
            Owner::Host(_) => {}
        }
    }
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = if self.is_rust_owned() { "rust" } else { "host" };
        write!(f, "Buffer({} bytes, {who})", self.len)
    }
}

/// `n` words from the allocator: zeroed (`calloc`: fresh pages stay
/// untouched until written) or not (`malloc`); `None` when the allocator
/// refuses (or `n` words exceed `isize::MAX` bytes), which callers report
/// as a `MemoryError` instead of aborting as `vec!` does.
fn alloc_words(n: usize, zeroed: bool) -> Option<Vec<MaybeUninit<u64>>> {
    let layout = std::alloc::Layout::array::<u64>(n).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout has a non-zero size (checked just above); the
    // pointer is checked for null below.
    let ptr = unsafe {
        if zeroed {
            std::alloc::alloc_zeroed(layout)
        } else {
            std::alloc::alloc(layout)
        }
    } as *mut MaybeUninit<u64>;
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout
    // of `n` u64s; `MaybeUninit` words need no initialisation.
    Some(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static RELEASED: AtomicUsize = AtomicUsize::new(0);

    unsafe fn release_box(object: NonNull<()>) {
        // SAFETY: the test made `object` with `Box::into_raw`.
        drop(unsafe { Box::from_raw(object.cast::<[u8; 16]>().as_ptr()) });
        RELEASED.fetch_add(1, Ordering::SeqCst);
    }

    #[test]
    fn impossible_sizes_are_refused_not_fatal() {
        assert!(Buffer::uninit(usize::MAX).is_none());
        assert!(Buffer::zeroed(isize::MAX as usize - 7).is_none());
        let b = Buffer::zeroed(3).unwrap();
        assert_eq!(b.len(), 3);
        // SAFETY: 3 zeroed bytes at `as_ptr`.
        assert_eq!(unsafe { *b.as_ptr().add(2) }, 0);
    }

    #[test]
    fn a_handle_is_released_once_when_the_last_view_drops() {
        let memory = Box::into_raw(Box::new([7u8; 16]));
        let object = NonNull::new(memory).unwrap().cast::<()>();
        let ptr = NonNull::new(memory as *mut u8).unwrap();
        // SAFETY: the box stays alive until `release_box`, run once on drop.
        let buf =
            unsafe { Buffer::from_handle(ptr, 16, false, HostHandle::new(object, release_box)) };
        let view = buf.clone();
        assert!(!buf.is_rust_owned() && buf.as_mut_ptr().is_none() && buf.len() == 16);
        drop(buf);
        assert_eq!(RELEASED.load(Ordering::SeqCst), 0);
        // SAFETY: 16 bytes at `as_ptr`, alive while `view` is.
        assert_eq!(unsafe { *view.as_ptr().add(15) }, 7);
        drop(view);
        assert_eq!(RELEASED.load(Ordering::SeqCst), 1);
    }
}
