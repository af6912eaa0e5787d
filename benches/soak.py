"""Soak and concurrency figures (``make soak``): prints, and exits non-zero
on a wrong result or a bound missed.

1. 8 threads x 10^4 calls of one compiled function on mixed shapes, every
   result checked against NumPy;
2. compile + call 10^4 times: resident memory growth (bound: 10 MB);
3. shared-variable updates from 8 threads (each update a call; the final
   value is the exact count of calls).
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time

import numpy as np
import oxtensor
import oxtensor.tensor as ot

THREADS, CALLS, COMPILES = 8, 10_000, 10_000
RSS_BOUND = 10 * 2**20


def resident() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def in_threads(work) -> tuple[float, list[BaseException]]:
    errors: list[BaseException] = []

    def guarded(k: int) -> None:
        try:
            work(k)
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(THREADS)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start, errors


def mixed_shapes() -> bool:
    x, y = ot.dvector("x"), ot.dmatrix("y")
    f = oxtensor.function([x, y], [ot.tanh(x) * 2 + y.sum(axis=0), (y @ x).max()])
    sizes = [1, 3, 7, 64, 1000, 5000]

    def work(k: int) -> None:
        rng = np.random.default_rng(k)
        for j in range(CALLS):
            n = sizes[(k + j) % len(sizes)]
            a, b = rng.standard_normal(n), rng.standard_normal((3, n))
            first, second = f(a, b)
            np.testing.assert_allclose(first, np.tanh(a) * 2 + b.sum(axis=0))
            np.testing.assert_allclose(second, (b @ a).max())

    before = resident()
    seconds, errors = in_threads(work)
    calls = THREADS * CALLS
    print(
        f"mixed shapes: {THREADS} threads x {CALLS} calls in {seconds:.1f} s "
        f"({seconds / calls * 1e6:.0f} us/call), {len(errors)} wrong or failed, "
        f"RSS {(resident() - before) / 2**20:+.1f} MiB"
    )
    for err in errors[:3]:
        print(f"  {type(err).__name__}: {err}")
    return not errors


def compile_and_call() -> bool:
    a = np.linspace(0, 1, 100)
    x = ot.dvector("x")
    out = ((ot.exp(x) * 2 - x) ** 2).sum()
    oxtensor.function([x], out)(a)
    gc.collect()
    before, start = resident(), time.perf_counter()
    for k in range(COMPILES):
        f = oxtensor.function([x], out + k)
        f(a)
        if k == 100:
            gc.collect()
            after_warm = resident()
    gc.collect()
    grown = resident() - after_warm
    seconds = time.perf_counter() - start
    print(
        f"compile + call: {COMPILES} times in {seconds:.1f} s "
        f"({seconds / COMPILES * 1e3:.2f} ms each), RSS {grown / 2**20:+.1f} MiB "
        f"after the first 100 ({(resident() - before) / 2**20:+.1f} MiB in all; "
        f"bound {RSS_BOUND / 2**20:.0f} MiB)"
    )
    return grown < RSS_BOUND


def shared_updates() -> bool:
    """Each call reads the shared values and writes them back: with a lock
    around calls the count is exact; without one, updates of concurrent
    calls may overwrite each other (as in any library), but every call must
    succeed and every value stay one some call wrote."""
    ok = True
    for locked in (True, False):
        count = oxtensor.shared(np.float64(0.0), name="count")
        total = oxtensor.shared(np.zeros(1000), name="total")
        f = oxtensor.function(
            [], [], updates=[(count, count + 1), (total, total + 1.0)]
        )
        lock = threading.Lock() if locked else None

        def work(k: int, f=f, lock=lock) -> None:
            for _ in range(CALLS // 10):
                if lock is None:
                    f()
                else:
                    with lock:
                        f()

        seconds, errors = in_threads(work)
        expected = THREADS * (CALLS // 10)
        got, row = count.get_value(), total.get_value()
        consistent = bool(np.all(row == row[0])) and 0 < got <= expected
        good = not errors and consistent and (got == expected or not locked)
        ok = ok and good
        print(
            f"shared updates ({'locked' if locked else 'unlocked'}): {THREADS} threads "
            f"x {CALLS // 10} calls in {seconds:.1f} s, count {got:.0f} of {expected}, "
            f"vector uniform: {consistent}, {len(errors)} failed"
        )
    return ok


def main() -> int:
    results = [mixed_shapes(), compile_and_call(), shared_updates()]
    print("soak: all good" if all(results) else "soak: FAILED")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
