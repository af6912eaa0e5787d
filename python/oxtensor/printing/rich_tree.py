"""``debugprint(..., file="rich")``: the printout as a ``rich.tree.Tree``.

The root is hidden; its children are the outputs' trees, then an
``Inner graphs:`` branch when ops with inner graphs were printed. A node
printed more than once (its later lines end in ``···``) gets one colour on
all its lines, so a reader can find where a shared subgraph comes from;
the ``···`` under a repeat takes the bright variant of that colour.
"""

from collections import Counter
from typing import Any

from oxtensor.printing.lines import INNER_HEADER, Line, Printout

#: Rich's standard colours that read on dark and light terminals alike.
_COLOURS = ("cyan", "magenta", "green", "yellow", "blue", "red")


def tree(printout: Printout) -> Any:
    """The Rich tree of a parsed printout."""
    from rich.tree import Tree

    colours = _colours(printout)
    root = Tree("", hide_root=True)
    for line in printout.roots:
        _add(root, line, colours)
    if printout.inner:
        section = root.add(INNER_HEADER)
        for entry in printout.inner:
            _add(section, entry, colours)
    return root


def _colours(printout: Printout) -> dict[str, str]:
    """A colour for each id on more than one line, in order of first sight."""
    seen = Counter(line.id for line in _lines(printout) if line.id is not None)
    shared = [i for i, n in seen.items() if n > 1]
    return {i: _COLOURS[k % len(_COLOURS)] for k, i in enumerate(shared)}


def _lines(printout: Printout) -> list[Line]:
    out: list[Line] = []
    stack = list(reversed(printout.roots + printout.inner))
    while stack:
        line = stack.pop()
        out.append(line)
        stack.extend(reversed(line.children))
    return out


def _add(parent: Any, line: Line, colours: dict[str, str]) -> None:
    from rich.markup import escape

    stack = [(parent, line, None)]
    while stack:
        parent, line, colour_above = stack.pop()
        if line.elided:
            label = line.text
            if colour_above is not None:
                label = f"[bright_{colour_above}]{label}[/bright_{colour_above}]"
            parent.add(label)
            continue
        colour = colours.get(line.id or "")
        label = escape(line.text)
        if colour is not None:
            label = f"[{colour}]{label}[/{colour}]"
        branch = parent.add(label)
        stack.extend((branch, c, colour) for c in reversed(line.children))


__all__ = ["tree"]
