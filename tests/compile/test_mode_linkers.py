"""A mode's linker as PyTensor's linker object, and linker objects given to
`Mode`."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.compile.mode import Mode, get_default_mode
from oxtensor.configdefaults import config
from oxtensor.link.basic import PerformLinker
from oxtensor.link.c.basic import OpWiseCLinker
from oxtensor.link.jax import JAXLinker
from oxtensor.link.modes import DebugModeLinker
from oxtensor.link.numba import NumbaLinker
from oxtensor.link.vm import VMLinker


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("py", PerformLinker),
        ("c|py", OpWiseCLinker),
        ("c|py_nogc", OpWiseCLinker),
        ("vm", VMLinker),
        ("vm_nogc", VMLinker),
        ("cvm", VMLinker),
        ("numba", NumbaLinker),
        ("jax", JAXLinker),
    ],
)
def test_linker_object_of_each_name(name, cls):
    mode = Mode(name, "fast_run")
    assert type(mode.linker) is cls
    assert mode.linker_name == name
    assert mode.linker.fgraph is None
    assert mode.linker.allow_gc is (False if name.endswith("_nogc") else None)


def test_compiled_function_reports_its_linker_class():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    seen = set()
    for mode in ["FAST_COMPILE", "FAST_RUN", "DEBUG_MODE", Mode("py"), Mode("numba")]:
        f = oxtensor.function([x, y], x + y, mode=mode)
        np.testing.assert_array_equal(f([[1, 2], [3, 4]], [5, 6]), [[6, 8], [8, 10]])
        seen.add(type(f.maker.mode.linker))
        assert type(f.maker.linker) is type(f.maker.mode.linker)  # FunctionMaker.linker
    assert seen == {VMLinker, DebugModeLinker, PerformLinker, NumbaLinker}


def test_mode_takes_a_linker_object():
    mode = Mode(linker=PerformLinker(), optimizer="fast_compile")
    assert mode.linker_name == "py"
    assert isinstance(mode.linker, PerformLinker)
    x = ot.dvector("x")
    assert oxtensor.function([x], x * 2, mode=mode)([1.0]) == [2.0]


def test_mode_refuses_other_linker_arguments():
    with pytest.raises(
        TypeError, match="linker must be a linker name or a Linker object"
    ):
        Mode(linker=3)


def test_config_mode_jax_gives_a_jax_linker():
    assert not isinstance(get_default_mode().linker, JAXLinker)
    with config.change_flags(mode="JAX"):
        assert isinstance(get_default_mode().linker, JAXLinker)
    assert not isinstance(get_default_mode().linker, JAXLinker)


@pytest.mark.parametrize("linker", ["pytorch", "mlx"])
def test_backends_oxtensor_does_not_have(linker):
    with pytest.raises(NotImplementedError, match=f"the '{linker}' linker"):
        Mode(linker=linker)
