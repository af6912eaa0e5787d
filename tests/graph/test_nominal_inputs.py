"""`NominalVariable`s are atomic, as constants: a `FunctionGraph` holds
them without declaring them as inputs (PyTensor's `AtomicVariable`)."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.nominal import NominalVariable
from oxtensor.graph.utils import MissingInputError
from oxtensor.tensor.type import TensorType


def test_nominal_variables_are_not_inputs_but_are_variables():
    t = TensorType("float64", (None,))
    a, b = NominalVariable(1, t), NominalVariable(2, t)
    x = ot.dvector("x")
    out = a * b + x
    fg = FunctionGraph(outputs=[out], clone=False)
    assert fg.inputs == [x]
    assert a in fg.variables
    assert b in fg.variables
    assert fg.check_integrity() is None


def test_a_plain_free_variable_is_still_a_missing_input():
    t = TensorType("float64", (None,))
    x, y = ot.dvector("x"), ot.dvector("y")
    with pytest.raises(MissingInputError):
        FunctionGraph([x], [x + y + NominalVariable(3, t)], clone=False)
    fg = FunctionGraph([x], [x + NominalVariable(3, t)], clone=False)
    assert fg.inputs == [x]


def test_a_function_needing_an_undeclared_nominal_variable_is_refused():
    t = TensorType("float64", (None,))
    nm = NominalVariable(4, t)
    with pytest.raises(MissingInputError, match="nominal variable"):
        oxtensor.function([], nm * 2)
    f = oxtensor.function([nm], nm * 2)
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
