"""Products: `Dot` and `Matmul`."""

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import jax_funcify


@jax_funcify.register(_core.Dot)
def _dot(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return jnp.dot


@jax_funcify.register(_core.Matmul)
def _matmul(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return jnp.matmul
