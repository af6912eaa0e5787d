"""The distributions: one `RandomVariable` subclass each, and the module
functions users call (``normal(loc, scale, size=..., rng=...)``), which
are the ops themselves or thin wrappers (``gamma``'s ``rate``,
``standard_normal``, ``choice``, ``permutation``).

Each draw is the ``numpy.random.Generator`` method of the same name
(``bernoulli``, ``categorical``, ``choice``, ``permutation`` compose
NumPy's), so a function seeded like a NumPy generator draws the same
numbers NumPy does.
"""

from typing import Any

import numpy as np

from oxtensor.tensor.random.declare import distribution
from oxtensor.tensor.random.more import *  # noqa: F403 (the rest of PyTensor's set)
from oxtensor.tensor.random.more import __all__ as _MORE
from oxtensor.tensor.random.op import RandomVariable

#: NumPy's, which PyTensor's module re-exports.
broadcast_shapes = np.broadcast_shapes


_LOC_SCALE = {"loc": 0.0, "scale": 1.0}

NormalRV = distribution("NormalRV", "normal", ("loc", "scale"), defaults=_LOC_SCALE)
UniformRV = distribution(
    "UniformRV", "uniform", ("low", "high"), defaults={"low": 0.0, "high": 1.0}
)
BetaRV = distribution("BetaRV", "beta", ("alpha", "beta"))
GammaRV = distribution(
    "GammaRV",
    "gamma",
    ("shape", "scale"),
    doc="Parametrised by ``shape`` and ``scale``, as NumPy's ``gamma``.",
)
LogNormalRV = distribution(
    "LogNormalRV", "lognormal", ("mean", "sigma"), defaults={"mean": 0.0, "sigma": 1.0}
)
LaplaceRV = distribution("LaplaceRV", "laplace", ("loc", "scale"), defaults=_LOC_SCALE)
LogisticRV = distribution(
    "LogisticRV", "logistic", ("loc", "scale"), defaults=_LOC_SCALE
)
ExponentialRV = distribution(
    "ExponentialRV", "exponential", ("scale",), defaults={"scale": 1.0}
)
ChiSquareRV = distribution("ChiSquareRV", "chisquare", ("df",))
BinomialRV = distribution("BinomialRV", "binomial", ("n", "p"), dtype="int64")
PoissonRV = distribution(
    "PoissonRV", "poisson", ("lam",), dtype="int64", defaults={"lam": 1.0}
)
GeometricRV = distribution("GeometricRV", "geometric", ("p",), dtype="int64")
MultinomialRV = distribution(
    "MultinomialRV", "multinomial", ("n", "p"), dtype="int64", signature="(),(p)->(p)"
)


class IntegersRV(RandomVariable):
    """Integers in ``[low, high)``."""

    name = "integers"
    signature = "(),()->()"
    dtype = "int64"
    param_names = ("low", "high")

    def __call__(self, low: Any, high: Any = None, **kwargs: Any) -> Any:
        if high is None:  # NumPy's integers(n): [0, n)
            low, high = 0, low
        return super().__call__(low, high, **kwargs)


class BernoulliRV(RandomVariable):
    name = "bernoulli"
    signature = "()->()"
    dtype = "int64"
    param_names = ("p",)

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        p, size = args
        return rng.binomial(1, p, size=size)


class CategoricalRV(RandomVariable):
    """Index ``i`` with probability ``p[..., i]`` (the last axis need not
    sum to one: it is normalised)."""

    name = "categorical"
    signature = "(p)->()"
    dtype = "int64"
    param_names = ("p",)

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        p, size = args
        p = np.asarray(p)
        batch = p.shape[:-1] if size is None else size
        cdf = np.cumsum(np.broadcast_to(p, (*batch, p.shape[-1])), axis=-1)
        u = rng.random((*batch, 1)) * cdf[..., -1:]
        return np.minimum((cdf <= u).sum(axis=-1), p.shape[-1] - 1)


class PermutationRV(RandomVariable):
    """A shuffled copy of ``x`` along its last axis; each batch row is
    shuffled independently."""

    name = "permutation"
    signature = "(x)->(x)"
    dtype = None
    param_names = ("x",)

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        x, size = args
        x = np.asarray(x)
        if size is None and x.ndim == 1:
            return rng.permutation(x)
        if size is not None:
            x = np.broadcast_to(x, (*size, x.shape[-1]))
        return rng.permuted(x, axis=-1)


