"""Compiled functions called from several threads at once, and the GIL
released around native work."""

import threading

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import function

from tests.helpers import PATHS, assert_matches

N_THREADS, N_CALLS = 8, 50


def run_threads(work):
    errors = []

    def guarded(k):
        try:
            work(k)
        except BaseException as err:
            errors.append((k, err))

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.parametrize("path", sorted(PATHS))
def test_one_function_called_from_many_threads(path):
    x, y = ot.dvector("x"), ot.dmatrix("y")
    via = PATHS[path]
    out = [ot.tanh(via(x)) * 2 + y.sum(axis=0), (via(y) @ x).max()]
    f = function([x, y], out)

    def work(k):
        rng = np.random.default_rng(k)
        for j in range(N_CALLS):
            n = 1 + (k + j) % 7
            a, b = rng.standard_normal(n), rng.standard_normal((3, n))
            first, second = f(a, b)
            assert_matches(first, np.tanh(a) * 2 + b.sum(axis=0), scale=4)
            assert_matches(second, (b @ a).max(), scale=n)

    run_threads(work)


def test_large_inputs_from_many_threads():
    # Above the size where kernels split work across threads and recycle
    # big buffers: each caller must still get its own results.
    x = ot.dvector("x")
    f = function([x], [ot.exp(x * 0.5) - x, (x * x).sum()])

    def work(k):
        for j in range(N_CALLS // 10):
            a = np.full(1 << 17, float(k + j) / 10)
            first, total = f(a)
            assert_matches(first, np.exp(a * 0.5) - a)
            assert_matches(total, (a * a).sum(), scale=1 << 17)

    run_threads(work)


def test_errors_in_one_thread_do_not_disturb_others():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = function([x, y], x + y)

    def work(k):
        for j in range(N_CALLS):
            if (k + j) % 3 == 0:
                with pytest.raises(ValueError, match="Input dimension mismatch"):
                    f(np.ones(2), np.ones(3))
            else:
                got = f(np.full(4, float(k)), np.full(4, float(j)))
                assert_matches(got, np.full(4, float(k + j)))

    run_threads(work)


def test_the_gil_is_released_during_native_work():
    # A pure-Python thread keeps noting whether the main thread is inside
    # the call. Holding the GIL, the call would let it note only "outside"
    # (no clock: a slow or loaded machine only makes the call longer).
    x = ot.dvector("x")
    y = x
    for _ in range(8):
        y = ot.sin(ot.cos(y))
    f = function([x], y.sum())
    data = np.linspace(0, 1, 2 * 10**6)
    inside, seen, stop = [False], [], threading.Event()

    def watcher():
        while not stop.is_set():
            seen.append(inside[0])

    t = threading.Thread(target=watcher)
    t.start()
    try:
        inside[0] = True
        f(data)
        inside[0] = False
    finally:
        stop.set()
        t.join()
    assert any(seen), f"{len(seen)} notes, none inside the call"
