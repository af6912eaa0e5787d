"""`oxtensor.gradient`: symbolic differentiation, as `pytensor.gradient`.

The driver runs in the Rust core (`_core._grad`, `_core._pushforward`,
`_core._jacobian`: a `Jacobian` node looping over its rows); this module
gives it PyTensor's signatures and return shapes, and adds what is Python by
nature: `verify_grad` and the markers ops' gradients use.
"""

import functools
import operator
from collections.abc import Iterable
from typing import Any

from oxtensor import _core
from oxtensor.gradient_check import GradientError, numeric_grad, verify_grad
from oxtensor.gradient_shaping import (
    DisconnectedGrad,
    GradClip,
    GradScale,
    UndefinedGrad,
    ZeroGrad,
)
from oxtensor.graph.null_type import NullType

DisconnectedType = _core.DisconnectedType
DisconnectedInputError = _core.DisconnectedInputError
NullTypeGradError = _core.NullTypeGradError
GradOp = _core.GradOp
Jacobian = _core.Jacobian
disconnected_type = DisconnectedType()


def grad_undefined(op: Any, x_pos: int, x: Any, comment: str = "") -> Any:
    """A NullType variable: the gradient of input ``x_pos`` is undefined."""
    return NullType(
        f"This variable is Null because the grad method for input {x_pos} ({x}) "
        f"of the {op} op is mathematically undefined. {comment}"
    )()


def grad_not_implemented(op: Any, x_pos: int, x: Any, comment: str = "") -> Any:
    """A NullType variable: the gradient of input ``x_pos`` is not implemented."""
    return NullType(
        f"This variable is Null because the grad method for input {x_pos} ({x}) "
        f"of the {op} op is not implemented. {comment}"
    )()


def _as_list(x: Any, what: str) -> tuple[list[Any], bool]:
    """``x`` as a list, and whether it was given as a single variable."""
    if isinstance(x, (list, tuple)):
        return list(x), False
    if isinstance(x, _core.Variable):
        return [x], True
    raise TypeError(f"{what} must be a Variable or a list of Variables, got {x!r}")


def _shaped(results: list[Any], like: Any, single: bool) -> Any:
    if single:
        return results[0]
    return tuple(results) if isinstance(like, tuple) else results


def _variables(xs: Any, what: str) -> list[Any]:
    if xs is None:
        return []
    if not isinstance(xs, Iterable):
        raise TypeError(f"{what} must be an iterable of Variables, got {xs!r}")
    xs = list(xs)
    for x in xs:
        if not isinstance(x, _core.Variable):
            raise TypeError(f"{what} must be an iterable of Variables, got {x!r} in it")
    return xs


def grad(
    cost: Any,
    wrt: Any,
    consider_constant: Any = None,
    disconnected_inputs: str = "raise",
    add_names: bool = True,
    known_grads: Any = None,
    return_disconnected: str = "zero",
    null_gradients: str = "raise",
) -> Any:
    """The gradient of the scalar ``cost`` with respect to ``wrt`` (a
    variable, a list or a tuple; the result has the same form)."""
    from oxtensor.tensor import as_tensor_variable

    wrt_list, single = _as_list(wrt, "wrt")
    if cost is not None:
        cost = (
            as_tensor_variable(cost) if not isinstance(cost, _core.Variable) else cost
        )
    known = []
    if known_grads is not None:
        if not isinstance(known_grads, dict):
            raise TypeError(f"known_grads must be a dict, got {known_grads!r}")
        known = list(known_grads.items())
    if cost is None and not known:
        raise ValueError("cost and known_grads can't both be None.")
    results = _core._grad(
        cost,
        wrt_list,
        _variables(consider_constant, "consider_constant"),
        known,
        True,
        disconnected_inputs,
        add_names,
        return_disconnected,
        null_gradients,
    )
    return _shaped(results, wrt, single)


