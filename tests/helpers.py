"""Helpers shared by the test suites (the habit of PyTensor's
``tests/unittest_tools.py``)."""

import copy
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st
from oxtensor.graph.basic import Apply, Variable, equal_computations
from oxtensor.graph.op import Op
from oxtensor.printing import debugprint
from oxtensor.tensor import as_tensor_variable

# Every dtype oxtensor supports, in promotion order within each kind.
DTYPES = (
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64"
    " float16 float32 float64 complex64 complex128"
).split()
# The float values every element function is checked at first: NaN, the
# infinities, both zeros and ±1.
SPECIAL_FLOATS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0]

# The dtypes that are not complex.
REAL_DTYPES = [d for d in DTYPES if not d.startswith("complex")]


@st.composite
def matvec_batches(draw: Any, min_rank: int = 0) -> tuple[list[int], list[int]]:
    """Batch shapes of a batched ``(m,n),(n)->(m)``: the matrix's (up to
    three axes) and the vector's, as many trailing ones or fewer, some of
    them static 1s that broadcast."""
    batch = draw(st.lists(st.integers(1, 3), min_size=min_rank, max_size=3))
    ny = draw(st.integers(0, len(batch)))
    ybatch = [1 if draw(st.booleans()) else d for d in batch[len(batch) - ny :]]
    return batch, ybatch


def run1(out: Any, x: Any, v: Any) -> Any:
    """``out`` compiled as a function of ``x`` alone, called on ``v``."""
    import oxtensor

    return oxtensor.function([x], out)(v)


def assert_equal_computations(
    xs: Sequence[Any],
    ys: Sequence[Any],
    in_xs: Sequence[Any] | None = None,
    in_ys: Sequence[Any] | None = None,
) -> None:
    """Assert ``equal_computations``; on failure the message shows both graphs."""
    if equal_computations(xs, ys, in_xs, in_ys):
        return
    left = debugprint(list(xs), file="str", print_type=True)
    right = debugprint(list(ys), file="str", print_type=True)
    raise AssertionError(f"Graphs differ.\n--- left\n{left}\n--- right\n{right}")


def _check_maps(op: Any, node: Any) -> None:
    for attr in ("view_map", "destroy_map"):
        mapping = getattr(op, attr)
        assert isinstance(mapping, dict), f"{attr} of {op} is not a dict"
        for out, ins in mapping.items():
            assert 0 <= out < len(node.outputs), f"{attr} of {op}: bad output {out}"
            assert all(0 <= i < len(node.inputs) for i in ins), f"{attr}: bad {ins}"


def _check_identity(op: Any) -> None:
    assert op == op
    assert not (op != op)
    assert hash(op) == hash(op)
    assert isinstance(str(op), str)
    assert str(op)
    if hasattr(type(op), "__props__") and not type(op).__module__.startswith(
        "oxtensor"
    ):
        # An op written in Python with props: a copy (same props) is equal.
        twin = copy.copy(op)
        assert twin == op
        assert hash(twin) == hash(op)


def _check_node(op: Any, node: Any) -> None:
    assert isinstance(node, Apply)
    # An op may hand the node a resolved copy of itself (CAReduce fills in dtypes).
    assert isinstance(node.op, type(op))
    for i, out in enumerate(node.outputs):
        assert isinstance(out, Variable)
        assert out.owner is node
        assert out.index == i
    # The seeds: make_node(*apply.inputs) must give an equivalent node.
    again = node.op.make_node(*node.inputs)
    assert again.op == node.op
    assert all(a is b for a, b in zip(again.inputs, node.inputs, strict=True))
    assert [o.type for o in again.outputs] == [o.type for o in node.outputs]


def _check_call(op: Any, inputs: Sequence[Any], node: Any) -> None:
    out = op(*inputs)
    if op.default_output is not None:
        assert out.type == node.outputs[op.default_output].type
    elif len(node.outputs) == 1:
        assert isinstance(out, Variable)
        assert out.type == node.outputs[0].type
    else:
        assert [o.type for o in out] == [o.type for o in node.outputs]


