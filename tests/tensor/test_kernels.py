"""The native elementwise kernels against NumPy: every elementwise op that
`oxtensor.tensor` exposes, over every dtype NumPy defines it for (values,
dtypes and shapes), special values, integer division by zero, casts, mixed
dtypes and static broadcasting (hypothesis), 0-d and empty arrays, and
inputs in any memory layout through every execution path."""

import re
import warnings
import zlib

import numpy as np
import oxtensor
import oxtensor.scalar as S
import oxtensor.tensor as ot
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.helpers import DTYPES, assert_matches

INTS = [d for d in DTYPES if d[0] in "iu"]
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]


def np_sigmoid(x):
    return np.reciprocal(np.exp(-x) + x.dtype.type(1))


def np_softplus(x):
    return np.logaddexp(x.dtype.type(0), x)


UNARY = {
    "neg": np.negative,
    "abs": np.abs,
    "sign": np.sign,
    "sqr": np.square,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "sigmoid": np_sigmoid,
    "softplus": np_softplus,
    "reciprocal": np.reciprocal,
    "floor": np.floor,
    "ceil": np.ceil,
    "isnan": np.isnan,
    "isinf": np.isinf,
    "invert": np.invert,
}
BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "true_div": np.true_divide,
    "int_div": np.floor_divide,
    "mod": np.mod,
    "pow": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "lt": np.less,
    "gt": np.greater,
    "le": np.less_equal,
    "ge": np.greater_equal,
    "eq": np.equal,
    "neq": np.not_equal,
    "and_": np.bitwise_and,
    "or_": np.bitwise_or,
    "xor": np.bitwise_xor,
}
# Ops that compute in their inputs' (promoted) dtype rather than the output's.
IN_INPUT_DTYPE = {"lt", "gt", "le", "ge", "eq", "neq", "isnan", "isinf", "abs"}

# (op, dtype kind) pairs NumPy has no loop for: oxtensor refuses them too.
NUMPY_UNDEFINED = {
    **dict.fromkeys(["neg", "sign", "sub"], frozenset({"b"})),
    **dict.fromkeys(["and_", "or_", "xor", "invert"], frozenset({"f", "c"})),
    **dict.fromkeys(["floor", "ceil", "int_div", "mod"], frozenset({"c"})),
}
# Refused by the dtype rules although NumPy has a loop: `sign` of complex
# numbers (PyTensor's `Sign` refuses them), `sigmoid` and `softplus` of
# complex numbers (no complex kernel; see docs/for-pytensor-users.md).
# `int_div` and `mod` of bools (a bool, as in PyTensor) and `pow` of bools
# (int8, as in PyTensor and NumPy) are defined.
REFUSED_BY_RULE = {
    **dict.fromkeys(["sign", "sigmoid", "softplus"], frozenset({"c"})),
}


def refused(op, dtype):
    kind = np.dtype(dtype).kind
    return kind in NUMPY_UNDEFINED.get(op, ()) or kind in REFUSED_BY_RULE.get(op, ())


