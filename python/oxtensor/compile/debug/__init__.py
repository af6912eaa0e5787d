"""Debugging compiled functions: `DebugMode` and its errors."""

from oxtensor.compile.debug.debugmode import (
    BadDestroyMap,
    BadOptimization,
    BadThunkOutput,
    BadViewMap,
    DebugMode,
    DebugModeError,
    InvalidValueError,
    StochasticOrder,
    str_diagnostic,
)

__all__ = [
    "BadDestroyMap",
    "BadOptimization",
    "BadThunkOutput",
    "BadViewMap",
    "DebugMode",
    "DebugModeError",
    "InvalidValueError",
    "StochasticOrder",
    "str_diagnostic",
]
