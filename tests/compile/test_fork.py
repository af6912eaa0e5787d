"""A compiled function works in a child process, whichever way
``multiprocessing`` starts it: a forked child used to wait forever for the
parent's pool threads, which a fork does not copy."""

import multiprocessing
import os
import select
import signal

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest

# Above the sizes where kernels split their work across threads.
N = 10**6
# A child that has not finished by then is hung (it takes well under a
# second); it is killed and the test fails.
HANG_SECONDS = 120

# Python 3.12 warns on forking a process with threads (ours has rayon's);
# JAX, once another test imported it, warns from its own fork handler.
pytestmark = [
    pytest.mark.filterwarnings("ignore:This process .* fork:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


def _compiled():
    x = ot.dvector("x")
    return oxtensor.function([x], [(ot.exp(x) * 2).sum(), ot.tanh(x) * 3 + x])


def _check(f, queue):
    a = np.linspace(-1, 1, N)
    total, values = f(a)
    ok = np.isclose(total, (np.exp(a) * 2).sum()) and np.allclose(
        values, np.tanh(a) * 3 + a
    )
    queue.put(bool(ok))


def _child(queue):
    """A spawned or forkserver child: compiles and calls in the child."""
    _check(_compiled(), queue)


def _run(ctx, target, *args):
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    proc.join(HANG_SECONDS)
    if proc.is_alive():
        proc.kill()
        proc.join()
        pytest.fail(f"the {ctx.get_start_method()} child hung")
    assert proc.exitcode == 0
    assert queue.get(timeout=HANG_SECONDS) is True


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_a_forked_child_calls_a_function_compiled_before_the_fork(warm):
    # `warm`: the parent ran large calls (its pool threads started) first.
    f = _compiled()
    if warm:
        f(np.ones(N))
    _run(multiprocessing.get_context("fork"), _check, f)


def test_a_forked_child_of_a_forked_child():
    f = _compiled()
    f(np.ones(N))
    ctx = multiprocessing.get_context("fork")

    def grandparent(queue):
        f(np.ones(N))
        _run(ctx, _check, f)
        queue.put(True)

    _run(ctx, grandparent)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_a_spawned_child_compiles_and_calls(method):
    _compiled()(np.ones(N))
    _run(multiprocessing.get_context(method), _child)


def test_os_fork_child_runs_large_calls():
    f = _compiled()
    f(np.ones(N))
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        os.close(read)
        try:
            total, _ = f(np.ones(N))
            os.write(write, b"1" if np.isclose(total, 2 * np.e * N) else b"0")
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as r:
        ready, _, _ = select.select([r], [], [], HANG_SECONDS)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        answer = r.read() if ready else b"hung"
    _, status = os.waitpid(pid, 0)
    assert answer == b"1"
    assert os.waitstatus_to_exitcode(status) == 0
