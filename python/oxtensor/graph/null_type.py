"""`NullType`: the type of gradients that are undefined."""

from oxtensor import _core

NullType = _core.NullType
null_type = NullType()

__all__ = ["NullType", "null_type"]
