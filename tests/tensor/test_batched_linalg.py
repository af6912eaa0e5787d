"""Stacks of matrices through the linear-algebra functions: each call on an
input with leading (batch) axes is a `Blockwise` of the op, as PyTensor's,
computing matrix by matrix; values against NumPy's stacked routines,
gradients against finite differences, broadcasting of the batch axes, and
the ops' `gufunc_signature`s."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import verify_grad
from oxtensor.tensor import linalg
from oxtensor.tensor.blockwise import Blockwise

RNG = np.random.default_rng(11)
TOL = {"float64": 1e-10, "float32": 1e-4}


def _spd(shape: tuple[int, ...], dtype: str = "float64") -> np.ndarray:
    a = RNG.random(shape)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _run(out, inputs, values):
    outs = list(out) if isinstance(out, list | tuple) else [out]
    return oxtensor.function(inputs, outs)(*values)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    ("name", "call", "reference"),
    [
        ("det", linalg.det, np.linalg.det),
        ("inv", linalg.inv, np.linalg.inv),
        ("slogdet", linalg.slogdet, lambda a: list(np.linalg.slogdet(a))),
        ("cholesky", linalg.cholesky, np.linalg.cholesky),
        ("eigvalsh", linalg.eigvalsh, np.linalg.eigvalsh),
    ],
)
def test_square_stacks_match_numpy(name, call, reference, dtype):
    a = _spd((2, 3, 4, 4), dtype)
    x = ot.tensor("x", shape=(None, None, 4, 4), dtype=dtype)
    out = call(x)
    first = out[0] if isinstance(out, list | tuple) else out
    assert isinstance(first.owner.op, Blockwise)
    want = reference(a)
    want = want if isinstance(want, list) else [want]
    for got, ref in zip(_run(out, [x], [a]), want, strict=True):
        assert got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=TOL[dtype] * 100, atol=TOL[dtype])


@pytest.mark.parametrize("shape", [(3, 5, 4), (3, 4, 5)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_and_qr_stacks_rebuild_their_input(shape, full_matrices):
    a = RNG.random(shape)
    x = ot.tensor3("x")
    u, s, vh = _run(linalg.svd(x, full_matrices=full_matrices), [x], [a])
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    k = min(shape[1:])
    rebuilt = (u[..., :k] * s[:, None, :]) @ vh[:, :k, :]
    np.testing.assert_allclose(rebuilt, a, atol=1e-12)
    mode = "full" if full_matrices else "reduced"
    q, r = _run(linalg.qr(x, mode=mode), [x], [a])
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    assert (
        q.shape
        == np.linalg.qr(a, mode="complete" if full_matrices else "reduced")[0].shape
    )


def test_eigh_stack_and_solve_with_broadcast_batches():
    a = _spd((3, 4, 4))
    x = ot.tensor3("x")
    w, v = _run(linalg.eigh(x), [x], [a])
    np.testing.assert_allclose(
        v @ (w[..., None] * np.swapaxes(v, -1, -2)), a, atol=1e-12
    )
    # One right-hand side per matrix, and one matrix for every right-hand side.
    b = RNG.random((3, 4))
    vec = ot.matrix("vec")
    got = _run(linalg.solve(x, vec, b_ndim=1), [x, vec], [a, b])[0]
    np.testing.assert_allclose(
        got, np.linalg.solve(a, b[..., None])[..., 0], rtol=1e-10
    )
    m = ot.matrix("m")
    bs = RNG.random((3, 4, 2))
    rhs = ot.tensor3("rhs")
    got = _run(linalg.solve(m, rhs, b_ndim=2), [m, rhs], [a[0], bs])[0]
    np.testing.assert_allclose(got, np.linalg.solve(a[0], bs), rtol=1e-10)
    got = _run(linalg.solve(x, rhs, b_ndim=2, transposed=True), [x, rhs], [a, bs])[0]
    np.testing.assert_allclose(
        got, np.linalg.solve(np.swapaxes(a, -1, -2), bs), rtol=1e-10
    )


def test_gradients_of_stacks():
    a = _spd((2, 3, 3))
    verify_grad(lambda t: linalg.det(t), [a], rng=RNG)
    verify_grad(lambda t: linalg.inv(t).sum(axis=(1, 2)), [a], rng=RNG)
    verify_grad(lambda t: linalg.cholesky(t).sum(), [a], rng=RNG)
    verify_grad(
        lambda t: linalg.svd(t, compute_uv=False), [RNG.random((2, 4, 3))], rng=RNG
    )


def test_single_matrices_keep_the_op_and_signatures_are_numpy_s():
    assert not isinstance(linalg.det(ot.dmatrix()).owner.op, Blockwise)
    assert linalg.Det().gufunc_signature == "(m,m)->()"
    assert linalg.SVD(full_matrices=False).gufunc_signature == "(m,n)->(m,k),(k),(k,n)"
    assert linalg.SVD(compute_uv=False).gufunc_signature == "(m,n)->(k)"
    assert linalg.QR(mode="r").gufunc_signature == "(m,n)->(m,n)"
    assert linalg.Solve(b_ndim=1).gufunc_signature == "(m,m),(m)->(m)"
    out = linalg.svd(ot.dtensor3(), full_matrices=False)[0]
    assert out.owner.op.core_op.gufunc_signature == "(m,n)->(m,k),(k),(k,n)"


def test_ops_without_a_signature_have_no_such_attribute():
    with pytest.raises(AttributeError, match="gufunc_signature"):
        _ = ot.basic.Join().gufunc_signature


def test_a_python_op_sets_its_own_signature():
    from oxtensor.graph.basic import Apply
    from oxtensor.graph.op import Op

    class RowSum(Op):
        __props__ = ()

        def __init__(self):
            self.gufunc_signature = "(n)->()"

        def make_node(self, x):
            x = ot.as_tensor_variable(x)
            return Apply(self, [x], [ot.dscalar()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = np.asarray(inputs[0].sum())

    op = RowSum()
    assert op.gufunc_signature == "(n)->()"
    x = ot.dmatrix("x")
    out = Blockwise(op)(x)
    v = RNG.random((3, 4))
    np.testing.assert_allclose(oxtensor.function([x], out)(v), v.sum(axis=1))


def test_batched_errors_name_the_matrix_rule():
    with pytest.raises(ValueError, match="core dim m is 3 in input 0 but 4"):
        linalg.det(ot.tensor("x", shape=(2, 3, 4)))
    with pytest.raises(TypeError, match="complex"):
        linalg.inv(ot.tensor("z", shape=(2, 3, 3), dtype="complex128"))
