"""Lazy `ifelse`: only the branch the condition selects runs (Python ops in
the other branch are never called, errors there never raised), for single
and multiple outputs, nested conditions, any condition dtype, native,
`perform` and `make_thunk` branches."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import function
from oxtensor.ifelse import IfElse, ifelse

from tests.helpers import CountingOp, ThunkIdentity, assert_matches


def test_only_the_taken_branch_runs():
    c, x = ot.bscalar("c"), ot.dvector("x")
    then, other = CountingOp("then"), CountingOp("else")
    f = function([c, x], ifelse(c, then(x) * 2, other(x) + 1))
    a = np.arange(3.0)
    assert_matches(f(1, a), a * 2)
    assert (then.calls, other.calls) == (1, 0)
    assert_matches(f(0, a), a + 1)
    assert (then.calls, other.calls) == (1, 1)
    for _ in range(3):
        f(5, a)
    assert (then.calls, other.calls) == (4, 1)


def test_the_untaken_branch_may_fail():
    c, x = ot.bscalar("c"), ot.dvector("x")
    broken = CountingOp("broken")
    broken.raises = AssertionError("the untaken branch ran")
    f = function([c, x], ifelse(c, x * 2, broken(x)))
    assert_matches(f(1, np.ones(2)), np.full(2, 2.0))
    with pytest.raises(AssertionError, match="the untaken branch ran"):
        f(0, np.ones(2))


def test_a_native_shape_error_in_the_untaken_branch_is_not_raised():
    c, x, y = ot.bscalar("c"), ot.dvector("x"), ot.dvector("y")
    f = function([c, x, y], ifelse(c, x * 2, x + y))
    assert_matches(f(1, np.ones(2), np.ones(3)), np.full(2, 2.0))
    with pytest.raises(ValueError, match="Input dimension mismatch"):
        f(0, np.ones(2), np.ones(3))


@pytest.mark.parametrize(
    ("dtype", "true", "false"),
    [
        ("bool", True, False),
        ("int8", -3, 0),
        ("uint64", 2**63, 0),
        ("float64", 0.5, 0.0),
        ("complex128", 1j, 0j),
    ],
)
def test_any_scalar_condition_dtype(dtype, true, false):
    c, x = ot.tensor("c", dtype=dtype, shape=()), ot.dvector("x")
    f = function([c, x], ifelse(c, x, -x))
    assert_matches(f(np.array(true, dtype), np.ones(2)), np.ones(2))
    assert_matches(f(np.array(false, dtype), np.ones(2)), -np.ones(2))


def test_the_condition_must_be_a_scalar():
    with pytest.raises(TypeError, match="must be a scalar"):
        ifelse(ot.bvector("c"), ot.dvector("x"), ot.dvector("y"))


def test_branches_must_have_matching_types():
    c = ot.bscalar("c")
    with pytest.raises(TypeError):
        ifelse(c, ot.dvector("x"), ot.dmatrix("y"))
    with pytest.raises(ValueError, match="differ in length"):
        ifelse(c, [ot.dvector("x")], [ot.dvector("y"), ot.dvector("z")])


def test_multiple_outputs_come_from_one_branch():
    c, x = ot.bscalar("c"), ot.dvector("x")
    then, other = CountingOp("then"), CountingOp("else")
    outs = ifelse(c, [then(x), x.sum()], [other(x) * 3, x.max()], name="pick")
    assert [o.name for o in outs] == ["pick_0", "pick_1"]
    f = function([c, x], outs)
    a = np.array([1.0, 4.0])
    first, second = f(0, a)
    assert_matches(first, a * 3)
    assert_matches(second, np.array(4.0))
    assert (then.calls, other.calls) == (0, 1)
    assert_matches(f(1, a)[1], np.array(5.0))
    assert (then.calls, other.calls) == (1, 1)


def test_nested_conditions_run_one_leaf():
    a_c, b_c, x = ot.bscalar("a"), ot.bscalar("b"), ot.dvector("x")
    ops = {k: CountingOp(k) for k in ("tt", "tf", "f")}
    inner = ifelse(b_c, ops["tt"](x), ops["tf"](x) * 2)
    f = function([a_c, b_c, x], ifelse(a_c, inner, ops["f"](x) * 3))
    v = np.ones(2)
    results = [f(1, 1, v), f(1, 0, v), f(0, 1, v), f(0, 0, v)]
    for got, want in zip(results, [1.0, 2.0, 3.0, 3.0], strict=True):
        assert_matches(got, np.full(2, want))
    assert {k: op.calls for k, op in ops.items()} == {"tt": 1, "tf": 1, "f": 2}


def test_a_value_used_by_both_branches_and_outside_runs_once():
    c, x = ot.bscalar("c"), ot.dvector("x")
    shared_op = CountingOp("shared")
    common = shared_op(x)
    f = function([c, x], [ifelse(c, common * 2, common + 1), common.sum()])
    picked, total = f(0, np.ones(2))
    assert_matches(picked, np.full(2, 2.0))
    assert_matches(total, np.array(2.0))
    assert shared_op.calls == 1


def test_make_thunk_ops_in_branches():
    c, x = ot.bscalar("c"), ot.dvector("x")
    f = function([c, x], ifelse(c, ThunkIdentity()(x) * 2, ThunkIdentity()(x) - 1))
    assert_matches(f(1, np.arange(2.0)), np.array([0.0, 2.0]))
    assert_matches(f(0, np.arange(2.0)), np.array([-1.0, 0.0]))


def test_outputs_do_not_alias_inputs():
    c, x, y = ot.bscalar("c"), ot.dvector("x"), ot.dvector("y")
    f = function([c, x, y], ifelse(c, x, y))
    a, b = np.ones(2), np.zeros(2)
    got = f(1, a, b)
    assert_matches(got, a)
    assert not np.shares_memory(got, a)


def test_ifelse_op_and_printing():
    c, x, y = ot.bscalar("c"), ot.dvector("x"), ot.dvector("y")
    out = ifelse(c, x, y)
    assert isinstance(out.owner.op, IfElse)
    assert str(out.owner.op) == "if{}"
    assert out.type == x.type
