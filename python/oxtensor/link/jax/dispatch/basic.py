"""`jax_funcify`: the table from an op to its JAX implementation.

``jax_funcify(op, node=node)`` returns a function of the node's input
values returning its output value (or a tuple, for several outputs).
Register an implementation for an op class of your own with::

    @jax_funcify.register(MyOp)
    def _(op, node, **kwargs):
        return lambda x: jnp.sin(x)
"""

from functools import singledispatch
from typing import Any

import numpy as np


class JAXUnsupportedError(NotImplementedError):
    """An op, or a use of one, the JAX backend cannot express."""


@singledispatch
def jax_funcify(op: Any, node: Any = None, **kwargs: Any) -> Any:
    """The JAX implementation of ``op`` as applied in ``node``."""
    cls = type(op)
    raise JAXUnsupportedError(
        f"No JAX implementation for op {op} (class {cls.__module__}.{cls.__qualname__})"
        f"{'' if node is None else f' in node {node}'}. Register one with "
        "`@oxtensor.link.jax.jax_funcify.register("
        f"{cls.__qualname__})` on a function `(op, node, **kwargs)` returning a "
        "function of the node's input values (jax.numpy arrays)."
    )


def is_static(value: Any) -> bool:
    """Whether ``value`` is known while tracing (NumPy or Python, not a tracer)."""
    return isinstance(value, np.ndarray | np.generic | int | float | bool)


def static_value(value: Any, node: Any, i: int) -> Any:
    """Input ``i`` of ``node`` as a NumPy value, or a clear error saying
    that JAX needs it known while tracing."""
    if is_static(value):
        return np.asarray(value)
    raise JAXUnsupportedError(
        f"JAX needs input {i} ({node.inputs[i]}) of {node} to be known while "
        "tracing (a static shape, axis, length or index range), but it is computed "
        "from the function's inputs at run time. Make it a constant, or compute it "
        "from the shapes of the inputs, which are static under jax.jit."
    )


def static_ints(value: Any, node: Any, i: int) -> tuple[int, ...]:
    """Input ``i`` of ``node`` as a tuple of Python ints (a shape, lengths)."""
    return tuple(int(v) for v in np.ravel(static_value(value, node, i)))


def static_int(value: Any, node: Any, i: int) -> int:
    """Input ``i`` of ``node`` as a Python int (an axis, a length)."""
    return int(static_value(value, node, i))


def out_dtype(node: Any, k: int = 0) -> Any:
    """The dtype of output ``k`` of ``node``."""
    return np.dtype(node.outputs[k].type.dtype)
