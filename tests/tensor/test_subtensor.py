"""Indexing against NumPy: basic indexing (`Subtensor`, a view), advanced
indexing (`AdvancedSubtensor`, `AdvancedSubtensor1`), `set_subtensor` and
`inc_subtensor` on both (duplicates accumulate), `take`; every dtype,
negative indices and steps, symbolic bounds, empty and 0-d results,
non-contiguous inputs, errors, and PyTensor's `str`/`dprint` forms.
Gradients, hypothesis and pickling are in `test_subtensor_grad.py`."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.compile.io import In, Out
from oxtensor.printing import debugprint
from oxtensor.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
    advanced_inc_subtensor1,
    advanced_set_subtensor1,
    advanced_subtensor1,
)

from tests.helpers import DTYPES, assert_matches, check_op_contract

S = slice
ARR = np.arange(4 * 5 * 6, dtype="float64").reshape(4, 5, 6)

# Basic index tuples, with NumPy's results as the reference.
BASIC = [
    (1,),
    (-1,),
    (S(1, None),),
    (S(None, None, -1),),
    (S(None, None, 2), 1),
    (Ellipsis, 1),
    (1, Ellipsis),
    (None, 1),
    (1, None, S(None)),
    (S(-3, -1), S(None, None, -2)),
    (S(10, None),),
    (S(3, 1),),
    (0, 0, 0),
    (-1, S(None), -2),
    (S(None), S(1, 4, 2), S(None, None, -3)),
    (S(-100, 100),),
    (None,),
    (Ellipsis, None),
    (np.int64(2), np.int32(-1)),
]


def run(inputs, output, *values):
    return oxtensor.function(inputs, output)(*values)


@pytest.mark.parametrize("idx", BASIC, ids=str)
def test_basic_matches_numpy(idx):
    x = ot.tensor("x", dtype="float64", shape=(None, None, None))
    assert_matches(run([x], x[idx], ARR), ARR[idx])


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype(dtype):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((4, 3)) * 10).astype(dtype)
    x = ot.matrix("x", dtype=dtype)
    v = np.array([2, 0, 2])
    outs = [
        x[1:, ::-1],
        x[-1],
        x[v],
        x[v, 1],
        x[a.real > 0 if a.dtype.kind == "c" else a > 0],
        ot.set_subtensor(x[1:, 0], a[0, 0]),
        ot.inc_subtensor(x[v], a[:3]),
        ot.set_subtensor(x[v], a[:3]),
    ]
    got = oxtensor.function([x], outs)(a)
    mask = a.real > 0 if a.dtype.kind == "c" else a > 0
    inc = a.copy()
    np.add.at(inc, v, a[:3])
    setv = a.copy()
    setv[v] = a[:3]
    setb = a.copy()
    setb[1:, 0] = a[0, 0]
    wants = [a[1:, ::-1], a[-1], a[v], a[v, 1], a[mask], setb, inc, setv]
    for g, w in zip(got, wants, strict=True):
        assert_matches(g, w, dtype=dtype)


def test_static_shapes_like_pytensor():
    xs = ot.tensor("xs", dtype="float64", shape=(5, 3))
    i, v = ot.lscalar("i"), ot.lvector("v")
    cases = [
        ((S(1, None),), (4, 3)),
        ((1,), (3,)),
        ((S(None, None, 2),), (3, 3)),
        ((S(None), 0), (5,)),
        ((v,), (None, 3)),
        (([0, 1, 1],), (3, 3)),
        ((S(i, None),), (None, 3)),
        ((S(-1, None),), (1, 3)),
        ((S(None),), (5, 3)),
        ((S(1, 3), S(1, 2)), (2, 1)),
        ((S(1, 100),), (4, 3)),
    ]
    for idx, shape in cases:
        assert xs[idx].type.shape == shape, idx


def test_symbolic_bounds():
    x = ot.dvector("x")
    i, j, k = ot.lscalar("i"), ot.iscalar("j"), ot.lscalar("k")
    f = oxtensor.function([x, i, j, k], x[i:j:k])
    a = np.arange(7.0)
    for start in (-9, -3, -1, 0, 2, 6, 9):
        for stop in (-8, -2, 0, 3, 7, 10):
            for step in (-3, -1, 1, 2):
                assert_matches(f(a, start, stop, step), a[start:stop:step])
    g = oxtensor.function([x, i], [x[i], x[:i], x[i:], x[::i]])
    for got, want in zip(g(a, 3), [a[3], a[:3], a[3:], a[::3]], strict=True):
        assert_matches(got, want)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        g(a, 0)


def test_non_contiguous_inputs():
    x = ot.dmatrix("x")
    v = ot.lvector("v")
    outs = [x[1:, ::2], x[v], x[:, v], ot.inc_subtensor(x[v, 1:], 1.0)]
    f = oxtensor.function([x, v], outs)
    base = np.arange(60.0).reshape(6, 10)
    for a in (base.T, base[::2, ::-3], base[:, 1:5]):
        idx = np.array([0, -1, 0])
        inc = a.copy()
        np.add.at(inc, (idx, np.s_[1:]), 1.0)
        wants = [a[1:, ::2], a[idx], a[:, idx], inc]
        for g, w in zip(f(a, idx), wants, strict=True):
            assert_matches(g, w)


def test_basic_is_a_view():
    x = ot.dmatrix("x")
    node = x[1:, 0].owner
    assert node.op.view_map == {0: [0]}
    for op in (x[[0]].owner.op, ot.set_subtensor(x[0], 1.0).owner.op):
        assert op.view_map == {}
        assert op.destroy_map == {}
    a = np.arange(12.0).reshape(3, 4)
    f = oxtensor.function([In(x, borrow=True)], Out(x[1:, ::2], borrow=True))
    out = f(a)
    assert np.shares_memory(out, a)
    assert_matches(out, a[1:, ::2])


def test_inputs_never_modified():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    v = ot.lvector("v")
    outs = [
        ot.set_subtensor(x[0], y),
        ot.inc_subtensor(x[1:, 1], 5.0),
        ot.inc_subtensor(x[v], y),
        ot.set_subtensor(x[x > 3], 0.0),
        advanced_inc_subtensor1(x, y, v),
    ]
    f = oxtensor.function([In(x, borrow=True), y, v], outs)
    a = np.arange(12.0).reshape(3, 4)
    keep = a.copy()
    f(a, np.ones(4), np.array([0, 0]))
    np.testing.assert_array_equal(a, keep)


def test_duplicates():
    x, y = ot.dvector("x"), ot.dvector("y")
    v = ot.lvector("v")
    idx = np.array([0, 2, 0, 0, -1])
    vals = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    a = np.zeros(4)
    inc, add_at = oxtensor.function([x, y, v], ot.inc_subtensor(x[v], y)), a.copy()
    np.add.at(add_at, idx, vals)
    assert_matches(inc(a, vals, idx), add_at)
    setf, want = oxtensor.function([x, y, v], ot.set_subtensor(x[v], y)), a.copy()
    want[idx] = vals
    assert_matches(setf(a, vals, idx), want)
    assert setf(a, vals, idx)[0] == 4.0, "the last value wins"
    one = oxtensor.function([x, y, v], advanced_inc_subtensor1(x, y, v))
    assert_matches(one(a, vals, idx), add_at)
    one_set = oxtensor.function([x, y, v], advanced_set_subtensor1(x, y, v))
    assert_matches(one_set(a, vals, idx), want)
    m = ot.dmatrix("m")
    rows = oxtensor.function([m, v], ot.inc_subtensor(m[v, v], 1.0))
    want2 = np.zeros((3, 3))
    np.add.at(want2, (np.array([1, 1, 2]), np.array([1, 1, 2])), 1.0)
    assert_matches(rows(np.zeros((3, 3)), np.array([1, 1, 2])), want2)


ADVANCED = [
    (np.array([2, 0, -1]),),
    (np.array([[0, 1], [3, 3]]),),
    (np.array([0, 3]), 1),
    (1, np.array([0, 4])),
    (np.array([0, 3]), np.array([4, 0])),
    (S(None), np.array([4, 0, 1])),
    (np.array([0, 1]), S(None), np.array([5, 0])),
    (S(1, None), np.array([[0], [2]]), np.array([1, 5])),
    (np.array([1, 2]), S(None, None, -1)),
    (ARR[:, 0, 0] > 30,),
    (ARR[:, :, 0] > 50,),
    (S(None), ARR[0, :, 0] > 10),
    (Ellipsis, np.array([0, 5])),
    (None, np.array([1, 1])),
    (np.array([], dtype="int64"),),
    ([],),
    ([1, 2], [0, 1], [5, 4]),
    (np.array([0, 1]), None, 2),
]


@pytest.mark.parametrize("idx", ADVANCED, ids=str)
def test_advanced_matches_numpy(idx):
    x = ot.tensor("x", dtype="float64", shape=(None, None, None))
    out = x[idx]
    assert_matches(run([x], out, ARR), ARR[idx])
    assert out.type.ndim == ARR[idx].ndim
    if any(a is None for a in idx):
        return  # x[None, ...] indexes ExpandDims(x): writing gives its shape
    y = ot.tensor("y", dtype="float64", shape=(None,) * ARR[idx].ndim)
    vals = np.random.default_rng(0).standard_normal(ARR[idx].shape)
    want_set, want_inc = ARR.copy(), ARR.copy()
    want_set[idx] = vals
    np.add.at(want_inc, idx, vals)
    got = oxtensor.function([x, y], [ot.set_subtensor(x[idx], y), x[idx].inc(y)])
    got_set, got_inc = got(ARR, vals)
    assert_matches(got_set, want_set)
    assert_matches(got_inc, want_inc)


def test_advanced_subtensor1_and_take():
    x, v = ot.dmatrix("x"), ot.lvector("v")
    a = np.arange(12.0).reshape(4, 3)
    idx = np.array([3, 0, -1, 0])
    assert_matches(run([x, v], advanced_subtensor1(x, v), a, idx), a[idx])
    assert_matches(run([x, v], ot.take(x, v), a, idx), np.take(a, idx))
    assert_matches(run([x, v], ot.take(x, v, axis=1), a, idx[1:3]), a[:, idx[1:3]])
    assert_matches(run([x], ot.take(x, 1, axis=-1), a), np.take(a, 1, axis=-1))
    assert_matches(run([x], ot.take(x, [[0, 1]], axis=0), a), a[[[0, 1]]])
    assert isinstance(ot.take(x, 1, axis=1).owner.op, Subtensor)
    far = np.array([5, -7, 1])
    for mode in ("wrap", "clip"):
        got = run([x, v], ot.take(x, v, axis=0, mode=mode), a, far)
        assert_matches(got, np.take(a, far, axis=0, mode=mode))
        assert_matches(
            run([x, v], ot.take(x, v, mode=mode), a, far), np.take(a, far, mode=mode)
        )
    with pytest.raises(ValueError, match="mode must be 'raise', 'wrap' or 'clip'"):
        ot.take(x, v, mode="bad")
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        ot.take(x, v, axis=2)


def test_zero_d_and_empty():
    x = ot.dvector("x")
    s = ot.dscalar("s")
    a = np.arange(5.0)
    assert_matches(run([x], x[2], a), a[2])
    assert run([x], x[2], a).shape == ()
    assert_matches(run([x], x[3:1], a), a[3:1])
    assert_matches(run([x], ot.set_subtensor(x[5:], 1.0), a), a)
    e = np.zeros((0, 3))
    m = ot.dmatrix("m")
    assert_matches(run([m], m[:, 1], e), e[:, 1])
    assert_matches(run([m], m[[]], e), e[[]])
    assert_matches(run([m, s], ot.inc_subtensor(m[:, 1:], s), e, 1.0), e)
    t = ot.dmatrix("t")
    assert_matches(run([t], t[1, 2], np.ones((2, 3))), np.float64(1.0))


def test_errors():
    x, f = ot.dmatrix("x"), ot.dscalar("f")
    v = ot.lvector("v")
    with pytest.raises(TypeError, match="basic indices must be integers"):
        x[1.0]
    with pytest.raises(TypeError, match="basic indices must be integers"):
        x[f]
    with pytest.raises(TypeError, match="index must be integers or a boolean mask"):
        x[v, 1.5]
    with pytest.raises(TypeError, match="basic indices must be integers"):
        x[1:2.5]
    with pytest.raises(TypeError, match="index must be integers or a boolean mask"):
        x[ot.dvector()]
    with pytest.raises(IndexError, match="too many indices for tensor: tensor is 2"):
        x[1, 2, 3]
    with pytest.raises(IndexError, match="single Ellipsis"):
        x[..., ...]
    with pytest.raises(TypeError, match="does not support Python bools"):
        x[[True, False]]
    with pytest.raises(TypeError, match="x must be the result of a subtensor"):
        ot.set_subtensor(x, 1.0)
    with pytest.raises(TypeError, match="increment a 1-dimensional subtensor with a 2"):
        ot.set_subtensor(x[1], ot.dmatrix())
    with pytest.raises(TypeError, match="does not support iteration"):
        list(x)
    assert IncSubtensor((0,), inplace=True).destroy_map == {0: [0]}
    with pytest.raises(IndexError, match="shape mismatch"):
        ot.tensor("z", dtype="float64", shape=(5, 5))[[0, 1], [0, 1, 2]]
    assert [str(e) for e in ot.tensor("w", shape=(2,), dtype="int8")] == [
        "Subtensor{i}.0",
        "Subtensor{i}.0",
    ]


def test_runtime_errors_name_the_node():
    x, i, v = ot.dmatrix("x"), ot.lscalar("i"), ot.lvector("v")
    a = np.ones((3, 2))
    basic = oxtensor.function([x, i], x[i])
    with pytest.raises(
        IndexError, match="index 5 is out of bounds for axis 0 with"
    ) as e:
        basic(a, 5)
    assert "Subtensor{i}" in str(e.value)
    adv = oxtensor.function([x, v], x[v])
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 0 with"):
        adv(a, np.array([0, -4]))
    inc = oxtensor.function([x, v], ot.inc_subtensor(x[v], 1.0))
    with pytest.raises(IndexError, match="index 3 is out of bounds") as e:
        inc(a, np.array([3]))
    assert "AdvancedIncSubtensor" in str(e.value)
    y = ot.dvector("y")
    setf = oxtensor.function([x, y], ot.set_subtensor(x[1:], y))
    with pytest.raises(ValueError, match=r"shape \[2, 2\] from input of shape \[3\]"):
        setf(np.zeros((3, 2)), np.zeros(3))
    b = ot.tensor("b", dtype="bool", shape=(None,))
    masked = oxtensor.function([x, b], x[b])
    with pytest.raises(IndexError, match="boolean index did not match"):
        masked(a, np.array([True, False]))


def test_str_and_dprint_like_pytensor():
    x, i = ot.dmatrix("x"), ot.lscalar("i")
    j = ot.iscalar("j")
    v = ot.lvector("v")
    forms = {
        x[1]: "Subtensor{i}",
        x[1:]: "Subtensor{start:}",
        x[::2]: "Subtensor{::step}",
        x[i:j:2, 0]: "Subtensor{start:stop:step, i}",
        x[-1, ::-1]: "Subtensor{i, ::step}",
        x[:i]: "Subtensor{:stop}",
        x[:]: "Subtensor{:}",
        x[1, :]: "Subtensor{i, :}",
        x[v]: "AdvancedSubtensor{idx_list=(0,)}",
        x[:, v]: "AdvancedSubtensor{idx_list=(slice(None, None, None), 0)}",
        x[v, 1:]: "AdvancedSubtensor{idx_list=(0, slice(1, None, None))}",
        ot.set_subtensor(x[1], 2.0): "SetSubtensor{i}",
        ot.inc_subtensor(x[1:], 1.0): "IncSubtensor{start:}",
        ot.set_subtensor(x[i, ::2], 1.0): "SetSubtensor{i, ::step}",
        ot.set_subtensor(x[v], 1.0): "AdvancedSetSubtensor",
        ot.inc_subtensor(x[v], 1.0): "AdvancedIncSubtensor",
        advanced_subtensor1(x, v): "AdvancedSubtensor1",
        advanced_inc_subtensor1(x, 1.0, v): "AdvancedIncSubtensor1{no_inplace,inc}",
        advanced_set_subtensor1(x, 1.0, v): "AdvancedIncSubtensor1{no_inplace,set}",
    }
    for out, text in forms.items():
        assert str(out.owner.op) == text
    assert repr(x[1:].owner.op) == "Subtensor(idx_list=(slice(0, None, None),))"
    assert repr(ot.set_subtensor(x[1], 2.0).owner.op) == (
        "IncSubtensor(idx_list=(0,),inplace=False,set_instead_of_inc=True,"
        "destroyhandler_tolerate_aliased=())"
    )
    assert repr(ot.inc_subtensor(x[v], 1.0).owner.op) == (
        "AdvancedIncSubtensor(idx_list=(0,),inplace=False,"
        "set_instead_of_inc=False,ignore_duplicates=False)"
    )
    assert [str(a) for a in x[-1, ::-1].owner.inputs] == ["x", "-1", "-1"]
    text = debugprint(ot.inc_subtensor(x[1:, i], 1.0), file="str")
    assert text.splitlines() == [
        "IncSubtensor{start:, i} [id A]",
        " ├─ x [id B]",
        " ├─ 1.0 [id C]",
        " ├─ 1 [id D]",
        " └─ i [id E]",
    ]
    text = debugprint(x[1:], file="str", print_view_map=True)
    assert text.splitlines()[0] == "Subtensor{start:} [id A] v={0: [0]}"


def test_op_contracts():
    x, y, v = ot.dmatrix("x"), ot.dvector("y"), ot.lvector("v")
    one = ot.constant(np.int8(1))
    check_op_contract(Subtensor((0,)), [x, one])
    check_op_contract(AdvancedSubtensor1(), [x, v])
    check_op_contract(AdvancedSubtensor((0,)), [x, v])
    check_op_contract(IncSubtensor((0,), set_instead_of_inc=True), [x, y, one])
    check_op_contract(AdvancedIncSubtensor1(), [x, y, v])
    check_op_contract(AdvancedIncSubtensor((0,)), [x, y, v])
    assert Subtensor((0,)) == Subtensor([0])
    assert Subtensor((0,)) != Subtensor((slice(0, None, None),))
    assert hash(IncSubtensor((0,))) == hash(IncSubtensor((0,)))
    assert x[1].owner.op.idx_list == (0,)
    assert x[1:, ::-1].owner.op.idx_list == (slice(0, None, None), slice(None, None, 1))


def test_every_execution_path(path):
    x, v = ot.dmatrix("x"), ot.lvector("v")
    a = np.arange(12.0).reshape(3, 4)
    idx = np.array([2, 0, 2])
    src = path(x)
    outs = [src[1:, ::-2], src[v], ot.inc_subtensor(src[v], 1.0), path(src[:, 1])]
    inc = a.copy()
    np.add.at(inc, idx, 1.0)
    wants = [a[1:, ::-2], a[idx], inc, a[:, 1]]
    for got, want in zip(oxtensor.function([x, v], outs)(a, idx), wants, strict=True):
        assert_matches(got, want)


def test_shape_entries():
    x = ot.dmatrix("x")
    f = oxtensor.function([x], [x.shape[0], x.shape[-1], x.shape[::-1]])
    got = f(np.zeros((2, 5)))
    assert [g.tolist() for g in got] == [2, 5, [5, 2]]
