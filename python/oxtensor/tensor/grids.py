"""Index grids, as in ``pytensor.tensor.basic``: ``mgrid``/``ogrid`` (NumPy's
dense and open grids of ``arange`` vectors, with symbolic bounds allowed)
and the triangle indices ``tril_indices``/``triu_indices`` (``nonzero`` of a
boolean ``tri``) with their ``*_from`` forms. Each only calls existing
functions."""

from typing import Any

from oxtensor.tensor.basic import _dim, arange, as_tensor_variable, ones
from oxtensor.tensor.triangular import tri


class _Grid:
    """``mgrid[...]``/``ogrid[...]``: one ``arange`` per slice, each along its
    own axis; ``ogrid`` keeps length-1 axes elsewhere, ``mgrid`` broadcasts
    every vector to the full grid."""

    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse

    def __getitem__(self, key: Any) -> Any:
        if not isinstance(key, tuple):
            return self._ranges((key,))[0]
        return self._ranges(key)

    def _ranges(self, key: tuple[Any, ...]) -> list[Any]:
        for sl in key:
            if not isinstance(sl, slice):
                raise TypeError(f"grid indices must be slices, got {sl!r}")
        vecs = [
            arange(
                0 if sl.start is None else sl.start,
                sl.stop,
                1 if sl.step is None else sl.step,
            )
            for sl in key
        ]
        n = len(vecs)
        grids = [
            v.dimshuffle(*["x" if j != i else 0 for j in range(n)])
            for i, v in enumerate(vecs)
        ]
        if self.sparse:
            return grids
        full = ones([_dim(v, 0) for v in vecs], dtype="int8")
        return [g * full for g in grids]


#: Dense grids: ``mgrid[0:2, 0:3]`` is two 2 by 3 arrays (NumPy's ``mgrid``).
mgrid = _Grid(sparse=False)
#: Open grids: ``ogrid[0:2, 0:3]`` is a 2 by 1 and a 1 by 3 array.
ogrid = _Grid(sparse=True)


def tril_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[Any, Any]:
    """Row and column indices of the lower triangle (diagonal ``k``) of an
    ``n`` by ``m`` array (NumPy's ``tril_indices``)."""
    return tri(n, m, k, dtype="bool").nonzero()


def triu_indices(n: Any, k: Any = 0, m: Any = None) -> tuple[Any, Any]:
    """Row and column indices of the upper triangle (diagonal ``k``) of an
    ``n`` by ``m`` array (NumPy's ``triu_indices``)."""
    return (~tri(n, m, k - 1, dtype="bool")).nonzero()


def _matrix(a: Any, name: str) -> Any:
    a = as_tensor_variable(a)
    if a.ndim != 2:
        raise ValueError(
            f"{name}: the input array must be two dimensional, got {a.type}"
        )
    return a


def tril_indices_from(a: Any, k: Any = 0) -> tuple[Any, Any]:
    """``tril_indices`` for the shape of the matrix ``a``."""
    a = _matrix(a, "tril_indices_from")
    return tril_indices(_dim(a, 0), k, _dim(a, 1))


def triu_indices_from(a: Any, k: Any = 0) -> tuple[Any, Any]:
    """``triu_indices`` for the shape of the matrix ``a``."""
    a = _matrix(a, "triu_indices_from")
    return triu_indices(_dim(a, 0), k, _dim(a, 1))


__all__ = [
    "mgrid",
    "ogrid",
    "tril_indices",
    "tril_indices_from",
    "triu_indices",
    "triu_indices_from",
]
