"""What the rewrite system makes of everyday graphs, beside PyTensor.

Each graph below is built with the same code for oxtensor and PyTensor 3.x
(``T`` is ``oxtensor.tensor`` or ``pytensor.tensor``) and compiled with
``FAST_RUN`` in this process. The table prints, per graph and system: the
apply nodes of the compiled graph (``len(f.maker.fgraph.apply_nodes)``;
PyTensor's count includes its ``DeepCopyOp`` output copies, oxtensor copies
aliasing outputs at call time instead), whether the values at extreme inputs
are finite and within 1e-6 of the exact ones (``stable``), and the call time
(best of ``REPEATS``). Both systems must agree on ordinary inputs; a graph
where they do not is reported, and the run fails.

PyTensor's ``FAST_RUN`` links with Numba when it is installed; without it the
VM linker runs the same rewrites (the linker does not change the graph).
"""

import importlib
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

REPEATS = 50
RNG = np.random.default_rng(0)


@dataclass
class Case:
    """A graph: how to build it, ordinary and extreme arguments, and the
    exact values at the extreme arguments (``None``: no extreme case)."""

    name: str
    build: Callable[[Any, Any], tuple[list[Any], list[Any], dict[Any, Any]]]
    args: list[np.ndarray]
    extreme: list[np.ndarray] | None = None
    exact: list[np.ndarray] | None = None


def readme(lib: Any, T: Any) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    x, b = T.dmatrix("x"), T.dvector("b")
    return [x, b], [T.exp(x * 2.0 + b).sum(axis=1)], {}


def softplus(lib: Any, T: Any) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    x = T.dvector("x")
    return [x], [T.log(1 + T.exp(x))], {}


def logistic(lib: Any, T: Any) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    X, y, w = T.dmatrix("X"), T.dvector("y"), T.dvector("w")
    p = T.sigmoid(X @ w)
    loss = -(y * T.log(p) + (1 - y) * T.log(1 - p)).mean()
    return [X, y, w], [loss, lib.grad(loss, w)], {}


def mlp_step(lib: Any, T: Any) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    X, labels = T.dmatrix("X"), T.lvector("labels")
    W1 = lib.shared(RNG.normal(0, 0.1, (64, 32)), name="W1")
    b1 = lib.shared(np.zeros(32), name="b1")
    W2 = lib.shared(RNG.normal(0, 0.1, (32, 10)), name="W2")
    b2 = lib.shared(np.zeros(10), name="b2")
    h = T.tanh(X @ W1 + b1)
    p = T.special.softmax(h @ W2 + b2, axis=-1)
    loss = -T.mean(T.log(p)[T.arange(labels.shape[0]), labels])
    params = [W1, b1, W2, b2]
    grads = lib.grad(loss, params)
    updates = [(v, v - 0.1 * g) for v, g in zip(params, grads, strict=True)]
    return [X, labels], [loss], {"updates": updates}


def variance(lib: Any, T: Any) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    x = T.dmatrix("x")
    return [x], [x.var(axis=0)], {}


def mul_div(lib: Any, T: Any) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    x, y = T.dvector("x"), T.dvector("y")
    return [x, y], [x * y / y], {}


def normal_logp(lib: Any, T: Any) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    data, mu, log_sigma = T.dvector("data"), T.dscalar("mu"), T.dscalar("log_sigma")
    sigma = T.exp(log_sigma)
    z = (data - mu) / sigma
    logp = (-0.5 * z**2 - T.log(sigma) - 0.5 * math.log(2 * math.pi)).sum()
    return [data, mu, log_sigma], [logp, *lib.grad(logp, [mu, log_sigma])], {}


def _logistic_exact(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
    z = X @ w
    # -log(sigmoid(z)) = softplus(-z), -log(1 - sigmoid(z)) = softplus(z).
    loss = (y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)).mean()
    grad = X.T @ (1 / (1 + np.exp(-z)) - y) / len(y)
    return [np.asarray(loss), grad]


X_LOG = RNG.normal(size=(200, 5))
Y_LOG = (RNG.random(200) > 0.5).astype(float)
W_BIG = np.full(5, 300.0)
DATA = RNG.normal(1.0, 2.0, 1000)