def run_thunk(node: Any, values: Sequence[Any]) -> list[Any]:
    """Run ``node.op.make_thunk`` on one-element storage cells; return the outputs."""
    storage = {v: [x] for v, x in zip(node.inputs, values, strict=True)}
    computed = {v: [True] for v in node.inputs}
    for out in node.outputs:
        storage[out] = [None]
        computed[out] = [False]
    thunk = node.op.make_thunk(node, storage, computed, [])
    thunk()
    assert all(computed[o][0] for o in node.outputs), "thunk left outputs uncomputed"
    return [storage[o][0] for o in node.outputs]


def check_op_contract(
    op: Any,
    inputs: Sequence[Any],
    values: Sequence[Any] | None = None,
    expected: Sequence[Any] | None = None,
) -> Any:
    """Check the seeds' Op contract for ``op`` on ``inputs`` and return the node.

    With ``values``, the thunk runs ``perform`` on storage cells; each output
    must be valid for its type and, with ``expected``, close to it.
    """
    node = op.make_node(*inputs)
    _check_node(op, node)
    _check_identity(op)
    _check_maps(op, node)
    _check_call(op, inputs, node)
    if values is not None:
        results = run_thunk(node, values)
        for out, value in zip(node.outputs, results, strict=True):
            assert out.type.is_valid_value(value), f"{value!r} is not a {out.type}"
        for value, want in zip(results, expected or [], strict=False):
            np.testing.assert_allclose(value, want)
    return node


# --- comparing computed values with NumPy ---

# Per dtype, how close a kernel must come to NumPy. float16 keeps ~3 decimal
# digits; float32 transcendentals differ by a few ULP between libms.
TOLERANCE = {
    "float16": {"rtol": 2e-3, "atol": 2e-3},
    "float32": {"rtol": 2e-5, "atol": 1e-6},
    "float64": {"rtol": 1e-12, "atol": 1e-14},
    "complex64": {"rtol": 2e-5, "atol": 1e-6},
    "complex128": {"rtol": 1e-12, "atol": 1e-14},
}


def assert_matches(got: Any, want: Any, dtype: Any = None, scale: float = 1) -> None:
    """``got`` is an ndarray of ``dtype`` (default: ``want``'s) with ``want``'s
    shape and values: exact for bool and integers, within ``TOLERANCE``
    (times ``scale``) for floats, NaN equal to NaN."""
    want = np.asarray(want)
    dtype = np.dtype(dtype or want.dtype)
    assert isinstance(got, np.ndarray), f"expected an ndarray, got {type(got)}"
    assert got.dtype == dtype, f"dtype {got.dtype}, expected {dtype}"
    assert got.shape == want.shape, f"shape {got.shape}, expected {want.shape}"
    tol = TOLERANCE.get(dtype.name)
    if tol is None:
        np.testing.assert_array_equal(got, want.astype(dtype))
        return
    np.testing.assert_allclose(
        got,
        want.astype(dtype),
        rtol=tol["rtol"] * scale,
        atol=tol["atol"] * scale,
        equal_nan=True,
    )


# --- tolerances derived from the operation ---
#
# Sums round differently with the order of their terms, and that order is
# no promise: a threaded BLAS splits by its thread count, our reductions by
# theirs, and SIMD builds (AVX2, AVX-512) by their lane counts. So results
# that pass through one are compared within a bound on the rounding, never
# bit for bit.


def product_error_bound(a: Any, b: Any) -> np.ndarray:
    """How far two float computations of ``a @ b`` may differ, elementwise.

    Each is within ``gamma_k · (|a| @ |b|)`` of the exact product, with ``k``
    the inner length and ``gamma_k ≈ k·u`` (``u = eps/2``), whatever the order
    of the sum and with or without FMA (Higham, *Accuracy and Stability of
    Numerical Algorithms*, §3.1); two of them are within twice that, which
    is ``k·eps·(|a| @ |b|)``. The factor 2 on top is for the final roundings
    (a copy to another dtype, an added bias)."""
    a, b = np.asarray(a), np.asarray(b)
    eps = np.finfo(np.result_type(a, b)).eps
    k = a.shape[-1]
    return 2 * k * eps * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))


