"""Every Elemwise op of ``elemwise_table.CASES`` beyond its values:
``check_infer_shape``, ``verify_grad`` (or the zero / absent / refused
gradient PyTensor gives), PyTensor's ``str`` and ``dprint`` forms,
``__props__``-style equality, and runtime shape errors naming the node."""

import pickle

import numpy as np
import oxtensor
import oxtensor.scalar as S
import oxtensor.tensor as ot
import pytest
from oxtensor.compile.mode import Mode, get_mode
from oxtensor.gradient import verify_grad

from tests.helpers import assert_matches, check_infer_shape
from tests.tensor.elemwise_table import CASES, REAL_PARTS, base_dtype, values

NAMES = sorted(CASES)
#: Each kind of the scalar table (`_core.scalar_kinds()`): whether it fuses.
FUSED = {attr: fused for _, _, attr, *_, fused in S.basic.KINDS}


def op_dtype(name):
    # `conj` of a real input is the input itself (as PyTensor's `conjugate`).
    return "complex128" if name == "conj" else base_dtype(name)


def elemwise_op(name):
    """The ``Elemwise`` op ``ot.<name>`` builds (``conj`` is a function)."""
    nin = len(CASES[name].domains)
    dt = op_dtype(name)
    return getattr(ot, name)(*[ot.vector(dtype=dt) for _ in range(nin)]).owner.op


def by_kind(kind):
    return [n for n in NAMES if CASES[n].grad == kind]


@pytest.mark.parametrize("name", NAMES)
def test_infer_shape(name):
    rng = np.random.default_rng(0)
    dt = base_dtype(name)
    domains = CASES[name].domains
    # A matrix, a broadcasting row, a 0-d input, then a column.
    variables = [
        ot.matrix(dtype=dt),
        ot.row(dtype=dt),
        ot.scalar(dtype=dt),
        ot.col(dtype=dt),
    ]
    shapes = [(3, 4), (1, 4), (), (3, 1)]
    n = len(domains)
    args = [values(dt, d, s, rng) for d, s in zip(domains, shapes[:n], strict=True)]
    y = getattr(ot, name)(*variables[:n])
    check_infer_shape(variables[:n], [y], args, ot.Elemwise)


@pytest.mark.parametrize("name", by_kind("smooth"))
def test_verify_grad(name):
    rng = np.random.default_rng(1)
    args = [values("float64", d, (2, 3), rng) for d in CASES[name].domains]
    if name == "switch":
        # The condition is not differentiated: keep it a constant.
        cond = args.pop(0) > 0.5
        verify_grad(lambda a, b: ot.switch(cond, a, b), args, rng=rng)
        return
    if name == "mod":
        # Away from the jumps of x mod y.
        args = [np.full((2, 3), 1.3), np.full((2, 3), 0.4)]
    verify_grad(getattr(ot, name), args, rng=rng)


@pytest.mark.parametrize("name", by_kind("zero"))
def test_piecewise_constant_gradients_are_zero(name):
    rng = np.random.default_rng(2)
    variables = [ot.dmatrix() for _ in CASES[name].domains]
    args = [values("float64", d, (2, 3), rng) for d in CASES[name].domains]
    y = getattr(ot, name)(*variables)
    cost = y.astype("float64").sum()
    grads = oxtensor.grad(cost, variables)
    got = oxtensor.function(variables, grads)(*args)
    for g in got:
        assert_matches(g, np.zeros((2, 3)))


@pytest.mark.parametrize("name", by_kind("none"))
def test_integer_ops_give_zero_gradients(name):
    # PyTensor: the gradient through an integer-only op is zero.
    x = ot.dvector("x")
    ints = (x * 3).astype("int64")
    others = [ot.constant(np.array([1, 6], "int64"))] * (len(CASES[name].domains) - 1)
    cost = getattr(ot, name)(ints, *others).astype("float64").sum() + x.sum()
    got = oxtensor.function([x], oxtensor.grad(cost, x))(np.array([0.5, 1.5]))
    assert_matches(got, np.ones(2))


