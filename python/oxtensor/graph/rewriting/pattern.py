"""`PatternNodeRewriter` and `SubstitutionNodeRewriter`, as PyTensor's (in
``pytensor.graph.rewriting.basic``, which re-exports them from here): the
tuple pattern language, translated for the Rust core's matcher."""

from collections.abc import Sequence
from typing import Any

from oxtensor import _core
from oxtensor.graph.rewriting.unify import OpPattern

NodeRewriter = _core.NodeRewriter


class Asterisk:
    """At the end of a pattern tuple: binds the node's remaining inputs to
    ``name`` (they are spliced into an output tuple that names it)."""

    def __init__(self, name: str) -> None:
        self._asterisk_name = name

    def __repr__(self) -> str:
        return f"Asterisk({self._asterisk_name!r})"


def _pattern_str(p: Any) -> str:
    if isinstance(p, tuple):
        return f"{p[0]}({', '.join(_pattern_str(a) for a in p[1:])})"
    if isinstance(p, dict):
        return str(p.get("pattern"))
    if isinstance(p, Asterisk):
        return f"*{p._asterisk_name}"
    return str(p)


class _CorePattern(NodeRewriter):
    """The core's matcher and builder for one pattern pair."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        self._set_pattern(*args)


class PatternNodeRewriter(NodeRewriter):
    """``in_pattern -> out_pattern`` in PyTensor's tuple language: ``(op,
    sub, ...)`` matches a node of ``op`` (inputs of commutative ops in any
    order), or of any op an `OpPattern` head accepts; a string binds a
    variable (the same string must bind the same one), ``{"pattern": name,
    "constraint": f}`` also tests it, numbers, arrays and constants match
    constants by value. The output is a tuple template, a name, a constant,
    or ``f(fgraph, node, subs)``. The matcher is the core's.

    ``tracks`` (with ``get_nodes(fgraph, node)``, the nodes to try the
    pattern at) replaces the head op as what the rewriter is asked about;
    ``values_eq_approx`` is set on the replacement's ``tag``.
    """

    def __init__(
        self,
        in_pattern: Any,
        out_pattern: Any,
        allow_multiple_clients: bool = False,
        name: str | None = None,
        tracks: Sequence[Any] = (),
        get_nodes: Any = None,
        values_eq_approx: Any = None,
        allow_cast: bool = True,
    ) -> None:
        super().__init__()
        if tracks and get_nodes is None:
            raise ValueError("PatternNodeRewriter(tracks=...) also needs get_nodes")
        self.in_pattern = in_pattern
        self.out_pattern = out_pattern
        self.allow_multiple_clients = allow_multiple_clients
        self.values_eq_approx = values_eq_approx
        self.get_nodes = get_nodes
        self.name = name
        self.op = in_pattern[0] if isinstance(in_pattern, tuple) else None
        self._tracks = list(tracks) or None
        text = f"{_pattern_str(in_pattern)} -> {_pattern_str(out_pattern)}"
        self._text = name or text
        args = (in_pattern, out_pattern, allow_multiple_clients, self._text, allow_cast)
        if tracks or get_nodes is not None or values_eq_approx is not None:
            # Python's `transform` runs: it adds to what the core matcher does.
            self._matcher: Any = _CorePattern(*args)
        else:
            self._matcher = None
            self._set_pattern(*args)

    def tracks(self) -> Any:
        if self._tracks is not None:
            return self._tracks
        if isinstance(self.op, OpPattern):
            return [self.op.op_type]
        return None if self.op is None else [self.op]

    def transform(
        self, fgraph: Any, node: Any, get_nodes: bool = True, **kwargs: Any
    ) -> Any:
        """The replacement for ``node``'s output, or ``None``; with
        ``get_nodes``, the first node it gives where the pattern matches
        is replaced (a dict ``{its output: replacement}``)."""
        if self._matcher is None:
            return super().transform(fgraph, node)
        if get_nodes and self.get_nodes is not None:
            for real in self.get_nodes(fgraph, node):
                if real == "output":
                    continue
                new = self.transform(fgraph, real, get_nodes=False)
                if new:
                    return dict(zip(real.outputs, new, strict=True))
        new = self._matcher.transform(fgraph, node)
        if new and self.values_eq_approx is not None:
            for v in new:
                v.tag.values_eq_approx = self.values_eq_approx
        return new

    def __str__(self) -> str:
        return self._text


class SubstitutionNodeRewriter(NodeRewriter):
    """``op1(*inputs) -> op2(*inputs)`` for nodes of ``op1``, every output
    replaced (nodes with several outputs included)."""

    def __init__(self, op1: Any, op2: Any, transfer_tags: bool = True) -> None:
        super().__init__()
        self.op1, self.op2 = op1, op2
        self.transfer_tags = transfer_tags
        self._text = f"{op1} -> {op2}"
        self._set_substitution(op1, op2, self._text)

    def tracks(self) -> list[Any]:
        return [self.op1]

    def __str__(self) -> str:
        return self._text


__all__ = ["Asterisk", "PatternNodeRewriter", "SubstitutionNodeRewriter"]
