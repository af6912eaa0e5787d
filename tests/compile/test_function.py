"""`oxtensor.function`: arguments (positional, keyword, counts, names,
dtypes, ranks, static shapes, downcasting, trust_input), unused inputs,
refused inputs, givens, outputs that never alias inputs, constants or each
other, results that later calls never overwrite, `f.maker.fgraph`,
`f.copy()`, `f.free()`, `Variable.eval`, modes and `accept_inplace`
(PyTensor's `tests/compile/function/test_types.py` in spirit)."""

import re
import warnings

import numpy as np
import oxtensor
import oxtensor.scalar as S
import oxtensor.tensor as ot
import pytest
from oxtensor import In, Mode, Out, function
from oxtensor.compile.function import UnusedInputError

from tests.helpers import assert_matches


@pytest.fixture
def xy():
    return ot.dvector("x"), ot.dvector("y")


# --- arguments ---


def test_positional_and_keyword_arguments(xy):
    x, y = xy
    f = function([x, y], x - y)
    a, b = np.array([5.0, 1.0]), np.array([2.0, 3.0])
    for got in (f(a, b), f(x=a, y=b), f(y=b, x=a), f(a, y=b)):
        assert_matches(got, a - b)


def test_in_names_the_keyword_argument(xy):
    x, y = xy
    f = function([In(x, name="first"), y], x - y)
    assert_matches(f(y=np.ones(1), first=np.zeros(1)), np.array([-1.0]))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda f: f(np.ones(2)), "Missing required input: y"),
        (lambda f: f(y=np.ones(2)), "Missing required input: x"),
        (lambda f: f(np.ones(2), np.ones(2), np.ones(2)), "takes 2 arguments but 3"),
        (lambda f: f(np.ones(2), z=np.ones(2)), "unexpected keyword argument 'z'"),
        (lambda f: f(np.ones(2), x=np.ones(2)), "multiple values for argument 'x'"),
    ],
)
def test_wrong_argument_count_or_name_is_a_type_error_naming_it(xy, call, message):
    x, y = xy
    f = function([x, y], x + y, name="adder")
    with pytest.raises(TypeError, match=re.escape(message)) as info:
        call(f)
    assert "adder" in str(info.value)


def test_unnamed_inputs_are_named_by_index():
    x = ot.dvector()
    f = function([x], x * 2)
    with pytest.raises(TypeError, match="Missing required input: at index 0"):
        f()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.ones(3, "complex128"), "cannot store a value of dtype complex128"),
        (np.ones((3, 1)), "Wrong number of dimensions: expected 1, got 2"),
        (np.ones(4), "not compatible with the data's ((4,))"),
        (object(), "cannot store a value of type object"),
        ([1 + 2j, 0, 0], "cannot store a value of dtype complex128"),
    ],
)
def test_wrong_dtype_rank_or_static_shape_names_the_input_and_index(value, message):
    x = ot.dvector("x")
    s = ot.TensorType("float64", (3,))("s")
    f = function([x, s], x + s)
    with pytest.raises(TypeError, match=re.escape(message)) as info:
        f(np.ones(3), value)
    assert 'Bad input argument with name "s"' in str(info.value)
    assert "at index 1 (0-based)" in str(info.value)


def test_downcasting_needs_allow_input_downcast():
    x = ot.fvector("x")
    data = np.array([1.5, 2.25])
    with pytest.raises(TypeError, match="allow_input_downcast=True"):
        function([x], x * 2)(data)
    got = function([x], x * 2, allow_input_downcast=True)(data)
    assert_matches(got, (data * 2).astype("float32"))
    got = function([In(x, allow_downcast=True)], x * 2)(data)
    assert_matches(got, (data * 2).astype("float32"))


def test_lossless_arguments_are_converted():
    x, i = ot.dvector("x"), ot.ivector("i")
    f = function([x, i], [x * 2, i + 1])
    dbl, inc = f([1, 2], np.array([1, 2], "int8"))
    assert_matches(dbl, np.array([2.0, 4.0]))
    assert_matches(inc, np.array([2, 3], "int32"))
    assert_matches(f(np.array([1, 2], "float32"), [3])[0], np.array([2.0, 4.0]))


