"""The `Type` base class (implemented in the Rust extension)."""

from oxtensor import _core

Type = _core.Type

__all__ = ["Type"]
