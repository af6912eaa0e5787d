"""Every reduction of issue 4 (sum, prod, max, min, all, any, mean, var,
std, argmax, argmin, logsumexp) against NumPy/SciPy, table-driven: dtypes,
``axis`` (None, int, negative, tuple) with ``keepdims``, 0-d, empty and
strided inputs, ``check_infer_shape``, ``verify_grad``, ``str`` forms,
``__props__`` equality and errors naming the node."""

import pickle
import warnings

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import verify_grad

from tests.helpers import assert_matches, check_infer_shape


def _std(x, axis=None, keepdims=False):
    return np.std(x, axis=axis, keepdims=keepdims)


def _logsumexp(x, axis=None, keepdims=False):
    # SciPy's logsumexp fails on empty inputs with keepdims; the test
    # values are small, so the direct formula is exact enough.
    return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))


# name -> (reference, differentiable, op class name in `str`)
REDUCTIONS = {
    "sum": (np.sum, True, "Sum"),
    "prod": (np.prod, True, "Prod"),
    "max": (np.max, True, "Max"),
    "min": (np.min, True, "Min"),
    "all": (np.all, False, "All"),
    "any": (np.any, False, "Any"),
    "mean": (np.mean, True, None),
    "var": (np.var, True, None),
    "std": (_std, True, None),
    "argmax": (np.argmax, False, "Argmax"),
    "argmin": (np.argmin, False, "Argmax"),
    "logsumexp": (_logsumexp, True, "LogSumExp"),
}
NAMES = sorted(REDUCTIONS)
ARG = {"argmax", "argmin"}
# NumPy's arg-reductions take one axis; the others a tuple too.
AXES = [None, 1, -1, (0, -1)]
DTYPES = ["bool", "int8", "uint16", "int64", "float16", "float32", "float64"]
# Reductions that have no identity: NumPy raises on an empty reduced axis.
NO_IDENTITY = {"max", "min", "argmax", "argmin"}


def reduce(name, x, axis, keepdims=False):
    return getattr(ot, name)(x, axis=axis, keepdims=keepdims)


def reference(name, v, axis, keepdims, dtype):
    """NumPy's answer in ``dtype``, floats worked out in float64."""
    ref = REDUCTIONS[name][0]
    if v.dtype.kind == "f":
        v = v.astype("float64")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's empty-slice warnings
        out = ref(v, axis=axis, keepdims=keepdims)
    return np.asarray(out).astype(dtype)


def sample(dtype, shape, rng):
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        # Small values: products of 24 of them stay exact.
        return rng.integers(0 if dtype[0] == "u" else -2, 3, shape).astype(dtype)
    return rng.uniform(-2, 2, shape).astype(dtype)


def check(name, x, v, axis, keepdims=False):
    y = reduce(name, x, axis, keepdims)
    got = oxtensor.function([x], y)(v)
    want = reference(name, v, axis, keepdims, y.dtype)
    assert_matches(got, want, y.dtype, scale=200)
    return y


def allowed(name, axis):
    return not (name in ARG and isinstance(axis, tuple))


CASES = [(n, a) for n in NAMES for a in AXES if allowed(n, a)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("name", "axis"), CASES)
def test_values_over_dtypes_and_axes(name, axis, dtype):
    rng = np.random.default_rng(0)
    x = ot.tensor3(dtype=dtype)
    v = sample(dtype, (2, 3, 4), rng)
    for keepdims in (False, True):
        check(name, x, v, axis, keepdims)


@pytest.mark.parametrize("name", NAMES)
def test_output_dtypes_are_numpys(name):
    # float16 and small integers: the NumPy result dtype (mean/var/std of
    # integers are float64; sums of small integers widen to int64).
    for dtype in ["int8", "uint8", "float16", "float32", "bool"]:
        y = reduce(name, ot.vector(dtype=dtype), None)
        v = sample(dtype, 3, np.random.default_rng(1))
        want = np.asarray(REDUCTIONS[name][0](v)).dtype
        if name == "logsumexp" and dtype in ("int8", "uint8", "bool"):
            want = np.dtype("float32")  # PyTensor: exp raises to floatX
        assert y.dtype == want.name, (dtype, y.dtype, want)


@pytest.mark.parametrize("name", NAMES)
def test_zero_dim(name):
    x = ot.dscalar()
    y = check(name, x, np.array(1.25), None)
    assert y.ndim == 0


@pytest.mark.parametrize("name", NAMES)
def test_empty(name):
    rng = np.random.default_rng(2)
    x = ot.dtensor3()
    v = rng.normal(size=(0, 3, 2))
    check(name, x, v, -1)
    check(name, x, v, 2, keepdims=True)
    if name in NO_IDENTITY:
        f = oxtensor.function([x], reduce(name, x, 0))
        with pytest.raises(ValueError, match=r"(?i)empty|zero-size") as err:
            f(v)
        assert "Apply node" in str(err.value) or REDUCTIONS[name][2] in str(err.value)
    else:
        check(name, x, v, 0)
        check(name, x, v, None)


