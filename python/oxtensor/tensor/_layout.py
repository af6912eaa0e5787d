"""PyTensor's module layout for names defined elsewhere in `oxtensor.tensor`.

PyTensor users import `switch` from `pytensor.tensor.basic`, `isclose` from
`pytensor.tensor.math`, `compress` from `pytensor.tensor.extra_ops`; here
each lives in one module and `oxtensor.tensor` gathers them. A module that
PyTensor gives such a name forwards it with a module `__getattr__`, looked
up on first use so that the modules import in any order.
"""

from collections.abc import Callable
from typing import Any


def forwarder(module: str, names: set[str]) -> Callable[[str], Any]:
    """The module `__getattr__` that gives `oxtensor.tensor.<name>` for each
    of `names` and the usual `AttributeError` for anything else."""

    def __getattr__(name: str) -> Any:
        if name in names:
            import oxtensor.tensor

            return getattr(oxtensor.tensor, name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
