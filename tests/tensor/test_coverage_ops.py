"""The linear-algebra, shape, indexing, joining and other ops of issue 4,
walked from ``op_table.SPECS``: values against NumPy over dtypes, 0-d,
empty and strided (non-contiguous) inputs, ``check_infer_shape``,
``verify_grad``, PyTensor's ``str`` form and ``__props__`` equality."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import verify_grad

from tests.helpers import assert_matches, check_infer_shape
from tests.tensor.op_table import SPECS

KEYS = sorted(SPECS)


def variables_for(args):
    """Symbolic inputs typed like ``args`` (lengths of 1 static, as
    PyTensor broadcasts only those)."""
    return [
        ot.tensor(
            dtype=a.dtype.name, shape=tuple(1 if n == 1 else None for n in a.shape)
        )
        for a in args
    ]


def as_list(v):
    return list(v) if isinstance(v, list | tuple) else [v]


def check(key, args):
    """``SPECS[key]`` on ``args`` matches NumPy; returns the outputs."""
    spec = SPECS[key]
    variables = variables_for(args)
    outs = as_list(spec.build(*variables))
    f = oxtensor.function(variables, outs, on_unused_input="ignore")
    got = f(*args)
    want = as_list(spec.ref(*args))
    assert len(got) == len(want)
    for out, g, w in zip(outs, got, want, strict=True):
        assert g.dtype == out.dtype, f"computed {g.dtype}, static {out.dtype}"
        assert out.type.is_valid_value(g)
        g, w = spec.canon(g), spec.canon(np.asarray(w))
        assert_matches(g, w.astype(g.dtype), g.dtype, scale=spec.scale)
    return outs


@pytest.mark.parametrize(
    ("key", "dtype"), [(k, d) for k in KEYS for d in SPECS[k].dtypes]
)
def test_values_over_dtypes(key, dtype):
    check(key, SPECS[key].args(dtype, np.random.default_rng(0)))


def cases(attr):
    return [k for k in KEYS if not isinstance(getattr(SPECS[k], attr), str)]


@pytest.mark.parametrize("key", cases("zero_d"))
def test_zero_dim(key):
    spec = SPECS[key]
    args = spec.zero_d(spec.dtypes[-1], np.random.default_rng(1))
    assert any(a.ndim == 0 for a in args)
    check(key, args)


@pytest.mark.parametrize("key", cases("empty"))
def test_empty(key):
    spec = SPECS[key]
    args = spec.empty(spec.dtypes[-1], np.random.default_rng(2))
    outs = check(key, args)
    assert outs


def long_axis(a):
    """The last axis of ``a`` with at least two entries, or ``None``."""
    axes = [i for i, n in enumerate(a.shape) if n >= 2]
    return axes[-1] if axes else None


def strided(a):
    """``a``'s values in a non-contiguous view (every other entry along an
    axis of a wider array); arrays with no such axis as they are."""
    axis = long_axis(a)
    if axis is None:
        return a
    shape = list(a.shape)
    shape[axis] *= 2
    wide = np.zeros(shape, a.dtype)
    every_other = tuple(
        slice(None, None, 2) if i == axis else slice(None) for i in range(a.ndim)
    )
    wide[every_other] = a
    view = wide[every_other]
    assert not view.flags.c_contiguous
    return view


def stridable(key):
    spec = SPECS[key]
    args = spec.args(spec.dtypes[-1], np.random.default_rng(3))
    return any(long_axis(a) is not None for a in args)


@pytest.mark.parametrize("key", [k for k in KEYS if stridable(k)])
def test_strided_inputs(key):
    spec = SPECS[key]
    args = spec.args(spec.dtypes[-1], np.random.default_rng(3))
    check(key, [strided(a) for a in args])


@pytest.mark.parametrize("key", [k for k in KEYS if SPECS[k].infer_shape is True])
def test_infer_shape(key):
    spec = SPECS[key]
    args = spec.args(spec.dtypes[-1], np.random.default_rng(4))
    variables = variables_for(args)
    check_infer_shape(variables, as_list(spec.build(*variables)), args)


def differentiable(key):
    return SPECS[key].grad is True


@pytest.mark.parametrize("key", [k for k in KEYS if differentiable(k)])
def test_verify_grad(key):
    spec = SPECS[key]
    rng = np.random.default_rng(5)
    args = spec.args("float64", rng)
    floats = [i for i, a in enumerate(args) if a.dtype.kind == "f"]

    def fn(*xs):
        full = list(args)
        for i, x in zip(floats, xs, strict=True):
            # Static lengths, so a length of 1 broadcasts as in the value tests.
            full[i] = ot.specify_shape(x, args[i].shape)
        full = [v if i in floats else ot.constant(v) for i, v in enumerate(full)]
        outs = [o for o in as_list(spec.build(*full)) if o.dtype.startswith("float")]
        if len(outs) == 1:
            return outs[0]
        return ot.concatenate([o.flatten() for o in outs])

    verify_grad(fn, [args[i] for i in floats], rng=rng)


@pytest.mark.parametrize("key", KEYS)
def test_str_and_dprint_form(key):
    spec = SPECS[key]
    args = spec.args(spec.dtypes[-1], np.random.default_rng(6))
    out = as_list(spec.build(*variables_for(args)))[0]
    assert str(out.owner.op) == spec.str_form
    first = oxtensor.dprint(out, file="str").splitlines()[0]
    # PyTensor names an output of a multi-output node by its index.
    label = spec.str_form if len(out.owner.outputs) == 1 else f"{spec.str_form}.0"
    assert first.startswith(f"{label} [id A]")


@pytest.mark.parametrize("key", KEYS)
def test_props_equality(key):
    spec = SPECS[key]
    args = spec.args(spec.dtypes[-1], np.random.default_rng(7))
    a = as_list(spec.build(*variables_for(args)))[0].owner
    b = as_list(spec.build(*variables_for(args)))[0].owner
    assert a.op == b.op
    assert hash(a.op) == hash(b.op)
    assert pickle.loads(pickle.dumps(a.op)) == a.op
    again = a.op.make_node(*a.inputs)
    assert [o.type for o in again.outputs] == [o.type for o in a.outputs]


def test_alloc_refuses_runtime_broadcasting_as_pytensor():
    # A length 1 that the type does not mark broadcastable must not be
    # stretched at run time: its gradient would keep the stretched shape.
    x = ot.dmatrix("x")
    f = oxtensor.function([x], ot.broadcast_to(x, (2, 3, 4)))
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed") as err:
        f(np.ones((3, 1)))
    assert "Alloc" in str(err.value)
    assert f(np.ones((3, 4))).shape == (2, 3, 4)
