"""Elementwise ops one at a time: compiled functions against NumPy, PyTensor
and JAX (the tensor-library issue: no op slower than NumPy by more than 1.1x).

Workloads, each timed in this one process as the best of several repeats:

* every unary op below on 10**6 float64 values in its domain (the values are
  chosen per op so that no NaN path is timed);
* a few binary ops (``arctan2``, ``pow``, ``maximum``, ``where``) on two such
  vectors, and the ``FLOAT32`` list's unary ops on float32;
* a few unary ops and ``arctan2`` on strided views (every other element of
  2 * 10**6 values), which take the gathered path of the maps;
* the special functions against SciPy (what a user would call; for
  ``log1mexp``, which SciPy lacks, NumPy's ``log(-expm1(x))``) and ``x ** 2.5``
  (a constant exponent) against NumPy, on float64 and float32.

Ratios are ``other / oxtensor`` times (above 1: oxtensor is faster). The
timing helpers are ``bench_execution``'s.
"""

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import scipy.special as sps
from bench_execution import best, jax_fn, jax_mod, jax_timed, pt_mod, pt_why, row, timed

N = 10**6

# name: (oxtensor / PyTensor function name, NumPy function, value range)
UNARY: dict[str, tuple[str, Callable[[np.ndarray], Any], tuple[float, float]]] = {
    "exp": ("exp", np.exp, (-5, 5)),
    "exp2": ("exp2", np.exp2, (-5, 5)),
    "expm1": ("expm1", np.expm1, (-5, 5)),
    "log": ("log", np.log, (0.1, 10)),
    "log2": ("log2", np.log2, (0.1, 10)),
    "log10": ("log10", np.log10, (0.1, 10)),
    "log1p": ("log1p", np.log1p, (0.1, 10)),
    "sqrt": ("sqrt", np.sqrt, (0.1, 10)),
    "sqr": ("sqr", np.square, (-5, 5)),
    "abs": ("abs", np.abs, (-5, 5)),
    "neg": ("neg", np.negative, (-5, 5)),
    "sign": ("sign", np.sign, (-5, 5)),
    "floor": ("floor", np.floor, (-5, 5)),
    "ceil": ("ceil", np.ceil, (-5, 5)),
    "round": ("round", np.round, (-5, 5)),
    "trunc": ("trunc", np.trunc, (-5, 5)),
    "sin": ("sin", np.sin, (-5, 5)),
    "cos": ("cos", np.cos, (-5, 5)),
    "tan": ("tan", np.tan, (-1, 1)),
    "arcsin": ("arcsin", np.arcsin, (-0.9, 0.9)),
    "arccos": ("arccos", np.arccos, (-0.9, 0.9)),
    "arctan": ("arctan", np.arctan, (-5, 5)),
    "sinh": ("sinh", np.sinh, (-5, 5)),
    "cosh": ("cosh", np.cosh, (-5, 5)),
    "tanh": ("tanh", np.tanh, (-5, 5)),
    "arcsinh": ("arcsinh", np.arcsinh, (-5, 5)),
    "arccosh": ("arccosh", np.arccosh, (1.1, 5)),
    "arctanh": ("arctanh", np.arctanh, (-0.9, 0.9)),
    "sigmoid": ("sigmoid", lambda v: 1 / (1 + np.exp(-v)), (-5, 5)),
    "softplus": ("softplus", lambda v: np.logaddexp(0, v), (-5, 5)),
    "isnan": ("isnan", np.isnan, (-5, 5)),
    "isinf": ("isinf", np.isinf, (-5, 5)),
}

# The float32 rows (NumPy's float32 loops run 16 lanes to an AVX-512 vector).
FLOAT32 = [
    "exp",
    "expm1",
    "log",
    "log2",
    "log1p",
    "sqrt",
    "abs",
    "sin",
    "cos",
    "tan",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "sigmoid",
]

# name: (oxtensor / PyTensor function name, reference, value range, name in
# jax.scipy.special or None); the reference is SciPy's, or NumPy's formula.
SPECIAL: dict[
    str, tuple[str, Callable[[np.ndarray], Any], tuple[float, float], str | None]
] = {
    "erf": ("erf", sps.erf, (-5, 5), "erf"),
    "erfc": ("erfc", sps.erfc, (-5, 5), "erfc"),
    "erfinv": ("erfinv", sps.erfinv, (-0.83, 0.83), "erfinv"),
    "erfcinv": ("erfcinv", sps.erfcinv, (0.17, 1.83), None),
    "gamma": ("gamma", sps.gamma, (0.1, 5), "gamma"),
    "gammaln": ("gammaln", sps.gammaln, (0.1, 5), "gammaln"),
    "psi": ("psi", sps.psi, (0.1, 5), "digamma"),
    "log1mexp": ("log1mexp", lambda v: np.log(-np.expm1(v)), (-5, -0.1), None),
    "x**2.5": ("", lambda v: v**2.5, (0.1, 5), None),
}

# Unary ops timed on strided views, float64 and float32.
STRIDED = ["exp", "log", "sin", "tanh", "arctan", "arcsinh"]

BINARY: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "arctan2": (lambda m, a, b: m.arctan2(a, b), np.arctan2),
    "pow": (lambda m, a, b: a**b, lambda a, b: a**b),
    "maximum": (lambda m, a, b: m.maximum(a, b), np.maximum),
    "where(a>b,a,b)": (
        lambda m, a, b: m.where(a > b, a, b),
        lambda a, b: np.where(a > b, a, b),
    ),
}


