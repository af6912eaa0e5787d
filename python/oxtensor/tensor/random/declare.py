"""Distributions declared by their data alone.

Most of PyTensor's random variables differ only in their name, parameters
and dtype: each draws with the ``numpy.random.Generator`` method (or the
``scipy.stats`` distribution) of its name. `distribution` makes such a
`RandomVariable` subclass from one line of that data, so the modules list
the distributions as a table; a class with behaviour of its own (a
``rng_fn``, a ``__call__``) is written out as a class.
"""

from typing import Any

from oxtensor.tensor.random.op import RandomVariable


def distribution(
    cls_name: str,
    name: str,
    params: tuple[str, ...],
    *,
    dtype: str | None = "floatX",
    defaults: dict[str, Any] | None = None,
    signature: str | None = None,
    base: type[RandomVariable] = RandomVariable,
    doc: str | None = None,
    **attrs: Any,
) -> type[RandomVariable]:
    """The subclass ``cls_name`` of ``base`` drawing from ``name``.

    Every parameter is a scalar unless ``signature`` says otherwise;
    ``attrs`` are further class attributes (``scipy_name``).
    """
    body: dict[str, Any] = {
        "__module__": _caller_module(),
        "__qualname__": cls_name,
        "__doc__": doc or f"Draws from the {name} distribution.",
        "name": name,
        "signature": signature or ",".join("()" for _ in params) + "->()",
        "dtype": dtype,
        "param_names": params,
        "param_defaults": dict(defaults or {}),
        **attrs,
    }
    return type(cls_name, (base,), body)


def _caller_module() -> str:
    """The module that declares the class, so pickle finds it there."""
    import sys

    return sys._getframe(2).f_globals["__name__"]


__all__ = ["distribution"]
