"""`oxtensor.tensor.random`: draws against NumPy's Generator seeded alike,
shapes, updates and seeding of `RandomStream`, the `RandomVariable` op's
contract and its error cases."""

import re

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import NullTypeGradError
from oxtensor.tensor.random import (
    RandomGeneratorSharedVariable,
    RandomGeneratorType,
    RandomStream,
    RandomVariable,
    random_generator_type,
)
from oxtensor.tensor.random import basic as rb
from oxtensor.tensor.random.signature import parse_signature
from oxtensor.tensor.random.utils import RandomStream as UtilsRandomStream

SEED = 20261129

# Distributions whose oxtensor and NumPy calls are the same: (name, args, size).
SAME_CALL = [
    ("normal", (3.0, 2.0), (4,)),
    ("uniform", (-1.0, [1.0, 5.0]), None),
    ("integers", (2, 9), (5,)),
    ("binomial", (10, [0.1, 0.9]), None),
    ("poisson", (4.0,), (3,)),
    ("beta", (2.0, 5.0), (3,)),
    ("exponential", (2.0,), (3,)),
    ("lognormal", (0.5, 0.2), (3,)),
    ("laplace", (1.0, 2.0), (3,)),
    ("logistic", (1.0, 2.0), (3,)),
    ("geometric", (0.25,), (3,)),
    ("chisquare", (3.0,), (3,)),
    ("multinomial", (7, np.full((2, 4), 0.25)), None),
    ("multinomial", (3, [0.5, 0.5]), (5,)),
    ("choice", (10,), (4,)),
]


def _same_call(name, args, size):
    return (
        f"{name}{size}",
        lambda r: getattr(rb, name)(*args, size=size, rng=r),
        lambda g: getattr(g, name)(*args, size=size),
    )


P5 = [0.1, 0.2, 0.3, 0.2, 0.2]
ROWS = np.arange(12.0).reshape(3, 4)
# (name, oxtensor call given rng, the same draw by NumPy's Generator)
DRAWS = [
    *(_same_call(*case) for case in SAME_CALL),
    (
        "standard_normal",
        lambda r: rb.standard_normal(size=(2, 3), rng=r),
        lambda g: g.normal(0.0, 1.0, size=(2, 3)),
    ),
    ("integers_high_only", lambda r: rb.integers(9, rng=r), lambda g: g.integers(9)),
    ("bernoulli", lambda r: rb.bernoulli(0.3, rng=r), lambda g: g.binomial(1, 0.3)),
    (
        "gamma_scale",
        lambda r: rb.gamma(2.0, scale=3.0, size=(3,), rng=r),
        lambda g: g.gamma(2.0, 3.0, size=(3,)),
    ),
    (
        "choice_p_no_replace",
        lambda r: rb.choice(np.arange(5.0), (3,), replace=False, p=P5, rng=r),
        lambda g: g.choice(np.arange(5.0), (3,), replace=False, p=P5),
    ),
    ("permutation", lambda r: rb.permutation(8, rng=r), lambda g: g.permutation(8)),
    (
        "permutation_rows",
        lambda r: rb.permutation(ROWS, rng=r),
        lambda g: g.permuted(ROWS, axis=-1),
    ),
]


def _compiled(make):
    """A function drawing ``make(rng)`` and advancing the shared rng."""
    rng = oxtensor.shared(np.random.default_rng(SEED))
    out = make(rng)
    return oxtensor.function([], out, updates=[(rng, out.owner.outputs[0])]), out


@pytest.mark.parametrize(
    ("name", "make", "numpy_draw"), DRAWS, ids=[d[0] for d in DRAWS]
)
def test_draws_match_numpy_generator(name, make, numpy_draw):
    f, out = _compiled(make)
    g = np.random.default_rng(SEED)
    for _ in range(2):  # the second call continues the stream, as NumPy does
        want = numpy_draw(g)
        got = f()
        assert got.dtype == out.dtype
        assert got.shape == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_categorical_frequencies_and_batches():
    rng = oxtensor.shared(np.random.default_rng(SEED))
    p = np.array([[0.2, 0.5, 0.3], [0.0, 0.0, 1.0]])
    draw = rb.categorical(p, size=(20000, 2), rng=rng)
    assert draw.type.shape == (20000, 2)
    values = draw.eval()
    freq = np.bincount(values[:, 0], minlength=3) / len(values)
    np.testing.assert_allclose(freq, p[0], atol=0.015)
    assert (values[:, 1] == 2).all()


