"""``vectorize``: NumPy's ``np.vectorize`` for graphs: a function of core
inputs, batched over the leading axes of its arguments through
``vectorize_graph``."""

from collections.abc import Callable
from typing import Any

from oxtensor import _core
from oxtensor.graph.replace import vectorize_graph


def vectorize(func: Callable[..., Any], signature: str | None = None) -> Callable:
    """``func`` (a function of core-shaped tensors) as a function of
    batched tensors. ``signature`` (``"(m,n),(n)->(m)"``) says how many
    trailing axes of each argument are core axes; without one, every
    argument is a scalar and ``func`` is applied elementwise.

    Examples
    --------
    >>> import oxtensor.tensor as ot
    >>> f = vectorize(lambda v: ot.exp(v) / ot.exp(v).sum(), signature="(a)->(a)")
    >>> f(ot.matrix("x")).type.ndim
    2
    """
    from oxtensor.tensor import as_tensor_variable, tensor

    def inner(*inputs: Any) -> Any:
        inputs = tuple(as_tensor_variable(i) for i in inputs)
        if signature is None:
            core_ndims = [0] * len(inputs)
        else:
            core_ndims = [len(d) for d in _core._parse_gufunc_signature(signature)[0]]
        if len(core_ndims) != len(inputs):
            raise TypeError(
                f"vectorize: the signature {signature!r} names {len(core_ndims)}"
                f" inputs, got {len(inputs)}"
            )
        core_inputs = [
            tensor(dtype=i.type.dtype, shape=i.type.shape[i.type.ndim - nd :])
            for i, nd in zip(inputs, core_ndims, strict=True)
        ]
        core_outputs = func(*core_inputs)
        replace = dict(zip(core_inputs, inputs, strict=True))
        return vectorize_graph(core_outputs, replace)

    return inner


__all__ = ["vectorize"]
