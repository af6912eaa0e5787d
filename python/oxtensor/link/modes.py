"""The linker object a `Mode` names: PyTensor's linker class for each
linker name, so ``isinstance(mode.linker, JAXLinker)`` and
``f.maker.mode.linker`` read as in PyTensor. Every class but `JAXLinker`
runs oxtensor's native VM."""

from typing import Any

from oxtensor.link.basic import LocalLinker, PerformLinker
from oxtensor.link.c.basic import CLinker, OpWiseCLinker
from oxtensor.link.numba import NumbaLinker
from oxtensor.link.vm import VMLinker


class DebugModeLinker(LocalLinker):
    """The linker of `DebugMode`: the native VM with every node's checks."""

    mode_linker = "vm"


_BY_NAME: dict[str, type] = {
    "py": PerformLinker,
    "c": CLinker,
    "c|py": OpWiseCLinker,
    "c|py_nogc": OpWiseCLinker,
    "numba": NumbaLinker,
}


def linker_for_mode(name: str, checks: str | None = None) -> Any:
    """A fresh linker object for the linker ``name`` of a mode (bound to no
    graph); ``_nogc`` names keep intermediates (``allow_gc=False``)."""
    if checks is not None and checks.split(":")[0] == "debug":
        return DebugModeLinker()
    if name == "jax":
        # Imported here: the JAX backend needs JAX installed.
        from oxtensor.link.jax import JAXLinker

        return JAXLinker()
    cls = _BY_NAME.get(name, VMLinker)
    return cls(allow_gc=False if name.endswith("_nogc") else None)


__all__ = ["DebugModeLinker", "linker_for_mode"]
