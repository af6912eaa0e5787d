"""Conversions to tensor variables, with PyTensor's constant autocasting; the
shape, creation and joining functions (``alloc``, ``zeros``, ``arange``,
``eye``, ``join``, ``stack``, ``split``, ...)."""

import builtins as _builtins
import functools as _functools
from collections.abc import Sequence as _Sequence
from typing import Any as _Any

import numpy as _np

from oxtensor import _core
from oxtensor.configdefaults import config as _config
from oxtensor.tensor import _layout


def as_tensor_variable(
    x: _Any, name: str | None = None, ndim: int | None = None, dtype: _Any = None
) -> _Any:
    """``x`` as a tensor variable: variables as they are, data as constants,
    a ``range`` as an ``arange`` node (as PyTensor builds it)."""
    if isinstance(x, range):
        if ndim is not None and ndim != 1:
            raise ValueError(f"ndim for range must be 1, got {ndim}")
        out = arange(x.start, x.stop, x.step, dtype=dtype)
        if name is not None:
            out.name = name
        return out
    if isinstance(x, _np.ma.MaskedArray):
        raise NotImplementedError("MaskedArrays are not supported")
    if dtype is None and isinstance(x, list | tuple) and len(x) == 0:
        # An empty sequence has no elements to take a dtype from: floatX.
        dtype = _config.floatX
    return _core.as_tensor_variable(x, name=name, ndim=ndim, dtype=dtype)


as_tensor = as_tensor_variable
constant = _core.constant

__all__ = ["as_tensor", "as_tensor_variable", "constant"]

# ---- shape, creation and joining (issue 4 sections 4 and 6) ----------------
# Each function composes the built-in ops as PyTensor's function of the same
# name does, so `dprint` reads the same; the ops live in the Rust core.

Alloc = _core.Alloc
AllocEmpty = _core.AllocEmpty
ARange = _core.ARange
Eye = _core.Eye
Join = _core.Join
MakeVector = _core.MakeVector
Split = _core.Split


def _is_var(x: _Any) -> bool:
    return isinstance(x, _core.Variable)


def _dim(x: _Any, i: int) -> _Any:
    """Length ``i`` of ``x``: an int when static, else a ``Shape_i`` node."""
    n = x.type.shape[i]
    return n if n is not None else _core.Shape_i(i)(x)


def _shape_entries(shape: _Any) -> list[_Any]:
    """A shape argument as a list of lengths (ints or integer scalars)."""
    if isinstance(shape, int | _np.integer):
        return [shape]
    if isinstance(shape, _np.ndarray) and shape.ndim == 0:
        return [shape]  # `np.array(5)`: one length, as NumPy reads it
    if not _is_var(shape):
        return list(shape)
    if shape.ndim == 0:
        return [shape]
    owner = shape.owner
    if owner is not None and isinstance(owner.op, _core.Shape):
        src = owner.inputs[0]
        return [_dim(src, i) for i in range(src.ndim)]
    n = shape.type.shape[0]
    if n is None:
        raise ValueError(
            f"a shape given as a vector needs a static length, got {shape.type}"
        )
    if n == 0:
        return []
    parts = split(shape, [1] * n, n_splits=n, axis=0) if n > 1 else [shape]
    return [p.dimshuffle() for p in parts]


def alloc(value: _Any, *shape: _Any) -> _Any:
    """``value`` broadcast to ``shape`` (one length per argument), as a new array.

    >>> import oxtensor.tensor as ot
    >>> ot.alloc(ot.dscalar("a"), 3, ot.iscalar("n")).type
    TensorType(float64, shape=(3, None))
    """
    return Alloc()(value, *shape)


def full(shape: _Any, fill_value: _Any, dtype: _Any = None) -> _Any:
    """An array of ``shape`` filled with ``fill_value`` (its dtype by default)."""
    value = as_tensor_variable(fill_value)
    if dtype is not None and str(_np.dtype(dtype)) != value.dtype:
        value = value.astype(str(_np.dtype(dtype)))
    return alloc(value, *_shape_entries(shape))


def zeros(shape: _Any, dtype: _Any = None) -> _Any:
    """An array of zeros (floatX by default)."""
    dtype = _config.floatX if dtype is None else dtype
    return alloc(_np.array(0, dtype=dtype), *_shape_entries(shape))


