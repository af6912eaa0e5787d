"""`IfElse` as ``jax.lax.cond``. Both branches' inputs are computed before
the choice (as in PyTensor's JAX backend): the laziness of the native VM,
which computes only the chosen branch, does not carry over."""

from collections.abc import Callable
from typing import Any

import jax

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import jax_funcify


@jax_funcify.register(_core.IfElse)
def _ifelse(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    n = op.n_outs

    def ifelse(cond: Any, *branches: Any) -> Any:
        then, other = tuple(branches[:n]), tuple(branches[n:])
        return jax.lax.cond(cond.astype(bool), lambda: then, lambda: other)

    return ifelse
