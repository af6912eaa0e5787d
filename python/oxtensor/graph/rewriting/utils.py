"""`rewrite_graph` (run rewrites of the database on some variables) and
`is_same_graph`."""

from collections.abc import Sequence
from typing import Any

from oxtensor.graph.basic import equal_computations
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.rewriting.db import RewriteDatabaseQuery


def rewrite_graph(
    graph: Any,
    include: Sequence[str] = ("canonicalize",),
    custom_rewrite: Any = None,
    clone: bool = False,
    **kwargs: Any,
) -> Any:
    """Rewrites ``graph`` (a variable, a list of them, or a `FunctionGraph`)
    with the rewrites of ``optdb`` tagged with ``include``, then
    ``custom_rewrite``; returns the rewritten variable(s) or graph."""
    from oxtensor.compile.mode import optdb

    if isinstance(graph, FunctionGraph):
        fgraph, outputs = graph, None
    else:
        outputs = [graph] if not isinstance(graph, list | tuple) else list(graph)
        fgraph = FunctionGraph(outputs=outputs, clone=clone)
    query = RewriteDatabaseQuery(include=list(include), **kwargs)
    optdb.query(query).rewrite(fgraph)
    if custom_rewrite is not None:
        custom_rewrite.rewrite(fgraph)
    if outputs is None:
        return fgraph
    if isinstance(graph, list | tuple):
        return fgraph.outputs
    return fgraph.outputs[0]


def is_same_graph(var1: Any, var2: Any, givens: Any = None) -> bool:
    """Whether ``var1`` and ``var2`` compute the same thing, each key of
    ``givens`` (a dict or pairs) in ``var1``'s graph standing for its value
    in ``var2``'s (`equal_computations` with those inputs paired)."""
    pairs = list(dict(givens or {}).items())
    return equal_computations(
        [var1],
        [var2],
        in_xs=[x for x, _ in pairs],
        in_ys=[y for _, y in pairs],
    )


__all__ = ["is_same_graph", "rewrite_graph"]
