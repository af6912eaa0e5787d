"""Elementwise fusion, as ``pytensor.tensor.rewriting.elemwise`` names it.
The pass is built into the core and registered in ``optdb``'s
``elemwise_fusion`` phase (tags ``fast_run``, ``fusion``) as
``composite_elemwise_fusion``, followed there by
``local_useless_composite_outputs``, ``local_careduce_fusion`` and
``local_inline_composite_constants``."""

from oxtensor.graph.rewriting.basic import GraphRewriter


class FusionOptimizer(GraphRewriter):
    """The fusion pass (PyTensor's ``FusionOptimizer``): groups of
    elementwise nodes become one ``Elemwise(Composite)`` node. It runs the
    core pass registered in ``optdb`` as ``composite_elemwise_fusion``."""

    def __init__(self) -> None:
        from oxtensor.compile.mode import optdb

        super().__init__()
        self._set_core(optdb["elemwise_fusion"]["composite_elemwise_fusion"])

    def __str__(self) -> str:
        return "FusionOptimizer"


__all__ = ["FusionOptimizer"]
