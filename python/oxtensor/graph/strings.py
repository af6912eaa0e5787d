"""`as_string`: a graph written as nested calls, ``"mul(add(x, y), z)"``,
with a value used more than once written out once and then referred to."""

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from oxtensor.graph.traversal import io_toposort


def _call(node: Any, args: list[str]) -> str:
    return f"{node.op}({', '.join(args)})"


def as_string(
    inputs: Iterable[Any],
    outputs: Iterable[Any],
    leaf_formatter: Callable[[Any], str] = str,
    node_formatter: Callable[[Any, list[str]], str] = _call,
) -> list[str]:
    """One string per output: ``inputs`` and owner-less variables through
    ``leaf_formatter``, every node between through
    ``node_formatter(node, input_strings)``. A node whose outputs are read
    more than once is written ``*k -> ...`` the first time and ``*k`` after.
    """
    inputs, outputs = list(inputs), list(outputs)
    leaves = set(inputs)
    reads: Counter[Any] = Counter()
    for node in io_toposort(inputs, outputs):
        reads.update(v.owner for v in node.inputs if v.owner and v not in leaves)
    reads.update(v.owner for v in outputs if v.owner and v not in leaves)
    labels: dict[Any, str] = {}

    def describe(var: Any) -> str:
        if var in leaves or var.owner is None:
            return leaf_formatter(var)
        node = var.owner
        if node in labels:
            return labels[node]
        if reads[node] > 1:
            labels[node] = f"*{len(labels) + 1}"
            args = [describe(v) for v in node.inputs]
            return f"{labels[node]} -> {node_formatter(node, args)}"
        return node_formatter(node, [describe(v) for v in node.inputs])

    return [describe(v) for v in outputs]


__all__ = ["as_string"]
