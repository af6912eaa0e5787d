"""Every Elemwise op of ``elemwise_table.CASES`` against NumPy/SciPy: values
over one dtype of each kind, broadcasting, 0-d, empty and strided inputs,
and hypothesis tests of broadcasting and dtype promotion (the op x aspect
table in ``docs/test-coverage.md``)."""

import warnings

import numpy as np
import oxtensor
import oxtensor.scalar as S
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import DTYPES as ALL_DTYPES
from tests.helpers import assert_matches
from tests.tensor.elemwise_table import CASES, DTYPES, base_dtype, reference, values

NAMES = sorted(CASES)
# Ops whose integer inputs may hit a zero divisor (NumPy then warns and
# gives 0, PyTensor's C code is undefined): tried with floats only there.
DIVIDING = {"int_div", "mod", "true_div"}


def build(name, variables):
    return getattr(ot, name)(*variables)


def attempt(fn):
    """``(fn(), None)``, or ``(None, error)`` when ``fn`` raises a TypeError."""
    try:
        return fn(), None
    except TypeError as err:
        return None, err


def run(outputs, variables, args):
    f = oxtensor.function(list(variables), outputs, on_unused_input="ignore")
    return f(*args)


def sample(name, dtype, shape, rng):
    return [values(dtype, d, shape, rng) for d in CASES[name].domains]


def check_values(name, variables, args):
    """``name`` on ``args`` (bound to ``variables``) matches NumPy in the
    static output dtype, which the computed array also has."""
    y = build(name, variables)
    got = run(y, variables, args)
    want = reference(name, args, y.dtype)
    assert_matches(got, want, y.dtype, scale=50)
    return y


def tensors(dtype, shape, nin):
    broadcastable = tuple(n == 1 for n in shape)
    static = tuple(1 if b else None for b in broadcastable)
    return [ot.tensor(dtype=dtype, shape=static) for _ in range(nin)]


def dtype_args(name, dtype, rng):
    """Inputs of ``dtype`` for ``name`` (a bool condition for ``switch``;
    integer divisors kept away from zero)."""
    args = sample(name, dtype, (2, 3), rng)
    if name in DIVIDING and dtype[0] in "iub":
        args[1] = np.ones((2, 3), bool) if dtype == "bool" else (np.abs(args[1]) + 1)
    if name == "switch":
        args[0] = args[0] > 0.5 if args[0].dtype != bool else args[0]
    return args


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_values_over_dtypes(name, dtype):
    rng = np.random.default_rng(0)
    nin = len(CASES[name].domains)
    variables = tensors(dtype, (2, 3), nin)
    if name == "switch":
        variables[0] = ot.tensor(dtype="bool", shape=(None, None))
    args = dtype_args(name, dtype, rng)

    def compute():
        y = build(name, variables)
        return y, oxtensor.function(variables, y)(*args)

    result, err = attempt(compute)
    if err is not None:
        # A refusal (when the graph is built, or for int_div/mod of complex
        # numbers when it runs, as NumPy's) is a TypeError naming the op.
        assert getattr(S, name).name in str(err)
        return
    y, got = result
    assert_matches(got, reference(name, args, y.dtype), y.dtype, scale=50)


# Shapes that broadcast against each other: a column, a row, a 0-d scalar
# (and a 1x1 matrix for hyp2f1's fourth input).
BROADCAST = [(3, 1), (1, 4), (), (1, 1)]


@pytest.mark.parametrize("name", NAMES)
def test_broadcasting(name):
    rng = np.random.default_rng(1)
    nin = len(CASES[name].domains)
    shapes = BROADCAST[:nin] if nin > 1 else [(1, 4)]
    dt = base_dtype(name)
    variables = [tensors(dt, s, 1)[0] for s in shapes]
    args = [
        values(dt, d, s, rng) for d, s in zip(CASES[name].domains, shapes, strict=True)
    ]
    y = check_values(name, variables, args)
    want = np.broadcast_shapes(*shapes)
    assert y.type.broadcastable == tuple(n == 1 for n in want)


@pytest.mark.parametrize("name", NAMES)
def test_zero_dim(name):
    rng = np.random.default_rng(2)
    nin = len(CASES[name].domains)
    dt = base_dtype(name)
    variables = [ot.scalar(dtype=dt) for _ in range(nin)]
    y = check_values(name, variables, sample(name, dt, (), rng))
    assert y.ndim == 0


