"""`jacobian`, `hessian` and `hessian_vector_product`.

PyTensor builds a Jacobian row by row with `scan`. oxtensor has no `scan`
yet, so a `Jacobian` node does the loop itself: it holds a compiled inner
function giving one row, `pullback(y, wrt, e_i)` for the i-th unit vector
`e_i`, and stacks the rows when it runs. The node's inputs are the graph
inputs of `y` and `wrt`, so it composes with the rest of the graph like any
other op.
"""

from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.graph.basic import Constant
from oxtensor.graph.op import Op


def _grad_dtype(dtype: str) -> str:
    return dtype if np.dtype(dtype).kind in "fc" else "float64"


class Jacobian(Op):
    """The Jacobian of an expression with respect to some variables, one
    compiled pullback per element of the expression. Each instance is its own
    computation, so instances compare by identity."""

    def __init__(self, y: Any, wrt: list[Any], disconnected_inputs: str) -> None:
        from oxtensor import gradient
        from oxtensor.graph import clone_replace, graph_inputs
        from oxtensor.tensor.type import TensorType

        y_flat = y.reshape((-1,))
        u = TensorType(_grad_dtype(y.dtype), shape=(None,))("u")
        rows = gradient.pullback(
            y_flat, wrt, u, disconnected_inputs=disconnected_inputs
        )
        self.outer_inputs = [
            v for v in graph_inputs([y, *wrt]) if not isinstance(v, Constant)
        ]
        inner = [v.type() for v in self.outer_inputs]
        replaced = clone_replace(
            [y, *wrt, *rows], replace=dict(zip(self.outer_inputs, inner, strict=True))
        )
        n = len(wrt)
        self.inner_inputs, self.u = inner, u
        self.inner_y, self.inner_wrt, self.inner_rows = (
            replaced[0],
            replaced[1 : 1 + n],
            replaced[1 + n :],
        )
        self.out_types = [
            TensorType(_grad_dtype(w.dtype), shape=(*y.type.shape, *w.type.shape))
            for w in wrt
        ]
        self._fns: tuple[Any, Any] | None = None

    def __str__(self) -> str:
        return "Jacobian"

    def make_node(self, *inputs: Any) -> Any:
        return _core.Apply(self, list(inputs), [t() for t in self.out_types])

    def _compiled(self) -> tuple[Any, Any]:
        if self._fns is None:
            import oxtensor

            probe = oxtensor.function(
                self.inner_inputs,
                [self.inner_y, *self.inner_wrt],
                on_unused_input="ignore",
            )
            row = oxtensor.function(
                [*self.inner_inputs, self.u], self.inner_rows, on_unused_input="ignore"
            )
            self._fns = (probe, row)
        return self._fns

    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        probe, row = self._compiled()
        y, *wrt = probe(*inputs)
        n = y.size
        rows: list[list[np.ndarray]] = [[] for _ in wrt]
        unit = np.zeros(n, dtype=self.u.dtype)
        for i in range(n):
            unit[i] = 1
            for k, r in enumerate(row(*inputs, unit)):
                rows[k].append(np.array(r))
            unit[i] = 0
        for k, (w, t) in enumerate(zip(wrt, self.out_types, strict=True)):
            shape = (*np.shape(y), *np.shape(w))
            out = np.stack(rows[k]).reshape(shape) if n else np.zeros(shape)
            output_storage[k][0] = out.astype(t.dtype, copy=False)

    def grad(self, inputs: Any, output_grads: Any) -> Any:
        from oxtensor.gradient import grad_not_implemented

        return [
            grad_not_implemented(self, i, x, "The Jacobian of a Jacobian needs scan.")
            for i, x in enumerate(inputs)
        ]


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
    from oxtensor import gradient
    from oxtensor.tensor import as_tensor_variable

    del vectorize
    y = as_tensor_variable(expression)
    single = not isinstance(wrt, (list, tuple))
    wrt_list = [wrt] if single else list(wrt)
    if y.ndim == 0:
        result = gradient.grad(
            y,
            wrt_list,
            consider_constant=consider_constant,
            disconnected_inputs=disconnected_inputs,
        )
    else:
        if consider_constant:
            raise NotImplementedError(
                "jacobian with consider_constant: wrap those variables in "
                "oxtensor.gradient.consider_constant instead"
            )
        op = Jacobian(y, wrt_list, disconnected_inputs)
        outs = op(*op.outer_inputs)
        result = outs if isinstance(outs, list) else [outs]
    if single:
        return result[0]
    return tuple(result) if isinstance(wrt, tuple) else list(result)


def hessian(
    cost: Any,
    wrt: Any,
    consider_constant: Any = None,
    disconnected_inputs: str = "raise",
) -> Any:
    """The matrix of second derivatives of the scalar ``cost`` for each
    ``wrt`` entry."""
    from oxtensor import gradient

    single = not isinstance(wrt, (list, tuple))
    wrt_list = [wrt] if single else list(wrt)
    result = []
    for w in wrt_list:
        g = gradient.grad(
            cost,
            w,
            consider_constant=consider_constant,
            disconnected_inputs=disconnected_inputs,
        )
        result.append(jacobian(g, w, disconnected_inputs=disconnected_inputs))
    if single:
        return result[0]
    return tuple(result) if isinstance(wrt, tuple) else result


def hessian_vector_product(cost: Any, wrt: Any, p: Any, **grad_kwargs: Any) -> Any:
    """``H · p`` without forming the Hessian: the gradient of ``grad(cost) · p``."""
    from oxtensor import gradient

    single = not isinstance(wrt, (list, tuple))
    wrt_list = [wrt] if single else list(wrt)
    p_list = [p] if single else list(p)
    grads = gradient.grad(cost, wrt_list, **grad_kwargs)
    terms = [(g * v).sum() for g, v in zip(grads, p_list, strict=True)]
    dot = terms[0]
    for t in terms[1:]:
        dot = dot + t
    result = gradient.grad(dot, wrt_list, **grad_kwargs)
    return result[0] if single else result
