"""`Generic`: the type whose values are any Python object (PyTensor keeps it
in ``link.c.type``)."""

from typing import Any

from oxtensor.graph.type import EqualByClass, Type


class Generic(EqualByClass, Type):
    """Any Python object; ``filter`` accepts every value as it is. All
    instances are the same type."""

    def filter(
        self, data: Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> Any:
        return data

    def is_valid_value(self, data: Any) -> bool:
        return True

    def values_eq(self, a: Any, b: Any) -> bool:
        return bool(a == b)

    def __str__(self) -> str:
        return "Generic()"


generic = Generic()

__all__ = ["Generic", "generic"]
