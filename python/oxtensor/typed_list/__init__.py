"""`pytensor.typed_list`: Python lists of tensors as graph values."""

from oxtensor.typed_list.basic import *  # noqa: F403
from oxtensor.typed_list.basic import __all__ as _basic_all
from oxtensor.typed_list.type import TypedListType

__all__ = [*_basic_all, "TypedListType"]
