"""The compile-time rewrite that replaces each ``OpFromGraph(inline=True)``
node by a copy of its inner graph over the node's inputs, registered in
``optdb`` before the first merge (tags ``fast_compile``, ``fast_run``,
``inline_ofg``), as PyTensor's ``inline_ofg_expansion``."""

from typing import Any

from oxtensor.compile.builders import OpFromGraph
from oxtensor.compile.mode import optdb
from oxtensor.graph.replace import clone_replace
from oxtensor.graph.rewriting.basic import in2out, node_rewriter


def inner_graph_over_inputs(node: Any) -> list[Any]:
    """A copy of the inner graph of ``node``'s `OpFromGraph` over the
    node's inputs: its outputs, to replace the node's (the inlining of
    ``inline=True`` ops and of optimised einsums)."""
    op = node.op
    replace = dict(zip(op.inner_inputs, node.inputs, strict=True))
    return clone_replace(op.inner_outputs, replace=replace)


@node_rewriter([OpFromGraph])
def inline_ofg_expansion(fgraph: Any, node: Any) -> Any:
    """The inner graph in place of an inline `OpFromGraph` node."""
    if not isinstance(node.op, OpFromGraph) or not node.op.is_inline:
        return False
    return inner_graph_over_inputs(node)


optdb.register(
    "inline_ofg_expansion",
    in2out(inline_ofg_expansion),
    "fast_compile",
    "fast_run",
    "inline_ofg",
    position=-0.01,
)

__all__ = ["inline_ofg_expansion"]
