"""Features: listeners attached to a `FunctionGraph`.

Subclass `Feature` and override the callbacks you need. The graph calls them
after each change completes, in the order the changes happened: imports,
prunes and input changes (see docs/for-pytensor-users.md).
"""

from typing import Any

from oxtensor import _core
from oxtensor.graph.utils import InconsistencyError

AlreadyThere = _core.AlreadyThere


class Feature:
    """Base class of graph features; every callback does nothing."""

    def on_attach(self, fgraph: Any) -> None:
        """Called when attached. Raise `AlreadyThere` to cancel the attach."""

    def on_detach(self, fgraph: Any) -> None:
        """Called when removed."""

    def on_import(self, fgraph: Any, node: Any, reason: str) -> None:
        """A node entered the graph."""

    def on_prune(self, fgraph: Any, node: Any, reason: str) -> None:
        """A node left the graph."""

    def on_change_input(
        self, fgraph: Any, node: Any, i: int, var: Any, new_var: Any, reason: str = ""
    ) -> None:
        """Input ``i`` of ``node`` (or output ``i`` when ``node == "output"``)
        changed from ``var`` to ``new_var``."""

    def on_validate(self, fgraph: Any) -> None:
        """Raise `InconsistencyError` to veto the current graph."""

    def orderings(self, fgraph: Any) -> dict[Any, list[Any]]:
        """``{node: [nodes that must run before it]}``."""
        return {}

    def clone(self) -> "Feature":
        """The feature to attach to a cloned graph (itself by default)."""
        return self


class Bookkeeper(Feature):
    """Replays ``on_import`` for existing nodes on attach, ``on_prune`` on detach."""

    def on_attach(self, fgraph: Any) -> None:
        for node in fgraph.toposort():
            self.on_import(fgraph, node, "on_attach")

    def on_detach(self, fgraph: Any) -> None:
        for node in fgraph.toposort():
            self.on_prune(fgraph, node, "Bookkeeper.detach")


__all__ = ["AlreadyThere", "Bookkeeper", "Feature", "InconsistencyError"]
