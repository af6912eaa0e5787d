"""Graph walks in PyTensor's orders (`pytensor.graph.traversal`), computed by
the Rust core. As in PyTensor 3.x, `ancestors`, `graph_inputs`,
`vars_between`, `orphans_between` and `explicit_graph_inputs` are
generators (the core computes the whole walk when called, so bad
arguments are refused at once; the generator hands it out)."""

from collections.abc import Iterator
from typing import Any

from oxtensor import _core

apply_ancestors = _core.apply_ancestors
applys_between = _core.applys_between
io_toposort = _core.io_toposort
toposort = _core.toposort
apply_depends_on = _core.apply_depends_on
variable_depends_on = _core.variable_depends_on
truncated_graph_inputs = _core.truncated_graph_inputs
walk = _core.walk
general_toposort = _core.general_toposort


def ancestors(graphs: Any, blockers: Any = None) -> Iterator[Any]:
    """Every variable the graphs depend on (graphs included), depth first,
    not expanding past ``blockers``."""
    found = _core.ancestors(graphs, blockers)
    return (v for v in found)


def graph_inputs(graphs: Any, blockers: Any = None) -> Iterator[Any]:
    """The owner-less ancestors of the graphs (roots and constants)."""
    found = _core.graph_inputs(graphs, blockers)
    return (v for v in found)


def vars_between(ins: Any, outs: Any) -> Iterator[Any]:
    """The variables between ``ins`` and ``outs``, both ends included."""
    found = _core.vars_between(ins, outs)
    return (v for v in found)


def orphans_between(ins: Any, outs: Any) -> Iterator[Any]:
    """Owner-less variables between the ends that are not in ``ins``."""
    found = _core.orphans_between(ins, outs)
    return (v for v in found)


def explicit_graph_inputs(graph: Any) -> Iterator[Any]:
    """The graph inputs a function of ``graph`` takes as arguments: neither
    constants nor shared variables."""
    from oxtensor.compile.sharedvalue import SharedVariable
    from oxtensor.graph.basic import Constant

    return (
        v
        for v in _core.graph_inputs(graph, None)
        if not isinstance(v, Constant | SharedVariable)
    )


def get_var_by_name(graphs: Any, target_var_id: str, ids: str = "CHAR") -> tuple:
    """The variables of ``graphs``, inner graphs included, whose name or
    ``auto_name`` is ``target_var_id``."""
    del ids  # PyTensor's debugprint id style; names here do not depend on it
    found: list[Any] = []
    pending = list(graphs) if isinstance(graphs, list | tuple) else [graphs]
    seen: set[int] = set()
    while pending:
        level = [v for v in _core.ancestors(pending, None) if id(v) not in seen]
        seen.update(id(v) for v in level)
        found += [v for v in level if target_var_id in (v.name, v.auto_name)]
        # An op holding an inner graph (`HasInnerGraph`) is searched too.
        pending = [
            out
            for v in level
            if v.owner is not None
            for out in getattr(v.owner.op, "inner_outputs", ())
        ]
    return tuple(found)


__all__ = [
    "ancestors",
    "apply_ancestors",
    "apply_depends_on",
    "applys_between",
    "explicit_graph_inputs",
    "general_toposort",
    "get_var_by_name",
    "graph_inputs",
    "io_toposort",
    "orphans_between",
    "toposort",
    "truncated_graph_inputs",
    "variable_depends_on",
    "vars_between",
    "walk",
]
