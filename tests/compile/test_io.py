"""`In` and `Out`: input names and options, and borrowed outputs."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import In, Out, function, shared

from tests.helpers import assert_matches


def test_in_takes_its_name_from_the_variable():
    x = ot.dvector("x")
    assert In(x).name == "x"
    assert In(x, name="other").name == "other"
    assert In(x, autoname=False).name is None
    assert repr(In(x)) == "In(x)"


def test_in_defaults():
    x = ot.dvector("x")
    i = In(x)
    assert (i.mutable, i.borrow, i.strict, i.update) == (False, False, False, None)
    assert In(x, mutable=True).borrow


def test_default_values_of_explicit_inputs():
    x = ot.dvector("x")
    f = function([In(x, value=np.ones(2))], x * 2)
    assert_matches(f(), np.full(2, 2.0))
    assert_matches(f(np.arange(2.0)), np.arange(2.0) * 2)
    assert_matches(f(), np.full(2, 2.0))


def test_in_and_plain_variables_mix():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = function([In(x, name="a"), y], x * y)
    assert_matches(f(np.full(2, 2.0), np.full(2, 3.0)), np.full(2, 6.0))
    assert_matches(f(a=np.full(2, 2.0), y=np.ones(2)), np.full(2, 2.0))


@pytest.mark.parametrize("item", ["x", 3, np.ones(2)], ids=repr)
def test_inputs_must_be_variables_or_in(item):
    with pytest.raises(TypeError, match="Variables or In"):
        function([item], ot.constant(1.0))


def test_out_repr_and_default():
    x = ot.dvector("x")
    assert not Out(x).borrow
    assert repr(Out(x, borrow=True)) == "Out(x, borrow=True)"


def test_out_must_wrap_a_variable():
    with pytest.raises(TypeError, match="Variables or Out"):
        function([], [np.ones(2)])


def test_borrowed_output_may_be_the_input_itself():
    x = ot.dvector("x")
    a = np.arange(3.0)
    assert np.shares_memory(function([In(x, borrow=True)], Out(x, borrow=True))(a), a)
    assert not np.shares_memory(function([x], Out(x, borrow=True))(a), a)
    assert not np.shares_memory(function([x], Out(x))(a), a)


def test_borrowed_output_of_a_shared_variable_may_view_its_storage():
    s = shared(np.arange(3.0), name="s")
    borrowed, copied = function([], [Out(s, borrow=True), s])()
    assert np.shares_memory(borrowed, s.get_value(borrow=True))
    assert not np.shares_memory(copied, s.get_value(borrow=True))


def test_borrowed_and_plain_outputs_of_one_variable():
    x = ot.dvector("x")
    y = ot.exp(x)
    plain, borrowed = function([x], [y, Out(y, borrow=True)])(np.zeros(2))
    assert_matches(plain, np.ones(2))
    assert_matches(borrowed, np.ones(2))
    # The default output is copied when it would alias the borrowed one.
    plain[:] = 5
    assert_matches(borrowed, np.ones(2))
