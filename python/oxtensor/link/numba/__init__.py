"""`NumbaLinker`: PyTensor's Numba backend (``linker="numba"``). oxtensor
has no Numba backend; the name compiles with the native VM, as every
linker name does (docs/for-pytensor-users.md)."""

from oxtensor.link.basic import LocalLinker


class NumbaLinker(LocalLinker):
    """``linker="numba"``, run by the native VM."""

    mode_linker = "numba"


__all__ = ["NumbaLinker"]