def specials(dtype):
    """Edge values of ``dtype``: extremes, zeros, ±1, and for floats the
    infinities and NaN."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([False, True])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = {0, 1, 2, 7, info.max, info.max - 1}
        if dt.kind == "i":
            vals |= {-1, -2, -7, info.min, info.min + 1}
        return np.array(sorted(vals), dtype=dt)
    real = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan]
    if dt.kind == "c":
        return np.array([complex(r, i) for r in real[:7] for i in (0.0, -1.5)], dt)
    return np.array(real, dt)


def random_values(dtype, n, rng):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    if dt.kind == "c":
        return (rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(dt)
    return rng.uniform(-4, 4, n).astype(dt)


def operands(op, dtype, arity):
    """Every pair (or single) of special values, then random ones."""
    rng = np.random.default_rng(zlib.crc32(f"{op} {dtype}".encode()))
    s = specials(dtype)
    if arity == 1:
        args = [np.concatenate([s, random_values(dtype, 40, rng)])]
    else:
        pairs = [np.repeat(s, len(s)), np.tile(s, len(s))]
        args = [np.concatenate([p, random_values(dtype, 40, rng)]) for p in pairs]
    if op == "pow" and np.dtype(dtype).kind in "iu":
        # NumPy refuses negative integer exponents (tested below).
        args[1] = (args[1] % 8).astype(dtype)
    return args


def expected(op, args, out_dtype):
    fn = {**UNARY, **BINARY}[op]
    compute = np.result_type(*args) if op in IN_INPUT_DTYPE else out_dtype
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return fn(*[a.astype(compute) for a in args]).astype(out_dtype)


def compile_op(op, dtypes):
    xs = [ot.tensor(f"x{i}", dtype=d, shape=(None,)) for i, d in enumerate(dtypes)]
    out = getattr(ot, op)(*xs)
    return oxtensor.function(xs, out), out


def build_and_run(op, dtypes, args):
    f, _ = compile_op(op, dtypes)
    return f(*args)


OP_DTYPES = [(op, d) for op in [*UNARY, *BINARY] for d in DTYPES]
DEFINED = [(op, d) for op, d in OP_DTYPES if not refused(op, d)]
REFUSED = [(op, d) for op, d in OP_DTYPES if refused(op, d)]


@pytest.mark.parametrize(("op", "dtype"), DEFINED)
def test_op_matches_numpy_on_special_and_random_values(op, dtype):
    arity = 1 if op in UNARY else 2
    args = operands(op, dtype, arity)
    f, out = compile_op(op, [dtype] * arity)
    got = f(*args)
    assert_matches(got, expected(op, args, out.dtype), out.dtype)


@pytest.mark.parametrize(("op", "dtype"), REFUSED)
def test_op_refused_for_the_dtype_raises_type_error(op, dtype):
    # Refused when building (dtype rules) or when running (no kernel).
    arity = 1 if op in UNARY else 2
    with pytest.raises(TypeError, match=op):
        build_and_run(op, [dtype] * arity, operands(op, dtype, arity))


@pytest.mark.parametrize("dtype", DTYPES)
def test_switch_matches_numpy_where(dtype):
    c = ot.tensor("c", dtype="bool", shape=(None,))
    x, y = (ot.tensor(n, dtype=dtype, shape=(None,)) for n in "xy")
    f = oxtensor.function([c, x, y], ot.switch(c, x, y))
    rng = np.random.default_rng(1)
    cond = rng.integers(0, 2, 30).astype(bool)
    a, b = random_values(dtype, 30, rng), random_values(dtype, 30, rng)
    assert_matches(f(cond, a, b), np.where(cond, a, b))


@pytest.mark.parametrize("cond_dtype", ["int8", "float64", "uint32"])
def test_switch_condition_of_any_dtype_is_its_truth(cond_dtype):
    c = ot.tensor("c", dtype=cond_dtype, shape=(None,))
    x = ot.dvector("x")
    f = oxtensor.function([c, x], ot.switch(c, x, -x))
    cond = np.array([0, 2, 0, 1], cond_dtype)
    assert_matches(f(cond, np.arange(4.0)), np.array([-0.0, 1, -2, 3]))


# --- integer division, modulo and powers ---


@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_and_modulo_by_zero_give_zero(dtype):
    x, y = (ot.tensor(n, dtype=dtype, shape=(None,)) for n in "xy")
    f = oxtensor.function([x, y], [x // y, x % y])
    a = specials(dtype)
    q, r = f(a, np.zeros_like(a))
    assert_matches(q, np.zeros_like(a))
    assert_matches(r, np.zeros_like(a))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_min_divided_by_minus_one_wraps_like_numpy(dtype):
    x, y = (ot.tensor(n, dtype=dtype, shape=(None,)) for n in "xy")
    f = oxtensor.function([x, y], [x // y, x % y])
    low = np.array([np.iinfo(dtype).min], dtype)
    minus_one = np.array([-1], dtype)
    q, r = f(low, minus_one)
    with np.errstate(all="ignore"):
        assert_matches(q, np.floor_divide(low, minus_one))
    assert_matches(r, np.zeros(1, dtype))


def test_integer_powers_wrap_for_exponents_past_32_bits():
    x, y = ot.lvector("x"), ot.lvector("y")
    f = oxtensor.function([x, y], x**y)
    a, b = np.array([2, 3, -1, 1]), np.array([2**32 + 1, 2**40, 2**33 + 1, 2**62])
    assert_matches(f(a, b), np.power(a, b))


def test_negative_integer_exponents_raise_like_numpy():
    x, y = ot.ivector("x"), ot.ivector("y")
    f = oxtensor.function([x, y], x**y)
    with pytest.raises(ValueError, match="negative integer powers"):
        np.power(np.array([2], "int32"), np.array([-1], "int32"))
    with pytest.raises(ValueError, match="negative integer powers") as info:
        f(np.array([2, 3], "int32"), np.array([1, -1], "int32"))
    assert "Pow(x, y)" in str(info.value)


def test_float_floor_division_uses_numpy_divmod():
    # floor(1 / 0.1) is 10, but 1 // 0.1 is 9 in NumPy (and Python).
    x, y = ot.dvector("x"), ot.dvector("y")
    f = oxtensor.function([x, y], [x // y, x % y])
    a, b = np.array([1.0, -5.0, np.inf, 7.0]), np.array([0.1, np.inf, 3.0, -0.0])
    q, r = f(a, b)
    with np.errstate(all="ignore"):
        assert_matches(q, np.floor_divide(a, b))
        assert_matches(r, np.mod(a, b))


# --- casts ---


def cast_source(src, dst):
    """Values of ``src`` that every C-like cast to ``dst`` defines."""
    s, d = np.dtype(src), np.dtype(dst)
    if s.kind == "b":
        return np.array([True, False, True])
    vals = [0, 1, 2, 7, 100, 127]
    if s.kind in "ifc" and d.kind != "u":
        vals += [-1, -7, -100]
    if s.kind in "fc":
        vals += [0.5, 2.75, -0.0] if d.kind != "u" else [0.5, 2.75]
        if d.kind in "bfc":
            vals += [np.inf, -np.inf, np.nan]
    if s.kind == "c":
        return np.array([v + 1.5j for v in vals], s)
    return np.array(vals).astype(s)


@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("src", DTYPES)
def test_cast_matches_numpy_astype(src, dst):
    x = ot.tensor("x", dtype=src, shape=(None,))
    a = cast_source(src, dst)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        want = a.astype(dst)
    if np.dtype(src).kind == "c" and np.dtype(dst).kind != "c":
        # PyTensor's `cast` and `astype` refuse to drop the imaginary part;
        # the `Cast` op itself keeps NumPy's kernel (the real part).
        for spell in (ot.cast, lambda v, d: v.astype(d)):
            with pytest.raises(TypeError, match="complex to real is ambiguous"):
                spell(x, dst)
        outputs = [ot.Elemwise(S.Cast(dst))(x)]
    else:
        outputs = [ot.cast(x, dst), x.astype(dst)]
    for got in oxtensor.function([x], outputs)(a):
        assert_matches(got, want)


# --- mixed dtypes and broadcasting (hypothesis) ---

MIXED_OPS = ["add", "mul", "true_div", "maximum", "minimum", "lt", "ge", "eq"]


@given(
    op=st.sampled_from(MIXED_OPS),
    dtypes=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)),
    data=st.data(),
)
def test_mixed_dtypes_match_numpy(op, dtypes, data):
    # Small integers are exact in every dtype, so only promotion differs.
    vals = st.lists(st.integers(0, 9), min_size=1, max_size=6)
    raw = data.draw(vals)
    raw2 = data.draw(st.lists(st.integers(1, 9), min_size=len(raw), max_size=len(raw)))
    args = [np.array(raw).astype(dtypes[0]), np.array(raw2).astype(dtypes[1])]
    f, out = compile_op(op, dtypes)
    assert_matches(f(*args), expected(op, args, out.dtype), out.dtype)


@st.composite
def broadcast_case(draw):
    """Two operands' static shapes and runtime shapes: each dimension is
    either static 1, unknown with the common length, or unknown with a
    runtime length of 1 (which must be refused)."""
    ndim = draw(st.integers(0, 3))
    lengths = draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim))
    static, runtime = [[], []], [[], []]
    for n in lengths:
        for k in range(2):
            how = draw(st.sampled_from(["static1", "full", "runtime1"]))
            static[k].append(1 if how == "static1" else None)
            runtime[k].append(n if how == "full" else 1)
    return static, runtime


def broadcast_outcome(static, runtime):
    """NumPy's output shape, or the error PyTensor's rule gives."""
    out = []
    for d, lens in enumerate(zip(*runtime, strict=True)):
        n = max([ln for ln in lens if ln != 1], default=1)
        for k, ln in enumerate(lens):
            if ln != n and ln != 1:
                return "Input dimension mismatch"
            if ln != n and static[k][d] != 1:
                return "Runtime broadcasting not allowed"
        out.append(n)
    return tuple(out)


@given(case=broadcast_case(), dtype=st.sampled_from(["int16", "float32", "float64"]))
def test_only_static_ones_broadcast(case, dtype):
    (sa, sb), (ra, rb) = case
    x = ot.tensor("x", dtype=dtype, shape=sa)
    y = ot.tensor("y", dtype=dtype, shape=sb)
    f = oxtensor.function([x, y], x * 2 - y)
    a = np.arange(np.prod(ra), dtype=dtype).reshape(ra)
    b = np.ones(rb, dtype=dtype)
    outcome = broadcast_outcome((sa, sb), (ra, rb))
    if isinstance(outcome, str):
        with pytest.raises(ValueError, match=re.escape(outcome)):
            f(a, b)
        return
    assert_matches(f(a, b), a * 2 - b)


def test_lower_rank_operands_broadcast_like_numpy():
    m, v, s = ot.dmatrix("m"), ot.dvector("v"), ot.dscalar("s")
    f = oxtensor.function([m, v, s], m * v + s)
    a, b = np.arange(6.0).reshape(2, 3), np.array([1.0, -1.0, 2.0])
    assert_matches(f(a, b, 0.5), a * b + 0.5)
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        f(a, np.array([1.0]), 0.5)


def test_shape_errors_name_the_node():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = oxtensor.function([x, y], x + y)
    with pytest.raises(ValueError, match="Input dimension mismatch") as info:
        f(np.ones(3), np.ones(4))
    msg = str(info.value)
    assert "Apply node that caused the error: Add(x, y)" in msg
    assert "Inputs shapes: [[3], [4]]" in msg


# --- 0-d, empty and laid-out inputs, through every execution path ---


def layouts(values):
    """``values`` (2-d) in several memory layouts, each as (name, array)."""
    dt = values.dtype
    padded = np.zeros((values.shape[0] * 2, values.shape[1] * 3), dt)
    padded[::2, ::3] = values
    raw = b"\0" + np.ascontiguousarray(values).tobytes()
    misaligned = np.frombuffer(raw, dt, offset=1).reshape(values.shape)
    return [
        ("contiguous", values.copy()),
        ("strided", padded[::2, ::3]),
        ("transposed", np.ascontiguousarray(values.T).T),
        ("reversed", values[::-1, ::-1].copy()[::-1, ::-1]),
        ("fortran", np.asfortranarray(values)),
        ("byteswapped", values.astype(dt.newbyteorder())),
        ("misaligned", misaligned),
    ]


LAYOUT_DTYPES = ["bool", "int8", "uint16", "int64", "float16", "float32"]
LAYOUT_DTYPES += ["float64", "complex128"]


@pytest.mark.parametrize("dtype", LAYOUT_DTYPES)
def test_any_layout_gives_the_values_never_misread(dtype, path):
    rng = np.random.default_rng(7)
    values = random_values(dtype, 12, rng).reshape(3, 4)
    other = random_values(dtype, 4, rng).reshape(1, 4)
    x = ot.tensor("x", dtype=dtype, shape=(None, None))
    y = ot.tensor("y", dtype=dtype, shape=(1, None))
    f = oxtensor.function([x, y], [ot.maximum(path(x), y), ot.eq(path(x), y), path(x)])
    for name, a in layouts(values):
        if name == "misaligned" and a.itemsize > 1:
            assert not a.flags.aligned
        before = a.copy()
        big, same, back = f(a, other)
        assert_matches(big, np.maximum(values, other))
        assert_matches(same, values == other)
        assert_matches(back, values)
        np.testing.assert_array_equal(a, before, err_msg=f"{name} input was modified")


@pytest.mark.parametrize("dtype", ["int32", "float64", "complex64"])
def test_zero_d_and_empty_arrays(dtype, path):
    s = ot.tensor("s", dtype=dtype, shape=())
    m = ot.tensor("m", dtype=dtype, shape=(None, None))
    f = oxtensor.function([s, m], [path(s) * 2 + s, path(m) - s])
    for shape in [(0, 3), (3, 0), (0, 0)]:
        a = np.zeros(shape, dtype)
        zero_d, empty = f(np.array(3, dtype), a)
        assert_matches(zero_d, np.array(9, dtype))
        assert_matches(empty, a - 3)


@st.composite
def strided_copy(draw, values):
    """``values`` in a random memory layout: axes stored in a random order,
    each walked with a random step (negative steps read backwards)."""
    ndim = values.ndim
    order = draw(st.permutations(range(ndim)))
    steps = draw(
        st.lists(st.sampled_from([1, 2, -1, -3]), min_size=ndim, max_size=ndim)
    )
    stored = values.transpose(order)
    big = np.zeros([n * abs(k) for n, k in zip(stored.shape, steps, strict=True)])
    view = big.astype(values.dtype)
    if ndim:
        view = view[tuple(slice(None, None, k) for k in steps)]
    view[...] = stored
    return view.transpose(np.argsort(order))


LAYOUT_OPS = ["add", "sub", "mul", "maximum", "lt", "eq", "and_", "int_div"]
LAYOUT_OPS += ["neg", "abs", "exp", "sqrt", "invert", "isnan"]


@given(
    op=st.sampled_from(LAYOUT_OPS),
    dtype=st.sampled_from(DTYPES),
    shape=st.lists(st.integers(0, 4), max_size=3),
    data=st.data(),
)
def test_random_layouts_match_numpy(op, dtype, shape, data):
    assume(not refused(op, dtype))
    arity = 1 if op in UNARY else 2
    rng = np.random.default_rng(len(shape))
    size = int(np.prod(shape))
    args = [
        data.draw(strided_copy(random_values(dtype, size, rng).reshape(shape)))
        for _ in range(arity)
    ]
    xs = [
        ot.tensor(f"x{i}", dtype=dtype, shape=(None,) * len(shape))
        for i in range(arity)
    ]
    out = getattr(ot, op)(*xs)
    # isnan/isinf of integers are constants, not reading a 0-d input.
    got = oxtensor.function(xs, out, on_unused_input="ignore")(*args)
    assert_matches(got, expected(op, args, out.dtype), out.dtype)


def test_non_canonical_bools_are_read_as_numpy_reads_them(path):
    # Bytes other than 0/1 viewed as bool: NumPy treats them as true.
    b = ot.tensor("b", dtype="bool", shape=(None,))
    f = oxtensor.function([b], [ot.invert(path(b)), ot.eq(path(b), np.array(True))])
    raw = np.array([2, 0, 1, 255], np.uint8).view(bool)
    inverted, is_true = f(raw)
    assert_matches(inverted, np.array([False, True, False, False]))
    assert_matches(is_true, np.array([True, False, True, True]))


# oxtensor's logical ops on bools and NumPy's functions for them.
LOGICAL = {
    "and_": np.logical_and,
    "or_": np.logical_or,
    "xor": np.logical_xor,
    "eq": np.equal,
    "neq": np.not_equal,
    "lt": np.less,
    "gt": np.greater,
    "le": np.less_equal,
    "ge": np.greater_equal,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "add": np.add,
    "mul": np.multiply,
}


@pytest.mark.parametrize("op", LOGICAL)
def test_logical_ops_read_raw_bool_bytes_as_nonzero(op):
    # These read host bools as bytes, unchecked: any nonzero byte is true,
    # and the result holds only 0/1 bytes, as NumPy's bools do.
    raw = np.array([[2, 0, 1, 255, 0x80, 7], [0, 3, 0, 1, 1, 0]], np.uint8)
    a, b = raw.view(bool), raw[::-1].view(bool)
    x = ot.matrix("x", dtype="bool")
    full, row = (
        ot.matrix("y", dtype="bool"),
        ot.tensor("y", dtype="bool", shape=(1, None)),
    )
    for y, u, v in [(full, a, b), (full, a[:, ::2], b[:, 1::2]), (row, a, b[:1])]:
        got = oxtensor.function([x, y], getattr(ot, op)(x, y))(u, v)
        want = LOGICAL[op](u.view(np.uint8) != 0, v.view(np.uint8) != 0)
        assert_matches(got, want)
        assert got.view(np.uint8).max() <= 1


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
def test_all_and_any_read_raw_bool_bytes_as_nonzero(axis):
    raw = np.array([[2, 0x80, 0], [0xFF, 0, 0], [7, 3, 0]], np.uint8)
    x = ot.matrix("x", dtype="bool")
    f = oxtensor.function([x], [x.all(axis=axis), x.any(axis=axis)])
    for bytes_ in [raw, raw.T, raw[:, ::2]]:
        nz = bytes_ != 0
        got = f(bytes_.view(bool))
        for g, want in zip(got, [nz.all(axis=axis), nz.any(axis=axis)], strict=True):
            assert_matches(g, want)
            assert np.asarray(g).view(np.uint8).max() <= 1


def test_raw_bool_bytes_are_converted_for_readers_of_real_bools():
    # `x` feeds `invert` (reads bytes), a cast and a sum (read bools), and is
    # an output: it is converted first, and every result agrees with NumPy.
    raw = np.array([2, 0, 1, 255, 0x80, 0], np.uint8)
    x = ot.vector("x", dtype="bool")
    outs = [ot.invert(x), x.astype("int8"), x.sum(), x]
    got = oxtensor.function([x], outs)(raw.view(bool))
    nz = raw != 0
    for g, want in zip(got, [~nz, nz.astype("int8"), nz.sum(), nz], strict=True):
        assert_matches(g, want)
    assert got[0].view(np.uint8).max() <= 1
    assert got[3].view(np.uint8).max() <= 1
