"""`verify_grad`: symbolic gradients checked against finite differences
along random projections, as `pytensor.gradient.verify_grad` does."""

import dataclasses
from typing import Any

import numpy as np

# Default tolerances and finite-difference steps per dtype (PyTensor's).
_TOLERANCE = {"float16": 5e-2, "float32": 1e-2, "float64": 1e-4}
_EPS = {"float16": 1e-1, "float32": 3e-4, "float64": 1e-7}


# A record of where the check failed; ``eq=False`` keeps exceptions
# compared (and hashed) by identity.
@dataclasses.dataclass(eq=False)
class GradientError(Exception):
    """The analytic and numeric gradients disagree beyond the tolerances."""

    arg: int
    err_pos: int
    shape: tuple[int, ...]
    val1: float
    val2: float
    abs_err: float
    rel_err: float
    abs_tol: float
    rel_tol: float

    def __str__(self) -> str:
        return (
            "GradientError: numeric gradient and analytic gradient exceed tolerance:\n"
            f"        At position {self.err_pos} of argument {self.arg} with shape "
            f"{self.shape},\n"
            f"            val1 = {self.val1:f}      ,  val2 = {self.val2:f}\n"
            f"            abs. error = {self.abs_err:f},  "
            f"abs. tolerance = {self.abs_tol:f}\n"
            f"            rel. error = {self.rel_err:f},  "
            f"rel. tolerance = {self.rel_tol:f}"
        )


class numeric_grad:  # PyTensor's class name
    """Central finite differences of a scalar function of arrays."""

    #: The default step per dtype (PyTensor's attribute, read by its tests).
    type_eps = _EPS

    def __init__(self, f: Any, pt: list[np.ndarray], eps: float | None = None) -> None:
        self.gf = []
        for i, p in enumerate(pt):
            step = eps if eps is not None else _EPS.get(str(p.dtype), 1e-7)
            g = np.zeros(p.shape, dtype="float64")
            flat = g.reshape(-1)
            for k in range(p.size):
                plus = [q.copy() for q in pt]
                minus = [q.copy() for q in pt]
                plus[i].reshape(-1)[k] += step
                minus[i].reshape(-1)[k] -= step
                flat[k] = (float(f(*plus)) - float(f(*minus))) / (2 * step)
            self.gf.append(g)

    @staticmethod
    def abs_rel_err(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Elementwise absolute and relative errors."""
        abs_err = np.abs(a - b)
        rel_err = abs_err / np.maximum(np.abs(a) + np.abs(b), 1e-8)
        return abs_err, rel_err

    def max_err(
        self, g_pt: list[np.ndarray], abs_tol: float, rel_tol: float
    ) -> tuple[int, int, float, float]:
        """The argument and flat position where both errors exceed their
        tolerances the most, with those errors."""
        worst = (-1.0, 0, 0, 0.0, 0.0)
        for arg, (a, b) in enumerate(zip(g_pt, self.gf, strict=True)):
            if a.shape != b.shape:
                raise ValueError(
                    f"argument {arg}: analytic gradient has shape {a.shape}, "
                    f"numeric gradient {b.shape}"
                )
            if a.size == 0:
                continue
            abs_err, rel_err = self.abs_rel_err(np.asarray(a, "float64"), b)
            score = np.minimum(abs_err / abs_tol, rel_err / rel_tol).reshape(-1)
            pos = int(np.argmax(score))
            if score[pos] > worst[0]:
                worst = (
                    float(score[pos]),
                    arg,
                    pos,
                    float(abs_err.reshape(-1)[pos]),
                    float(rel_err.reshape(-1)[pos]),
                )
        return worst[1], worst[2], worst[3], worst[4]


def verify_grad(
    fun: Any,
    pt: list[Any],
    n_tests: int = 2,
    rng: Any = None,
    eps: float | None = None,
    out_type: Any = None,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
    mode: Any = None,
    cast_to_output_type: bool = False,
    no_debug_ref: bool = True,
) -> None:
    """Checks ``grad`` of ``fun`` at the point ``pt`` (a list of arrays)
    against finite differences of ``sum(t_r * fun(*pt))`` for random
    projections ``t_r``; raises `GradientError` with the worst mismatch."""
    import oxtensor
    from oxtensor import gradient
    from oxtensor.tensor.type import TensorType

    del out_type, cast_to_output_type, no_debug_ref
    if not isinstance(pt, (list, tuple)):
        raise TypeError("verify_grad needs pt to be a list or tuple of arrays")
    pt = [np.array(p) for p in pt]
    for i, p in enumerate(pt):
        if p.dtype.kind != "f":
            raise TypeError(
                "verify_grad can work only with floating point inputs, "
                f"but input {i} has dtype {p.dtype}."
            )
    rng = rng if rng is not None else np.random.default_rng()
    dtypes = [str(p.dtype) for p in pt]
    worst_dtype = (
        "float16"
        if "float16" in dtypes
        else "float32"
        if "float32" in dtypes
        else "float64"
    )
    abs_tol = abs_tol if abs_tol is not None else _TOLERANCE[worst_dtype]
    rel_tol = rel_tol if rel_tol is not None else _TOLERANCE[worst_dtype]
    # As PyTensor: an input's length-1 axes are static (broadcastable), the
    # others unknown, so ops that refuse runtime broadcasting see the values'
    # broadcast pattern.
    inputs = [
        TensorType(p.dtype, shape=tuple(1 if n == 1 else None for n in p.shape))(
            f"input {i}"
        )
        for i, p in enumerate(pt)
    ]
    out = fun(*inputs)
    if isinstance(out, (list, tuple)):
        raise NotImplementedError(
            "cant (yet) autotest gradient of fun with multiple outputs"
        )

    # `fun` may build inplace ops (PyTensor's verify_grad accepts them): each
    # call below gets fresh copies of the point, which they may overwrite.
    def compile_(outputs: Any) -> Any:
        return oxtensor.function(
            inputs, outputs, mode=mode, on_unused_input="ignore", accept_inplace=True
        )

    f_out = compile_(out)
    value = np.asarray(f_out(*[p.copy() for p in pt]))
    proj = oxtensor.shared(_projection(rng, value), name="random_projection")
    cost = (proj * out).sum()
    cost_fn = compile_(cost)
    grads = gradient.grad(cost, inputs, disconnected_inputs="ignore")
    grad_fn = compile_(grads)
    for _ in range(n_tests):
        num = numeric_grad(cost_fn, [p.copy() for p in pt], eps)
        analytic = [np.asarray(g) for g in grad_fn(*[p.copy() for p in pt])]
        arg, pos, abs_err, rel_err = num.max_err(analytic, abs_tol, rel_tol)
        if abs_err > abs_tol and rel_err > rel_tol:
            raise GradientError(
                arg,
                pos,
                analytic[arg].shape,
                float(num.gf[arg].reshape(-1)[pos]),
                float(analytic[arg].reshape(-1)[pos]),
                abs_err,
                rel_err,
                abs_tol,
                rel_tol,
            )
        proj.set_value(_projection(rng, value))


def _projection(rng: Any, value: np.ndarray) -> np.ndarray:
    """Random weights in [0.5, 1.5) shaped like the output."""
    return np.asarray(rng.random(value.shape) + 0.5, dtype=value.dtype)
