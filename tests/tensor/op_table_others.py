"""The other entries of the op table: sort, argsort, cumsum, cumprod,
diff, nonzero, softmax, log_softmax, bincount, to_one_hot, and the elementwise
spellings that are not a plain scalar op (cast, astype, where)."""

from collections.abc import Callable
from typing import Any

import numpy as np
import oxtensor.tensor as ot
import oxtensor.tensor.special as special
from oxtensor.tensor.extra_ops import diff, to_one_hot

from tests.tensor.op_spec import (
    ANY,
    FLOATS,
    NO_GRAD_INT,
    NUMERIC,
    REAL,
    Spec,
    arr,
    distinct,
    on_arrays,
    one,
)


def _softmax(a: Any) -> Any:
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _one_hot(idx: Any) -> Any:
    return np.eye(5)[idx]


def _last_axis(
    f: Callable[..., Any],
    ref: Callable[..., Any],
    op: str,
    dtypes: list[str],
    inputs: Any = None,
    **kw: Any,
) -> Spec:
    """``f(a, axis=-1)`` against NumPy's ``ref``, on (3, 4) inputs by default."""
    return on_arrays(
        lambda a: f(a, axis=-1),
        lambda a: ref(a, axis=-1),
        [(3, 4)],
        op,
        dtypes,
        args=inputs,
        **kw,
    )


OTHERS: dict[str, Spec] = {
    "sort": _last_axis(
        ot.sort,
        np.sort,
        "SortOp{kind='quicksort'}",
        REAL,
        inputs=lambda dt, rng: [distinct(dt, (3, 4), rng)],
    ),
    "argsort": _last_axis(
        ot.argsort,
        np.argsort,
        "ArgSortOp{kind='quicksort'}",
        REAL,
        grad=NO_GRAD_INT,
        inputs=lambda dt, rng: [distinct(dt, (3, 4), rng)],
    ),
    "cumsum": _last_axis(ot.cumsum, np.cumsum, "Cumsum{axis=1}", NUMERIC),
    "cumprod": _last_axis(ot.cumprod, np.cumprod, "Cumprod{axis=1}", NUMERIC),
    "diff": on_arrays(
        lambda a: diff(a, n=2, axis=-1),
        lambda a: np.diff(a, n=2, axis=-1),
        [(3, 5)],
        "Sub",
        NUMERIC,
    ),
    "nonzero": on_arrays(
        lambda a: list(ot.nonzero(a)),
        lambda a: list(np.nonzero(a)),
        [(3, 4)],
        "Nonzero",
        args=one((3, 4), low=-1, high=1),
        grad=NO_GRAD_INT,
        infer_shape="the lengths depend on the values (as PyTensor)",
    ),
    "softmax": on_arrays(
        lambda a: special.softmax(a, axis=-1),
        _softmax,
        [(3, 4)],
        "Softmax{axis=(1,)}",
        FLOATS,
    ),
    "log_softmax": on_arrays(
        lambda a: special.log_softmax(a, axis=-1),
        lambda a: np.log(_softmax(a)),
        [(3, 4)],
        "LogSoftmax{axis=(1,)}",
        FLOATS,
    ),
    "bincount": Spec(
        lambda x, w: ot.bincount(x, w, minlength=9),
        lambda x, w: np.bincount(x, w, minlength=9),
        lambda dt, rng: [rng.integers(0, 7, 12), arr(dt, (12,), rng)],
        "Bincount{minlength=9}",
        ["int8", "uint16", "int64", "float16", "float32", "float64"],
        zero_d="takes vectors",
        empty=lambda dt, rng: [np.zeros(0, "int64"), np.zeros(0, dt)],
    ),
    "to_one_hot": Spec(
        lambda i: to_one_hot(i, 5),
        _one_hot,
        lambda dt, rng: [np.array([0, 4, 2, 2], dt)],
        "AdvancedSubtensor{idx_list=(0,)}",
        ["int8", "int64"],
        zero_d="takes a vector of class indices",
        empty=lambda dt, rng: [np.zeros(0, dt)],
        grad=NO_GRAD_INT,
    ),
}


def _where_args(shape_a: Any, shape_b: Any) -> Callable[[str, Any], list[Any]]:
    return lambda dt, rng: [
        rng.integers(0, 2, shape_a).astype(bool),
        arr(dt, shape_a, rng),
        arr(dt, shape_b, rng),
    ]


# The elementwise entries that are not a plain `ot.<name>` of the scalar-op
# table (`elemwise_table.CASES`): the cast and `where` spellings.
SPELLINGS: dict[str, Spec] = {
    "cast": on_arrays(
        lambda a: ot.cast(a, "float32"),
        lambda a: a.astype("float32"),
        [(2, 3)],
        "Cast{float32}",
        ["bool", "int8", "int64", "float64"],
        zero_d=one(()),
        grad="float32 output: finite differences are too coarse; see "
        "test_grad_builtin_ops.py::test_float_casts_pass_the_gradient_in_"
        "the_source_dtype",
    ),
    "astype": on_arrays(
        lambda a: a.astype("int16"),
        lambda a: a.astype("int16"),
        [(2, 3)],
        "Cast{int16}",
        ["bool", "uint16", "float32", "float64"],
        zero_d=one(()),
        grad=NO_GRAD_INT,
    ),
    "where": Spec(
        lambda c, a, b: ot.where(c, a, b),
        np.where,
        _where_args((2, 3), (1, 3)),
        "Switch",
        ANY,
        zero_d=_where_args((), ()),
        empty=_where_args((0, 3), (1, 3)),
    ),
}