def assert_within(got: Any, want: Any, bound: Any, what: str = "") -> None:
    """``|got - want| <= bound`` elementwise (NaN equal to NaN); a failure
    names the worst element."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what} shape {got.shape}, expected {want.shape}"
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    bound = np.broadcast_to(np.asarray(bound, dtype=np.float64), err.shape)
    bad = ~(err <= bound) & ~(np.isnan(got) & np.isnan(want))
    if not bad.any():
        return
    # NaN (one side only) counts as the worst.
    worst = np.argmax(np.where(bad, err - bound, -np.inf))
    i = tuple(int(j) for j in np.unravel_index(worst, err.shape))
    raise AssertionError(
        f"{what} {int(bad.sum())} of {err.size} elements off; worst at {i}: got "
        f"{got[i]!r}, want {want[i]!r}, |diff| {err[i]:.3g} > bound {bound[i]:.3g}"
    )


def assert_product_close(got: Any, a: Any, b: Any, what: str = "") -> None:
    """``got`` is ``a @ b`` (NumPy's, in its dtype and shape) within
    :func:`product_error_bound`."""
    want = np.asarray(a) @ np.asarray(b)
    got = np.asarray(got)
    assert got.dtype == want.dtype, f"{what} dtype {got.dtype}, expected {want.dtype}"
    assert_within(got, want, product_error_bound(a, b), what)


# --- Python ops for the host execution paths ---


class UnaryPythonOp(Op):
    """A Python op of one tensor whose output has the input's type; a
    subclass writes ``perform`` (and ``__props__`` when it has any)."""

    __props__: tuple[str, ...] = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])


class TwoOutputs(Op):
    """Two outputs of its input's type and no default output; never run."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        return Apply(self, [x], [x.type(), x.type()])

    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        raise NotImplementedError


class PerformIdentity(UnaryPythonOp):
    """Returns a copy of its input through ``perform`` (the Python path)."""

    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        output_storage[0][0] = np.array(inputs[0])


class ThunkIdentity(PerformIdentity):
    """Returns a copy of its input through its own ``make_thunk``, over the
    seeds' ``storage_map``/``compute_map`` cells."""

    def make_thunk(
        self,
        node: Any,
        storage_map: Any,
        compute_map: Any,
        no_recycling: Any,
        impl: Any = None,
    ) -> Any:
        source, target = storage_map[node.inputs[0]], storage_map[node.outputs[0]]
        done = compute_map[node.outputs[0]]

        def thunk() -> None:
            target[0] = np.array(source[0])
            done[0] = True

        return thunk


class CountingOp(PerformIdentity):
    """``PerformIdentity`` that counts its calls (``calls``) and raises
    ``raises`` (an exception instance) when set."""

    __props__ = ("tag",)

    def __init__(self, tag: str = "") -> None:
        self.tag = tag
        self.calls = 0
        self.raises: BaseException | None = None

    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        self.calls += 1
        if self.raises is not None:
            raise self.raises
        super().perform(node, inputs, output_storage)


# How a test routes a value through each execution path: native kernels
# only, or a Python op's ``perform`` or ``make_thunk`` first.
PATHS: dict[str, Callable[[Any], Any]] = {
    "native": lambda v: v,
    "perform": lambda v: PerformIdentity()(v),
    "make_thunk": lambda v: ThunkIdentity()(v),
}


def check_infer_shape(
    inputs: Sequence[Any],
    outputs: Sequence[Any],
    values: Sequence[Any],
    op_class: type | None = None,
) -> None:
    """Check the shapes ``infer_shape`` gives for ``outputs`` against the
    shapes the compiled graph computes for ``values`` (PyTensor's
    ``InferShapeTester._compile_and_check``).

    As PyTensor's ``ShapeFeature`` does, shapes flow from ``inputs`` through
    every node's ``infer_shape`` in topological order. The resulting shape
    graph must run neither the output nodes nor any op of ``op_class``: the
    point of ``infer_shape`` is to know a shape without computing the value.
    """
    from oxtensor import function
    from oxtensor.graph.basic import applys_between
    from oxtensor.graph.traversal import io_toposort

    outputs = list(outputs)
    shapes = {x: _seed_shape(x) for x in inputs}
    for node in io_toposort(list(inputs), outputs):
        in_shapes = [shapes.setdefault(x, _seed_shape(x)) for x in node.inputs]
        out_shapes = node.op.infer_shape(None, node, in_shapes)
        assert len(out_shapes) == len(node.outputs), f"{node.op}: one shape per output"
        for out, shape in zip(node.outputs, out_shapes, strict=True):
            assert len(shape) == out.ndim, (
                f"{node.op}: {len(shape)} lengths for {out.ndim}-d"
            )
            shapes[out] = tuple(shape)
    inferred = [list(shapes[out]) for out in outputs]
    flat = [as_tensor_variable(d) for dims in inferred for d in dims]
    ran = list(applys_between(inputs, flat))
    for out in outputs:
        assert out.owner not in ran, f"{out.owner.op}.infer_shape runs the node itself"
    if op_class is not None:
        bad = [a for a in ran if isinstance(a.op, op_class)]
        assert not bad, f"the shape graph still runs {bad}"
    f = function(list(inputs), outputs + flat, on_unused_input="ignore")
    results = f(*values)
    got, lengths = results[: len(outputs)], iter(results[len(outputs) :])
    for out, value, dims in zip(outputs, got, inferred, strict=True):
        shape = tuple(int(next(lengths)) for _ in dims)
        want = np.shape(value)
        assert shape == want, f"infer_shape of {out.owner.op}: {shape}, computed {want}"


def _seed_shape(x: Any) -> tuple[Any, ...]:
    """A graph input's shape: static lengths, else ``Shape_i``."""
    from oxtensor.tensor.shape import shape_i

    static = getattr(x.type, "shape", ())
    return tuple(n if n is not None else shape_i(x, i) for i, n in enumerate(static))


def run_python(
    code: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter that shows every warning (``-W
    always``), its output captured as text; a nonzero exit raises."""
    return subprocess.run(
        [sys.executable, "-W", "always", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def chain_setup(steps: int, length: str) -> str:
    """A ``peak_growth`` setup: ``f`` is a chain of ``steps`` elementwise
    ops on a float64 vector, ``v`` a random vector of ``length``."""
    return f"""
x = ot.dvector("x")
y = x
for k in range({steps}):
    y = ot.sqrt(ot.abs(y) + 1.0) if k % 2 else y * 1.0001 - 0.5
f = oxtensor.function([x], y)
v = np.random.default_rng(0).random({length})
f(v[:10])
"""


def peak_growth(setup: str, call: str = "out = f(v)", check: str = "") -> float:
    """How many arrays of ``v``'s size the peak resident size grew by during
    ``call``, run in a fresh Python process (where the peak is the script's
    own) after ``setup`` (NumPy as ``np``, ``oxtensor`` and
    ``oxtensor.tensor`` as ``ot`` are imported; it defines and warms up
    ``f`` and ``v``); ``check`` may then test ``out``."""
    script = "\n".join(
        [
            "import resource",
            "import numpy as np",
            "import oxtensor",
            "import oxtensor.tensor as ot",
            textwrap.dedent(setup),
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss",
            call,
            "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss",
            textwrap.dedent(check),
            "print((after - before) * 1024 / v.nbytes)",
        ]
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(run.stdout.strip())
