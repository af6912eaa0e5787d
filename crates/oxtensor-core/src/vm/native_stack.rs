//! How much of the current thread's stack is left. A host calling a
//! compiled function from inside one of its ops (a Python op whose
//! `perform` calls the function it belongs to) nests native frames on
//! every level, which the host's own recursion limit does not count; the
//! host refuses such a call when less than [`CALL_RESERVE`] is left, rather
//! than let the next levels overflow the stack (a segmentation fault).

use std::cell::Cell;

/// Stack a call must find left to start: several levels of host and native
/// frames (a debug build's `Program::run` through a Python op and back
/// takes tens of KiB a level), and the unwinding of an error.
pub const CALL_RESERVE: usize = 1 << 20;

thread_local! {
    /// The lowest usable address of this thread's stack; 0 when not yet
    /// asked, `usize::MAX` when the system cannot tell.
    static LOWEST: Cell<usize> = const { Cell::new(0) };
}

/// Bytes of stack left below the caller's frame, if the system says where
/// the stack ends.
pub fn remaining() -> Option<usize> {
    let here = std::hint::black_box(0u8);
    let at = std::ptr::addr_of!(here) as usize;
    let lowest = LOWEST.with(|l| {
        if l.get() == 0 {
            l.set(stack_lowest().unwrap_or(usize::MAX));
        }
        l.get()
    });
    (lowest != usize::MAX).then_some(at.saturating_sub(lowest))
}

/// Whether a call may start here (see [`CALL_RESERVE`]); true when the
/// stack's end is unknown.
pub fn has_room_for_a_call() -> bool {
    remaining().is_none_or(|left| left >= CALL_RESERVE)
}

#[cfg(target_os = "linux")]
fn stack_lowest() -> Option<usize> {
    // SAFETY: `attr` is initialised by `pthread_getattr_np` before it is
    // read and destroyed once; the out pointers are valid locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let (mut addr, mut size) = (std::ptr::null_mut(), 0usize);
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        let mut guard = 0usize;
        libc::pthread_attr_getguardsize(&attr, &mut guard);
        libc::pthread_attr_destroy(&mut attr);
        ok.then_some(addr as usize + guard)
    }
}

#[cfg(not(target_os = "linux"))]
fn stack_lowest() -> Option<usize> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_stack_left_shrinks_as_frames_nest() {
        fn nested(levels: usize) -> usize {
            let pad = std::hint::black_box([0u8; 4096]);
            let left = match levels {
                0 => remaining().expect("Linux tells where the stack ends"),
                _ => nested(levels - 1),
            };
            left + usize::from(pad[0])
        }
        let top = remaining().unwrap();
        let deep = nested(16);
        assert!(deep + 16 * 4096 <= top, "{deep} left 16 frames below {top}");
        // A test thread has 2 MiB: some left, all of it within the stack.
        assert!(top > 0 && top <= 64 << 20);
        assert!(has_room_for_a_call() || top < CALL_RESERVE);
    }
}
