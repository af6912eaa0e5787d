"""One training step of a 784-256-256-10 MLP (ReLU, softmax cross-entropy,
plain SGD) on a batch of 128, in oxtensor, NumPy (forward and backward
written by hand), PyTensor and JAX, in this one process.

oxtensor and PyTensor compile the same graph: weights are shared variables,
``grad`` gives the gradients and ``updates`` applies the step. JAX runs a
``jax.jit`` of ``value_and_grad`` with the weights passed in and returned.
Every system starts from the same weights and batch; after one step the
first layer's weights are compared with NumPy's, so a wrong step shows.

Ratios are ``other / oxtensor`` times (above 1: oxtensor is faster).

Memory: for oxtensor's step, the bytes allocated per call, on the engine's
side (its count of tensor buffers made, ``_core._alloc_stats``) and on
NumPy's (``tracemalloc``'s peak over one call), and whether any array of a
weight's size (the first layer's, the largest) is made per call: with the
inplace phase the SGD update writes into the weights' own storage. Then,
for a 20-op elementwise chain on 1e6 float64 elements, how many arrays of
that size the engine holds at once during a warm call, its pool included
(``_core._live_bytes``' high-water mark), fused, unfused with the inplace
phase, and in FAST_COMPILE.
"""

import importlib
import itertools
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from bench_execution import best, jax_mod, pt_mod, report_skipped, row
from oxtensor import _core
from oxtensor.tensor import blas

SIZES = (784, 256, 256, 10)
BATCH = 128
RATE = 0.01
Params = list[tuple[np.ndarray, np.ndarray]]


