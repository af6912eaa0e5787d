"""`Container`: one value slot with the type its contents must have, as
shared variables and PyTensor's linkers keep them; and the linker classes
users name (`Linker`, `LocalLinker`, `PerformLinker`). Every linker runs
oxtensor's native VM (docs/for-pytensor-users.md): the classes differ in
the linker name they compile with, which the VM treats alike.
`WrapLinker` runs a graph node by node, each node by every linker it wraps,
and hands the per-node thunks to a function of the caller's."""

from collections.abc import Callable
from typing import Any, cast


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
    def value(self) -> Any:
        """The value in the slot."""
        return self.storage[0]

    @value.setter
    def value(self, value: Any) -> None:
        if self.readonly:
            raise Exception(f"Cannot set readonly storage: {self.name}")
        if value is not None:
            # Only the options set are passed, so a type whose ``filter``
            # takes the value alone (as user-defined types often do) works.
            kwargs: dict[str, Any] = {}
            if self.strict:
                kwargs["strict"] = True
            if self.allow_downcast is not None:
                kwargs["allow_downcast"] = self.allow_downcast
            value = self.type.filter(value, **kwargs)
        self.storage[0] = value

    # PyTensor's two names for the slot are one property.
    data = value

    def __str__(self) -> str:
        return f"<{self.storage[0]}>"

    def __repr__(self) -> str:
        return f"<{self.storage[0]!r}>"


class Linker:
    """Turns a `FunctionGraph` into a callable: `accept` the graph, then
    `make_thunk` gives PyTensor's ``(thunk, input_containers,
    output_containers)``: set the inputs' ``data``, call ``thunk()``, read
    the outputs' ``data``. The graph is compiled by the native VM as it is
    (no rewrites run: the graph is taken to be rewritten already)."""

    #: The linker name the VM compiles with.
    mode_linker = "vm"

    def __init__(self, *, allow_gc: bool | None = None, **_: Any) -> None:
        self.fgraph: Any = None
        self.allow_gc = allow_gc
        self.no_recycling: list[Any] = []

    def clone(self, allow_gc: bool | None = None) -> "Linker":
        """A linker of the same class with no graph."""
        return type(self)(allow_gc=self.allow_gc if allow_gc is None else allow_gc)

    def accept(
        self, fgraph: Any, no_recycling: Any = None, profile: Any = None
    ) -> "Linker":
        """This linker bound to ``fgraph`` (a fresh one if bound to another)."""
        if self.fgraph is not None and self.fgraph is not fgraph:
            return self.clone().accept(fgraph, no_recycling, profile)
        self.fgraph = fgraph
        self.no_recycling = list(no_recycling or [])
        return self

    def _compiled(self) -> Callable[..., list[Any]]:
        """The graph as a function of its inputs' values, returning the outputs."""
        if self.fgraph is None:
            raise ValueError(
                f"{type(self).__name__} has no graph: call accept(fgraph) first"
            )
        # Imported here: compiling builds on the link package.
        from oxtensor.compile.function import function
        from oxtensor.compile.mode import Mode

        fn = function(
            list(self.fgraph.inputs),
            list(self.fgraph.outputs),
            mode=Mode(self.mode_linker, None),
            accept_inplace=True,
            on_unused_input="ignore",
        )
        # Outputs given as a list: the function returns a list.
        return fn  # type: ignore[no-any-return]

    def make_thunk(self, **_: Any) -> tuple[Callable[[], None], list[Any], list[Any]]:
        """``(thunk, inputs, outputs)``: `Container` lists over the graph's
        inputs and outputs; ``thunk()`` runs the graph from the inputs' values."""
        run = self._compiled()
        ins = [Container(v, [None]) for v in self.fgraph.inputs]
        outs = [Container(v, [None], readonly=True) for v in self.fgraph.outputs]

        def thunk() -> None:
            values = run(*[c.storage[0] for c in ins])
            for c, value in zip(outs, values, strict=True):
                c.storage[0] = value

        return thunk, ins, outs

    def make_function(
        self, unpack_single: bool = True, **kwargs: Any
    ) -> Callable[..., Any]:
        """The graph as a plain function of its inputs' values."""
        thunk, ins, outs = self.make_thunk(**kwargs)

        def f(*args: Any) -> Any:
            if len(args) != len(ins):
                raise TypeError(
                    f"Function call takes exactly {len(ins)} args ({len(args)} given)"
                )
            for c, arg in zip(ins, args, strict=True):
                c.data = arg
            thunk()
            values = [c.data for c in outs]
            return values[0] if unpack_single and len(values) == 1 else values

        return f

    def __str__(self) -> str:
        return type(self).__name__


