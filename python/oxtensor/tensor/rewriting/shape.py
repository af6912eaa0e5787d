"""`ShapeFeature` and `ShapeOptimizer` as PyTensor's
``tensor.rewriting.shape`` names them: ``fgraph.shape_feature.shape_of[v]``
is the shape of ``v`` as a tuple of int64 scalars (constants for static
lengths; None for a variable that is not a tensor), from the ops'
``infer_shape``, without computing ``v``.

The compiler's own shape feature is the Rust core's, used by its shape
rewrites; this one answers the questions Python code asks of a graph, by
calling each op's ``infer_shape`` (built-in ops forward it to the core).
"""

from collections.abc import Iterator, Mapping
from typing import Any

from oxtensor.graph.features import Feature
from oxtensor.graph.rewriting.basic import GraphRewriter
from oxtensor.tensor.type import TensorType


def _leaf_shape(v: Any) -> tuple[Any, ...]:
    """One length per axis of a variable whose owner does not say."""
    from oxtensor import _core
    from oxtensor.tensor.basic import constant

    return tuple(
        constant(n, dtype="int64") if n is not None else _core.Shape_i(k)(v)
        for k, n in enumerate(v.type.shape)
    )


def _inferred(fgraph: Any, node: Any, shapes: list[Any], k: int) -> Any:
    """Output ``k``'s shape from the op's ``infer_shape``, or None where the
    op has none."""
    try:
        found = node.op.infer_shape(fgraph, node, shapes)
    except (AttributeError, NotImplementedError):
        return None
    return None if found is None or found[k] is None else tuple(found[k])


class ShapeOf(Mapping[Any, Any]):
    """``shape_of``: shapes inferred when first asked, then kept."""

    def __init__(self, fgraph: Any) -> None:
        self.fgraph = fgraph
        self._known: dict[Any, Any] = {}

    def __getitem__(self, v: Any) -> Any:
        # Post-order over the owners, on an explicit stack: graphs can be
        # deeper than Python's recursion limit.
        stack = [(v, False)]
        while stack:
            w, ready = stack.pop()
            if w in self._known:
                continue
            owner = w.owner
            if not isinstance(w.type, TensorType) or owner is None:
                self._known[w] = self._own(w, None)
            elif ready:
                self._known[w] = self._own(w, owner)
            else:
                stack.append((w, True))
                stack.extend((i, False) for i in owner.inputs if i not in self._known)
        return self._known[v]

    def _own(self, w: Any, owner: Any) -> Any:
        if not isinstance(w.type, TensorType):
            return None
        if owner is None or all(n is not None for n in w.type.shape):
            return _leaf_shape(w)
        shapes = [self._known[i] for i in owner.inputs]
        k = next(k for k, o in enumerate(owner.outputs) if o is w)
        found = _inferred(self.fgraph, owner, shapes, k)
        return _leaf_shape(w) if found is None else found

    def __iter__(self) -> Iterator[Any]:
        return iter(self._known)

    def __len__(self) -> int:
        return len(self._known)


class ShapeFeature(Feature):
    """Gives its graph ``shape_feature`` and ``shape_of``."""

    def on_attach(self, fgraph: Any) -> None:
        self.shape_of = ShapeOf(fgraph)
        fgraph.shape_feature = self

    def on_detach(self, fgraph: Any) -> None:
        del fgraph.shape_feature


class ShapeOptimizer(GraphRewriter):
    """Attaches a `ShapeFeature` to the graph (once)."""

    def add_requirements(self, fgraph: Any) -> None:
        if getattr(fgraph, "shape_feature", None) is None:
            fgraph.attach_feature(ShapeFeature())

    def apply(self, fgraph: Any) -> None:
        self.add_requirements(fgraph)


__all__ = ["ShapeFeature", "ShapeOptimizer"]
