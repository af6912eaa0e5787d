"""The everyday NumPy-style functions built as compositions of the core
ops, one module per concept, gathered for ``oxtensor.tensor`` to export."""

from oxtensor.tensor.batched import batched_dot
from oxtensor.tensor.broadcasting import broadcast_arrays
from oxtensor.tensor.closeness import allclose, isclose
from oxtensor.tensor.constants import (
    e,
    get_underlying_scalar_constant_value,
    inf,
    nan,
    newaxis,
    pi,
)
from oxtensor.tensor.counting import bincount
from oxtensor.tensor.diagonal import (
    AllocDiag,
    ExtractDiag,
    alloc_diag,
    diag,
    diagonal,
    trace,
)
from oxtensor.tensor.gathering import compress, take_along_axis
from oxtensor.tensor.grids import *  # noqa: F403
from oxtensor.tensor.grids import __all__ as _grids_all
from oxtensor.tensor.logaddexp import logaddexp
from oxtensor.tensor.nonfinite import isneginf, isposinf, nan_to_num
from oxtensor.tensor.numpy_names import divmod, iround, power
from oxtensor.tensor.padding import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    atleast_Nd,
    shape_padaxis,
    shape_padleft,
    shape_padright,
)
from oxtensor.tensor.rearrange import flip, matrix_transpose, roll
from oxtensor.tensor.selection import *  # noqa: F403
from oxtensor.tensor.selection import __all__ as _selection_all
from oxtensor.tensor.spacing import geomspace, linspace, logspace
from oxtensor.tensor.triangular import tri, tril, triu

__all__ = [
    "AllocDiag",
    "ExtractDiag",
    "allclose",
    "alloc_diag",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "atleast_Nd",
    "batched_dot",
    "bincount",
    "broadcast_arrays",
    "compress",
    "diag",
    "diagonal",
    "divmod",
    "e",
    "flip",
    "geomspace",
    "get_underlying_scalar_constant_value",
    "inf",
    "iround",
    "isclose",
    "isneginf",
    "isposinf",
    "linspace",
    "logaddexp",
    "logspace",
    "matrix_transpose",
    "nan",
    "nan_to_num",
    "newaxis",
    "pi",
    "power",
    "roll",
    "shape_padaxis",
    "shape_padleft",
    "shape_padright",
    "take_along_axis",
    "trace",
    "tri",
    "tril",
    "triu",
]
__all__ += _grids_all + _selection_all
