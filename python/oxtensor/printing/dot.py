"""`pydotprint`: a graph drawn with Graphviz through the ``pydot`` package.

Each node of the graph is a box labelled with its op, each variable an
ellipse labelled with its name (or type); inputs are green, outputs blue,
constants grey, and an edge carries the input's position when the node
has more than one. ``pydot`` is optional: without it, `_try_pydot_import`
raises `ImportError` naming the package.
"""

import os
from typing import Any

_COLOURS = {"input": "limegreen", "output": "dodgerblue", "constant": "lightgrey"}


def _try_pydot_import() -> Any:
    """The ``pydot`` module, or `ImportError` saying how to get it."""
    try:
        import pydot
    except ImportError as err:
        raise ImportError(
            "pydotprint needs the Python package pydot (pip install pydot) "
            "and Graphviz's dot program to render"
        ) from err
    return pydot


def _graph_of(fct: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """The inputs, outputs and nodes (in order) of a function, a function
    graph, a variable or a list of variables."""
    from oxtensor.graph.traversal import graph_inputs, io_toposort

    fgraph = getattr(getattr(fct, "maker", None), "fgraph", None)
    if fgraph is None and hasattr(fct, "toposort"):
        fgraph = fct
    if fgraph is not None:
        return list(fgraph.inputs), list(fgraph.outputs), list(fgraph.toposort())
    outputs = list(fct) if isinstance(fct, list | tuple) else [fct]
    inputs = list(graph_inputs(outputs))
    return inputs, outputs, list(io_toposort(inputs, outputs))


def _variable_style(var: Any, inputs: list, outputs: list) -> dict[str, str]:
    from oxtensor.graph.basic import Constant

    kind = (
        "output"
        if var in outputs
        else "constant"
        if isinstance(var, Constant)
        else "input"
        if var in inputs
        else None
    )
    label = var.name if var.name is not None else str(var.type)
    style = {"label": label, "shape": "ellipse"}
    if kind is not None:
        style.update(style="filled", fillcolor=_COLOURS[kind])
    return style


def build_dot(fct: Any, rankdir: str = "TB") -> Any:
    """The ``pydot.Dot`` of ``fct``'s graph."""
    pydot = _try_pydot_import()
    inputs, outputs, nodes = _graph_of(fct)
    graph = pydot.Dot(graph_type="digraph", rankdir=rankdir)
    names: dict[int, str] = {}

    def name_of(obj: Any) -> str:
        return names.setdefault(id(obj), f"n{len(names)}")

    def add_var(var: Any) -> str:
        known = id(var) in names
        name = name_of(var)
        if not known:
            graph.add_node(pydot.Node(name, **_variable_style(var, inputs, outputs)))
        return name

    for node in nodes:
        box = name_of(node)
        graph.add_node(pydot.Node(box, label=str(node.op), shape="box"))
        for k, inp in enumerate(node.inputs):
            label = str(k) if len(node.inputs) > 1 else ""
            graph.add_edge(pydot.Edge(add_var(inp), box, label=label))
        for out in node.outputs:
            graph.add_edge(pydot.Edge(box, add_var(out)))
    for var in [*inputs, *outputs]:
        add_var(var)
    return graph


def pydotprint(
    fct: Any,
    outfile: str | None = None,
    compact: bool = True,
    format: str = "png",
    with_ids: bool = False,
    high_contrast: bool = True,
    cond_highlight: Any = None,
    colorCodes: Any = None,
    max_label_size: int = 70,
    scan_graphs: bool = False,
    var_with_name_simple: bool = False,
    print_output_file: bool = True,
    return_image: bool = False,
    rankdir: str = "TB",
) -> Any:
    """Draws ``fct``'s graph to ``outfile`` (``format``, by Graphviz), or
    returns the image's bytes with ``return_image``. The styling keywords
    PyTensor has (``compact``, ``high_contrast``, ``colorCodes``, ...) are
    accepted; the drawing has one style."""
    del compact, with_ids, high_contrast, cond_highlight, colorCodes
    del max_label_size, scan_graphs, var_with_name_simple
    graph = build_dot(fct, rankdir=rankdir)
    if return_image:
        return graph.create(prog="dot", format=format)
    if outfile is None:
        outfile = os.path.join(os.path.expanduser("~"), f"oxtensor_graph.{format}")
    graph.write(outfile, prog="dot", format=format)
    if print_output_file:
        print("The output file is available at", outfile)
    return None


__all__ = ["_try_pydot_import", "build_dot", "pydotprint"]
