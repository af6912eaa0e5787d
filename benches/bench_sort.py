"""``sort`` and ``argsort`` compiled with ``oxtensor.function`` against
``np.sort``/``np.argsort`` (NumPy's default kind, which on x86 with AVX-512
or AVX2 is the vectorised x86-simd-sort for 16/32/64-bit types): vectors of
10**6 random elements per dtype, and 2000 x 2000 float64 matrices along each
axis. Best of 10 calls after a warm-up.

Ratios are ``numpy / oxtensor`` times (above 1: oxtensor is faster).
"""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from bench_execution import best

RNG = np.random.default_rng(0)
N = 10**6
VECTORS = {
    "float64": RNG.normal(size=N),
    "float32": RNG.normal(size=N).astype("float32"),
    "int64": RNG.integers(-(10**12), 10**12, size=N),
    "int32": RNG.integers(-(10**9), 10**9, size=N).astype("int32"),
}
M = RNG.normal(size=(2000, 2000))


def cases() -> list[tuple[str, np.ndarray, int]]:
    """(row name, value, axis) for every timed call."""
    rows = [(f"{dtype} 1e6", v, -1) for dtype, v in VECTORS.items()]
    return [*rows, ("2000x2000 axis=-1", M, -1), ("2000x2000 axis=0", M, 0)]


def time_row(name: str, value: np.ndarray, axis: int, fname: str) -> None:
    """Prints one ratio row for ``fname`` (``sort`` or ``argsort``)."""
    x = ot.tensor("x", dtype=str(value.dtype), shape=(None,) * value.ndim)
    f = oxtensor.function([x], getattr(ot, fname)(x, axis=axis))
    reference = getattr(np, fname)
    ox = best(lambda: f(value), 1, repeat=10)
    ref = best(lambda: reference(value, axis=axis), 1, repeat=10)
    flag = "" if ox <= 1.1 * ref else "  <-- slower than NumPy"
    times = f"oxtensor {ox * 1e3:8.3f} ms | numpy {ref * 1e3:8.3f} ms"
    print(f"{fname + ' ' + name:<28} {times} ({ref / ox:5.2f}x){flag}", flush=True)


def main() -> None:
    for fname in ("sort", "argsort"):
        for name, value, axis in cases():
            time_row(name, value, axis, fname)


if __name__ == "__main__":
    main()
