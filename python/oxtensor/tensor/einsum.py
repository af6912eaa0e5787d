"""``einsum``: NumPy's Einstein summation as a graph of existing ops inside
an ``Einsum`` op (an ``OpFromGraph``), as PyTensor's
``pytensor/tensor/einsum.py``.

The core plans it (``_core._einsum_plan``: the subscripts parsed, the
contraction path, each step's sums, diagonals, dot and transpose); this
module turns each planned step into ops. ``_iota``, ``_delta`` and
``_general_dot`` are the graph pieces the steps use.
"""

from collections.abc import Sequence
from functools import reduce
from itertools import pairwise
from typing import Any

from oxtensor import _core
from oxtensor.compile.builders import OpFromGraph
from oxtensor.tensor.basic import (
    arange,
    as_tensor,
    expand_dims,
    get_vector_length,
    stack,
    transpose,
)
from oxtensor.tensor.extra_ops import broadcast_to
from oxtensor.tensor.math import and_, eq
from oxtensor.tensor.padding import shape_padright
from oxtensor.tensor.products import _length, _product, tensordot


class Einsum(OpFromGraph):
    """The op of one ``einsum``: its inner graph is the planned
    contraction. ``subscripts`` and ``path`` say what it computes and in
    which order; ``optimized`` says the path was chosen from known
    lengths (or needed no choosing: at most two operands)."""

    def __init__(
        self, *args: Any, subscripts: str, path: Any, optimized: bool, **kwargs: Any
    ) -> None:
        self.subscripts = subscripts
        self.path = path
        self.optimized = optimized
        super().__init__(*args, **kwargs, strict=True)

    def __str__(self) -> str:
        # PyTensor's form, `self.` included (its f-string uses `=`).
        return (
            f"Einsum{{self.subscripts={self.subscripts!r}, "
            f"self.path={self.path!r}, self.optimized={self.optimized!r}}}"
        )

    def _key(self) -> tuple[Any, ...]:
        return (*super()._key(), self.subscripts, self.path, self.optimized)


def _normalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for {ndim} dimension(s)")
    return axis % ndim


def _iota(shape: Any, axis: int) -> Any:
    """An integer tensor of ``shape`` counting up along ``axis``
    (``arange`` broadcast over the other axes).

    Examples
    --------
    >>> _iota((2, 3), 1).eval()
    array([[0, 1, 2],
           [0, 1, 2]])
    """
    n = get_vector_length(shape)
    axis = _normalize_axis(axis, n)
    shape = as_tensor(shape)
    values = arange(shape[axis])
    return broadcast_to(shape_padright(values, n - axis - 1), shape)


def _delta(shape: Any, axes: Sequence[int]) -> Any:
    """The Kronecker delta over ``axes`` of a tensor of ``shape``: true
    where the indices along those axes are all equal, broadcast along the
    others.

    Examples
    --------
    >>> _delta((2, 2), (0, 1)).eval()
    array([[ True, False],
           [False,  True]])
    """
    if len(axes) < 2:
        raise ValueError("Need at least two axes to create a delta tensor")
    shape = as_tensor(shape)
    base = stack([shape[axis] for axis in axes])
    iotas = [_iota(base, i) for i in range(len(axes))]
    result = reduce(and_, (eq(a, b) for a, b in pairwise(iotas)))
    others = [i for i in range(get_vector_length(shape)) if i not in axes]
    return broadcast_to(expand_dims(result, others), shape)


def _general_dot(
    vars: tuple[Any, Any],
    axes: Sequence[Sequence[int]],
    batch_axes: Sequence[Sequence[int]],
) -> Any:
    """``tensordot`` of two tensors over ``axes`` (one list per tensor),
    batched over ``batch_axes`` (aligned from the right, broadcast as
    NumPy's ``vectorize``). The batch axes move to the front, each operand
    becomes a stack of matrices, one ``matmul`` multiplies them, and the
    free axes are restored: batch axes, then the first's, then the
    second's."""
    a, b = (as_tensor(v) for v in vars)
    if not batch_axes[0] and not batch_axes[1]:
        return tensordot(a, b, axes=[list(axes[0]), list(axes[1])])
    norm = [
        [[_normalize_axis(ax, v.ndim) for ax in group] for group in (axs, bats)]
        for v, axs, bats in zip((a, b), axes, batch_axes, strict=True)
    ]
    (a_axes, a_batch), (b_axes, b_batch) = norm
    a_free = [i for i in range(a.ndim) if i not in a_axes and i not in a_batch]
    b_free = [i for i in range(b.ndim) if i not in b_axes and i not in b_batch]
    if not a_axes and not a_free and not b_free:
        return _aligned(a, a_batch) * _aligned(b, b_batch)
    at = a.transpose(*a_batch, *a_free, *a_axes)
    bt = b.transpose(*b_batch, *b_axes, *b_free)
    rows = _product([_length(a, i) for i in a_free])
    inner = _product([_length(a, i) for i in a_axes])
    cols = _product([_length(b, i) for i in b_free])
    a_lead = [_length(a, i) for i in a_batch]
    b_lead = [_length(b, i) for i in b_batch]
    am = at.reshape((*a_lead, rows, inner), ndim=len(a_batch) + 2)
    bm = bt.reshape((*b_lead, inner, cols), ndim=len(b_batch) + 2)
    prod = am @ bm
    nb = prod.ndim - 2
    lead = [_length(prod, i) for i in range(nb)]
    free = [_length(a, i) for i in a_free] + [_length(b, i) for i in b_free]
    out = prod.reshape((*lead, *free), ndim=nb + len(free))
    return _with_static_shape(out, prod, a, a_free, b, b_free)


