"""`set_subtensor`/`inc_subtensor` write into `x` itself when `x` is an
intermediate the step reads last and nothing else holds its memory
(`vm/donation.rs`); otherwise they copy. Every alias the graph does not
show must keep its values: the caller's arrays, outputs, views in other
slots, arrays a Python op kept."""

import numpy as np
import oxtensor.tensor as ot
from oxtensor import function, grad
from oxtensor.graph.basic import Apply
from oxtensor.graph.op import Op


class Keep(Op):
    """Returns the sum of its input and keeps the input array itself."""

    __props__ = ()

    def __init__(self):
        self.kept = []

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [ot.dscalar()])

    def perform(self, node, inputs, output_storage):
        self.kept.append(inputs[0])
        output_storage[0][0] = np.asarray(inputs[0].sum())


def test_diag_of_a_vector_over_repeated_calls():
    v = ot.dvector("v")
    f = function([v], ot.diag(v))
    for n in (1, 5, 300, 5):
        x = np.arange(1.0, n + 1)
        np.testing.assert_array_equal(f(x), np.diag(x))
        np.testing.assert_array_equal(x, np.arange(1.0, n + 1))


def test_the_callers_array_is_never_written():
    x = ot.dmatrix("x")
    f = function([x], [ot.set_subtensor(x[0], 5.0), ot.inc_subtensor(x[[0, 0]], 1.0)])
    xv = np.arange(6.0).reshape(2, 3)
    set_, inc = f(xv)
    np.testing.assert_array_equal(xv, np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(set_[0], [5.0, 5.0, 5.0])
    np.testing.assert_array_equal(inc[0], [2.0, 3.0, 4.0])


def test_an_intermediate_that_is_also_an_output_keeps_its_values():
    x = ot.dvector("x")
    a = x * 2
    f = function([x], [a, ot.set_subtensor(a[1:], 0.0)])
    a_val, b_val = f(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(a_val, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(b_val, [2.0, 0.0, 0.0])


def test_a_view_in_another_slot_keeps_its_values():
    x = ot.dmatrix("x")
    a = x + 1
    f = function([x], [a.T, ot.inc_subtensor(a[0], 10.0), a[:, 1]])
    xv = np.zeros((2, 3))
    t, inc, col = f(xv)
    np.testing.assert_array_equal(t, np.ones((3, 2)))
    np.testing.assert_array_equal(col, [1.0, 1.0])
    np.testing.assert_array_equal(inc, [[11.0] * 3, [1.0] * 3])


def test_an_array_a_python_op_kept_keeps_its_values():
    keep = Keep()
    x = ot.dvector("x")
    a = x * 2
    # `Keep` must run first: the increment reads its output.
    out = ot.inc_subtensor(a[[0, 1]], keep(a))
    f = function([x], out)
    got = f(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(got, [14.0, 16.0, 6.0])
    np.testing.assert_array_equal(keep.kept[-1], [2.0, 4.0, 6.0])


def test_gradients_of_indexing_scatter_into_fresh_zeros():
    x = ot.dmatrix("x")
    cost = (x[[0, 2, 0]] ** 2).sum() + x[1:, ::2].sum()
    f = function([x], grad(cost, x))
    xv = np.arange(12.0).reshape(3, 4)
    want = np.zeros_like(xv)
    np.add.at(want, [0, 2, 0], 2 * xv[[0, 2, 0]])
    want[1:, ::2] += 1.0
    for _ in range(2):
        np.testing.assert_array_equal(f(xv), want)
