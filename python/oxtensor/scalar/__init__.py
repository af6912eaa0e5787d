"""Scalar ops (`oxtensor.scalar.add`, `oxtensor.scalar.Mul`, ...)."""

from oxtensor.scalar.basic import *  # noqa: F403
from oxtensor.scalar.basic import __all__ as _BASIC_NAMES
from oxtensor.scalar.loop import ScalarLoop

__all__ = [*_BASIC_NAMES, "ScalarLoop"]
