"""Debugging compiled functions: `DebugMode` and its errors."""

from oxtensor.compile.debug import debugmode
from oxtensor.compile.debug.debugmode import *  # noqa: F403 (the package is its one module)

__all__ = debugmode.__all__
