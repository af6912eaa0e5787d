"""DebugMode's ``check_preallocated_output``: each node runs again with its
output storage already holding arrays of the kinds asked for (PyTensor's
names: ``initial``, ``previous``, ``c_contiguous``, ``f_contiguous``,
``strided``, ``wrong_size``, ``ALL``), and a result that changes is a
``BadThunkOutput``. A Python op that trusts what it finds in its output
storage is caught; one that checks it, and the built-in ops, pass. The
kinds come from the argument or from
``config.DebugMode__check_preallocated_output``."""

import pickle

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import config, function
from oxtensor.compile.debug.debugmode import BadThunkOutput, DebugMode

from tests.helpers import UnaryPythonOp, assert_matches

KINDS = ["initial", "previous", "c_contiguous", "f_contiguous", "strided", "wrong_size"]


class Twice(UnaryPythonOp):
    """``2 * x``, reusing its output storage: blindly (``trusting``: it adds
    into whatever is there, as if it were zeros of the right shape) or
    after checking its shape (honest)."""

    __props__ = ("trusting",)

    def __init__(self, trusting):
        self.trusting = trusting

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        z = output_storage[0][0]
        if self.trusting:
            if z is None:
                z = np.zeros_like(x)
            z[...] += 2 * x if z.shape == x.shape else 0
        else:
            if z is None or z.shape != x.shape:
                z = np.empty_like(x)
            np.multiply(x, 2, out=z)
        output_storage[0][0] = z


def twice(trusting, mode):
    x = ot.dmatrix("x")
    return function([x], Twice(trusting)(x) + 1, mode=mode)


ARG = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("kind", KINDS[1:])
def test_an_op_trusting_its_output_storage_is_caught(kind):
    f = twice(True, DebugMode(check_preallocated_output=[kind]))
    with pytest.raises(BadThunkOutput) as info:
        f(ARG)
    msg = str(info.value)
    assert "Twice" in msg, msg
    assert f"with {kind}" in msg, msg
    assert "differs from its run without preallocated outputs" in msg
    assert info.value.thunk2.endswith("output storage")


def test_with_empty_storage_the_trusting_op_passes():
    for mode in (DebugMode(), DebugMode(check_preallocated_output=["initial"])):
        assert_matches(twice(True, mode)(ARG), 2 * ARG + 1)


@pytest.mark.parametrize("kind", [*KINDS, "ALL"])
def test_an_op_checking_its_output_storage_passes(kind):
    f = twice(False, DebugMode(check_preallocated_output=[kind]))
    assert_matches(f(ARG), 2 * ARG + 1)


def test_built_in_ops_pass_every_kind():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    outs = [
        ot.exp(x) * y + 1,
        ot.sum(x, axis=0),
        ot.dot(x, x.T),
        x.T[::-1],
        ot.sort(x, axis=1),
        ot.cumsum(x, axis=1),
        ot.concatenate([x, x], axis=0),
        ot.argmax(x, axis=1),
    ]
    f = function([x, y], outs, mode=DebugMode(check_preallocated_output="ALL"))
    a, b = np.arange(6.0).reshape(2, 3) - 2.5, np.array([1.0, -2.0, 0.5])
    got = f(a, b)
    want = [
        np.exp(a) * b + 1,
        a.sum(axis=0),
        a @ a.T,
        a.T[::-1],
        np.sort(a, axis=1),
        np.cumsum(a, axis=1),
        np.concatenate([a, a]),
        np.argmax(a, axis=1),
    ]
    for g, w in zip(got, want, strict=True):
        assert_matches(g, w)


def test_the_config_option_names_the_kinds():
    kinds = "previous:c_contiguous"
    with config.change_flags(DebugMode__check_preallocated_output=kinds):
        f = twice(True, "DebugMode")
        with pytest.raises(BadThunkOutput, match="with previous output storage"):
            f(ARG)
        assert DebugMode().check_preallocated_output == ["previous", "c_contiguous"]
    assert DebugMode().check_preallocated_output == []
    assert_matches(twice(True, "DebugMode")(ARG), 2 * ARG + 1)


def test_unknown_kinds_are_refused_by_name():
    msg = 'unknown check_preallocated_output kind "sideways"'
    with pytest.raises(ValueError, match=msg):
        DebugMode(check_preallocated_output=["sideways"])


def test_the_kinds_survive_pickling():
    mode = pickle.loads(pickle.dumps(DebugMode(check_preallocated_output=["previous"])))
    assert mode.check_preallocated_output == ["previous"]
    with pytest.raises(BadThunkOutput):
        twice(True, mode)(ARG)
