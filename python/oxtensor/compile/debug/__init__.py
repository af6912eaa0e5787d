"""Debugging compiled functions: `DebugMode` and its errors (module
`debugmode`, whose names are the package's), and `profiling`'s
`ProfileStats`."""

from oxtensor.compile.debug import debugmode, profiling  # noqa: F401 (submodule)
from oxtensor.compile.debug.debugmode import *  # noqa: F403 (the package's names)

__all__ = debugmode.__all__