def ones(shape: _Any, dtype: _Any = None) -> _Any:
    """An array of ones (floatX by default)."""
    dtype = _config.floatX if dtype is None else dtype
    return alloc(_np.array(1, dtype=dtype), *_shape_entries(shape))


def empty(shape: _Any, dtype: _Any = None) -> _Any:
    """An uninitialised array (``AllocEmpty``; floatX by default)."""
    dtype = _config.floatX if dtype is None else dtype
    return AllocEmpty(str(_np.dtype(dtype)))(*_shape_entries(shape))


def full_like(a: _Any, fill_value: _Any, dtype: _Any = None) -> _Any:
    """``fill_value`` broadcast to ``a``'s shape (``fill``), of its own dtype."""
    from oxtensor.tensor import math

    value = as_tensor_variable(fill_value)
    if dtype is not None:
        value = value.astype(str(_np.dtype(dtype)))
    return math.second(as_tensor_variable(a), value)


def empty_like(a: _Any, dtype: _Any = None) -> _Any:
    """An uninitialised array shaped like ``a``."""
    a = as_tensor_variable(a)
    dtype = a.dtype if dtype is None else str(_np.dtype(dtype))
    return AllocEmpty(dtype)(*[_dim(a, i) for i in range(a.ndim)])


def _arange_dtype(dtypes: list[str]) -> str:
    """PyTensor's rule: the inputs' upcast, integers widened to int64. Under
    ``cast_policy="numpy+floatX"``, NumPy's own ``arange`` dtype, except that
    a float64 result is floatX when no input is float64."""
    if _config.cast_policy == "numpy+floatX":
        probes = [_np.array(v, dtype=d) for v, d in zip((0, 1, 1), dtypes, strict=True)]
        found = _np.arange(*probes).dtype
        if found == _np.float64 and "float64" not in dtypes:
            return str(_config.floatX)
        return str(found)
    up = _np.result_type(*[_np.dtype(d) for d in dtypes])
    if up.kind in "biu" and up != _np.uint64:
        return "int64"
    return str(up)


def arange(start: _Any, stop: _Any = None, step: _Any = 1, dtype: _Any = None) -> _Any:
    """Evenly spaced values in ``[start, stop)``, as NumPy's ``arange``.

    >>> import oxtensor.tensor as ot
    >>> ot.arange(10).type
    TensorType(int64, shape=(10,))
    """
    if stop is None:
        start, stop = 0, start
    args = [as_tensor_variable(v) for v in (start, stop, step)]
    for a in args:
        if a.ndim != 0:
            raise TypeError(
                f"arange's start, stop and step must be scalars, got {a.type}"
            )
    if dtype is None:
        dtype = _arange_dtype([a.dtype for a in args])
    return _arange_op(str(_np.dtype(dtype)))(*args)


@_functools.cache
def _arange_op(dtype: str) -> _Any:
    """One `ARange` per dtype, as PyTensor keeps them (its nodes share the op)."""
    return ARange(dtype)


def eye(n: _Any, m: _Any = None, k: _Any = 0, dtype: _Any = None) -> _Any:
    """An ``n`` by ``m`` array with ones on diagonal ``k`` (floatX by default)."""
    dtype = _config.floatX if dtype is None else str(_np.dtype(dtype))
    return Eye(dtype)(n, n if m is None else m, k)


def identity_like(x: _Any, dtype: _Any = None) -> _Any:
    """Ones on the diagonal of an array shaped like the matrix ``x``."""
    x = as_tensor_variable(x)
    dtype = x.dtype if dtype is None else dtype
    return eye(_dim(x, 0), _dim(x, 1), 0, dtype=dtype)


def _prod(a: _Any, b: _Any) -> _Any:
    return a * b


def _reshape_to(x: _Any, dims: list[_Any]) -> _Any:
    """``x`` reshaped to ``dims``: a constant shape when all are ints, else
    a ``MakeVector{int64}``."""
    if _builtins.all(isinstance(d, int | _np.integer) for d in dims):
        return x.reshape([int(d) for d in dims], ndim=len(dims))
    vec = MakeVector("int64")(*[_int64(d) for d in dims])
    return x.reshape(vec, ndim=len(dims))


