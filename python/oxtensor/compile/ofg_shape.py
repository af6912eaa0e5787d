"""`OpFromGraph.infer_shape`: the inner outputs' shapes as expressions of
the inner inputs' shapes, found once per op by the compiler's shape
rewrites (``canonicalize``), then given the node's input shapes."""

from typing import Any

from oxtensor.graph.replace import clone_replace
from oxtensor.graph.traversal import applys_between
from oxtensor.tensor.type import TensorType


def _inner_shapes(op: Any) -> list[Any]:
    """Per inner output: None (not a tensor), else one entry per axis,
    ``("static", length)`` or ``("expr", index into the rewritten
    expressions)``."""
    from oxtensor.graph.rewriting.utils import rewrite_graph

    layout: list[Any] = []
    exprs: list[Any] = []
    for o in op.fgraph.outputs:
        if not isinstance(o.type, TensorType):
            layout.append(None)
            continue
        row = []
        for k, n in enumerate(o.type.shape):
            row.append(("static", n) if n is not None else ("expr", len(exprs)))
            if n is None:
                exprs.append(o.shape[k])
        layout.append(row)
    if exprs:
        exprs = rewrite_graph(exprs, include=("canonicalize",), clone=True)
    return [layout, exprs]


def _replacements(op: Any, exprs: list[Any], node: Any, shapes: Any) -> dict[Any, Any]:
    """``Shape_i`` of an inner input → the node's input length; an inner
    input → the node's input (for lengths that read values)."""
    from oxtensor import _core
    from oxtensor.tensor.basic import as_tensor_variable

    position = {id(v): k for k, v in enumerate(op.fgraph.inputs)}
    replace = dict(zip(op.fgraph.inputs, node.inputs, strict=True))
    for apply in applys_between(op.fgraph.inputs, exprs):
        if not isinstance(apply.op, _core.Shape_i):
            continue
        k = position.get(id(apply.inputs[0]))
        if k is not None and shapes[k] is not None:
            replace[apply.outputs[0]] = as_tensor_variable(shapes[k][apply.op.i])
    return replace


def output_shapes(op: Any, node: Any, shapes: Any) -> list[Any]:
    """The node's output shapes (None for an output that is not a tensor)."""
    if "shape" not in op._derived:
        op._derived["shape"] = _inner_shapes(op)
    from oxtensor.tensor.basic import constant

    layout, exprs = op._derived["shape"]
    if exprs:
        exprs = clone_replace(exprs, replace=_replacements(op, exprs, node, shapes))
    return [
        None
        if row is None
        else [
            exprs[v] if kind == "expr" else constant(v, dtype="int64")
            for kind, v in row
        ]
        for row in layout
    ]
