"""``mode="JAX"`` as a whole: modes, shared variable updates, givens,
arguments by name, the export to a pure JAX callable, the error for an
op without a JAX implementation, and JAX staying optional."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.link.jax import SKIP_REASON

jax = pytest.importorskip("jax", reason=SKIP_REASON)

import oxtensor  # noqa: E402
import oxtensor.tensor as ot  # noqa: E402
from oxtensor.compile.mode import Mode  # noqa: E402
from oxtensor.graph.basic import Apply  # noqa: E402
from oxtensor.graph.op import Op  # noqa: E402
from oxtensor.link.jax import JAXUnsupportedError, as_jax_function, jax_funcify  # noqa: E402

from tests.link.jax.compare import compare  # noqa: E402


def test_mode_objects_and_names() -> None:
    x = ot.dvector("x")
    for mode in [
        "JAX",
        Mode(linker="jax"),
        Mode("jax", "fast_run").excluding("canonicalize"),
    ]:
        f = oxtensor.function([x], x * 2, mode=mode)
        np.testing.assert_array_equal(np.asarray(f(np.arange(3.0))), [0.0, 2.0, 4.0])


def test_the_config_may_choose_jax() -> None:
    from oxtensor.configdefaults import config
    from oxtensor.link.jax import JAXFunction

    x = ot.dvector("x")
    for flags in ({"mode": "JAX"}, {"linker": "jax", "allow_gc": False}):
        with config.change_flags(**flags):
            assert isinstance(oxtensor.function([x], x + 1), JAXFunction), flags


def test_the_jax_query_leaves_out_inplace_and_fusion() -> None:
    x = ot.dvector("x")
    f = oxtensor.function([x], ot.exp(x) * 2 + ot.sin(x), mode="JAX")
    for node in f.maker.fgraph.apply_nodes:
        assert type(node.op.scalar_op).__name__ != "Composite"
        assert not node.op.destroy_map


def test_shared_updates_and_givens() -> None:
    w = oxtensor.shared(np.ones(3), name="w")
    x, y = ot.dvector("x"), ot.dvector("y")
    f = oxtensor.function([x], (w * x).sum(), updates=[(w, w - 0.5 * x)], mode="JAX")
    assert float(f(np.arange(3.0))) == 3.0
    np.testing.assert_allclose(w.get_value(), [1.0, 0.5, 0.0])
    assert isinstance(w.get_value(), np.ndarray)
    g = oxtensor.function([x], y * 2, givens=[(y, x + 1)], mode="JAX")
    np.testing.assert_allclose(np.asarray(g(np.zeros(2))), [2.0, 2.0])


def test_arguments_by_name_and_checks() -> None:
    x, y = ot.dvector("x"), ot.dscalar("y")
    f = oxtensor.function([x, y], x + y, mode="JAX")
    np.testing.assert_allclose(np.asarray(f(y=1.0, x=[1.0, 2.0])), [2.0, 3.0])
    with pytest.raises(TypeError):
        f(np.ones((2, 2)), 1.0)
    with pytest.raises(TypeError, match="Missing required input"):
        f(np.ones(2))


def test_a_training_step_matches_the_vm() -> None:
    x, t = ot.dmatrix("x"), ot.dvector("t")
    w = ot.dvector("w")
    p = ot.sigmoid(ot.dot(x, w))
    cost = -(t * ot.log(p) + (1 - t) * ot.log(1 - p)).mean()
    r = np.random.default_rng(0)
    values = [
        r.normal(size=(20, 3)),
        (r.uniform(size=20) > 0.5) * 1.0,
        r.normal(size=3),
    ]
    compare([x, t, w], [cost, oxtensor.grad(cost, w)], values)


def test_as_jax_function_is_pure_jax() -> None:
    x = ot.dvector("x")
    f = oxtensor.function([x], (x**3).sum(), mode="JAX")
    pure = as_jax_function(f)
    grad = jax.jit(jax.grad(pure))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(np.asarray(grad), [3.0, 12.0])
    batched = jax.vmap(pure)(np.ones((4, 2)))
    np.testing.assert_allclose(np.asarray(batched), [2.0] * 4)
    fg = oxtensor.graph.fg.FunctionGraph([x], [x * 2, x + 1])
    twice, plus = as_jax_function(fg)(np.ones(2))
    np.testing.assert_allclose(np.asarray(twice + plus), [4.0, 4.0])


class Halve(Op):
    __props__ = ()

    def make_node(self, x):  # type: ignore[no-untyped-def]
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):  # type: ignore[no-untyped-def]
        output_storage[0][0] = inputs[0] / 2


class RegisteredHalve(Halve):
    pass


@jax_funcify.register(RegisteredHalve)
def _halve(op, node=None, **kwargs):  # type: ignore[no-untyped-def]
    return lambda v: v / 2


def test_a_python_op_needs_a_registration() -> None:
    x = ot.dvector("x")
    with pytest.raises(
        JAXUnsupportedError, match=r"Halve.*jax_funcify.register\(Halve\)"
    ):
        oxtensor.function([x], Halve()(x), mode="JAX")
    compare([x], RegisteredHalve()(x) + 1, [np.arange(3.0)])


def test_jax_stays_optional() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["jax"] = None  # as if JAX were not installed
        import oxtensor, oxtensor.tensor as ot
        x = ot.dvector("x")
        oxtensor.function([x], x * 2)
        try:
            oxtensor.function([x], x * 2, mode="JAX")
        except ImportError as e:
            print(e)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert "pip install oxtensor[jax]" in out.stdout, out.stdout + out.stderr
    clean = "import sys, oxtensor, oxtensor.tensor; print('jax' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", clean], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
