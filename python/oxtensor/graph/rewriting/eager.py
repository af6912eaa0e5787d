"""Rewriting a graph that is being built, before it joins a
`FunctionGraph`, as PyTensor's ``pre_constant_merge`` and
``pre_greedy_node_rewriter``: the nodes outside ``fgraph`` that the given
variables depend on are edited in place (their ``inputs`` lists change);
nodes already in ``fgraph`` are left alone and not looked through.

The walks are the core's (``graph_inputs``, ``io_toposort``), constants
compare by ``Constant.equals``, and a built-in node rewriter is asked
about a node outside any graph through a graph of that node's outputs.
"""

from collections.abc import Sequence
from typing import Any

from oxtensor.graph.basic import Constant
from oxtensor.graph.traversal import graph_inputs, io_toposort


def _outside_nodes(fgraph: Any, outputs: Sequence[Any]) -> list[Any]:
    """The nodes ``outputs`` depend on that are not in ``fgraph``, inputs first."""
    inside = fgraph.apply_nodes
    blockers = [v for v in fgraph.variables if v.owner in inside]
    ins = list(graph_inputs(list(outputs), blockers))
    return [n for n in io_toposort(ins, list(outputs)) if n not in inside]


def pre_constant_merge(fgraph: Any, variables: Sequence[Any]) -> list[Any]:
    """Makes the nodes of ``variables``' graphs that are outside ``fgraph``
    read one constant wherever they read equal ones (the first met);
    returns ``variables``, a constant among them replaced the same way."""
    kept: list[Any] = []

    def canonical(c: Any) -> Any:
        for k in kept:
            if k is c or _same_constant(k, c):
                return k
        kept.append(c)
        return c

    for node in _outside_nodes(fgraph, variables):
        for i, inp in enumerate(node.inputs):
            if isinstance(inp, Constant):
                node.inputs[i] = canonical(inp)
    return [
        canonical(v) if isinstance(v, Constant) and v.owner is None else v
        for v in variables
    ]


def _same_constant(a: Any, b: Any) -> bool:
    try:
        return bool(a.equals(b))
    except (TypeError, ValueError):
        return False


def pre_greedy_node_rewriter(fgraph: Any, rewrites: Sequence[Any], out: Any) -> Any:
    """Applies ``rewrites`` to the nodes of ``out``'s graph outside
    ``fgraph``, inputs first: each node reads the rewritten versions of
    its inputs, then the rewriters are asked about it in turn (a later one
    sees the earlier one's new node). Returns what ``out`` became."""
    done: dict[Any, Any] = {}
    for node in _outside_nodes(fgraph, [out]):
        for i, inp in enumerate(node.inputs):
            if inp in done:
                node.inputs[i] = done[inp]
        _rewrite_node(fgraph, rewrites, node, done)
    return done.get(out, out)


def _rewrite_node(fgraph: Any, rewrites: Sequence[Any], node: Any, done: dict) -> None:
    """Records in ``done`` what the rewriters turn ``node``'s outputs into."""
    results, current = list(node.outputs), node
    for rw in rewrites:
        new = _transform(fgraph, rw, current)
        if not new:
            continue
        if isinstance(new, dict):
            new = [new.get(o, o) for o in current.outputs]
        if len(new) != len(current.outputs):
            raise ValueError(
                f"{rw} returned {len(new)} replacements for {current}, "
                f"which has {len(current.outputs)} outputs"
            )
        results = [r if n is None else n for r, n in zip(results, new, strict=True)]
        current = results[0].owner
        if current is None:
            break
    pairs = zip(node.outputs, results, strict=True)
    done.update({old: repl for old, repl in pairs if repl is not old})


def _transform(fgraph: Any, rewriter: Any, node: Any) -> Any:
    """``rewriter.transform`` on a node that need not be in ``fgraph``: a
    built-in rewriter works on graphs, so it gets one of ``node``'s outputs."""
    from oxtensor.graph.fg import FunctionGraph

    if node in fgraph.apply_nodes:
        return rewriter.transform(fgraph, node)
    if not _is_builtin(rewriter):
        return rewriter.transform(fgraph, node)
    roots = graph_inputs(list(node.outputs))
    inputs = [v for v in roots if not isinstance(v, Constant)]
    alone = FunctionGraph(inputs, list(node.outputs), clone=False)
    return rewriter.transform(alone, node)


def _is_builtin(rewriter: Any) -> bool:
    """Whether the rewriter's ``transform`` is the core's (not overridden in Python)."""
    from oxtensor.graph.rewriting.basic import NodeRewriter

    return type(rewriter).transform is NodeRewriter.transform


__all__ = ["pre_constant_merge", "pre_greedy_node_rewriter"]
