"""How compiled functions run: native kernels, Python ops through `perform`
(one-element output cells, checked with the type's strict `filter`) and
through their own `make_thunk`; errors raised inside the graph (same
exception class, a note naming the node, the function still usable); bad
arguments never crash the process; intermediates are freed and recycled."""

import re

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import function
from oxtensor.graph.basic import Apply
from oxtensor.graph.op import Op

from tests.helpers import (
    CountingOp,
    PerformIdentity,
    ThunkIdentity,
    UnaryPythonOp,
    assert_matches,
    chain_setup,
    peak_growth,
)


def test_every_path_gives_numpys_values(path):
    x = ot.tensor("x", dtype="float32", shape=(None, None))
    y = ot.exp(path(x) * 2).sum(axis=1) - path(x).T.max(axis=0)
    f = function([x], y)
    a = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)
    assert_matches(f(a), np.exp(a * 2).sum(axis=1) - a.T.max(axis=0), scale=4)


def test_paths_mix_in_one_graph():
    x = ot.dvector("x")
    mid = ThunkIdentity()(ot.sqrt(PerformIdentity()(x * 2) + 1))
    f = function([x], [mid * 3, PerformIdentity()(mid).sum()])
    a = np.arange(5.0)
    want = np.sqrt(a * 2 + 1)
    scaled, total = f(a)
    assert_matches(scaled, want * 3)
    assert_matches(total, want.sum(), scale=5)


class Scale(UnaryPythonOp):
    """``x * factor`` in ``perform``, with an int ``factor`` prop."""

    __props__ = ("factor",)

    def __init__(self, factor):
        self.factor = factor

    def perform(self, node, inputs, output_storage):
        assert isinstance(output_storage, list)
        assert all(isinstance(cell, list) and len(cell) == 1 for cell in output_storage)
        assert output_storage[0][0] is None
        (x,) = inputs
        output_storage[0][0] = (x * self.factor).astype(x.dtype)


@pytest.mark.parametrize("dtype", ["int8", "uint32", "float16", "complex64", "bool"])
def test_perform_gets_ndarrays_and_one_element_cells(dtype):
    x = ot.tensor("x", dtype=dtype, shape=(None,))
    f = function([x], Scale(3)(x))
    a = np.array([0, 1, 1], dtype)
    assert_matches(f(a), (a * 3).astype(dtype))


class Clobber(UnaryPythonOp):
    """Writes into its input; with ``destroy`` it says so in ``destroy_map``."""

    __props__ = ("destroy",)

    def __init__(self, destroy):
        self.destroy = destroy
        self.destroy_map = {0: [0]} if destroy else {}

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        x += 1
        output_storage[0][0] = x


def test_perform_inputs_are_read_only_views():
    x = ot.dvector("x")
    f = function([x], Clobber(destroy=False)(x))
    a = np.zeros(3)
    with pytest.raises(ValueError, match="read-only"):
        f(a)
    assert_matches(a, np.zeros(3))


def test_an_op_destroying_its_input_gets_a_copy():
    x = ot.dvector("x")
    f = function([x], Clobber(destroy=True)(x), accept_inplace=True)
    a = np.zeros(3)
    assert_matches(f(a), np.ones(3))
    assert_matches(a, np.zeros(3))


class Store(Op):
    """Stores ``value(x)`` as its output, whatever the output type says."""

    __props__ = ("label",)

    def __init__(self, label, value, out_type=None):
        self.label, self.value, self.out_type = label, value, out_type

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [(self.out_type or x.type)()])

    def perform(self, node, inputs, output_storage):
        value = self.value(inputs[0])
        if value is not None:
            output_storage[0][0] = value


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (Store("dtype", lambda x: x.astype("float32")), "dtype float32 and shape (3,)"),
        (Store("rank", lambda x: x[None]), "Wrong number of dimensions"),
        (
            Store("shape", lambda x: np.ones(4), ot.TensorType("float64", (3,))),
            "not compatible with the data's ((4,))",
        ),
        (Store("list", lambda x: [1.0, 2.0, 3.0]), "type list"),
        (Store("nothing", lambda x: None), "did not store a value for output 0"),
    ],
    ids=lambda v: getattr(v, "label", ""),
)
def test_outputs_of_the_wrong_type_raise_type_error_naming_the_op(op, message):
    x = ot.dvector("x")
    f = function([x], op(x) * 2)
    with pytest.raises(TypeError, match=re.escape(message)) as info:
        f(np.ones(3))
    assert f"Store{{label={op.label!r}}}" in str(info.value)
    assert_matches(function([x], x * 2)(np.ones(3)), np.full(3, 2.0))


