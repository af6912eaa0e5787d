"""The rest of the tensor library, op by op, compiled with ``oxtensor.function``
against the NumPy call it stands for (the tensor-library issue: no op slower
than NumPy by more than 1.1x): elementwise ops on bool, integer and complex
arrays and dtype conversions on 10**6 elements; running sums and products,
softmax along axis 0, arg-reductions, matrix-vector products, copies and
creation on 2000 x 2000 float64 (or the dtype named). Best of 10 calls after
a warm-up.

Ratios are ``numpy / oxtensor`` times (above 1: oxtensor is faster). NumPy
returns views for ``real`` and ``imag`` of a complex array; those rows time
a view against a compiled function's new array.
"""

from collections.abc import Callable
from typing import Any

import numpy as np
import oxtensor.tensor as ot
from bench_execution import numpy_table
from oxtensor.tensor import special

N = 2000
E = 10**6
RNG = np.random.default_rng(0)
S = RNG.uniform(-5, 5, E)
F32 = S.astype("float32")
I64 = RNG.integers(-1000, 1000, E)
I64B = RNG.integers(1, 50, E)
I32 = I64.astype("int32")
B1, B2 = S > 0, RNG.uniform(size=E) > 0.5
C128 = S + 1j * RNG.uniform(0.1, 5, E)
M = RNG.normal(size=(N, N))
M32 = M.astype("float32")
MI = RNG.integers(0, 1000, size=(N, N))
COLS = RNG.integers(0, N, size=1000)


def vec(dtype: str, name: str = "x") -> Any:
    return ot.vector(name, dtype=dtype)


def mat(dtype: str = "float64", name: str = "x") -> Any:
    return ot.matrix(name, dtype=dtype)


def two(dtype: str) -> Callable[[], list[Any]]:
    return lambda: [vec(dtype), vec(dtype, "y")]


def same(inputs: Callable[[], list[Any]], fn: Any, values: list[Any]) -> Any:
    """A case whose graph builder is also the NumPy function (a method or
    an indexing both have)."""
    return (inputs, fn, values, fn)


def along(f: Any, ref: Any, axis: int) -> Any:
    """``f(x, axis=axis)`` of the float64 matrix against NumPy's ``ref``."""
    return (
        lambda: [mat()],
        lambda x: f(x, axis=axis),
        [M],
        lambda x: ref(x, axis=axis),
    )


# name: (symbolic inputs, oxtensor graph builder, values, NumPy function)
CASES: dict[str, tuple[Callable[[], list[Any]], Callable[..., Any], list[Any], Any]] = {
    "and, bool": (two("bool"), ot.and_, [B1, B2], np.logical_and),
    "xor, bool": (two("bool"), ot.xor, [B1, B2], np.logical_xor),
    "invert, bool": (lambda: [vec("bool")], ot.invert, [B1], np.invert),
    "add, int64": (two("int64"), ot.add, [I64, I64B], np.add),
    "int_div, int64": (two("int64"), ot.int_div, [I64, I64B], np.floor_divide),
    "mod, int64": (two("int64"), ot.mod, [I64, I64B], np.mod),
    "maximum, int32": (two("int32"), ot.maximum, [I32, I32[::-1].copy()], np.maximum),
    "abs, int32": (lambda: [vec("int32")], abs, [I32], np.abs),
    "clip, float64": (
        lambda: [vec("float64")],
        lambda x: ot.clip(x, -1, 1),
        [S],
        lambda x: np.clip(x, -1, 1),
    ),
    "clip, float32": (
        lambda: [vec("float32")],
        lambda x: ot.clip(x, -1, 1),
        [F32],
        lambda x: np.clip(x, -1, 1),
    ),
    "astype int64 <- float64": same(
        lambda: [vec("float64")], lambda x: x.astype("int64"), [S]
    ),
    "astype float32 <- float64": same(
        lambda: [vec("float64")], lambda x: x.astype("float32"), [S]
    ),
    "abs, complex128": (lambda: [vec("complex128")], abs, [C128], np.abs),
    "angle, complex128": (lambda: [vec("complex128")], ot.angle, [C128], np.angle),
    "real, complex128": (lambda: [vec("complex128")], ot.real, [C128], np.real),
    "mul, complex128": (two("complex128"), ot.mul, [C128, C128], np.multiply),
    "cumsum axis 0": along(ot.cumsum, np.cumsum, 0),
    "cumsum axis 1": along(ot.cumsum, np.cumsum, 1),
    "cumprod axis 0": along(ot.cumprod, np.cumprod, 0),
    "softmax axis 0": (
        lambda: [mat()],
        lambda x: special.softmax(x, axis=0),
        [M],
        lambda x: (lambda e: e / e.sum(0))(np.exp(x - x.max(0))),
    ),
    "log_softmax axis 0, float32": (
        lambda: [mat("float32")],
        lambda x: special.log_softmax(x, axis=0),
        [M32],
        lambda x: (lambda s: s - np.log(np.exp(s).sum(0)))(x - x.max(0)),
    ),
    "argmax axis 1, float32": same(
        lambda: [mat("float32")], lambda x: x.argmax(axis=1), [M32]
    ),
    "argmax axis 1, int64": same(
        lambda: [mat("int64")], lambda x: x.argmax(axis=1), [MI]
    ),
    "min axis 1": same(lambda: [mat()], lambda x: x.min(axis=1), [M]),
    "any axis 0, bool": same(lambda: [mat("bool")], lambda x: x.any(axis=0), [M > 0]),
    "matrix @ vector": (
        lambda: [mat(), vec("float64", "v")],
        ot.dot,
        [M, M[0].copy()],
        np.dot,
    ),
    "vector @ matrix": (
        lambda: [vec("float64", "v"), mat()],
        ot.dot,
        [M[0].copy(), M],
        np.dot,
    ),
    "x[:, idx] (1000 columns)": same(
        lambda: [mat(), vec("int64", "i")], lambda x, i: x[:, i], [M, COLS]
    ),
    "flatten of x.T": same(lambda: [mat()], lambda x: x.T.flatten(), [M]),
    "ones_like": (lambda: [mat()], ot.ones_like, [M], np.ones_like),
    "arange(4e6)": (
        lambda: [ot.lscalar("n")],
        ot.arange,
        [np.int64(N * N)],
        np.arange,
    ),
}


def main() -> None:
    numpy_table(CASES, 28, check=True)


if __name__ == "__main__":
    main()