class LocalLinker(Linker):
    """A linker giving one thunk per node in PyTensor; here the native VM's program."""


class PerformLinker(LocalLinker):
    """PyTensor's Python linker (``linker="py"``)."""

    mode_linker = "py"


class WrapLinker(Linker):
    """Runs the graph one node at a time (in ``fgraph.toposort()`` order)
    through a caller's ``wrapper(fgraph, i, node, *thunks)``: ``thunks``
    holds one thunk per linker in ``linkers``, each computing ``node`` with
    that linker, and the wrapper decides whether and how to call them
    (calling none leaves the node's outputs unset).

    Each linker has its own storage for every variable, so the linkers do
    not see each other's results; the graph inputs are copied into each
    linker's storage before a run. The outputs returned are the first
    linker's.
    """

    def __init__(self, linkers: Any, wrapper: Callable[..., Any]) -> None:
        super().__init__()
        self.linkers = list(linkers)
        if not self.linkers:
            raise ValueError("WrapLinker needs at least one linker")
        self.wrapper = wrapper

    def clone(self, allow_gc: bool | None = None) -> "WrapLinker":
        return type(self)([lk.clone(allow_gc) for lk in self.linkers], self.wrapper)

    def accept(
        self, fgraph: Any, no_recycling: Any = None, profile: Any = None
    ) -> "WrapLinker":
        linker = cast("WrapLinker", super().accept(fgraph, no_recycling, profile))
        # A fresh clone (this one was bound to another graph) bound its own.
        if linker is self:
            self.linkers = [
                lk.clone().accept(fgraph, no_recycling) for lk in self.linkers
            ]
        return linker

    def make_thunk(self, **_: Any) -> tuple[Callable[[], None], list[Any], list[Any]]:
        if self.fgraph is None:
            raise ValueError("WrapLinker has no graph: call accept(fgraph) first")
        order = list(self.fgraph.toposort())
        storages = [_graph_storage(self.fgraph, order) for _ in self.linkers]
        thunks = [
            [_node_thunk(lk, node, st) for node in order]
            for lk, st in zip(self.linkers, storages, strict=True)
        ]
        first = storages[0]
        ins = [Container(v, first[v]) for v in self.fgraph.inputs]
        outs = [Container(v, first[v], readonly=True) for v in self.fgraph.outputs]

        def thunk() -> None:
            for v in self.fgraph.inputs:
                for st in storages[1:]:
                    st[v][0] = first[v][0]
            for i, node in enumerate(order):
                self.wrapper(self.fgraph, i, node, *[t[i] for t in thunks])

        return thunk, ins, outs


class WrapLinkerMany(WrapLinker):
    """A `WrapLinker` whose wrapper calls each of ``wrappers`` in turn."""

    def __init__(self, linkers: Any, wrappers: Any) -> None:
        self.wrappers = list(wrappers)

        def wrapper(*args: Any) -> None:
            for w in self.wrappers:
                w(*args)

        super().__init__(linkers, wrapper)

    def clone(self, allow_gc: bool | None = None) -> "WrapLinkerMany":
        return type(self)([lk.clone(allow_gc) for lk in self.linkers], self.wrappers)


def _graph_storage(fgraph: Any, order: list[Any]) -> dict[Any, list[Any]]:
    """One ``[value]`` cell per variable the nodes read or write; constants
    hold their data."""
    storage: dict[Any, list[Any]] = {v: [None] for v in fgraph.inputs}
    for node in order:
        for v in node.inputs:
            if v not in storage:
                storage[v] = [getattr(v, "data", None)]
        for v in node.outputs:
            storage[v] = [None]
    return storage


def _node_thunk(
    linker: Linker, node: Any, storage: dict[Any, list[Any]]
) -> Callable[[], None]:
    """A thunk computing ``node`` alone with ``linker``: it reads the node's
    inputs from ``storage`` and writes its outputs there."""
    # Imported here: graphs build on the link package.
    from oxtensor.graph.basic import Constant
    from oxtensor.graph.fg import FunctionGraph

    reads = list(dict.fromkeys(v for v in node.inputs if not isinstance(v, Constant)))
    one = FunctionGraph(reads, list(node.outputs), clone=True)
    run, ins, outs = linker.clone().accept(one).make_thunk()

    def thunk() -> None:
        for c, v in zip(ins, reads, strict=True):
            c.storage[0] = storage[v][0]
        run()
        for c, v in zip(outs, node.outputs, strict=True):
            storage[v][0] = c.storage[0]

    return thunk


__all__ = [
    "Container",
    "Linker",
    "LocalLinker",
    "PerformLinker",
    "WrapLinker",
    "WrapLinkerMany",
]
