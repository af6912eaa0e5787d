"""Functions whose inputs carry state: PyTensor's ``In(x, value=...)`` and
``In(x, update=...)``.

Such an input keeps its value in a `Container` between calls. The graph
reads it through a shared variable over that container (substituted for
``x`` by ``givens``), and its ``update`` is that shared variable's update,
so the compiled program (the native `Function`) is the one every function
gets. `StatefulFunction` adds PyTensor's argument rules on top:

- ``value=None``: a required argument (its update, if any, is stored in the
  container after the call, where ``f._finder[x].value`` shows it);
- a value that is not a `Container`: an optional argument whose default is
  put back after each call, unless the input has an update (then the
  update is the next call's default);
- a `Container` (shared with whoever holds it): an optional argument when
  ``implicit=False``, none at all when implicit (the default); a given
  argument is stored in the container.

Positions count every input, implicit ones included (giving one is a
`TypeError`), as in PyTensor.
"""

from typing import Any

from oxtensor.link.basic import Container

_DUPLICATE = object()


class Slot:
    """One input of a `StatefulFunction`: ``shared`` is None for a plain
    argument (passed to the compiled function), else the shared variable
    over the input's container."""

    def __init__(
        self,
        item: Any,
        shared: Any = None,
        required: bool = True,
        refeed: bool = False,
        implicit: bool = False,
    ) -> None:
        self.variable = getattr(item, "variable", item)
        # (A bad item, neither `In` nor a variable, is refused by the compiler.)
        self.name = getattr(item, "name", None) or getattr(self.variable, "name", None)
        self.borrow = bool(getattr(item, "borrow", False))
        self.shared = shared
        self.required = required
        self.refeed = refeed
        self.implicit = implicit
        self.default = shared.get_value(borrow=True) if refeed else None
        # A plain argument's container holds the last value given.
        self.own = None if shared is not None else Container(self.variable, [None])

    @property
    def container(self) -> Any:
        return self.own if self.shared is None else self.shared.container


def potential_aliased_input_groups(variables: Any, borrowed: Any) -> tuple:
    """PyTensor's groups of input positions whose arguments may alias: the
    inputs the function may keep or overwrite (``borrow``/``mutable``)
    grouped with any other such input one of whose types is a supertype of
    the other's; only groups of two or more."""
    groups: list[list[int]] = []
    for i, (var, borrow) in enumerate(zip(variables, borrowed, strict=True)):
        if not borrow:
            continue
        ty = var.type
        for group in groups:
            if any(
                ty.is_super(variables[j].type) or variables[j].type.is_super(ty)
                for j in group
            ):
                group.append(i)
                break
        else:
            groups.append([i])
    return tuple(tuple(g) for g in groups if len(g) > 1)


class StatefulFunction:
    """A compiled function (``fn``, which takes the plain arguments) with
    inputs that carry state; see the module's docstring. Other attributes
    (``maker``, ``name``, ``profile``, ``free``, ...) are ``fn``'s."""

    def __init__(self, fn: Any, slots: list[Slot]) -> None:
        self.fn = fn
        self.slots = slots
        finder: dict[Any, Any] = {}
        for i, slot in enumerate(slots):
            finder[i] = slot.container
            finder[slot.variable] = slot.container
            if slot.name is not None:
                taken = slot.name in finder
                finder[slot.name] = _DUPLICATE if taken else slot.container
        self._named = {k: v for k, v in finder.items() if isinstance(k, str)}
        self._finder = {k: v for k, v in finder.items() if v is not _DUPLICATE}
        self._potential_aliased_input_groups = potential_aliased_input_groups(
            [s.variable for s in slots], [s.borrow for s in slots]
        )

    def __getattr__(self, name: str) -> Any:
        if name in ("fn", "slots"):
            raise AttributeError(name)
        return getattr(self.fn, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "trust_input":
            self.fn.trust_input = value
        else:
            object.__setattr__(self, name, value)

    def _slot(self, key: Any) -> int:
        if isinstance(key, str):
            found = self._named.get(key)
            if found is _DUPLICATE:
                raise TypeError(
                    f"Ambiguous name: {key} - please check the names of the "
                    "inputs of your function for duplicates."
                )
            key = found
        for i, slot in enumerate(self.slots):
            if key is slot.container or key is slot.variable or key == i:
                return i
        raise TypeError(f"Unknown input or state: {key}")

    def __getitem__(self, key: Any) -> Any:
        return self.slots[self._slot(key)].container.value

    def __setitem__(self, key: Any, value: Any) -> None:
        self.slots[self._slot(key)].container.value = value

    def __contains__(self, key: Any) -> bool:
        return key in self._finder

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        n = len(self.slots)
        if len(args) + len(kwargs) > n:
            raise TypeError(
                f"Too many parameters passed to {self.fn!r}: it takes {n} inputs"
            )
        given: dict[int, Any] = dict(enumerate(args))
        for key, value in kwargs.items():
            i = self._slot(key) if isinstance(key, str) and key in self._named else None
            if i is None:
                raise TypeError(
                    f"{self.fn!r} got an unexpected keyword argument '{key}'"
                )
            if i in given:
                raise TypeError(f"Multiple values for input: {self.slots[i].variable}")
            given[i] = value
        plain = []
        for i, slot in enumerate(self.slots):
            if i in given and slot.implicit:
                raise TypeError(
                    f"Tried to provide value for implicit input: {slot.variable}"
                )
            if i not in given and slot.required:
                raise TypeError(f"Missing required input: {slot.variable}")
            if slot.shared is None:
                plain.append(given[i])
            elif i in given:
                slot.container.value = given[i]
        result = self.fn(*plain)
        plain_slots = [s for s in self.slots if s.shared is None]
        for slot, value in zip(plain_slots, plain, strict=True):
            slot.own.storage[0] = value
        for slot in self.slots:
            if slot.refeed:
                slot.container.value = slot.default
        return result

    def copy(self, *args: Any, **kwargs: Any) -> "StatefulFunction":
        """`Function.copy` of the compiled function; the plain arguments get
        containers of their own, the stateful ones keep theirs (or take the
        ``swap``ped shared variables' ones)."""
        fn = self.fn.copy(*args, **kwargs)
        swap = kwargs.get("swap") or (args[1] if len(args) > 1 else None) or {}
        slots = []
        for s in self.slots:
            shared = swap.get(s.shared, s.shared) if s.shared is not None else None
            copy = Slot(s.variable, shared, s.required, False, s.implicit)
            copy.name, copy.borrow, copy.refeed, copy.default = (
                s.name,
                s.borrow,
                s.refeed,
                s.default,
            )
            slots.append(copy)
        return StatefulFunction(fn, slots)

    def __reduce__(self) -> Any:
        return (StatefulFunction, (self.fn, self.slots))

    def __repr__(self) -> str:
        return repr(self.fn)


__all__ = ["Slot", "StatefulFunction", "potential_aliased_input_groups"]
