"""PyTensor's `printing` module: `debugprint` / `dprint` (the core's text,
in PyTensor 3.x's format, or a Rich tree with ``file="rich"``), the
expression printers (`pprint`/`pp`, `PPrinter`, `PatternPrinter`, ...),
`min_informative_str`, `get_node_by_id`, the `Print` op and `pydotprint`."""

import sys
from typing import Any

from oxtensor import _core
from oxtensor.printing import lines
from oxtensor.printing.dot import _try_pydot_import, pydotprint
from oxtensor.printing.letters import char_from_number
from oxtensor.printing.pretty import *  # noqa: F403 (the expression printers)
from oxtensor.printing.pretty import __all__ as _PRETTY
from oxtensor.printing.print_op import Print


def debugprint(
    graph_like: Any,
    depth: int = -1,
    print_type: bool = False,
    print_shape: bool = False,
    file: Any = None,
    id_type: str = "CHAR",
    stop_on_name: bool = False,
    done: Any = None,
    print_storage: bool = False,
    used_ids: dict | None = None,
    **kwargs: Any,
) -> Any:
    """Prints the graph of a variable, a node, a list of them, a
    `FunctionGraph` or a compiled function, one line per variable
    (``Add [id A]``), a node met again elided as ``···``, then the inner
    graphs of ops that have one. To stdout by default; ``file="str"``
    returns the text, ``file="rich"`` a ``rich.tree.Tree``, another
    ``file`` is written to. ``used_ids`` is filled with each printed
    object's ``"[id X]"``. ``done`` is accepted for PyTensor's signature."""
    del done
    options = dict(
        depth=depth,
        print_type=print_type,
        print_shape=print_shape,
        id_type=id_type,
        stop_on_name=stop_on_name,
        print_storage=print_storage,
        **kwargs,
    )
    rich = isinstance(file, str) and file == "rich"
    if not rich and used_ids is None:
        return _core.debugprint(graph_like, file=file, **options)
    text = _core.debugprint(graph_like, file="str", **options)
    printout = lines.parse(text)
    if used_ids is not None:
        found = lines.objects(printout, _printed_roots(graph_like))
        used_ids.update({obj: f"[id {i}]" for i, obj in found.items()})
    if rich:
        from oxtensor.printing.rich_tree import tree

        return tree(printout)
    # The text is made once; it goes where ``file`` says, as the core's would.
    if isinstance(file, str) and file == "str":
        return text
    out = sys.stdout if file is None else file
    out.write(text)
    return out


def _printed_roots(graph_like: Any) -> list[Any]:
    """The variables whose trees the printout begins with, in order."""
    fgraph = getattr(getattr(graph_like, "maker", None), "fgraph", graph_like)
    if hasattr(fgraph, "outputs") and hasattr(fgraph, "toposort"):
        return list(fgraph.outputs)
    if isinstance(graph_like, list | tuple):
        return [r for item in graph_like for r in _printed_roots(item)]
    if hasattr(graph_like, "op") and hasattr(graph_like, "outputs"):
        return list(graph_like.outputs)
    return [graph_like]


def get_node_by_id(graphs: Any, target_var_id: str, id_types: str = "CHAR") -> Any:
    """The node (or input variable) that `debugprint` of ``graphs`` labels
    ``[id target_var_id]``, or `None`."""
    used_ids: dict = {}
    debugprint(graphs, file="str", used_ids=used_ids, id_type=id_types)
    by_id = {label: obj for obj, label in used_ids.items()}
    return by_id.get(f"[id {target_var_id}]")


dprint = debugprint

__all__ = [
    *_PRETTY,
    "Print",
    "_try_pydot_import",
    "char_from_number",
    "debugprint",
    "dprint",
    "get_node_by_id",
    "pydotprint",
]
