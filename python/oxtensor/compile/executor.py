"""`pytensor.compile.executor`'s names: `Function`, the callable that
`function` returns, with the names that module re-exports and oxtensor
has (`In`, `Container`, `FunctionGraph`, `HasInnerGraph`, `ProfileStats`,
`clone_get_equiv`).

A function whose inputs carry state (``In(x, value=...)``,
``In(x, update=...)``) is a `StatefulFunction` wrapping a `Function`
(docs/for-pytensor-users.md)."""

from oxtensor.compile.debug.profiling import ProfileStats
from oxtensor.compile.function import Function
from oxtensor.compile.io import In
from oxtensor.compile.stateful import StatefulFunction
from oxtensor.graph.basic import clone_get_equiv
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import HasInnerGraph
from oxtensor.link.basic import Container

__all__ = [
    "Container",
    "Function",
    "FunctionGraph",
    "HasInnerGraph",
    "In",
    "ProfileStats",
    "StatefulFunction",
    "clone_get_equiv",
]
