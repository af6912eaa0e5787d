//! Parallel loops in a process created by `fork`: only the forking thread
//! survives in the child, so rayon's global pool there has workers that do
//! not exist, and the first loop handed to it waits forever. The global
//! pool cannot be rebuilt; instead a thread that runs oxtensor code in a
//! forked child joins a pool of its own, built there with the thread as
//! its worker 0 ([`rayon::ThreadPoolBuilder::use_current_thread`]): every
//! parallel loop it starts from then on runs in that pool, with no hand-off
//! to another thread, so a normal process pays one atomic load per call.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

/// Forks this process has gone through (a child counts its parent's).
static FORKS: AtomicU64 = AtomicU64::new(0);

static WATCH: Once = Once::new();

thread_local! {
    /// The value of [`FORKS`] when this thread last made sure its parallel
    /// loops have live workers.
    static READY_AT: Cell<u64> = const { Cell::new(0) };
}

/// Counts forks from now on (once per process; every entry calls it).
pub fn watch() {
    WATCH.call_once(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: `after_fork_in_child` only does an atomic add, which is
        // async-signal-safe as a fork handler must be.
        unsafe {
            libc::pthread_atfork(None, None, Some(after_fork_in_child));
        }
    });
}

#[cfg(target_os = "linux")]
extern "C" fn after_fork_in_child() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// Makes sure the parallel loops this thread starts have live workers;
/// called where native work starts (a program's run, constant folding,
/// conversions of large host data). Nothing to do unless the process was
/// forked after rayon's pool was started.
pub fn enter() {
    watch();
    let forks = FORKS.load(Ordering::Relaxed);
    if forks == 0 || READY_AT.get() == forks {
        return;
    }
    join_own_pool();
    READY_AT.set(forks);
}

/// The forked child's side of [`enter`]: a thread already a worker of some
/// pool keeps it (a pool made in this process runs its loops; one inherited
/// from the parent has no live workers but its own thread, which then runs
/// every piece itself, since rayon only hands work to threads that take
/// it). Any other thread becomes worker 0 of a new pool of the usual size.
#[cold]
fn join_own_pool() {
    if rayon::current_thread_index().is_some() {
        return;
    }
    let threads = rayon::current_num_threads().max(1);
    for n in [threads, 1] {
        let built = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .use_current_thread()
            .thread_name(|i| format!("oxtensor-{i}"))
            .build();
        if let Ok(pool) = built {
            // The pool must outlive this thread's membership, which lasts
            // as long as the thread (rayon leaks the registry of such pools
            // too).
            std::mem::forget(pool);
            return;
        }
    }
}

/// How many forks this process has seen (for tests).
pub fn forks() -> u64 {
    FORKS.load(Ordering::Relaxed)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use rayon::prelude::*;

    /// A child that forks after the global pool started, runs a parallel
    /// loop and exits with a status saying whether its result was right;
    /// the parent waits at most a few seconds for it (a hang is a failure).
    #[test]
    fn a_forked_child_runs_parallel_loops() {
        watch();
        // Start the global pool's workers in the parent.
        let sum: u64 = (0..1_000_000u64).into_par_iter().sum();
        assert_eq!(sum, 499_999_500_000);
        // SAFETY: the child only runs Rust code of this test and exits
        // with `_exit`, never returning into the test harness.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            enter();
            let sum: u64 = (0..1_000_000u64).into_par_iter().sum();
            let ok = sum == 499_999_500_000 && forks() >= 1;
            // SAFETY: ends the child without running the parent's atexit.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let status = wait_for(pid, 20_000);
        assert_eq!(status, Some(0), "the child hung or computed a wrong sum");
    }

    /// The child's exit status, or `None` (after killing it) if it did not
    /// end within `ms` milliseconds.
    fn wait_for(pid: libc::pid_t, ms: u64) -> Option<i32> {
        for _ in 0..ms / 10 {
            let mut status = 0;
            // SAFETY: `pid` is our child; `status` is a valid out pointer.
            let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if done == pid {
                return libc::WIFEXITED(status).then_some(libc::WEXITSTATUS(status));
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // SAFETY: `pid` is our child.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
        None
    }
}
