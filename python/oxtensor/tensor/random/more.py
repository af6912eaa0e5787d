"""The distributions beyond NumPy's everyday set, as PyTensor names them.

Each draws with NumPy's ``Generator`` method of its ``name`` (``triangular``,
``vonmises``, ``wald``, ``weibull``, ``hypergeometric``,
``negative_binomial``), or with SciPy's ``scipy.stats`` distribution of the
same parametrisation (``rvs(..., random_state=rng)``: the same numbers
SciPy draws from that generator). SciPy is imported at the first such draw.
"""

from typing import Any, ClassVar

import numpy as np

from oxtensor.tensor.random.declare import distribution
from oxtensor.tensor.random.op import RandomVariable


class _Scipy(RandomVariable):
    """Drawn by ``scipy.stats.<scipy_name>.rvs`` with the parameters in
    order."""

    scipy_name = ""

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        *params, size = args
        import scipy.stats

        dist = getattr(scipy.stats, self.scipy_name)
        if size is None:
            size = np.broadcast_shapes(*[np.shape(p) for p in params])
        return dist.rvs(*params, size=size, random_state=rng)


def _scipy(cls_name: str, name: str, scipy_name: str, *args: Any, **kw: Any) -> Any:
    """A distribution drawn by ``scipy.stats.<scipy_name>``."""
    return distribution(cls_name, name, *args, base=_Scipy, scipy_name=scipy_name, **kw)


_LOC_SCALE = {"loc": 0.0, "scale": 1.0}
_LS = ("loc", "scale")

CauchyRV = _scipy("CauchyRV", "cauchy", "cauchy", _LS, defaults=_LOC_SCALE)
HalfCauchyRV = _scipy(
    "HalfCauchyRV", "halfcauchy", "halfcauchy", _LS, defaults=_LOC_SCALE
)
HalfNormalRV = _scipy(
    "HalfNormalRV", "halfnormal", "halfnorm", _LS, defaults=_LOC_SCALE
)
# SciPy's draws, as PyTensor's (NumPy's `gumbel` samples differently).
GumbelRV = _scipy("GumbelRV", "gumbel", "gumbel_r", _LS, defaults=_LOC_SCALE)
StudentTRV = _scipy("StudentTRV", "t", "t", ("df", *_LS), defaults=_LOC_SCALE)
TruncExponentialRV = _scipy(
    "TruncExponentialRV",
    "truncexpon",
    "truncexpon",
    ("b", *_LS),
    defaults=_LOC_SCALE,
    doc="Exponential on ``[loc, loc + b * scale]``.",
)
BetaBinomialRV = _scipy(
    "BetaBinomialRV", "beta_binomial", "betabinom", ("n", "a", "b"), dtype="int64"
)
TriangularRV = distribution("TriangularRV", "triangular", ("left", "mode", "right"))
VonMisesRV = distribution("VonMisesRV", "vonmises", ("mu", "kappa"))
WaldRV = distribution(
    "WaldRV", "wald", ("mean", "scale"), defaults={"mean": 1.0, "scale": 1.0}
)
WeibullRV = distribution("WeibullRV", "weibull", ("a",))
HyperGeometricRV = distribution(
    "HyperGeometricRV",
    "hypergeometric",
    ("ngood", "nbad", "nsample"),
    dtype="int64",
)
NegBinomialRV = distribution(
    "NegBinomialRV",
    "negative_binomial",
    ("n", "p"),
    dtype="int64",
    doc="Failures before the ``n``-th success, each trial succeeding with "
    "probability ``p``.",
)


class _ShapeScale(_Scipy):
    """SciPy's distribution with ``loc`` fixed at 0: parameters ``(shape,
    scale)``."""

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        shape, scale, size = args
        return super().rng_fn(rng, shape, 0.0, scale, size)


InvGammaRV = distribution(
    "InvGammaRV",
    "invgamma",
    ("shape", "scale"),
    base=_ShapeScale,
    scipy_name="invgamma",
    doc="Inverse gamma with ``shape`` and ``scale``.",
)
ParetoRV = distribution(
    "ParetoRV",
    "pareto",
    ("b", "scale"),
    defaults={"scale": 1.0},
    base=_ShapeScale,
    scipy_name="pareto",
    doc="Pareto with shape ``b`` on ``[scale, inf)``.",
)