def _int64(d: _Any) -> _Any:
    if isinstance(d, int | _np.integer):
        return _core.constant(_np.int64(d))
    d = as_tensor_variable(d)
    return d if d.dtype == "int64" else d.astype("int64")


def flatten(x: _Any, ndim: int = 1) -> _Any:
    """``x`` with its trailing axes merged so it has ``ndim`` axes."""
    x = as_tensor_variable(x)
    if ndim < 1 or ndim > _builtins.max(x.ndim, 1):
        raise ValueError(f"ndim {ndim} is out of bounds for a {x.ndim}-d input")
    if ndim == x.ndim:
        return x
    if ndim == 1:
        return x.reshape([-1], ndim=1)
    return _reshape_to(x, [*[_dim(x, i) for i in range(ndim - 1)], -1])


def _normalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def expand_dims(a: _Any, axis: _Any) -> _Any:
    """``a`` with new length-1 axes at the positions ``axis`` (in the result)."""
    a = as_tensor_variable(a)
    axes = [axis] if isinstance(axis, int | _np.integer) else list(axis)
    out_ndim = a.ndim + len(axes)
    new = sorted(_normalize_axis(int(ax), out_ndim) for ax in axes)
    if len(set(new)) != len(new):
        raise ValueError("repeated axis in expand_dims")
    src = iter(range(a.ndim))
    return a.dimshuffle(*["x" if i in new else next(src) for i in range(out_ndim)])


def swapaxes(y: _Any, axis1: int, axis2: int) -> _Any:
    """``y`` with two axes exchanged (a ``DimShuffle``)."""
    y = as_tensor_variable(y)
    order = list(range(y.ndim))
    a1, a2 = _normalize_axis(axis1, y.ndim), _normalize_axis(axis2, y.ndim)
    order[a1], order[a2] = order[a2], order[a1]
    return y.dimshuffle(*order)


def transpose(x: _Any, axes: _Any = None) -> _Any:
    """``x`` with its axes permuted (reversed when ``axes`` is None); ``x``
    itself when the order changes nothing. A full reversal of a named ``x``
    is named ``x.T``, as PyTensor names it."""
    x = as_tensor_variable(x)
    reverse = list(range(x.ndim))[::-1]
    order = reverse if axes is None else [_normalize_axis(int(a), x.ndim) for a in axes]
    if order == list(range(x.ndim)):
        return x
    out = x.dimshuffle(*order)
    if x.name and order == reverse:
        out.name = f"{x.name}.T"
    return out


def matrix_transpose(x: _Any) -> _Any:
    """``x`` with its last two axes exchanged (NumPy's ``matrix_transpose``)."""
    x = as_tensor_variable(x)
    if x.ndim < 2:
        raise ValueError(
            f"Input array must be at least 2-dimensional, but it is {x.ndim}"
        )
    return swapaxes(x, -1, -2)


def is_flat(var: _Any, ndim: int = 1) -> bool:
    """Whether ``var`` has exactly ``ndim`` axes."""
    return as_tensor_variable(var).ndim == ndim


def moveaxis(a: _Any, source: _Any, destination: _Any) -> _Any:
    """``a`` with axes ``source`` moved to ``destination`` (NumPy's rules)."""
    a = as_tensor_variable(a)
    src = [source] if isinstance(source, int | _np.integer) else list(source)
    dst = (
        [destination]
        if isinstance(destination, int | _np.integer)
        else list(destination)
    )
    if len(src) != len(dst):
        raise ValueError(
            "`source` and `destination` arguments must have the same number of elements"
        )
    src = [_normalize_axis(int(s), a.ndim) for s in src]
    dst = [_normalize_axis(int(d), a.ndim) for d in dst]
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return a.dimshuffle(*order)


def join(axis: _Any, *tensors_list: _Any) -> _Any:
    """The tensors concatenated along ``axis`` (which may be symbolic).

    >>> import oxtensor.tensor as ot
    >>> ot.join(0, ot.tensor(shape=(2, 3)), ot.tensor(shape=(4, 3))).type
    TensorType(float64, shape=(6, 3))
    """
    if len(tensors_list) == 1:
        return as_tensor_variable(tensors_list[0])
    if isinstance(axis, int | _np.integer) and axis < 0 and tensors_list:
        # PyTensor normalises a constant negative axis when building the node.
        ndim = as_tensor_variable(tensors_list[0]).ndim
        axis = _normalize_axis(int(axis), ndim) if ndim else axis
    return Join()(axis, *tensors_list)


