"""`TensorType` and the variable constructors (`dmatrix`, `vector`, `tensor`, ...)."""

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.configdefaults import config as _config

TensorType = _core.TensorType

# The dtype families PyTensor code tests membership in.
complex_dtypes = ["complex64", "complex128"]
float_dtypes = ["float16", "float32", "float64"]
int_dtypes = ["int8", "int16", "int32", "int64"]
uint_dtypes = ["uint8", "uint16", "uint32", "uint64"]
integer_dtypes = int_dtypes + uint_dtypes
discrete_dtypes = ["bool", *integer_dtypes]
continuous_dtypes = float_dtypes + complex_dtypes
all_dtypes = discrete_dtypes + continuous_dtypes

_make_variable = TensorType.__call__


def _call_with_shape(
    self: Any, name: str | None = None, shape: Sequence[int | None] | None = None
) -> Any:
    """``dmatrix("x", shape=(2, None))``: a variable of this type with the
    unknown lengths of its static shape given (a known one cannot change)."""
    if shape is None:
        return _make_variable(self, name)
    shape = tuple(shape)
    if len(shape) != self.ndim:
        raise ValueError(f"{self} needs a shape of length {self.ndim}, got {shape}")
    for known, new in zip(self.shape, shape, strict=True):
        if known is not None and new != known:
            raise ValueError(f"shape {shape} does not fit the static shape of {self}")
    return _make_variable(self.clone(shape=shape), name)


# `TensorType` is the extension's class; the predefined types (`dmatrix`, ...)
# are its instances, so the keyword goes on the class.
TensorType.__call__ = _call_with_shape


