"""Graph rewriting: node and graph rewriters, the drivers that run them and
the databases that organise them. The drivers run in the Rust core; the
rewriters may be written in Python."""

from oxtensor.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    MergeOptimizer,
    NodeRewriter,
    SequentialGraphRewriter,
    WalkingGraphRewriter,
    graph_rewriter,
    in2out,
    node_rewriter,
    out2in,
)
from oxtensor.graph.rewriting.utils import rewrite_graph

__all__ = [
    "EquilibriumGraphRewriter",
    "GraphRewriter",
    "MergeOptimizer",
    "NodeRewriter",
    "SequentialGraphRewriter",
    "WalkingGraphRewriter",
    "graph_rewriter",
    "in2out",
    "node_rewriter",
    "out2in",
    "rewrite_graph",
]
