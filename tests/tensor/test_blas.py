"""Large real products through NumPy's OpenBLAS (``oxtensor.tensor.blas``)
and through faer: the same values as NumPy in every layout, either way; and
the routing between the two (``auto``, ``numpy``, ``faer``)."""

import os
import subprocess
import threading
from collections.abc import Iterator

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oxtensor import _core
from oxtensor.tensor import blas

from tests.helpers import (
    assert_product_close,
    assert_within,
    product_error_bound,
    run_python,
)

HAS_OPENBLAS = blas._loaded_openblas() != []
BACKENDS = ["numpy", "faer"] if HAS_OPENBLAS else ["faer"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, blas_engine) -> Iterator[str]:
    """Products on faer, or every product that fits on NumPy's OpenBLAS
    (not only those above the default 2^27 multiply-adds), whichever engine
    this machine's facts prefer."""
    blas_engine("faer")
    if request.param == "numpy":
        everything = list(blas._FAMILIES)
        assert blas._install_numpy_openblas(min_work=0, families=everything)
    return request.param


def layouts(a: np.ndarray) -> dict[str, np.ndarray]:
    """``a``'s values in C order, F order, as a row slice of a wider matrix
    (leading dimension above the width), and with a column step of two
    (no unit stride: faer's case)."""
    wide = np.zeros((a.shape[0], a.shape[1] * 2 + 3), a.dtype)
    wide[:, : a.shape[1]] = a
    stepped = np.zeros((a.shape[0], a.shape[1] * 2), a.dtype)
    stepped[:, ::2] = a
    return {
        "C": np.ascontiguousarray(a),
        "F": np.asfortranarray(a),
        "wide": wide[:, : a.shape[1]],
        "stepped": stepped[:, ::2],
    }


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("la", ["C", "F", "wide", "stepped"])
@pytest.mark.parametrize("lb", ["C", "F", "wide", "stepped"])
def test_dot_in_every_layout(backend: str, dtype: str, la: str, lb: str) -> None:
    rng = np.random.default_rng(0)
    # 97·83·71 multiply-adds: above the threaded threshold (2^18), odd sizes.
    a = rng.standard_normal((97, 83)).astype(dtype)
    b = rng.standard_normal((83, 71)).astype(dtype)
    x, y = ot.matrix("x", dtype=dtype), ot.matrix("y", dtype=dtype)
    f = oxtensor.function([x, y], ot.dot(x, y))
    calls = _core._blas_products()
    got = f(layouts(a)[la], layouts(b)[lb])
    assert_product_close(got, a, b)
    # Which engine ran shows in no bits (NumPy's ?gemm, threaded, promises
    # no summation order, even to itself), so count the library's calls:
    # every layout with a unit stride goes there.
    host = backend == "numpy" and "stepped" not in (la, lb)
    assert _core._blas_products() - calls == int(host)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("la", ["C", "F", "wide", "stepped"])
def test_matrix_vector_in_every_layout(backend: str, dtype: str, la: str) -> None:
    # 613·457 multiply-adds: threaded, so the host's ?gemv where it serves
    # inner products, else the four-row and scaled-column kernels.
    rng = np.random.default_rng(1)
    a = rng.standard_normal((613, 457)).astype(dtype)
    v = rng.standard_normal(457).astype(dtype)
    w = rng.standard_normal(613).astype(dtype)
    m, x = ot.matrix("m", dtype=dtype), ot.vector("x", dtype=dtype)
    right = oxtensor.function([m, x], ot.dot(m, x))
    left = oxtensor.function([m, x], ot.dot(x, m))
    mat = layouts(a)[la]
    for vec in (v, np.repeat(v, 2)[::2], v[::-1].copy()[::-1]):
        assert_product_close(right(mat, vec), a, v)
    for vec in (w, np.repeat(w, 3)[::3]):
        assert_product_close(left(mat, vec), w, a)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 17, 100_003])
