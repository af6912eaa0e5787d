"""`TensorType` and the variable constructors (`dmatrix`, `vector`, `tensor`, ...)."""

from collections.abc import Sequence
from typing import Any

from oxtensor import _core
from oxtensor.configdefaults import config as _config

TensorType = _core.TensorType


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


def tensor(
    name: str | None = None,
    *,
    dtype: Any = None,
    shape: Sequence[int | None] | None = None,
) -> Any:
    """A tensor variable of the given dtype (floatX by default) and static shape."""
    if shape is None:
        raise TypeError("tensor() needs a shape, e.g. shape=(None, 3)")
    return TensorType(_config.floatX if dtype is None else dtype, shape)(name)


def _constructor(kind: str, default: tuple[int | None, ...]) -> Any:
    def make(
        name: str | None = None,
        *,
        dtype: Any = None,
        shape: Sequence[int | None] | None = None,
    ) -> Any:
        shape = default if shape is None else tuple(shape)
        if len(shape) != len(default):
            raise ValueError(
                f"{kind} needs a shape of length {len(default)}, got {shape}"
            )
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
    """``xs("a", "b")`` makes two named variables, ``xs(3)`` three unnamed ones."""

    def make(*names: Any, **kwargs: Any) -> Any:
        if len(names) == 1 and isinstance(names[0], int):
            return [make_one(**kwargs) for _ in range(names[0])]
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

# PyTensor's dtype lists, which its tests import from here.
float_dtypes = ["float16", "float32", "float64"]
complex_dtypes = ["complex64", "complex128"]
int_dtypes = ["int8", "int16", "int32", "int64"]
uint_dtypes = ["uint8", "uint16", "uint32", "uint64"]
integer_dtypes = int_dtypes + uint_dtypes
discrete_dtypes = ["bool", *integer_dtypes]
continuous_dtypes = float_dtypes + complex_dtypes
all_dtypes = discrete_dtypes + continuous_dtypes

__all__ = [
    "TensorType",
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
