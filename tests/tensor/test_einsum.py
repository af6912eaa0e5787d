"""``einsum`` against NumPy: subscripts with ellipses, repeated indices,
implicit outputs and broadcast lengths, known and unknown static shapes,
the paths it plans, the graph pieces (``_iota``, ``_delta``,
``_general_dot``), gradients and errors."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oxtensor.gradient import verify_grad
from oxtensor.tensor.blockwise import Blockwise
from oxtensor.tensor.einsum import Einsum, _delta, _general_dot, _iota, einsum

LENGTHS = dict(zip("ijklmnop", [2, 3, 4, 5, 2, 3, 4, 5], strict=True))


def run(subscripts, shapes, static=True, rng=None):
    rng = rng or np.random.default_rng(0)
    values = [rng.normal(size=s) for s in shapes]
    xs = [
        ot.tensor(f"x{k}", shape=s if static else (None,) * len(s))
        for k, s in enumerate(shapes)
    ]
    out = einsum(subscripts, *xs)
    f = oxtensor.function(xs, out)
    np.testing.assert_allclose(
        f(*values), np.einsum(subscripts, *values), rtol=1e-10, atol=1e-12
    )
    return out, f


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize(
    ("subscripts", "shapes"),
    [
        ("ij->ji", [(2, 3)]),
        ("ii->i", [(3, 3)]),
        ("ii", [(3, 3)]),
        ("iij->j", [(3, 3, 2)]),
        ("iji->ij", [(3, 2, 3)]),
        ("ij,jk", [(2, 3), (3, 4)]),
        ("ij,ij->", [(2, 3), (2, 3)]),
        ("i,j->ij", [(2,), (3,)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("bij,jbk->kib", [(2, 3, 4), (4, 2, 5)]),
        ("ii,ij->j", [(3, 3), (3, 2)]),
        ("...ij,...jk->...ik", [(2, 2, 3, 4), (2, 4, 5)]),
        ("i...,i...->...", [(3, 2, 4), (3, 2, 4)]),
        ("...,...->...", [(3, 4), (4,)]),
        ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),
        ("ab,bc,cd,de,ef,fg,gh,hi->ai", [(2, 2)] * 8),
    ],
)
def test_values_match_numpy(subscripts, shapes, static):
    out, f = run(subscripts, shapes, static)
    assert isinstance(out.owner.op, Einsum)
    assert out.owner.op.optimized == (static or len(shapes) <= 2)
    assert not any(isinstance(n.op, Blockwise) for n in f.maker.fgraph.apply_nodes)


def test_paths_are_numpys():
    a = ot.tensor("a", shape=(32, 32, 32))
    b = ot.tensor("b", shape=(1000, 32))
    c = ot.tensor("c", shape=(1, 32))
    assert einsum("ijk,bj,ck->i", a, b, c).owner.op.path == ((0, 2), (0, 1))
    with pytest.warns(UserWarning, match="suboptimal contraction path"):
        out = einsum("ijk,bj,bk->i", a, b, c)
    assert out.owner.op.path == ((1, 2), (0, 1))
    x, y, z = (ot.matrix(n) for n in "xyz")
    assert einsum("ij,jk,kl->il", x, y, z).owner.op.path == ((2, 1), (1, 0))


def test_static_shape_and_repeated_operand():
    x = ot.tensor("x", shape=(7, 3, 5))
    y = ot.tensor("y", shape=(5, 2))
    assert einsum("mij,jk->mik", x, y).type.shape == (7, 3, 2)
    m = ot.matrix("m")
    v = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(einsum("ij,ij->i", m, m).eval({m: v}), (v * v).sum(1))


def test_replanned_when_lengths_become_known():
    x, y, z = (ot.matrix(n) for n in "xyz")
    out = einsum("ij,jk,kl->il", x, y, z)
    assert not out.owner.op.optimized
    sx, sy, sz = (ot.tensor(n, shape=(2, 2)) for n in "abc")
    f = oxtensor.function([sx, sy, sz], out, givens={x: sx, y: sy, z: sz})
    assert not any(isinstance(n.op, Einsum) for n in f.maker.fgraph.apply_nodes)
    vals = [np.eye(2) * (k + 1) for k in range(3)]
    np.testing.assert_allclose(f(*vals), np.eye(2) * 6)


def test_gradients():
    rng = np.random.default_rng(1)
    for subscripts, shapes in [
        ("ij,jk->ik", [(2, 3), (3, 2)]),
        ("ii->i", [(3, 3)]),
        ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ]:
        values = [rng.normal(size=s) for s in shapes]
        verify_grad(lambda *xs, s=subscripts: einsum(s, *xs), values, rng=rng)


def test_pieces():
    np.testing.assert_array_equal(_iota((2, 3), 0).eval(), [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(_delta((2, 3), (0, 1)).eval(), np.eye(2, 3))
    with pytest.raises(ValueError, match="two axes"):
        _delta((2, 2), (0,))
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(4, 2, 3)), rng.normal(size=(3, 4, 5))
    out = _general_dot((ot.as_tensor(a), ot.as_tensor(b)), [(2,), (0,)], [(0,), (1,)])
    np.testing.assert_allclose(out.eval(), np.einsum("bij,jbk->bik", a, b))


@pytest.mark.parametrize(
    ("subscripts", "shapes", "match"),
    [
        ("mp,pn->mn", [(2, 3, 4), (4, 5)], "dimension"),
        ("ij,jk", [(2, 3), (4, 5)], "length"),
        ("ij->k", [(2, 3)], "no operand"),
        ("ij,jk", [(2, 3)], "operand"),
        ("i?->i", [(2, 3)], "letter"),
    ],
)
def test_errors(subscripts, shapes, match):
    xs = [ot.tensor(shape=s) for s in shapes]
    with pytest.raises(ValueError, match=match):
        einsum(subscripts, *xs)
    with pytest.raises(NotImplementedError):
        einsum("ij", ot.matrix(), optimize="greedy")


@st.composite
def random_einsum(draw):
    """Subscripts of 1-3 operands over a few letters, lengths to match."""
    letters = "ijkl"
    n_ops = draw(st.integers(1, 3))
    terms = [
        "".join(draw(st.lists(st.sampled_from(letters), min_size=0, max_size=3)))
        for _ in range(n_ops)
    ]
    used = sorted(set("".join(terms)))
    out = draw(st.lists(st.sampled_from(used), unique=True)) if used else []
    return ",".join(terms) + "->" + "".join(out), terms


@settings(max_examples=25, deadline=None)
@given(random_einsum(), st.booleans())
def test_random_subscripts(case, static):
    subscripts, terms = case
    shapes = [tuple(LENGTHS[c] for c in t) for t in terms]
    run(subscripts, shapes, static)


def test_str_is_pytensors():
    out = einsum("ij->j", ot.matrix("x"))
    assert str(out.owner.op) == (
        "Einsum{self.subscripts='ij->j', self.path=((0,),), self.optimized=True}"
    )


def test_paths_equal_numpys_on_random_subscripts():
    rng = np.random.default_rng(5)
    letters = list("abcdef")
    for _ in range(60):
        n = int(rng.integers(3, 6))
        terms = [
            "".join(rng.choice(letters, rng.integers(1, 4), False)) for _ in range(n)
        ]
        used = sorted(set("".join(terms)))
        out = "".join(rng.choice(used, rng.integers(0, min(2, len(used)) + 1), False))
        sizes = {c: int(rng.integers(2, 7)) for c in letters}
        subscripts = ",".join(terms) + "->" + out
        values = [np.empty([sizes[c] for c in t]) for t in terms]
        want = np.einsum_path(subscripts, *values, optimize="optimal")[0][1:]
        if len(want) == 1 and len(want[0]) > 2:
            continue  # nothing to optimise: contracted from the right instead
        xs = [ot.tensor(shape=v.shape) for v in values]
        got = einsum(subscripts, *xs).owner.op.path
        assert [set(p) for p in got] == [set(p) for p in want], subscripts
