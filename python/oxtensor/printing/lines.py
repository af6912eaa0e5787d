"""`debugprint`'s text read back as a tree of lines.

The core prints a graph (`_core.debugprint`); what PyTensor also offers on
top of that text, the ``used_ids`` map from objects to their ``[id X]``,
`get_node_by_id` and the Rich tree (``file="rich"``), is a reading of those
lines: each line's depth is where its branch mark stands, and the objects
are found by walking the printed graph beside the lines, input by input,
the way the printer went.
"""

import re
from dataclasses import dataclass, field
from typing import Any

#: A line's branch mark (``├─``, ``└─``) or an inner output's (``←``).
_MARK = re.compile(r"[├└←]")
_ID = re.compile(r" \[id (\w+)\]")
ELIDED = "···"
INNER_HEADER = "Inner graphs:"


@dataclass
class Line:
    """One printed line: its text after the branch mark, the lines below it."""

    text: str
    children: list["Line"] = field(default_factory=list)

    @property
    def id(self) -> str | None:
        found = _ID.search(self.text)
        return found.group(1) if found else None

    @property
    def elided(self) -> bool:
        return self.text == ELIDED


@dataclass
class Printout:
    """The outputs' trees, then each inner graph's (its op's line, with the
    inner outputs' trees below it)."""

    roots: list[Line]
    inner: list[Line]


def parse(text: str) -> Printout:
    """The tree of ``debugprint``'s ``text``."""
    head, _, tail = text.partition(f"\n{INNER_HEADER}\n")
    return Printout(_forest(head), _forest(tail))


def _forest(text: str) -> list[Line]:
    roots: list[Line] = []
    stack: list[Line] = []  # the open line at each depth
    for raw in text.splitlines():
        if not raw.strip():
            continue
        depth, body = _depth(raw)
        line = Line(body)
        del stack[depth:]
        (stack[-1].children if stack else roots).append(line)
        stack.append(line)
    return roots


def _depth(raw: str) -> tuple[int, str]:
    """The depth of a line and its text. A mark at column ``3 * d - 2``
    is depth ``d``; the core writes ``[+N]`` before lines deeper than it
    indents."""
    hidden = 0
    if raw.startswith("[+"):
        count, _, raw = raw[2:].partition("]")
        hidden = int(count)
    mark = _MARK.search(raw)
    if mark is None or raw[: mark.start()].strip(" │"):
        return hidden, raw.strip()
    return hidden + mark.start() // 3 + 1, raw[mark.end() + 1 :].lstrip("─ ")


def objects(printout: Printout, roots: list[Any]) -> dict[str, Any]:
    """The object each id stands for: a node (`Apply`) for a line of a
    computed variable, the variable itself for an input or a constant."""
    found: dict[str, Any] = {}
    for line, var in zip(printout.roots, roots, strict=False):
        _walk(line, var, found)
    for entry in printout.inner:
        node = found.get(entry.id or "")
        inner = _inner_outputs(node)
        for line, var in zip(entry.children, inner, strict=False):
            _walk(line, var, found)
    return found


def _walk(line: Line, var: Any, found: dict[str, Any]) -> None:
    stack = [(line, var)]
    while stack:
        line, var = stack.pop()
        owner = getattr(var, "owner", None)
        if line.id is not None:
            found.setdefault(line.id, owner if owner is not None else var)
        if owner is None:
            continue
        children = [c for c in line.children if not c.elided]
        stack.extend(zip(children, owner.inputs, strict=False))


def _inner_outputs(node: Any) -> list[Any]:
    op = getattr(node, "op", None)
    fgraph = getattr(op, "fgraph", None)
    if fgraph is not None:
        return list(fgraph.outputs)
    return list(getattr(op, "inner_outputs", []))


__all__ = ["ELIDED", "INNER_HEADER", "Line", "Printout", "objects", "parse"]