CASES = [
    Case("README example", readme, [RNG.normal(size=(100, 30)), RNG.normal(size=30)]),
    Case(
        "log(1 + exp(x))",
        softplus,
        [RNG.normal(size=1000)],
        [np.array([-800.0, 0.0, 800.0])],
        [np.array([0.0, math.log(2.0), 800.0])],
    ),
    Case(
        "logistic loss + grad",
        logistic,
        [X_LOG, Y_LOG, RNG.normal(size=5)],
        [X_LOG, Y_LOG, W_BIG],
        _logistic_exact(X_LOG, Y_LOG, W_BIG),
    ),
    Case(
        "MLP SGD step", mlp_step, [RNG.normal(size=(128, 64)), RNG.integers(0, 10, 128)]
    ),
    Case("var(x, axis=0)", variance, [RNG.normal(size=(500, 40))]),
    Case("x * y / y", mul_div, [RNG.normal(size=1000), RNG.normal(size=1000)]),
    Case(
        "normal logp + grad",
        normal_logp,
        [DATA, np.array(1.0), np.array(0.5)],
    ),
]


@dataclass
class Outcome:
    """One system on one case."""

    nodes: int = 0
    stable: str = "-"
    seconds: float = 0.0
    values: list[np.ndarray] = field(default_factory=list)
    error: str = ""


def best_time(f: Callable[..., Any], args: list[np.ndarray]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        f(*args)
        best = min(best, time.perf_counter() - start)
    return best


def stability(f: Callable[..., Any], case: Case) -> str:
    if case.extreme is None or case.exact is None:
        return "-"
    with np.errstate(all="ignore"):
        got = f(*case.extreme)
    got = got if isinstance(got, list) else [got]
    for g, want in zip(got, case.exact, strict=True):
        g = np.asarray(g)
        if not np.all(np.isfinite(g)):
            return "no (inf/nan)"
        if not np.allclose(g, want, rtol=1e-6, atol=1e-6):
            return "no (wrong)"
    return "yes"


def measure(lib: Any, T: Any, mode: Any, case: Case) -> Outcome:
    try:
        inputs, outputs, kwargs = case.build(lib, T)
        f = lib.function(inputs, outputs, mode=mode, **kwargs)
    except Exception as err:  # a system that cannot build a case is reported
        return Outcome(error=f"{type(err).__name__}: {err}"[:60])
    out = Outcome(nodes=len(f.maker.fgraph.apply_nodes))
    out.stable = stability(f, case)
    if "updates" not in kwargs:
        values = f(*case.args)
        out.values = values if isinstance(values, list) else [values]
    out.seconds = best_time(f, case.args)
    return out


def pytensor_mode(pytensor: Any) -> Any:
    """FAST_RUN, on Numba when it imports, else on the VM linker."""
    try:
        importlib.import_module("numba")
        return "FAST_RUN"
    except ImportError:
        return pytensor.compile.mode.Mode(linker="vm", optimizer="fast_run")


def systems() -> list[tuple[str, Any, Any, Any]]:
    import oxtensor
    import oxtensor.tensor as ot

    found = [("oxtensor", oxtensor, ot, "FAST_RUN")]
    try:
        import pytensor
        import pytensor.tensor as pt
    except ImportError as err:
        print(f"  pytensor skipped: {err}; `make bench` installs it")
        return found
    found.append(("pytensor", pytensor, pt, pytensor_mode(pytensor)))
    return found


def main() -> int:
    print(f"compiled graphs, FAST_RUN; call time best of {REPEATS}")
    rows = systems()
    names = [n for n, *_ in rows]
    head = "".join(f"{n + ' nodes':>16}{'stable':>14}{'µs/call':>11}" for n in names)
    print(f"  {'graph':<24}{head}")
    failed = False
    for case in CASES:
        results = [measure(lib, T, mode, case) for _, lib, T, mode in rows]
        cells = ""
        for r in results:
            if r.error:
                cells += f"{'error: ' + r.error:>41}"
            else:
                cells += f"{r.nodes:>16}{r.stable:>14}{r.seconds * 1e6:>11.1f}"
        print(f"  {case.name:<24}{cells}")
        ok = [r for r in results if not r.error and r.values]
        if len(ok) == 2 and not all(
            np.allclose(a, b, rtol=1e-9, atol=1e-12)
            for a, b in zip(ok[0].values, ok[1].values, strict=True)
        ):
            print(f"  !! {case.name}: the systems' values differ")
            failed = True
        if results[0].error:
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
