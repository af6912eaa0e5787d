"""Execution speed: compiled functions against NumPy, PyTensor and JAX.

Workloads (the Execution issue's list), each timed in this one process as the
best of several repeats with ``timeit``:

* call overhead of ``x * 2 + 1`` on a 10-element float64 vector (input
  checking on, then ``trust_input=True``);
* one elementwise op (``x * 2``) and a 5-op expression on 10**7 float64;
* ``x.T * 2 + 1`` and ``x.T * 2`` of a 4000x4000 float64 matrix, and ``x * 2``
  of an F-ordered one (outputs keep the input's memory order, as NumPy's);
* sums over axis 0, axis 1 and all of a 4000x4000 float64 matrix;
* matmul of 1024x1024 and 2048x2048 in float32 and float64 (GFLOP/s), with
  the engine oxtensor picked for this machine, then on faer and on NumPy's
  OpenBLAS each.

Ratios are ``other / oxtensor`` times (above 1: oxtensor is faster). PyTensor
runs its default mode; JAX runs ``jax.jit`` with ``block_until_ready``. A
system that cannot be imported is reported as skipped, with the reason.
"""

import importlib
import time
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from oxtensor.tensor import blas


def settle() -> None:
    """Waits for the previous system's worker threads to go to sleep.

    OpenBLAS's and JAX's (Eigen's) worker threads keep spinning for a while
    after each call; on a 2-core machine one of them then takes a core from
    whatever is timed next (measured: oxtensor's 2048^2 float64 matmul right
    after NumPy's ran at 0.78x NumPy's speed, and at parity half a second
    later; its sum over 4000^2 ran at 6-9 ms right after JAX's, 4.4 ms alone).
    """
    time.sleep(0.5)


def best(fn: Callable[[], Any], number: int, repeat: int = 5) -> float:
    """Seconds per call, best of ``repeat`` runs of ``number`` calls, once
    the previous system's threads are idle (see ``settle``)."""
    settle()
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def optional(name: str) -> tuple[Any, str]:
    """A module, or ``None`` and why it could not be imported."""
    try:
        return importlib.import_module(name), ""
    except Exception as e:  # any import failure just skips that system
        return None, f"{type(e).__name__}: {e}"


pt_mod, pt_why = optional("pytensor")
jax_mod, jax_why = optional("jax")
if jax_mod is not None:
    jax_mod.config.update("jax_enable_x64", True)
    jnp = importlib.import_module("jax.numpy")


def report_skipped() -> None:
    """Says which of PyTensor and JAX are skipped, and why."""
    for name, why in (("pytensor", pt_why), ("jax", jax_why)):
        if why:
            print(f"skipped {name}: {why}")


def pytensor_fn(build: Callable[[Any], tuple[list[Any], Any]]) -> Any:
    """Compile ``build(pytensor.tensor)`` with PyTensor's default mode."""
    if pt_mod is None:
        return None
    ins, out = build(importlib.import_module("pytensor.tensor"))
    return pt_mod.function(ins, out)


def jax_fn(f: Callable[..., Any]) -> Any:
    """``jax.jit(f)`` whose results are waited for."""
    if jax_mod is None:
        return None
    jitted = jax_mod.jit(f)
    # `block_until_ready` on the whole result: decompositions return tuples.
    return lambda *a: jax_mod.block_until_ready(jitted(*a))


def jax_timed(fn: Any, *args: Any, number: int) -> float | None:
    """``timed`` with the arguments already on JAX's device, as a JAX program
    holds them: passing NumPy arrays would time a host-to-device copy per
    call (measured: 104 ms instead of 4.8 ms for a sum over 4000^2)."""
    if fn is None:
        return None
    assert jax_mod is not None
    on_device = [jax_mod.device_put(a) for a in args]
    return best(lambda: fn(*on_device), number)


def row(
    label: str, ox: float, others: dict[str, float | None], unit: str = "ms"
) -> None:
    scale = {"us": 1e6, "ms": 1e3}[unit]
    cells = [f"oxtensor {ox * scale:9.2f} {unit}"]
    for name, t in others.items():
        cells.append(
            f"{name} {'skipped':>9}"
            if t is None
            else f"{name} {t * scale:9.2f} {unit} ({t / ox:5.2f}x)"
        )
    print(f"{label:<28}" + " | ".join(cells), flush=True)


