"""`ifelse`: a lazy conditional. Only the branch the condition selects is
computed when the function runs."""

from typing import Any

from oxtensor import _core
from oxtensor.tensor.basic import as_tensor_variable

IfElse = _core.IfElse


def ifelse(
    condition: Any, then_branch: Any, else_branch: Any, name: str | None = None
) -> Any:
    """``then_branch`` if ``condition`` (a scalar) is true, else ``else_branch``.

    Both branches may be single variables or lists of the same length; the
    result has the same form.

    Examples
    --------
    >>> import numpy as np, oxtensor, oxtensor.tensor as ot
    >>> from oxtensor.ifelse import ifelse
    >>> c, x = ot.bscalar("c"), ot.dvector("x")
    >>> f = oxtensor.function([c, x], ifelse(c, x * 2, x + 1))
    >>> f(1, np.array([1.0, 2.0]))
    array([2., 4.])
    """
    single = not isinstance(then_branch, list | tuple)
    thens = [then_branch] if single else list(then_branch)
    elses = [else_branch] if single else list(else_branch)
    if len(thens) != len(elses):
        raise ValueError(
            f"ifelse branches differ in length: {len(thens)} and {len(elses)}"
        )
    thens = [as_tensor_variable(t) for t in thens]
    elses = [as_tensor_variable(e) for e in elses]
    outs = IfElse(len(thens))(
        as_tensor_variable(condition), *thens, *elses, return_list=True
    )
    if name is not None:
        for i, out in enumerate(outs):
            out.name = name if single else f"{name}_{i}"
    return outs[0] if single else outs


__all__ = ["IfElse", "ifelse"]
