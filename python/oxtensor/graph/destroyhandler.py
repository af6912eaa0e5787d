"""`DestroyHandler`: the feature that makes inplace operations safe.

It follows each op's ``view_map`` to the variable whose memory a value
shares, knows which node destroys it (``destroy_map``), orders every other
reader of a destroyed value before its destroyer, and refuses graphs where
that is impossible (two destroyers of one value, a destroyed constant or
``tag.indestructible`` value, a cycle) with an `InconsistencyError`. The
work is done by the core handler; this module is its Python API.
"""

from typing import Any

from oxtensor import _core
from oxtensor.graph.traversal import io_toposort
from oxtensor.graph.utils import InconsistencyError

DestroyHandler = _core.DestroyHandler
inplace_candidates = _core.inplace_candidates
fast_inplace_check = _core.fast_inplace_check


def _contains_cycle(fgraph: Any, orderings: Any) -> bool:
    """Whether ``fgraph``'s nodes, with the extra ``orderings`` (node ->
    nodes that must run before it), have no order: the core's toposort
    refuses such a graph."""
    try:
        io_toposort(list(fgraph.inputs), list(fgraph.outputs), dict(orderings))
    except ValueError as e:
        if "contains cycles" in str(e):
            return True
        raise
    return False


__all__ = [
    "DestroyHandler",
    "InconsistencyError",
    "fast_inplace_check",
    "inplace_candidates",
]