def concatenate(tensor_list: _Any, axis: _Any = 0) -> _Any:
    """The tensors of a list or tuple joined along ``axis``."""
    if not isinstance(tensor_list, tuple | list):
        raise TypeError(
            "The 'tensors' argument must be either a tuple or a list, make sure "
            "you did not forget () or [] around arguments of concatenate.",
            tensor_list,
        )
    return join(axis, *tensor_list)


def stack(tensors: _Sequence[_Any], axis: int = 0) -> _Any:
    """The tensors joined along a new axis; scalars give a ``MakeVector``."""
    if not isinstance(tensors, _Sequence) or _is_var(tensors):
        raise TypeError("First argument should be a Sequence.")
    if len(tensors) == 0:
        raise ValueError("No tensor arguments provided.")
    tensors = [as_tensor_variable(t) for t in tensors]
    if axis == 0 and _builtins.all(t.ndim == 0 for t in tensors):
        # A `MakeVector`, also of constants (as PyTensor's `stack`).
        return _core.stack_list(list(tensors))
    return join(axis, *[expand_dims(t, axis) for t in tensors])


def split(x: _Any, splits_size: _Any, *, n_splits: _Any = None, axis: _Any = 0) -> _Any:
    """``x`` cut along ``axis`` into pieces of the given lengths (views)."""
    splits = as_tensor_variable(splits_size, ndim=1)
    if n_splits is None:
        n_splits = splits.type.shape[0]
        if n_splits is None:
            raise ValueError(
                "split needs n_splits when splits_size has no static length"
            )
    if not _is_var(splits_size):
        splits = _core.constant(_np.asarray(splits_size, dtype="int64"))
    return Split(int(n_splits))(x, axis, splits)


def horizontal_stack(*args: _Any) -> _Any:
    """Matrices joined along axis 1 (PyTensor's rule: all must be 2-d)."""
    return concatenate(_two_d(args), axis=1)


def vertical_stack(*args: _Any) -> _Any:
    """Matrices joined along axis 0 (PyTensor's rule: all must be 2-d)."""
    return concatenate(_two_d(args), axis=0)


def _two_d(args: tuple[_Any, ...]) -> list[_Any]:
    if len(args) < 2:
        raise ValueError("Too few arguments")
    out = [as_tensor_variable(a) for a in args]
    if _builtins.any(a.ndim != 2 for a in out):
        raise ValueError("All arguments must have two dimensions")
    return out


__all__ += [
    "ARange",
    "Alloc",
    "AllocEmpty",
    "Eye",
    "Join",
    "MakeVector",
    "Split",
    "alloc",
    "arange",
    "concatenate",
    "empty",
    "empty_like",
    "expand_dims",
    "eye",
    "flatten",
    "full",
    "full_like",
    "horizontal_stack",
    "identity_like",
    "is_flat",
    "join",
    "matrix_transpose",
    "moveaxis",
    "ones",
    "split",
    "stack",
    "swapaxes",
    "tile",
    "transpose",
    "vertical_stack",
    "zeros",
]

# ---- nonzero (issue 4 section 7), in tensor/nonzero.py ---------------------
from oxtensor.tensor.nonzero import (  # noqa: E402
    Nonzero,
    flatnonzero,
    nonzero,
    nonzero_values,
)

__all__ += ["Nonzero", "flatnonzero", "nonzero", "nonzero_values"]

# ---- casts as ops (PyTensor's `_convert_to_*`), in tensor/conversions.py --------
from oxtensor.tensor.conversions import *  # noqa: E402, F403
from oxtensor.tensor.conversions import _CONVERTERS, cast  # noqa: E402

globals().update(_CONVERTERS)
__all__ += ["cast"]


def get_vector_length(v: _Any) -> int:
    """The length of vector `v` when the graph knows it (its static shape,
    which the ops' type inference fills for `shape(x)`, `MakeVector`,
    `SpecifyShape`, constant slices, joins of known vectors, ...)."""
    v = as_tensor_variable(v)
    if v.type.ndim != 1:
        raise TypeError(f"Argument must be a vector; got {v.type}")
    length = v.type.shape[0]
    if length is None:
        raise ValueError(f"Length of {v} cannot be determined")
    return int(length)