def test_moments_of_large_draws():
    rng = oxtensor.shared(np.random.default_rng(SEED))
    x = rb.normal(3.0, 2.0, size=(200000,), rng=rng).eval()
    assert abs(x.mean() - 3.0) < 0.02
    assert abs(x.std() - 2.0) < 0.02
    k = rb.poisson(4.0, size=(200000,), rng=rng).eval()
    assert abs(k.mean() - 4.0) < 0.02
    assert abs(k.var() - 4.0) < 0.05
    u = rb.uniform(2.0, 4.0, size=(100000,), rng=rng).eval()
    assert u.min() >= 2.0
    assert u.max() < 4.0
    assert abs(u.mean() - 3.0) < 0.01


def test_user_generator_is_never_advanced():
    g = np.random.default_rng(SEED)
    before = g.bit_generator.state
    rng = oxtensor.shared(g, borrow=True)
    out = rb.normal(size=(3,), rng=rng)
    f = oxtensor.function([], out)  # no update: the draw is on a copy
    np.testing.assert_array_equal(f(), f())
    assert g.bit_generator.state == before
    assert rng.get_value(borrow=True) is g


def test_shared_generator_variable():
    g = np.random.default_rng(1)
    rng = oxtensor.shared(g, name="r")
    assert isinstance(rng, RandomGeneratorSharedVariable)
    assert rng.type == random_generator_type
    assert isinstance(rng.type, RandomGeneratorType)
    assert rng.get_value(borrow=True) is not g  # copied unless borrow
    assert rng.type.values_eq(rng.get_value(), g)
    with pytest.raises(TypeError, match=r"expected a numpy\.random\.Generator"):
        rng.set_value(np.random.RandomState(0))
    assert not rng.type.is_valid_value(3)
    assert not rng.type.values_eq(np.random.default_rng(1), np.random.default_rng(2))
    assert str(rng) == "r"


def test_random_stream_updates_advance_and_seed_reproduces():
    srng = RandomStream(seed=234)
    a = srng.normal(size=(3,))
    b = srng.uniform(size=(2,))
    assert [u for u, _ in srng.updates()] == [a.rng, b.rng]
    assert a.rng.default_update is a.owner.outputs[0]
    assert a.update == (a.rng, a.owner.outputs[0])
    f = oxtensor.function([], [a, b])
    first, second = f(), f()
    assert not np.allclose(first[0], second[0])
    srng.seed(234)
    again = f()
    for x, y in zip(first, again, strict=True):
        np.testing.assert_array_equal(x, y)
    # The generators are seeded by the children of SeedSequence(seed).
    seeds = np.random.SeedSequence(234).spawn(2)
    np.testing.assert_array_equal(
        first[0], np.random.default_rng(seeds[0]).normal(size=3)
    )
    np.testing.assert_array_equal(
        first[1], np.random.default_rng(seeds[1]).uniform(size=2)
    )
    srng.seed(99)
    assert not np.allclose(f()[0], first[0])


def test_random_stream_same_seed_same_draws_and_no_default_updates():
    draws = []
    for _ in range(2):
        srng = UtilsRandomStream(seed=7)
        draws.append(oxtensor.function([], srng.integers(0, 1000, size=(5,)))())
    np.testing.assert_array_equal(*draws)
    srng = RandomStream(seed=7)
    x = srng.normal(size=(2,))
    f = oxtensor.function([], x, no_default_updates=True)
    np.testing.assert_array_equal(f(), f())


def test_random_stream_errors():
    srng = RandomStream(seed=1)
    with pytest.raises(ValueError, match="rng option cannot be used"):
        srng.normal(rng=oxtensor.shared(np.random.default_rng()))
    with pytest.raises(AttributeError, match="no_such_distribution"):
        srng.no_such_distribution()


def test_rng_none_makes_a_shared_generator():
    x = rb.normal(size=(2,))
    rng = x.owner.inputs[0]
    assert isinstance(rng, RandomGeneratorSharedVariable)
    assert rng.default_update is None


