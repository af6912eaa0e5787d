"""Gradients and pushforwards of `OpFromGraph` nodes.

Without an override, each is itself an `OpFromGraph` built once per op
(and per pattern of connected output gradients, or of given tangents)
from the inner graph with `oxtensor.gradient`'s pullback/pushforward, then
called on the node's inputs. Overrides (``pullback=``/``pushforward=``) are
a callable, an `OpFromGraph`, or for ``pullback`` a list with one entry
per input (None: the inner graph's gradient; a variable: that gradient;
a callable: that input's gradient).
"""

from collections.abc import Callable
from typing import Any, cast

from oxtensor.graph.basic import Variable, equal_computations
from oxtensor.graph.nominal import NominalVariable
from oxtensor.graph.null_type import NullType
from oxtensor.graph.op import HasInnerGraph


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, list | tuple) else [x]


def _disconnected(v: Any) -> bool:
    from oxtensor.gradient import DisconnectedType

    return isinstance(v.type, DisconnectedType)


def from_grad_override(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A former ``grad_overrides(inputs, output_grads)`` as a pullback."""
    return lambda inputs, outputs, grads: fn(inputs, grads)


def _call_pullback(
    ov: Any, inputs: list[Any], outputs: list[Any], grads: list[Any]
) -> Any:
    if isinstance(ov, HasInnerGraph):
        from oxtensor.tensor.basic import zeros_like

        grads = [
            zeros_like(o) if _disconnected(g) else g
            for o, g in zip(outputs, grads, strict=True)
        ]
        return cast(Any, ov)(*inputs, *outputs, *grads)
    return ov(inputs, outputs, grads)


def _derived(op: Any, key: Any, build: Callable[[], Any]) -> Any:
    if key not in op._derived:
        op._derived[key] = build()
    return op._derived[key]


def _kind(term: Any) -> str:
    if _disconnected(term):
        return "disconnected"
    return "null" if isinstance(term.type, NullType) else "value"


def _override_terms(
    entry: Any, inner_in: list[Any], inner_out: list[Any], grads: list[Any]
) -> list[Any]:
    """A callable override's terms on the inner variables."""
    return _as_list(_call_pullback(entry, inner_in, inner_out, grads))


def _pullback_op(
    op: Any, connected: tuple[bool, ...], ov: Any
) -> tuple[Any, list[Any]]:
    """The op giving the inputs' gradients from the inputs, the outputs and
    the connected output gradients, and what each input's gradient is (a
    term of kind "value" comes from the op). Built on the inner graph, so
    the node reads every input, as PyTensor's does."""
    from oxtensor.gradient import disconnected_type, pullback

    inner_in, inner_out = list(op.fgraph.inputs), list(op.fgraph.outputs)
    cotangents = [o.type() for o, c in zip(inner_out, connected, strict=True) if c]
    if ov is None:
        fs = [o for o, c in zip(inner_out, connected, strict=True) if c]
        terms = pullback(
            fs,
            inner_in,
            cotangents,
            disconnected_inputs="ignore",
            return_disconnected="disconnected",
        )
    else:
        given = iter(cotangents)
        grads = [next(given) if c else disconnected_type() for c in connected]
        terms = _override_terms(ov, inner_in, inner_out, grads)
        if len(terms) != len(inner_in):
            raise ValueError(
                f"{op}: the pullback override returned {len(terms)} terms "
                f"for {len(inner_in)} inputs"
            )
    values = [t for t in terms if _kind(t) == "value"]
    grad_op = None
    if values:
        grad_op = _plain_ofg()(
            [*inner_in, *inner_out, *cotangents],
            values,
            inline=op.is_inline,
            on_unused_input="ignore",
        )
    return grad_op, terms


def _derived_pullback(
    op: Any, inputs: list[Any], outputs: list[Any], grads: list[Any], ov: Any
) -> list[Any]:
    """The gradients from the op built for this pattern of connected
    output gradients: the inner graph's (``ov`` None) or the callable
    override ``ov``'s."""
    from oxtensor.gradient import disconnected_type

    connected = tuple(not _disconnected(g) for g in grads)
    if ov is None and not any(connected):
        return [disconnected_type() for _ in inputs]
    key = ("pullback", connected, ov is None)
    grad_op, terms = _derived(op, key, lambda: _pullback_op(op, connected, ov))
    given = [g for g, c in zip(grads, connected, strict=True) if c]
    made = iter(
        _as_list(grad_op(*inputs, *outputs, *given)) if grad_op is not None else []
    )
    kinds = {
        "value": lambda t: next(made),
        "disconnected": lambda t: disconnected_type(),
    }
    return [kinds.get(_kind(t), lambda t: t)(t) for t in terms]


def pullback(
    op: Any, inputs: list[Any], outputs: list[Any], grads: list[Any]
) -> list[Any]:
    """The node's `L_op`: the override, else the inner graph's gradient."""
    ov = op._pullback
    if ov is None or (callable(ov) and not isinstance(ov, HasInnerGraph)):
        return _derived_pullback(op, inputs, outputs, grads, ov)
    if not isinstance(ov, list):
        return _as_list(_call_pullback(ov, inputs, outputs, grads))
    if len(ov) != len(inputs):
        raise ValueError(
            f"{op}: the pullback list has {len(ov)} entries for {len(inputs)} inputs"
        )
    default: list[Any] = []
    result = []
    for k, entry in enumerate(ov):
        if entry is None:
            default = default or _derived_pullback(op, inputs, outputs, grads, None)
            result.append(default[k])
        elif isinstance(entry, Variable):
            result.append(entry)
        else:
            result.append(_call_pullback(entry, inputs, outputs, grads))
    return result


def _pushforward_op(op: Any, given: tuple[bool, ...]) -> Any:
    from oxtensor.gradient import pushforward

    inner_in, inner_out = op.fgraph.inputs, op.fgraph.outputs
    wrt = [i for i, g in zip(inner_in, given, strict=True) if g]
    tangents = [w.type() for w in wrt]
    terms = pushforward(
        list(inner_out),
        wrt,
        tangents,
        disconnected_outputs="ignore",
        return_disconnected="zero",
        use_op_pushforward=True,
    )
    return _plain_ofg()(
        [*inner_in, *tangents],
        _as_list(terms),
        inline=op.is_inline,
        on_unused_input="ignore",
    )


def _plain_ofg() -> Any:
    """The class of derived ops: a plain `OpFromGraph`, whatever subclass
    the op is (the gradient of a `Pad` is no `Pad`, and a subclass's
    constructor may take arguments of its own)."""
    # Imported here: builders imports this module.
    from oxtensor.compile.builders import OpFromGraph

    return OpFromGraph


def pushforward(op: Any, inputs: list[Any], points: list[Any]) -> list[Any]:
    """The node's `R_op`: the override, else the inner graph's pushforward;
    None tangents are zero."""
    ov = op._pushforward
    if ov is not None and not isinstance(ov, HasInnerGraph):
        return _as_list(ov(inputs, points))
    if ov is not None:
        from oxtensor.tensor.basic import zeros_like

        points = [
            zeros_like(i) if p is None else p
            for i, p in zip(inputs, points, strict=True)
        ]
        return _as_list(cast(Any, ov)(*inputs, *points))
    given = tuple(p is not None for p in points)
    if not any(given):
        return [None for _ in op.fgraph.outputs]
    rop = _derived(op, ("pushforward", given), lambda: _pushforward_op(op, given))
    return _as_list(rop(*inputs, *(p for p in points if p is not None)))


# Equality of overrides: two callables are the same override when they
# build the same graph on the op's inner variables.


def _placeholders(first: int, like: list[Any]) -> list[Any]:
    return [NominalVariable(first + k, v.type) for k, v in enumerate(like)]


def _symbolic(op: Any, entry: Any, kind: str) -> list[Any]:
    inner_in, inner_out = list(op.fgraph.inputs), list(op.fgraph.outputs)
    if kind == "pushforward":
        return _as_list(entry(inner_in, _placeholders(len(inner_in), inner_in)))
    grads = _placeholders(len(inner_in), inner_out)
    return _override_terms(entry, inner_in, inner_out, grads)


def _same_terms(xs: list[Any], ys: list[Any]) -> bool:
    if len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys, strict=True):
        if _disconnected(x) or _disconnected(y):
            if not (_disconnected(x) and _disconnected(y)):
                return False
        elif not equal_computations([x], [y]):
            return False
    return True


def _same_entry(a: Any, b: Any, ea: Any, eb: Any, kind: str) -> bool:
    if ea is eb:
        return True
    if ea is None or eb is None or isinstance(ea, Variable) or isinstance(eb, Variable):
        return False
    if isinstance(ea, HasInnerGraph) or isinstance(eb, HasInnerGraph):
        return bool(ea == eb)
    try:
        return _same_terms(_symbolic(a, ea, kind), _symbolic(b, eb, kind))
    except Exception:
        return False


def _same_override(a: Any, b: Any, kind: str) -> bool:
    ova, ovb = getattr(a, f"_{kind}"), getattr(b, f"_{kind}")
    if isinstance(ova, list) and isinstance(ovb, list):
        return len(ova) == len(ovb) and all(
            _same_entry(a, b, x, y, kind) for x, y in zip(ova, ovb, strict=True)
        )
    if isinstance(ova, list) or isinstance(ovb, list):
        return False
    return _same_entry(a, b, ova, ovb, kind)


def same_overrides(a: Any, b: Any) -> bool:
    """Whether two ops with equal inner graphs have the same overrides."""
    return (
        _same_override(a, b, "pullback")
        and _same_override(a, b, "pushforward")
        and a._connection_pattern == b._connection_pattern
    )
