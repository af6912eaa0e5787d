"""Pattern heads that match a class of ops by their parameters, as
PyTensor's ``pytensor.graph.rewriting.unify``: ``OpPattern(MyOp, x=1)``
in a `PatternNodeRewriter`'s input pattern matches the nodes of any
``MyOp`` whose ``x`` is 1. The graph structure is matched by the Rust core;
it asks `OpPattern.match_op` about each candidate node's op, because the
parameters are the op's Python attributes.
"""

from collections.abc import Mapping, Sequence
from typing import Any


class LiteralString:
    """A string an op parameter must equal. A bare string in an
    `OpPattern` names a binding instead, so ``OpPattern(MyOp,
    mode=LiteralString("fast"))`` is how to ask for the text itself."""

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"LiteralString needs a str, got {value!r}")
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LiteralString) and other.value == self.value

    def __hash__(self) -> int:
        return hash((LiteralString, self.value))

    def __repr__(self) -> str:
        return f"LiteralString({self.value!r})"


class OpPattern:
    """A pattern head: an instance of ``op_type`` whose parameters match.

    Each parameter is a value the op's attribute must equal, a string that
    binds the attribute's value under that name (the same name must bind
    equal values, and the output pattern's callable finds it in ``subs``),
    a `LiteralString`, or a nested `OpPattern` for an attribute that is
    itself an op (an ``Elemwise``'s ``scalar_op``, say).
    """

    def __init__(
        self,
        op_type: type,
        parameters: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(op_type, type):
            raise TypeError(f"OpPattern needs an Op class, got {op_type!r}")
        params = dict(parameters or {})
        overlap = params.keys() & kwargs.keys()
        if overlap:
            raise ValueError(f"OpPattern parameters given twice: {sorted(overlap)}")
        params.update(kwargs)
        self.op_type = op_type
        self.parameters = tuple(params.items())

    def match_op(self, op: Any, subs: dict[str, Any]) -> bool:
        """Whether ``op`` fits; new bindings are added to ``subs`` (which
        holds the parameters bound so far)."""
        if not isinstance(op, self.op_type):
            return False
        for name, expected in self.parameters:
            if not hasattr(op, name):
                return False
            if not _param_fits(getattr(op, name), expected, subs):
                return False
        return True

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.parameters)
        name = self.op_type.__name__
        return f"OpPattern({name}, {params})" if params else f"OpPattern({name})"

    __str__ = __repr__


def _param_fits(value: Any, expected: Any, subs: dict[str, Any]) -> bool:
    """One parameter: a literal, a binding name, a nested pattern or a value."""
    if isinstance(expected, LiteralString):
        return bool(value == expected.value)
    if isinstance(expected, str):
        if expected in subs:
            return bool(subs[expected] == value)
        subs[expected] = value
        return True
    if isinstance(expected, OpPattern):
        return expected.match_op(value, subs)
    return bool(value == expected)


__all__ = ["LiteralString", "OpPattern"]
