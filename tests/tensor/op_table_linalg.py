"""Linear algebra entries of the op table: dot, matmul, tensordot, outer
and ``oxtensor.tensor.linalg`` (str forms read from PyTensor 3; the linalg
ops print without ``Blockwise``, as documented)."""

from typing import Any

import numpy as np
import oxtensor.tensor as ot
import oxtensor.tensor.linalg as la

from tests.tensor.op_spec import NUMERIC, Spec, arr, distinct, on_arrays, spd, two


def _abs(v: Any) -> Any:
    return [np.abs(x) for x in v] if isinstance(v, list | tuple) else np.abs(v)


def _slogdet(a: Any) -> Any:
    sign, logdet = np.linalg.slogdet(a)
    return [sign, logdet]


def _square(f: Any, ref: Any, op: str, **kw: Any) -> Spec:
    """An op of one square matrix (a well-conditioned SPD one; 0x0 empty)."""
    return Spec(
        f,
        ref,
        lambda dt, rng: [spd(dt, (3, 3), rng)],
        op,
        empty=lambda dt, rng: [np.zeros((0, 0), dt)],
        zero_d="needs a square matrix",
        **kw,
    )


LINALG: dict[str, Spec] = {
    # --- linear algebra ------------------------------------------------------
    "dot": Spec(
        ot.dot,
        np.dot,
        two((2, 3), (3, 4)),
        "Dot",
        NUMERIC,
        empty=two((2, 0), (0, 4)),
        zero_d=two((), ()),
    ),
    "matmul": on_arrays(
        ot.matmul,
        np.matmul,
        [(2, 2, 3), (2, 3, 4)],
        "Matmul",
        NUMERIC,
        zero_d="NumPy's matmul refuses 0-d operands",
    ),
    "tensordot": Spec(
        lambda a, b: ot.tensordot(a, b, axes=[[1, 2], [0, 1]]),
        lambda a, b: np.tensordot(a, b, axes=[[1, 2], [0, 1]]),
        two((2, 3, 4), (3, 4, 5)),
        "Reshape{2}",
        NUMERIC,
        empty=two((2, 0, 4), (0, 4, 5)),
        zero_d="axes pairs need at least one axis each",
    ),
    "outer": Spec(
        ot.outer,
        np.outer,
        two((3,), (4,)),
        "Dot",
        NUMERIC,
        empty=two((0,), (4,)),
        zero_d=two((), ()),
    ),
    "inv": _square(la.inv, np.linalg.inv, "MatrixInverse"),
    "det": _square(la.det, np.linalg.det, "Det"),
    "slogdet": _square(lambda a: list(la.slogdet(a)), _slogdet, "SLogDet"),
    "solve": Spec(
        la.solve,
        np.linalg.solve,
        lambda dt, rng: [spd(dt, (3, 3), rng), arr(dt, (3, 2), rng)],
        "Solve{assume_a='gen', lower=False, b_ndim=2, overwrite_a=False, "
        "overwrite_b=False}",
        empty=lambda dt, rng: [np.zeros((0, 0), dt), np.zeros((0, 2), dt)],
        zero_d="needs a square matrix",
    ),
    "cholesky": _square(la.cholesky, np.linalg.cholesky, "Cholesky{lower=True}"),
    "eigh": _square(
        lambda a: list(la.eigh(a)),
        lambda a: list(np.linalg.eigh(a)),
        "Eigh{lower=True}",
        canon=_abs,
    ),
    "svd": Spec(
        lambda a: list(la.svd(a)),
        lambda a: list(np.linalg.svd(a)),
        lambda dt, rng: [distinct(dt, (3, 4), rng)],
        "SVD{full_matrices=True, compute_uv=True}",
        canon=_abs,
        grad="the gradient through U and V is not implemented (documented); "
        "the singular values': the svd_values row",
        empty=lambda dt, rng: [np.zeros((0, 3), dt)],
        zero_d="needs a matrix",
    ),
    # The singular values alone have a gradient.
    "svd_values": Spec(
        lambda a: la.svd(a, compute_uv=False),
        lambda a: np.linalg.svd(a, compute_uv=False),
        lambda dt, rng: [distinct(dt, (3, 4), rng)],
        "SVD{full_matrices=True, compute_uv=False}",
        empty=lambda dt, rng: [np.zeros((0, 3), dt)],
        zero_d="needs a matrix",
    ),
    # Square: the gradient of a full QR needs a square R (documented;
    # tall and wide matrices: test_linalg.py::test_qr_matches_numpy).
    "qr": Spec(
        lambda a: list(la.qr(a)),
        lambda a: list(np.linalg.qr(a, "complete")),
        lambda dt, rng: [distinct(dt, (3, 3), rng)],
        "QR{mode='full'}",
        canon=_abs,
        empty=lambda dt, rng: [np.zeros((0, 3), dt)],
        zero_d="needs a matrix",
    ),
}
