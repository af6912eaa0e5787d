"""Shared variables: graph inputs whose value lives with the variable and
that compiled functions read (and update) without being passed it."""

import copy
import sys
from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.link.basic import Container
from oxtensor.tensor.type import TensorType
from oxtensor.tensor.variable import TensorVariable

Variable = _core.Variable


class SharedVariable(Variable):
    """A variable with a value, read by the functions that use it."""

    def __init__(
        self,
        type: Any,
        value: Any,
        strict: bool = False,
        allow_downcast: bool | None = None,
        container: Container | None = None,
        name: str | None = None,
    ) -> None:
        Variable.__init__(self, type, None, None, name)
        if container is None:
            value = type.filter(value, strict=strict, allow_downcast=allow_downcast)
            # The slot a shared variable and its clones have in common.
            container = Container(
                self,
                storage=[value],
                strict=strict,
                allow_downcast=allow_downcast,
                name=name,
            )
        self.container = container
        self.default_update = None

    def get_value(
        self, borrow: bool = False, return_internal_type: bool = False
    ) -> Any:
        """The value; a copy unless ``borrow``."""
        value = self.container.storage[0]
        return value if borrow else copy.deepcopy(value)

    def set_value(self, new_value: Any, borrow: bool = False) -> None:
        """Sets the value, checked by the type with the variable's
        ``strict`` and ``allow_downcast``; copied unless ``borrow``."""
        value = self.type.filter(
            new_value,
            strict=self.container.strict,
            allow_downcast=self.container.allow_downcast,
        )
        if not borrow and value is new_value:
            value = copy.deepcopy(value)
        self.container.storage[0] = value

    @property
    def value(self) -> Any:
        """The value (without copying)."""
        return self.container.storage[0]


class TensorSharedVariable(TensorVariable, SharedVariable):
    """A shared tensor."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        SharedVariable.__init__(self, *args, **kwargs)

    def zero(self, borrow: bool = False) -> None:
        """Sets every element to 0: in the array itself with ``borrow``,
        else in a new array (so arrays handed out keep their values)."""
        value = self.container.storage[0]
        if borrow:
            value[...] = 0
        else:
            self.container.storage[0] = np.zeros_like(value)


def shared(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    shape: Any = None,
    **kwargs: Any,
) -> SharedVariable:
    """A shared tensor holding ``value`` (copied unless ``borrow``).

    Its static shape is unknown (so ``set_value`` may change it) unless
    ``shape`` is given. Any other value (a list, a string, ...) gives, as in
    PyTensor, a shared variable of the `Generic` type, which holds any object.
    """
    unknown = set(kwargs) - {"broadcastable"}
    if unknown:
        raise TypeError(f"shared() got unexpected keyword arguments {sorted(unknown)}")
    if isinstance(value, SharedVariable):
        raise TypeError("shared() was given a SharedVariable; pass its value instead")
    if isinstance(value, Variable):
        raise TypeError(
            f"shared() was given the symbolic variable {value}; pass a value "
            "(evaluate it first with .eval())"
        )
    if isinstance(value, np.ma.MaskedArray):
        raise NotImplementedError(
            "MaskedArrays are not supported; pass value.filled() or value.data"
        )
    if _is_sparse(value):
        from oxtensor.sparse.sharedvar import sparse_constructor

        return sparse_constructor(
            value, name, strict, allow_downcast, borrow, shape=shape
        )
    if isinstance(value, np.random.Generator):
        from oxtensor.tensor.random.var import randomgen_constructor

        return randomgen_constructor(value, name, strict, allow_downcast, borrow)
    if not isinstance(value, np.ndarray | np.generic | int | float | complex | bool):
        from oxtensor.link.c.type import generic

        return SharedVariable(generic, value, strict, allow_downcast, name=name)
    array = np.asarray(value) if borrow else np.array(value, copy=True)
    static = (None,) * array.ndim if shape is None else tuple(shape)
    ty = TensorType(array.dtype, static)
    return TensorSharedVariable(ty, array, strict, allow_downcast, name=name)


def _is_sparse(value: Any) -> bool:
    # scipy.sparse is imported only if the caller has imported it: a value
    # cannot be a sparse matrix otherwise.
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(value))


_core._register("SharedVariable", SharedVariable)

__all__ = ["SharedVariable", "TensorSharedVariable", "shared"]