def numpy_table(
    cases: dict[str, Any], width: int, check: bool = False, borrow: bool = False
) -> None:
    """Times each ``name: (make_inputs, build, values, reference)`` case, a
    compiled ``build(*make_inputs())`` against the NumPy ``reference`` on
    ``values``, best of three rounds of 10 calls each after a warm-up, the
    rounds alternating between the two (the thread pool's wake-up time and
    OpenBLAS's spinning threads vary from moment to moment on these
    machines); ``check``: first asserts that the two agree; ``borrow``:
    inputs and output borrowed (``In``/``Out(borrow=True)``), so an output
    that is a view of an input is returned as one, as NumPy returns it."""
    for name, (make_inputs, build, values, reference) in cases.items():
        inputs = make_inputs()
        out = build(*inputs)
        if borrow:
            inputs = [oxtensor.In(i, borrow=True) for i in inputs]
            out = oxtensor.Out(out, borrow=True)
        f = oxtensor.function(inputs, out)
        got, want = f(*values), reference(*values)
        if check and not np.allclose(got, want, rtol=1e-4, atol=1e-6, equal_nan=True):
            raise AssertionError(f"{name}: oxtensor and NumPy disagree")
        ox = ref = float("inf")
        for _ in range(3):
            ox = min(ox, best(lambda f=f, values=values: f(*values), 1, repeat=10))
            ref = min(ref, best(lambda r=reference, v=values: r(*v), 1, repeat=10))
        flag = "" if ox <= 1.1 * ref else "  <-- slower than NumPy"
        times = f"oxtensor {ox * 1e3:9.3f} ms | numpy {ref * 1e3:9.3f} ms"
        print(f"{name:<{width}} {times} ({ref / ox:5.2f}x){flag}", flush=True)


def timed(fn: Any, *args: Any, number: int) -> float | None:
    return None if fn is None else best(lambda: fn(*args), number)


Build = Callable[[Any], tuple[list[Any], Any]]


def compare(
    label: str,
    build: Build,
    args: list[Any],
    numpy: Callable[[], Any],
    jax: Callable[..., Any] | None,
    static: bool = False,
    number: int = 10,
) -> None:
    """Times ``build(module)`` compiled by oxtensor and PyTensor, ``numpy``,
    and ``jax`` (written with ``jax.numpy``; creation ops close over their
    lengths, as ``jax.jit`` needs static shapes: ``static``, called with no
    arguments), each ``number`` calls a repeat, and prints one row."""
    ins, out = build(ot)
    f = oxtensor.function(ins, out)
    g = pytensor_fn(build)
    jf = jax_fn(jax) if jax_mod and jax else None
    jax_args = [] if static else args
    row(
        label,
        best(lambda: f(*args), number),
        {
            "numpy": best(numpy, number),
            "pytensor": timed(g, *args, number=number),
            "jax": jax_timed(jf, *jax_args, number=number),
        },
    )


def call_overhead() -> None:
    a = np.arange(10.0)
    x = ot.dvector("x")
    f = oxtensor.function([x], x * 2 + 1)
    ox = best(lambda: f(a), 20000)
    g = pytensor_fn(_pt_axpb)
    others = {
        "numpy": best(lambda: a * 2 + 1, 20000),
        "pytensor": timed(g, a, number=20000),
        "jax": jax_timed(jax_fn(lambda v: v * 2 + 1), a, number=2000),
    }
    row("x*2+1, 10 float64", ox, others, "us")
    f.trust_input = True
    if g is not None:
        g.trust_input = True
    row(
        "  ... trust_input=True",
        best(lambda: f(a), 20000),
        {"pytensor": timed(g, a, number=20000)},
        "us",
    )


def _pt_axpb(pt: Any) -> tuple[list[Any], Any]:
    x = pt.dvector("x")
    return [x], x * 2 + 1


def elementwise() -> None:
    a = np.random.default_rng(0).random(10**7)
    x = ot.dvector("x")
    for label, build, ref in [
        ("x*2, 1e7 float64", lambda m, v: v * 2.0, lambda v: v * 2.0),
        (
            "exp(x)*2+x/3-1, 1e7",
            lambda m, v: m.exp(v) * 2 + v / 3 - 1,
            lambda v: np.exp(v) * 2 + v / 3 - 1,
        ),
    ]:
        f = oxtensor.function([x], build(ot, x))
        g = pytensor_fn(lambda pt, build=build: ([v := pt.dvector("x")], build(pt, v)))
        jf = jax_fn(lambda v, build=build: build(jnp, v)) if jax_mod else None
        others = {
            "numpy": best(lambda ref=ref: ref(a), 5),
            "pytensor": timed(g, a, number=5),
            "jax": jax_timed(jf, a, number=5),
        }
        row(label, best(lambda f=f: f(a), 5), others)


