"""DebugMode: lying Python ops of each kind are caught with PyTensor's error
names (undeclared view, undeclared destruction, wrong output type, results
that differ from FAST_COMPILE); honest ops, inplace and view ones included,
pass; built-in graphs give FAST_RUN's results; the caller's arrays are never
modified. Also the cheap ``config.check_view_maps`` check, and the names
PyTensor code imports."""

import copy
import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor import config, function
from oxtensor.compile.debug.debugmode import (
    BadDestroyMap,
    BadThunkOutput,
    BadViewMap,
    DebugMode,
    DebugModeError,
    InvalidValueError,
    str_diagnostic,
)

from tests.helpers import UnaryPythonOp, assert_matches


class Doubler(UnaryPythonOp):
    """``2 * x`` on float64 vectors, honestly or not, as ``does`` says:

    * ``"new"``: a new array;
    * ``"view"``: returns ``x`` itself (not doubled), declaring ``view_map = {0: [0]}``;
    * ``"inplace"``: doubles ``x`` in place, declaring ``destroy_map = {0: [0]}``;
    * ``"lying_view"``: returns a view of ``x`` without declaring it;
    * ``"lying_inplace"``: doubles ``x`` in place without declaring it;
    * ``"float32"``: returns float32 for a float64 output;
    * ``"matrix"``: returns a matrix for a vector output;
    * ``"unstable"``: adds how many times it ran.
    """

    __props__ = ("does",)
    calls = 0

    def __init__(self, does):
        self.does = does
        if does == "view":
            self.view_map = {0: [0]}
        if does == "inplace":
            self.destroy_map = {0: [0]}

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        if self.does in ("view", "lying_view"):
            out = x[:]
        elif self.does in ("inplace", "lying_inplace"):
            x *= 2
            out = x
        elif self.does == "float32":
            out = (x * 2).astype("float32")
        elif self.does == "matrix":
            out = (x * 2)[None, :]
        elif self.does == "unstable":
            type(self).calls += 1
            out = x * 2 + type(self).calls
        else:
            out = x * 2
        output_storage[0][0] = out


def compiled(does, direct=False, mode="DebugMode", **kwargs):
    """``Doubler(does)`` of ``-x`` (of ``x`` itself when ``direct``)."""
    x = ot.dvector("x")
    arg = x if direct else -x
    return function(
        [x], Doubler(does)(arg) + 0, mode=mode, accept_inplace=True, **kwargs
    )


@pytest.mark.parametrize(
    ("does", "error"),
    [
        ("lying_view", BadViewMap),
        ("lying_inplace", BadDestroyMap),
        ("float32", InvalidValueError),
        ("matrix", InvalidValueError),
        ("unstable", BadThunkOutput),
    ],
)
def test_each_kind_of_lie_is_caught_with_its_name(does, error):
    f = compiled(does)
    with pytest.raises(error) as info:
        f(np.arange(3.0))
    assert isinstance(info.value, DebugModeError)
    assert "Doubler" in str(info.value)


def test_the_errors_name_node_input_and_output():
    with pytest.raises(BadDestroyMap) as info:
        compiled("lying_inplace")(np.arange(3.0))
    assert info.value.idx == 0
    assert "modified input 0" in str(info.value)
    with pytest.raises(BadViewMap) as info:
        compiled("lying_view")(np.arange(3.0))
    assert info.value.output_idx == 0
    assert info.value.in_alias_idx == [0]


@pytest.mark.parametrize(("does", "factor"), [("new", 2), ("view", 1), ("inplace", 2)])
def test_honest_ops_pass(does, factor):
    f = compiled(does)
    a = np.arange(3.0)
    assert_matches(f(a), -factor * a)
    assert_matches(a, np.arange(3.0))


def test_the_callers_array_is_never_modified():
    # An inplace op on the input itself, which the caller lets it destroy
    # (mutable): DebugMode runs each node on copies, so the array is intact.
    x = ot.dvector("x")
    f = function(
        [oxtensor.In(x, mutable=True)],
        Doubler("inplace")(x),
        mode="DebugMode",
        accept_inplace=True,
    )
    a = np.arange(3.0)
    assert_matches(f(a), 2 * np.arange(3.0))
    assert_matches(a, np.arange(3.0))
    # A lying op is caught and the caller's array is not touched either.
    g = compiled("lying_inplace", direct=True)
    with pytest.raises(BadDestroyMap):
        g(a)
    assert_matches(a, np.arange(3.0))


def graphs():
    """Built-in graphs: elementwise, reductions, dot, subtensors, a gradient."""
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    v = ot.dvector("v")
    cost = (ot.tanh(ot.dot(x, y)) ** 2).sum()
    return {
        "elemwise": ([x, y], [ot.exp(x) * y + 1, ot.log1p(ot.abs(x)) - y / 3]),
        "reduction": (
            [x],
            [x.sum(axis=0), x.max(axis=1), ot.mean(x), x.argmax(axis=1)],
        ),
        "dot": ([x, y, v], [ot.dot(x, y), ot.dot(x, v[:3])]),
        "reshape": ([x, v], [x.reshape((9,)), x.T.flatten(), v.reshape((3, 1))]),
        "subtensor": (
            [x, v],
            [
                x[1:, ::2],
                x.T[0],
                ot.set_subtensor(v[1:3], 0.0),
                ot.inc_subtensor(v[[0, 0]], 1.0),
            ],
        ),
        "grad": ([x, y], oxtensor.grad(cost, [x, y])),
    }


