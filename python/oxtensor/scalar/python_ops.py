"""Scalar ops written in Python: PyTensor's `ScalarOp` defaults for a
subclass the core has no kind for (``class MyOp(ScalarOp)`` with ``impl``
and ``output_types_preference``), called by the extension's `ScalarOp`
methods, and the output-type rules such a class names
(``upgrade_to_float``, ``upcast_out``, ...), computed by the core's dtype
rules. `Elemwise` of such an op maps ``impl`` over the elements
(`oxtensor.tensor.python_elemwise`)."""

from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.scalar.variable import as_scalar, get_scalar_type


def _rule(kind: str, types: Any) -> str:
    return _core.scalar_op(kind).output_dtype(*[t.dtype for t in types])


def upcast_out(*types: Any) -> tuple[Any, ...]:
    """NumPy's promotion of the inputs."""
    return (get_scalar_type(_rule("add", types)),)


def upgrade_to_float(*types: Any) -> tuple[Any, ...]:
    """Each input raised to a float, then promoted (``exp``'s rule)."""
    floats = [get_scalar_type(_rule("exp", [t])) for t in types]
    return upcast_out(*floats)


def same_out(type: Any) -> tuple[Any, ...]:
    """The input's own type."""
    return (type,)


def float_out(*types: Any) -> tuple[Any, ...]:
    """Always float64."""
    return (get_scalar_type("float64"),)


def int_out(*types: Any) -> tuple[Any, ...]:
    """Always int64."""
    return (get_scalar_type("int64"),)


def make_node(op: Any, *inputs: Any) -> Any:
    """The node of ``op`` on scalars: outputs of ``op.output_types``, or
    of ``output_types_preference`` applied to the input types."""
    from oxtensor.graph.basic import Apply

    inputs = [as_scalar(i) for i in inputs]
    nin = getattr(op, "nin", -1)
    if nin >= 0 and len(inputs) != nin:
        raise TypeError(
            f"Wrong number of inputs for {op}.make_node "
            f"(got {len(inputs)}, expected {nin})"
        )
    types = [i.type for i in inputs]
    own = getattr(op, "output_types", None)
    if own is not None:
        out_types = own(types)
    else:
        rule = getattr(op, "output_types_preference", None)
        if rule is None:
            raise NotImplementedError(
                f"{type(op).__name__} defines neither output_types "
                "nor output_types_preference"
            )
        out_types = rule(*types)
    return Apply(op, inputs, [t() for t in out_types])


def perform(op: Any, node: Any, inputs: Any, output_storage: Any) -> None:
    """``op.impl`` on the input values, each result as its output's dtype."""
    results = op.impl(*inputs)
    if len(node.outputs) == 1:
        results = [results]
    for out, storage, value in zip(node.outputs, output_storage, results, strict=True):
        # A scalar's value is a NumPy scalar.
        storage[0] = np.asarray(value, dtype=out.type.dtype)[()]


def equal(op: Any, other: Any) -> bool:
    """PyTensor's ``ScalarOp.__eq__``: same class, same output rule."""
    return type(op) is type(other) and getattr(
        op, "output_types_preference", None
    ) == getattr(other, "output_types_preference", None)


def op_hash(op: Any) -> int:
    """What `equal` compares, hashed."""
    rule = getattr(op, "output_types_preference", None)
    try:
        return hash((type(op), rule))
    except TypeError:
        return hash(type(op))