class ChoiceRV(RandomVariable):
    """Draws from the vector ``a`` (with probabilities ``p`` when the
    signature has them), with or without replacement."""

    __props__ = (*RandomVariable.__props__, "replace")
    name = "choice"
    signature = "(x)->()"
    dtype = None

    def __init__(self, replace: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.replace = bool(replace)

    def __str__(self) -> str:
        return f"ChoiceRV(choice, replace={self.replace})"

    def make_node(self, rng: Any, size: Any, *dist_params: Any) -> Any:
        node = super().make_node(rng, size, *dist_params)
        batched = [p for p in self.dist_params(node) if p.ndim != 1]
        if batched:
            raise NotImplementedError(
                f"{self}: a and p must be vectors (batched choice is not "
                f"supported), got {[p.type for p in batched]}"
            )
        return node

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        *params, size = args
        p = params[1] if len(params) > 1 else None
        return rng.choice(params[0], size=size, replace=self.replace, p=p)


normal = NormalRV()
uniform = UniformRV()
beta = BetaRV()
_gamma = GammaRV()
lognormal = LogNormalRV()
laplace = LaplaceRV()
logistic = LogisticRV()
exponential = ExponentialRV()
chisquare = ChiSquareRV()
integers = IntegersRV()
binomial = BinomialRV()
bernoulli = BernoulliRV()
poisson = PoissonRV()
geometric = GeometricRV()
categorical = CategoricalRV()
multinomial = MultinomialRV()
_permutation = PermutationRV()


def standard_normal(**kwargs: Any) -> Any:
    """``normal(0, 1, ...)``."""
    return normal(0.0, 1.0, **kwargs)


def gamma(shape: Any, rate: Any = None, scale: Any = None, **kwargs: Any) -> Any:
    """Gamma draws with ``scale``; ``rate`` (``1 / scale``) is deprecated,
    as in PyTensor 3.0 (`FutureWarning`). One of them is required."""
    if rate is not None and scale is not None:
        raise ValueError("Cannot specify both rate and scale")
    if rate is None and scale is None:
        raise ValueError("Must specify scale")
    if rate is not None:
        import warnings

        from oxtensor.tensor import as_tensor_variable

        warnings.warn(
            "Gamma rate argument is deprecated and will stop working, "
            "use scale instead",
            FutureWarning,
            stacklevel=2,
        )
        scale = 1.0 / as_tensor_variable(rate)
    return _gamma(shape, scale, **kwargs)


def _range_if_int(x: Any) -> Any:
    """NumPy reads an integer ``n`` as ``arange(n)`` in choice and permutation."""
    from oxtensor.tensor import arange, as_tensor_variable

    x = as_tensor_variable(x)
    if x.ndim == 0 and x.dtype.startswith(("int", "uint")):
        return arange(x)
    return x


def permutation(x: Any, **kwargs: Any) -> Any:
    """A shuffled copy of ``x`` (``arange(x)`` for an integer)."""
    return _permutation(_range_if_int(x), **kwargs)


def choice(
    a: Any, size: Any = None, replace: bool = True, p: Any = None, **kwargs: Any
) -> Any:
    """Draws from ``a`` (``arange(a)`` for an integer), as NumPy's ``choice``."""
    params = [_range_if_int(a)] if p is None else [_range_if_int(a), p]
    signature = "(x)->()" if p is None else "(x),(x)->()"
    return ChoiceRV(replace=replace, signature=signature)(*params, size=size, **kwargs)


__all__ = [
    *_MORE,
    "BernoulliRV",
    "BetaRV",
    "BinomialRV",
    "CategoricalRV",
    "ChiSquareRV",
    "ChoiceRV",
    "ExponentialRV",
    "GammaRV",
    "GeometricRV",
    "IntegersRV",
    "LaplaceRV",
    "LogNormalRV",
    "LogisticRV",
    "MultinomialRV",
    "NormalRV",
    "PermutationRV",
    "PoissonRV",
    "UniformRV",
    "bernoulli",
    "beta",
    "binomial",
    "broadcast_shapes",
    "categorical",
    "chisquare",
    "choice",
    "exponential",
    "gamma",
    "geometric",
    "integers",
    "laplace",
    "logistic",
    "lognormal",
    "multinomial",
    "normal",
    "permutation",
    "poisson",
    "standard_normal",
    "uniform",
]
