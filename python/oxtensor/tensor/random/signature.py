"""Gufunc-style signatures of random variables, such as ``"(),(p)->(p)"``
for a multinomial: one group of core dimension names per parameter, then
the draw's. A random variable's ``ndims_params`` and ``ndim_supp`` are read
from its signature."""

import re

_GROUP = re.compile(r"\(([^()]*)\)")


def parse_signature(signature: str) -> tuple[list[list[str]], list[list[str]]]:
    """The core dimension names of the inputs and of the outputs."""
    if signature.count("->") != 1:
        raise ValueError(f"Signature {signature!r} must have one '->'")
    left, right = signature.replace(" ", "").split("->")
    return _groups(left, signature), _groups(right, signature)


def _groups(side: str, signature: str) -> list[list[str]]:
    groups = _GROUP.findall(side)
    if ",".join(f"({g})" for g in groups) != side:
        raise ValueError(f"Signature {signature!r} is not of the form '(a),(b,c)->(d)'")
    return [[name for name in g.split(",") if name] for g in groups]


__all__ = ["parse_signature"]
