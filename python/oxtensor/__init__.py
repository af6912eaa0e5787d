"""oxtensor: a symbolic tensor graph engine in the Theano → Aesara → PyTensor line,
with its core in Rust.

>>> import oxtensor
>>> import oxtensor.tensor as ot
>>> x = ot.dvector("x")
>>> oxtensor.dprint(x * 2.0)
Mul [id A]
 ├─ x [id B]
 └─ ExpandDims{axis=0} [id C]
    └─ 2.0 [id D]
<...>
"""

import warnings

from oxtensor import _core  # loads the extension first
from oxtensor.compile import In, Mode, Out, function, shared
from oxtensor.compile.builders import OpFromGraph
from oxtensor.configdefaults import config
from oxtensor.gradient import (
    Lop,
    Rop,
    grad,
    hessian,
    jacobian,
    pullback,
    pushforward,
    verify_grad,
)
from oxtensor.graph.basic import Apply, Constant, Variable
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op
from oxtensor.graph.type import Type
from oxtensor.printing import debugprint, dprint
from oxtensor.scan.basic import scan
from oxtensor.scan.views import foldl, foldr, map, reduce

# isort: split
# `oxtensor.tensor.random` (`pt.random.normal(...)`) needs shared variables,
# so it is loaded after `compile`, not by `oxtensor.tensor` itself.
import oxtensor.tensor.random  # noqa: F401

InternalError = _core.InternalError

__version__ = "0.1.0"

# OXTENSOR_SIMD caps the kernels' SIMD level (README, "Developing"); the
# core ignores a value it does not know, which a test run must not miss.
if (_simd_problem := _core._simd()[2]) is not None:
    warnings.warn(_simd_problem, stacklevel=2)

__all__ = [
    "Apply",
    "Constant",
    "FunctionGraph",
    "In",
    "InternalError",
    "Lop",
    "Mode",
    "Op",
    "OpFromGraph",
    "Out",
    "Rop",
    "Type",
    "Variable",
    "config",
    "debugprint",
    "dprint",
    "foldl",
    "foldr",
    "function",
    "grad",
    "hessian",
    "jacobian",
    "map",
    "pullback",
    "pushforward",
    "reduce",
    "scan",
    "shared",
    "verify_grad",
]
