"""Features: listeners attached to a `FunctionGraph`.

Subclass `Feature` and override the callbacks you need. The graph calls them
after each change completes, in the order the changes happened: imports,
prunes and input changes (see docs/for-pytensor-users.md).

A feature's ``provides`` names become methods of the graph it is attached
to: ``fgraph.name(*args)`` calls ``feature.name(fgraph, *args)``. The
standard features here (`History`, `Validator`, `ReplaceValidate`) forward
to the graph's core, which keeps the change log and runs the validation.
"""

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from oxtensor import _core
from oxtensor.graph.utils import InconsistencyError

AlreadyThere = _core.AlreadyThere


def register_feature_callback(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Marks ``fn`` as a callback the graph calls (``on_import``, ...)."""
    fn._feature_callback = True  # type: ignore[attr-defined]
    return fn


class ReplacementDidNotRemoveError(Exception):
    """``replace_all_validate_remove`` left a node it had to remove."""


class Feature:
    """Base class of graph features; every callback does nothing."""

    #: Names the graph forwards to this feature (``fgraph.name(*a)``).
    provides: tuple[str, ...] = ()
    #: The callbacks this class registered, its bases' included.
    _feature_callbacks: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = {
            name
            for klass in cls.__mro__
            for name, value in vars(klass).items()
            if getattr(value, "_feature_callback", False)
        }
        clash = names & set(cls.provides)
        if clash:
            raise TypeError(
                f"{cls.__name__}: {sorted(clash)} appear in both `provides` "
                "and as callbacks"
            )
        cls._feature_callbacks = frozenset(names)

    @register_feature_callback
    def on_attach(self, fgraph: Any) -> None:
        """Called when attached. Raise `AlreadyThere` to cancel the attach."""

    @register_feature_callback
    def on_detach(self, fgraph: Any) -> None:
        """Called when removed."""

    @register_feature_callback
    def on_import(self, fgraph: Any, node: Any, reason: str) -> None:
        """A node entered the graph."""

    @register_feature_callback
    def on_prune(self, fgraph: Any, node: Any, reason: str) -> None:
        """A node left the graph."""

    @register_feature_callback
    def on_change_input(
        self, fgraph: Any, node: Any, i: int, var: Any, new_var: Any, reason: str = ""
    ) -> None:
        """Input ``i`` of ``node`` (or output ``i`` when ``node == "output"``)
        changed from ``var`` to ``new_var``."""

    @register_feature_callback
    def on_validate(self, fgraph: Any) -> None:
        """Raise `InconsistencyError` to veto the current graph."""

    def orderings(self, fgraph: Any) -> dict[Any, list[Any]]:
        """``{node: [nodes that must run before it]}``."""
        return {}

    def clone(self) -> "Feature":
        """The feature to attach to a cloned graph (itself by default)."""
        return self


Feature._feature_callbacks = frozenset(
    name
    for name, value in vars(Feature).items()
    if getattr(value, "_feature_callback", False)
)


class Bookkeeper(Feature):
    """Replays ``on_import`` for existing nodes on attach, ``on_prune`` on detach."""

    def on_attach(self, fgraph: Any) -> None:
        for node in fgraph.toposort():
            self.on_import(fgraph, node, "on_attach")

    def on_detach(self, fgraph: Any) -> None:
        for node in fgraph.toposort():
            self.on_prune(fgraph, node, "Bookkeeper.detach")


class History(Feature):
    """``checkpoint()`` and ``revert(token)``: the graph's core logs every
    input change and undoes those made since the token."""

    provides = ("checkpoint", "revert")

    def checkpoint(self, fgraph: Any) -> int:
        return fgraph.checkpoint()

    def revert(self, fgraph: Any, checkpoint: int) -> None:
        fgraph.revert(checkpoint)


class Validator(Feature):
    """``validate()`` asks every feature (``on_validate``) and the core's
    (the destroy handler's) to accept the graph; ``consistent()`` says
    whether they do."""

    provides = ("validate", "consistent")

    def validate(self, fgraph: Any) -> None:
        fgraph.validate()

    def consistent(self, fgraph: Any) -> bool:
        return fgraph.consistent()


class ReplaceValidate(History, Validator):
    """Replacements that are validated and undone if validation fails.
    Every `FunctionGraph` has one; attaching another is skipped."""

    provides = (
        *History.provides,
        *Validator.provides,
        "replace_validate",
        "replace_all_validate",
        "replace_all_validate_remove",
    )

    def on_attach(self, fgraph: Any) -> None:
        if any(isinstance(f, ReplaceValidate) for f in fgraph._features):
            raise AlreadyThere("ReplaceValidate feature is already present")

    def clone(self) -> "ReplaceValidate":
        return type(self)()

    def replace_validate(
        self, fgraph: Any, r: Any, new_r: Any, reason: Any = None
    ) -> int:
        return fgraph.replace_validate(r, new_r, reason=reason)

    def replace_all_validate(
        self,
        fgraph: Any,
        replacements: Any,
        reason: Any = None,
        verbose: Any = None,
        **kw: Any,
    ) -> int:
        return fgraph.replace_all_validate(
            replacements, reason=reason, verbose=verbose, **kw
        )

    def replace_all_validate_remove(
        self,
        fgraph: Any,
        replacements: Any,
        remove: Sequence[Any],
        reason: Any = None,
        warn: bool = True,
        **kw: Any,
    ) -> int:
        """``replace_all_validate``, then undone with
        `ReplacementDidNotRemoveError` if a node or variable of ``remove``
        is still in the graph."""
        chk = fgraph.replace_all_validate(replacements, reason=reason, **kw)
        left = [r for r in remove if r in fgraph]
        if left:
            fgraph.revert(chk)
            message = (
                f"replace_all_validate_remove ({reason}) did not remove "
                f"{', '.join(map(str, left))}"
            )
            if warn:
                warnings.warn(message, stacklevel=2)
            raise ReplacementDidNotRemoveError(message)
        return chk


class FullHistory(Feature):
    """Records every input change so the graph can be walked back and
    forth through them: ``start``, ``end``, ``prev``, ``next``, ``goto(n)``
    (the state after the first ``n`` changes)."""

    def __init__(self, callback: Callable[[], Any] | None = None) -> None:
        self.fw: list[tuple[Any, int, Any]] = []
        self.bw: list[tuple[Any, int, Any]] = []
        self.pointer = -1
        self.fg: Any = None
        self.callback = callback
        self._moving = False

    def on_attach(self, fgraph: Any) -> None:
        if self.fg is not None:
            raise ValueError("FullHistory is already attached to another graph")
        self.fg = fgraph

    def on_change_input(
        self, fgraph: Any, node: Any, i: int, var: Any, new_var: Any, reason: Any = None
    ) -> None:
        if self._moving:
            return
        # A change made after stepping back forgets the undone future.
        del self.bw[self.pointer + 1 :], self.fw[self.pointer + 1 :]
        self.bw.append((node, i, var))
        self.fw.append((node, i, new_var))
        self.pointer += 1
        if self.callback is not None:
            self.callback()

    def _apply(self, change: tuple[Any, int, Any]) -> None:
        node, i, var = change
        self._moving = True
        try:
            self.fg.change_node_input(node, i, var, reason="FullHistory", check=False)
        finally:
            self._moving = False

    def prev(self) -> None:
        """Undo one change (nothing at the start)."""
        if self.pointer >= 0:
            self._apply(self.bw[self.pointer])
            self.pointer -= 1

    def next(self) -> None:
        """Redo one change (nothing at the end)."""
        if self.pointer < len(self.fw) - 1:
            self.pointer += 1
            self._apply(self.fw[self.pointer])

    def goto(self, checkpoint: int) -> None:
        """The state after the first ``checkpoint`` changes."""
        while self.pointer > checkpoint - 1:
            self.prev()
        while self.pointer < min(checkpoint, len(self.fw)) - 1:
            self.next()

    def start(self) -> None:
        """The state before any recorded change."""
        self.goto(0)

    def end(self) -> None:
        """The state after every recorded change."""
        self.goto(len(self.fw))


class NoOutputFromInplace(Feature):
    """Vetoes graphs where one of the protected outputs (by index; all
    when none are given) is computed by overwriting an input in place.
    Attaching it attaches the core check, which every validation runs
    (the inplace phase's included)."""

    def __init__(self, protected_out_ids: Sequence[int] | None = None) -> None:
        self.protected_out_ids = (
            None if protected_out_ids is None else list(protected_out_ids)
        )

    def on_attach(self, fgraph: Any) -> None:
        _core.attach_no_output_from_inplace(fgraph, self.protected_out_ids)

    def on_detach(self, fgraph: Any) -> None:
        _core.detach_no_output_from_inplace(fgraph, self.protected_out_ids)

    def unpickle(self, fgraph: Any) -> None:
        """An unpickled graph's core gets the check again."""
        self.on_attach(fgraph)


__all__ = [
    "AlreadyThere",
    "Bookkeeper",
    "Feature",
    "FullHistory",
    "History",
    "InconsistencyError",
    "NoOutputFromInplace",
    "ReplaceValidate",
    "ReplacementDidNotRemoveError",
    "Validator",
    "register_feature_callback",
]
