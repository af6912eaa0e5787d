"""Scalar ops (`oxtensor.scalar.add`, `oxtensor.scalar.Mul`, ...)."""

from oxtensor.scalar.basic import *  # noqa: F403
from oxtensor.scalar.basic import __all__  # noqa: F401
