"""Compiling graphs into callable functions."""

from oxtensor.compile import ops
from oxtensor.compile.builders import OpFromGraph
from oxtensor.compile.debug import DebugMode
from oxtensor.compile.function import Function, function
from oxtensor.compile.io import In, Out
from oxtensor.compile.maker import FunctionMaker
from oxtensor.compile.mode import Mode, get_default_mode, get_mode, optdb
from oxtensor.compile.sharedvalue import SharedVariable, shared

__all__ = [
    "DebugMode",
    "Function",
    "FunctionMaker",
    "In",
    "Mode",
    "OpFromGraph",
    "Out",
    "SharedVariable",
    "function",
    "get_default_mode",
    "get_mode",
    "ops",
    "optdb",
    "shared",
]
