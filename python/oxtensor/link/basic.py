"""`Container`: one value slot with the type its contents must have, as
shared variables and PyTensor's linkers keep them."""

from typing import Any


class Container:
    """A slot ``storage[0]`` holding a value of type ``r.type`` (or ``r``
    when it is a type itself).

    Setting ``value`` checks the value with the type's ``filter`` (with
    ``strict`` and ``allow_downcast``); a ``readonly`` container refuses it.
    The storage list is the caller's, so the holder and every reader of the
    list see one value.
    """

    def __init__(
        self,
        r: Any,
        storage: list[Any],
        readonly: bool = False,
        strict: bool = False,
        allow_downcast: bool | None = None,
        name: str | None = None,
    ) -> None:
        if not isinstance(storage, list) or not storage:
            raise TypeError("storage must be a list of length at least one")
        self.type = r.type if hasattr(r, "type") else r
        self.name = name if name is not None else getattr(r, "name", None)
        self.storage = storage
        self.readonly = readonly
        self.strict = strict
        self.allow_downcast = allow_downcast

    @property
    def data(self) -> Any:
        """The value in the slot."""
        return self.storage[0]

    @property
    def value(self) -> Any:
        """The value in the slot."""
        return self.storage[0]

    @value.setter
    def value(self, value: Any) -> None:
        if self.readonly:
            raise Exception(f"Cannot set readonly storage: {self.name}")
        if value is not None:
            value = self.type.filter(
                value, strict=self.strict, allow_downcast=self.allow_downcast
            )
        self.storage[0] = value

    def __str__(self) -> str:
        return f"<{self.storage[0]}>"

    def __repr__(self) -> str:
        return f"<{self.storage[0]!r}>"


__all__ = ["Container"]
