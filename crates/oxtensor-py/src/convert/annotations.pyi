"""Annotations of `oxtensor._core`: Python values as graph constants.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

def constant(
    x: t.Any, name: str | None = None, ndim: int | None = None, dtype: t.Any = None
) -> TensorVariable:
    """A ``TensorConstant`` with PyTensor's autocasting and full static shape."""

def as_tensor_variable(
    x: t.Any, name: str | None = None, ndim: int | None = None, dtype: t.Any = None
) -> TensorVariable:
    """``x`` as a tensor variable: variables as they are, data as constants."""

def stack_list(seq: t.Any) -> TensorVariable:
    """The entries as tensors stacked along a new first axis (0-d entries
    give one ``MakeVector``, constants too)."""
