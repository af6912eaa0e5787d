"""`Variable`, `Apply` and `Constant`, and the graph utilities PyTensor keeps in
`pytensor.graph.basic`. The classes live in the Rust extension."""

from typing import Any

from oxtensor import _core
from oxtensor.graph.traversal import (
    ancestors,
    applys_between,
    graph_inputs,
    io_toposort,
    orphans_between,
    vars_between,
)

Variable = _core.Variable
Apply = _core.Apply
clone_get_equiv = _core.clone_get_equiv
equal_computations = _core.equal_computations


def clone(
    inputs: list[Any],
    outputs: list[Any],
    copy_inputs: bool = True,
    copy_orphans: bool | None = None,
) -> tuple[list[Any], list[Any]]:
    """Copies of ``inputs`` and ``outputs`` with the graph between them
    copied; the inputs themselves are kept unless ``copy_inputs``, orphans
    (constants, other free variables) unless ``copy_orphans`` (default: as
    ``copy_inputs``)."""
    if copy_orphans is None:
        copy_orphans = copy_inputs
    equiv = clone_get_equiv(inputs, outputs, copy_inputs, copy_orphans)
    return [equiv[v] for v in inputs], [equiv[v] for v in outputs]


class Constant(Variable):
    """A variable with a fixed value: ``Constant(type, data, name=None)``.

    The data is ``type.filter(data)``, kept read-only; ``clone()`` returns the
    constant itself, and constants compare by ``signature`` in ``equals``.
    """

    def __init__(self, type: Any, data: Any, name: str | None = None) -> None:
        self._init_constant(type, data, name)

    @property
    def value(self) -> Any:
        """Alias of ``data``."""
        return self.data

    def signature(self) -> tuple[Any, Any]:
        """What two constants must share to be merged."""
        return (self.type, self.data)

    def merge_signature(self) -> tuple[Any, Any]:
        """Same as ``signature``."""
        return self.signature()

    def equals(self, other: Any) -> bool:
        """Same class and equal signatures."""
        return type(self) is type(other) and self.signature() == other.signature()

    def get_test_value(self) -> Any:
        """The data."""
        return self.data


_core._register("Constant", Constant)

from oxtensor.graph.frozen_apply import FrozenApply  # noqa: E402
from oxtensor.graph.nominal import NominalVariable  # noqa: E402 (needs Constant's module)
from oxtensor.graph.strings import as_string  # noqa: E402

__all__ = [
    "Apply",
    "Constant",
    "FrozenApply",
    "NominalVariable",
    "Variable",
    "ancestors",
    "applys_between",
    "as_string",
    "clone",
    "clone_get_equiv",
    "equal_computations",
    "graph_inputs",
    "io_toposort",
    "orphans_between",
    "vars_between",
]