def transposed() -> None:
    m = np.random.default_rng(0).random((4000, 4000))
    mf = np.asfortranarray(m)
    x = ot.dmatrix("x")
    for label, build, arg in [
        ("x.T*2+1, 4000^2", lambda v: v.T * 2 + 1, m),
        ("x.T*2, 4000^2", lambda v: v.T * 2, m),
        ("x*2, 4000^2 F-ordered", lambda v: v * 2, mf),
    ]:
        f = oxtensor.function([x], build(x))
        g = pytensor_fn(lambda pt, build=build: ([v := pt.dmatrix("x")], build(v)))
        jf = jax_fn(build) if jax_mod else None
        others = {
            "numpy": best(lambda build=build, arg=arg: build(arg), 10),
            "pytensor": timed(g, arg, number=10),
            "jax": jax_timed(jf, arg, number=10),
        }
        row(label, best(lambda f=f, arg=arg: f(arg), 10), others)


def reductions() -> None:
    m = np.random.default_rng(0).random((4000, 4000))
    x = ot.dmatrix("x")
    for axis in (0, 1, None):
        f = oxtensor.function([x], x.sum(axis=axis))
        g = pytensor_fn(
            lambda pt, axis=axis: ([v := pt.dmatrix("x")], v.sum(axis=axis))
        )
        jf = jax_fn(lambda v, axis=axis: v.sum(axis=axis)) if jax_mod else None
        others = {
            "numpy": best(lambda axis=axis: m.sum(axis=axis), 10),
            "pytensor": timed(g, m, number=10),
            "jax": jax_timed(jf, m, number=10),
        }
        row(f"sum axis={axis}, 4000^2", best(lambda f=f: f(m), 10), others)


def matmul() -> None:
    """GFLOP/s of ``x @ x`` with the engine oxtensor picked (see
    ``oxtensor.tensor.blas.engines()``), with faer, its own, and with the
    OpenBLAS NumPy loaded (when there is one)."""
    rng = np.random.default_rng(0)
    mode = blas.blas_mode()
    print(f"matmul engine: {blas.blas_name() or 'faer'} ({blas.engines()['machine']})")
    for n in (1024, 2048):
        for dtype in ("float32", "float64"):
            a = rng.random((n, n)).astype(dtype)
            x = ot.matrix("x", dtype=dtype)
            f = oxtensor.function([x], x @ x)
            g = pytensor_fn(
                lambda pt, dtype=dtype: ([v := pt.matrix("x", dtype=dtype)], v @ v)
            )
            jf = jax_fn(lambda v: v @ v) if jax_mod else None
            flops = 2 * n**3
            ox = best(lambda f=f, a=a: f(a), 3, 3)
            engines = {}
            for name in ("faer", "numpy"):
                try:
                    blas.use_blas(name)
                except RuntimeError:  # no OpenBLAS in this process
                    continue
                engines[name] = best(lambda f=f, a=a: f(a), 3, 3)
            blas.use_blas(mode)
            times = {
                "numpy": best(lambda a=a: a @ a, 3, 3),
                "pytensor": timed(g, a, number=3),
                "jax": jax_timed(jf, a, number=3),
            }
            gflops = ", ".join(
                f"{k} {flops / t / 1e9:.0f}" for k, t in times.items() if t
            )
            ours = f"oxtensor {flops / ox / 1e9:6.1f} GFLOP/s"
            ratio = f"x{times['numpy'] / ox:.2f} NumPy"
            each = ", ".join(
                f"on {k} {flops / t / 1e9:.0f} (x{times['numpy'] / t:.2f})"
                for k, t in engines.items()
            )
            line = f"matmul {n} {dtype:<8} {ours} {ratio}, {each} | {gflops}"
            print(line, flush=True)


def main() -> None:
    report_skipped()
    call_overhead()
    elementwise()
    transposed()
    reductions()
    matmul()


if __name__ == "__main__":
    main()
