"""`NominalVariable`: a graph input identified by a number and a type, used
as the inputs of inner graphs so that two inner graphs built the same way
have the very same inputs (and compare equal)."""

from typing import Any

from oxtensor import _core

Variable = _core.Variable

# One instance per (type, id): constructing it again returns the same object.
_INSTANCES: dict[tuple[Any, Any], "NominalVariable"] = {}


class NominalVariable(Variable):
    """``NominalVariable(id, type)``: the one variable numbered ``id`` of
    ``type``. Its ``clone()`` is itself and it unpickles to itself; with a
    `TensorType` it is also a `TensorVariable`."""

    def __new__(cls, id: Any, typ: Any, name: str | None = None) -> Any:
        found = _INSTANCES.get((typ, id))
        if found is not None:
            return found
        if cls is NominalVariable and isinstance(typ, _core.TensorType):
            cls = TensorNominalVariable
        # The extension class that lays the object out must allocate it.
        base = (
            _core.TensorVariable if issubclass(cls, _core.TensorVariable) else Variable
        )
        return base.__new__(cls)

    def __init__(self, id: Any, typ: Any, name: str | None = None) -> None:
        if (typ, id) in _INSTANCES:
            return
        Variable.__init__(self, typ, None, None, name)
        self.id = id
        _INSTANCES[(typ, id)] = self

    def clone(self, **kwargs: Any) -> "NominalVariable":
        """The variable itself: a nominal variable has no copies."""
        return self

    def signature(self) -> tuple[Any, Any]:
        """``(type, id)``, what identifies it."""
        return (self.type, self.id)

    def equals(self, other: Any) -> bool:
        """Same kind of variable and same signature."""
        return isinstance(other, NominalVariable) and self.signature() == (
            other.signature()
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id}, {self.type!r})"

    def __reduce__(self) -> Any:
        return (NominalVariable, (self.id, self.type, self.name))


class TensorNominalVariable(_core.TensorVariable, NominalVariable):
    """A nominal variable of a `TensorType`."""

    def __repr__(self) -> str:
        return f"NominalVariable({self.id}, {self.type!r})"


__all__ = ["NominalVariable", "TensorNominalVariable"]
