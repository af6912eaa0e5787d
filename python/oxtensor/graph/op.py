"""The `Op` base class (implemented in the Rust extension) and the
`HasInnerGraph` interface of ops that carry a graph of their own."""

from abc import ABC, abstractmethod
from typing import Any

from oxtensor import _core

Op = _core.Op


class HasInnerGraph(ABC):
    """Interface of an op whose computation is a graph of its own
    (``inner_inputs`` → ``inner_outputs``), compiled as ``fn``.

    A subclass provides the three and ``clone()``, a copy of the op with a
    copied inner graph, so rewriting one copy leaves the other alone.
    """

    @property
    @abstractmethod
    def fn(self) -> Any:
        """The compiled inner graph."""

    @property
    @abstractmethod
    def inner_inputs(self) -> list[Any]:
        """The inner graph's inputs."""

    @property
    @abstractmethod
    def inner_outputs(self) -> list[Any]:
        """The inner graph's outputs."""

    @abstractmethod
    def clone(self) -> Any:
        """A copy of the op with its own copy of the inner graph."""


__all__ = ["HasInnerGraph", "Op"]
