"""Gradient-building cost: `grad` of a 5,000-node elementwise chain and of an
MLP loss, in oxtensor and PyTensor, in this process.

The chain is ``y = tanh(y * w + x)`` repeated ``ITERATIONS`` times over float64
vectors (three elementwise nodes per step) and summed; the MLP loss is a
two-layer tanh network with a squared error, differentiated with respect to
its four parameters. Only ``grad`` is timed: each system builds its forward
graph first, untimed. Timing is the best of ``REPEATS`` runs with the cyclic
collector paused, as in ``bench_graph_build.py``. Ratios are
``PyTensor / oxtensor``: above 1 means oxtensor is faster.
"""

import gc
import importlib
import sys
import time
from collections.abc import Callable
from typing import Any

ITERATIONS = 1_700
REPEATS = 3


def best_of(make: Callable[[], Callable[[], Any]]) -> float:
    """The fastest of ``REPEATS`` timed calls, each on a freshly built graph."""
    best = float("inf")
    for _ in range(REPEATS):
        run = make()
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def chain(t: Any, gradient: Any) -> Callable[[], Callable[[], Any]]:
    """``grad`` of the elementwise chain, for a module with PyTensor's API."""

    def make() -> Callable[[], Any]:
        x, w = t.dvector("x"), t.dvector("w")
        y = x
        for _ in range(ITERATIONS):
            y = t.tanh(y * w + x)
        cost = y.sum()
        return lambda: gradient.grad(cost, [x, w])

    return make


def mlp(t: Any, gradient: Any) -> Callable[[], Callable[[], Any]]:
    """``grad`` of a two-layer MLP's squared error."""

    def make() -> Callable[[], Any]:
        x, target = t.dmatrix("x"), t.dmatrix("target")
        w1, b1 = t.dmatrix("w1"), t.dvector("b1")
        w2, b2 = t.dmatrix("w2"), t.dvector("b2")
        hidden = t.tanh(t.dot(x, w1) + b1)
        out = t.dot(hidden, w2) + b2
        loss = ((out - target) ** 2).mean()
        return lambda: gradient.grad(loss, [w1, b1, w2, b2])

    return make


def load(name: str) -> tuple[Any, Any] | str:
    """A library's tensor and gradient modules, or why it is unavailable."""
    try:
        return importlib.import_module(f"{name}.tensor"), importlib.import_module(
            f"{name}.gradient"
        )
    except Exception as e:  # any import failure skips the system
        return f"{type(e).__name__}: {e}"


def main() -> int:
    # PyTensor's gradient recurses once per node of the chain.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 50 * ITERATIONS))
    systems = {name: load(name) for name in ("oxtensor", "pytensor")}
    ours = systems["oxtensor"]
    if isinstance(ours, str):
        print(f"oxtensor unavailable: {ours}")
        return 1
    print(f"grad of a {3 * ITERATIONS}-node elementwise chain and of an MLP loss")
    print(f"{'case':<8}{'system':<11}{'ms':>10}{'PyTensor/oxtensor':>20}")
    for case, build in (("chain", chain), ("mlp", mlp)):
        times = {}
        for name, mods in systems.items():
            if isinstance(mods, str):
                print(f"{case:<8}{name:<11}{'skipped: ' + mods[:60]}")
                continue
            times[name] = best_of(build(*mods))
        for name, secs in times.items():
            ratio = times[name] / times["oxtensor"]
            print(f"{case:<8}{name:<11}{secs * 1e3:>10.2f}{ratio:>20.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
