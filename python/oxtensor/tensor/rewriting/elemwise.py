"""Elementwise fusion, as ``pytensor.tensor.rewriting.elemwise`` names it.
The pass is built into the core and registered in ``optdb``'s
``elemwise_fusion`` phase (tags ``fast_run``, ``fusion``) as
``composite_elemwise_fusion``, followed there by
``local_useless_composite_outputs``, ``local_careduce_fusion`` and
``local_inline_composite_constants``."""

from typing import Any


def FusionOptimizer() -> Any:
    """The fusion pass (PyTensor's ``FusionOptimizer``): groups of
    elementwise nodes become one ``Elemwise(Composite)`` node. Returns the
    core pass registered in ``optdb`` (a ``GraphRewriter``)."""
    from oxtensor.compile.mode import optdb

    return optdb["elemwise_fusion"]["composite_elemwise_fusion"]


__all__ = ["FusionOptimizer"]
