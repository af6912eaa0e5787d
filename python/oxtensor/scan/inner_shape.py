"""The shapes of an inner graph's outputs as graphs of the outer inputs'
shapes: each inner node's ``infer_shape`` in topological order, seeded with
the shapes the loop gives its inner inputs."""

from typing import Any

from oxtensor.graph.traversal import graph_inputs, io_toposort
from oxtensor.tensor.shape import shape_i


def _seed(v: Any) -> tuple[Any, ...]:
    return tuple(
        n if n is not None else shape_i(v, i) for i, n in enumerate(v.type.shape)
    )


def inner_output_shapes(
    inner_inputs: list[Any], inner_outputs: list[Any], input_shapes: list[Any]
) -> list[list[Any | None]]:
    """One list per inner output: each length as a graph over the outer
    shapes, or ``None`` where it depends on the values of the step's inputs
    (it is then only known once the loop has run)."""
    shapes: dict[Any, tuple[Any, ...]] = dict(
        zip(inner_inputs, (tuple(s) for s in input_shapes), strict=True)
    )
    for node in io_toposort(list(inner_inputs), list(inner_outputs)):
        in_shapes = [shapes.setdefault(x, _seed(x)) for x in node.inputs]
        try:
            out_shapes = node.op.infer_shape(None, node, in_shapes)
        except Exception:
            # Its outputs' lengths stay symbolic (`Shape_i` of the inner
            # output), which the check below turns into "known at run time".
            continue
        for out, shape in zip(node.outputs, out_shapes, strict=True):
            shapes[out] = tuple(shape)
    inner = set(inner_inputs)
    result = []
    for out in inner_outputs:
        dims = shapes.get(out) or _seed(out)
        result.append([None if _reads(d, inner) else d for d in dims])
    return result


def _reads(dim: Any, inner: set[Any]) -> bool:
    """Whether the length ``dim`` needs a value inside the loop."""
    if not hasattr(dim, "owner"):
        return False  # a Python int
    return any(v in inner for v in graph_inputs([dim]))


__all__ = ["inner_output_shapes"]
