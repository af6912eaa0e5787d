"""``Blockwise``: an op applied over the leading batch axes its gufunc
signature leaves, as NumPy's generalized ufuncs are (PyTensor's
``tensor/blockwise.py``). The op lives in the core."""

from oxtensor import _core

Blockwise = _core.Blockwise

# PyTensor's ``BlockwiseWithCoreShape`` is a ``Blockwise`` that a rewrite
# gives its core shapes as inputs; oxtensor's ``Blockwise`` works its
# shapes out itself, so the name is the same class.
BlockwiseWithCoreShape = Blockwise

__all__ = ["Blockwise", "BlockwiseWithCoreShape"]
