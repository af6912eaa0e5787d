"""Graph-building cost: a long elementwise chain built from Python.

``y = y * 1.0001 + x`` is repeated ``ITERATIONS`` times with ``x`` a float64
vector, in oxtensor, PyTensor and JAX (``jax.make_jaxpr`` tracing the same
Python loop), all in this process. Each iteration makes two elementwise nodes
(one Mul, one Add), so the chain has ``2 * ITERATIONS`` of them; "µs/node" is
the build time divided by that count. The ``ExpandDims`` that oxtensor and
PyTensor insert to broadcast the constant, and the constant itself, are built
inside the timed loop but not counted; JAX records the scalar as a literal
operand, so it has no such node. The table reports every system's own node
count so the reader can check.

Timing is the best of ``REPEATS`` runs (``time.perf_counter``), each on a fresh
graph after a ``gc.collect()``. The cyclic collector is paused while a build is
timed, for every system alike: its collections of the growing graph are
noise here (they dominate a build with it on, for every system). Ratios are
``other / oxtensor``: above 1 means oxtensor builds faster.
"""

import gc
import importlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ITERATIONS = 5_000
ELEMWISE_NODES = 2 * ITERATIONS
REPEATS = 10
FACTOR = 1.0001


@dataclass
class Result:
    """One system's outcome: a time and node counts, or why it was skipped."""

    name: str
    version: str = ""
    seconds: float = 0.0
    elemwise: int = 0
    total: int = 0
    skipped: str = ""


def best_of(build: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of ``REPEATS`` calls, and the last result (for counting)."""
    best, out = float("inf"), None
    for _ in range(REPEATS):
        out = None
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            out = build()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best, out


def count_nodes(output: Any, elemwise_ops: tuple[str, ...]) -> tuple[int, int]:
    """``(elemwise, all)`` apply nodes below ``output``, walking ``owner.inputs``.

    Works for oxtensor and PyTensor alike (same graph API); iterative, since
    the chain is deeper than Python's recursion limit.
    """
    seen: set[int] = set()
    stack, elemwise, total = [output], 0, 0
    while stack:
        node = stack.pop().owner
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        total += 1
        scalar = getattr(node.op, "scalar_op", None)
        elemwise += type(scalar).__name__ in elemwise_ops
        stack.extend(node.inputs)
    return elemwise, total


def chain(x: Any) -> Any:
    """The benchmark's graph, on any array-like API."""
    y = x
    for _ in range(ITERATIONS):
        y = y * FACTOR + x
    return y


def bench_oxtensor() -> Result:
    import oxtensor
    import oxtensor.tensor as ot

    seconds, y = best_of(lambda: chain(ot.dvector("x")))
    elemwise, total = count_nodes(y, ("Mul", "Add"))
    return Result("oxtensor", oxtensor.__version__, seconds, elemwise, total)


def bench_pytensor() -> Result:
    import pytensor
    import pytensor.tensor as pt

    seconds, y = best_of(lambda: chain(pt.dvector("x")))
    elemwise, total = count_nodes(y, ("Mul", "Add"))
    return Result("pytensor", pytensor.__version__, seconds, elemwise, total)


def bench_jax() -> Result:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    spec = jax.ShapeDtypeStruct((8,), jnp.float64)

    def trace() -> Any:
        # A new function object each time, so no tracing cache can be hit.
        def f(x: Any) -> Any:
            return chain(x)

        return jax.make_jaxpr(f)(spec)

    seconds, closed = best_of(trace)
    eqns = closed.jaxpr.eqns
    elemwise = sum(e.primitive.name in ("mul", "add") for e in eqns)
    return Result("jax", jax.__version__, seconds, elemwise, len(eqns))


def run(name: str, bench: Callable[[], Result], module: str) -> Result:
    """Run one system's benchmark, or say why it was skipped."""
    try:
        importlib.import_module(module)
    except ImportError as err:
        why = f"{module} is not installed ({err}); `make bench` installs it"
        return Result(name, skipped=why)
    except Exception as err:  # a broken install must not stop the others
        return Result(name, skipped=f"importing {module} failed: {err!r}")
    return bench()


def us_per_node(r: Result) -> float:
    return r.seconds / ELEMWISE_NODES * 1e6


def report(results: list[Result]) -> None:
    """Print the table and the ratios against oxtensor."""
    print(f"graph build: y = y * {FACTOR} + x, x a dvector, {ITERATIONS:,} iterations")
    print(f"  = {ELEMWISE_NODES:,} elementwise nodes (Mul, Add); best of {REPEATS}")
    print(f"  python {sys.version.split()[0]}")
    header = f"  {'system':<10}{'version':<10}{'µs/node':>10}{'total ms':>10}"
    print(header + f"{'elemwise':>10}{'all nodes':>11}")
    for r in results:
        if r.skipped:
            print(f"  {r.name:<10}skipped: {r.skipped}")
            continue
        print(
            f"  {r.name:<10}{r.version:<10}{us_per_node(r):>10.2f}"
            f"{r.seconds * 1e3:>10.1f}{r.elemwise:>10,}{r.total:>11,}"
        )
    base = results[0]
    for r in results[1:]:
        if not r.skipped:
            print(f"  ratio {r.name}/oxtensor = {r.seconds / base.seconds:.1f}")
    check_counts(results)


def check_counts(results: list[Result]) -> None:
    """Fail loudly if a system built a different chain than the one timed."""
    for r in results:
        if not r.skipped and r.elemwise != ELEMWISE_NODES:
            want = ELEMWISE_NODES
            sys.exit(f"{r.name} built {r.elemwise} elementwise nodes, not {want}")


def main() -> None:
    # oxtensor is the baseline, so it is never skipped: a failure is an error.
    results = [
        bench_oxtensor(),
        run("pytensor", bench_pytensor, "pytensor"),
        run("jax", bench_jax, "jax"),
    ]
    report(results)


if __name__ == "__main__":
    main()
