"""`FrozenApply`: an `Apply` node made once per ``(op, inputs, output
types)`` in the process; building it again returns the same node. The
nodes of `FrozenFunctionGraph` s are these, so equal frozen graphs share
them."""

import weakref
from typing import Any

from oxtensor import _core

Apply = _core.Apply

#: Every frozen node by its key; weak, so a node lives as long as a graph
#: (or a caller) holds it.
_NODES: "weakref.WeakValueDictionary[Any, Any]" = weakref.WeakValueDictionary()


class FrozenApply(Apply):
    """``FrozenApply(op, inputs, output_types)``: the one node of ``op`` on
    these very ``inputs`` with outputs of these types."""

    def __new__(cls, *args: Any) -> Any:
        if not args:
            # An empty shell for unpickling: `FrozenFunctionGraph` re-interns
            # the loaded graph.
            return Apply.__new__(cls)
        op, inputs, output_types = args
        if any(isinstance(t, _core.Variable) for t in output_types):
            # A copy (`clone`, an unfrozen graph) is an ordinary, editable node.
            return Apply(op, list(inputs), list(output_types))
        key = (op, tuple(inputs), tuple(output_types))
        found = _NODES.get(key)
        if found is not None:
            return found
        node = Apply.__new__(cls)
        Apply.__init__(node, op, list(inputs), [t() for t in output_types])
        _NODES[key] = node
        return node

    def __init__(self, *args: Any) -> None:
        """Built by ``__new__``: a found node is not reinitialised."""


__all__ = ["FrozenApply"]
