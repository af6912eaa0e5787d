"""Indexing and joining entries of the op table: basic slices (constant
and symbolic, negative), integer and boolean advanced indexing,
set/inc_subtensor (duplicates accumulate), take, and the joins and splits
(str forms read from PyTensor 3)."""

from typing import Any

import numpy as np
import oxtensor.tensor as ot

from tests.tensor.op_spec import ANY, NO_ZERO_D, NUMERIC, Spec, arr, idx, one, two


def _set(a: Any, b: Any, key: Any) -> Any:
    out = a.copy()
    out[key] = b
    return out


def _inc_at(a: Any, b: Any, rows: Any) -> Any:
    out = a.copy()
    np.add.at(out, rows, b)
    return out


INDEXING: dict[str, Spec] = {
    "slice": Spec(
        lambda a: a[1:, ::-2],
        lambda a: a[1:, ::-2],
        one((4, 5)),
        "Subtensor{start:, ::step}",
        ANY,
        zero_d=NO_ZERO_D,
        empty=one((0, 5)),
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
        empty=lambda dt, rng: [arr(dt, (4, 3), rng), np.zeros(0, "int64")],
    ),
    "advanced_bool": Spec(
        lambda a, m: a[m],
        lambda a, m: a[m],
        lambda dt, rng: [
            arr(dt, (3, 4), rng),
            rng.integers(0, 2, (3, 4)).astype(bool),
        ],
        "AdvancedSubtensor{idx_list=(0,)}",
        ANY,
        zero_d=NO_ZERO_D,
        empty=lambda dt, rng: [arr(dt, (0, 4), rng), np.zeros((0, 4), bool)],
    ),
    "set_subtensor": Spec(
        lambda a, b: ot.set_subtensor(a[1:, -1], b),
        lambda a, b: _set(a, b, (slice(1, None), -1)),
        lambda dt, rng: [arr(dt, (4, 3), rng), arr(dt, (3,), rng)],
        "SetSubtensor{start:, i}",
        ANY,
        zero_d=NO_ZERO_D,
        empty=lambda dt, rng: [arr(dt, (0, 3), rng), arr(dt, (0,), rng)],
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
    "set_bool": Spec(
        lambda a, m: ot.set_subtensor(a[m], 0),
        lambda a, m: _set(a, 0, m),
        lambda dt, rng: [
            arr(dt, (3, 4), rng),
            rng.integers(0, 2, (3, 4)).astype(bool),
        ],
        "AdvancedSetSubtensor",
        ANY,
        zero_d=NO_ZERO_D,
        empty=lambda dt, rng: [arr(dt, (0, 4), rng), np.zeros((0, 4), bool)],
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
    "concatenate": Spec(
        lambda a, b: ot.concatenate([a, b], axis=-1),
        lambda a, b: np.concatenate([a, b], axis=-1),
        two((2, 3), (2, 1)),
        "Join",
        ANY,
        zero_d=NO_ZERO_D,
        empty=two((0, 3), (0, 1)),
    ),
    "join": Spec(
        lambda a, b: ot.join(0, a, b),
        lambda a, b: np.concatenate([a, b]),
        two((2, 3), (1, 3)),
        "Join",
        ANY,
        zero_d=NO_ZERO_D,
        empty=two((0, 3), (0, 3)),
    ),
    "stack": Spec(
        lambda a, b: ot.stack([a, b], axis=-1),
        lambda a, b: np.stack([a, b], axis=-1),
        two((2, 3), (2, 3)),
        "Join",
        ANY,
        zero_d=two((), ()),
        empty=two((0, 3), (0, 3)),
    ),
    "split": Spec(
        lambda a: list(ot.split(a, [1, 2], n_splits=2, axis=-1)),
        lambda a: np.split(a, [1], axis=-1),
        one((2, 3)),
        "Split{2}",
        ANY,
        zero_d=NO_ZERO_D,
        empty=one((0, 3)),
    ),
    "horizontal_stack": Spec(
        lambda a, b: ot.horizontal_stack(a, b),
        lambda a, b: np.hstack([a, b]),
        two((2, 3), (2, 1)),
        "Join",
        ANY,
        zero_d=NO_ZERO_D,
        empty=two((0, 3), (0, 1)),
    ),
    "vertical_stack": Spec(
        lambda a, b: ot.vertical_stack(a, b),
        lambda a, b: np.vstack([a, b]),
        two((2, 3), (1, 3)),
        "Join",
        ANY,
        zero_d=NO_ZERO_D,
        empty=two((0, 3), (0, 3)),
    ),
}
