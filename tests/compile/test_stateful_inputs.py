"""Inputs that carry state (`In(x, value=...)`, `In(x, update=...)`), with
PyTensor's argument rules, `f._finder`, `f[name]`, copies and pickling;
and `_potential_aliased_input_groups`."""

import copy
import pickle

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import In, function
from oxtensor.link.basic import Container


def test_required_input_with_an_update_stores_it():
    x, s = ot.dscalars("x", "s")
    f = function([x, In(s, update=s + x)], s * 2)
    assert f._finder[s].value is None
    assert f(1.0, 3.0) == 6.0
    assert f._finder[s].value == 4.0
    assert f["s"] == 4.0
    with pytest.raises(TypeError, match="Missing required input: s"):
        f(1.0)


def test_default_value_is_put_back_after_each_call():
    x, y = ot.dscalars("x", "y")
    f = function([x, In(y, value=10.0)], x + y)
    assert f(1.0) == 11.0
    assert f(1.0, 2.0) == 3.0
    assert f(1.0) == 11.0
    assert f(x=1.0, y=5.0) == 6.0
    assert f._finder[1].value == 10.0


def test_value_with_an_update_is_state():
    x, s = ot.dscalars("x", "s")
    f = function([x, In(s, value=0.0, update=s + x)], s)
    assert [float(f(2.0)) for _ in range(3)] == [0.0, 2.0, 4.0]
    # A given value replaces the state for this call; the update follows.
    assert f(1.0, 100.0) == 100.0
    assert f(0.0) == 101.0


def test_containers_are_shared_between_functions():
    x, s = ot.dscalars("x", "s")
    slot = Container(s, storage=[np.array(10.0)])
    inc = function([x, In(s, update=s + x, value=slot)], [])
    dec = function([x, In(s, update=s - x, value=inc._finder[s], implicit=False)], [])
    assert dec._finder[s] is slot
    inc(5.0)
    assert slot.value == 15.0
    dec(1.0)
    assert inc._finder[s].value == 14.0
    dec(1.0, 0.0)  # not implicit: an argument sets the shared value first
    assert slot.value == -1.0
    with pytest.raises(TypeError, match="implicit input"):
        inc(1.0, 2.0)


def test_finder_keys_and_item_access():
    a = ot.dscalar()
    x, s = ot.dscalars("x", "s")
    f = function([x, In(a, name="a"), In(s, value=1.0, update=s * 2)], s + a * x)
    for key in (2, s, "s"):
        assert f._finder[key] is f._finder[s]
    assert f(1.0, 2.0) == 3.0
    assert f["s"] == 2.0
    f["s"] = 5.0
    assert f(0.0, 0.0) == 5.0
    assert f._finder[x].value == 0.0  # the last argument given
    with pytest.raises(TypeError, match="unexpected keyword argument 'q'"):
        f(1.0, q=2.0)
    with pytest.raises(TypeError, match="Too many parameters"):
        f(1.0, 2.0, 3.0, 4.0)


def test_copies_share_state_but_not_arguments():
    a = ot.dscalar()
    x, s = ot.dscalars("x", "s")
    f = function([x, In(a, name="a"), In(s, value=0.0, update=s + a * x)], s)
    g = f.copy()
    assert g._finder[x].storage is not f._finder[x].storage
    assert g._finder[s] is f._finder[s]
    f(1.0, 2.0)
    assert g(0.0, 0.0) == 2.0


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_pickled_functions_keep_sharing_a_container(how):
    a = ot.dscalar()
    x, s = ot.dscalars("x", "s")
    f1 = function(
        [
            x,
            In(a, name="a"),
            In(s, value=Container(s, [np.array(0.0)]), update=s + a * x),
        ],
        s + a * x,
    )
    f2 = function([x, In(a, name="a"), In(s, value=f1._finder[s], update=s + a * x)], s)
    if how == "pickle":
        g1, g2 = pickle.loads(pickle.dumps((f1, f2)))
    else:
        g1, g2 = copy.deepcopy((f1, f2))
    assert g1._finder[0].storage is not f1._finder[0].storage
    assert g1._finder[2].storage is g2._finder[2].storage
    assert g1._finder[2].storage is not f1._finder[2].storage
    assert g1(3.0, 1.0) == 3.0
    assert g2(3.0, 1.0) == 3.0
    assert g1._finder[2].value == 6.0
    assert f1._finder[2].value == 0.0


def test_potential_aliased_input_groups():
    x1, x2, x3 = ot.vector(), ot.vector(shape=(3,)), ot.vector(shape=(1,))
    groups = function(
        [In(x1, mutable=True), In(x3, mutable=True)], [x1 + 1, x3 + 3]
    )._potential_aliased_input_groups
    assert groups == ((0, 1),)
    # Neither static shape contains the other: no aliasing possible.
    f = function([In(x2, mutable=True), In(x3, mutable=True)], [x2 + 2, x3 + 3])
    assert f._potential_aliased_input_groups == ()
    assert function([x1, x2], [x1 + x2])._potential_aliased_input_groups == ()
    a = ot.dscalar()
    x, s = ot.dscalars("x", "s")
    f = function([x, In(a, mutable=True), In(s, update=s + a * x, mutable=True)], s)
    assert f._potential_aliased_input_groups == ((1, 2),)
    assert copy.deepcopy(f)._potential_aliased_input_groups == ((1, 2),)
