"""``rfft`` and ``irfft`` against NumPy's ``rfftn``/``irfftn`` over every
axis but the first, with each normalisation, odd lengths, float32, their
gradients and errors."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import verify_grad
from oxtensor.tensor import fft


def as_complex(pairs):
    return pairs[..., 0] + 1j * pairs[..., 1]


@pytest.mark.parametrize("shape", [(2, 8), (1, 7), (2, 4, 6), (1, 3, 5, 4)])
@pytest.mark.parametrize("norm", [None, "ortho", "no_norm"])
def test_rfft_matches_numpy(shape, norm):
    x = np.random.default_rng(0).normal(size=shape)
    got = as_complex(fft.rfft(ot.as_tensor(x), norm=norm).eval())
    axes = tuple(range(1, len(shape)))
    np_norm = "ortho" if norm == "ortho" else "backward"
    np.testing.assert_allclose(
        got, np.fft.rfftn(x, axes=axes, norm=np_norm), atol=1e-12
    )


@pytest.mark.parametrize("is_odd", [False, True])
@pytest.mark.parametrize("norm", [None, "ortho", "no_norm"])
def test_irfft_matches_numpy(is_odd, norm):
    rng = np.random.default_rng(1)
    spec = rng.normal(size=(2, 4, 5, 2))
    n_last = 2 * (5 - 1) + int(is_odd)
    got = fft.irfft(ot.as_tensor(spec), norm=norm, is_odd=is_odd).eval()
    want = np.fft.irfftn(as_complex(spec), s=(4, n_last), axes=(1, 2))
    scale = {None: 1.0, "ortho": np.sqrt(4 * n_last), "no_norm": 4 * n_last}[norm]
    np.testing.assert_allclose(got, want * scale, atol=1e-12)


def test_round_trip_in_float32():
    x = np.random.default_rng(2).random((3, 16)).astype("float32")
    spec = fft.rfft(ot.as_tensor(x))
    back = fft.irfft(spec)
    assert spec.dtype == back.dtype == "float32"
    np.testing.assert_allclose(back.eval(), x, atol=1e-5)


@pytest.mark.parametrize("norm", [None, "ortho", "no_norm"])
def test_gradients(norm):
    rng = np.random.default_rng(3)
    verify_grad(lambda v: fft.rfft(v, norm=norm), [rng.random((2, 6))], rng=rng)
    verify_grad(lambda v: fft.rfft(v, norm=norm), [rng.random((1, 3, 5))], rng=rng)
    verify_grad(lambda v: fft.irfft(v, norm=norm), [rng.random((2, 4, 2))], rng=rng)
    verify_grad(
        lambda v: fft.irfft(v, norm=norm, is_odd=True),
        [rng.random((1, 3, 4, 2))],
        rng=rng,
    )


def test_errors():
    with pytest.raises(ValueError, match="norm"):
        fft.rfft(ot.matrix(), norm="forward")
    with pytest.raises(ValueError, match="is_odd"):
        fft.irfft(ot.tensor3(), is_odd=2)
    with pytest.raises(TypeError, match="at least 2"):
        fft.rfft(ot.vector())
    with pytest.raises(ValueError, match="FFT"):
        fft.RFFTOp()(ot.as_tensor(np.ones((1, 4))), [0]).eval()
