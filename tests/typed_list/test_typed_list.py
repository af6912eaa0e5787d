"""`oxtensor.typed_list`: the list ops against Python's own list methods,
the type's filter, and the errors for wrong items and indices."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.typed_list import (
    Append,
    TypedListType,
    append,
    count,
    extend,
    getitem,
    index_,
    insert,
    length,
    make_list,
    remove,
    reverse,
)

RNG = np.random.default_rng(28)


def values(n: int) -> list[np.ndarray]:
    return [RNG.random(3) for _ in range(n)]


def test_make_list_and_the_queries_match_python_lists():
    a, b = ot.dvector("a"), ot.dvector("b")
    lst = make_list([a, b, a])
    assert lst.type == TypedListType(a.type)
    f = oxtensor.function(
        [a, b], [lst, length(lst), count(lst, a), index_(lst, b), lst[1], lst[-1]]
    )
    av, bv = values(2)
    got, n, c, i, second, last = f(av, bv)
    expected = [av, bv, av]
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)
    assert (n, c, i) == (3, 2, 1)
    np.testing.assert_array_equal(second, bv)
    np.testing.assert_array_equal(last, av)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda lst, b: append(lst, b), lambda x: [*x, x[1]]),
        (lambda lst, b: extend(lst, lst), lambda x: x + x),
        (lambda lst, b: insert(lst, 0, b), lambda x: [x[1], *x]),
        (lambda lst, b: remove(lst, b), lambda x: [x[0]]),
        (lambda lst, b: reverse(lst), lambda x: x[::-1]),
        (lambda lst, b: getitem(lst, slice(1, None)), lambda x: x[1:]),
    ],
)
def test_edits_give_new_lists_as_python_does(edit, expected):
    a, b = ot.dvector("a"), ot.dvector("b")
    lst = make_list([a, b])
    f = oxtensor.function([a, b], edit(lst, b))
    av, bv = values(2)
    got = f(av, bv)
    want = expected([av, bv])
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_a_list_input_is_filtered_and_not_modified_by_a_copying_op():
    lt = TypedListType(ot.dvector().type)
    lst = lt("lst")
    x = ot.dvector("x")
    f = oxtensor.function([lst, x], append(lst, x))
    given = [np.ones(2)]
    out = f(given, np.zeros(1))
    assert len(given) == 1
    assert len(out) == 2
    with pytest.raises(TypeError):
        f([np.ones((2, 2))], np.zeros(1))
    assert Append(inplace=True).destroy_map == {0: [0]}


def test_nested_list_types_and_equality():
    inner = ot.dmatrix().type
    assert TypedListType(inner, depth=1) == TypedListType(TypedListType(inner))
    assert TypedListType(inner, depth=1).get_depth() == 1
    assert TypedListType(inner) != TypedListType(ot.fmatrix().type)
    assert TypedListType(inner).dtype == "float64"
    assert TypedListType(inner).ndim == 2
    with pytest.raises(TypeError, match="must be a Type"):
        TypedListType("float64")


def test_wrong_items_and_indices_are_refused():
    a, m = ot.dvector("a"), ot.dmatrix("m")
    lst = make_list([a])
    with pytest.raises(TypeError, match="same type"):
        make_list([a, m])
    with pytest.raises(TypeError, match="holds items of type"):
        append(lst, m)
    with pytest.raises(TypeError, match="integer scalar"):
        getitem(lst, ot.dscalar())
    with pytest.raises(TypeError, match="TensorType"):
        ot.shape(lst)
    f = oxtensor.function([a, m], remove(lst, m[0]))
    with pytest.raises(ValueError, match="not in the list"):
        f(np.ones(2), np.zeros((1, 2)))


def test_ops_pickle_and_compare_by_props():
    assert pickle.loads(pickle.dumps(Append(inplace=True))) == Append(inplace=True)
    assert Append() != Append(inplace=True)
    assert getitem(make_list([ot.dvector()]), slice(0, 1)).owner.op.slice_ == (
        0,
        1,
        None,
    )
