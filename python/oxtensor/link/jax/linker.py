"""From a rewritten `FunctionGraph` to one Python function of its inputs
that evaluates each node's JAX implementation in topological order; the
function is pure, so ``jax.jit``, ``jax.vmap`` and ``jax.grad`` apply.

Values known while tracing (constants, shapes, and whatever is computed
from them alone) stay NumPy values: a node all of whose inputs are known
runs at trace time, so a reshape's target shape or a slice's bounds reach
JAX as the static values it needs.
"""

from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from oxtensor.graph.basic import Constant
from oxtensor.link.basic import Linker
from oxtensor.link.jax.dispatch import jax_funcify
from oxtensor.link.jax.dispatch.basic import is_static


def _node_thunk(node: Any) -> tuple[list[Any], Callable[..., tuple[Any, ...]]]:
    """The variables the node's implementation reads (its inputs, unless
    the implementation names others in ``reads``) and the implementation,
    always returning a tuple of outputs, each in the dtype the graph says
    (JAX's promotion rules differ from NumPy's on scalars and integers)."""
    impl = jax_funcify(node.op, node=node)
    reads = list(getattr(impl, "reads", node.inputs))
    dtypes = [
        np.dtype(o.type.dtype) if hasattr(o.type, "dtype") else None
        for o in node.outputs
    ]

    def run(*values: Any) -> tuple[Any, ...]:
        if values and all(is_static(v) for v in values):
            with jax.ensure_compile_time_eval():
                outs = _as_tuple(impl(*values))
            outs = tuple(np.asarray(o) for o in outs)
        else:
            outs = _as_tuple(impl(*values))
        return tuple(_as_dtype(o, d) for o, d in zip(outs, dtypes, strict=True))

    return reads, run


def _as_tuple(outs: Any) -> tuple[Any, ...]:
    return tuple(outs) if isinstance(outs, tuple | list) else (outs,)


def _as_dtype(value: Any, dtype: Any) -> Any:
    if dtype is None or value.dtype == dtype:
        return value
    if isinstance(value, np.ndarray | np.generic):
        return np.asarray(value, dtype=dtype)
    return value.astype(dtype)


def fgraph_to_jax(fgraph: Any) -> Callable[..., list[Any]]:
    """A pure function of ``fgraph.inputs``' values returning the list of
    ``fgraph.outputs``' values. Every op's implementation is looked up now,
    so an op without one fails here, not at the first call."""
    order = fgraph.toposort()
    steps = [(node, *_node_thunk(node), list(node.outputs)) for node in order]
    inputs = list(fgraph.inputs)
    outputs = list(fgraph.outputs)
    return _evaluator(inputs, outputs, steps)


def _evaluator(
    inputs: Sequence[Any], outputs: Sequence[Any], steps: Sequence[tuple[Any, ...]]
) -> Callable[..., list[Any]]:
    def run(*args: Any) -> list[Any]:
        if len(args) != len(inputs):
            raise TypeError(f"the graph takes {len(inputs)} inputs, got {len(args)}")
        env: dict[Any, Any] = dict(zip(inputs, args, strict=True))
        for node, ins, thunk, outs in steps:
            values = [_lookup(env, v, node) for v in ins]
            env.update(zip(outs, thunk(*values), strict=True))
        return [_lookup(env, v, None) for v in outputs]

    return run


def _lookup(env: dict[Any, Any], var: Any, node: Any) -> Any:
    if var in env:
        return env[var]
    if isinstance(var, Constant):
        return np.asarray(var.data)
    where = f" (an input of {node})" if node is not None else ""
    raise ValueError(f"variable {var}{where} has no value: it is no input of the graph")


class JAXLinker(Linker):
    """The linker of mode ``"JAX"``: the graph as one ``jax.jit``-ed
    function (`fgraph_to_jax`); outputs come back as NumPy arrays."""

    mode_linker = "jax"

    def _compiled(self) -> Callable[..., list[Any]]:
        if self.fgraph is None:
            raise ValueError("JAXLinker has no graph: call accept(fgraph) first")
        jitted = jax.jit(fgraph_to_jax(self.fgraph))
        return lambda *args: [np.asarray(o) for o in jitted(*args)]