def test_strict_inputs_take_only_their_exact_type():
    x = ot.dvector("x")
    f = function([In(x, strict=True)], x * 2)
    assert_matches(f(np.ones(2)), np.full(2, 2.0))
    with pytest.raises(TypeError, match='Bad input argument with name "x"'):
        f(np.ones(2, "float32"))


def test_trust_input_takes_exact_ndarrays_only(xy):
    x, y = xy
    f = function([x, y], x + y, trust_input=True)
    assert f.trust_input
    assert_matches(f(np.ones(2), np.ones(2)), np.full(2, 2.0))
    with pytest.raises(ValueError, match="trust_input=True"):
        f([1.0, 2.0], np.ones(2))


def test_inputs_must_be_a_list():
    x = ot.dvector("x")
    with pytest.raises(TypeError, match="contained in a list"):
        function(x, x * 2)


# --- unused and refused inputs ---


def test_unused_input_raises_by_default(xy):
    x, y = xy
    with pytest.raises(UnusedInputError, match="input variable at index 1") as info:
        function([x, y], x * 2)
    assert "y" in str(info.value)
    assert "on_unused_input='warn'" in str(info.value)


def test_unused_input_warn_and_ignore(xy):
    x, y = xy
    with pytest.warns(UserWarning, match="at index 1"):
        f = function([x, y], x * 2, on_unused_input="warn")
    assert_matches(f(np.ones(2), np.ones(7)), np.full(2, 2.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = function([x, y], x * 2, on_unused_input="ignore")
    assert_matches(g(np.ones(2), np.ones(7)), np.full(2, 2.0))
    with pytest.raises(ValueError, match="on_unused_input must be"):
        function([x, y], x * 2, on_unused_input="sometimes")


def test_constants_are_refused_as_inputs():
    c = ot.constant(np.ones(2))
    with pytest.raises(TypeError, match="Constant"):
        function([c], c * 2)


def test_shared_variables_are_refused_as_explicit_inputs():
    s = oxtensor.shared(np.ones(2), name="s")
    with pytest.raises(TypeError, match=r"shared variable.*givens"):
        function([s], s * 2)


def test_an_input_given_twice_is_refused():
    x = ot.dvector("x")
    with pytest.raises(UnusedInputError, match="is used twice in inputs"):
        function([x, x], x * 2)


# --- givens ---


def test_givens_replace_variables_by_expressions(xy):
    x, y = xy
    f = function([y], x * 2, givens={x: y + 1})
    assert_matches(f(np.array([1.0, 2.0])), np.array([4.0, 6.0]))
    g = function([y], x * 2, givens=[(x, y * y)])
    assert_matches(g(np.array([3.0])), np.array([18.0]))


def test_givens_replace_shared_variables():
    s = oxtensor.shared(np.zeros(2), name="s")
    y = ot.dvector("y")
    f = function([y], s * y, givens=[(s, y + 1)])
    assert_matches(f(np.array([1.0, 2.0])), np.array([2.0, 6.0]))


@pytest.mark.parametrize("replacement", [ot.dmatrix("m"), ot.ivector("i")])
def test_givens_must_have_the_replaced_type(xy, replacement):
    x, _ = xy
    with pytest.raises(TypeError, match="Cannot convert Type"):
        function([replacement], x * 2, givens={x: replacement})


# --- outputs ---


def test_output_forms():
    x = ot.dvector("x")
    a = np.ones(2)
    assert isinstance(function([x], x * 2)(a), np.ndarray)
    both = function([x], [x * 2, x + 1])(a)
    assert isinstance(both, list)
    assert len(both) == 2
    assert function([x], [], on_unused_input="ignore")(a) == []
    assert function([x], (x * 2,))(a)[0].shape == (2,)


def test_outputs_never_alias_inputs_or_each_other():
    x = ot.dvector("x")
    y = x * 2
    f = function([x], [x, y, y, x.T, x.dimshuffle("x", 0)])
    a = np.arange(3.0)
    outs = f(a)
    for i, out in enumerate(outs):
        assert not np.shares_memory(out, a), f"output {i} aliases the input"
        for j, other in enumerate(outs[:i]):
            assert not np.shares_memory(out, other), f"outputs {j} and {i} alias"
    assert_matches(outs[0], a)
    assert_matches(outs[4], a[None])


def test_borrowed_outputs_may_alias_inputs():
    x = ot.dvector("x")
    a = np.arange(3.0)
    same, copied = function([In(x, borrow=True)], [Out(x, borrow=True), x])(a)
    assert np.shares_memory(same, a)
    assert not np.shares_memory(copied, a)


def test_outputs_never_alias_an_unborrowed_argument():
    # PyTensor's contract (`test_borrow_input`): without In(borrow=True) a
    # borrowed output is still copied, whether the input itself or a view.
    x = ot.dmatrix("x")
    a = np.ones((3, 3))
    for out in (x, x[0, :], x + 1):
        assert not np.shares_memory(function([x], Out(out, borrow=True))(a), a)


def test_constant_outputs_are_fresh_copies():
    f = function([], ot.constant(np.arange(3.0)) * 1)
    first = f()
    first[:] = -1
    assert_matches(f(), np.arange(3.0))


def test_results_held_across_calls_are_never_overwritten():
    # Intermediates are recycled between calls: results handed out must not be.
    x = ot.dvector("x")
    y = ot.exp(x) + 1
    f = function([x], [y * 2, y.sum(), Out(y - 1, borrow=True)])
    held = [(k, f(np.full(50, float(k)))) for k in range(20)]
    for k, (double, total, borrowed) in held:
        want = np.exp(np.full(50, float(k))) + 1
        assert_matches(double, want * 2)
        assert_matches(total, want.sum(), scale=50)
        assert_matches(borrowed, want - 1)


def test_outputs_are_writeable_and_private():
    x = ot.dvector("x")
    f = function([x], x * 2)
    out = f(np.ones(2))
    out[:] = 7
    assert_matches(f(np.ones(2)), np.full(2, 2.0))


def test_inputs_are_never_modified():
    x = ot.dvector("x")
    add_inplace = ot.Elemwise(S.add, {0: 0})
    f = function([x], add_inplace(x, x), accept_inplace=True)
    a = np.arange(3.0)
    assert_matches(f(a), np.arange(3.0) * 2)
    assert_matches(a, np.arange(3.0))


# --- the compiled graph and the function object ---


def test_maker_fgraph_is_constant_folded():
    x = ot.dvector("x")
    f = function([x], x + ot.constant(2.0) * ot.constant(3.0))
    fg = f.maker.fgraph
    assert [(v.name, v.type) for v in fg.inputs] == [("x", x.type)]
    ops = [type(node.op).__name__ for node in fg.apply_nodes]
    assert ops == ["Elemwise"]
    [node] = fg.apply_nodes
    folded = node.inputs[1]
    assert_matches(np.asarray(folded.data).ravel(), np.array([6.0]), folded.dtype)
    assert [i.variable for i in f.maker.inputs] == [x]
    assert_matches(f(np.zeros(1)), np.array([6.0]))


def test_maker_fgraph_inputs_are_the_users_variables():
    x, y = ot.dvector("x"), ot.dvector("y")
    out = ot.exp(x) * 2 + y
    before = oxtensor.dprint(out, file="str")
    f = function([x, y], out)
    assert f.maker.fgraph.inputs[0] is x
    assert f.maker.fgraph.inputs[1] is y
    # The nodes are the compiler's own: the user's graph is untouched.
    assert out.owner not in f.maker.fgraph.apply_nodes
    assert oxtensor.dprint(out, file="str") == before
    g = function([x], ot.exp(x) * 2 + 1.0)
    assert g.maker.fgraph.inputs[0] is x
    a = np.arange(3.0)
    assert_matches(f(a, a), np.exp(a) * 2 + a)
    assert_matches(g(a), np.exp(a) * 2 + 1)


def test_copy_is_an_independent_function():
    x = ot.dvector("x")
    f = function([x], x * 2, name="f")
    g = f.copy()
    assert g is not f
    assert g.name == "f copy"
    a = np.arange(3.0)
    one, two = f(a), g(a)
    assert_matches(one, a * 2)
    assert_matches(two, a * 2)
    assert not np.shares_memory(one, two)
    g.trust_input = True
    assert not f.trust_input


def test_free_keeps_the_function_usable():
    x = ot.dvector("x")
    f = function([x], ot.exp(x) * 2 + 1)
    a = np.arange(4.0)
    first = f(a)
    f.free()
    assert_matches(f(a), np.exp(a) * 2 + 1)
    assert_matches(first, np.exp(a) * 2 + 1)


def test_function_repr_names_it():
    x = ot.dvector("x")
    assert "myname" in repr(function([x], x, name="myname"))


def test_eval_with_variables_and_names():
    x, y = ot.dvector("x"), ot.dscalar("y")
    z = x * y + 1
    a = np.array([1.0, 2.0])
    assert_matches(z.eval({x: a, y: 3.0}), a * 3 + 1)
    assert_matches(z.eval({"x": a, "y": 2.0}), a * 2 + 1)
    assert_matches(z.eval({y: 2.0, "x": a}), a * 2 + 1)
    const = ot.constant(np.float64(2.0)) * 3
    assert_matches(const.eval(), np.array(6.0), const.dtype)


def test_eval_with_an_unknown_name_raises():
    x = ot.dvector("x")
    with pytest.raises(ValueError, match="nope not found in graph"):
        (x * 2).eval({"nope": np.ones(1)})
    # Ignoring unused inputs ignores unknown names too, as in PyTensor.
    out = (x * 2).eval({"x": np.ones(1), "nope": 1}, on_unused_input="ignore")
    np.testing.assert_array_equal(out, [2.0])


def test_eval_name_of_two_variables_raises():
    a, b = ot.dscalar("a"), ot.dscalar("a")
    with pytest.raises(ValueError, match="multiple variables with name a"):
        (a + b).eval({"a": 1.0})


def test_eval_with_unhashable_keywords_warns_and_runs():
    x, y = ot.dscalar("x"), ot.dscalar("y")
    with pytest.warns(UserWarning, match="could not be used to create a cache key"):
        out = (x + y).eval({x: 1.0}, givens={y: x * 2})
    assert out == 3.0


# --- modes and inplace graphs ---


@pytest.mark.parametrize(
    "mode",
    [None, "FAST_RUN", "FAST_COMPILE", "NUMBA", "CVM", "VM", "C", "py", Mode()],
    ids=str,
)
def test_known_modes_are_accepted(mode):
    x = ot.dvector("x")
    assert_matches(function([x], x + 1, mode=mode)(np.ones(2)), np.full(2, 2.0))


def test_unknown_modes_are_refused():
    x = ot.dvector("x")
    with pytest.raises(ValueError, match=r"unknown mode 'JAXX'.*FAST_RUN"):
        function([x], x + 1, mode="JAXX")
    with pytest.raises(TypeError, match="mode must be a string or a Mode"):
        function([x], x + 1, mode=3)


def test_graphs_with_inplace_ops_need_accept_inplace():
    x, y = ot.dvector("x"), ot.dvector("y")
    out = ot.Elemwise(S.mul, {0: 1})(x, y)
    with pytest.raises(TypeError, match="inplace"):
        function([x, y], out)
    f = function([x, y], out, accept_inplace=True)
    a, b = np.arange(3.0), np.full(3, 2.0)
    assert_matches(f(a, b), a * b)
    assert_matches(b, np.full(3, 2.0))


def test_function_dprint_is_debugprint_of_the_function():
    from oxtensor.printing import debugprint

    x = ot.dscalar("x")
    f = function([x], x + 1)
    assert f.dprint(file="str") == debugprint(f, file="str")
