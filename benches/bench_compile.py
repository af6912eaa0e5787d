"""Compile time with the full ``FAST_RUN`` pipeline, beside PyTensor and JAX.

The graph is built first (not timed); the timed part is ``function(...)``
(oxtensor, PyTensor: rewriting and linking) or ``jax.jit(f).lower(...)
.compile()`` (JAX: tracing and XLA compilation), each the best of a few
runs in this process. Graphs:

- an elementwise chain ``y = y * 1.0001 + x`` of 1,000 and 5,000 nodes;
- an MLP's loss, gradient and SGD updates (two layers, softmax
  cross-entropy);
- 500 independent small expressions (``exp(x_i * 2 + 1)``, one output each);
- the chain at 1k, 10k and 100k nodes for oxtensor alone, printing the cost
  per node: compile time should grow linearly;
- the share of oxtensor's compile time the inplace phase takes on the
  graphs above (at most 10% is the target), and its cost per validated
  candidate at 1k, 10k and 100k nodes with fusion off.

Ratios are ``other / oxtensor``: above 1 means oxtensor compiles faster.
PyTensor runs on Numba when it imports, else on its VM linker (the same
rewrites). A system that cannot be imported is reported as skipped.
"""

import gc
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

REPEATS = 3


def best(compile_once: Callable[[], Any], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        compile_once()
        times.append(time.perf_counter() - start)
    return min(times)


def chain(x: Any, nodes: int) -> Any:
    y = x
    for _ in range(nodes // 2):
        y = y * 1.0001 + x
    return y


def mlp(lib: Any, T: Any, rng: np.random.Generator) -> tuple[list[Any], Any, Any]:
    X, labels = T.dmatrix("X"), T.lvector("labels")
    params = [
        lib.shared(rng.normal(0, 0.1, (64, 32)), name="W1"),
        lib.shared(np.zeros(32), name="b1"),
        lib.shared(rng.normal(0, 0.1, (32, 10)), name="W2"),
        lib.shared(np.zeros(10), name="b2"),
    ]
    W1, b1, W2, b2 = params
    p = T.special.softmax(T.tanh(X @ W1 + b1) @ W2 + b2, axis=-1)
    loss = -T.mean(T.log(p)[T.arange(labels.shape[0]), labels])
    grads = lib.grad(loss, params)
    updates = [(v, v - 0.1 * g) for v, g in zip(params, grads, strict=True)]
    return [X, labels], loss, updates


def independent(T: Any, n: int) -> tuple[list[Any], list[Any]]:
    xs = [T.dvector(f"x{i}") for i in range(n)]
    return xs, [T.exp(x * 2.0 + 1.0) for x in xs]


Result = dict[str, float | str]


def timed(
    out: Result, case: str, compile_once: Callable[[], Any], fails_ok: bool
) -> None:
    """Records the best compile time of ``case``; for a system other than
    oxtensor, an exception (PyTensor's ``RecursionError`` on deep graphs)
    is its result, printed in place of the time."""
    try:
        out[case] = best(compile_once)
    except Exception as err:
        if not fails_ok:
            raise
        out[case] = type(err).__name__


def graph_cases(lib: Any, T: Any, mode: Any, fails_ok: bool = False) -> Result:
    """Compile seconds for each case, with this system's ``function``."""
    rng = np.random.default_rng(0)
    out: Result = {}
    for nodes in (1000, 5000):
        x = T.dvector("x")
        y = chain(x, nodes)
        compile_chain = lambda x=x, y=y: lib.function([x], y, mode=mode)  # noqa: E731
        timed(out, f"chain {nodes:,}", compile_chain, fails_ok)
    inputs, loss, updates = mlp(lib, T, rng)
    compile_mlp = lambda: lib.function(inputs, loss, updates=updates, mode=mode)  # noqa: E731
    timed(out, "MLP loss+grad+SGD", compile_mlp, fails_ok)
    xs, ys = independent(T, 500)
    timed(out, "500 expressions", lambda: lib.function(xs, ys, mode=mode), fails_ok)
    return out


def cell(value: float | str) -> str:
    return f"{value * 1e3:>12.2f}" if isinstance(value, float) else f"{value:>18}"


def jax_cases() -> Result:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    spec = jax.ShapeDtypeStruct((1000,), jnp.float64)
    out: Result = {}
    for nodes in (1000, 5000):

        def compile_chain(nodes: int = nodes) -> Any:
            return jax.jit(lambda x: chain(x, nodes)).lower(spec).compile()

        out[f"chain {nodes:,}"] = best(compile_chain)
    specs = [spec] * 500

    def compile_many() -> Any:
        f = jax.jit(lambda *xs: [jnp.exp(x * 2.0 + 1.0) for x in xs])
        return f.lower(*specs).compile()

    out["500 expressions"] = best(compile_many)
    return out


def scaling() -> None:
    """oxtensor's per-node compile cost as the chain grows."""
    import oxtensor
    import oxtensor.tensor as ot

    print("  oxtensor chain scaling (compile time per elementwise node):")
    for nodes in (1_000, 10_000, 100_000):
        x = ot.dvector("x")
        y = chain(x, nodes)
        seconds = best(lambda x=x, y=y: oxtensor.function([x], y), repeats=1)
        print(
            f"    {nodes:>7,} nodes  {seconds * 1e3:>9.1f} ms"
            f"  {seconds / nodes * 1e6:>6.2f} µs/node"
        )


def inplace_share() -> None:
    """The share of oxtensor's compile time the inplace phase takes on the
    anchor graphs (its passes' time in the rewrite profile, best of a few
    compilations, over the whole ``function(...)`` time)."""
    import oxtensor
    import oxtensor.tensor as ot

    rng = np.random.default_rng(0)
    x = ot.dvector("x")
    cases: dict[str, tuple[list[Any], Any, Any]] = {
        "chain 1,000": ([x], chain(x, 1000), None),
        "chain 5,000": ([x], chain(x, 5000), None),
        "MLP loss+grad+SGD": mlp(oxtensor, ot, rng),
    }
    xs, ys = independent(ot, 500)
    cases["500 expressions"] = (xs, ys, None)
    print("  inplace phase share of oxtensor's FAST_RUN compile time:")
    for name, (ins, outs, updates) in cases.items():
        shares = []
        for _ in range(REPEATS):
            gc.collect()
            start = time.perf_counter()
            f = oxtensor.function(ins, outs, updates=updates)
            total = time.perf_counter() - start
            passes = f.maker.fgraph.rewrite_profile.passes
            phase = sum(t for (p, t, _, _) in passes if p.startswith("inplace_"))
            shares.append((phase, total))
        phase, total = min(shares, key=lambda s: s[1])
        print(
            f"    {name:<22} {phase * 1e3:>8.2f} of {total * 1e3:>8.2f} ms"
            f"  {100 * phase / total:>5.1f}%"
        )


def inplace_scaling() -> None:
    """The inplace phase's cost per candidate at 1k, 10k and 100k nodes:
    with fusion off every node of the chain is an elementwise candidate
    that the DestroyHandler validates (the phase's passes' time in the
    rewrite profile over the number of nodes it made inplace)."""
    import oxtensor
    import oxtensor.tensor as ot
    from oxtensor.compile.mode import get_mode

    mode = get_mode("FAST_RUN").excluding("fusion")
    print("  inplace phase per candidate (fusion off: every node a candidate):")
    for nodes in (1_000, 10_000, 100_000):
        x = ot.dvector("x")
        f = oxtensor.function([x], chain(x, nodes), mode=mode)
        passes = f.maker.fgraph.rewrite_profile.passes
        phase = sum(t for (p, t, _, _) in passes if p.startswith("inplace_"))
        done = sum(1 for n in f.maker.fgraph.apply_nodes if n.op.destroy_map)
        print(
            f"    {nodes:>7,} nodes  {phase * 1e3:>9.2f} ms for {done:>7,} inplace"
            f"  {phase / max(done, 1) * 1e6:>7.2f} µs/candidate"
        )


def pytensor_mode(pytensor: Any) -> Any:
    try:
        import numba  # noqa: F401

        return "FAST_RUN"
    except ImportError:
        return pytensor.compile.mode.Mode(linker="vm", optimizer="fast_run")


def main() -> int:
    import oxtensor
    import oxtensor.tensor as ot

    results: dict[str, Result] = {"oxtensor": graph_cases(oxtensor, ot, "FAST_RUN")}
    try:
        import pytensor
        import pytensor.tensor as pt

        mode = pytensor_mode(pytensor)
        results["pytensor"] = graph_cases(pytensor, pt, mode, fails_ok=True)
    except ImportError as err:
        print(f"  pytensor skipped: {err}")
    try:
        results["jax"] = jax_cases()
    except ImportError as err:
        print(f"  jax skipped: {err}")
    print(f"compile time, FAST_RUN, best of {REPEATS} (ms)")
    systems = list(results)
    print(f"  {'graph':<22}" + "".join(f"{s:>12}" for s in systems) + "  ratios")
    for case, base in results["oxtensor"].items():
        cells = "".join(cell(results[s].get(case, "-")) for s in systems)
        ratios = ", ".join(
            f"{s}/oxtensor {results[s][case] / base:.0f}"
            for s in systems[1:]
            if isinstance(results[s].get(case), float) and isinstance(base, float)
        )
        print(f"  {case:<22}{cells}  {ratios}")
    scaling()
    inplace_share()
    inplace_scaling()
    return 0


if __name__ == "__main__":
    sys.exit(main())