def pullback(
    f: Any,
    wrt: Any,
    cotangents: Any,
    consider_constant: Any = None,
    disconnected_inputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """The vector-Jacobian product ``cotangentsᵀ · ∂f/∂wrt`` (PyTensor 3.x)."""
    f_list, _ = _as_list(f, "f")
    cot_list, _ = _as_list(cotangents, "cotangents")
    if len(f_list) != len(cot_list):
        raise ValueError(
            f"f has {len(f_list)} entries but {len(cot_list)} cotangents were given"
        )
    wrt_list, single = _as_list(wrt, "wrt")
    results = _core._grad(
        None,
        wrt_list,
        _variables(consider_constant, "consider_constant"),
        list(zip(f_list, cot_list, strict=True)),
        False,
        disconnected_inputs,
        True,
        return_disconnected,
        "raise",
    )
    return _shaped(results, wrt, single)


def Lop(
    f: Any,
    wrt: Any,
    eval_points: Any,
    consider_constant: Any = None,
    disconnected_inputs: str = "raise",
) -> Any:
    """The seeds' L-operator: ``pullback`` under its older name."""
    return pullback(f, wrt, eval_points, consider_constant, disconnected_inputs)


def pushforward(
    f: Any,
    wrt: Any,
    tangents: Any,
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
    use_op_pushforward: bool = False,
) -> Any:
    """The Jacobian-vector product ``∂f/∂wrt · tangents`` (PyTensor 3.x).

    By default through a double pullback; ``use_op_pushforward=True`` uses
    each op's own ``R_op``/``pushforward`` (a double pullback for ops
    without one). The result has the form of ``f``."""
    f_list, single = _as_list(f, "f")
    wrt_list, _ = _as_list(wrt, "wrt")
    tan_list, _ = _as_list(tangents, "tangents")
    results = _core._pushforward(
        f_list,
        wrt_list,
        tan_list,
        use_op_pushforward,
        disconnected_outputs,
        return_disconnected,
    )
    return _shaped(results, f, single)


def Rop(
    f: Any,
    wrt: Any,
    eval_points: Any,
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """The seeds' R-operator: each op's ``R_op``, or a double pullback
    where an op has none."""
    return pushforward(
        f,
        wrt,
        eval_points,
        disconnected_outputs,
        return_disconnected,
        use_op_pushforward=True,
    )


def _second_order(
    y: Any, wrt: Any, consider_constant: Any, disconnected_inputs: str, hessian: bool
) -> Any:
    """`_core._jacobian` with PyTensor's argument forms."""
    from oxtensor.tensor import as_tensor_variable

    wrt_list, single = _as_list(wrt, "wrt")
    constants = _variables(consider_constant, "consider_constant")
    y = as_tensor_variable(y)
    results = _core._jacobian(y, wrt_list, constants, disconnected_inputs, hessian)
    return _shaped(results, wrt, single)


def jacobian(
    expression: Any,
    wrt: Any,
    consider_constant: Any = None,
    disconnected_inputs: str = "raise",
    vectorize: bool = False,
) -> Any:
    """``∂expression/∂wrt``: shape ``expression.shape + wrt.shape`` for each
    ``wrt`` entry (a variable, a list or a tuple; the result has the same
    form). ``vectorize`` chooses PyTensor's strategy and gives the same values
    here, where every Jacobian is built by the row loop."""
    del vectorize
    return _second_order(
        expression, wrt, consider_constant, disconnected_inputs, hessian=False
    )


def hessian(
    cost: Any,
    wrt: Any,
    consider_constant: Any = None,
    disconnected_inputs: str = "raise",
) -> Any:
    """The matrix of second derivatives of the scalar ``cost`` for each
    ``wrt`` entry."""
    return _second_order(
        cost, wrt, consider_constant, disconnected_inputs, hessian=True
    )


def hessian_vector_product(cost: Any, wrt: Any, p: Any, **grad_kwargs: Any) -> Any:
    """``H · p`` without forming the Hessian: the gradient of ``grad(cost) · p``."""
    wrt_list, single = _as_list(wrt, "wrt")
    p_list = [p] if single else list(p)
    grads = grad(cost, wrt_list, **grad_kwargs)
    terms = [(g * v).sum() for g, v in zip(grads, p_list, strict=True)]
    result = grad(functools.reduce(operator.add, terms), wrt_list, **grad_kwargs)
    return result[0] if single else result


def subgraph_grad(
    wrt: Any,
    end: Any,
    start: Any = None,
    cost: Any = None,
    details: bool = False,
) -> Any:
    """Backpropagate through one piece of a graph, as PyTensor's
    ``subgraph_grad``: the gradients of ``cost`` plus the known gradients
    ``start`` (a dict) with respect to ``wrt`` and to ``end``, the variables
    where this piece stops (treated as constants, so nothing flows past them).

    Returns ``(wrt_grads, end_grads)``; with ``details=True`` also the parts
    of ``wrt_grads`` that come from ``start`` and from ``cost`` alone.
    """
    wrt, end = list(wrt), list(end)
    start = dict(start or {})
    if cost is None and not start:
        raise ValueError("subgraph_grad needs a cost or known gradients in start.")
    params = wrt + end

    def part(cost_part: Any, known: Any) -> list[Any]:
        if cost_part is None and not known:
            return [None] * len(params)
        return grad(
            cost_part,
            params,
            consider_constant=end,
            known_grads=known or None,
            disconnected_inputs="ignore",
        )

    from_start = part(None, start)
    from_cost = part(cost, {})
    totals = [
        a if b is None else b if a is None else a + b
        for a, b in zip(from_start, from_cost, strict=True)
    ]
    wrt_grads, end_grads = totals[: len(wrt)], totals[len(wrt) :]
    if details:
        return wrt_grads, end_grads, from_start[: len(wrt)], from_cost[: len(wrt)]
    return wrt_grads, end_grads


#: PyTensor's shared instances of the gradient-shaping ops.
zero_grad_ = ZeroGrad()
disconnected_grad_ = DisconnectedGrad()
undefined_grad_ = UndefinedGrad()


def zero_grad(x: Any) -> Any:
    """``x``, whose gradient is zero."""
    return _core._grad_op(x, "zero")


def disconnected_grad(x: Any) -> Any:
    """``x``, disconnected from the gradient: nothing flows back through it."""
    return _core._grad_op(x, "disconnected")


def undefined_grad(x: Any) -> Any:
    """``x``, whose gradient is undefined (a NullType gradient)."""
    return _core._grad_op(x, "undefined")


def consider_constant(x: Any) -> Any:
    """``x``, treated as a constant by ``grad`` (its gradient is zero)."""
    return _core._grad_op(x, "zero")


def grad_clip(x: Any, lower_bound: float, upper_bound: float) -> Any:
    """``x``, whose gradient is clipped to ``[lower_bound, upper_bound]``."""
    return _core._grad_op(x, "clip", float(lower_bound), float(upper_bound))


def grad_scale(x: Any, multiplier: float) -> Any:
    """``x``, whose gradient is multiplied by ``multiplier``."""
    return _core._grad_op(x, "scale", float(multiplier))


__all__ = [
    "DisconnectedGrad",
    "DisconnectedInputError",
    "DisconnectedType",
    "GradClip",
    "GradOp",
    "GradScale",
    "GradientError",
    "Jacobian",
    "Lop",
    "NullType",
    "NullTypeGradError",
    "Rop",
    "UndefinedGrad",
    "ZeroGrad",
    "consider_constant",
    "disconnected_grad",
    "disconnected_grad_",
    "disconnected_type",
    "grad",
    "grad_clip",
    "grad_not_implemented",
    "grad_scale",
    "grad_undefined",
    "hessian",
    "hessian_vector_product",
    "jacobian",
    "numeric_grad",
    "pullback",
    "pushforward",
    "subgraph_grad",
    "undefined_grad",
    "undefined_grad_",
    "verify_grad",
    "zero_grad",
    "zero_grad_",
]
