"""`as_jax_function`: a graph (a `FunctionGraph`, or a compiled function's
rewritten one) as a pure JAX callable, for ``jax.jit``, ``jax.vmap``,
``jax.grad`` and sharding in the caller's own code."""

from collections.abc import Callable
from typing import Any

from oxtensor.link.jax.linker import fgraph_to_jax


def as_jax_function(fgraph_or_function: Any) -> Callable[..., Any]:
    """A pure function of the graph's inputs returning its output (one
    output) or a tuple of them.

    For a compiled function (``oxtensor.function``, any mode), the graph is
    its rewritten one: the explicit inputs, then the shared variables'
    values; the outputs, then the updated values.

    >>> import jax, numpy as np, oxtensor, oxtensor.tensor as ot
    >>> from oxtensor.link.jax import as_jax_function
    >>> x = ot.dvector("x")
    >>> f = as_jax_function(oxtensor.function([x], (x**2).sum(), mode="JAX"))
    >>> np.asarray(jax.grad(f)(np.array([1.0, 2.0])))
    array([2., 4.])
    """
    maker = getattr(fgraph_or_function, "maker", None)
    fgraph = maker.fgraph if maker is not None else fgraph_or_function
    run = fgraph_to_jax(fgraph)
    single = len(fgraph.outputs) == 1

    def jax_function(*args: Any) -> Any:
        outs = run(*args)
        return outs[0] if single else tuple(outs)

    return jax_function
