"""`Elemwise` of a scalar op written in Python (``class MyOp(ScalarOp)``
with ``impl``): the core has no kernel for it, so the `Elemwise` is a
Python op whose methods `install` puts on the instance. ``make_node``
broadcasts as every `Elemwise` does (lower ranks padded with
``ExpandDims``), ``perform`` maps ``impl`` over the elements
(``numpy.frompyfunc``), and ``L_op`` lifts the scalar op's gradient to
tensors: its scalar graph spelled out as `Elemwise` nodes, summed over
the axes an input was broadcast along. As PyTensor's `Elemwise` does for
such ops."""

import types
from typing import Any

import numpy as np

from oxtensor.graph.basic import Apply, Constant


def install(op: Any) -> None:
    """Gives ``op`` (an `Elemwise` of a Python scalar op) its methods."""
    for name in ("make_node", "perform", "L_op"):
        setattr(op, name, types.MethodType(globals()[f"_{name}"], op))


def infer_shape_of(op: Any) -> Any:
    """``op.infer_shape``: each output has the broadcast shape of the
    inputs (a static length, else that of an input not broadcast there)."""
    return types.MethodType(_infer_shape, op)


def _infer_shape(self: Any, fgraph: Any, node: Any, input_shapes: Any = None) -> Any:
    if input_shapes is None:
        # PyTensor 3.x's two-argument form: (node, input_shapes).
        node, input_shapes = fgraph, node
    out_shape = node.outputs[0].type.shape
    shape = []
    for axis, length in enumerate(out_shape):
        if length is not None:
            shape.append(length)
            continue
        found = [
            s[axis]
            for i, s in zip(node.inputs, input_shapes, strict=True)
            if not i.type.broadcastable[axis]
        ]
        shape.append(found[0] if found else 1)
    return [tuple(shape)] * len(node.outputs)


def _broadcast_shape(shapes: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """Static output lengths: a shared known length, else unknown."""
    out = []
    for lengths in zip(*shapes, strict=True):
        known = {n for n in lengths if n is not None and n != 1}
        if len(known) > 1:
            raise ValueError(f"Incompatible Elemwise input shapes {shapes}")
        if known:
            out.append(known.pop())
        elif all(n == 1 for n in lengths):
            out.append(1)
        else:
            out.append(None)
    return tuple(out)


def _make_node(self: Any, *inputs: Any) -> Any:
    from oxtensor.scalar import get_scalar_type
    from oxtensor.tensor import as_tensor_variable
    from oxtensor.tensor.type import TensorType

    inputs = [as_tensor_variable(i) for i in inputs]
    ndim = max((i.type.ndim for i in inputs), default=0)
    inputs = [
        i
        if i.type.ndim == ndim
        else i.dimshuffle(*(["x"] * (ndim - i.type.ndim)), *range(i.type.ndim))
        for i in inputs
    ]
    shadow = self.scalar_op.make_node(
        *[get_scalar_type(i.type.dtype)() for i in inputs]
    )
    shape = _broadcast_shape([i.type.shape for i in inputs])
    outputs = [TensorType(o.type.dtype, shape=shape)() for o in shadow.outputs]
    return Apply(self, inputs, outputs)


def _perform(self: Any, node: Any, inputs: Any, output_storage: Any) -> None:
    nout = len(node.outputs)
    ufunc = np.frompyfunc(self.scalar_op.impl, len(inputs), nout)
    results = ufunc(*inputs)
    if nout == 1:
        results = (results,)
    for out, storage, value in zip(node.outputs, output_storage, results, strict=True):
        storage[0] = np.asarray(value, dtype=out.type.dtype)


def _L_op(self: Any, inputs: Any, outputs: Any, output_grads: Any) -> list[Any]:
    from oxtensor.gradient import DisconnectedType, NullType
    from oxtensor.scalar import get_scalar_type
    from oxtensor.tensor import as_tensor_variable
    from oxtensor.tensor.elemwise import Elemwise

    def as_scalar(t: Any) -> Any:
        if isinstance(t.type, NullType | DisconnectedType):
            return t
        return get_scalar_type(t.type.dtype)()

    s_inputs = [as_scalar(i) for i in inputs]
    s_grads = [as_scalar(g) for g in output_grads]
    s_outputs = self.scalar_op.make_node(*s_inputs).outputs
    s_terms = self.scalar_op.L_op(s_inputs, s_outputs, s_grads)
    ndim = inputs[0].type.ndim
    known = {
        **{id(s): t for s, t in zip(s_inputs, inputs, strict=True)},
        **{id(s): t for s, t in zip(s_outputs, outputs, strict=True)},
        **{id(s): t for s, t in zip(s_grads, output_grads, strict=True)},
    }

    def lift(r: Any) -> Any:
        if isinstance(r.type, NullType | DisconnectedType):
            return r
        if id(r) in known:
            return known[id(r)]
        if r.owner is None:
            if not isinstance(r, Constant):
                raise ValueError(
                    f"{r} in the gradient of {self} is not computed from its inputs"
                )
            value = as_tensor_variable(np.asarray(r.data, dtype=r.type.dtype))
            return value.dimshuffle(*(["x"] * ndim)) if ndim else value
        args = [lift(i) for i in r.owner.inputs]
        made = Elemwise(r.owner.op)(*args, return_list=True)
        return made[r.owner.outputs.index(r)]

    grads = []
    for term, x in zip(s_terms, inputs, strict=True):
        g = lift(term)
        if not isinstance(g.type, NullType | DisconnectedType):
            # Sum over the axes ``x`` was broadcast along.
            axes = [
                k
                for k, (a, b) in enumerate(
                    zip(x.type.broadcastable, g.type.broadcastable, strict=True)
                )
                if a and not b
            ]
            if axes:
                g = g.sum(axis=axes, keepdims=True)
        grads.append(g)
    return grads
