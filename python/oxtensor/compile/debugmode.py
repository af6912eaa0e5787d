"""``oxtensor.compile.debugmode``: Theano's path to `DebugMode` and its errors
(they live in `oxtensor.compile.debug.debugmode`, as in PyTensor)."""

from oxtensor.compile.debug.debugmode import *  # noqa: F403
from oxtensor.compile.debug.debugmode import __all__  # noqa: F401
