"""`Elemwise`, `DimShuffle` and `CAReduce` (implemented in the Rust extension)."""

from oxtensor import _core

Elemwise = _core.Elemwise
DimShuffle = _core.DimShuffle
CAReduce = _core.CAReduce

__all__ = ["CAReduce", "DimShuffle", "Elemwise"]
