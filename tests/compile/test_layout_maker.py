"""PyTensor 3.x's compile layout: `compile.maker`, `link.basic.Container`,
the re-exports of `oxtensor.compile`."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.compile import FunctionMaker, get_default_mode, optdb
from oxtensor.compile.maker import UnusedInputError, function
from oxtensor.compile.mode import get_mode
from oxtensor.link.basic import Container
from oxtensor.utils import PYTHON_INT_BITWIDTH


def test_maker_function_is_the_function():
    assert function is oxtensor.function
    x = ot.dvector("x")
    with pytest.raises(UnusedInputError):
        function([x, ot.dvector("y")], x)


def test_function_maker_creates_working_functions():
    x = ot.dvector("x")
    maker = FunctionMaker([x], x * 3 + 1)
    f, g = maker.create(), maker.create()
    v = np.arange(4.0)
    np.testing.assert_array_equal(f(v), v * 3 + 1)
    np.testing.assert_array_equal(g(v), v * 3 + 1)
    assert f is not g
    assert [i.variable for i in maker.inputs] == [x]
    assert len(maker.fgraph.outputs) == 1


def test_default_mode_and_optdb_reexported():
    assert repr(get_default_mode()) == repr(get_mode(None))
    assert optdb is oxtensor.compile.mode.optdb


def test_container_slot_is_shared_and_filtered():
    x = ot.dscalar("x")
    storage = [np.array(0.0)]
    c = Container(x, storage)
    c.value = 3
    assert storage[0] == 3.0
    assert storage[0].dtype == np.float64
    assert c.type == x.type
    assert c.name == "x"
    ro = Container(x, [np.array(1.0)], readonly=True)
    with pytest.raises(Exception, match="readonly"):
        ro.value = 2.0
    with pytest.raises(TypeError):
        Container(x, [])


def test_shared_variable_storage_is_its_container():
    s = oxtensor.shared(np.zeros(2), "s")
    f = oxtensor.function([], [], updates=[(s, s + 1)])
    f()
    np.testing.assert_array_equal(s.container.storage[0], [1.0, 1.0])
    assert s.get_value(borrow=True) is s.container.storage[0]


def test_python_int_bitwidth():
    assert np.array(1).dtype.itemsize * 8 == PYTHON_INT_BITWIDTH


def test_in_refuses_an_update_of_another_rank():
    a = ot.dscalar("a")
    with pytest.raises(TypeError, match="another rank"):
        oxtensor.In(a, update=ot.dvector("b"))
    s = oxtensor.shared(np.zeros(2))
    f = oxtensor.function([], [], updates=[(s, s + 1)])
    f()
    np.testing.assert_array_equal(s.get_value(), [1.0, 1.0])
    oxtensor.In(a, update=a + 1)
