"""Compiled calls leak nothing: each kind of step (a fused elementwise group,
a summed group, a reduction, a failing call, a Python op, a jacobian) runs
many times after a warm-up, and the process's memory must not grow by more
than a few bytes per call.

Memory is read three ways: the resident set (``/proc/self/statm``, what the
issue measured), glibc's count of bytes in use in the main heap
(``mallinfo2``, exact to the byte, where available) and CPython's count of
allocated blocks (a leaked Python object, which neither of the others sees
promptly). Bounds are per call and generous (a real leak was 200 bytes to
4.6 KB per call); nothing here depends on timing.
"""

import ctypes
import gc
import os
import sys

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import hessian, jacobian

from tests.helpers import UnaryPythonOp

# The suite runs against a debug build, where a call costs up to a few
# milliseconds: it makes enough calls to see 20 bytes a call; ``--runslow``
# makes 10^5 of each kind.
WARM_UP = 1_000
CALLS = 4_000
MANY_CALLS = 100_000
BYTES_PER_CALL = 20
BLOCKS_PER_CALL = 0.01


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks "
            "keepcost"
        ).split()
    ]


def _heap_bytes():
    """Bytes glibc has handed out and not taken back, or ``None``."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallinfo2 = libc.mallinfo2
    except (OSError, AttributeError):
        return None
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    return info.uordblks + info.hblkhd


def _resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _snapshot():
    gc.collect()
    return _resident_bytes(), _heap_bytes(), sys.getallocatedblocks()


def _growth_per_call(call, calls):
    before = _snapshot()
    for _ in range(calls):
        call()
    after = _snapshot()
    return [
        (b - a) / calls if a is not None else 0.0
        for a, b in zip(before, after, strict=True)
    ]


def assert_no_leak(call, calls=CALLS, windows=3):
    """A leak grows in every window of calls; a cache filling up (NumPy's
    small-allocation cache, free lists) grows for a while and stops. So the
    bounds must hold in one of a few consecutive windows."""
    for _ in range(min(WARM_UP, calls)):
        call()
    bounds = (BYTES_PER_CALL, BYTES_PER_CALL, BLOCKS_PER_CALL)
    for _ in range(windows):
        growth = _growth_per_call(call, calls)
        if all(g < bound for g, bound in zip(growth, bounds, strict=True)):
            return
    rss, heap, blocks = growth
    raise AssertionError(
        f"per call, in each of {windows} windows of {calls} calls; the last: "
        f"{rss:.1f} B resident, {heap:.1f} B heap, {blocks:.3f} blocks"
    )


class Double(UnaryPythonOp):
    """A Python op: ``2 * x`` in ``perform``."""

    __props__ = ()

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2


def _steps():
    v, x, y = ot.dvector("v"), ot.dvector("x"), ot.dvector("y")
    m = ot.dmatrix("m")
    # Just past one block (2048 elements), where summed groups leaked.
    big, big2 = np.linspace(0, 1, 2100), np.linspace(1, 2, 2100)
    mat, small = np.linspace(0, 1, 2500).reshape(50, 50), np.linspace(0, 1, 10)

    def failing(f, *args):
        def call():
            with pytest.raises(ValueError, match="shapes"):
                f(*args)

        return call

    def compiled(inputs, out, *args):
        f = oxtensor.function(inputs, out)
        return lambda: f(*args)

    add = oxtensor.function([x, y], x + y)
    return {
        "fused": compiled([v], ot.exp(v) * 2 + 1, big),
        "fused_sum": compiled([v], (v * 2).sum(), big),
        "exp_sum": compiled([x], ot.exp(x).sum(), big),
        "sq_diff_mean": compiled([x, y], ((x - y) ** 2).mean(), big, big2),
        "var": compiled([x], ot.var(x), big),
        "fused_sum_axis1": compiled([m], (m * 2).sum(axis=1), mat),
        "reduction": compiled([m], m.sum(axis=1), mat),
        "failing_small": failing(add, np.ones(3), np.ones(4)),
        "failing_large": failing(add, np.ones(2000), np.ones(2001)),
        "python_op": compiled([v], Double()(v) + 1, small),
        "jacobian": compiled([v], jacobian(ot.tanh(v), v), small),
        "hessian": compiled([v], hessian(ot.tanh(v).sum(), v), small),
    }


STEPS = sorted(_steps())


@pytest.mark.parametrize("kind", STEPS)
def test_a_compiled_step_does_not_leak(kind):
    assert_no_leak(_steps()[kind])


@pytest.mark.slow
@pytest.mark.parametrize("kind", STEPS)
def test_a_compiled_step_does_not_leak_over_many_calls(kind):
    assert_no_leak(_steps()[kind], calls=MANY_CALLS)