def initial(dtype: str) -> tuple[Params, np.ndarray, np.ndarray]:
    """Weights, a batch of inputs and its one-hot labels."""
    rng = np.random.default_rng(0)
    params = [
        (
            (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(dtype),
            np.zeros(n_out, dtype),
        )
        for n_in, n_out in itertools.pairwise(SIZES)
    ]
    x = rng.standard_normal((BATCH, SIZES[0])).astype(dtype)
    y = np.eye(SIZES[-1], dtype=dtype)[rng.integers(0, SIZES[-1], BATCH)]
    return params, x, y


def numpy_step(params: Params, x: np.ndarray, y: np.ndarray) -> float:
    """Forward, backward and the SGD update, in place; the loss."""
    acts = [x]
    for w, b in params[:-1]:
        acts.append(np.maximum(acts[-1] @ w + b, 0))
    z = acts[-1] @ params[-1][0] + params[-1][1]
    z = z - z.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    loss = -(y * log_p).sum(axis=1).mean()
    delta = (np.exp(log_p) - y) / len(x)
    for i in range(len(params) - 1, -1, -1):
        w, b = params[i]
        grad_w, grad_b = acts[i].T @ delta, delta.sum(axis=0)
        if i:
            delta = (delta @ w.T) * (acts[i] > 0)
        w -= RATE * grad_w
        b -= RATE * grad_b
    return float(loss)


def graph_step(lib: Any, t: Any, special: Any, params: Params) -> tuple[Any, list[Any]]:
    """The step compiled by oxtensor or PyTensor (``lib`` with its
    ``tensor`` module ``t``): the function and its weight variables."""
    dtype = str(params[0][0].dtype)
    x, y = t.matrix("x", dtype=dtype), t.matrix("y", dtype=dtype)
    shared = [(lib.shared(w.copy()), lib.shared(b.copy())) for w, b in params]
    h = x
    for w, b in shared[:-1]:
        h = t.maximum(t.dot(h, w) + b, 0)
    w, b = shared[-1]
    log_p = special.log_softmax(t.dot(h, w) + b, axis=1)
    loss = -(y * log_p).sum(axis=1).mean()
    flat = [v for pair in shared for v in pair]
    grads = lib.grad(loss, flat)
    # A float constant is floatX (float64) in both libraries: keep float32.
    rate = t.constant(np.asarray(RATE, dtype))
    updates = [(v, v - rate * g) for v, g in zip(flat, grads, strict=True)]
    return lib.function([x, y], loss, updates=updates), flat


def jax_step(params: Params) -> tuple[Callable[..., Any], list[Any]]:
    """A jitted step taking and returning the weights."""
    assert jax_mod is not None
    jnp = importlib.import_module("jax.numpy")
    nn = importlib.import_module("jax.nn")

    def loss_of(flat: list[Any], x: Any, y: Any) -> Any:
        h = x
        for i in range(0, len(flat) - 2, 2):
            h = jnp.maximum(h @ flat[i] + flat[i + 1], 0)
        log_p = nn.log_softmax(h @ flat[-2] + flat[-1], axis=1)
        return -(y * log_p).sum(axis=1).mean()

    grad = jax_mod.value_and_grad(loss_of)

    @jax_mod.jit
    def step(flat: list[Any], x: Any, y: Any) -> tuple[list[Any], Any]:
        loss, grads = grad(flat, x, y)
        return [v - RATE * g for v, g in zip(flat, grads, strict=True)], loss

    flat = [jax_mod.device_put(a) for pair in params for a in pair]
    return step, flat


def memory_per_call(f: Callable[[], Any], weight_bytes: int, calls: int = 10) -> str:
    """What one call of ``f`` (already called once, so its pool is warm)
    allocates, as a line to print."""
    f()
    before = _core._alloc_stats(reset_largest=True)
    for _ in range(calls):
        f()
    after = _core._alloc_stats()
    tracemalloc.start()
    start, _ = tracemalloc.get_traced_memory()
    f()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    buffers = (after[0] - before[0]) / calls
    kib = (after[1] - before[1]) / calls / 1024
    largest, numpy_kib = after[3] / 1024, (peak - start) / 1024
    weight_sized = "yes" if after[3] >= weight_bytes else "no"
    return (
        f"  memory per call: engine {kib:.1f} KiB in {buffers:.1f} buffers "
        f"(largest {largest:.1f} KiB), NumPy side {numpy_kib:.1f} KiB; weight-sized "
        f"({weight_bytes / 1024:.0f} KiB) arrays made per call: {weight_sized}"
    )


def compare(dtype: str) -> None:
    params, x, y = initial(dtype)
    reference = [(w.copy(), b.copy()) for w, b in params]
    numpy_step(reference, x, y)
    tol = 1e-3 if dtype == "float32" else 1e-9

    def check(name: str, w1: np.ndarray) -> None:
        err = float(np.abs(w1 - reference[0][0]).max())
        if err > tol:
            raise AssertionError(f"{name}'s first step differs from NumPy's by {err}")

    f, flat = graph_step(
        oxtensor, ot, importlib.import_module("oxtensor.tensor.special"), params
    )
    f(x, y)
    check("oxtensor", flat[0].get_value())
    ours = best(lambda: f(x, y), 20)
    np_params = [(w.copy(), b.copy()) for w, b in params]
    others: dict[str, float | None] = {
        "numpy": best(lambda: numpy_step(np_params, x, y), 20)
    }
    others["pytensor"] = None
    if pt_mod is not None:
        pt = importlib.import_module("pytensor.tensor")
        special = importlib.import_module("pytensor.tensor.special")
        g, pt_flat = graph_step(pt_mod, pt, special, params)
        g(x, y)
        check("pytensor", pt_flat[0].get_value())
        others["pytensor"] = best(lambda: g(x, y), 20)
    others["jax"] = None
    if jax_mod is not None:
        step, state = jax_step(params)
        jx, jy = jax_mod.device_put(x), jax_mod.device_put(y)
        first, _ = step(state, jx, jy)
        check("jax", np.asarray(first[0]))
        holder = [state]

        def jax_call() -> None:
            holder[0], loss = step(holder[0], jx, jy)
            jax_mod.block_until_ready(loss)

        others["jax"] = best(jax_call, 20)
    row(f"MLP step {dtype}", ours, others)
    print(memory_per_call(lambda: f(x, y), params[0][0].nbytes))


def chain_peak_arrays() -> None:
    """Peak arrays held during a call of a 20-op elementwise chain."""
    x = ot.dvector("x")
    y = x
    steps = [ot.exp, lambda v: v * 1.5, lambda v: v + 2.0, ot.neg, ot.sqr]
    for k in range(20):
        y = steps[k % len(steps)](y)
    arg = np.random.default_rng(0).uniform(-1.0, 1.0, 1_000_000)
    unfused = oxtensor.compile.mode.get_mode("FAST_RUN").excluding("fusion")
    peaks = []
    for mode in ("FAST_RUN", unfused, "FAST_COMPILE"):
        base = _core._live_bytes()[0]
        f = oxtensor.function([x], y, mode=mode)
        f(arg)
        _core._live_bytes(reset_peak=True)
        out = f(arg)
        peaks.append((_core._live_bytes()[1] - base) / arg.nbytes)
        del out, f
    print(
        "20-op elementwise chain, 1e6 float64: arrays held at peak per call: "
        f"fused {peaks[0]:.2f}, unfused with inplace {peaks[1]:.2f}, "
        f"FAST_COMPILE {peaks[2]:.2f}"
    )


def main() -> None:
    report_skipped()
    engine = f"{blas.blas_name() or 'faer'} ({blas.engines()['machine']})"
    print(f"784-256-256-10 MLP, batch {BATCH}, SGD step; matmul engine: {engine}")
    for dtype in ("float64", "float32"):
        compare(dtype)
    chain_peak_arrays()


if __name__ == "__main__":
    main()
