"""Annotations of `oxtensor._core`: the autodiff entry points.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

def _grad(
    cost: Variable | None,
    wrt: list[Variable],
    consider_constant: list[Variable],
    known_grads: list[tuple[Variable, Variable]],
    known_replaces: bool,
    disconnected_inputs: str,
    add_names: bool,
    return_disconnected: str,
    null_gradients: str,
) -> list[t.Any]:
    """The core of ``oxtensor.grad``."""

def _pushforward(
    f: list[Variable],
    wrt: list[Variable],
    tangents: list[Variable],
    use_op_pushforward: bool,
    disconnected_outputs: str,
    return_disconnected: str,
) -> list[t.Any]:
    """The core of ``oxtensor.pushforward`` and ``Rop``."""

def _grad_op(x: t.Any, kind: str, a: float = 0.0, b: float = 0.0) -> t.Any:
    """``zero_grad``, ``disconnected_grad``, ``undefined_grad``, ``grad_clip``,
    ``grad_scale``."""

def _jacobian(
    expression: Variable,
    wrt: list[Variable],
    consider_constant: list[Variable],
    disconnected_inputs: str,
    hessian: bool,
) -> list[t.Any]:
    """The core of ``oxtensor.gradient.jacobian`` (and of ``hessian`` when
    ``hessian``)."""

def _jacobian_op(
    inputs: list[Variable],
    u: Variable,
    y: Variable,
    wrt: list[Variable],
    rows: list[Variable],
) -> Op:
    """The ``Jacobian`` op over an inner graph given as variables (how a
    pickled one comes back)."""
