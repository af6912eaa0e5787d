"""What PyTensor decides when a graph is built, as PyTensor decides it
(issue 28): `%` and `//` refuse complex inputs at once, a `Reshape` to a
`MakeVector` of constants has a static shape, `MakeVector` and `Split`
raise PyTensor's exception classes at PyTensor's moment, an
`IncSubtensor`'s `destroyhandler_tolerate_aliased` is part of the op, and
`full` takes a 0-d array as a length."""

import pickle

import numpy as np
import oxtensor
import oxtensor.scalar as ps
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor.basic import MakeVector, Split
from oxtensor.tensor.subtensor import IncSubtensor


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_mod_and_floordiv_refuse_complex_when_built(dtype):
    x = ot.vector("x", dtype=dtype)
    for build in (lambda: x % 5, lambda: 5 % x, lambda: x // 2, lambda: 2 // x):
        with pytest.raises(ps.ComplexError, match="complex"):
            build()
    assert issubclass(ps.ComplexError, NotImplementedError)
    # Real inputs are unchanged.
    y = ot.dvector("y")
    f = oxtensor.function([y], [y % 5, y // 2])
    got = f(np.array([7.5, -3.0]))
    np.testing.assert_array_equal(got[0], np.array([7.5, -3.0]) % 5)
    np.testing.assert_array_equal(got[1], np.array([7.5, -3.0]) // 2)


def test_reshape_to_a_make_vector_of_constants_has_a_static_shape():
    x = ot.vector("x", shape=(6,))
    assert ot.reshape(x, ot.stack([2, 3])).type.shape == (2, 3)
    assert ot.reshape(x, ot.stack([3, -1])).type.shape == (3, 2)
    n = ot.lscalar("n")
    # The static size gives the entry known at run time only, as in PyTensor.
    assert ot.reshape(x, ot.stack([n, 3])).type.shape == (2, 3)
    assert ot.reshape(ot.dvector(), ot.stack([n, 3])).type.shape == (None, 3)
    with pytest.raises(ValueError, match="is incompatible with new shape"):
        ot.reshape(x, ot.stack([4, 2]))
    f = oxtensor.function([x], ot.reshape(x, ot.stack([2, 3])))
    np.testing.assert_array_equal(f(np.arange(6.0)), np.arange(6.0).reshape(2, 3))


def test_make_vector_refuses_non_scalars_with_value_error():
    with pytest.raises(ValueError, match="scalars"):
        MakeVector()(ot.vector(), ot.vector())
    a, b = ot.iscalar(), ot.lscalar()
    assert MakeVector("int64")(a, b).dtype == "int64"
    with pytest.raises(TypeError):
        MakeVector("int32")(a, b)


def test_split_with_a_negative_constant_length_fails_when_run():
    m = ot.tensor("m", shape=(4, 6), dtype="float64")
    parts = Split(2)(m, 0, [5, -1])
    assert [p.type.shape for p in parts] == [(None, 6), (None, 6)]
    f = oxtensor.function([m], parts)
    assert any(isinstance(n.op, Split) for n in f.maker.fgraph.toposort())
    with pytest.raises(ValueError, match="negative"):
        f(np.ones((4, 6)))


def test_inc_subtensor_tolerate_aliased_is_part_of_the_op():
    def inc(pairs):
        return IncSubtensor(
            idx_list=[slice(None)], inplace=True, destroyhandler_tolerate_aliased=pairs
        )

    assert inc([(0, 1)]) == inc([(0, 1)])
    assert hash(inc([(0, 1)])) == hash(inc([(0, 1)]))
    assert inc([(0, 1)]) != inc([(0, 2)])
    assert inc([(0, 1)]) != inc(None)
    assert inc([(0, 1)]).destroyhandler_tolerate_aliased == ((0, 1),)
    assert inc(None).destroyhandler_tolerate_aliased == ()
    assert pickle.loads(pickle.dumps(inc([(0, 1)]))) == inc([(0, 1)])
    with pytest.raises(TypeError, match="pairs"):
        inc([1, 2])


def test_full_takes_a_0d_array_as_one_length():
    got = oxtensor.function([], ot.full(np.array(5), 3, dtype="int64"))()
    np.testing.assert_array_equal(got, np.full(5, 3, dtype="int64"))
    assert ot.zeros(np.array(4)).type.shape == (4,)
