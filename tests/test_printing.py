"""`debugprint`/`dprint` in PyTensor 3.x's format (anatomy §8.1)."""

import io

import oxtensor
import oxtensor.tensor as T
import pytest
from oxtensor.graph.fg import FunctionGraph
from oxtensor.printing import debugprint, dprint

from tests.helpers import TwoOutputs


def mul_graph():
    x = T.dvector("x")
    return x, x * 2.0


def shared_graph():
    x = T.dvector("x")
    z = T.exp(x)
    z.name = "z"
    w = (z * z).sum()
    w.name = "w"
    return x, z, w


MUL = "Mul [id A]\n ├─ x [id B]\n └─ ExpandDims{axis=0} [id C]\n    └─ 2.0 [id D]\n"

SHARED = (
    "Sum{axes=None} [id A] 'w'\n"
    " └─ Mul [id B]\n"
    "    ├─ Exp [id C] 'z'\n"
    "    │  └─ x [id D]\n"
    "    └─ Exp [id C] 'z'\n"
    "       └─ ···\n"
)


# --- the anatomy's examples, verbatim ---


def test_mul_example():
    _, y = mul_graph()
    assert dprint(y, file="str") == MUL


def test_mul_example_print_type():
    _, y = mul_graph()
    assert dprint(y, print_type=True, file="str") == (
        "Mul [id A] <Vector(float64, shape=(?,))>\n"
        " ├─ x [id B] <Vector(float64, shape=(?,))>\n"
        " └─ ExpandDims{axis=0} [id C] <Vector(float32, shape=(1,))>\n"
        "    └─ 2.0 [id D] <Scalar(float32, shape=())>\n"
    )


def test_shared_subgraph_and_names():
    _, _, w = shared_graph()
    assert dprint(w, file="str") == SHARED


def test_stdout_is_the_default(capsys):
    _, y = mul_graph()
    oxtensor.dprint(y)
    assert capsys.readouterr().out == MUL


def test_entry_points_agree():
    x, y = mul_graph()
    assert oxtensor.dprint is dprint
    assert oxtensor.debugprint(y, file="str") == MUL
    assert y.dprint(file="str") == MUL
    assert y.owner.dprint(file="str") == MUL
    fg = FunctionGraph([x], [y])
    assert fg.dprint(file="str") == debugprint(fg, file="str")


def test_file_object():
    _, y = mul_graph()
    buffer = io.StringIO()
    assert debugprint(y, file=buffer) is buffer
    assert buffer.getvalue() == MUL


# --- options ---


def test_id_type_int_and_none():
    _, y = mul_graph()
    assert dprint(y, file="str", id_type="int") == (
        "Mul [id 0]\n ├─ x [id 1]\n └─ ExpandDims{axis=0} [id 2]\n    └─ 2.0 [id 3]\n"
    )
    assert dprint(y, file="str", id_type="") == (
        "Mul\n ├─ x\n └─ ExpandDims{axis=0}\n    └─ 2.0\n"
    )


def test_print_shape():
    _, y = mul_graph()
    assert dprint(y, file="str", print_shape=True) == (
        "Mul [id A] shape=(?,)\n"
        " ├─ x [id B] shape=(?,)\n"
        " └─ ExpandDims{axis=0} [id C] shape=(1,)\n"
        "    └─ 2.0 [id D] shape=()\n"
    )


def test_depth():
    _, y = mul_graph()
    assert dprint(y, file="str", depth=1) == "Mul [id A]\n"
    assert dprint(y, file="str", depth=2) == (
        "Mul [id A]\n ├─ x [id B]\n └─ ExpandDims{axis=0} [id C]\n"
    )
    assert dprint(y, file="str", depth=-1) == MUL


def test_stop_on_name():
    # A named node is not expanded: its inputs are elided, as PyTensor's are.
    _, _, w = shared_graph()
    assert dprint(w, file="str", stop_on_name=True) == (
        "Sum{axes=None} [id A] 'w'\n └─ ···\n"
    )


def test_view_and_destroy_maps():
    _, y = mul_graph()
    assert dprint(y, file="str", print_view_map=True, print_destroy_map=True) == (
        "Mul [id A]\n"
        " ├─ x [id B]\n"
        " └─ ExpandDims{axis=0} [id C] v={0: [0]}\n"
        "    └─ 2.0 [id D]\n"
    )


def test_lists_share_ids():
    x, y = mul_graph()
    assert dprint([y, T.exp(x)], file="str") == MUL + "Exp [id E]\n └─ x [id B]\n"


def test_leaves():
    assert dprint(T.constant(2.0), file="str") == "2.0 [id A]\n"
    assert dprint(T.dvector("x"), file="str") == "x [id A]\n"
    assert dprint(T.dvector(), file="str") == "<Vector(float64, shape=(?,))> [id A]\n"


def test_ids_after_z():
    x = T.dscalar("x")
    out = x
    for _ in range(26):
        out = T.exp(out)
    lines = dprint(out, file="str").splitlines()
    assert lines[0] == "Exp [id A]"
    assert lines[25].endswith("Exp [id Z]")
    assert lines[26].endswith("x [id BA]")


def test_multi_output_nodes():
    x = T.dvector("x")
    a, b = TwoOutputs()(x)
    assert dprint([a + b], file="str") == (
        "Add [id A]\n ├─ TwoOutputs.0 [id B]\n │  └─ x [id C]\n"
        " └─ TwoOutputs.1 [id B]\n    └─ ···\n"
    )


# --- FunctionGraphs ---


def test_function_graph_with_toposort_indices():
    x, z, w = shared_graph()
    fg = FunctionGraph([x], [w, z], clone=False)
    assert dprint(fg, file="str") == (
        "Sum{axes=None} [id A] 'w' 2\n"
        " └─ Mul [id B] 1\n"
        "    ├─ Exp [id C] 'z' 0\n"
        "    │  └─ x [id D]\n"
        "    └─ Exp [id C] 'z' 0\n"
        "       └─ ···\n"
        "Exp [id C] 'z' 0\n"
        " └─ ···\n"
    )
    assert dprint(fg, file="str", id_type="int").startswith(
        "Sum{axes=None} [id 0] 'w' 2\n └─ Mul [id 1] 1\n"
    )


def test_function_graph_after_a_replacement():
    x, z, w = shared_graph()
    fg = FunctionGraph([x], [w], clone=False)
    fg.replace(z, T.log(x))
    assert dprint(fg, file="str") == (
        "Sum{axes=None} [id A] 'w' 2\n"
        " └─ Mul [id B] 1\n"
        "    ├─ Log [id C] 0\n"
        "    │  └─ x [id D]\n"
        "    └─ Log [id C] 0\n"
        "       └─ ···\n"
    )


def test_list_with_a_function_graph():
    x, y = mul_graph()
    fg = FunctionGraph([x], [y], clone=False)
    text = dprint([fg, y], file="str")
    assert text.startswith("Mul [id A] 1\n")
    assert text.endswith(MUL)


# --- errors ---


def test_unprintable_objects():
    with pytest.raises(TypeError, match="debugprint cannot print an object type"):
        dprint(3, file="str")
    with pytest.raises(TypeError, match="debugprint cannot print an object type"):
        dprint([T.dvector(), "x"], file="str")


def test_bad_id_type():
    _, y = mul_graph()
    with pytest.raises(ValueError, match="id_type must be one of"):
        dprint(y, id_type="bogus", file="str")
