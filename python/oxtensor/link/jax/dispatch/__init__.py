"""The JAX implementations of oxtensor's ops, one module per family;
importing this package registers them all with `jax_funcify`."""

from oxtensor.link.jax.dispatch import (  # noqa: F401  (registrations)
    blas,
    einsum,
    extra,
    ifelse,
    linalg,
    reduce,
    scalar,
    shape,
    signal,
    solvers,
    sort,
    subtensor,
)
from oxtensor.link.jax.dispatch.basic import JAXUnsupportedError, jax_funcify

__all__ = ["JAXUnsupportedError", "jax_funcify"]
