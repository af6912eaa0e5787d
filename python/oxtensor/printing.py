"""`debugprint` / `dprint` in PyTensor 3.x's format."""

from oxtensor import _core

debugprint = _core.debugprint
dprint = debugprint

__all__ = ["debugprint", "dprint"]
