"""What PyTensor's tests/tensor/test_elemwise.py relies on beyond the ops
themselves: an inplace graph the caller built computes its result but
leaves the caller's arrays alone unless marked mutable (functions, linker
thunks; a deliberate difference), `verify_grad` of inplace ops,
`TensorType.values_eq` on the
class, reductions of a 0-d input over axis 0 / -1, `upcast` keeping
float32 under ``cast_policy="numpy+floatX"``, and mode names in any case.
Results are checked against NumPy."""

import re

import numpy as np
import oxtensor
import oxtensor.scalar as ps
import oxtensor.tensor as ot
import pytest
from oxtensor import In, config, function
from oxtensor.compile.mode import get_mode, predefined_modes
from oxtensor.gradient import zero_grad
from oxtensor.gradient_check import GradientError, verify_grad
from oxtensor.graph.fg import FunctionGraph
from oxtensor.link.basic import PerformLinker
from oxtensor.tensor.elemwise import CAReduce, Elemwise
from oxtensor.tensor.type import TensorType

from tests.helpers import assert_matches

ADD_INPLACE = Elemwise(ps.add, {0: 0})


# --- an inplace graph the caller built never writes the caller's arrays ---


@pytest.mark.parametrize(
    ("xsh", "ysh"),
    [((5, 5), (5, 5)), ((5, 5), (1, 5)), ((2, 3, 4), (1, 3, 1)), ((), ())],
)
def test_linker_thunk_leaves_the_destroyed_input_alone(xsh, ysh):
    rng = np.random.default_rng(0)
    x = ot.TensorType("float64", shape=tuple(1 if n == 1 else None for n in xsh))("x")
    y = ot.TensorType("float64", shape=tuple(1 if n == 1 else None for n in ysh))("y")
    fn = (
        PerformLinker()
        .accept(FunctionGraph([x, y], [ADD_INPLACE(x, y)]))
        .make_function()
    )
    xv, yv = np.asarray(rng.random(xsh)), np.asarray(rng.random(ysh))
    before = xv.copy()
    assert_matches(fn(xv, yv), before + yv)
    assert_matches(xv, before)


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16"])
def test_xor_inplace_of_integers_writes_only_a_mutable_argument(dtype):
    x, y = ot.vector(dtype=dtype), ot.vector(dtype=dtype)
    xor_inplace = Elemwise(ps.xor, {0: 0})(x, y)
    f = function([x, y], xor_inplace, accept_inplace=True)
    left = np.array([0, 0, 1, 1], dtype=dtype)
    right = np.array([0, 1, 0, 1], dtype=dtype)
    want = np.array([0, 1, 1, 0], dtype=dtype)
    assert_matches(f(left, right), want)
    assert_matches(left, np.array([0, 0, 1, 1], dtype=dtype))
    g = function([In(x, mutable=True), y], xor_inplace, accept_inplace=True)
    g(left, right)
    assert_matches(left, want)


def test_a_read_only_destroyed_argument_is_left_alone():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = function([x, y], ADD_INPLACE(x, y), accept_inplace=True)
    a = np.arange(3.0)
    a.setflags(write=False)
    assert_matches(f(a, np.ones(3)), np.arange(3.0) + 1)
    assert_matches(a, np.arange(3.0))


def test_a_graph_without_inplace_ops_never_writes_arguments():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = function([x, y], (x + y) * 2, mode="FAST_RUN")
    a = np.arange(3.0)
    assert_matches(f(a, np.ones(3)), (np.arange(3.0) + 1) * 2)
    assert_matches(a, np.arange(3.0))


def test_verify_grad_accepts_inplace_ops():
    point = np.array([[1.5, 1.4, -4.7], [2.0, 0.5, -1.5]])
    verify_grad(Elemwise(ps.exp, {0: 0}), [point.copy()], rng=np.random.default_rng(1))

    # A gradient hidden from `grad` is still caught with inplace ops about.
    def wrong(x):
        return Elemwise(ps.exp, {0: 0})(zero_grad(x) * 1.0)

    with pytest.raises(GradientError):
        verify_grad(wrong, [point], rng=np.random.default_rng(1))


