"""What keeps compiled graphs from destroying what they must not:
`Supervisor`, a feature that refuses (at validation) any graph in which a
protected variable, or a view of one, is destroyed by an inplace op, and
`add_supervisor_to_fgraph`, which protects a function's inputs that are not
``mutable``. `oxtensor.function` does the same in the core; these are for
graphs users build and rewrite themselves."""

from typing import Any

from oxtensor.graph.destroyhandler import DestroyHandler
from oxtensor.graph.features import Feature
from oxtensor.graph.utils import InconsistencyError


class Supervisor(Feature):
    """Refuses a graph whose inplace ops destroy one of ``protected``.

    It reads the destroy information of the graph's `DestroyHandler`; on a
    graph without one nothing can be destroyed, so every graph passes.
    """

    def __init__(self, protected: Any) -> None:
        self.protected = list(protected)

    def on_validate(self, fgraph: Any) -> None:
        if not hasattr(fgraph, "has_destroyers"):
            return
        if fgraph.has_destroyers(self.protected):
            raise InconsistencyError("Trying to destroy protected variables.")

    def clone(self) -> "Supervisor":
        return Supervisor(self.protected)


def _destroys(node: Any) -> bool:
    return bool(getattr(node.op, "destroy_map", None))


def add_supervisor_to_fgraph(
    fgraph: Any, input_specs: Any, accept_inplace: bool = False
) -> None:
    """Attach a `Supervisor` protecting the inputs whose spec (an `In`, or
    anything with a ``mutable`` attribute) is not mutable.

    A graph that already has inplace ops is refused unless
    ``accept_inplace``; then a `DestroyHandler` is attached and inputs that
    are already destroyed are left unprotected (they are meant to be).
    """
    inplace = [node for node in fgraph.apply_nodes if _destroys(node)]
    if inplace and not accept_inplace:
        raise TypeError(f"Graph must not contain inplace operations: {inplace[0]}")
    if inplace and not hasattr(fgraph, "has_destroyers"):
        fgraph.attach_feature(DestroyHandler())
    protected = [
        var
        for spec, var in zip(input_specs, fgraph.inputs, strict=True)
        if not getattr(spec, "mutable", False)
        and not (hasattr(fgraph, "has_destroyers") and fgraph.has_destroyers([var]))
    ]
    fgraph.attach_feature(Supervisor(protected))


__all__ = ["Supervisor", "add_supervisor_to_fgraph"]