class GenGammaRV(_Scipy):
    """Generalised gamma: density proportional to
    ``x**(alpha - 1) * exp(-(x / lambd)**p)``, SciPy's
    ``gengamma(alpha / p, p, scale=lambd)``."""

    name = "gengamma"
    scipy_name = "gengamma"
    signature = "(),(),()->()"
    dtype = "floatX"
    param_names = ("alpha", "p", "lambd")
    param_defaults: ClassVar[dict[str, Any]] = {"alpha": 1.0, "p": 1.0, "lambd": 1.0}

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        alpha, p, lambd, size = args
        a = np.asarray(alpha) / np.asarray(p)
        return super().rng_fn(rng, a, p, 0.0, lambd, size)


def _batched(size: Any, *params: tuple[Any, int]) -> tuple[tuple, list[Any]]:
    """The batch shape (``size``, or the parameters' broadcast batch
    shapes) and each ``(value, core ndim)`` parameter broadcast to it.
    NumPy's errors name a size the parameters do not broadcast to."""
    arrays = [(np.asarray(v), nd) for v, nd in params]
    if size is None:
        size = np.broadcast_shapes(*[a.shape[: a.ndim - nd] for a, nd in arrays])
    size = tuple(size)
    out = [
        np.broadcast_to(a, size + (a.shape[a.ndim - nd :] if nd else ()))
        for a, nd in arrays
    ]
    return size, out


class DirichletRV(RandomVariable):
    """Dirichlet draws over the last axis of ``alphas``; batches of
    ``alphas`` draw independently."""

    name = "dirichlet"
    signature = "(a)->(a)"
    dtype = "floatX"
    param_names = ("alphas",)

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        alphas, size = args
        _, (alphas,) = _batched(size, (alphas, 1))
        # Normalised gamma variates: a Dirichlet draw, batched.
        draws = rng.standard_gamma(alphas)
        return draws / draws.sum(axis=-1, keepdims=True)


