"""Types of random-number generators in graphs: `RandomType` and its one
concrete kind, `RandomGeneratorType` (values are NumPy ``Generator``s)."""

from typing import Any

import numpy as np

from oxtensor.graph.type import EqualByClass, Type


class RandomType(Type):
    """A type whose values are random-number generators.

    Two generators are equal values when their bit generators are in the
    same state, so a function's rng output can be compared with a draw made
    by NumPy directly.
    """

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        return a is b


class RandomGeneratorType(EqualByClass, RandomType):
    """The type of ``numpy.random.Generator`` values. All instances are the
    same type."""

    def filter(
        self, data: Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> Any:
        if isinstance(data, np.random.Generator):
            return data
        raise TypeError(
            f"{type(data).__name__} value {data!r} is not a valid value of "
            f"{self}: expected a numpy.random.Generator"
        )

    def is_valid_value(self, data: Any) -> bool:
        return isinstance(data, np.random.Generator)

    def values_eq(self, a: Any, b: Any) -> bool:
        return _same(a.bit_generator.state, b.bit_generator.state)

    def __str__(self) -> str:
        return "RandomGeneratorType"


def _same(a: Any, b: Any) -> bool:
    """Equality of bit-generator states, which nest dicts, ints and (for
    MT19937) arrays."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


random_generator_type = RandomGeneratorType()

__all__ = ["RandomGeneratorType", "RandomType", "random_generator_type"]
