"""Creation ops against NumPy: `Alloc` (`alloc`, `zeros`, `ones`, `full`,
`broadcast_to`), `AllocEmpty` (`empty`, `empty_like`), the `_like` forms,
`ARange` (PyTensor's dtype rules), `Eye` and `identity_like`; static shapes,
errors, gradients and PyTensor's `str` forms."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.gradient import Rop, grad, verify_grad
from oxtensor.graph.null_type import NullType
from oxtensor.printing import debugprint

from tests.helpers import DTYPES, assert_matches, check_op_contract


def fn(inputs, outputs):
    return oxtensor.function(inputs, outputs, on_unused_input="ignore")


@pytest.mark.parametrize("dtype", DTYPES)
def test_alloc_family_over_dtypes(dtype):
    n = ot.iscalar("n")
    outs = [
        ot.zeros((2, n), dtype=dtype),
        ot.ones(n, dtype=dtype),
        ot.empty((n, 2), dtype),
    ]
    got = fn([n], outs)(3)
    assert_matches(got[0], np.zeros((2, 3), dtype))
    assert_matches(got[1], np.ones(3, dtype))
    assert got[2].shape == (3, 2)
    assert got[2].dtype == dtype
    v = ot.tensor("v", dtype=dtype, shape=(None,))
    a = (np.arange(3) % 2).astype(dtype)
    assert_matches(fn([v, n], ot.alloc(v, n, 3))(a, 2), np.broadcast_to(a, (2, 3)))


def test_full_and_like_forms():
    x = ot.dmatrix("x")
    a = np.arange(6.0).reshape(2, 3)
    full = ot.full((2, 3), 5)
    assert full.dtype == "int8"
    assert full.type.shape == (2, 3)
    assert ot.full(2, 3, dtype="float32").dtype == "float32"
    outs = [full, ot.full_like(x, 3), ot.zeros_like(x), ot.ones_like(x, dtype="int32")]
    got = fn([x], outs)(a)
    assert_matches(got[0], np.full((2, 3), 5, "int8"))
    assert_matches(got[1], np.full_like(a, 3, dtype="int8"))
    assert_matches(got[2], np.zeros_like(a))
    assert_matches(got[3], np.ones((2, 3), "int32"))
    e = fn([x], ot.empty_like(x, dtype="float32"))(a)
    assert e.shape == (2, 3)
    assert e.dtype == "float32"
    assert ot.zeros(()).type.shape == ()
    assert_matches(fn([], ot.zeros(()))(), np.zeros(()))


def test_alloc_static_shapes_and_errors():
    n = ot.iscalar("n")
    assert ot.zeros((3, n)).type.shape == (3, None)
    assert ot.alloc(ot.tensor(shape=(3,)), n, n).type.shape == (None, 3)
    assert ot.alloc(ot.tensor(shape=(1,)), 2, 1).type.shape == (2, 1)
    assert ot.zeros(ot.dmatrix("x").shape).type.shape == (None, None)
    with pytest.raises(ValueError, match="incompatible"):
        ot.alloc(ot.tensor(shape=(3,)), 2, 4)
    with pytest.raises(TypeError, match="more dimensions"):
        ot.alloc(ot.dmatrix(), 4)
    with pytest.raises(TypeError, match="scalar integers"):
        ot.alloc(ot.dscalar(), ot.dscalar())
    f = fn([n], ot.alloc(ot.constant([1.0, 2.0, 3.0]), 2, n))
    with pytest.raises(ValueError, match=r"(?s)cannot broadcast.*\[2, 4\].*Alloc"):
        f(4)
    g = fn([n], ot.zeros((2, n)))
    with pytest.raises(ValueError, match="negative dimensions"):
        g(-1)


def test_broadcast_to_matches_numpy_on_strided_input():
    x = ot.dvector("x")
    a = np.arange(10.0)[::3]
    got = fn([x], ot.broadcast_to(x, (2, 4)))(a)
    assert_matches(got, np.broadcast_to(a, (2, 4)))
    assert got.flags.writeable, "a new array, not a broadcast view"


@given(
    tail=st.lists(st.integers(0, 3), min_size=0, max_size=3),
    lead=st.lists(st.integers(0, 3), min_size=0, max_size=2),
    data=st.data(),
)
def test_broadcast_to_hypothesis(tail, lead, data):
    src = [1 if data.draw(st.booleans()) else n for n in tail]
    a = np.arange(int(np.prod(src)), dtype="float32").reshape(src)
    x = ot.tensor("x", dtype="float32", shape=tuple(1 if n == 1 else None for n in src))
    target = [*lead, *tail]
    assert_matches(fn([x], ot.broadcast_to(x, target))(a), np.broadcast_to(a, target))


@pytest.mark.parametrize(
    ("args", "dtype", "length"),
    [
        ((5,), "int64", 5),
        ((1.0, 5), "float32", 4),
        ((0, 10, 2.0), "float32", 5),
        ((2, 9, 3), "int64", 3),
        ((10, 0, -3), "int64", 4),
        ((5, 0), "int64", 0),
        ((1.5, 10, 2), "float32", 5),
    ],
)
def test_arange_constants(args, dtype, length):
    out = ot.arange(*args)
    assert out.dtype == dtype
    assert out.type.shape == (length,)
    assert_matches(fn([], out)(), np.arange(*args).astype(dtype))


@pytest.mark.parametrize(
    ("dtypes", "want"),
    [
        (["int32"], "int64"),
        (["int8", "int32"], "int64"),
        (["float32"], "float32"),
        (["int8", "float32"], "float32"),
        (["float64"], "float64"),
        (["uint8"], "int64"),
    ],
)
def test_arange_dtype_rules(dtypes, want):
    args = [ot.scalar(f"a{i}", dtype=d) for i, d in enumerate(dtypes)]
    out = ot.arange(*args)
    assert out.dtype == want
    assert out.type.shape == (None,)
    vals = [np.array(3 + 2 * i, dtype=d) for i, d in enumerate(dtypes)]
    assert_matches(
        fn(args, out)(*vals), np.arange(*[v.item() for v in vals]).astype(want)
    )


def test_arange_errors_and_explicit_dtype():
    s = ot.lscalar("s")
    f = fn([s], ot.arange(0, 4, s))
    with pytest.raises(ValueError, match="step cannot be 0"):
        f(0)
    assert_matches(fn([], ot.arange(4, dtype="int8"))(), np.arange(4, dtype="int8"))
    with pytest.raises(TypeError, match="scalars"):
        ot.arange(ot.dvector())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("n", "m", "k"), [(3, None, 0), (3, 5, 1), (4, 2, -1), (0, 2, 0), (2, 3, 7)]
)
def test_eye_matches_numpy(dtype, n, m, k):
    out = ot.eye(n, m, k, dtype=dtype)
    assert out.type.shape == (n, n if m is None else m)
    assert_matches(fn([], out)(), np.eye(n, m, k, dtype=dtype))


def test_eye_symbolic_and_identity_like():
    n = ot.iscalar("n")
    out = ot.eye(n, 4, 1, dtype="int32")
    assert out.type.shape == (None, 4)
    assert_matches(fn([n], out)(3), np.eye(3, 4, 1, dtype="int32"))
    x = ot.imatrix("x")
    like = ot.identity_like(x)
    assert like.dtype == "int32"
    assert_matches(
        fn([x], like)(np.zeros((2, 3), "int32")), np.eye(2, 3, dtype="int32")
    )
    with pytest.raises(ValueError, match="negative"):
        fn([n], ot.eye(n))(-1)


def test_str_and_dprint_match_pytensor():
    n = ot.iscalar("n")
    assert debugprint(ot.zeros((3, n)), file="str").splitlines() == [
        "Alloc [id A]",
        " ├─ 0.0 [id B]",
        " ├─ 3 [id C]",
        " └─ n [id D]",
    ]
    assert str(ot.empty((2, 3)).owner.op) == "AllocEmpty{dtype='float64'}"
    assert str(ot.arange(10).owner.op) == "ARange{dtype='int64'}"
    assert str(ot.eye(3).owner.op) == "Eye{dtype='float64'}"
    assert ot.Alloc.__props__ == ()
    assert ot.ARange.__props__ == ("dtype",)
    assert ot.Eye("int8") == ot.Eye("int8")
    assert ot.Eye("int8") != ot.Eye("int16")


def test_op_contracts():
    check_op_contract(ot.Alloc(), [ot.dvector(), 2, 3])
    check_op_contract(ot.AllocEmpty("float32"), [2, ot.iscalar()])
    check_op_contract(ot.ARange("int64"), [0, ot.lscalar(), 1])
    check_op_contract(ot.Eye("float64"), [3, 3, 0])


def test_alloc_gradient_sums_broadcast_axes():
    rng = np.random.default_rng(0)
    verify_grad(lambda v: ot.alloc(v, 2, 3) ** 2, [rng.standard_normal(3)], rng=rng)
    verify_grad(lambda s: ot.alloc(s, 2, 2), [np.array(1.5)], rng=rng)
    col = ot.tensor("c", dtype="float64", shape=(None, 1))
    g = grad(ot.alloc(col, 3, 4).sum(), col)
    assert_matches(fn([col], g)(np.ones((3, 1))), np.full((3, 1), 4.0))
    n = ot.iscalar("n")
    assert (
        grad(ot.alloc(ot.dscalar(), n).sum(), n, disconnected_inputs="ignore")
        is not None
    )


def test_arange_and_eye_gradients():
    start, step = ot.dscalar("start"), ot.dscalar("step")
    out = (ot.arange(start, 10.0, step) ** 2).sum()
    gs = fn([start, step], grad(out, [start, step]))(1.0, 2.0)
    vals = np.arange(1.0, 10.0, 2.0)
    assert_matches(
        np.array(gs), np.array([2 * vals.sum(), (2 * vals * np.arange(5)).sum()])
    )
    n = ot.lscalar("n")
    g = grad(ot.arange(n).sum(), n, disconnected_inputs="ignore")
    assert g.type.shape == ()
    null = grad(ot.eye(n).sum(), n, null_gradients="return")
    assert isinstance(null.type, NullType)


def test_rop_of_alloc():
    v, t = ot.dvector("v"), ot.dvector("t")
    r = Rop(ot.alloc(v, 2, 2), v, t)
    assert_matches(
        fn([v, t], r)(np.ones(2), np.array([1.0, 2.0])), np.array([[1.0, 2.0]] * 2)
    )


def test_arange_nodes_of_one_dtype_share_their_op():
    start, stop = ot.iscalar("start"), ot.iscalar("stop")
    a = ot.arange(start, stop)
    b = ot.arange(start, stop, 2, dtype=a.dtype)
    c = ot.arange(start, stop, 2.0)
    assert a.owner.op is b.owner.op
    assert c.dtype != a.dtype
    assert c.owner.op is not a.owner.op
    assert_matches(fn([start, stop], b)(1, 8), np.arange(1, 8, 2))