@pytest.mark.parametrize("name", sorted(REAL_PARTS))
def test_complex_part_gradients_refuse_complex_inputs(name):
    # PyTensor leaves these undefined for complex inputs; oxtensor says so.
    c = ot.zvector("c")
    y = getattr(ot, name)(c)
    cost = (ot.real(y) if y.dtype.startswith("complex") else y).sum()
    with pytest.raises(NotImplementedError):
        oxtensor.grad(cost, c)


@pytest.mark.parametrize("name", NAMES)
def test_str_forms(name):
    case = CASES[name]
    op = elemwise_op(name)
    assert str(op) == case.elemwise_str
    assert str(op.scalar_op) == case.scalar_str
    assert type(op.scalar_op).__name__ == case.cls


@pytest.mark.parametrize("name", NAMES)
def test_dprint_form(name):
    op = elemwise_op(name)
    nin = len(CASES[name].domains)
    dt = op_dtype(name)
    variables = [ot.vector(f"x{i}", dtype=dt) for i in range(nin)]
    text = oxtensor.dprint(op(*variables), file="str")
    lines = text.splitlines()
    assert lines[0] == f"{CASES[name].elemwise_str} [id A]"
    assert lines[1].endswith("x0 [id B]")


@pytest.mark.parametrize("name", NAMES)
def test_props_equality(name):
    op = elemwise_op(name)
    cls = getattr(S, CASES[name].cls)
    twin = ot.Elemwise(cls())
    assert twin == op
    assert hash(twin) == hash(op)
    assert pickle.loads(pickle.dumps(op)) == op
    other = "add" if name != "add" else "mul"
    assert op != elemwise_op(other)
    # Equal ops merge: two applications to the same inputs are one computation.
    dt = op_dtype(name)
    variables = [ot.vector(dtype=dt) for _ in CASES[name].domains]
    assert oxtensor.graph.basic.equal_computations([op(*variables)], [twin(*variables)])


@pytest.mark.parametrize("name", [n for n in NAMES if len(CASES[n].domains) > 1])
def test_runtime_shape_mismatch_names_the_node(name):
    dt = base_dtype(name)
    variables = [ot.vector(dtype=dt) for _ in CASES[name].domains]
    # No rewrites: canonicalize may drop a node whose only job is the shape
    # (`second(x, y)` is `y` broadcast, and shape_unsafe rewrites trust it).
    f = oxtensor.function(
        variables, getattr(ot, name)(*variables), mode=Mode(optimizer=None)
    )
    rng = np.random.default_rng(3)
    args = [values(dt, d, 2 + i, rng) for i, d in enumerate(CASES[name].domains)]
    with pytest.raises(ValueError, match=CASES[name].elemwise_str):
        f(*args)


#: Kinds tested in their own files: ``polygamma``'s order is an integer
#: (tests/tensor/test_polygamma.py); the derivatives of the special
#: functions in a shape parameter, which SciPy lacks, are tested as those
#: functions' gradients (tests/tensor/test_scipy_special.py).
TESTED_ELSEWHERE = {
    "polygamma",
    "gammainc_der",
    "betainc_der_a",
    "betainc_der_b",
    "hyp2f1_der_a",
    "hyp2f1_der_c",
}


def test_the_table_covers_every_scalar_kind():
    """A kind of the scalar table without a case here would go untested."""
    assert set(FUSED) == set(CASES) | TESTED_ELSEWHERE


@pytest.mark.parametrize("name", [n for n in NAMES if FUSED[n]])
def test_fusible_kinds_fuse_and_match_unfused(name):
    """``op(...) * 2 + 1`` is one ``Composite``, computing what the unfused
    nodes compute, on the small-call path and the block kernel."""
    rng = np.random.default_rng(2)
    domains = CASES[name].domains
    variables = [ot.dvector() for _ in domains]
    y = getattr(ot, name)(*variables) * 2.0 + 1.0
    fused = oxtensor.function(variables, y)
    plain = oxtensor.function(
        variables, y, mode=get_mode("FAST_RUN").excluding("fusion")
    )
    [node] = fused.maker.fgraph.toposort()
    assert isinstance(node.op.scalar_op, S.Composite)
    for n in (5, 5000):
        args = [values("float64", d, (n,), rng) for d in domains]
        np.testing.assert_array_equal(fused(*args), plain(*args))
