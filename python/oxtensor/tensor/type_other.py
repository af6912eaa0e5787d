"""Types of graph values that are not tensors: `NoneTypeT` (the value
``None``, as an optional argument of an op) and its constant `NoneConst`."""

from typing import Any

from oxtensor.graph.basic import Constant
from oxtensor.graph.type import EqualByClass, Type


class NoneTypeT(EqualByClass, Type):
    """The type of ``None``; ``filter`` refuses anything else."""

    def filter(
        self, data: Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> None:
        if data is not None:
            raise TypeError(f"{data!r} is not None")
        return None

    def __str__(self) -> str:
        return "NoneTypeT"


none_type_t = NoneTypeT()

#: The constant ``None``.
NoneConst = Constant(none_type_t, None, name="NoneConst")

__all__ = ["NoneConst", "NoneTypeT", "none_type_t"]
