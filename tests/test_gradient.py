"""`oxtensor.gradient`: the markers ops' gradients use (`DisconnectedType`,
`grad_undefined`, `grad_not_implemented`). The driver's rules are in
`test_grad_rules.py`, the built-in ops' gradients in
`tensor/test_grad_builtin_ops.py`."""

import oxtensor.tensor as T
import pytest
from oxtensor.gradient import (
    DisconnectedType,
    disconnected_type,
    grad_not_implemented,
    grad_undefined,
)
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.null_type import NullType

PLACEHOLDER = (
    "If you're assigning to a DisconnectedType you're doing something wrong. "
    "It should only be used as a symbolic placeholder."
)


def test_disconnected_type():
    assert str(disconnected_type) == repr(disconnected_type) == "DisconnectedType"
    assert DisconnectedType() == disconnected_type
    assert hash(DisconnectedType()) == hash(disconnected_type)
    assert disconnected_type != NullType()
    v = disconnected_type()
    assert isinstance(v.type, DisconnectedType)
    assert str(v) == "<DisconnectedType>"


def test_disconnected_type_has_no_values():
    with pytest.raises(AssertionError, match="symbolic placeholder"):
        disconnected_type.filter(1)
    with pytest.raises(AssertionError) as info:
        disconnected_type.filter_variable(T.dscalar())
    assert str(info.value) == PLACEHOLDER


def test_disconnected_variables_are_free_variables():
    with pytest.raises(Exception, match="Undeclared input: <DisconnectedType>"):
        FunctionGraph([], [disconnected_type()])


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (grad_undefined, "mathematically undefined"),
        (grad_not_implemented, "not implemented"),
    ],
)
def test_null_gradients(make, words):
    x = T.dscalar("x")
    g = make(T.exp, 0, x, "see the docs")
    assert isinstance(g.type, NullType)
    assert g.owner is None
    why = g.type.why_null
    assert why.startswith(
        "This variable is Null because the grad method for input 0 (x)"
    )
    assert "of the Exp op" in why
    assert words in why
    assert why.endswith("see the docs")
