"""PyTensor's rules for what `function` accepts and how it treats shared
memory, as `tests/compile/test_maker.py` of PyTensor checks them: bad
inputs and updates raise `TypeError`, implicit inputs with a `Container`,
`givens` that read their own key, swapped updates without copies, Python
integers converted as NumPy does, and the shared-variable helpers
(`TensorSharedVariable.zero`, masked arrays, `ScalarSharedVariable`)."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import In, function, shared
from oxtensor.compile.function import UnusedInputError
from oxtensor.link.basic import Container
from oxtensor.tensor.sharedvar import TensorSharedVariable


def test_in_of_a_shared_variable_and_bad_arguments_are_type_errors():
    a = shared(1.0)
    with pytest.raises(TypeError, match=r"shared variable .* as explicit input"):
        function([In(a, update=a + 1)])
    x = ot.lscalar("x")
    with pytest.raises(TypeError, match="no_default_updates must be a bool or a list"):
        function([x], x + a, no_default_updates=1)
    with pytest.raises(TypeError, match="no_default_updates must be a bool or a list"):
        function([x], x + a, no_default_updates=a)
    with pytest.raises(TypeError):
        function([x], x + a, updates=[{a, x}])
    with pytest.raises(TypeError, match="Updates must be for shared variables"):
        function([x], x + a, updates=[(1, a)])


def test_duplicate_inputs_raise_unused_input_error():
    x = ot.lscalar("x")
    with pytest.raises(UnusedInputError, match="x is used twice in inputs"):
        function([x, x, x], x)


def test_an_update_must_have_the_shared_variables_type():
    s = shared(np.zeros((3, 3), dtype="float32"), name="s")
    with pytest.raises(TypeError, match="same type as the original shared variable"):
        function([], [], updates={s: s.sum().dimshuffle("x", "x")})
    # A raw value becomes a constant of the variable's type.
    function([], [], updates={s: np.ones((3, 3), dtype="float32")})()
    np.testing.assert_array_equal(s.get_value(), np.ones((3, 3)))


def test_in_with_a_container_is_an_implicit_input_updated_in_place():
    a = ot.dscalar("a")
    slot = Container(a, storage=[np.array(0.0)])
    f = function([In(a, value=slot, implicit=True, update=a + 1)], a)
    assert [float(f()) for _ in range(3)] == [0.0, 1.0, 2.0]
    assert slot.storage[0] == 3.0


def test_container_inputs_and_shared_updates_swap_at_once():
    s = shared(1.0)
    a = ot.dscalar("a")
    f = function(
        [In(a, value=Container(a, storage=[np.array(0.0)]), update=s)],
        [],
        updates={s: a},
    )
    seen = []
    for _ in range(4):
        f()
        seen.append(float(s.get_value()))
    assert seen == [0.0, 1.0, 0.0, 1.0]


def test_an_implicit_input_needs_a_value():
    x = ot.dvector("x")
    with pytest.raises(TypeError, match="implicit input must be given a default"):
        function([In(x, implicit=True, update=x + 1)], x)


def test_givens_may_read_the_shared_variable_they_replace():
    a = shared(1.0, "a")
    a.default_update = a + 3
    f = function([], a + 10, givens={a: a + 10})
    assert f() == 21.0
    assert a.get_value() == 14.0
    assert f() == 34.0


def test_swapped_updates_take_over_each_others_arrays():
    orig_a, orig_b = np.full((2, 2), 0.5), np.full((2, 2), -0.5)
    A, B = shared(orig_a), shared(orig_b)
    old_a, old_b = A.container.storage[0], B.container.storage[0]
    function([], [], updates=[(A, B), (B, A)])()
    new_a, new_b = A.container.storage[0], B.container.storage[0]
    assert np.all(new_a == -0.5)
    assert np.all(new_b == 0.5)
    assert np.may_share_memory(new_a, old_b)
    assert np.may_share_memory(new_b, old_a)
    assert not np.may_share_memory(new_a, new_b)


def test_updates_reading_one_released_array_do_not_alias():
    A, B, C = shared(np.zeros(2)), shared(np.ones(2)), shared(np.full(2, 2.0))
    old_b = B.container.storage[0]
    function([], [], updates=[(A, B), (C, B[::-1]), (B, A)])()
    a, b, c = (v.container.storage[0] for v in (A, B, C))
    np.testing.assert_array_equal(a, [1.0, 1.0])
    np.testing.assert_array_equal(c, [1.0, 1.0])
    assert not np.may_share_memory(a, c)
    assert not np.may_share_memory(a, b)
    assert sum(np.may_share_memory(v, old_b) for v in (a, c)) <= 1


def test_python_integers_out_of_range():
    a, b = ot.wvector("a"), ot.bvector("b")
    f = function([In(a, allow_downcast=True), b], a + b)
    # A downcast wraps as NumPy's astype does: 2**20 as int16 is 0.
    np.testing.assert_array_equal(f([2**20], [2]), [2])
    with pytest.raises(OverflowError, match=r"(?s)Bad input argument.*out of bounds"):
        f([3], [312])
    with pytest.raises(TypeError, match="without risking loss of precision"):
        f([3], np.array([6], dtype="int16"))


def test_tensor_shared_variable_zero():
    value = np.array([1.0, 3.0], dtype="float32")
    s = shared(value, borrow=True)
    assert isinstance(s, TensorSharedVariable)
    s.zero(borrow=True)
    assert s.get_value(borrow=True) is value
    np.testing.assert_array_equal(value, [0.0, 0.0])
    s.set_value(np.ones(2, dtype="float32"), borrow=True)
    kept = s.get_value(borrow=True)
    s.zero()
    assert s.get_value(borrow=True) is not kept
    np.testing.assert_array_equal(kept, [1.0, 1.0])
    np.testing.assert_array_equal(s.get_value(), [0.0, 0.0])


def test_masked_arrays_and_the_deprecated_scalar_class():
    with pytest.raises(NotImplementedError, match="MaskedArrays are not supported"):
        shared(np.ma.masked_greater(np.arange(4), 2))
    import oxtensor.tensor.sharedvar as sharedvar

    with pytest.warns(FutureWarning, match="deprecated"):
        assert sharedvar.ScalarSharedVariable is TensorSharedVariable
    with pytest.raises(AttributeError, match="NoSuchThing"):
        sharedvar.NoSuchThing  # noqa: B018


def test_rebuild_strict_false_lets_givens_change_types():
    w = ot.imatrix("w")
    x, y = ot.ivectors("x", "y")
    s = shared(np.zeros(5), name="s")
    z = x * y
    with pytest.raises(TypeError, match="Cannot convert Type Matrix"):
        function([w, y], z, givens=[(x, w)])
    f = function(
        [w, y],
        [z, (x + 1).sum()],
        givens=[(x, w)],
        updates=[(s, s + x.sum())],
        rebuild_strict=False,
    )
    wv, yv = np.ones((3, 5), dtype="int32"), np.arange(5, dtype="int32")
    out, total = f(wv, yv)
    np.testing.assert_array_equal(out, wv * yv)
    assert total == (wv + 1).sum()
    # The update's `x.sum()` became the matrix's sum, a scalar again.
    np.testing.assert_array_equal(s.get_value(), np.full(5, 15))
