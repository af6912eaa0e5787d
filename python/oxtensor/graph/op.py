"""The `Op` base class (implemented in the Rust extension)."""

from oxtensor import _core

Op = _core.Op

__all__ = ["Op"]
