"""``Convolve1d`` and the real FFT ops on JAX (``jnp.convolve`` and
``jnp.fft``). The mode and the transform lengths pick the computation, so
JAX needs them known while tracing: they are when the inputs' lengths are
static (the rewrites fold them into constants)."""

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import jax_funcify, static_value


@jax_funcify.register(_core.Convolve1d)
def _convolve1d(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def convolve(a: Any, b: Any, full_mode: Any) -> Any:
        mode = "full" if bool(static_value(full_mode, node, 2)) else "valid"
        return jnp.convolve(a, b, mode=mode)

    return convolve


def _lengths(s: Any, node: Any) -> tuple[int, ...]:
    return tuple(int(n) for n in static_value(s, node, 1))


def _twice_counted(spec: Any, n: int, weight: float) -> Any:
    """``spec`` with the frequencies a length-``n`` real signal counts twice
    (1 .. (n-1)/2 along the last axis) multiplied by ``weight``."""
    if weight == 1.0:
        return spec
    return spec.at[..., 1 : (n + 1) // 2].multiply(weight)


def _forward(node: Any, weight: float) -> Callable[..., Any]:
    dtype = node.outputs[0].dtype

    def rfft(a: Any, s: Any) -> Any:
        lengths = _lengths(s, node)
        spec = jnp.fft.rfftn(a, s=lengths, axes=tuple(range(1, a.ndim)))
        spec = _twice_counted(spec, lengths[-1], weight)
        return jnp.stack([spec.real, spec.imag], axis=-1).astype(dtype)

    return rfft


def _inverse(node: Any, weight: float) -> Callable[..., Any]:
    dtype = node.outputs[0].dtype

    def irfft(a: Any, s: Any) -> Any:
        lengths = _lengths(s, node)
        spec = _twice_counted(a[..., 0] + 1j * a[..., 1], lengths[-1], weight)
        axes = tuple(range(1, spec.ndim))
        # Unnormalised, as the op: NumPy's irfftn divides by the points.
        points = float(np.prod(lengths))
        return (jnp.fft.irfftn(spec, s=lengths, axes=axes) * points).astype(dtype)

    return irfft


def _register(
    op_class: Any, make: Callable[[Any, float], Callable[..., Any]], weight: float
) -> None:
    """``op_class`` on JAX: ``make(node, weight)``."""

    @jax_funcify.register(op_class)
    def funcify(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
        return make(node, weight)


# The gradient of each transform is the other one, the frequencies a real
# signal counts twice weighted.
for _op_class, _make, _weight in [
    (_core.RFFTOp, _forward, 1.0),
    (_core.IRFFTGrad, _forward, 2.0),
    (_core.IRFFTOp, _inverse, 1.0),
    (_core.RFFTGrad, _inverse, 0.5),
]:
    _register(_op_class, _make, _weight)
