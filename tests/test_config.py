"""``oxtensor.config``: options, ``change_flags``, the environment's flags,
and the options that change what compiling and graph building do."""

import os
import subprocess

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.compile.function import UnusedInputError
from oxtensor.compile.mode import get_default_mode, optdb
from oxtensor.configdefaults import config
from oxtensor.configparser import parse_config_string
from oxtensor.graph.rewriting.basic import node_rewriter

from tests.helpers import run_python


def test_config_is_one_object_under_both_names():
    assert oxtensor.config is config
    assert config.floatX == "float64"
    assert config.mode == "Mode"
    assert config.on_unused_input == "raise"


def test_invalid_values_and_unknown_options_are_refused_with_their_names():
    with pytest.raises(ValueError, match=r"'floatX'.*'float64', 'float32'"):
        config.floatX = "int32"
    with pytest.raises(AttributeError, match="no option 'no_such_option'"):
        config.no_such_option = 1
    with pytest.raises(AttributeError, match="no option 'no_such_option'"):
        config.change_flags(no_such_option=1)
    with pytest.raises(ValueError, match="takes a bool"):
        config.profile = "sometimes"
    assert config.floatX == "float64"


def test_change_flags_restores_after_a_block_a_call_and_an_exception():
    with config.change_flags(floatX="float32"):
        assert config.floatX == "float32"
    assert config.floatX == "float64"

    @config.change_flags({"on_unused_input": "ignore"})
    def inside():
        return config.on_unused_input

    assert inside() == "ignore"
    assert config.on_unused_input == "raise"
    with pytest.raises(RuntimeError), config.change_flags(floatX="float32"):
        raise RuntimeError
    assert config.floatX == "float64"


def test_float32_floatx_reaches_constructors_constants_and_division():
    with config.change_flags(floatX="float32"):
        assert ot.matrix("m").dtype == "float32"
        assert ot.tensor(shape=(None,)).dtype == "float32"
        assert ot.zeros((2,)).dtype == "float32"
        # The autocaster tries dtypes up to floatX: 0.1 is not exact in
        # float32 but becomes float32.
        assert ot.as_tensor_variable(0.1).dtype == "float32"
        i, j = ot.iscalar("i"), ot.iscalar("j")
        assert (i / j).dtype == "float32"
        x = ot.vector("x")
        f = oxtensor.function([x], x * 0.5)
        out = f(np.ones(3, dtype="float32"))
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out, np.full(3, 0.5, dtype="float32"))
    assert ot.matrix("m").dtype == "float64"
    assert ot.as_tensor_variable(0.1).dtype == "float64"


def test_the_default_mode_follows_the_mode_and_optimizer_options():
    x = ot.dvector("x")
    y = ot.log(1 + x)

    def printed():
        return oxtensor.dprint(oxtensor.function([x], y), file="str")

    assert "Log1p" in printed()
    with config.change_flags(mode="FAST_COMPILE"):
        assert "Log1p" not in printed()
    with config.change_flags(optimizer="fast_compile"):
        assert "Log1p" not in printed()
    with config.change_flags(optimizer_excluding="local_log1p"):
        assert "Log1p" not in printed()
    with config.change_flags(optimizer="None", optimizer_including="local_log1p"):
        assert get_default_mode().provided_optimizer == "None"
    with pytest.raises(ValueError, match="unknown mode 'NoSuchMode'"):
        with config.change_flags(mode="NoSuchMode"):
            oxtensor.function([x], y)


def test_on_unused_input_and_profile_defaults():
    x, y = ot.dvector("x"), ot.dvector("y")
    with pytest.raises(UnusedInputError):
        oxtensor.function([x, y], x * 2)
    with config.change_flags(on_unused_input="ignore"):
        f = oxtensor.function([x, y], x * 2)
    np.testing.assert_array_equal(f(np.ones(2), np.ones(2)), np.full(2, 2.0))
    with config.change_flags(profile=True):
        g = oxtensor.function([x], x * 2)
    assert g.profile is not None
    assert "Rewriter Profile" not in g.profile.summary()


def test_profile_optimizer_adds_the_rewrites_table():
    x = ot.dvector("x")
    # Decided when compiling, as in PyTensor.
    with config.change_flags(profile_optimizer=True):
        f = oxtensor.function([x], ot.exp(x) * 2, profile=True)
    text = f.profile.summary()
    assert "Rewriter Profile" in text
    # The table lists the passes that ran while compiling.
    assert text.split("Rewriter Profile")[1].strip()


@pytest.fixture
def failing_rewriter():
    @node_rewriter([ot.exp])
    def config_test_fails(fgraph, node):
        raise RuntimeError("config_test boom")

    optdb["canonicalize"].register("config_test_fails", config_test_fails, "fast_run")
    yield
    optdb["canonicalize"].remove("config_test_fails")


@pytest.mark.usefixtures("failing_rewriter")
def test_on_opt_error_decides_what_a_failing_rewriter_does():
    x = ot.dvector("x")
    with pytest.warns(UserWarning, match="config_test_fails"):
        oxtensor.function([x], ot.exp(x))
    with config.change_flags(on_opt_error="raise"):
        with pytest.raises(Exception, match="config_test boom"):
            oxtensor.function([x], ot.exp(x))
    with config.change_flags(on_opt_error="ignore"):
        f = oxtensor.function([x], ot.exp(x))
    np.testing.assert_allclose(f(np.zeros(2)), np.ones(2))


def test_flag_strings_parse_as_pytensor_writes_them():
    assert parse_config_string("floatX=float32, mode=FAST_COMPILE,profile") == {
        "floatX": "float32",
        "mode": "FAST_COMPILE",
        "profile": "True",
    }


def _config_in_subprocess(
    env_flags: dict[str, str], code: str
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_FLAGS")}
    env.update(env_flags)
    return run_python(code, env)


def test_the_environment_sets_options_at_import():
    code = "import oxtensor; c = oxtensor.config; print(c.floatX, c.mode, c.profile)"
    run = _config_in_subprocess(
        {"PYTENSOR_FLAGS": "floatX=float32,mode=FAST_RUN"}, code
    )
    assert run.stdout.split() == ["float32", "FAST_RUN", "False"]
    both = {
        "PYTENSOR_FLAGS": "floatX=float32",
        "OXTENSOR_FLAGS": "floatX=float64,profile=1",
    }
    run = _config_in_subprocess(both, code)
    assert run.stdout.split() == ["float64", "Mode", "True"]
    run = _config_in_subprocess({"OXTENSOR_FLAGS": "no_such_flag=1"}, "import oxtensor")
    assert "unknown config options: no_such_flag" in run.stderr
