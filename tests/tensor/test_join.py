"""Joining ops against NumPy: `Join` (`join`, `concatenate`, `stack`, the
horizontal/vertical stacks), `Split` (views of its input) and `MakeVector`;
static shapes at build time, runtime errors naming the node, gradients and
`Rop` through `verify_grad`/finite differences, and PyTensor's `str` forms."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.gradient import Rop, verify_grad
from oxtensor.printing import debugprint

from tests.helpers import DTYPES, assert_matches, check_op_contract


def fn(inputs, outputs):
    return oxtensor.function(inputs, outputs, on_unused_input="ignore")


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_join_matches_numpy_over_dtypes(dtype):
    a, b = sample((2, 3), dtype), sample((4, 3), dtype, 1)
    x = ot.tensor("x", dtype=dtype, shape=(None, None))
    y = ot.tensor("y", dtype=dtype, shape=(None, None))
    got = fn([x, y], [ot.join(0, x, y), ot.concatenate([x, x], axis=-1)])(a, b)
    assert_matches(got[0], np.concatenate([a, b]))
    assert_matches(got[1], np.concatenate([a, a], axis=-1))


def test_join_upcasts_and_reads_strided_inputs(path):
    a = np.arange(24, dtype="int32").reshape(4, 6)[:, ::2]  # strided
    b = np.arange(12, dtype="float32").reshape(3, 4).T  # transposed
    x = ot.tensor("x", dtype="int32", shape=(None, None))
    y = ot.tensor("y", dtype="float32", shape=(None, None))
    out = ot.join(0, path(x), path(y))
    assert out.dtype == "float64"
    assert_matches(fn([x, y], out)(a, b), np.concatenate([a, b]).astype("float64"))


def test_join_symbolic_axis_empty_inputs_and_one_input():
    x, n = ot.dmatrix("x"), ot.iscalar("n")
    f = fn([x, n], ot.join(n, x, x))
    a = np.arange(6.0).reshape(2, 3)
    assert_matches(f(a, 1), np.concatenate([a, a], axis=1))
    assert_matches(f(a, -2), np.concatenate([a, a], axis=0))
    assert_matches(f(np.zeros((0, 3)), 0), np.zeros((0, 3)))
    assert ot.join(0, x) is x


def test_join_static_shapes():
    def t(*shape):
        return ot.tensor(shape=shape)

    assert ot.join(0, t(2, 3), t(4, 3)).type.shape == (6, 3)
    assert ot.join(0, t(2, 3), t(None, 3)).type.shape == (None, 3)
    assert ot.join(0, t(2, None), t(None, 3)).type.shape == (None, 3)
    assert ot.join(-1, t(2, 3), t(2, 5)).type.shape == (2, 8)
    assert ot.join(ot.iscalar(), t(2, 3), t(2, 3)).type.shape == (None, None)
    assert ot.stack([t(2, 3), t(2, 3)], axis=1).type.shape == (2, 2, 3)


def test_an_axis_computed_from_constants_is_read_as_constant():
    # PyTensor reads the axis with `get_underlying_scalar_constant_value`,
    # so `cast(1, "int32")` gives the same static shape as `1`.
    a = ot.tensor(shape=(None, None, 1))
    b = ot.tensor(shape=(1, None, 1))
    for axis in (1, ot.constant(1), ot.cast(ot.constant(1), "int32")):
        assert ot.join(axis, a, b).type.shape == (1, None, 1)
    f = oxtensor.function([a, b], ot.join(ot.cast(ot.constant(1), "int32"), a, b))
    va, vb = np.ones((1, 4, 1)), np.zeros((1, 3, 1))
    assert_matches(f(va, vb), np.concatenate([va, vb], axis=1))
    # A symbolic axis stays unknown.
    assert ot.join(ot.iscalar(), a, b).type.shape == (None, None, None)


def test_join_build_errors():
    with pytest.raises(ValueError, match=r"along dimension 1, the inputs shapes are"):
        ot.join(0, ot.tensor(shape=(2, 3)), ot.tensor(shape=(2, 4)))
    with pytest.raises(TypeError, match=r"Input ndims were: \[2, 1\]"):
        ot.join(0, ot.dmatrix(), ot.dvector())
    with pytest.raises(TypeError, match="cannot join scalars"):
        ot.join(0, ot.dscalar(), ot.dscalar())
    with pytest.raises(TypeError, match="integer scalar"):
        ot.join(ot.dscalar(), ot.dmatrix(), ot.dmatrix())
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        ot.join(2, ot.dmatrix(), ot.dmatrix())
    with pytest.raises(TypeError, match="tuple or a list"):
        ot.concatenate(ot.dmatrix())


def test_join_runtime_error_names_node():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = fn([x, y], ot.join(1, x, y))
    with pytest.raises(ValueError, match=r"(?s)must match exactly.*Join\(1, x, y\)"):
        f(np.ones((2, 3)), np.ones((3, 3)))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "complex128", "bool"])
def test_split_matches_numpy_and_gives_views(dtype):
    a = sample((3, 7), dtype)
    x = ot.tensor("x", dtype=dtype, shape=(None, None))
    parts = ot.split(x, [2, 0, 5], n_splits=3, axis=-1)
    node = parts[0].owner
    assert node.op.view_map == {0: [0], 1: [0], 2: [0]}
    assert [p.type.shape for p in parts] == [(None, 2), (None, 0), (None, 5)]
    got = fn([x], parts)(a)
    for g, w in zip(got, np.split(a, [2, 2], axis=1), strict=True):
        assert_matches(g, w)


def test_split_symbolic_sizes_and_errors():
    x, s, ax = ot.dmatrix("x"), ot.lvector("s"), ot.iscalar("ax")
    parts = ot.split(x, s, n_splits=2, axis=ax)
    assert parts[0].type.shape == (None, None)
    f = fn([x, s, ax], parts)
    a = np.arange(12.0).reshape(4, 3)
    got = f(a, [1, 3], 0)
    assert_matches(got[1], a[1:])
    with pytest.raises(
        ValueError, match=r"(?s)Split sizes sum to 3; expected 4.*Split"
    ):
        f(a, [1, 2], 0)
    with pytest.raises(ValueError, match="len_splits"):
        f(a, [1, 1, 2], 0)
    with pytest.raises(ValueError, match="negative"):
        f(a, [-1, 5], 0)
    with pytest.raises(ValueError, match="n_splits"):
        ot.split(x, s)


def test_make_vector_from_scalars():
    a, b, n = ot.dscalar("a"), ot.dscalar("b"), ot.iscalar("n")
    v = ot.as_tensor_variable([a, b])
    assert str(v.owner.op) == "MakeVector{dtype='float64'}"
    assert ot.stack([a, b]).owner.op == v.owner.op
    w = ot.as_tensor_variable([n, 2])
    assert w.type.dtype == "int32"
    assert w.type.shape == (2,)
    assert_matches(fn([a, b], v)(1.5, -2), np.array([1.5, -2.0]))
    assert_matches(fn([n], w)(7), np.array([7, 2], dtype="int32"))
    with pytest.raises(TypeError, match="without loss"):
        ot.MakeVector("int8")(ot.dscalar())
    mixed = ot.as_tensor_variable([ot.dvector("u"), ot.dvector("u2")])
    assert isinstance(mixed.owner.op, ot.Join)


def test_stack_and_2d_stacks():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    a, b = sample((2, 3), "float64"), sample((2, 3), "float64", 1)
    f = fn([x, y], [ot.stack([x, y], axis=-1), ot.horizontal_stack(x, y)])
    got = f(a, b)
    assert_matches(got[0], np.stack([a, b], axis=-1))
    assert_matches(got[1], np.hstack([a, b]))
    assert_matches(fn([x, y], ot.vertical_stack(x, y))(a, b), np.vstack([a, b]))
    with pytest.raises(ValueError, match="two dimensions"):
        ot.horizontal_stack(x, ot.dvector())
    with pytest.raises(ValueError, match="No tensor arguments"):
        ot.stack([])


def test_str_and_dprint_match_pytensor():
    x, n = ot.dmatrix("x"), ot.iscalar("n")
    parts = ot.split(x, [1, 2], n_splits=2, axis=0)
    text = debugprint(parts, file="str")
    assert text.splitlines()[0] == "Split{2}.0 [id A]"
    assert "[1 2] [id D]" in text
    text = debugprint(ot.concatenate([x, x], axis=-1), file="str")
    assert text.splitlines()[:2] == ["Join [id A]", " ├─ 1 [id B]"]
    assert str(ot.join(n, x, x).owner.op) == "Join"


def test_op_contracts():
    x = ot.dmatrix("x")
    check_op_contract(ot.Join(), [0, x, x])
    check_op_contract(ot.Split(2), [x, 0, np.array([1, 1])])
    check_op_contract(ot.MakeVector("float64"), [ot.dscalar(), ot.dscalar()])
    assert ot.Split(2) == ot.Split(2)
    assert ot.Split(2) != ot.Split(3)


def test_gradients():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((4, 3))
    verify_grad(lambda x, y: ot.join(0, x, y), [a, b], rng=rng)
    verify_grad(lambda x, y: ot.stack([x, x * y.sum()]), [a, b], rng=rng)
    verify_grad(lambda x: ot.split(x, [1, 2], n_splits=2, axis=1)[1], [a], rng=rng)
    verify_grad(lambda x: ot.split(x, [1, 2], n_splits=2, axis=1)[0] * 2, [a], rng=rng)
    s, t = ot.dscalar("s"), ot.dscalar("t")
    g = oxtensor.grad((ot.stack([s, t * 3]) ** 2).sum(), [s, t])
    assert_matches(np.array(fn([s, t], g)(2.0, 1.0)), np.array([4.0, 18.0]))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_join_gradient_along_a_symbolic_axis(axis):
    x, y, n = ot.dmatrix("x"), ot.dmatrix("y"), ot.iscalar("n")
    out = (ot.join(n, x, 3 * y) ** 2).sum()
    gx, gy = oxtensor.grad(out, [x, y])
    a, b = np.ones((2, 2)), np.full((2, 2), 2.0)
    got = fn([x, y, n], [gx, gy])(a, b, axis)
    assert_matches(got[0], 2 * a)
    assert_matches(got[1], 18 * b)


def test_rop_of_join_and_split():
    x, v = ot.dvector("x"), ot.dvector("v")
    out = ot.join(0, x, 2 * x)
    r = fn([x, v], Rop(out, x, v))(np.ones(2), np.array([1.0, 2.0]))
    assert_matches(r, np.array([1.0, 2.0, 2.0, 4.0]))
    part = ot.split(x, [1, 1], n_splits=2)[1]
    assert_matches(
        fn([x, v], Rop(part, x, v))(np.ones(2), np.array([5.0, 6.0])), np.array([6.0])
    )


@given(
    rank=st.integers(1, 3),
    data=st.data(),
)
def test_join_stack_split_shapes_hypothesis(rank, data):
    base = data.draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
    axis = data.draw(st.integers(-rank, rank - 1))
    lengths = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    arrays = []
    for i, n in enumerate(lengths):
        shape = list(base)
        shape[axis] = n
        arrays.append(
            np.arange(int(np.prod(shape)), dtype="float64").reshape(shape) + i
        )
    xs = [
        ot.tensor(f"x{i}", dtype="float64", shape=(None,) * rank)
        for i in range(len(arrays))
    ]
    joined = ot.join(axis, *xs) if len(xs) > 1 else ot.concatenate(xs, axis=axis)
    stacked = ot.stack([xs[0], xs[0]], axis=axis)
    parts = ot.split(joined, lengths, n_splits=len(lengths), axis=axis)
    # As in PyTensor, one piece comes back as a variable, not a list.
    parts = parts if isinstance(parts, list) else [parts]
    got = fn(xs, [joined, stacked, *parts])(*arrays)
    want = np.concatenate(arrays, axis=axis)
    assert_matches(got[0], want)
    assert_matches(got[1], np.stack([arrays[0], arrays[0]], axis=axis))
    for g, w in zip(got[2:], arrays, strict=True):
        assert_matches(g, w)


@pytest.mark.parametrize(
    "op",
    [
        ot.ARange("int32"),
        ot.Split(3),
        ot.Repeat(1),
        ot.Alloc(),
        ot.Join(),
        ot.SpecifyShape(),
        ot.MakeVector("float32"),
        ot.Eye("int8"),
        ot.AllocEmpty("float16"),
    ],
)
def test_ops_pickle_and_copy_by_props(op):
    import copy
    import pickle

    again = pickle.loads(pickle.dumps(op))
    assert again == op
    assert hash(again) == hash(op)
    assert copy.copy(op) == op
    assert str(again) == str(op)


def test_compiled_function_with_these_ops_pickles():
    import pickle

    x, n = ot.dmatrix("x"), ot.iscalar("n")
    outs = [ot.join(0, x, x), ot.tile(x, (n, 1)), ot.arange(n), ot.eye(n)]
    f = pickle.loads(pickle.dumps(fn([x, n], outs)))
    a = np.arange(4.0).reshape(2, 2)
    got = f(a, 2)
    assert_matches(got[1], np.tile(a, (2, 1)))
    assert_matches(got[3], np.eye(2))