def test_inner_products(dtype: str, n: int, blas_engine) -> None:
    """Vector · vector (and ``norm``) on each engine: NumPy's ``?dot`` when
    the host serves inner products, else our kernel. Either way within the
    bound of a sum of ``n`` products, not bit for bit: OpenBLAS splits long
    ``?dot`` calls over its threads, our kernel by its SIMD lanes."""
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((2, n)).astype(dtype)
    x, y = ot.vector("x", dtype=dtype), ot.vector("y", dtype=dtype)
    f = oxtensor.function([x, y], ot.dot(x, y))
    norm = oxtensor.function([x], ot.linalg.norm(x))
    for mode in [*BACKENDS, "auto"]:
        blas_engine(mode)
        assert_product_close(f(a, b), a, b, mode)
        # norm = sqrt(a · a): the sum's bound, halved by the square root.
        bound = product_error_bound(a, a) / (2 * np.linalg.norm(a) + (n == 0))
        assert_within(norm(a), np.linalg.norm(a).astype(dtype), bound, mode)
        # Strided operands stay on faer's product.
        assert_product_close(f(a[::2], b[::2]), a[::2], b[::2], mode)


@pytest.mark.parametrize(
    ("sa", "sb"),
    [
        ((300, 200), (200,)),  # matrix · vector
        ((200,), (200, 300)),  # vector · matrix
        ((1, 700), (700, 500)),  # one row
        ((500, 700), (700, 1)),  # one column
        ((0, 300), (300, 400)),  # no rows
        ((300, 0), (0, 400)),  # nothing to sum: zeros
    ],
)
def test_dot_edge_shapes(
    backend: str, sa: tuple[int, ...], sb: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    x = ot.tensor("x", dtype="float64", shape=(None,) * len(sa))
    y = ot.tensor("y", dtype="float64", shape=(None,) * len(sb))
    got = oxtensor.function([x, y], ot.dot(x, y))(a, b)
    assert_product_close(got, a, b)


def test_batched_matmul(backend: str) -> None:
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 90, 80))
    b = rng.standard_normal((80, 70))
    x, y = ot.tensor3("x"), ot.dmatrix("y")
    got = oxtensor.function([x, y], x @ y)(a, b)
    assert_product_close(got, a, b)
    # A transposed stack (each matrix column-major).
    at = np.ascontiguousarray(a.transpose(0, 2, 1)).transpose(0, 2, 1)
    assert_product_close(oxtensor.function([x, y], x @ y)(at, b), a, b)


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(1, 90),
    k=st.integers(1, 90),
    n=st.integers(1, 90),
    ta=st.booleans(),
    tb=st.booleans(),
    dtype=st.sampled_from(["float32", "float64"]),
)
def test_random_products_match_numpy(
    m: int, k: int, n: int, ta: bool, tb: bool, dtype: str
) -> None:
    rng = np.random.default_rng(m * 10000 + k * 100 + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    a_in = np.asfortranarray(a) if ta else a
    b_in = np.asfortranarray(b) if tb else b
    x, y = ot.matrix("x", dtype=dtype), ot.matrix("y", dtype=dtype)
    got = oxtensor.function([x, y], ot.dot(x, y))(a_in, b_in)
    assert_product_close(got, a, b)


def test_functions_compiled_before_a_switch_follow_it(blas_engine) -> None:
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((120, 130)), rng.standard_normal((130, 140))
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = oxtensor.function([x, y], ot.dot(x, y))
    for name in [*BACKENDS, "auto"]:
        blas_engine(name)
        assert_product_close(f(a, b), a, b, name)


def faer_is_wider() -> bool:
    """The machine fact ``auto`` reads: AVX-512F here, and the host library
    (if any) runs kernels without it."""
    avx512, _, host_avx512 = _core._blas_machine()
    return avx512 and not host_avx512


@pytest.mark.skipif(not HAS_OPENBLAS, reason="NumPy is not built on OpenBLAS here")
def test_auto_follows_the_machine(blas_engine) -> None:
    blas_engine("auto")
    engines = blas.engines()
    library = engines["eigh"]
    assert library.startswith("OpenBLAS ")
    assert library.endswith("(NumPy's)")
    # Products go to faer exactly when its kernels are the wider ones.
    assert (blas.blas_name() is None) == faer_is_wider()
    assert engines["product"] == ("faer" if faer_is_wider() else library)
    # LU, Cholesky and QR follow products; inner products, eigh and SVD
    # stay on NumPy's library.
    for family in ("lu", "cholesky", "qr"):
        assert engines[family] == engines["product"]
    assert engines["dot"] == engines["eigh"] == engines["svd"] == library
    kernel = _core._blas_machine()[1]
    assert kernel
    assert engines["machine"].startswith("auto: CPU ")
    assert f"host kernel {kernel}" in engines["machine"]


def test_numpy_and_faer_route_everything(blas_engine) -> None:
    blas_engine("faer")
    assert set(blas.engines().values()) - {blas.engines()["machine"]} == {"faer"}
    assert blas.engines()["machine"].startswith("faer: ")
    if HAS_OPENBLAS:
        blas_engine("numpy")
        engines = blas.engines()
        names = {v for k, v in engines.items() if k != "machine"}
        assert len(names) == 1
        assert names.pop() == blas.blas_name() != "faer"


def test_bad_choices_raise_and_change_nothing() -> None:
    before = (blas.blas_mode(), blas.engines())
    with pytest.raises(
        ValueError, match="use_blas takes 'auto', 'numpy' or 'faer', not 'mkl'"
    ):
        blas.use_blas("mkl")
    with pytest.raises(OSError, match=r"cannot open /nonexistent/libopenblas\.so"):
        _core._install_blas("/nonexistent/libopenblas.so")
    with pytest.raises(ValueError, match="unknown family 'gemm'; valid families: "):
        _core._install_blas("/nonexistent/libopenblas.so", families=["gemm"])
    assert (blas.blas_mode(), blas.engines()) == before


def run_fresh(env_value: str | None) -> subprocess.CompletedProcess[str]:
    """A fresh process's ``blas_name()`` at import, ``OXTENSOR_BLAS`` set
    to ``env_value`` (None: unset, whatever this run has)."""
    code = "from oxtensor.tensor import blas; print(blas.blas_mode(), blas.blas_name())"
    env = {k: v for k, v in os.environ.items() if k != "OXTENSOR_BLAS"}
    if env_value is not None:
        env["OXTENSOR_BLAS"] = env_value
    return run_python(code, env)


def test_environment_chooses_at_import() -> None:
    assert run_fresh("faer").stdout.strip() == "faer None"
    bogus = run_fresh("bogus")
    assert bogus.stdout.strip() == "faer None"
    assert (
        "OXTENSOR_BLAS='bogus' is not 'auto', 'numpy' or 'faer'; using faer"
        in bogus.stderr
    )
    # Unset, it is auto (this run's own OXTENSOR_BLAS may be anything).
    assert run_fresh(None).stdout == run_fresh("auto").stdout
    if HAS_OPENBLAS:
        numpy = run_fresh("numpy").stdout.strip()
        assert numpy.startswith("numpy OpenBLAS ")
        auto = run_fresh("auto").stdout.strip()
        library = numpy.removeprefix("numpy ")
        assert auto == "auto " + ("None" if faer_is_wider() else library)


def test_threads_share_the_library(backend: str) -> None:
    rng = np.random.default_rng(4)
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = oxtensor.function([x, y], ot.dot(x, y))
    pairs = [
        (rng.standard_normal((150, 90)), rng.standard_normal((90, 110)))
        for _ in range(4)
    ]
    results: list[list[np.ndarray]] = [[] for _ in pairs]

    def work(i: int) -> None:
        a, b = pairs[i]
        results[i] = [f(a, b) for _ in range(20)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(pairs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (a, b), got in zip(pairs, results, strict=True):
        assert len(got) == 20
        for g in got:
            assert_product_close(g, a, b)


@pytest.mark.skipif(not HAS_OPENBLAS, reason="NumPy is not built on OpenBLAS here")
def test_default_threshold_sends_large_products_to_numpy_blas(blas_engine) -> None:
    blas_engine("numpy")
    rng = np.random.default_rng(5)
    # 520·530·540 ≈ 1.5e8 multiply-adds, above the default 2^27; 500³ below.
    a, b = rng.standard_normal((520, 530)), rng.standard_normal((530, 540))
    small = rng.standard_normal((500, 500))
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = oxtensor.function([x, y], ot.dot(x, y))
    calls = _core._blas_products()
    got = f(a, b)
    # Which engine ran shows in no bits: NumPy's threaded ?gemm promises no
    # summation order, even from one call to the next (this compared equal
    # to ``a @ b`` on one machine and not on another). So count its calls.
    assert _core._blas_products() == calls + 1
    assert_product_close(got, a, b)
    assert_product_close(f(small, small), small, small)
    assert _core._blas_products() == calls + 1
