"""`clone_replace` (a copy of a graph with some variables substituted),
`graph_replace` (the graph rebuilt only where a substitution reaches, every
other variable kept) and `vectorize_graph` (the graph rebuilt for batched
replacements, the core's rules per op; `_vectorize_node` holds the rules
users register for their own ops)."""

from collections.abc import Sequence
from functools import singledispatch
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


def _replacements(replace: Any) -> list[tuple[Any, Any]]:
    pairs = _pairs(replace)
    bad = [
        (old, new)
        for old, new in pairs
        if not (isinstance(old, Variable) and isinstance(new, Variable))
    ]
    if bad:
        raise ValueError(f"Some of the replaced items are not Variables: {bad}")
    return pairs


@singledispatch
def _vectorize_node(op: Any, node: Any, *batched_inputs: Any) -> Any:
    """``node`` rebuilt on ``batched_inputs``, inputs with extra leading
    (batch) axes; returns the new ``Apply``.

    Register a rule for an op class with ``_vectorize_node.register``; ops
    without one follow the core's rules (``Elemwise`` broadcasts, axes
    shift, any other op becomes a ``Blockwise`` of itself).
    """
    outputs = _core._vectorize_node(node, list(batched_inputs), _host_rule)
    return outputs[0].owner


def _host_rule(op: Any, node: Any, *batched_inputs: Any) -> list[Any] | None:
    """The outputs of a rule registered for ``op``'s class, or ``None``
    when only the default applies (the core then makes a ``Blockwise``)."""
    rule = _vectorize_node.dispatch(type(op))
    if rule is _vectorize_node.dispatch(object):
        return None
    return list(rule(op, node, *batched_inputs).outputs)


def vectorize_node(node: Any, *batched_inputs: Any) -> Any:
    """``node`` rebuilt on ``batched_inputs`` (see ``_vectorize_node``)."""
    return _vectorize_node(node.op, node, *batched_inputs)


def vectorize_graph(outputs: Any, replace: Any) -> Any:
    """``outputs`` rebuilt with the keys of ``replace`` (a dict or pairs)
    substituted by batched variables: each replacement may have extra
    leading axes, and every node that depends on one is vectorized over
    them. Returns a list when given a sequence.

    Examples
    --------
    >>> import oxtensor.tensor as ot
    >>> x = ot.vector("x")
    >>> y = ot.exp(x) / ot.exp(x).sum()
    >>> new_x = ot.matrix("new_x")
    >>> vectorize_graph(y, {x: new_x}).type.ndim
    2
    """
    single = not isinstance(outputs, Sequence)
    outs = [outputs] if single else list(outputs)
    result = _core._vectorize_graph(outs, _replacements(replace), _host_rule)
    return result[0] if single else result


__all__ = [
    "clone_replace",
    "graph_replace",
    "vectorize_graph",
    "vectorize_node",
]
