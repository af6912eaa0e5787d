"""Edits of a node that would break it are refused (`apply_edits.rs` in the
py crate, `graph/node_types.rs` in the core): through the attribute setters
at once, and made inside the lists when the graph is compiled. They used to
be accepted and the compiled function then panicked."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.basic import Apply
from oxtensor.graph.op import Op


def test_inputs_of_another_rank_are_refused():
    x, m = ot.dvector("x"), ot.dmatrix("m")
    y = ot.exp(x)
    with pytest.raises(
        TypeError, match=r"cannot set the inputs of a Exp node: output 0"
    ):
        y.owner.inputs = [m]
    assert y.owner.inputs[0] is x


def test_no_inputs_are_refused():
    x = ot.dvector("x")
    z = x + 1.0
    with pytest.raises(TypeError, match="cannot set the inputs of a Add node"):
        z.owner.inputs = []
    assert len(z.owner.inputs) == 2


def test_inputs_of_the_same_type_are_accepted():
    x, w = ot.dvector("x"), ot.dvector("w")
    y = x + 1.0
    y.owner.inputs = [w, y.owner.inputs[1]]
    f = oxtensor.function([w], y)
    np.testing.assert_array_equal(f(np.zeros(2)), np.ones(2))


def test_edits_inside_the_list_are_refused_when_compiling():
    x, m = ot.dvector("x"), ot.dmatrix("m")
    y = ot.exp(x)
    y.owner.inputs[0] = m
    # Compiling clones the node through the setter, or meets it in the core.
    refused = r"(no longer fits its op|cannot set the inputs of a Exp node).*Matrix"
    with pytest.raises(TypeError, match=refused):
        oxtensor.function([m], y)
    z = x + 1.0
    z.owner.inputs.clear()
    with pytest.raises(
        TypeError, match=r"no longer fits its op|cannot set the inputs of a Add"
    ):
        oxtensor.function([], z)


def test_outputs_must_belong_to_the_node_and_have_its_types():
    x = ot.dvector("x")
    y, other = ot.exp(x), ot.log(x)
    with pytest.raises(ValueError, match="must belong to it"):
        y.owner.outputs = [other]
    with pytest.raises(TypeError, match="cannot set the outputs of a Exp node"):
        y.owner.outputs = [ot.dmatrix()]
    fresh = ot.dvector()
    y.owner.outputs = [fresh]
    assert fresh.owner is y.owner
    assert fresh.index == 0


def test_index_out_of_range_of_the_owner_is_refused():
    x = ot.dvector("x")
    y = ot.exp(x)
    with pytest.raises(
        ValueError, match=r"Variable.index = 3 is out of range: its owner has 1"
    ):
        y.index = 3
    y.index = 0


class Twice(Op):
    """A Python op: its nodes are its own to check, as in PyTensor."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * 2


def test_python_ops_keep_pytensors_freedom():
    x, w = ot.dvector("x"), ot.dvector("w")
    y = Twice()(x)
    y.owner.inputs = [w]
    f = oxtensor.function([w], y)
    np.testing.assert_array_equal(f(np.ones(2)), 2 * np.ones(2))
