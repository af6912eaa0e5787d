"""`pytensor.compile.maker`'s names: `function`, `UnusedInputError` and
`FunctionMaker`, which compiles a graph once and hands out functions over it."""

from typing import Any

from oxtensor.compile.function import Function, UnusedInputError, function
from oxtensor.compile.mode import get_mode


class FunctionMaker:
    """Compiles ``outputs`` as a function of ``inputs`` (as `function` does)
    and keeps what the compilation made: ``fgraph`` (the rewritten graph),
    ``inputs``, ``outputs`` and ``mode``. ``create()`` returns a function
    over that graph; each call after the first links a fresh program, so
    functions made by one maker do not share buffers.
    """

    def __init__(self, inputs: Any, outputs: Any, mode: Any = None, **kwargs: Any):
        self.mode = get_mode(mode)
        self._function = function(list(inputs), outputs, mode=self.mode, **kwargs)
        made = self._function.maker
        self.fgraph = made.fgraph
        self.inputs = made.inputs
        self.outputs = made.outputs
        self._handed_out = False

    def create(self, trustme: bool = False) -> Function:
        """A callable over the compiled graph (``trustme`` is accepted for
        PyTensor's signature; input checks stay on)."""
        del trustme
        if not self._handed_out:
            self._handed_out = True
            return self._function
        return self._function.copy(name=self._function.name)


__all__ = ["FunctionMaker", "UnusedInputError", "function"]