def _aligned(v: Any, batch: list[int]) -> Any:
    """``v`` with its batch axes (its only axes) in order."""
    return v.transpose(*batch) if batch != sorted(batch) else v


def _with_static_shape(out: Any, prod: Any, a: Any, a_free: Any, b: Any, b_free: Any):
    """``out`` with the static lengths its reshape lost."""
    from oxtensor.tensor.shape import specify_shape

    static = (
        *prod.type.shape[:-2],
        *(a.type.shape[i] for i in a_free),
        *(b.type.shape[i] for i in b_free),
    )
    if out.type.shape != static and any(n is not None for n in static):
        return specify_shape(out, static)
    return out


def _ensure_not_equal(operands: list[Any]) -> list[Any]:
    """The operands with later repeats of one variable copied (an
    ``OpFromGraph`` needs distinct inputs)."""
    out: list[Any] = []
    for v in operands:
        out.append(v.copy() if any(v is w for w in out) else v)
    return out


def _prepare(operand: Any, actions: list[Any]) -> Any:
    """One operand after its planned squeezes, sums and diagonals."""
    from oxtensor.tensor.math_functions import where

    for kind, axes, *rest in actions:
        if kind == "squeeze":
            operand = operand.squeeze(axes)
        elif kind == "sum":
            operand = operand.sum(axes)
        else:
            operand = where(_delta(operand.shape, axes), operand, operand.zeros_like())
            operand = operand.sum(axes[:-1] if rest[0] else axes)
    return operand


def _run_step(operands: list[Any], step: Any) -> Any:
    positions, prepare, dot, perm = step
    popped = [operands.pop(p) for p in positions]
    ready = [_prepare(v, acts) for v, acts in zip(popped, prepare, strict=True)]
    if dot is None:
        (out,) = ready
    else:
        first, axes, batch = dot
        pair = (ready[first], ready[1 - first])
        out = _general_dot(pair, axes, batch)
    return out if perm is None else transpose(out, perm)


def einsum(subscripts: str, *operands: Any, optimize: Any = None) -> Any:
    """Sums of products of ``operands`` over the axes ``subscripts`` name,
    NumPy's ``einsum`` (``"ij,jk->ik"`` is a matrix product, ``"ii"`` a
    trace, ``"...ij->...ji"`` a batched transpose).

    With every length known the contraction order is NumPy's optimal path
    (``op.optimized``); otherwise the operands are contracted from the
    right and the compiler re-plans the op if lengths become known.
    ``optimize`` is not supported (as in PyTensor): the path is always
    optimised when it can be.

    Examples
    --------
    >>> import oxtensor.tensor as ot
    >>> a, b = ot.matrix("a", shape=(2, 3)), ot.matrix("b", shape=(3, 4))
    >>> einsum("ij,jk->ik", a, b).type.shape
    (2, 4)
    """
    if optimize is not None:
        raise NotImplementedError(
            "einsum: the optimize argument is not supported; the path is "
            "optimised whenever the operands' lengths are all known"
        )
    tensors = _ensure_not_equal([as_tensor(v) for v in operands])
    plan = _core._einsum_plan(subscripts, [tuple(v.type.shape) for v in tensors])
    if plan["broadcast_label"]:
        import warnings

        warnings.warn(
            "The same einsum subscript is used for a broadcastable and "
            "non-broadcastable dimension. This can result in a suboptimal "
            "contraction path.",
            UserWarning,
            stacklevel=2,
        )
    work = list(tensors)
    for step in plan["steps"]:
        work.append(_run_step(work, step))
    (result,) = work
    op = Einsum(
        list(tensors),
        [result],
        subscripts=subscripts,
        path=plan["path"],
        optimized=plan["optimized"],
    )
    return op(*tensors)


__all__ = ["Einsum", "einsum"]

# Registers the rewrites that re-plan and inline einsums (they import this).
from oxtensor.tensor.rewriting import einsum as _einsum_rewrites  # noqa: E402, F401
