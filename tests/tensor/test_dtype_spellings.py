"""Every spelling NumPy accepts for a dtype oxtensor has works wherever a dtype
is given (`DType::from_numpy` in the core, `parse_dtype` in the py crate), and
byte-swapped arrays are converted on the way into a compiled function."""

import warnings

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest

SUPPORTED = {
    "bool",
    *(f"{k}{n}" for k in ("int", "uint") for n in (8, 16, 32, 64)),
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
}


def _numpy_name(spelling):
    try:
        return np.dtype(spelling).name
    except TypeError:
        return None


def _spellings():
    """NumPy's string spellings of the supported dtypes: its names and
    aliases, every type code, and the codes with each byte-order prefix."""
    names = [k for k in np.sctypeDict if isinstance(k, str) and len(k) > 1]
    codes = list(np.typecodes["All"]) + [
        f"{kind}{size}" for kind in "biufc" for size in (1, 2, 4, 8, 16)
    ]
    prefixed = [p + c for p in "<>=|" for c in codes]
    out = []
    for s in names + codes + prefixed:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # NumPy's "a"
            name = _numpy_name(s)
        if name in SUPPORTED:
            out.append((s, name))
    return out


SPELLINGS = _spellings()


def test_the_list_covers_the_issues_spellings():
    given = {s for s, _ in SPELLINGS}
    assert {
        "f8",
        "float",
        "<f8",
        "i4",
        ">f4",
        "=i4",
        "|b1",
        "d",
        "int",
        "double",
    } <= given
    assert len(SPELLINGS) > 150


@pytest.mark.parametrize(("spelling", "name"), SPELLINGS)
def test_every_numpy_string_spelling(spelling, name):
    assert ot.tensor(dtype=spelling, shape=(None,)).dtype == name
    x = ot.dvector("x")
    assert ot.cast(x, spelling).dtype == name
    assert x.astype(spelling).dtype == name


@pytest.mark.parametrize(
    "given",
    [
        np.float32,
        np.dtype("int16"),
        np.dtype(">f4"),
        float,
        int,
        bool,
        complex,
        np.uint8,
    ],
)
def test_types_and_dtype_objects(given):
    name = np.dtype(given).name
    assert ot.tensor(dtype=given, shape=(2,)).dtype == name
    assert ot.dvector().astype(given).dtype == name
    assert ot.constant(1, dtype=given).dtype == name
    assert oxtensor.shared(np.zeros(2, dtype=given)).dtype == name


def test_dtypes_oxtensor_lacks_are_named_in_the_error():
    with pytest.raises(
        TypeError, match=r"Unsupported dtype 'f16'; expected one of bool"
    ):
        ot.tensor(dtype="f16", shape=())
    with pytest.raises(TypeError, match=r"float128.*Unsupported dtype 'float128'"):
        ot.dvector().astype(np.float128)
    with pytest.raises(TypeError, match="Unsupported dtype '<float64'"):
        ot.cast(ot.dvector(), "<float64")


@pytest.mark.parametrize("stored", [">f4", ">f8", "<f4", ">i8", ">u2"])
def test_byte_swapped_arguments_are_converted(stored):
    x = ot.dvector("x")
    f = oxtensor.function([x], x * 2.0)
    data = np.arange(3, dtype=stored)
    np.testing.assert_array_equal(f(data), np.arange(3.0) * 2)


def test_byte_swapped_argument_of_the_exact_dtype():
    x = ot.fvector("x")
    f = oxtensor.function([x], x + 1)
    np.testing.assert_array_equal(f(np.arange(3, dtype=">f4")), np.arange(1.0, 4.0))


def test_byte_swapped_constant_and_shared():
    c = ot.constant(np.arange(3, dtype=">f8"))
    s = oxtensor.shared(np.arange(3, dtype=">i4"))
    f = oxtensor.function([], [c * 2, s + 1])
    a, b = f()
    np.testing.assert_array_equal(a, np.arange(3.0) * 2)
    np.testing.assert_array_equal(b, np.arange(1, 4))


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_64_bit_integer_outputs_are_numpys_sized_types(dtype):
    # Elements of an int64 output are `np.int64` (not the equal but distinct
    # `np.longlong` where C `long` has 64 bits), as with PyTensor.
    x = ot.vector("x", dtype=dtype)
    s = ot.scalar("s", dtype=dtype)
    f = oxtensor.function([x, s], [ot.maximum(x, x), ot.maximum(s, s)])
    vec, scal = f(np.arange(3, dtype=dtype), 4)
    want = np.dtype(dtype).type
    assert vec.dtype.char == np.dtype(dtype).char
    assert type(vec[0]) is want
    assert type(scal[()]) is want
    assert scal.dtype.char == np.dtype(dtype).char
