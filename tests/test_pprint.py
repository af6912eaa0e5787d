"""`printing.pprint`: expressions as a user types them."""

import oxtensor.tensor as ot
import pytest
from oxtensor.printing import pprint
from oxtensor.tensor.subtensor import advanced_inc_subtensor, advanced_subtensor


def test_sum_shows_its_axes():
    x = ot.dmatrix("x")
    assert pprint(x.sum(axis=0)) == "sum(x, axis=(0,))"


def test_infix_arithmetic_with_precedence():
    a, b, c = ot.dscalars("a", "b", "c")
    assert pprint((a + b) * c) == "(a + b) * c"
    assert pprint(a - (b - c)) == "a - (b - c)"
    assert pprint(ot.exp(a)) == "exp(a)"


@pytest.mark.parametrize(
    ("index", "text"),
    [
        ((0,), "x[0]"),
        ((slice(None, 2),), "x[:2]"),
        ((slice(0, 2, 2), 0), "x[0:2:2, 0]"),
    ],
)
def test_subtensor(index, text):
    x = ot.tensor4("x")
    assert pprint(x[index]) == text


def test_increments():
    x, z = ot.tensor4("x"), ot.tensor3("z")
    assert pprint(ot.set_subtensor(x[0], z)) == "set_subtensor(x[0], z)"
    idx = ot.ivector("idx")
    assert pprint(advanced_subtensor(x, idx, slice(0, 5))) == "x[idx, 0:5]"
    y = advanced_inc_subtensor(x, z, idx)
    assert pprint(y) == "inc_subtensor(x[idx], z)"
