"""`In` and `Out`: per-input and per-output options of `function`."""

from typing import Any

from oxtensor import _core
from oxtensor.link.basic import Container


class In:
    """An input of a function, with options.

    Parameters
    ----------
    variable
        The input variable.
    name
        The keyword argument name (defaults to the variable's name).
    value
        A `Container` whose value the input takes at each call (then the
        input is ``implicit``: not an argument), and where its ``update``
        is stored: a shared variable by another name.
    update
        With a ``value``: the input's value after each call.
    mutable
        Whether the function may overwrite the argument's memory.
    strict
        Require arguments of exactly the input's type (no conversion).
    allow_downcast
        Allow lossy conversion of arguments (e.g. float64 to float32).
    borrow
        Whether the function may keep a reference to the argument.
    """

    def __init__(
        self,
        variable: Any,
        name: str | None = None,
        value: Any = None,
        update: Any = None,
        mutable: bool | None = None,
        strict: bool = False,
        allow_downcast: bool | None = None,
        autoname: bool = True,
        implicit: bool | None = None,
        borrow: bool | None = None,
        shared: bool = False,
    ) -> None:
        # An update of another rank can never be the variable's next value
        # (dtypes are converted, or refused, where the update is applied).
        ndim = getattr(getattr(update, "type", None), "ndim", None)
        if ndim is not None and ndim != getattr(variable.type, "ndim", ndim):
            raise TypeError(
                f"The update {update} of {variable} has type {update.type}, "
                f"of another rank than {variable.type}"
            )
        self.variable = variable
        self.value = value
        # A container (a shared slot) is read and updated by the function;
        # it is not an argument.
        self.implicit = isinstance(value, Container) if implicit is None else implicit
        self.name = name if name is not None or not autoname else variable.name
        self.update = update
        self.mutable = bool(mutable)
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.borrow = bool(borrow) or self.mutable
        self.shared = shared

    def __repr__(self) -> str:
        return f"In({self.variable})"


class Out:
    """An output of a function; ``borrow=True`` lets it share memory with
    inputs or the function's internal storage instead of being copied."""

    def __init__(self, variable: Any, borrow: bool = False) -> None:
        self.variable = variable
        self.borrow = borrow

    def __repr__(self) -> str:
        return f"Out({self.variable}, borrow={self.borrow})"


_core._register("In", In)
_core._register("Out", Out)

__all__ = ["In", "Out"]
