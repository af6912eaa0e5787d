"""`clone_replace` (a copy of a graph with some variables substituted) and
`graph_replace` (the graph rebuilt only where a substitution reaches, every
other variable kept)."""

from typing import Any

from oxtensor import _core
from oxtensor.graph.basic import Variable
from oxtensor.graph.traversal import ancestors, graph_inputs, io_toposort

clone_replace = _core.clone_replace


def _pairs(replace: Any) -> list[tuple[Any, Any]]:
    items = replace.items() if isinstance(replace, dict) else replace
    return [(old, new) for old, new in items]


def graph_replace(outputs: Any, replace: Any, *, strict: bool = True) -> Any:
    """``outputs`` with the keys of ``replace`` (a dict or pairs) put in
    place of the variables they name.

    Only the nodes downstream of a replaced variable are rebuilt; the rest
    of the graph, the inputs and the replacements themselves are kept as
    they are. A key that is not in the graph is an error when ``strict``
    and ignored otherwise. Returns a list when given one.
    """
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    in_graph = set(ancestors(outs))
    memo: dict[Any, Any] = {}
    unused = []
    for old, new in _pairs(replace):
        if old in in_graph:
            memo[old] = new
        else:
            unused.append(old)
    if unused and strict:
        raise ValueError(f"Some replacements were not used: {unused}")
    for node in io_toposort(list(graph_inputs(outs)), outs):
        if all(out in memo for out in node.outputs):
            continue
        new_inputs = [memo.get(i, i) for i in node.inputs]
        if all(a is b for a, b in zip(new_inputs, node.inputs, strict=True)):
            continue
        rebuilt = node.clone_with_new_inputs(new_inputs)
        for old, new in zip(node.outputs, rebuilt.outputs, strict=True):
            memo.setdefault(old, new)
    result = [memo.get(o, o) for o in outs]
    return result[0] if single else result


__all__ = ["clone_replace", "graph_replace"]