def _may_share_memory(a: Any, b: Any) -> bool:
    """Whether two values of tensor types may share memory: NumPy's answer
    for two ndarrays, ``False`` when either is something else."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.may_share_memory(a, b))
    return False


TensorType.may_share_memory = staticmethod(_may_share_memory)
# PyTensor's name for the type's dtype as a NumPy dtype object.
TensorType.numpy_dtype = property(lambda self: np.dtype(self.dtype))


# Prefix letters of the typed constructors, as in PyTensor.
_PREFIXES = {
    "b": "int8",
    "w": "int16",
    "i": "int32",
    "l": "int64",
    "f": "float32",
    "d": "float64",
    "c": "complex64",
    "z": "complex128",
}
_SHAPES: dict[str, tuple[int | None, ...]] = {
    "scalar": (),
    "vector": (None,),
    "matrix": (None, None),
    "row": (1, None),
    "col": (None, 1),
    "tensor3": (None,) * 3,
    "tensor4": (None,) * 4,
    "tensor5": (None,) * 5,
    "tensor6": (None,) * 6,
    "tensor7": (None,) * 7,
}


def _looks_like_dtype(name: Any) -> bool:
    """A full dtype name (``"float64"``, ``"floatX"``) or a dtype object
    (``bool``, ``np.int64``) given where a variable name goes."""
    if isinstance(name, str):
        return name in _DTYPE_NAMES
    return isinstance(name, type | np.dtype)


def tensor(
    name: str | None = None,
    *,
    dtype: Any = None,
    shape: Sequence[int | None] | None = None,
    broadcastable: Sequence[bool] | None = None,
) -> Any:
    """A tensor variable of the given dtype (floatX by default) and static
    shape (``broadcastable=`` is PyTensor's deprecated form of it)."""
    if broadcastable is not None:
        warnings.warn(
            "The `broadcastable` keyword is deprecated; use `shape` "
            "(1 for a broadcastable dimension, None otherwise).",
            DeprecationWarning,
            stacklevel=2,
        )
        shape = tuple(1 if b else None for b in broadcastable)
    if _looks_like_dtype(name):
        raise ValueError(
            f"tensor({name!r}): This name looks like a dtype, which you should "
            "pass as a keyword argument only (dtype=...)"
        )
    if shape is None:
        raise TypeError("tensor() needs a shape, e.g. shape=(None, 3)")
    return TensorType(_config.floatX if dtype is None else dtype, shape)(name)


# Full dtype names, which `tensor("float64")` refuses as a variable name.
_DTYPE_NAMES = frozenset([*all_dtypes, "floatX"])
_ORDINALS = ("first", "second")


def _static_shape(
    kind: str, shape: Any, default: tuple[int | None, ...]
) -> tuple[int | None, ...]:
    """The ``shape=`` of a ``vector(...)``-style constructor, checked as
    PyTensor checks it: a tuple of the kind's length, of None or integers,
    keeping the kind's length-1 axes (an unknown length there is 1)."""
    if not isinstance(shape, tuple):
        raise TypeError(f"Shape must be a tuple, got {type(shape).__name__}")
    if len(shape) != len(default):
        raise ValueError(
            f"Shape must be a tuple of length {len(default)}, got length {len(shape)}"
        )
    if not all(
        s is None or (isinstance(s, int | np.integer) and not isinstance(s, bool))
        for s in shape
    ):
        raise TypeError(f"Shape entries must be None or integer, got {shape}")
    for axis, (want, got) in enumerate(zip(default, shape, strict=True)):
        if want == 1 and got is not None and got != 1:
            raise ValueError(
                f"The {_ORDINALS[axis]} dimension of a `{kind}` must have "
                f"shape 1, got {got}"
            )
    pairs = zip(default, shape, strict=True)
    return tuple(1 if want == 1 else got for want, got in pairs)


def _constructor(kind: str, default: tuple[int | None, ...]) -> Any:
    def make(
        name: str | None = None,
        *,
        dtype: Any = None,
        shape: Sequence[int | None] | None = None,
    ) -> Any:
        shape = default if shape is None else _static_shape(kind, shape, default)
        return TensorType(_config.floatX if dtype is None else dtype, shape)(name)

    make.__name__ = make.__qualname__ = kind
    make.__doc__ = (
        f"A {kind} variable (static shape {default}; dtype floatX by default)."
    )
    return make


def _plural_name(name: str) -> str:
    """``dmatrix`` → ``dmatrices``, ``fvector`` → ``fvectors``."""
    if name.endswith("matrix"):
        return name[: -len("matrix")] + "matrices"
    return name + "s"


def _plural(make_one: Any) -> Any:
    """``xs("a", "b")`` makes two named variables, ``xs(3)`` three unnamed
    ones. As in PyTensor, one string is a string of one-letter names
    (``xs("ab")`` is ``xs("a", "b")``) and one name gives the variable itself,
    not a list."""

    def make(*names: Any, **kwargs: Any) -> Any:
        if len(names) == 1 and isinstance(names[0], int):
            return [make_one(**kwargs) for _ in range(names[0])]
        if len(names) == 1 and isinstance(names[0], str):
            names = tuple(names[0])
        if len(names) == 1:
            return make_one(names[0], **kwargs)
        return [make_one(n, **kwargs) for n in names]

    return make


_KINDS = {kind: _constructor(kind, shape) for kind, shape in _SHAPES.items()}
globals().update(_KINDS)
_TYPED = {
    f"{p}{kind}": TensorType(dtype, shape)
    for p, dtype in _PREFIXES.items()
    for kind, shape in _SHAPES.items()
}
_TYPED.update(
    {
        f"u{p}scalar": TensorType(f"uint{bits}", ())
        for p, bits in (("b", 8), ("w", 16), ("i", 32), ("l", 64))
    }
)
globals().update(_TYPED)
# One plural per constructor: `matrices`, `dmatrices`, `fvectors`, `iscalars`, ...
_PLURALS = {
    _plural_name(name): _plural(make) for name, make in {**_KINDS, **_TYPED}.items()
}
globals().update(_PLURALS)


def _values_eq_approx(a: Any, b: Any, **flags: bool) -> bool:
    """`TensorType.values_eq_approx` with the type of ``a``."""
    a = np.asarray(a)
    ty = TensorType(str(a.dtype), shape=(None,) * a.ndim)
    return bool(ty.values_eq_approx(a, b, **flags))


def values_eq_approx_remove_inf(a: Any, b: Any) -> bool:
    """Approximately equal where neither holds an infinity."""
    return _values_eq_approx(a, b, allow_remove_inf=True)


def values_eq_approx_remove_nan(a: Any, b: Any) -> bool:
    """Approximately equal where neither holds a NaN."""
    return _values_eq_approx(a, b, allow_remove_nan=True)


def values_eq_approx_remove_inf_nan(a: Any, b: Any) -> bool:
    """Approximately equal where neither holds an infinity or a NaN."""
    return _values_eq_approx(a, b, allow_remove_inf=True, allow_remove_nan=True)


def values_eq_approx_always_true(a: Any, b: Any) -> bool:
    """Always equal: for a rewrite whose result may differ anywhere (set
    as a replacement's ``tag.values_eq_approx``, which DebugMode reads)."""
    return True


__all__ = [
    "TensorType",
    "values_eq_approx_always_true",
    "values_eq_approx_remove_inf",
    "values_eq_approx_remove_inf_nan",
    "values_eq_approx_remove_nan",
    "all_dtypes",
    "complex_dtypes",
    "continuous_dtypes",
    "discrete_dtypes",
    "float_dtypes",
    "int_dtypes",
    "integer_dtypes",
    "tensor",
    "uint_dtypes",
    *_SHAPES,
    *_TYPED,
    *_PLURALS,
]