class MyError(RuntimeError):
    pass


@pytest.mark.parametrize("error", [KeyError("k"), ZeroDivisionError("z"), MyError("m")])
@pytest.mark.parametrize("make_thunk", [False, True])
def test_errors_in_python_ops_keep_their_class_and_name_the_node(error, make_thunk):
    x = ot.tensor("x", dtype="float32", shape=(None, None))
    op = CountingOp("boom")
    inner = op(x)
    out = ThunkIdentity()(inner) if make_thunk else inner * 2
    f = function([x], out)
    op.raises = error
    with pytest.raises(type(error)) as info:
        f(np.ones((2, 3), "float32"))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "Apply node that caused the error: CountingOp{tag='boom'}(x)" in notes
    assert "Inputs shapes: [[2, 3]]" in notes
    assert "Inputs dtypes: [float32]" in notes
    op.raises = None
    want = np.ones((2, 3), "float32") * (1 if make_thunk else 2)
    assert_matches(f(np.ones((2, 3), "float32")), want)


class FailingThunk(PerformIdentity):
    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        def thunk():
            raise OSError("disk on fire")

        return thunk


def test_errors_in_make_thunk_thunks_keep_their_class():
    x = ot.dvector("x")
    f = function([x], FailingThunk()(x) + 1)
    with pytest.raises(OSError, match="disk on fire") as info:
        f(np.ones(2))
    assert "FailingThunk(x)" in "\n".join(info.value.__notes__)


def test_native_shape_errors_name_the_node_and_leave_the_function_usable():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = function([x, y], ot.exp(x) + y)
    with pytest.raises(ValueError, match="Input dimension mismatch") as info:
        f(np.ones((2, 2)), np.ones((3, 2)))
    msg = str(info.value)
    assert "Apply node that caused the error: Composite{(exp(i0) + i1)}(x, y)" in msg
    assert "Toposort index: 0" in msg
    assert "Inputs shapes: [[2, 2], [3, 2]]" in msg
    assert_matches(f(np.zeros((1, 2)), np.ones((1, 2))), np.full((1, 2), 2.0))


BAD_ARGUMENTS = [
    None,
    "text",
    b"bytes",
    object(),
    [[1.0], [2.0, 3.0]],
    [1.0, "a"],
    {"a": 1},
    10**100,
    float("nan"),
    np.array(["a", "b"]),
    np.array([object()]),
    np.zeros(3, dtype=[("f", "f8")]),
    np.zeros(3, "datetime64[s]"),
    np.zeros(3, "longdouble"),
    np.ones((2, 2, 2)),
]


@pytest.mark.parametrize("arg", BAD_ARGUMENTS, ids=lambda a: type(a).__name__)
@pytest.mark.parametrize("trust", [False, True])
def test_bad_arguments_raise_and_never_crash_the_process(arg, trust):
    x = ot.dvector("x")
    f = function([x], ot.exp(x).sum() + ot.shape_i(x, 0), trust_input=trust)
    with pytest.raises((TypeError, ValueError), match=r"\w"):
        f(arg)
    assert_matches(f(np.zeros(2)), np.array(4.0))


@pytest.mark.parametrize("arg", [np.ones(0), np.ones(3)[::-1], np.ones(5)[1:4]])
@pytest.mark.parametrize("trust", [False, True])
def test_odd_but_valid_arguments(arg, trust):
    x = ot.dvector("x")
    f = function([x], ot.exp(x).sum() + ot.shape_i(x, 0), trust_input=trust)
    assert_matches(f(arg), np.exp(arg).sum() + len(arg))


MEMORY_CHECK = """
expected = v
for k in range(10):
    expected = np.sqrt(np.abs(expected) + 1.0) if k % 2 else expected * 1.0001 - 0.5
np.testing.assert_allclose(out, expected, rtol=1e-12)
"""

MEMORY_SCRIPT = chain_setup(10, "10**6")


def test_a_long_chain_frees_and_recycles_its_intermediates():
    # 25 elementwise ops over 8 MB: without freeing dead intermediates the
    # peak would grow by ~25 arrays; with it, by the output and a few live
    # buffers. Measured in a fresh process, where the peak is this call's
    # (the input is already there; NumPy's check runs after).
    growth = peak_growth(MEMORY_SCRIPT, "out = f(v)\nout = f(v)", MEMORY_CHECK)
    assert growth <= 6, f"peak memory grew by {growth:.1f} arrays"
