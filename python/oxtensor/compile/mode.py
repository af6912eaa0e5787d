"""Compilation modes. Every mode runs on oxtensor's native VM; the names are
accepted so PyTensor code keeps working."""

from typing import Any

from oxtensor import _core

_KNOWN = ("FAST_RUN", "FAST_COMPILE", "NUMBA", "CVM", "VM", "C", "py")


class Mode:
    """A linker and optimizer pair, as in PyTensor (both run natively here)."""

    def __init__(self, linker: Any = None, optimizer: Any = "default") -> None:
        self.linker = linker
        self.optimizer = optimizer

    def __repr__(self) -> str:
        return f"Mode(linker={self.linker!r}, optimizer={self.optimizer!r})"


def get_mode(mode: Any) -> Mode:
    """The `Mode` for a name (or the mode itself)."""
    if mode is None or isinstance(mode, Mode):
        return mode or Mode()
    if mode not in _KNOWN:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(_KNOWN)}")
    return Mode(linker=mode)


_core._register("Mode", Mode)

__all__ = ["Mode", "get_mode"]