@pytest.mark.parametrize("name", list(graphs()))
def test_built_in_graphs_match_fast_run(name):
    inputs, outputs = graphs()[name]
    rng = np.random.default_rng(0)
    args = [rng.normal(size=(3,) * i.ndim) for i in inputs]
    kept = [a.copy() for a in args]
    debug = function(inputs, outputs, mode="DebugMode")(*args)
    fast = function(inputs, outputs, mode="FAST_RUN")(*args)
    for d, f in zip(debug, fast, strict=True):
        assert_matches(d, f)
    for a, k in zip(args, kept, strict=True):
        assert_matches(a, k)


def test_shared_updates_run_under_debug_mode():
    w = oxtensor.shared(np.ones(3), name="w")
    x = ot.dvector("x")
    f = function([x], (w * x).sum(), updates=[(w, w - 0.5 * x)], mode=DebugMode())
    assert_matches(f(np.arange(3.0)), 3.0)
    assert_matches(w.get_value(), [1.0, 0.5, 0.0])


def test_debug_mode_is_importable_from_pytensors_paths():
    import oxtensor.compile
    import oxtensor.compile.debug
    import oxtensor.compile.debugmode

    for module in (
        oxtensor.compile,
        oxtensor.compile.debug,
        oxtensor.compile.debugmode,
    ):
        assert module.DebugMode is DebugMode
    assert isinstance(DebugMode(), oxtensor.compile.Mode)
    assert DebugMode().checks == "debug"
    assert oxtensor.compile.get_mode("DEBUG_MODE").checks == "debug"
    mode = pickle.loads(pickle.dumps(DebugMode()))
    assert isinstance(mode, DebugMode)
    assert mode.checks == "debug"


def test_pickled_debug_functions_keep_checking():
    f = pickle.loads(pickle.dumps(compiled("lying_view")))
    with pytest.raises(BadViewMap):
        f(np.arange(3.0))


def test_the_cheap_check_catches_undeclared_views():
    with config.change_flags(check_view_maps=True):
        lying = compiled("lying_view", mode="FAST_RUN")
        honest = compiled("view", mode="FAST_RUN")
        inplace = compiled("inplace", mode="FAST_RUN")
    with pytest.raises(BadViewMap):
        lying(np.arange(3.0))
    assert_matches(honest(np.arange(3.0)), -np.arange(3.0))
    assert_matches(inplace(np.arange(3.0)), -2 * np.arange(3.0))
    # Off, nothing is checked.
    assert_matches(
        compiled("lying_view", mode="FAST_RUN")(np.arange(3.0)), -np.arange(3.0)
    )


def test_the_cheap_check_passes_built_in_graphs():
    with config.change_flags(check_view_maps=True):
        for name, (inputs, outputs) in graphs().items():
            args = [np.ones((3,) * i.ndim) for i in inputs]
            want = function(inputs, outputs, mode="FAST_RUN")(*args)
            with_check = function(inputs, outputs, mode="FAST_RUN")
            assert with_check.maker is not None, name
            for got, w in zip(with_check(*args), want, strict=True):
                assert_matches(got, w)


def test_str_diagnostic_reports_the_differences():
    text = str_diagnostic(np.array([1.0, 2.0]), np.array([1.0, 2.5]), 1e-5, 1e-8)
    assert "Max abs diff: 0.5" in text
    assert "rtol=1e-05" in text


def test_allclose_uses_the_tolerance_of_the_narrower_dtype():
    from oxtensor.tensor.math import _allclose

    assert _allclose(np.float32(1.0), np.float32(1.00005))
    assert not _allclose(1.0, 1.00005)
    assert _allclose(1.0, 1.00005, rtol=1e-3)
    assert _allclose(np.ones(2, "complex64"), np.ones(2, "complex64"))


def test_the_names_pytensors_test_helpers_import_exist():
    # `tests/unittest_tools.py` and the tensor tests import these at module
    # level; a missing one blocks a whole file.
    from oxtensor.compile import get_default_mode
    from oxtensor.compile.maker import UnusedInputError, function
    from oxtensor.tensor.type import complex_dtypes, discrete_dtypes, float_dtypes

    assert function is oxtensor.function
    assert issubclass(UnusedInputError, Exception)
    # `tests/tensor/utils.py` sets an attribute on a copy of the default mode.
    mode = copy.copy(get_default_mode())
    mode.check_isfinite = False
    assert mode.check_isfinite is False
    assert float_dtypes == ["float16", "float32", "float64"]
    assert complex_dtypes == ["complex64", "complex128"]
    assert discrete_dtypes[0] == "bool"
    assert len(discrete_dtypes) == 9
