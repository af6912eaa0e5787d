"""`get_vector_length` and the dense-variable markers (PyTensor 3.x names)."""

import numpy as np
import oxtensor
import oxtensor.tensor as pt
import pytest
from oxtensor.graph import rewrite_graph
from oxtensor.tensor import get_vector_length
from oxtensor.tensor.type import TensorType
from oxtensor.tensor.variable import (
    DenseTensorConstant,
    DenseTensorVariable,
    TensorVariable,
)


@pytest.mark.parametrize(
    ("build", "length"),
    [
        (lambda: oxtensor.shared(np.zeros((2, 3, 4, 5))).shape, 4),
        (lambda: pt.specify_shape(pt.ivector(), (10,)), 10),
        (lambda: pt.stack([pt.scalar(), pt.scalar(), pt.scalar()]), 3),
        (lambda: pt.matrix().shape[1:], 1),
        (lambda: pt.concatenate([pt.vector(shape=(2,)), pt.vector(shape=(3,))]), 5),
        (lambda: TensorVariable(TensorType("int64", shape=(4,)), None), 4),
        (lambda: [1, 2, 3], 3),
    ],
)
def test_known_lengths(build, length):
    assert get_vector_length(build()) == length


def test_unknown_length_is_a_value_error():
    with pytest.raises(ValueError, match="cannot be determined"):
        get_vector_length(pt.vector("v"))


def test_a_matrix_is_a_type_error_naming_its_type():
    with pytest.raises(TypeError, match="must be a vector; got Matrix"):
        get_vector_length(pt.matrix())


def test_dense_markers_check_the_exact_class():
    assert isinstance(pt.matrix(), DenseTensorVariable)
    assert not isinstance(pt.matrix(), DenseTensorConstant)
    c = pt.constant(1)
    assert isinstance(c, TensorVariable)
    assert not isinstance(c, DenseTensorVariable)
    assert isinstance(c, DenseTensorConstant)


def test_rewrite_graph_is_importable_from_graph():
    x = pt.vector("x")
    assert rewrite_graph(pt.log(pt.exp(x))) is x