__all__ += ["get_vector_length"]

# PyTensor's names for functions defined elsewhere in `oxtensor.tensor`.
__getattr__ = _layout.forwarder(
    __name__,
    {
        *"atleast_Nd diag fill get_underlying_scalar_constant_value".split(),
        *"ones_like roll second switch tensor_copy trace tri tril triu".split(),
        *"where zeros_like".split(),
        *"AllocDiag ExtractDiag alloc_diag diagonal tensor TensorVariable".split(),
        *"mgrid ogrid tril_indices tril_indices_from".split(),
        *"triu_indices triu_indices_from".split(),
        *"Choose PermuteRowElements choose inverse_permutation".split(),
        *"permute_row_elements".split(),
    },
)

from oxtensor.scalar.conversion import (  # noqa: E402
    ScalarFromTensor,
    TensorFromScalar,
    scalar_from_tensor,
    tensor_from_scalar,
)

__all__ += [
    "ScalarFromTensor",
    "TensorFromScalar",
    "scalar_from_tensor",
    "tensor_from_scalar",
]

# ---- constants, shapes and lists (PyTensor's tensor.basic helpers) ----------

#: ``make_vector(a, b, ...)``: integer scalars as an int64 vector (``MakeVector``).
make_vector = MakeVector()


def get_scalar_constant_value(
    v: _Any,
    elemwise: bool = True,
    only_process_constants: bool = False,
    max_recur: int = 10,
    raise_not_constant: bool = True,
) -> _Any:
    """``get_underlying_scalar_constant_value`` for a scalar ``v`` only: a
    non-scalar raises ``NotScalarConstantError`` even when it holds one
    repeated value."""
    from oxtensor.tensor.constants import get_underlying_scalar_constant_value
    from oxtensor.tensor.exceptions import NotScalarConstantError

    ndim = v.ndim if _is_var(v) else _np.ndim(v)
    if ndim != 0:
        if raise_not_constant:
            raise NotScalarConstantError(f"{v!r} is not a scalar (ndim={ndim})")
        return v
    return get_underlying_scalar_constant_value(
        v,
        elemwise=elemwise,
        only_process_constants=only_process_constants,
        max_recur=max_recur,
        raise_not_constant=raise_not_constant,
    )


def _static_entries(shape: _Any) -> list[_Any] | None:
    """The entries of a shape vector that is a constant (possibly behind
    ``SpecifyShape``), else None."""
    if not _is_var(shape) or shape.ndim != 1:
        return None
    from oxtensor.graph.basic import Constant

    while shape.owner is not None and isinstance(shape.owner.op, _core.SpecifyShape):
        shape = shape.owner.inputs[0]
    if isinstance(shape, Constant):
        return [int(d) for d in shape.data]
    return None


def infer_static_shape(shape: _Any) -> tuple[list[_Any], tuple[int | None, ...]]:
    """A shape argument as int64 scalar variables and the static lengths it
    gives (``None`` where not constant), as ``Alloc`` reads its lengths;
    non-integer entries raise ``TypeError``."""
    from oxtensor.tensor.constants import get_underlying_scalar_constant_value

    known = _static_entries(shape)
    entries = known if known is not None else _shape_entries(shape)
    out, static = [], []
    for e in entries:
        v = as_tensor_variable(e, ndim=0)
        if v.dtype[:3] not in ("int", "uin"):
            raise TypeError(f"Shapes must be scalar integers; got {v.type}: {v}")
        out.append(v if v.dtype == "int64" else v.astype("int64"))
        value = get_underlying_scalar_constant_value(v, raise_not_constant=False)
        static.append(None if _is_var(value) else int(value))
    return out, tuple(static)


def stacklists(arg: _Any) -> _Any:
    """Nested lists of scalars or tensors stacked into one tensor (their
    nesting gives the leading axes)."""
    if isinstance(arg, tuple | list):
        return stack([stacklists(a) for a in arg])
    return arg


__all__ += [
    "get_scalar_constant_value",
    "infer_static_shape",
    "make_vector",
    "stacklists",
]

# Built from `arange`, `alloc` and `flatten` above, so imported once they exist.
from oxtensor.tensor.gathering import take_along_axis  # noqa: E402
from oxtensor.tensor.tiling import tile  # noqa: E402

__all__ += ["take_along_axis"]
