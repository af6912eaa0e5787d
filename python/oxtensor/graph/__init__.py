"""Graph structures: variables, apply nodes, ops, types and function graphs."""

from oxtensor.graph.basic import (
    Apply,
    Constant,
    Variable,
    ancestors,
    clone_get_equiv,
    equal_computations,
    graph_inputs,
)
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op
from oxtensor.graph.replace import clone_replace, graph_replace, vectorize_graph
from oxtensor.graph.rewriting.utils import rewrite_graph
from oxtensor.graph.type import Type

__all__ = [
    "Apply",
    "Constant",
    "FunctionGraph",
    "Op",
    "Type",
    "Variable",
    "ancestors",
    "clone_get_equiv",
    "clone_replace",
    "equal_computations",
    "graph_inputs",
    "graph_replace",
    "rewrite_graph",
    "vectorize_graph",
]
