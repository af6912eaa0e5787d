"""PyTensor's module layout: a function importable from the module PyTensor
keeps it in is the same object as `oxtensor.tensor`'s."""

import importlib

import oxtensor.tensor as ot
import pytest

FORWARDED = {
    "basic": "switch where trace tril triu roll diag second fill zeros_like ones_like",
    "math": "allclose isclose isneginf isposinf logaddexp nan_to_num power",
    "shape": "shape_padright",
    "extra_ops": "broadcast_arrays compress",
}
CASES = [(m, n) for m, names in FORWARDED.items() for n in names.split()]


@pytest.mark.parametrize(("module", "name"), CASES)
def test_pytensor_module_gives_the_same_function(module, name):
    mod = importlib.import_module(f"oxtensor.tensor.{module}")
    assert getattr(mod, name) is getattr(ot, name)


def test_from_import_works_through_the_forwarder():
    from oxtensor.tensor.basic import switch
    from oxtensor.tensor.math import isclose

    assert switch is ot.switch
    assert isclose is ot.isclose


def test_unknown_names_still_raise_attribute_error():
    import oxtensor.tensor.basic as basic

    with pytest.raises(AttributeError, match=r"oxtensor\.tensor\.basic.*no_such_name"):
        basic.no_such_name  # noqa: B018


def test_op_is_reachable_from_tensor():
    # PyTensor users subclass `pytensor.tensor.Op` too; `itypes` then take
    # a more specific input (static length 1 for a vector).
    import numpy as np
    import oxtensor
    from oxtensor.graph.op import Op

    assert ot.Op is Op

    class Twice(ot.Op):
        itypes = (ot.dvector,)
        otypes = (ot.dvector,)

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0] * 2

    x = ot.TensorType("float64", shape=(1,))("x")
    y = Twice()(x)
    assert y.type == ot.dvector
    np.testing.assert_array_equal(oxtensor.function([x], y)(np.array([3.0])), [6.0])
