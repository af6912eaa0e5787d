"""The shape of a draw: its batch lengths (from ``size``, or the
parameters' batch shapes broadcast as NumPy does) followed by its core
lengths (named in the signature, read from the parameters that share the
names). Static lengths for ``make_node``; symbolic ones for ``infer_shape``."""

from typing import Any


def _batch_ndims(op: Any, params: list) -> list[int]:
    return [p.ndim - nd for p, nd in zip(params, op.ndims_params, strict=True)]


def batch_static_shape(op: Any, params: list) -> tuple:
    """The broadcast of the parameters' static batch shapes: a length is
    known when one parameter has it (not 1), or when all have 1."""
    ndims = _batch_ndims(op, params)
    ndim = max(ndims, default=0)
    shape = []
    for axis in range(ndim):
        lengths = [
            p.type.shape[axis - (ndim - nb)]
            for p, nb in zip(params, ndims, strict=True)
            if axis >= ndim - nb
        ]
        known = [n for n in lengths if n is not None and n != 1]
        if known:
            shape.append(known[0])
        elif all(n == 1 for n in lengths):
            shape.append(1)
        else:
            shape.append(None)
    return tuple(shape)


def _batch_dims(op: Any, node: Any, param_shapes: list) -> list:
    """Symbolic batch lengths without ``size``: per axis, the first
    parameter length that is not statically 1 (NumPy broadcasting)."""
    params = op.dist_params(node)
    ndims = _batch_ndims(op, params)
    ndim = max(ndims, default=0)
    dims = []
    for axis in range(ndim):
        chosen: Any = 1
        for p, nb, shape in zip(params, ndims, param_shapes, strict=True):
            if axis < ndim - nb:
                continue
            i = axis - (ndim - nb)
            if p.type.shape[i] != 1:
                chosen = shape[i]
                break
        dims.append(chosen)
    return dims


def infer_draw_shape(op: Any, node: Any, input_shapes: list) -> list:
    """The draw's shape as lengths (ints or scalar graphs)."""
    from oxtensor.tensor.random.utils import size_entries
    from oxtensor.tensor.type_other import NoneTypeT

    size = node.inputs[1]
    params = op.dist_params(node)
    param_shapes = list(input_shapes[2:])
    if isinstance(size.type, NoneTypeT):
        batch = _batch_dims(op, node, param_shapes)
    else:
        batch = size_entries(size)
    core = []
    for name in op._core_out[0]:
        for p, names, shape in zip(params, op._core_in, param_shapes, strict=True):
            if name in names:
                core.append(shape[p.ndim - len(names) + names.index(name)])
                break
    return [*batch, *core]


__all__ = ["batch_static_shape", "infer_draw_shape"]
