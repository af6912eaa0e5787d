"""Compiling graphs into callable functions."""

from oxtensor.compile.function import Function, function
from oxtensor.compile.io import In, Out
from oxtensor.compile.mode import Mode, get_mode
from oxtensor.compile.sharedvalue import SharedVariable, shared

__all__ = [
    "Function",
    "In",
    "Mode",
    "Out",
    "SharedVariable",
    "function",
    "get_mode",
    "shared",
]
