"""PyTensor's C linkers by name: `CLinker` (``"c"``), `OpWiseCLinker`
(``"c|py"``) and `DualLinker`, which runs a graph twice and checks that
the runs agree. oxtensor has no C backend; both names compile with the
native VM (docs/for-pytensor-users.md)."""

from collections.abc import Callable
from typing import Any

import numpy as np

from oxtensor.link.basic import Container, Linker, LocalLinker, PerformLinker


class CLinker(Linker):
    """``linker="c"``, run by the native VM."""

    mode_linker = "c"


class OpWiseCLinker(LocalLinker):
    """``linker="c|py"``, run by the native VM."""

    mode_linker = "c|py"


def _default_checker(a: Any, b: Any) -> None:
    """Raise when two runs' values differ (NaNs in the same places agree)."""
    a, b = np.asarray(a), np.asarray(b)
    if (
        a.shape != b.shape
        or a.dtype != b.dtype
        or not np.allclose(a, b, equal_nan=True)
    ):
        raise ValueError(f"DualLinker: the two runs disagree: {a!r} != {b!r}")


class DualLinker(Linker):
    """Runs the graph with two linkers (`PerformLinker` and `OpWiseCLinker`)
    and calls ``checker(value1, value2)`` on each pair of outputs, which
    raises when they differ; the outputs are the first run's."""

    def __init__(
        self,
        checker: Callable[[Any, Any], Any] = _default_checker,
        schedule: Any = None,
    ) -> None:
        super().__init__()
        self.checker = checker
        self.schedule = schedule

    def clone(self, allow_gc: bool | None = None) -> "DualLinker":
        return type(self)(checker=self.checker, schedule=self.schedule)

    def make_thunk(
        self, **kwargs: Any
    ) -> tuple[Callable[[], None], list[Any], list[Any]]:
        t1, ins1, outs1 = PerformLinker().accept(self.fgraph).make_thunk(**kwargs)
        t2, ins2, outs2 = OpWiseCLinker().accept(self.fgraph).make_thunk(**kwargs)
        ins = [Container(v, [None]) for v in self.fgraph.inputs]

        def thunk() -> None:
            for c, c1, c2 in zip(ins, ins1, ins2, strict=True):
                c1.storage[0] = c2.storage[0] = c.storage[0]
            t1()
            t2()
            for o1, o2 in zip(outs1, outs2, strict=True):
                self.checker(o1.storage[0], o2.storage[0])

        return thunk, ins, outs1


__all__ = ["CLinker", "DualLinker", "OpWiseCLinker"]
