"""Compilation modes: which rewrites run (a query of the rewrite database)
and how the graph is linked. Every linker name runs oxtensor's native VM."""

from typing import Any

from oxtensor import _core

Mode = _core.Mode

#: The database of compilation phases every mode queries.
optdb = _core.optdb_object()

#: PyTensor's predefined modes; the backend names all mean the native VM.
predefined_modes: dict[str, Any] = {
    "FAST_RUN": Mode("vm", "fast_run"),
    "FAST_COMPILE": Mode("vm", "fast_compile"),
    "NUMBA": Mode("numba", "fast_run"),
    "CVM": Mode("cvm", "fast_run"),
    "VM": Mode("vm", "fast_run"),
    "C": Mode("c", "fast_run"),
    "py": Mode("py", "fast_compile"),
}


def get_mode(mode: Any) -> Any:
    """The `Mode` for a name (or the mode itself); ``None`` is ``FAST_RUN``."""
    if mode is None:
        return predefined_modes["FAST_RUN"]
    if isinstance(mode, Mode):
        return mode
    if mode not in predefined_modes:
        names = ", ".join(predefined_modes)
        raise ValueError(f"unknown mode {mode!r}; expected one of {names}")
    return predefined_modes[mode]


def get_default_mode() -> Any:
    """The mode ``function`` uses when given none (``FAST_RUN``)."""
    return predefined_modes["FAST_RUN"]


__all__ = ["Mode", "get_default_mode", "get_mode", "optdb", "predefined_modes"]
