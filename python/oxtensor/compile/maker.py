"""``oxtensor.compile.maker``: PyTensor 3's module path for `function` and
`UnusedInputError` (PyTensor keeps its ``FunctionMaker`` here; oxtensor's is
the core's, ``crates/oxtensor-core/src/compile/maker.rs``)."""

from oxtensor.compile.function import UnusedInputError, function

__all__ = ["UnusedInputError", "function"]
