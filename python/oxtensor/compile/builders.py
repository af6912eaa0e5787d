"""`OpFromGraph`: an op whose computation is a graph the user built.

The user's graph is cloned into an inner `FunctionGraph` whose inputs are
`NominalVariable`s (so two ops built from the same expression have the very
same inner inputs and compare equal). Shared variables the graph reads are
captured as implicit inputs placed after the explicit ones. The inner graph
is compiled on first `perform`; with ``inline=True`` the compiler replaces
the node by its inner graph instead (`ofg_inline`). Gradients and
pushforwards are graphs derived from the inner one (`ofg_derivatives`).
"""

import copy as _copy
import warnings
from typing import Any

from oxtensor.compile import ofg_derivatives as derivatives
from oxtensor.compile.ofg_graph import (
    check_inputs,
    connection_pattern_of,
    inner_graph,
    same_inner_graph,
)
from oxtensor.compile.sharedvalue import SharedVariable
from oxtensor.graph.basic import Apply
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import HasInnerGraph, Op

_DEPRECATED = {
    "lop_overrides": "pullback",
    "grad_overrides": "pullback",
    "rop_overrides": "pushforward",
}


def _renamed_overrides(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Pops PyTensor's former override keywords, with their FutureWarning."""
    found = {}
    for old, new in _DEPRECATED.items():
        if old in kwargs:
            warnings.warn(
                f"{old} is deprecated in favor of {new}",
                FutureWarning,
                stacklevel=3,
            )
            value = kwargs.pop(old)
            if old == "grad_overrides" and callable(value):
                value = derivatives.from_grad_override(value)
            found[new] = value
    return found


class OpFromGraph(Op, HasInnerGraph):
    """``OpFromGraph(inputs, outputs, *, inline=False, pullback=None,
    pushforward=None, connection_pattern=None, strict=False, name=None,
    destroy_map=None, **kwargs)``: an op computing ``outputs`` from
    ``inputs``; ``kwargs`` go to `function` when the inner graph is
    compiled (``mode``, ``on_unused_input``...)."""

    def __init__(
        self,
        inputs: list[Any],
        outputs: list[Any],
        *,
        inline: bool = False,
        pullback: Any = None,
        pushforward: Any = None,
        connection_pattern: list[list[bool]] | None = None,
        strict: bool = False,
        name: str | None = None,
        destroy_map: dict[int, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        renamed = _renamed_overrides(kwargs)
        pullback = renamed.get("pullback", pullback)
        pushforward = renamed.get("pushforward", pushforward)
        _check_override("pullback", pullback, allow_list=True)
        _check_override("pushforward", pushforward, allow_list=False)
        if "updates" in kwargs or "givens" in kwargs:
            raise NotImplementedError("OpFromGraph does not accept updates or givens")
        check_inputs(inputs, outputs, kwargs.get("on_unused_input"))
        self.fgraph, self.shared_inputs = inner_graph(inputs, outputs, strict)
        self.is_inline = inline
        self.name = name
        self.kwargs = kwargs
        self.destroy_map = dict(destroy_map or {})
        self._pullback = pullback
        self._pushforward = pushforward
        self._connection_pattern = connection_pattern
        self._fn: Any = None
        self._derived: dict[Any, Any] = {}

    # HasInnerGraph
    @property
    def inner_inputs(self) -> list[Any]:
        return list(self.fgraph.inputs)

    @property
    def inner_outputs(self) -> list[Any]:
        return list(self.fgraph.outputs)

    @property
    def fn(self) -> Any:
        """The inner graph compiled with the op's ``kwargs`` (once)."""
        if self._fn is None:
            from oxtensor.compile.function import function

            # An input the outputs do not read is legal (PyTensor compiles
            # inner graphs the same way); the user's kwargs may say otherwise.
            kwargs = {"on_unused_input": "ignore", **self.kwargs}
            self._fn = function(self.inner_inputs, self.inner_outputs, **kwargs)
        return self._fn

    def clone(self) -> "OpFromGraph":
        """The op over a copy of its inner graph (same inner inputs)."""
        copy = _copy.copy(self)
        copy.fgraph = FunctionGraph(self.inner_inputs, self.inner_outputs, clone=True)
        copy._fn = None
        copy._derived = {}
        return copy

    # identity
    def __str__(self) -> str:
        return f"{self.name or type(self).__name__}{{inline={self.is_inline}}}"

    def __eq__(self, other: Any) -> bool:
        if self is other:
            return True
        return (
            type(self) is type(other)
            and self._key() == other._key()
            and all(
                a is b
                for a, b in zip(self.shared_inputs, other.shared_inputs, strict=True)
            )
            and same_inner_graph(self.fgraph, other.fgraph)
            and derivatives.same_overrides(self, other)
        )

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[Any, ...]:
        """What equal ops share, cheap to compare (the graphs are not)."""
        return (
            type(self),
            self.is_inline,
            tuple(sorted((k, tuple(v)) for k, v in self.destroy_map.items())),
            tuple(v.type for v in self.fgraph.inputs),
            tuple(v.type for v in self.fgraph.outputs),
            tuple(type(n.op).__name__ for n in self.fgraph.toposort()),
            len(self.shared_inputs),
            self._pullback is None,
            self._pushforward is None,
        )

    # building nodes
    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        explicit = len(self.fgraph.inputs) - len(self.shared_inputs)
        if len(inputs) == explicit:
            inputs = (*inputs, *self.shared_inputs)
        elif len(inputs) != len(self.fgraph.inputs):
            raise ValueError(
                f"Expected at least {explicit} input(s) for {self}, got {len(inputs)}"
            )
        return super().__call__(*inputs, **kwargs)

    def make_node(self, *inputs: Any) -> Apply:
        inner = self.fgraph.inputs
        if len(inputs) != len(inner):
            raise ValueError(
                f"Expected {len(inner)} input(s) for {self}, got {len(inputs)}"
            )
        checked = [
            _filtered(self, i, t.type, v)
            for i, (t, v) in enumerate(zip(inner, inputs, strict=True))
        ]
        explicit = len(inner) - len(self.shared_inputs)
        given = checked[explicit:]
        if any(g is not s for g, s in zip(given, self.shared_inputs, strict=True)):
            return self._with_new_shared(checked[:explicit], given)
        outputs = [o.type() for o in self.fgraph.outputs]
        return Apply(self, checked, outputs)

    def _with_new_shared(self, explicit: list[Any], given: list[Any]) -> Apply:
        """The node of a new op whose implicit inputs are the shared
        variables in ``given``; what is not shared becomes explicit."""
        from oxtensor.graph.replace import clone_replace

        nominal = self.fgraph.inputs[len(explicit) :]
        shared = {
            n: g
            for n, g in zip(nominal, given, strict=True)
            if isinstance(g, SharedVariable)
        }
        plain = [(n, g) for n, g in zip(nominal, given, strict=True) if n not in shared]
        outputs = clone_replace(self.inner_outputs, replace=shared)
        new_inputs = self.fgraph.inputs[: len(explicit)] + [n for n, _ in plain]
        op = type(self)(
            new_inputs,
            outputs,
            inline=self.is_inline,
            pullback=self._pullback,
            pushforward=self._pushforward,
            connection_pattern=self._connection_pattern,
            name=self.name,
            destroy_map=self.destroy_map,
            **self.kwargs,
        )
        return op.make_node(*explicit, *(g for _, g in plain), *op.shared_inputs)

    # running
    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        results = self.fn(*inputs)
        if not isinstance(results, list):
            results = [results]
        for slot, value in zip(output_storage, results, strict=True):
            slot[0] = value

    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> Any:
        from oxtensor.compile.ofg_shape import output_shapes

        return output_shapes(self, node, shapes)

    # derivatives
    def connection_pattern(self, node: Any) -> list[list[bool]]:
        if self._connection_pattern is not None:
            return [list(row) for row in self._connection_pattern]
        if "connection_pattern" not in self._derived:
            self._derived["connection_pattern"] = connection_pattern_of(self.fgraph)
        return [list(row) for row in self._derived["connection_pattern"]]

    def L_op(self, inputs: Any, outputs: Any, output_grads: Any) -> list[Any]:
        return derivatives.pullback(
            self, list(inputs), list(outputs), list(output_grads)
        )

    def R_op(self, inputs: Any, eval_points: Any) -> list[Any]:
        return derivatives.pushforward(self, list(inputs), list(eval_points))


def _check_override(what: str, value: Any, allow_list: bool) -> None:
    """A callable (an `OpFromGraph` is one), or for ``pullback`` a list of
    per-input entries."""
    if value is None or callable(value):
        return
    if isinstance(value, list) and not allow_list:
        raise NotImplementedError(
            f"OpFromGraph: a list of {what} overrides is not supported; "
            "pass a callable or an OpFromGraph"
        )
    if not isinstance(value, list):
        raise TypeError(
            f"OpFromGraph: {what} must be a callable, an OpFromGraph or a list, "
            f"got {value!r}"
        )


def _filtered(op: OpFromGraph, i: int, typ: Any, value: Any) -> Any:
    """``value`` as a variable of ``typ``, or a TypeError naming the op."""
    try:
        return typ.filter_variable(value)
    except TypeError as e:
        raise TypeError(f"{op}: input {i} must be of type {typ}: {e}") from e


__all__ = ["OpFromGraph"]

# Registers the rewrite that expands inline ops (it imports this module).
from oxtensor.compile import ofg_inline  # noqa: E402, F401
