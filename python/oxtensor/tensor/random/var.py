"""Shared generator variables: ``shared(np.random.default_rng(seed))``
gives a `RandomGeneratorSharedVariable`, the rng input that random
variables read and whose ``default_update`` advances it."""

import copy
from typing import Any

import numpy as np

from oxtensor.compile.sharedvalue import SharedVariable
from oxtensor.tensor.random.type import random_generator_type


class RandomGeneratorSharedVariable(SharedVariable):
    """A shared variable holding a ``numpy.random.Generator``."""

    def __str__(self) -> str:
        return self.name or f"RNG({self.container.storage[0]!r})"


def randomgen_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
) -> RandomGeneratorSharedVariable:
    """A shared generator variable; ``value`` is copied unless ``borrow``,
    so drawing through the graph never advances the caller's generator."""
    if not isinstance(value, np.random.Generator):
        raise TypeError(
            f"randomgen_constructor needs a numpy.random.Generator, got "
            f"{type(value).__name__}"
        )
    if not borrow:
        value = copy.deepcopy(value)
    return RandomGeneratorSharedVariable(
        random_generator_type, value, strict, allow_downcast, name=name
    )


__all__ = ["RandomGeneratorSharedVariable", "randomgen_constructor"]
