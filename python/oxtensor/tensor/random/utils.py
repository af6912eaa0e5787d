"""`RandomStream` (a factory of random variables, each with its own shared
generator and that generator's ``default_update``) and the ``size``
argument's normalisation."""

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from oxtensor.graph.basic import Variable


def normalize_size_param(size: Any) -> Variable:
    """``size`` as ``NoneConst`` or an int64 vector of known length."""
    from oxtensor.tensor import as_tensor_variable, cast
    from oxtensor.tensor.basic import get_vector_length
    from oxtensor.tensor.type_other import NoneConst, NoneTypeT

    if size is None:
        return NoneConst
    if isinstance(size, Variable) and isinstance(size.type, NoneTypeT):
        return size
    if isinstance(size, int | np.integer):
        size = (size,)
    if isinstance(size, tuple | list) and all(
        isinstance(n, int | np.integer) for n in size
    ):
        size = np.array(size, dtype="int64")
    size = as_tensor_variable(size)
    if size.ndim != 1:
        raise ValueError(f"size must be None, an integer or a vector; got {size.type}")
    if not size.dtype.startswith(("int", "uint")):
        raise TypeError(f"size must hold integers; got {size.type}")
    if size.dtype != "int64":
        size = cast(size, "int64")
    get_vector_length(size)  # a draw's rank must be known when building
    return size


def size_entries(size: Variable) -> list:
    """A (normalised, not None) ``size``'s lengths: ints where constant,
    else scalar graphs (a ``MakeVector``'s inputs, or ``size[i]``)."""
    from oxtensor.tensor.basic import MakeVector, get_vector_length

    data = getattr(size, "data", None)
    if data is not None:
        return [int(n) for n in data]
    owner = size.owner
    if owner is not None and isinstance(owner.op, MakeVector):
        entries = list(owner.inputs)
    else:
        entries = [size[i] for i in range(get_vector_length(size))]
    return [_constant_or_self(entry) for entry in entries]


def _constant_or_self(entry: Variable) -> Any:
    """A scalar graph's constant value as an int, else the graph."""
    from oxtensor.tensor.constants import get_underlying_scalar_constant_value
    from oxtensor.tensor.exceptions import NotScalarConstantError

    try:
        return int(get_underlying_scalar_constant_value(entry))
    except NotScalarConstantError:
        return entry


def size_static_shape(size: Variable) -> tuple:
    """The lengths a (normalised, not None) ``size`` gives, where known."""
    return tuple(n if isinstance(n, int) else None for n in size_entries(size))


class RandomStream:
    """Random variables whose generators are seeded from one seed.

    Each variable made by a method (``normal``, ``uniform``, ...: the
    functions of ``namespace``, by default `oxtensor.tensor.random.basic`)
    reads a new shared generator seeded by a child of ``gen_seedgen``; its
    ``default_update`` is the node's next rng, so every call of a compiled
    function draws anew. ``seed(n)`` reseeds all of them as a stream
    created with ``n`` would be.
    """

    def __init__(
        self,
        seed: Any = None,
        namespace: Any = None,
        rng_ctor: Callable[..., np.random.Generator] = np.random.default_rng,
    ) -> None:
        if namespace is None:
            from oxtensor.tensor.random import basic

            namespace = basic
        self.namespaces = [namespace]
        self.default_instance_seed = seed
        self.gen_seedgen = np.random.SeedSequence(seed)
        self.state_updates: list[tuple[Variable, Variable]] = []
        self.rng_ctor = rng_ctor

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("namespaces", "gen_seedgen"):
            raise AttributeError(name)
        for ns in self.namespaces:
            fn = getattr(ns, name, None)
            if callable(fn) and not isinstance(fn, type):
                return partial(self.gen, fn)
        raise AttributeError(f"No undefined attribute {name} in RandomStream")

    def updates(self) -> list[tuple[Variable, Variable]]:
        """The ``(rng, next_rng)`` pairs of every variable made so far."""
        return list(self.state_updates)

    def seed(self, seed: Any = None) -> None:
        """Reseed every generator of the stream, in creation order, from
        ``seed`` (default: the stream's own)."""
        if seed is None:
            seed = self.default_instance_seed
        self.gen_seedgen = np.random.SeedSequence(seed)
        for rng, _ in self.state_updates:
            rng.set_value(self.rng_ctor(self.gen_seedgen.spawn(1)[0]), borrow=True)

    def gen(self, op: Callable[..., Any], *args: Any, **kwargs: Any) -> Variable:
        """``op(*args, **kwargs)`` drawn with a new shared generator."""
        from oxtensor.compile.sharedvalue import shared

        if "rng" in kwargs:
            raise ValueError(
                "The rng option cannot be used with a variate in a RandomStream"
            )
        rng = shared(self.rng_ctor(self.gen_seedgen.spawn(1)[0]), borrow=True)
        rng.tag.is_rng = True
        out = op(*args, rng=rng, **kwargs)
        next_rng = out.owner.outputs[0]
        out.rng = rng
        out.update = (rng, next_rng)
        rng.default_update = next_rng
        self.state_updates.append((rng, next_rng))
        return out


__all__ = ["RandomStream", "normalize_size_param", "size_entries", "size_static_shape"]
