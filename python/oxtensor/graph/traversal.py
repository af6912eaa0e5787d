"""Graph walks in PyTensor's orders (`pytensor.graph.traversal`), computed by
the Rust core."""

from oxtensor import _core

ancestors = _core.ancestors
apply_ancestors = _core.apply_ancestors
graph_inputs = _core.graph_inputs
vars_between = _core.vars_between
orphans_between = _core.orphans_between
applys_between = _core.applys_between
io_toposort = _core.io_toposort
toposort = _core.toposort

__all__ = [
    "ancestors",
    "apply_ancestors",
    "applys_between",
    "graph_inputs",
    "io_toposort",
    "orphans_between",
    "toposort",
    "vars_between",
]