def test_node_structure_and_props():
    rng = oxtensor.shared(np.random.default_rng())
    loc = ot.dvector("loc")
    x = rb.normal(loc, 1.0, rng=rng, name="x")
    node = x.owner
    op = node.op
    assert isinstance(op, RandomVariable)
    assert isinstance(op, rb.NormalRV)
    assert x.name == "x"
    assert x is node.outputs[1]
    assert op.default_output == 1
    assert node.inputs[0] is rng
    assert node.outputs[0].type == rng.type
    assert op.dist_params(node) == node.inputs[2:]
    assert node.inputs[2] is loc
    assert (op.name, op.signature, op.dtype, op.inplace) == (
        "normal",
        "(),()->()",
        "floatX",
        False,
    )
    assert op.ndim_supp == 0
    assert op.ndims_params == [0, 0]
    assert rb.multinomial.ndim_supp == 1
    assert rb.multinomial.ndims_params == [0, 1]
    assert rb.NormalRV() == op
    assert hash(rb.NormalRV()) == hash(op)
    assert rb.NormalRV(dtype="float32") != op
    y = rb.normal(0, 1, size=(2,), dtype="float32", rng=rng)
    assert y.dtype == "float32"
    assert y.owner.op.dtype == "float32"
    assert rb.normal.dtype == "floatX"  # the module's op is not changed
    assert rb.permutation(ot.ivector()).dtype == "int32"
    again = op.make_node(*node.inputs)
    assert [o.type for o in again.outputs] == [o.type for o in node.outputs]


@pytest.mark.parametrize(
    ("make", "static"),
    [
        (lambda: rb.normal(ot.dmatrix(), 1.0), (None, None)),
        (lambda: rb.normal(np.zeros((3, 1)), np.ones(4)), (3, 4)),
        (lambda: rb.normal(0, 1, size=(ot.lscalar("n"), 3)), (None, 3)),
        (lambda: rb.normal(np.zeros(4), 1, size=(2, 4)), (2, 4)),
        (lambda: rb.multinomial(5, np.full((2, 3), 1 / 3)), (2, 3)),
        (lambda: rb.multinomial(5, np.full(3, 1 / 3), size=(4,)), (4, 3)),
        (lambda: rb.categorical(np.full((2, 3), 1 / 3)), (2,)),
        (lambda: rb.choice(5), ()),
        (lambda: rb.normal(size=()), ()),
    ],
)
def test_static_shapes(make, static):
    assert make().type.shape == static


def test_infer_shape_matches_the_draw():
    n = ot.lscalar("n")
    m = ot.dmatrix("m")
    p = ot.dmatrix("p")
    outs = [
        rb.normal(0, 1, size=(n, 3)),
        rb.normal(m, ot.dvector("s")[:1]),
        rb.multinomial(4, p),
        rb.categorical(p, size=(n, 2)),
    ]
    inputs = [n, m, p]
    values = [5, np.zeros((2, 6)), np.full((2, 3), 1 / 3)]
    shape_vars = []
    for out in outs:
        node = out.owner
        in_shapes = [None, None] + [
            [x.shape[i] for i in range(x.ndim)] for x in node.op.dist_params(node)
        ]
        rng_shape, draw_shape = node.op.infer_shape(None, node, in_shapes)
        assert rng_shape is None
        shape_vars.append(
            ot.as_tensor_variable([ot.as_tensor_variable(d) for d in draw_shape])
        )
    s = outs[1].owner.inputs[3].owner.inputs[0]  # the vector "s"
    f = oxtensor.function([*inputs, s], outs + shape_vars, on_unused_input="ignore")
    results = f(*values, np.ones(1))
    for draw, shape in zip(results[:4], results[4:], strict=True):
        assert tuple(shape) == draw.shape


def test_no_gradient_through_a_draw():
    mu = ot.dscalar("mu")
    cost = rb.normal(mu, 1.0).sum()
    with pytest.raises(
        NullTypeGradError, match="No gradient defined for random variables"
    ):
        oxtensor.grad(cost, mu)
    # Around a draw, gradients are as usual.
    g = oxtensor.grad((rb.normal(0.0, 1.0) + mu * 2).sum(), mu)
    assert float(g.eval({mu: 1.0})) == 2.0


