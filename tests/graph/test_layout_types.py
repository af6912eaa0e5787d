"""`link.c.type.Generic` (any Python object) and `tensor.type_other`
(`NoneTypeT`, `NoneConst`)."""

import oxtensor
import pytest
from oxtensor.graph.basic import equal_computations
from oxtensor.link.c.type import Generic, generic
from oxtensor.tensor.type_other import NoneConst, NoneTypeT


def test_generic_holds_any_object_through_a_function():
    g = generic("g")
    assert g.type == Generic()
    assert hash(g.type) == hash(Generic())
    value = {"a": [1, 2]}
    assert oxtensor.function([g], g)(value) == value
    assert generic.filter(value) is value


def test_none_const():
    assert NoneConst.data is None
    assert NoneConst.type == NoneTypeT()
    assert equal_computations([NoneConst], [NoneConst])
    with pytest.raises(TypeError, match="not None"):
        NoneTypeT().filter(0)
