"""The ``Spec`` record of the op tables (``op_table*.py``) that
``test_coverage_ops.py`` walks, with the input makers they share."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ANY = ["bool", "int8", "uint16", "int64", "float16", "float32", "float64"]
ANY += ["complex128"]
NUMERIC = [d for d in ANY if d != "bool"]
REAL = [d for d in NUMERIC if d != "complex128"]
FLOATS = ["float32", "float64"]


def arr(dtype: str, shape: Any, rng: Any, low: float = -3, high: float = 3) -> Any:
    """Values of ``dtype``: bools, small integers or uniform floats."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else int(low)
        return rng.integers(lo, int(high) + 1, shape).astype(dt)
    out = rng.uniform(low, high, shape)
    if dt.kind == "c":
        out = out + 1j * rng.uniform(low, high, shape)
    return out.astype(dt)


def spd(dtype: str, shape: Any, rng: Any) -> Any:
    """A well-conditioned symmetric positive definite (stack of) matrix."""
    a = rng.normal(size=shape)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def distinct(dtype: str, shape: Any, rng: Any) -> Any:
    """Distinct floats (sorts and maxima have one answer, gradients exist)."""
    n = int(np.prod(shape))
    return rng.permutation(np.linspace(-2.0, 2.0, n)).reshape(shape).astype(dtype)


@dataclass(frozen=True)
class Spec:
    """One op: ``build(*variables)`` and ``ref(*arrays)`` (a list for
    several outputs); ``args(dtype, rng)`` gives the value-test inputs,
    ``zero_d``/``empty`` the 0-d/empty ones or a string saying why the
    case does not apply; ``grad`` is ``True`` or why there is none;
    ``canon`` maps outputs to a unique form (signs of eigenvectors);
    ``infer_shape`` is ``True`` or why the op has none."""

    build: Callable[..., Any]
    ref: Callable[..., Any]
    args: Callable[[str, Any], list[Any]]
    str_form: str
    dtypes: list[str] = field(default_factory=lambda: FLOATS)
    zero_d: Any = None
    empty: Any = None
    grad: Any = True
    canon: Callable[[Any], Any] = lambda v: v
    scale: float = 50
    infer_shape: Any = True


def arrays(*shapes: Any, **kw: Any) -> Callable[[str, Any], list[Any]]:
    """One array of ``dtype`` (`arr`) of each shape."""
    return lambda dt, rng: [arr(dt, shape, rng, **kw) for shape in shapes]


def one(shape: Any, **kw: Any) -> Callable[[str, Any], list[Any]]:
    return arrays(shape, **kw)


def two(sa: Any, sb: Any) -> Callable[[str, Any], list[Any]]:
    return arrays(sa, sb)


def masked(shape: Any) -> Callable[[str, Any], list[Any]]:
    """An array of ``dtype`` and a random boolean mask of its shape."""
    return lambda dt, rng: [
        arr(dt, shape, rng),
        rng.integers(0, 2, shape).astype(bool),
    ]


def on_arrays(
    build: Callable[..., Any],
    ref: Callable[..., Any],
    shapes: list[Any],
    str_form: str,
    dtypes: list[str] = ANY,
    *,
    args: Callable[[str, Any], list[Any]] | None = None,
    **kw: Any,
) -> Spec:
    """The entry of an op of arrays of ``shapes`` (``args``, when given,
    makes other values of those shapes): most take any dtype, need an axis
    (no 0-d case) and have as empty case the same shapes with a first axis
    of length 0; ``kw`` gives the other `Spec` fields, or ``zero_d`` and
    ``empty`` where they differ."""
    kw.setdefault("zero_d", NO_ZERO_D)
    kw.setdefault("empty", arrays(*((0, *shape[1:]) for shape in shapes)))
    return Spec(build, ref, args or arrays(*shapes), str_form, dtypes, **kw)


def idx(values: list[int]) -> Callable[[str, Any], list[Any]]:
    """A matrix of ``dtype`` and a constant int64 index vector."""
    return lambda dt, rng: [arr(dt, (4, 3), rng), np.array(values, "int64")]


def scalar_int(n: int) -> Callable[[str, Any], list[Any]]:
    return lambda dt, rng: [np.array(n, "int64")]


NO_GRAD_INT = "integer output: no gradient"
NO_GRAD_LEN = "the only inputs are integer lengths"
NO_GRAD_VALUES = "the output does not depend on the input's values"
NO_ZERO_D = "needs at least one axis"
