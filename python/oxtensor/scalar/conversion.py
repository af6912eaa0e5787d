"""`ScalarFromTensor` and `TensorFromScalar` (core ops) with their shared
instances, re-exported by `oxtensor.tensor.basic` where PyTensor has them:
``scalar_from_tensor(x)`` is a 0-d tensor as a scalar variable,
``tensor_from_scalar(s)`` a scalar as a 0-d tensor."""

from oxtensor import _core
from oxtensor.scalar import variable as _variable  # registers ScalarVariable

ScalarFromTensor = _core.ScalarFromTensor
TensorFromScalar = _core.TensorFromScalar

#: The instance `as_scalar` applies to 0-d tensors.
scalar_from_tensor = _core.scalar_from_tensor_op()
tensor_from_scalar = TensorFromScalar()

__all__ = [
    "ScalarFromTensor",
    "TensorFromScalar",
    "scalar_from_tensor",
    "tensor_from_scalar",
]

del _variable
