"""Indexing and joining entries of the op table: basic slices (constant
and symbolic, negative), integer and boolean advanced indexing,
set/inc_subtensor (duplicates accumulate), take, and the joins and splits
(str forms read from PyTensor 3)."""

from typing import Any

import numpy as np
import oxtensor.tensor as ot

from tests.tensor.op_spec import (
    ANY,
    NO_ZERO_D,
    NUMERIC,
    Spec,
    arr,
    idx,
    masked,
    on_arrays,
    two,
)


def _set(a: Any, b: Any, key: Any) -> Any:
    out = a.copy()
    out[key] = b
    return out


def _inc_at(a: Any, b: Any, rows: Any) -> Any:
    out = a.copy()
    np.add.at(out, rows, b)
    return out


def _by_mask(build: Any, ref: Any, str_form: str) -> Spec:
    """Boolean indexing of a (3, 4) array by a mask of its shape."""
    return Spec(
        build,
        ref,
        masked((3, 4)),
        str_form,
        ANY,
        zero_d=NO_ZERO_D,
        empty=masked((0, 4)),
    )


INDEXING: dict[str, Spec] = {
    "slice": on_arrays(
        lambda a: a[1:, ::-2],
        lambda a: a[1:, ::-2],
        [(4, 5)],
        "Subtensor{start:, ::step}",
    ),
    "slice_symbolic": Spec(
        lambda a, i: a[i:, -1],
        lambda a, i: a[i:, -1],
        lambda dt, rng: [arr(dt, (4, 3), rng), np.array(-3, "int64")],
        "Subtensor{start:, i}",
        ANY,
        zero_d=NO_ZERO_D,
        empty=lambda dt, rng: [arr(dt, (0, 3), rng), np.array(1, "int64")],
    ),
    "advanced_int": Spec(
        lambda a, i: a[i],
        lambda a, i: a[i],
        idx([0, -1, 2, 0]),
        "AdvancedSubtensor{idx_list=(0,)}",
        ANY,
        zero_d=NO_ZERO_D,
        empty=idx([]),
    ),
    "advanced_bool": _by_mask(
        lambda a, m: a[m],
        lambda a, m: a[m],
        "AdvancedSubtensor{idx_list=(0,)}",
    ),
    "set_subtensor": on_arrays(
        lambda a, b: ot.set_subtensor(a[1:, -1], b),
        lambda a, b: _set(a, b, (slice(1, None), -1)),
        [(4, 3), (3,)],
        "SetSubtensor{start:, i}",
    ),
    "inc_subtensor": Spec(
        lambda a, b, i: ot.inc_subtensor(a[i], b),
        lambda a, b, i: _inc_at(a, b, i),
        lambda dt, rng: [
            arr(dt, (4, 3), rng),
            arr(dt, (5, 3), rng),
            np.array([0, -1, 0, 2, 0], "int64"),
        ],
        "AdvancedIncSubtensor",
        NUMERIC,
        zero_d=NO_ZERO_D,
        empty=lambda dt, rng: [
            arr(dt, (4, 3), rng),
            arr(dt, (0, 3), rng),
            np.zeros(0, "int64"),
        ],
    ),
    "set_bool": _by_mask(
        lambda a, m: ot.set_subtensor(a[m], 0),
        lambda a, m: _set(a, 0, m),
        "AdvancedSetSubtensor",
    ),
    "take": Spec(
        lambda a, i: ot.take(a, i, axis=-1),
        lambda a, i: np.take(a, i, axis=-1),
        idx([2, -1, 0]),
        "AdvancedSubtensor{idx_list=(slice(None, None, None), 0)}",
        ANY,
        zero_d=NO_ZERO_D,
        empty=lambda dt, rng: [arr(dt, (0, 3), rng), np.array([1], "int64")],
    ),
}


JOINING: dict[str, Spec] = {
    "concatenate": on_arrays(
        lambda a, b: ot.concatenate([a, b], axis=-1),
        lambda a, b: np.concatenate([a, b], axis=-1),
        [(2, 3), (2, 1)],
        "Join",
    ),
    "join": on_arrays(
        lambda a, b: ot.join(0, a, b),
        lambda a, b: np.concatenate([a, b]),
        [(2, 3), (1, 3)],
        "Join",
    ),
    "stack": on_arrays(
        lambda a, b: ot.stack([a, b], axis=-1),
        lambda a, b: np.stack([a, b], axis=-1),
        [(2, 3), (2, 3)],
        "Join",
        zero_d=two((), ()),
    ),
    "split": on_arrays(
        lambda a: list(ot.split(a, [1, 2], n_splits=2, axis=-1)),
        lambda a: np.split(a, [1], axis=-1),
        [(2, 3)],
        "Split{2}",
    ),
    "horizontal_stack": on_arrays(
        lambda a, b: ot.horizontal_stack(a, b),
        lambda a, b: np.hstack([a, b]),
        [(2, 3), (2, 1)],
        "Join",
    ),
    "vertical_stack": on_arrays(
        lambda a, b: ot.vertical_stack(a, b),
        lambda a, b: np.vstack([a, b]),
        [(2, 3), (1, 3)],
        "Join",
    ),
}
