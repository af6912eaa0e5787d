"""Symbolic tensors: constructors, operators and ops, under PyTensor's names.

>>> import oxtensor.tensor as ot
>>> x = ot.dmatrix("x")
>>> (x * 2).type
TensorType(float64, shape=(None, None))
"""

from oxtensor.graph.basic import Apply, Constant, Variable
from oxtensor.graph.op import Op
from oxtensor.tensor import blas, extra_ops, linalg, special
from oxtensor.tensor.basic import *  # noqa: F403
from oxtensor.tensor.basic import __all__ as _basic_all
from oxtensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from oxtensor.tensor.extra_ops import *  # noqa: F403
from oxtensor.tensor.extra_ops import __all__ as _extra_all
from oxtensor.tensor.functional import vectorize
from oxtensor.tensor.math import *  # noqa: F403
from oxtensor.tensor.math import __all__ as _math_all
from oxtensor.tensor.shape import (
    Reshape,
    Shape,
    Shape_i,
    SpecifyShape,
    reshape,
    shape,
    shape_i,
    specify_shape,
)
from oxtensor.tensor.sort import argsort, sort
from oxtensor.tensor.subtensor import (
    inc_subtensor,
    set_subtensor,
    take,
)
from oxtensor.tensor.type import *  # noqa: F403
from oxtensor.tensor.type import __all__ as _type_all
from oxtensor.tensor.variable import TensorConstant, TensorVariable

blas._configure_from_environment()

# PyTensor's `tensor` namespace re-exports the gradient entry points.
from oxtensor.gradient import grad as grad  # noqa: E402
from oxtensor.gradient import hessian as hessian  # noqa: E402
from oxtensor.gradient import jacobian as jacobian  # noqa: E402
from oxtensor.tensor import variable_methods as _variable_methods  # noqa: E402

# The everyday NumPy-style composites (diag, tril, roll, linspace, ...).
from oxtensor.tensor._everyday import *  # noqa: E402, F403
from oxtensor.tensor._everyday import __all__ as _everyday_all  # noqa: E402
from oxtensor.tensor.einsum import einsum  # noqa: E402
from oxtensor.tensor.type_other import NoneConst  # noqa: E402

# Last: the forwarded methods take their signatures from the functions.
_variable_methods._attach()

__all__ = [
    "Apply",
    "CAReduce",
    "Constant",
    "DimShuffle",
    "Elemwise",
    "NoneConst",
    "Op",
    "Reshape",
    "Shape",
    "Shape_i",
    "SpecifyShape",
    "TensorConstant",
    "TensorVariable",
    "Variable",
    "einsum",
    "linalg",
    "argsort",
    "extra_ops",
    "inc_subtensor",
    "set_subtensor",
    "take",
    "vectorize",
    "reshape",
    "shape",
    "shape_i",
    "sort",
    "special",
    "specify_shape",
    *_basic_all,
    *_extra_all,
    *_math_all,
    *_type_all,
    *_everyday_all,
]
