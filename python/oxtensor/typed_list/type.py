"""`TypedListType`: the type of Python lists whose items all have one type
(a tensor type, or another list type for nested lists)."""

from typing import Any

from oxtensor.graph.type import Type, imported


class TypedListType(Type):
    """Values are Python lists of values of ``ttype``; ``depth`` nests the
    list type (``depth=1``: a list of lists of ``ttype``)."""

    def __init__(self, ttype: Any, depth: int = 0):
        if depth < 0:
            raise ValueError(f"TypedListType: depth must be >= 0, got {depth}")
        if not isinstance(ttype, Type):
            raise TypeError(
                f"TypedListType: the item type must be a Type, got {ttype!r} "
                f"of type {type(ttype).__name__}"
            )
        self.ttype = ttype if depth == 0 else TypedListType(ttype, depth - 1)

    variable_type = imported("oxtensor.typed_list.basic", "TypedListVariable")
    constant_type = imported("oxtensor.typed_list.basic", "TypedListConstant")

    def filter(
        self, data: Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> list[Any]:
        if strict and not isinstance(data, list):
            raise TypeError(f"{self} expects a list, got {type(data).__name__}")
        if not isinstance(data, list | tuple):
            raise TypeError(
                f"{self} expects a list (or a tuple), got {type(data).__name__}"
            )
        return [self.ttype.filter(item, strict, allow_downcast) for item in data]

    def values_eq(self, a: Any, b: Any) -> bool:
        return len(a) == len(b) and all(
            self.ttype.values_eq(x, y) for x, y in zip(a, b, strict=True)
        )

    def values_eq_approx(self, a: Any, b: Any, **kwargs: Any) -> bool:
        return len(a) == len(b) and all(
            self.ttype.values_eq_approx(x, y, **kwargs)
            for x, y in zip(a, b, strict=True)
        )

    def get_depth(self) -> int:
        """How many list levels sit above the items' tensor type (0: one)."""
        inner = self.ttype
        return inner.get_depth() + 1 if isinstance(inner, TypedListType) else 0

    @property
    def dtype(self) -> str:
        return self.ttype.dtype  # type: ignore[no-any-return]

    @property
    def ndim(self) -> int:
        return self.ttype.ndim  # type: ignore[no-any-return]

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and other.ttype == self.ttype

    def __hash__(self) -> int:
        return hash((type(self), self.ttype))

    def __str__(self) -> str:
        return f"TypedList <{self.ttype}>"

    __repr__ = __str__


__all__ = ["TypedListType"]
