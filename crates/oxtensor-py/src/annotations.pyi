"""Annotations of `oxtensor._core`: the shared type aliases and the module-level helpers of `lib.rs`.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

_IoMap: TypeAlias = dict[int, list[int]]
_Client: TypeAlias = tuple[Apply | str, int]
_Axis: TypeAlias = int | Sequence[int] | None
_NewArgs: TypeAlias = tuple[tuple[t.Any, ...], dict[str, t.Any]]
_IdxList: TypeAlias = tuple[int | slice, ...]

def _panic(message: str) -> None:
    """Panics inside the extension with ``message``, as a core bug would: the
    test suite checks that this reaches Python as `InternalError`, quietly."""

def _register(name: str, obj: t.Any) -> None:
    """Called by the Python package at import: the classes Rust instantiates."""