# --- TensorType.values_eq on the class ---


def test_values_eq_is_static():
    a = np.array([np.nan, 1.0, 2.0])
    assert TensorType.values_eq(a, a.copy())
    assert not TensorType.values_eq(a, np.array([np.nan, 1.0, 3.0]))
    assert not TensorType.values_eq(a, a.astype("float32"))
    assert TensorType.values_eq(a, a.astype("float32"), force_same_dtype=False)
    assert not TensorType.values_eq(a, a[:2])
    assert TensorType.values_eq_approx(a, a + 1e-12)
    assert not TensorType.values_eq_approx(a, a + 1.0)
    # Still callable on an instance.
    assert ot.dvector.values_eq(a, a.copy())


# --- reductions of a 0-d input ---


@pytest.mark.parametrize("axis", [(0,), (-1,), ()])
def test_careduce_of_a_scalar_over_its_only_axis(axis):
    x = ot.dscalar("x")
    out = CAReduce(ps.add, axis=axis)(x)
    assert out.ndim == 0
    assert out.eval({x: 5.0}) == 5.0
    assert ot.max(x, axis=axis).eval({x: -2.0}) == -2.0


@pytest.mark.parametrize("axis", [(-2,), (1,), (0, 3)])
def test_careduce_of_a_scalar_refuses_other_axes(axis):
    x = ot.dscalar("x")
    shown = re.escape(f"axis {axis} is out of bounds for array of dimension 0")
    with pytest.raises(np.exceptions.AxisError, match=shown):
        CAReduce(ps.add, axis=axis)(x)


def test_careduce_of_a_scalar_refuses_a_repeated_axis():
    with pytest.raises(ValueError, match="repeated axis"):
        CAReduce(ps.add, axis=(0, -1))(ot.dscalar("x"))


# --- upcast under cast_policy="numpy+floatX" ---


def test_numpy_floatx_keeps_float32_unless_float64_was_asked_for():
    x, y = ot.fvector("x"), ot.ivector("y")
    d = ot.dvector("d")
    with config.change_flags(cast_policy="numpy+floatX", floatX="float32"):
        assert (x + y).dtype == "float32"
        assert (x + d).dtype == "float64"
        assert (y * ot.ivector()).dtype == "int32"
        f = function([x, y], x + y)
    with config.change_flags(cast_policy="numpy+floatX", floatX="float64"):
        assert (x + y).dtype == "float64"
    with config.change_flags(cast_policy="custom", floatX="float32"):
        assert (x + y).dtype == "float64"
    xv = np.array([0.5, 1.5, -2.25], dtype="float32")
    yv = np.array([3, -4, 100000], dtype="int32")
    got = f(xv, yv)
    assert got.dtype == np.float32
    assert_matches(got, (xv + yv).astype("float32"))


def test_a_float32_node_compiles_under_float64_without_going_inplace():
    with config.change_flags(cast_policy="numpy+floatX", floatX="float32"):
        x, y = ot.fvector("x"), ot.ivector("y")
        out = x + y
    with config.change_flags(cast_policy="numpy+floatX", floatX="float64"):
        f = function([In(x, mutable=True), In(y, mutable=True)], out, mode="FAST_RUN")
    assert f.maker.fgraph.outputs[0].owner.op.destroy_map == {}
    xv = np.array([0.5, 1.5], dtype="float32")
    got = f(xv, np.array([1, 2], dtype="int32"))
    assert got.dtype == np.float32
    assert_matches(got, np.array([1.5, 3.5], dtype="float32"))


# --- mode names ---


def test_mode_names_in_any_case():
    assert get_mode("fast_run") is get_mode("FAST_RUN") or (
        get_mode("fast_run").linker_name == predefined_modes["FAST_RUN"].linker_name
    )
    assert get_mode("Fast_Compile").linker_name == "vm"
    with pytest.raises(ValueError, match="unknown mode 'fast_walk'"):
        get_mode("fast_walk")
    x = ot.dvector("x")
    assert_matches(
        oxtensor.function([x], x + 1, mode="fast_run")(np.ones(2)), np.full(2, 2.0)
    )