def module(name: str) -> Any:
    return importlib.import_module(name) if name else None


pt = module("pytensor.tensor") if pt_mod is not None else None
jnp = module("jax.numpy") if jax_mod is not None else None


def pt_unary(name: str, dtype: str) -> Any:
    if pt is None:
        return None
    fn = getattr(pt, name, None) or getattr(module("pytensor.tensor.math"), name, None)
    if fn is None:
        return None
    x = pt.vector("x", dtype=dtype)
    return pt_mod.function([x], fn(x))


def jax_unary(name: str) -> Any:
    if jnp is None:
        return None
    special = {"sqr": jnp.square, "neg": jnp.negative}
    nn = module("jax.nn")
    fn = special.get(name) or getattr(jnp, name, None) or getattr(nn, name, None)
    return jax_fn(fn) if fn is not None else None


def unary(dtype: str, names: list[str]) -> None:
    rng = np.random.default_rng(0)
    for name in names:
        op, ref, (lo, hi) = UNARY[name]
        a = rng.uniform(lo, hi, N).astype(dtype)
        x = ot.vector("x", dtype=dtype)
        f = oxtensor.function([x], getattr(ot, op)(x))
        others = {
            "numpy": best(lambda ref=ref, a=a: ref(a), 20),
            "pytensor": timed(pt_unary(op, dtype), a, number=20),
            "jax": jax_timed(jax_unary(name), a, number=20),
        }
        row(f"{name}, 1e6 {dtype}", best(lambda f=f, a=a: f(a), 20), others)


def strided(dtype: str) -> None:
    rng = np.random.default_rng(3)
    for name in STRIDED:
        op, ref, (lo, hi) = UNARY[name]
        a = rng.uniform(lo, hi, 2 * N).astype(dtype)[::2]
        x = ot.vector("x", dtype=dtype)
        f = oxtensor.function([x], getattr(ot, op)(x))
        others = {"numpy": best(lambda ref=ref, a=a: ref(a), 20)}
        row(f"{name}, x[::2] {dtype}", best(lambda f=f, a=a: f(a), 20), others)
    a, b = rng.uniform(0.5, 2, (2, 2 * N))[:, ::2]
    x, y = ot.dvector("x"), ot.dvector("y")
    f = oxtensor.function([x, y], ot.arctan2(x, y))
    others = {"numpy": best(lambda: np.arctan2(a, b), 20)}
    row("arctan2, x[::2] float64", best(lambda: f(a, b), 20), others)


def special_graph(m: Any, name: str, x: Any) -> Any:
    """``name``'s graph of ``x`` in ``m`` (oxtensor.tensor or pytensor.tensor)."""
    op = SPECIAL[name][0]
    if not op:
        return x**2.5
    fn = getattr(m, op, None) or getattr(module(f"{m.__name__}.math"), op, None)
    return None if fn is None else fn(x)


def special(dtype: str) -> None:
    rng = np.random.default_rng(2)
    jsp = module("jax.scipy.special") if jnp is not None else None
    for name, (_, ref, (lo, hi), jname) in SPECIAL.items():
        a = rng.uniform(lo, hi, N).astype(dtype)
        x = ot.vector("x", dtype=dtype)
        f = oxtensor.function([x], special_graph(ot, name, x))
        g = None
        if pt is not None:
            u = pt.vector("x", dtype=dtype)
            out = special_graph(pt, name, u)
            g = None if out is None else pt_mod.function([u], out)
        jf = getattr(jsp, jname) if jsp is not None and jname else None
        if name == "x**2.5" and jnp is not None:
            jf = lambda v: v**2.5  # noqa: E731
        label = "numpy" if name in ("log1mexp", "x**2.5") else "scipy"
        others = {
            label: best(lambda ref=ref, a=a: ref(a), 20),
            "pytensor": timed(g, a, number=20),
            "jax": jax_timed(jax_fn(jf) if jf else None, a, number=20),
        }
        row(f"{name}, 1e6 {dtype}", best(lambda f=f, a=a: f(a), 20), others)


def binary() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.5, 2, N), rng.uniform(0.5, 2, N)
    for name, (build, ref) in BINARY.items():
        x, y = ot.dvector("x"), ot.dvector("y")
        f = oxtensor.function([x, y], build(ot, x, y))
        g = None
        if pt is not None:
            u, v = pt.dvector("x"), pt.dvector("y")
            g = pt_mod.function([u, v], build(pt, u, v))
        jf = jax_fn(lambda p, q, build=build: build(jnp, p, q)) if jnp else None
        others = {
            "numpy": best(lambda ref=ref: ref(a, b), 20),
            "pytensor": timed(g, a, b, number=20),
            "jax": jax_timed(jf, a, b, number=20),
        }
        row(f"{name}, 1e6 float64", best(lambda f=f: f(a, b), 20), others)


def main() -> None:
    if pt_why:
        print(f"skipped pytensor: {pt_why}")
    unary("float64", list(UNARY))
    binary()
    unary("float32", FLOAT32)
    strided("float64")
    strided("float32")
    special("float64")
    special("float32")


if __name__ == "__main__":
    main()