@pytest.mark.parametrize("view", ["step", "transpose", "reversed"])
@pytest.mark.parametrize(("name", "axis"), CASES)
def test_strided_inputs(name, axis, view):
    base = np.random.default_rng(3).uniform(-2, 2, (4, 6, 8))
    v = {
        "step": base[::2, 1::2, ::3],
        "transpose": base.transpose(2, 0, 1),
        "reversed": base[::-1, :, ::-2],
    }[view]
    assert not v.flags.c_contiguous
    check(name, ot.dtensor3(), v, axis)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize(("name", "axis"), CASES)
def test_infer_shape(name, axis, keepdims):
    x = ot.dtensor3()
    y = reduce(name, x, axis, keepdims)
    v = np.random.default_rng(4).normal(size=(2, 3, 4))
    check_infer_shape([x], [y], [v])


@pytest.mark.parametrize(
    ("name", "axis"), [(n, a) for n, a in CASES if REDUCTIONS[n][1]]
)
def test_verify_grad(name, axis):
    rng = np.random.default_rng(5)
    # Distinct values (max/min have one winner), away from zero (prod).
    v = rng.permutation(np.linspace(0.5, 2.0, 24)).reshape(2, 3, 4)
    verify_grad(lambda t: reduce(name, t, axis, keepdims=True), [v], rng=rng)


@pytest.mark.parametrize("name", sorted(ARG | {"all", "any"}))
def test_non_differentiable_reductions_have_zero_gradients(name):
    x = ot.dmatrix()
    cost = reduce(name, x, 1).astype("float64").sum() + x.sum()
    g = oxtensor.function([x], oxtensor.grad(cost, x))(np.eye(2))
    assert_matches(g, np.ones((2, 2)))


# PyTensor's `str` of the reduction node's op (read from PyTensor 3), for
# axis None, 1, -1 and (0, 2) of a 3-d input. `min` and `logsumexp` are
# single ops in oxtensor (documented); mean/var/std end in an Elemwise.
# PyTensor names some outputs, which dprint shows.
NAMED = {"mean": "mean", "var": "var", "std": "std", "argmax": "argmax"}
NAMED["argmin"] = "argmax"  # PyTensor's argmin is argmax(-x), named argmax
STRS = {
    "sum": ["Sum{axes=None}", "Sum{axis=1}", "Sum{axis=2}", "Sum{axes=[0, 2]}"],
    "prod": ["Prod{axes=None}", "Prod{axis=1}", "Prod{axis=2}", "Prod{axes=[0, 2]}"],
    "max": ["Max{axes=None}", "Max{axis=1}", "Max{axis=2}", "Max{axes=[0, 2]}"],
    "min": ["Min{axes=None}", "Min{axis=1}", "Min{axis=2}", "Min{axes=[0, 2]}"],
    "all": ["All{axes=None}", "All{axis=1}", "All{axis=2}", "All{axes=[0, 2]}"],
    "any": ["Any{axes=None}", "Any{axis=1}", "Any{axis=2}", "Any{axes=[0, 2]}"],
    "mean": ["True_div"] * 4,
    "var": ["True_div"] * 4,
    "std": ["Sqrt"] * 4,
    "argmax": [
        "Argmax{axis=None}",
        "Argmax{axis=(1,)}",
        "Argmax{axis=(2,)}",
        "Argmax{axis=(0, 2)}",
    ],
    "logsumexp": [
        "LogSumExp{axes=None}",
        "LogSumExp{axis=1}",
        "LogSumExp{axis=2}",
        "LogSumExp{axes=[0, 2]}",
    ],
}
STRS["argmin"] = STRS["argmax"]


@pytest.mark.parametrize("name", NAMES)
def test_str_and_dprint_forms(name):
    x = ot.dtensor3("x")
    for axis, want in zip([None, 1, -1, (0, 2)], STRS[name], strict=True):
        y = reduce(name, x, axis)
        assert str(y.owner.op) == want
        first = oxtensor.dprint(y, file="str").splitlines()[0]
        label = f" '{NAMED[name]}'" if name in NAMED else ""
        assert first == f"{want} [id A]{label}"


@pytest.mark.parametrize("name", [n for n in NAMES if REDUCTIONS[n][2]])
def test_props_equality(name):
    x, z = ot.dtensor3(), ot.dtensor3()
    a, b = reduce(name, x, 1).owner.op, reduce(name, z, -2).owner.op
    assert a == b
    assert hash(a) == hash(b)
    assert pickle.loads(pickle.dumps(a)) == a
    assert a != reduce(name, x, 0).owner.op
    assert oxtensor.graph.basic.equal_computations([a(x)], [b(x)])


@pytest.mark.parametrize("name", NAMES)
def test_bad_axis_is_a_clear_error(name):
    x = ot.dmatrix()
    with pytest.raises((ValueError, IndexError, TypeError), match=r"axis|out of"):
        reduce(name, x, 2)
    with pytest.raises((ValueError, IndexError, TypeError), match=r"axis|out of"):
        reduce(name, x, -3)
