"""PyTensor's ``tensor.blas_c``: the C implementations of its BLAS ops.
oxtensor has one implementation of each op (the core's), so ``CGemv`` is
``oxtensor.tensor.blas.Gemv`` itself, under PyTensor's name."""

from oxtensor.tensor.blas import Gemv

CGemv = Gemv
cgemv_no_inplace = CGemv(inplace=False)
cgemv_inplace = CGemv(inplace=True)

__all__ = ["CGemv", "cgemv_inplace", "cgemv_no_inplace"]