@pytest.mark.parametrize(
    ("call", "exc", "message"),
    [
        (
            lambda: rb.normal(0, 1, rng=np.random.default_rng()),
            TypeError,
            "wrap the Generator with oxtensor.shared",
        ),
        (
            lambda: rb.normal(0, 1, rng=ot.dvector()),
            TypeError,
            "type of rng should be an instance of RandomGeneratorType",
        ),
        (
            lambda: rb.normal(0, 1, size=ot.dmatrix()),
            ValueError,
            "size must be None, an integer or a vector",
        ),
        (lambda: rb.normal(0, 1, size=[1.5]), TypeError, "size must hold integers"),
        (
            lambda: rb.normal(0, 1, size=ot.lvector()),
            ValueError,
            "cannot be determined",
        ),
        (
            lambda: rb.multinomial(3, 0.5),
            ValueError,
            r"MultinomialRV\(multinomial\): parameter 1 .* needs at least 1 dimensions",
        ),
        (
            lambda: rb.normal(1, 2, 3),
            TypeError,
            r"NormalRV\(normal\) takes 2 parameters",
        ),
        (lambda: rb.normal(mu=1), TypeError, "unknown or repeated argument 'mu'"),
        (lambda: rb.beta(2.0), TypeError, r"missing the parameters \['beta'\]"),
        (
            lambda: rb.normal.make_node(None, None, 1.0),
            TypeError,
            "takes 2 distribution parameters",
        ),
        (
            lambda: rb.normal(ot.dmatrix(), 1, size=(3,)),
            ValueError,
            "size has 1 dimensions but parameter 0",
        ),
        (
            lambda: rb.gamma(1.0, rate=1.0, scale=1.0),
            ValueError,
            "Cannot specify both rate and scale",
        ),
        (lambda: rb.gamma(1.0), ValueError, "Must specify scale"),
        (lambda: rb.choice(np.ones((2, 3))), NotImplementedError, "must be vectors"),
        (
            lambda: rb.NormalRV(inplace=True),
            NotImplementedError,
            "inplace random variables are not supported",
        ),
        (lambda: rb.NormalRV(signature="()->(),()"), ValueError, "draws one output"),
    ],
)
def test_errors(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_bad_size_at_run_time_names_the_node():
    n = ot.lscalar("n")
    x = rb.normal(np.zeros(3), 1.0, size=(n,))
    f = oxtensor.function([n], x)
    assert f(3).shape == (3,)
    with pytest.raises(ValueError, match=re.escape("NormalRV(normal)")):
        f(2)


@pytest.mark.parametrize("bad", ["(a->b", "()", "(),()->()->()", "[a]->()"])
def test_signature_errors(bad):
    with pytest.raises(ValueError, match="Signature"):
        parse_signature(bad)


def test_explicit_stream_updates_advance_once_per_call():
    srng = RandomStream(seed=11)
    x = srng.uniform(size=(3,))
    f = oxtensor.function([], x, updates=srng.updates())
    g = np.random.default_rng(np.random.SeedSequence(11).spawn(1)[0])
    np.testing.assert_array_equal(f(), g.uniform(size=3))
    np.testing.assert_array_equal(f(), g.uniform(size=3))


def test_ops_print_and_pickle():
    import pickle

    assert str(rb.normal) == "NormalRV(normal)"
    no_replace = rb.choice(5, replace=False).owner.op
    assert str(no_replace) == "ChoiceRV(choice, replace=False)"
    for op in (rb.normal, rb.multinomial, rb.ChoiceRV(replace=False)):
        again = pickle.loads(pickle.dumps(op))
        assert again == op
        assert again.ndims_params == op.ndims_params
    x = RandomStream(seed=5).normal(size=(2,))
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y.owner.op, rb.NormalRV)
    assert y.owner.inputs[0].type == random_generator_type


def test_rng_as_function_input_and_output():
    from oxtensor.tensor.random import random_generator_type as rgt

    r = rgt("r")
    x = rb.normal(size=(2,), rng=r)
    f = oxtensor.function([r], [x.owner.outputs[0], x])
    g = np.random.default_rng(1)
    state = g.bit_generator.state
    next_g, draw = f(g)
    assert g.bit_generator.state == state
    want = np.random.default_rng(1)
    np.testing.assert_array_equal(draw, want.normal(size=2))
    np.testing.assert_array_equal(f(next_g)[1], want.normal(size=2))
    with pytest.raises(TypeError, match="not a valid value of RandomGeneratorType"):
        f(3)


class ShiftedExponentialRV(RandomVariable):
    """A user-defined random variable, as PyMC writes them."""

    name = "shifted_exponential"
    signature = "(),()->()"
    dtype = "floatX"

    @classmethod
    def rng_fn(cls, rng, shift, scale, size):
        return shift + rng.exponential(scale, size=size)


def test_user_defined_random_variable():
    rng = oxtensor.shared(np.random.default_rng(SEED))
    x = ShiftedExponentialRV()(10.0, [1.0, 2.0], rng=rng)
    assert x.type.shape == (2,)
    want = 10.0 + np.random.default_rng(SEED).exponential([1.0, 2.0])
    np.testing.assert_allclose(x.eval(), want)


def test_gamma_rate_is_deprecated_and_means_one_over_scale():
    rng = oxtensor.shared(np.random.default_rng(5))
    with pytest.warns(FutureWarning, match="Gamma rate argument is deprecated"):
        out = rb.gamma(2.0, rate=4.0, size=(3,), rng=rng)
    expected = np.random.default_rng(5).gamma(2.0, 0.25, size=(3,))
    np.testing.assert_allclose(out.eval(), expected)
