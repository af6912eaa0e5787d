"""Elementwise ops on JAX against the native VM: every scalar op family,
casts, broadcasting, integer and boolean dtypes, gradients, `Composite`."""

import numpy as np
import pytest

from tests.link.jax import SKIP_REASON

jax = pytest.importorskip("jax", reason=SKIP_REASON)

import oxtensor  # noqa: E402
import oxtensor.tensor as ot  # noqa: E402

from tests.link.jax.compare import compare, rng  # noqa: E402

UNARY = [
    "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid",
    "softplus", "abs", "sign", "sqr", "floor", "ceil", "arcsin", "arctan", "sinh",
    "cosh", "arcsinh", "arctanh", "erf", "erfc", "erfinv", "gammaln", "psi", "exp2",
    "log2", "log10", "deg2rad", "rad2deg", "reciprocal", "neg", "trunc", "round",
]  # fmt: skip


@pytest.mark.parametrize("name", UNARY)
def test_unary(name: str) -> None:
    fn = getattr(ot, name)
    x = ot.dvector("x")
    value = rng().uniform(0.1, 0.9, size=7)
    compare([x], fn(x), [value], rtol=1e-6)


@pytest.mark.parametrize(
    ("name", "low", "high"),
    [
        ("erfcx", -1.0, 3.0),
        ("erfcinv", 0.1, 1.9),
        ("tri_gamma", 0.5, 4.0),
        ("log1mexp", -3.0, -0.1),
        ("arccos", -0.9, 0.9),
        ("arccosh", 1.1, 4.0),
        ("gamma", 0.5, 4.0),
        ("round_half_away_from_zero", -3.0, 3.0),
        ("round_half_to_even", -3.0, 3.0),
        ("isnan", -1.0, 1.0),
        ("isinf", -1.0, 1.0),
        ("log1pexp", -30.0, 30.0),
        ("identity", -1.0, 1.0),
    ],
)
def test_unary_on_its_domain(name: str, low: float, high: float) -> None:
    x = ot.dvector("x")
    value = np.linspace(low, high, 9)
    if name.startswith("round"):
        value = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -0.6, 3.0])
    compare([x], getattr(ot, name)(x), [value], rtol=1e-6)


def test_fill_and_complex_parts() -> None:
    x, z = ot.dmatrix("x"), ot.zvector("z")
    values = [rng().normal(size=(2, 3)), np.array([1 + 2j, -3 - 1j, 0.5j])]
    outs = [ot.fill(x, 2.0), ot.real(z), ot.imag(z), ot.conj(z), ot.angle(z), abs(z)]
    compare([x, z], outs, values)


@pytest.mark.parametrize(
    "expr",
    [
        lambda x, y: x + y * 2 - x / y,
        lambda x, y: x**y,
        lambda x, y: ot.maximum(x, y) + ot.minimum(x, y),
        lambda x, y: ot.arctan2(x, y),
        lambda x, y: ot.switch(x > y, x, y),
        lambda x, y: ot.clip(x, 0.2, 0.6) * y,
        lambda x, y: (x < y) | (x >= 0.5),
        lambda x, y: ot.eq(x, y) ^ ot.neq(x, 0.3),
    ],
)
def test_binary_broadcast(expr) -> None:
    x, y = ot.dmatrix("x"), ot.dvector("y")
    r = rng()
    compare([x, y], expr(x, y), [r.uniform(0.1, 0.9, (3, 4)), r.uniform(0.1, 0.9, 4)])


def test_integer_and_boolean_dtypes() -> None:
    i, j = ot.lvector("i"), ot.lvector("j")
    values = [np.array([7, -7, 9, 3]), np.array([2, 3, -4, 5])]
    outs = [i // j, i % j, i * j + 1, ~(i > j), ot.cast(i, "float32") / 2, ~i]
    outs += [ot.mod(i, 3), (i > 0) & (j > 0), ot.xor(i > 0, j > 0), ot.iround(i / j)]
    compare([i, j], outs, values)


def test_float32_stays_float32() -> None:
    x = ot.fvector("x")
    (out,) = compare([x], ot.exp(x) * 2, [np.ones(3, dtype="float32")], rtol=1e-6)
    assert out.dtype == np.float32


def test_gradient() -> None:
    x = ot.dvector("x")
    cost = (ot.tanh(x) * ot.exp(x) + ot.sigmoid(x) ** 2).sum()
    compare([x], [cost, oxtensor.grad(cost, x)], [rng().normal(size=5)])


def test_composite_of_a_fused_graph() -> None:
    """A FAST_RUN function fuses into `Composite`s; exported to JAX, each
    runs through its inner graph."""
    from oxtensor.link.jax import as_jax_function

    x, y = ot.dvector("x"), ot.dvector("y")
    f = oxtensor.function([x, y], ot.exp(x) * y + ot.sin(x * y))
    ops = {
        type(n.op.scalar_op).__name__
        for n in f.maker.fgraph.apply_nodes
        if hasattr(n.op, "scalar_op")
    }
    assert "Composite" in ops, ops
    r = rng()
    a, b = r.normal(size=6), r.normal(size=6)
    got = jax.jit(as_jax_function(f))(a, b)
    np.testing.assert_allclose(np.asarray(got), f(a, b), rtol=1e-12)


def test_fused_reductions_of_an_exported_graph() -> None:
    """FAST_RUN fuses a sum with the elementwise graph it sums; exported,
    the fused reduction runs its composite, then the sum."""
    from oxtensor.link.jax import as_jax_function

    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    outs = [(ot.exp(x) * y + 1).sum(axis=1), (x * y).sum(), x.max(axis=0)]
    f = oxtensor.function([x, y], outs)
    a, b = rng().normal(size=(3, 4)), rng(1).normal(size=(3, 4))
    got = jax.jit(as_jax_function(f))(a, b)
    for g, w in zip(got, f(a, b), strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)
