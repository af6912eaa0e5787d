"""Annotations of `oxtensor._core`: pickling graphs and fused ops.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

@t.final
class GraphPickle:
    """The flat form graph objects pickle as: ``GraphPickle(classes)`` makes
    empty objects, ``__setstate__`` fills them, ``g[k]`` is object ``k``."""

    def __new__(cls, classes: Iterable[type]) -> Self: ...
    def __setstate__(self, state: Iterable[tuple[t.Any, ...]]) -> None:
        """Fill the objects' fields (one tuple per object)."""
    def __getitem__(self, key: int, /) -> t.Any:
        """Object ``key``."""
    def __len__(self) -> int:
        """Number of objects."""

def composite_from_state(state: t.Any) -> t.Any:
    """The ``Composite`` scalar op a pickle saved as ``state``."""

def composite_reduce_from_state(
    axis: t.Any, dtype: t.Any, acc_dtype: t.Any, state: t.Any
) -> t.Any:
    """The fused ``Sum`` (``CAReduce{Composite}``) a pickle saved."""
