"""The `DeepCopyOp`s ending a compiled graph (PyTensor's `insert_deepcopy`):
an output that would alias an input, a constant or a later output gets
one; a computed or borrowed output does not."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from oxtensor.compile.io import In, Out
from oxtensor.compile.ops import DeepCopyOp
from oxtensor.tensor.shape import specify_shape


def _ops(f):
    return [type(n.op).__name__ for n in f.maker.fgraph.toposort()]


def test_a_shared_variable_output_is_copied_by_a_node():
    s = oxtensor.shared(np.ones((4, 2)))
    f = oxtensor.function([], s)
    assert _ops(f) == ["DeepCopyOp"]
    out = f()
    assert not np.may_share_memory(out, s.get_value(borrow=True))
    g = oxtensor.function([], specify_shape(s, (4, 2)))
    assert _ops(g) == ["SpecifyShape", "DeepCopyOp"]
    assert isinstance(g.maker.fgraph.outputs[0].owner.op, DeepCopyOp)


def test_a_constant_output_is_copied_and_a_borrowed_one_is_the_constant():
    c = ot.constant(np.array([4]))
    f = oxtensor.function([], c)
    assert _ops(f) == ["DeepCopyOp"]
    out = f()
    out[0] = 3
    assert f()[0] == 4
    g = oxtensor.function([], Out(c, borrow=True))
    assert _ops(g) == []
    first = g()
    assert g() is first


def test_computed_and_borrowed_outputs_get_no_copy():
    x = ot.dvector("x")
    assert _ops(oxtensor.function([x], x + 1)) == ["Elemwise"]
    f = oxtensor.function([In(x, borrow=True)], Out(x, borrow=True))
    assert _ops(f) == []
    a = np.arange(3.0)
    assert np.shares_memory(f(a), a)
    g = oxtensor.function([x], x)
    assert _ops(g) == ["DeepCopyOp"]
    assert not np.shares_memory(g(a), a)


def test_an_output_repeated_later_is_copied_once():
    x = ot.dvector("x")
    y = ot.exp(x)
    f = oxtensor.function([x], [y, y])
    assert _ops(f).count("DeepCopyOp") == 1
    first, second = f(np.zeros(2))
    assert not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, second)


def test_a_view_of_an_input_is_copied_and_an_updated_input_is_not():
    x = ot.dmatrix("x")
    f = oxtensor.function([x], x.T)
    assert _ops(f)[-1] == "DeepCopyOp"
    a = np.ones((2, 3))
    assert not np.shares_memory(f(a), a)
    s = oxtensor.shared(np.zeros(3))
    g = oxtensor.function([], s, updates={s: s + 1})
    assert "DeepCopyOp" not in _ops(g)
    np.testing.assert_array_equal(g(), np.zeros(3))
    np.testing.assert_array_equal(s.get_value(), np.ones(3))
