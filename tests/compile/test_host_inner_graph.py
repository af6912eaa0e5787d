"""`debugprint` of ops written in Python that have an inner graph
(`OpFromGraph`, `Scan`): their graph is printed under "Inner graphs", with
the inner inputs as ``i0``, ``i1``... as PyTensor prints them."""

from functools import partial

import oxtensor.tensor as pt
from oxtensor.compile.builders import OpFromGraph
from oxtensor.printing import debugprint
from oxtensor.scan import basic as loops

# PyTensor 3.x's form without the updates dict (see test_scan.py for the default).
scan = partial(loops.scan, return_updates=False)


def test_opfromgraph_inner_graph_is_printed():
    x, y, z = pt.dmatrices("x", "y", "z")
    op = OpFromGraph([x, y, z], [x + y * z])
    text = debugprint(op(x, y, z), file="str")
    assert text == (
        "OpFromGraph{inline=False} [id A]\n"
        " ├─ x [id B]\n"
        " ├─ y [id C]\n"
        " └─ z [id D]\n"
        "\n"
        "Inner graphs:\n"
        "\n"
        "OpFromGraph{inline=False} [id A]\n"
        " ← Add [id E]\n"
        "    ├─ i0 [id F]\n"
        "    └─ Mul [id G]\n"
        "       ├─ i1 [id H]\n"
        "       └─ i2 [id I]\n"
    )


def test_each_output_of_a_multi_output_op_is_an_inner_root():
    x = pt.dvector("x")
    op = OpFromGraph([x], [pt.exp(x), x.sum()])
    a, b = op(x)
    text = debugprint([a, b], file="str")
    inner = text.split("Inner graphs:\n")[1]
    assert inner.count(" ← ") == 2
    assert " ← Exp" in inner
    assert " ← Sum" in inner
    assert inner.count("OpFromGraph{inline=False}") == 1, "printed once"


def test_scan_inner_graph_is_printed():
    x = pt.dmatrix("x")
    ys = scan(lambda row: pt.exp(row) * 2.0, sequences=[x])
    text = debugprint(ys, file="str")
    head, inner = text.split("\nInner graphs:\n\n")
    assert "Scan{scan_fn" in head
    assert inner.startswith("Scan{scan_fn")
    assert " ← Mul" in inner
    assert "i0 [id" in inner


def test_ops_without_inner_graph_print_no_section():
    x = pt.dvector("x")
    assert "Inner graphs" not in debugprint(pt.exp(x), file="str")