@pytest.mark.parametrize("name", NAMES)
def test_empty(name):
    rng = np.random.default_rng(3)
    nin = len(CASES[name].domains)
    dt = base_dtype(name)
    variables = tensors(dt, (0, 3), nin)
    # One input broadcasts a row into the empty result.
    args = sample(name, dt, (0, 3), rng)
    if nin > 1:
        variables[-1] = ot.row(dtype=dt)
        args[-1] = values(dt, CASES[name].domains[-1], (1, 3), rng)
    check_values(name, variables, args)


@pytest.mark.parametrize("view", ["step", "transpose", "reversed"])
@pytest.mark.parametrize("name", NAMES)
def test_strided_inputs(name, view):
    rng = np.random.default_rng(4)
    nin = len(CASES[name].domains)
    dt = base_dtype(name)
    bases = sample(name, dt, (6, 8), rng)
    cut = {
        "step": lambda a: a[::2, 1::3],
        "transpose": lambda a: a.T,
        "reversed": lambda a: a[::-1, ::-2],
    }[view]
    args = [cut(a) for a in bases]
    assert not args[0].flags.c_contiguous
    check_values(name, tensors(dt, (2, 2), nin), args)


@pytest.mark.parametrize(
    "dtype", ["float32", "float64", "int16", "uint8", "complex128"]
)
def test_cast_and_astype(dtype):
    rng = np.random.default_rng(5)
    for source in DTYPES:
        x = ot.matrix(dtype=source)
        v = values(source, (-3.0, 3.0), (2, 3), rng)
        if np.dtype(source).kind == "c" and np.dtype(dtype).kind != "c":
            with pytest.raises(TypeError, match="complex"):
                ot.cast(x, dtype)
            continue
        y, z = ot.cast(x, dtype), x.astype(dtype)
        assert y.dtype == z.dtype == dtype
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy warns on a wrapping cast
            want = v.astype(dtype)
        got = run([y, z], [x], [v])
        assert_matches(got[0], want)
        assert_matches(got[1], want)


# --- hypothesis: broadcasting and dtype promotion --------------------------

MULTI = [n for n in NAMES if len(CASES[n].domains) > 1]


@st.composite
def broadcast_shapes(draw, nin):
    """Input shapes that broadcast, the 1s marked static (PyTensor
    broadcasts only those)."""
    out = draw(st.lists(st.integers(0, 3), max_size=3))
    shapes = []
    for _ in range(nin):
        rank = draw(st.integers(0, len(out)))
        dims = out[len(out) - rank :]
        shapes.append(tuple(1 if draw(st.booleans()) else n for n in dims))
    return shapes


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(MULTI), st.data())
def test_broadcasting_hypothesis(name, data):
    nin = len(CASES[name].domains)
    shapes = data.draw(broadcast_shapes(nin))
    rng = np.random.default_rng(6)
    dt = base_dtype(name)
    variables = [tensors(dt, s, 1)[0] for s in shapes]
    args = [
        values(dt, d, s, rng) for d, s in zip(CASES[name].domains, shapes, strict=True)
    ]
    y = check_values(name, variables, args)
    assert y.ndim == len(np.broadcast_shapes(*shapes))


UPCAST = ["add", "sub", "mul", "maximum", "minimum", "int_div", "mod"]


def pytensor_upcast(*dtypes):
    """PyTensor's ``upcast``: NumPy promotion of 0-d arrays, in turn."""
    out = np.dtype(dtypes[0])
    for d in dtypes[1:]:
        out = np.result_type(out, np.dtype(d))
    return out.name


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(UPCAST),
    st.sampled_from([d for d in ALL_DTYPES if not d.startswith("complex")]),
    st.sampled_from([d for d in ALL_DTYPES if not d.startswith("complex")]),
)
def test_dtype_promotion_hypothesis(name, left, right):
    x, y = ot.vector(dtype=left), ot.vector(dtype=right)
    z, err = attempt(lambda: build(name, [x, y]))
    if err is not None:
        # Only `sub` refuses, and only a bool result (PyTensor's rule).
        assert name == "sub", err
        assert pytensor_upcast(left, right) == "bool", err
        return
    assert z.dtype == pytensor_upcast(left, right)
    rng = np.random.default_rng(7)
    a = values(left, (0.0, 5.0), 4, rng)
    b = values(right, (1.0, 5.0), 4, rng)
    if right == "bool":
        b = np.ones(4, bool)
    got = run(z, [x, y], [a, b])
    assert_matches(got, reference(name, [a, b], z.dtype), z.dtype, scale=50)
