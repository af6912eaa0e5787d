"""The inner graph of an `OpFromGraph`: checking the user's inputs,
cloning the graph onto `NominalVariable` inputs with the shared variables
it reads as implicit inputs, comparing two inner graphs, and which inner
output depends on which inner input."""

from typing import Any

from oxtensor.compile.sharedvalue import SharedVariable
from oxtensor.graph.basic import Constant, Variable, equal_computations
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.nominal import NominalVariable
from oxtensor.graph.replace import clone_replace
from oxtensor.graph.traversal import graph_inputs
from oxtensor.graph.utils import MissingInputError


def _variables(xs: Any, what: str) -> list[Any]:
    if not isinstance(xs, list):
        raise TypeError(f"OpFromGraph: {what} must be a list, got {type(xs).__name__}")
    for x in xs:
        if not isinstance(x, Variable):
            raise TypeError(f"OpFromGraph: {what} must be Variables, got {x!r}")
    return xs


def check_inputs(inputs: Any, outputs: Any, on_unused_input: Any) -> None:
    """Lists of variables; an input given twice only with
    ``on_unused_input="ignore"`` (the copies are then distinct inputs)."""
    _variables(inputs, "inputs")
    _variables(outputs, "outputs")
    repeated = [v for k, v in enumerate(inputs) if any(v is w for w in inputs[:k])]
    if repeated and on_unused_input != "ignore":
        raise ValueError(
            "The following variables were provided more than once as inputs to the "
            f"OpFromGraph, resulting in an invalid graph: {repeated}. Pass "
            'on_unused_input="ignore" to allow it.'
        )


def _implicit_shared(inputs: list[Any], outputs: list[Any]) -> list[Any]:
    """The shared variables the outputs read beyond ``inputs``; any other
    free variable there is a MissingInputError."""
    shared, missing = [], []
    for v in graph_inputs(outputs, blockers=inputs):
        if any(v is i for i in inputs) or isinstance(v, Constant):
            continue
        if isinstance(v, SharedVariable):
            shared.append(v)
        else:
            missing.append(v)
    if missing:
        raise MissingInputError(
            f"OpFromGraph: the outputs depend on {missing}, which are neither "
            "inputs, shared variables nor constants"
        )
    return shared


def inner_graph(
    inputs: list[Any], outputs: list[Any], strict: bool
) -> tuple[Any, list[Any]]:
    """The inner `FunctionGraph` (inputs: one `NominalVariable` per
    explicit input, then per implicit shared variable) and the shared
    variables."""
    shared = _implicit_shared(inputs, outputs)
    if strict and shared:
        raise ValueError(
            "The inner-graph implicitly depends on the following shared variables "
            f"{shared}. Pass them as explicit inputs when strict=True"
        )
    outer = [*inputs, *shared]
    nominal = [NominalVariable(k, v.type) for k, v in enumerate(outer)]
    # A repeated input maps to its last copy; the other copies go unused.
    replace = {v: n for v, n in zip(outer, nominal, strict=True) if v is not n}
    inner_outputs = clone_replace(list(outputs), replace=replace)
    fgraph = FunctionGraph(nominal, inner_outputs, clone=False)
    return fgraph, shared


def same_inner_graph(a: Any, b: Any) -> bool:
    """Whether two inner graphs compute the same from the same inputs."""
    return (
        len(a.inputs) == len(b.inputs)
        and all(x.type == y.type for x, y in zip(a.inputs, b.inputs, strict=True))
        and equal_computations(
            list(a.outputs), list(b.outputs), list(a.inputs), list(b.inputs)
        )
    )


def _node_pattern(node: Any) -> list[list[bool]]:
    op_pattern = getattr(node.op, "connection_pattern", None)
    if op_pattern is not None:
        return op_pattern(node)
    return [[True] * len(node.outputs) for _ in node.inputs]


def connection_pattern_of(fgraph: Any) -> list[list[bool]]:
    """``[input][output]``: whether the inner output depends on the inner
    input, through each node's own connection pattern."""
    inputs, outputs = fgraph.inputs, fgraph.outputs
    reach: dict[int, set[int]] = {id(v): {k} for k, v in enumerate(inputs)}
    for node in fgraph.toposort():
        pattern = _node_pattern(node)
        for j, out in enumerate(node.outputs):
            reach[id(out)] = set().union(
                *(
                    reach.get(id(inp), set())
                    for i, inp in enumerate(node.inputs)
                    if pattern[i][j]
                )
            )
    return [[k in reach.get(id(o), set()) for o in outputs] for k in range(len(inputs))]
