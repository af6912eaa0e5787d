"""`pytensor.compile.debug.profiling`'s `ProfileStats`: what
``function(..., profile=True)`` records, read from ``f.profile`` (calls,
total time, per-node rows, ``summary()``).

oxtensor makes a function's profile itself when the function is compiled
with a true ``profile``; a `ProfileStats` is not built by hand (PyTensor's
``ProfileStats(atexit_print=False)`` passed as ``profile=`` has no
counterpart, see docs/for-pytensor-users.md).
"""

from oxtensor import _core

ProfileStats = _core.ProfileStats

__all__ = ["ProfileStats"]
