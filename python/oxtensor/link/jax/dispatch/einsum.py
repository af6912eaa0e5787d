"""``Einsum`` nodes left by the rewrites (those planned without known
lengths) on JAX: ``jnp.einsum`` of the subscripts, which plans its own
contraction order when JAX compiles."""

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from oxtensor.link.jax.dispatch.basic import jax_funcify
from oxtensor.tensor.einsum import Einsum


@jax_funcify.register(Einsum)
def _einsum(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    subscripts = op.subscripts
    return lambda *operands: jnp.einsum(subscripts, *operands)
