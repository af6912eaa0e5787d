"""The compile-time rewrites of ``Einsum`` nodes, in ``specialize`` as
PyTensor's: an einsum planned without known lengths is planned again once
rewrites have made them all known, and an optimised one is replaced by its
inner graph, so the rest of the rewrites see through it."""

from typing import Any

from oxtensor.compile.ofg_inline import inner_graph_over_inputs
from oxtensor.graph.rewriting.basic import node_rewriter
from oxtensor.tensor.einsum import Einsum, einsum
from oxtensor.tensor.rewriting.basic import register_specialize


@register_specialize
@node_rewriter([Einsum])
def optimize_einsum_inner_graph(fgraph: Any, node: Any) -> Any:
    """A fresh, optimised einsum in place of one planned without lengths."""
    op = node.op
    if not isinstance(op, Einsum) or op.optimized:
        return None
    if any(None in v.type.shape for v in node.inputs):
        return None
    return [einsum(op.subscripts, *node.inputs)]


@register_specialize
@node_rewriter([Einsum])
def inline_optimized_einsum(fgraph: Any, node: Any) -> Any:
    """The inner graph of an optimised einsum over the node's inputs."""
    if not isinstance(node.op, Einsum) or not node.op.optimized:
        return None
    return inner_graph_over_inputs(node)


__all__ = ["inline_optimized_einsum", "optimize_einsum_inner_graph"]
