"""Random variables (PyTensor's ``pytensor.tensor.random``): the
distributions of `basic`, `RandomStream`, the `RandomVariable` op and the
generator types and shared variables."""

from oxtensor.tensor.random import basic
from oxtensor.tensor.random.basic import *  # noqa: F403
from oxtensor.tensor.random.basic import __all__ as _basic_all
from oxtensor.tensor.random.op import RandomVariable
from oxtensor.tensor.random.type import (
    RandomGeneratorType,
    RandomType,
    random_generator_type,
)
from oxtensor.tensor.random.utils import RandomStream
from oxtensor.tensor.random.var import RandomGeneratorSharedVariable

__all__ = [
    *_basic_all,
    "RandomGeneratorSharedVariable",
    "RandomGeneratorType",
    "RandomStream",
    "RandomType",
    "RandomVariable",
    "basic",
    "random_generator_type",
]
