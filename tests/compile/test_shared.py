"""Shared variables in compiled functions: `get_value`/`set_value` and
`borrow`, values read at call time, `updates` (dict or list, applied after
the outputs, all from the old values), their type checks, `default_update`
and `no_default_updates`, and `In(shared, update=...)`."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor import In, function, shared

from tests.helpers import assert_matches


def test_shared_copies_its_value_unless_borrowed():
    value = np.arange(3.0)
    s, b = shared(value), shared(value, borrow=True)
    value[0] = 10
    assert_matches(s.get_value(), np.arange(3.0))
    assert b.get_value(borrow=True) is value


def test_get_value_copies_unless_borrowed():
    s = shared(np.arange(3.0))
    s.get_value()[0] = 10
    assert_matches(s.get_value(), np.arange(3.0))
    s.get_value(borrow=True)[0] = 10
    assert_matches(s.get_value(), np.array([10.0, 1, 2]))


def test_set_value_copies_unless_borrowed():
    s = shared(np.zeros(2))
    new = np.ones(2)
    s.set_value(new)
    new[0] = 5
    assert_matches(s.get_value(), np.ones(2))
    s.set_value(new, borrow=True)
    assert s.get_value(borrow=True) is new


def test_set_value_checks_the_type():
    s = shared(np.zeros(2))
    s.set_value(np.array([1, 2], "int32"))
    assert_matches(s.get_value(), np.array([1.0, 2.0]))
    with pytest.raises(TypeError):
        s.set_value(np.zeros((2, 2)))
    with pytest.raises(TypeError):
        s.set_value(np.ones(2, "complex128"))
    fixed = shared(np.zeros(2), shape=(2,))
    with pytest.raises(TypeError):
        fixed.set_value(np.zeros(3))


def test_functions_read_the_value_at_call_time():
    s = shared(np.ones(2), name="s")
    x = ot.dvector("x")
    f = function([x], x * s)
    assert_matches(f(np.full(2, 3.0)), np.full(2, 3.0))
    s.set_value(np.array([2.0, 4.0]))
    assert_matches(f(np.full(2, 3.0)), np.array([6.0, 12.0]))
    s.set_value(np.ones(5))
    assert_matches(f(np.ones(5)), np.ones(5))


@pytest.mark.parametrize("form", ["list", "dict"])
def test_updates_apply_after_the_outputs(form):
    s = shared(np.zeros(2), name="s")
    x = ot.dvector("x")
    pairs = [(s, s + x)]
    f = function([x], s * 1, updates=dict(pairs) if form == "dict" else pairs)
    assert_matches(f(np.ones(2)), np.zeros(2))
    assert_matches(s.get_value(), np.ones(2))
    assert_matches(f(np.ones(2)), np.ones(2))
    assert_matches(s.get_value(), np.full(2, 2.0))


def test_updates_all_read_the_old_values():
    a, b = shared(np.array(1.0), name="a"), shared(np.array(2.0), name="b")
    swap = function([], [], updates=[(a, b), (b, a)])
    swap()
    assert (a.get_value(), b.get_value()) == (2.0, 1.0)


def test_update_output_never_aliases_a_returned_output():
    s = shared(np.zeros(3), name="s")
    y = s + 1
    f = function([], y, updates=[(s, y)])
    first = f()
    first[:] = -7
    assert_matches(s.get_value(), np.ones(3))
    second = f()
    assert_matches(second, np.full(3, 2.0))
    assert not np.shares_memory(second, s.get_value(borrow=True))


def test_returned_outputs_are_not_the_shared_storage():
    s = shared(np.arange(3.0), name="s")
    out = function([], s)()
    out[:] = 0
    assert_matches(s.get_value(), np.arange(3.0))


def test_update_type_must_match():
    s = shared(np.zeros(2), name="s")
    with pytest.raises(TypeError, match="same type as the original shared variable"):
        function([], s, updates=[(s, s.astype("float32"))])
    with pytest.raises(TypeError, match="same type as the original shared variable"):
        function([], s, updates=[(s, s.sum())])


def test_update_target_must_be_shared_and_updated_once():
    s = shared(np.zeros(2), name="s")
    x = ot.dvector("x")
    with pytest.raises(TypeError, match="Updates must be for shared variables"):
        function([x], x, updates=[(x, x + 1)])
    with pytest.raises(ValueError, match="two update expressions"):
        function([], s, updates=[(s, s + 1), (s, s + 2)])


def test_default_update_applies_unless_disabled():
    s, t = shared(np.array(0.0), name="s"), shared(np.array(0.0), name="t")
    s.default_update = s + 1
    t.default_update = t + 10
    both = s + t
    function([], both)()
    assert (s.get_value(), t.get_value()) == (1.0, 10.0)
    function([], both, no_default_updates=True)()
    assert (s.get_value(), t.get_value()) == (1.0, 10.0)
    function([], both, no_default_updates=[s])()
    assert (s.get_value(), t.get_value()) == (1.0, 20.0)


def test_explicit_update_overrides_default_update():
    s = shared(np.array(0.0), name="s")
    s.default_update = s + 1
    function([], s * 1, updates=[(s, s - 5)])()
    assert s.get_value() == -5.0


def test_in_of_a_shared_variable_is_refused():
    # As in PyTensor: a shared variable is never an explicit input, even
    # wrapped in `In` with an update (give that as `updates=`).
    s = shared(np.array(3.0), name="s")
    x = ot.dscalar("x")
    with pytest.raises(TypeError, match=r"shared variable.*explicit input"):
        function([x, In(s, update=s * x)], s + 0)
    # An update of an explicit input is stored in the function's container
    # for it (the argument is still required).
    f = function([In(x, update=x + 1)], x)
    assert f(2.0) == 2.0
    assert f._finder[x].value == 3.0


def test_shared_of_every_kind_of_value():
    for value in [np.arange(4, dtype="int16"), np.float32(2.5), 3, True, 1.5 + 2j]:
        s = shared(value)
        out = function([], s * 1)()
        assert_matches(out, np.asarray(value) * 1, (s * 1).dtype)
    with pytest.raises(TypeError, match="SharedVariable"):
        shared(shared(np.ones(1)))
    with pytest.raises(TypeError, match="unexpected keyword"):
        shared(7, bad_kw=False)
    with pytest.raises(TypeError, match="symbolic variable"):
        shared(ot.ones((2, 3)))


def test_shared_of_other_objects_is_generic():
    from oxtensor.link.c.type import generic

    s = shared([1, 2, 3], strict=True)
    assert s.type == generic
    s.set_value("anything")
    assert s.get_value() == "anything"


def test_set_value_keeps_strict_and_allow_downcast():
    strict = shared(np.int64(7), strict=True)
    with pytest.raises(TypeError):
        strict.set_value(8.23)
    loose = shared(np.int32([7]), allow_downcast=True)
    loose.set_value([8.23])
    assert loose.get_value().dtype == np.int32
    assert loose.get_value()[0] == 8
    with pytest.raises(ValueError, match="could not convert"):
        shared(np.zeros(2)).set_value("abc")


def test_shared_variables_in_several_functions():
    s = shared(np.array(0), name="s")
    inc = function([], [], updates=[(s, s + 1)])
    dec = function([], [], updates=[(s, s - 1)])
    read = function([], s * 1)
    for _ in range(3):
        inc()
    dec()
    assert read() == 2
    assert oxtensor.function([], s + 0)() == 2
