"""Shape entries of the op table: shape, reshape, flatten, the axis
rearrangements, broadcast_to, specify_shape, the alloc family, arange, eye,
tile and repeat (str forms read from PyTensor 3)."""

from typing import Any

import numpy as np
import oxtensor.tensor as ot

from tests.tensor.op_spec import (
    NO_GRAD_INT,
    NO_GRAD_LEN,
    NO_GRAD_VALUES,
    Spec,
    on_arrays,
    one,
    scalar_int,
)


def _like(f: Any, ref: Any, op: str, **kw: Any) -> Spec:
    """A ``*_like`` function: a (2, 3) input of any dtype, no gradient values."""
    return on_arrays(f, ref, [(2, 3)], op, zero_d=one(()), grad=NO_GRAD_VALUES, **kw)


def _of_length(f: Any, ref: Any, op: str, **kw: Any) -> Spec:
    """A creation function of one int64 length ``n``: no gradient."""
    common = {
        "zero_d": "the input is the 0-d length",
        "empty": scalar_int(0),
        "grad": NO_GRAD_LEN,
    }
    return Spec(f, ref, scalar_int(2), op, ["int64"], **common, **kw)


SHAPE: dict[str, Spec] = {
    "shape": on_arrays(
        ot.shape,
        lambda a: np.array(a.shape, "int64"),
        [(2, 3)],
        "Shape",
        zero_d=one(()),
        grad=NO_GRAD_INT,
    ),
    "reshape": on_arrays(
        lambda a: ot.reshape(a, (-1, 1)),
        lambda a: a.reshape(-1, 1),
        [(3, 4)],
        "Reshape{2}",
        zero_d=one(()),
    ),
    "flatten": on_arrays(
        ot.flatten,
        lambda a: a.reshape(-1),
        [(2, 3, 2)],
        "Reshape{1}",
        zero_d=one(()),
        empty=one((0, 4)),
    ),
    "transpose": on_arrays(
        ot.transpose,
        np.transpose,
        [(2, 3, 4)],
        "Transpose{axes=(2, 1, 0)}",
        zero_d=one(()),
        empty=one((2, 0, 4)),
    ),
    "dimshuffle": on_arrays(
        lambda a: a.dimshuffle(1, "x", 0),
        lambda a: np.expand_dims(a.T, 1),
        [(2, 3)],
        "DimShuffle{order=[1,x,0]}",
    ),
    "swapaxes": on_arrays(
        lambda a: ot.swapaxes(a, 0, -1),
        lambda a: np.swapaxes(a, 0, -1),
        [(2, 3, 4)],
        "Transpose{axes=(2, 1, 0)}",
    ),
    "expand_dims": on_arrays(
        lambda a: ot.expand_dims(a, -1),
        lambda a: np.expand_dims(a, -1),
        [(2, 3)],
        "ExpandDims{axis=2}",
        zero_d=one(()),
    ),
    "squeeze": on_arrays(
        lambda a: ot.squeeze(a, axis=-2),
        lambda a: np.squeeze(a, -2),
        [(2, 1, 3)],
        "Squeeze{axis=1}",
    ),
    "broadcast_to": on_arrays(
        # A new leading axis, the kept lengths, and a stretched last axis.
        lambda a: ot.broadcast_to(a, (2, *(a.shape[i] for i in range(a.ndim - 1)), 4)),
        lambda a: np.broadcast_to(a, (2, *a.shape[:-1], 4)),
        [(3, 1)],
        "Alloc",
        zero_d=one(()),
    ),
    "specify_shape": on_arrays(
        lambda a: ot.specify_shape(a, (None, 3)),
        lambda a: a,
        [(2, 3)],
        "SpecifyShape",
        zero_d="a 0-d input has no length to specify",
    ),
    "alloc": on_arrays(
        lambda a: ot.alloc(a, 2, *(a.shape[i] for i in range(a.ndim))),
        lambda a: np.broadcast_to(a, (2, *a.shape)).copy(),
        [(3,)],
        "Alloc",
        zero_d=one(()),
    ),
    "zeros_like": _like(ot.zeros_like, np.zeros_like, "Second"),
    "ones_like": _like(ot.ones_like, np.ones_like, "Second"),
    # PyTensor's rule: the fill value's dtype (int8 for 2), not the input's.
    "full_like": _like(
        lambda a: ot.full_like(a, 2),
        lambda a: np.full(a.shape, 2),
        "Second",
    ),
    "empty_like": _like(
        ot.empty_like,
        np.zeros_like,
        "AllocEmpty{dtype='complex128'}",
        canon=lambda v: np.zeros_like(v),
    ),
    "zeros": _of_length(
        lambda n: ot.zeros((n, 3)), lambda n: np.zeros((n, 3)), "Alloc"
    ),
    "ones": _of_length(lambda n: ot.ones((n, 3)), lambda n: np.ones((n, 3)), "Alloc"),
    "full": _of_length(
        lambda n: ot.full((n, 3), 1.5), lambda n: np.full((n, 3), 1.5), "Alloc"
    ),
    "empty": _of_length(
        lambda n: ot.empty((n, 3)),
        lambda n: np.zeros((n, 3)),
        "AllocEmpty{dtype='float64'}",
        canon=lambda v: np.zeros_like(v),
    ),
    "arange": Spec(
        lambda a, b: ot.arange(a, b, 0.5),
        lambda a, b: np.arange(a, b, 0.5),
        lambda dt, rng: [np.array(-1, dt), np.array(2, dt)],
        "ARange{dtype='float64'}",
        ["int64", "float32", "float64"],
        zero_d="the inputs are 0-d bounds",
        empty=lambda dt, rng: [np.array(2, dt), np.array(1, dt)],
        grad="the length is piecewise constant in the bounds",
    ),
    "eye": Spec(
        lambda n: ot.eye(n, n + 1, k=1),
        lambda n: np.eye(n, n + 1, k=1),
        scalar_int(3),
        "Eye{dtype='float64'}",
        ["int64"],
        zero_d="the input is the 0-d size",
        empty=scalar_int(0),
        grad=NO_GRAD_LEN,
    ),
    "identity_like": on_arrays(
        ot.identity_like,
        lambda a: np.eye(*a.shape, dtype=a.dtype),
        [(2, 3)],
        "Eye{dtype='complex128'}",
        zero_d="needs a matrix",
        grad=NO_GRAD_VALUES,
    ),
    "tile": on_arrays(
        lambda a: ot.tile(a, (2, 3)),
        lambda a: np.tile(a, (2, 3)),
        [(2, 3)],
        "Reshape{2}",
        zero_d=one(()),
    ),
    "repeat": on_arrays(
        lambda a: ot.repeat(a, 2, axis=-1),
        lambda a: np.repeat(a, 2, axis=-1),
        [(2, 3)],
        "Reshape{2}",
    ),
}
