"""config.cast_policy: PyTensor's "custom" autocasting and "numpy+floatX"."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor.configdefaults import config


@pytest.mark.parametrize("value", [0, 1, 127, -129, 2**40, 2**63 - 1])
def test_numpy_policy_makes_python_ints_int64(value):
    with config.change_flags(cast_policy="numpy+floatX"):
        assert ot.constant(value).dtype == "int64"


@pytest.mark.parametrize("floatx", ["float32", "float64"])
def test_numpy_policy_makes_python_floats_floatx(floatx):
    with config.change_flags(cast_policy="numpy+floatX", floatX=floatx):
        assert ot.constant(1.5).dtype == floatx
        assert ot.constant(1.1).dtype == floatx
        # A NumPy value keeps its own dtype.
        assert ot.constant(np.float64(1.5)).dtype == "float64"


@pytest.mark.parametrize(
    ("value", "dtype"),
    [(1, "int8"), (-129, "int16"), (2**40, "int64"), (2**63, "uint64")],
)
def test_custom_policy_ints_take_the_narrowest_dtype(value, dtype):
    assert ot.constant(value).dtype == dtype


def test_custom_policy_is_the_default_autocaster():
    assert config.cast_policy == "custom"
    assert ot.constant(1).dtype == "int8"
    assert ot.constant(1.5).dtype == "float32"
    assert ot.constant(1.1).dtype == "float64"


def test_policy_restored_after_the_block():
    with config.change_flags(cast_policy="numpy+floatX"):
        pass
    assert ot.constant(1).dtype == "int8"


@pytest.mark.parametrize(
    "dtype", ["int8", "uint16", "int32", "float32", "float64", "uint64"]
)
def test_numpy_policy_arange_dtype_is_numpys(dtype):
    with config.change_flags(cast_policy="numpy+floatX"):
        got = ot.arange(ot.scalar(dtype=dtype)).dtype
    want = np.arange(np.array(1, dtype=dtype)).dtype
    assert got == want


def test_numpy_policy_arange_float64_becomes_floatx():
    with config.change_flags(cast_policy="numpy+floatX", floatX="float32"):
        assert (
            ot.arange(ot.scalar(dtype="int32"), ot.scalar(dtype="float32")).dtype
            == "float32"
        )
        assert ot.arange(ot.scalar(dtype="float64")).dtype == "float64"


def test_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="cast_policy"):
        config.cast_policy = "numpy"


@pytest.mark.parametrize("policy", ["custom", "numpy+floatX"])
def test_numpy_scalars_keep_their_dtype(policy):
    with config.change_flags(cast_policy=policy, floatX="float32"):
        assert ot.constant(np.float64(0.0)).dtype == "float64"
        assert ot.as_tensor_variable(np.float64(1.5)).dtype == "float64"
        assert ot.constant(np.float32(1.5)).dtype == "float32"
