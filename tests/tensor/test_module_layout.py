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
