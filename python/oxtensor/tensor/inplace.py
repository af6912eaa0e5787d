"""Inplace elementwise ops (`pytensor.tensor.inplace`): ``add_inplace(x, y)``
computes ``x + y`` into ``x``'s memory (``destroy_map = {0: [0]}``).

A function's graph may hold them only with ``accept_inplace=True``; the
`DestroyHandler` then runs every other reader of ``x`` first.
"""

from typing import Any

from oxtensor import scalar
from oxtensor.tensor.elemwise import Elemwise

# Every elementwise kind of the scalar table, as in PyTensor (one whose
# output cannot be stored in its first input's dtype is refused when applied).
_NAMES = [attr for _, _, attr, *_ in scalar.basic.KINDS]


def _inplace(name: str) -> Any:
    return Elemwise(getattr(scalar, name), {0: 0}, name=f"{name}_inplace")


globals().update({f"{n}_inplace": _inplace(n) for n in _NAMES})

__all__ = [f"{n}_inplace" for n in _NAMES]  # pyright: ignore[reportUnsupportedDunderAll]
