"""The `Type` base class (anatomy §1.5) and `NullType` (§1.6)."""

import oxtensor.tensor as T
import pytest
from oxtensor.graph.basic import Constant, Variable
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.null_type import NullType, null_type
from oxtensor.graph.type import Type


class Bare(Type):
    """A type that defines nothing."""


class Small(Type):
    """Python ints in ``range(10)``."""

    def filter(self, data, strict=False, allow_downcast=None):
        if isinstance(data, int) and 0 <= data < 10:
            return data
        if not strict and isinstance(data, float) and data.is_integer():
            return self.filter(int(data))
        raise TypeError(f"{data!r} is not a small int")

    def __eq__(self, other):
        return type(other) is Small

    def __hash__(self):
        return hash(Small)

    def __str__(self):
        return "small"


class Level(Type):
    """Levels: a lower level is a supertype of the higher ones."""

    def __init__(self, level):
        self.level = level

    def __eq__(self, other):
        return type(other) is Level and other.level == self.level

    def __hash__(self):
        return hash((Level, self.level))

    def is_super(self, otype):
        return True if type(otype) is Level and self.level <= otype.level else None


def test_convert_variable_to_a_more_specific_type_is_not_implemented():
    # As PyTensor's `Type.convert_variable`: a more specific variable is
    # kept, an unrelated one gives None, a less specific one cannot be
    # converted by the base class.
    ty = Level(1)
    more, same, less = Level(2)(), Level(1)(), Level(0)()
    assert ty.convert_variable(more) is more
    assert ty.convert_variable(same) is same
    assert ty.convert_variable(Bare()()) is None
    with pytest.raises(NotImplementedError, match="more specific type"):
        ty.convert_variable(less)


def test_filter_is_required():
    with pytest.raises(NotImplementedError, match="Bare must define filter"):
        Bare().filter(1)
    with pytest.raises(NotImplementedError, match="Bare must define filter"):
        Bare().make_constant(1)


def test_defaults_of_a_bare_type():
    ty = Bare()
    v = ty("v")
    assert type(v) is Variable
    assert v.type is ty
    assert v.name == "v"
    assert ty.make_variable().type is ty
    assert Bare.variable_type is Variable
    assert ty.constant_type is Constant
    assert ty.in_same_class(ty)
    assert not ty.in_same_class(Bare())  # identity without __eq__
    assert ty.is_super(ty) is True
    assert ty.is_super(Bare()) is None
    assert ty.convert_variable(v) is v
    assert ty.convert_variable(Bare()()) is None
    assert ty.values_eq(1, 1)
    assert not ty.values_eq_approx(1, 2)
    assert isinstance(ty.clone(), Bare)


def test_a_small_type():
    small = Small()
    assert small.filter(3) == 3
    assert small.filter(3.0) == 3
    with pytest.raises(TypeError, match="is not a small int"):
        small.filter(3.0, strict=True)
    assert small.is_valid_value(3)
    assert not small.is_valid_value(3.0)  # strict by default
    assert small.is_valid_value(3.0, strict=False)
    assert not small.is_valid_value(30)
    c = small.make_constant(4, name="four")
    assert type(c) is Constant
    assert (c.data, c.name, str(c)) == (4, "four", "four{4}")
    assert small.filter_variable(7).data == 7
    with pytest.raises(TypeError, match="is not a small int"):
        small.filter_variable(70)


def test_filter_variable_refuses_other_types():
    small = Small()
    v = small("v")
    assert small.filter_variable(v) is v
    with pytest.raises(TypeError) as info:
        small.filter_variable(T.dscalar("d"))
    assert str(info.value) == (
        "Cannot convert Type Scalar(float64, shape=()) (of Variable d) into Type "
        "small. You can try to manually convert d into a small."
    )


def test_null_type():
    assert str(null_type) == repr(null_type) == "NullType"
    assert NullType().why_null == "(no explanation given)"
    assert NullType("because").why_null == "because"
    assert NullType("a") == NullType("b")
    assert hash(NullType("a")) == hash(NullType("b"))
    assert NullType() != T.dscalar
    with pytest.raises(ValueError, match="No values may be assigned to a NullType"):
        null_type.filter(1)
    with pytest.raises(ValueError, match="No values may be assigned to a NullType"):
        null_type.filter_variable(T.dscalar())
    with pytest.raises(ValueError, match="NullType has no values to compare"):
        null_type.values_eq(1, 1)
    assert not null_type.is_valid_value(1)
    v = null_type()
    assert v.type == null_type
    assert str(v) == "<NullType>"


def test_null_type_in_a_function_graph():
    with pytest.raises(TypeError, match=r"Computation graph contains a NaN\. why"):
        FunctionGraph([], [NullType("why")()])
