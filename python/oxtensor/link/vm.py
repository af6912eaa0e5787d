"""`VMLinker`: PyTensor's virtual-machine linker (``linker="vm"``/``"cvm"``),
which is oxtensor's native VM itself."""

from oxtensor.link.basic import LocalLinker


class VMLinker(LocalLinker):
    """The native VM (``linker="vm"``)."""

    mode_linker = "vm"


__all__ = ["VMLinker"]