class MvNormalRV(RandomVariable):
    """Multivariate normal draws ``mean + factor @ z`` for standard normal
    ``z``, with ``factor`` from ``cov`` by ``method``: ``"cholesky"`` (a
    covariance that is not positive definite raises ``LinAlgError``),
    ``"svd"`` or ``"eigh"`` (both accept positive semi-definite ones)."""

    __props__ = (*RandomVariable.__props__, "method")
    name = "multivariate_normal"
    signature = "(n),(n,n)->(n)"
    dtype = "floatX"
    param_names = ("mean", "cov")

    def __init__(self, *args: Any, method: str = "cholesky", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if method not in ("cholesky", "svd", "eigh"):
            raise ValueError(
                f"Unknown method {method}. The method must be one of "
                "'cholesky', 'svd', or 'eigh'."
            )
        self.method = method

    def __call__(
        self, mean: Any, cov: Any, *, method: str | None = None, **kwargs: Any
    ) -> Any:
        op = (
            self
            if method is None or method == self.method
            else MvNormalRV(method=method)
        )
        return RandomVariable.__call__(op, mean, cov, **kwargs)

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        mean, cov, size = args
        size, (mean, cov) = _batched(size, (mean, 1), (cov, 2))
        if self.method == "cholesky":
            factor = np.linalg.cholesky(cov)
        elif self.method == "svd":
            u, s, _ = np.linalg.svd(cov)
            factor = u * np.sqrt(s)[..., None, :]
        else:
            w, v = np.linalg.eigh(cov)
            factor = v * np.sqrt(np.clip(w, 0, None))[..., None, :]
        z = rng.standard_normal(mean.shape)
        return mean + np.einsum("...ij,...j->...i", factor, z)


class ChoiceWithoutReplacement(RandomVariable):
    """Draws without replacement along the first core axis of ``a``
    (``arange(a)`` for a 0-d integer ``a``), with probabilities ``p`` when
    the signature has three parameters. The last parameter is the core
    shape of the sampled axes: ``"(a0,a1),(1)->(s0,a1)"`` draws ``s0``
    rows of ``a`` per batch. Batches (of ``a``, ``p`` or ``size``) draw
    independently."""

    name = "choice_without_replacement"
    signature = "(a0),(1)->(s0)"
    dtype = None

    @property
    def has_p(self) -> bool:
        return len(self._core_in) == 3

    def _sampled_ndim(self) -> int:
        return len(self._core_out[0]) - max(len(self._core_in[0]) - 1, 0)

    def _core_static_shape(self, params: list[Any]) -> tuple:
        from oxtensor.graph.basic import Constant

        shape = list(super()._core_static_shape(params))
        core = params[-1]
        values = (
            np.asarray(core.data).reshape(-1) if isinstance(core, Constant) else None
        )
        for k in range(self._sampled_ndim()):
            shape[k] = int(values[k]) if values is not None else None
        return tuple(shape)

    def infer_shape(self, fgraph: Any, node: Any, input_shapes: list) -> list:
        from oxtensor.tensor.random.shapes import infer_draw_shape

        full = infer_draw_shape(self, node, input_shapes)
        rest = len(self._core_out[0]) - self._sampled_ndim()
        batch, found = full[: len(full) - rest], full[len(full) - rest :]
        core_shape = node.inputs[-1]
        return [
            None,
            [*batch, *[core_shape[k] for k in range(self._sampled_ndim())], *found],
        ]

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        *params, core_shape, size = args
        core = tuple(int(n) for n in np.asarray(core_shape).reshape(-1))
        a_nd = len(self._core_in[0])
        pairs = [(params[0], a_nd)] + ([(params[1], 1)] if self.has_p else [])
        size, arrays = _batched(size, *pairs)
        a, p = arrays[0], (arrays[1] if self.has_p else None)
        out = None
        for idx in np.ndindex(*size):
            a_i = a[idx] if a_nd else int(a[idx])
            p_i = None if p is None else p[idx]
            draw = rng.choice(a_i, size=core, replace=False, p=p_i, axis=0)
            if out is None:
                out = np.empty(size + draw.shape, dtype=draw.dtype)
            out[idx] = draw
        return out


triangular = TriangularRV()
cauchy = CauchyRV()
halfcauchy = HalfCauchyRV()
halfnormal = HalfNormalRV()
invgamma = InvGammaRV()
truncexpon = TruncExponentialRV()
t = StudentTRV()
pareto = ParetoRV()
betabinom = BetaBinomialRV()
gengamma = GenGammaRV()
vonmises = VonMisesRV()
wald = WaldRV()
weibull = WeibullRV()
hypergeometric = HyperGeometricRV()
nbinom = NegBinomialRV()
dirichlet = DirichletRV()
gumbel = GumbelRV()
multivariate_normal = MvNormalRV()


def rayleigh(scale: Any = 1.0, *, size: Any = None, rng: Any = None) -> Any:
    """Rayleigh draws: ``scale * sqrt(chisquare(2))``, as SciPy draws them."""
    from oxtensor.tensor import as_tensor_variable, sqrt
    from oxtensor.tensor.random.basic import chisquare

    scale = as_tensor_variable(scale)
    if size is None:
        size = scale.shape
    return sqrt(chisquare(2.0, size=size, rng=rng)) * scale


__all__ = [
    "BetaBinomialRV",
    "CauchyRV",
    "ChoiceWithoutReplacement",
    "DirichletRV",
    "GenGammaRV",
    "GumbelRV",
    "HalfCauchyRV",
    "HalfNormalRV",
    "HyperGeometricRV",
    "InvGammaRV",
    "MvNormalRV",
    "NegBinomialRV",
    "ParetoRV",
    "StudentTRV",
    "TriangularRV",
    "TruncExponentialRV",
    "VonMisesRV",
    "WaldRV",
    "WeibullRV",
    "betabinom",
    "cauchy",
    "dirichlet",
    "gengamma",
    "gumbel",
    "halfcauchy",
    "halfnormal",
    "hypergeometric",
    "invgamma",
    "multivariate_normal",
    "nbinom",
    "pareto",
    "rayleigh",
    "t",
    "triangular",
    "truncexpon",
    "vonmises",
    "wald",
    "weibull",
]
