"""Fuzzing from Python (issue 30): random graphs over random inputs, with
lengths, counts, indices, steps and shapes chosen the way a hostile user
would (0, 1, 2**40, 2**62 + 1, 2**63 - 1, -2**63, zero-stride views of 2**40
elements). Every call either returns NumPy's values or raises an
`Exception`; a signal or a panic fails the run.

Sizes are either tiny or impossible (2**40 elements and more, which no
allocation can satisfy), so no example uses real memory; operations whose
cost grows with a zero-stride input's length without allocating (reductions
over it) are not applied to such inputs. ``HYPOTHESIS_PROFILE=fuzz`` (``make
fuzz``) runs many more examples than CI's default profile (40 per test, in
``make test-python``).

A signal fails the run: pytest's faulthandler plugin (on by default) prints
the Python stack of the example that crashed, and the run exits nonzero;
Hypothesis's ``note`` lines above it name the graph. The issue's known
crashing programs run in child processes in ``test_hostile_inputs.py``.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from hypothesis import given, note
from hypothesis import strategies as st
from oxtensor.compile.mode import Mode

HUGE = 2**40
BIG = st.sampled_from([HUGE, 2**61 + 8, 2**62, 2**62 + 1, 2**63 - 1])
SMALL = st.integers(0, 4)
LENGTH = st.one_of(SMALL, SMALL, BIG)
INDEX = st.one_of(
    st.integers(-5, 5),
    st.sampled_from([2**63 - 1, -(2**63), 2**62, -(2**62), HUGE, -HUGE]),
)
CHEAP = 10**6  # elements an operation may walk without allocating them
UNREWRITTEN = Mode(optimizer=None)


@dataclass
class Case:
    """A symbolic variable and the NumPy value it stands for (or the
    exception NumPy raised computing it)."""

    var: Any
    value: Any


Op = Callable[[st.DrawFn, Case], Case]


def numpy(f: Callable[[], Any]) -> Any:
    """NumPy's result, or the exception it raised (warnings silenced)."""
    with np.errstate(all="ignore"):
        try:
            return np.asarray(f())
        except Exception as e:
            return e


def too_big() -> Any:
    """The reference for sizes NumPy itself cannot be asked about."""
    raise MemoryError("too big for NumPy's own kernels")


def elemwise(draw: st.DrawFn, c: Case) -> Case:
    k = draw(st.sampled_from(["add", "mul", "maximum", "exp", "neg", "sub"]))
    v = draw(st.sampled_from([0.0, 1.5, -2.0, np.inf]))
    sym = {
        "add": lambda x: x + v,
        "mul": lambda x: x * v,
        "maximum": lambda x: ot.maximum(x, v),
        "exp": ot.exp,
        "neg": lambda x: -x,
        "sub": lambda x: x - v,
    }[k]
    ref = {
        "add": lambda a: a + v,
        "mul": lambda a: a * v,
        "maximum": lambda a: np.maximum(a, v),
        "exp": np.exp,
        "neg": np.negative,
        "sub": lambda a: a - v,
    }[k]
    return Case(sym(c.var), numpy(lambda: ref(c.value)))


def reduce(draw: st.DrawFn, c: Case) -> Case:
    k = draw(st.sampled_from(["sum", "max", "prod"]))
    axis = draw(st.one_of(st.none(), st.integers(-c.var.ndim - 1, c.var.ndim)))
    sym = getattr(c.var, k)(axis=axis)
    return Case(sym, numpy(lambda: getattr(c.value, k)(axis=axis)))


def reshape(draw: st.DrawFn, c: Case) -> Case:
    shape = tuple(
        draw(st.lists(st.one_of(LENGTH, st.just(-1)), min_size=1, max_size=3))
    )
    return Case(c.var.reshape(shape), numpy(lambda: c.value.reshape(shape)))


def repeat(draw: st.DrawFn, c: Case) -> Case:
    if c.var.ndim == 0:
        return c
    axis = draw(st.integers(0, c.var.ndim - 1))
    n = c.value.shape[axis] if isinstance(c.value, np.ndarray) else 1
    counts = draw(st.one_of(LENGTH, st.lists(LENGTH, min_size=n, max_size=n)))
    reps = np.asarray(counts, dtype=np.int64)
    total = int(np.sum(reps, dtype=object)) * (1 if reps.ndim else n)
    # NumPy's own `repeat` crashes on totals past 2**63 (issue 30's first
    # program): it is not asked about them.
    ref = (lambda: np.repeat(c.value, reps, axis)) if total <= CHEAP else too_big
    return Case(ot.repeat(c.var, reps, axis=axis), numpy(ref))


def slice_(draw: st.DrawFn, c: Case) -> Case:
    if c.var.ndim == 0:
        return c
    s = slice(*draw(st.tuples(*[st.one_of(st.none(), INDEX)] * 3)))
    return Case(c.var[s], numpy(lambda: c.value[s]))


def index(draw: st.DrawFn, c: Case) -> Case:
    if c.var.ndim == 0:
        return c
    i = draw(INDEX)
    return Case(c.var[i], numpy(lambda: c.value[i]))


def take(draw: st.DrawFn, c: Case) -> Case:
    if c.var.ndim == 0:
        return c
    idx = np.asarray(draw(st.lists(INDEX, max_size=4)), dtype=np.int64)
    return Case(c.var[idx], numpy(lambda: c.value[idx]))


def join(draw: st.DrawFn, c: Case) -> Case:
    if c.var.ndim == 0:
        return c
    axis = draw(st.integers(0, c.var.ndim - 1))
    k = draw(st.integers(1, 4))
    sym = ot.concatenate([c.var] * k, axis=axis)
    return Case(sym, numpy(lambda: np.concatenate([c.value] * k, axis=axis)))


def sort_or_cumsum(draw: st.DrawFn, c: Case) -> Case:
    if c.var.ndim == 0:
        return c
    axis = draw(st.integers(-c.var.ndim, c.var.ndim - 1))
    if draw(st.booleans()):
        return Case(
            ot.sort(c.var, axis=axis), numpy(lambda: np.sort(c.value, axis=axis))
        )
    return Case(
        ot.cumsum(c.var, axis=axis), numpy(lambda: np.cumsum(c.value, axis=axis))
    )


def tile(draw: st.DrawFn, c: Case) -> Case:
    reps = tuple(draw(st.lists(LENGTH, min_size=max(c.var.ndim, 1), max_size=3)))
    # `np.tile` segfaults on huge repetitions, as `np.repeat` does.
    ref = (lambda: np.tile(c.value, reps)) if max(reps) <= CHEAP else too_big
    return Case(ot.tile(c.var, reps), numpy(ref))


def inc(draw: st.DrawFn, c: Case) -> Case:
    if c.var.ndim == 0:
        return c
    s = slice(*draw(st.tuples(*[st.one_of(st.none(), INDEX)] * 3)))

    def ref() -> Any:
        out = np.array(c.value)
        out[s] += 1.0
        return out

    return Case(ot.inc_subtensor(c.var[s], 1.0), numpy(ref))


def alloc_elemwise(draw: st.DrawFn, c: Case) -> Case:
    """An `Alloc` (of the input's own shape, or of drawn lengths) combined
    elementwise with the input: what `local_elemwise_alloc` and the
    `fill` rewrites take apart."""
    v = draw(st.sampled_from([0.0, 1.0, 2.5]))
    if draw(st.booleans()):
        sym_a, dims = ot.alloc(v, *c.var.shape), c.value.shape
    else:
        dims = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        sym_a = ot.alloc(v, *dims)
    k = draw(st.sampled_from(["add", "mul", "maximum"]))
    sym_f = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b}.get(k, ot.maximum)
    ref_f = {"add": np.add, "mul": np.multiply, "maximum": np.maximum}[k]
    first = draw(st.booleans())
    sym = sym_f(sym_a, c.var) if first else sym_f(c.var, sym_a)

    def ref() -> Any:
        if int(np.prod(dims, dtype=object)) > CHEAP:
            too_big()
        a = np.full(dims, v)
        return ref_f(a, c.value) if first else ref_f(c.value, a)

    return Case(sym, numpy(ref))


OPS: list[Op] = [elemwise, reduce, reshape, repeat, slice_, index, take, join]
OPS += [sort_or_cumsum, tile, inc, alloc_elemwise]
# Allocating ones (their output is the input's size or more): safe on huge
# zero-stride inputs, which they refuse with a MemoryError at once.
# (Not `repeat`: NumPy's own loop visits every element even for 0 copies.)
ALLOCATING = [elemwise, reshape, join, sort_or_cumsum, tile, inc, alloc_elemwise]


@st.composite
def source(draw: st.DrawFn) -> tuple[Any, np.ndarray]:
    """An input: a small float64 array, or a zero-stride view of 2**40."""
    if draw(st.integers(0, 5)) == 0:
        shape = draw(st.sampled_from([(HUGE,), (1, HUGE), (HUGE, 1), (2, HUGE)]))
        value = np.broadcast_to(np.float64(0.5), shape)
    else:
        shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
        value = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 3.0
    x = ot.tensor(
        "x", dtype="float64", shape=tuple(1 if n == 1 else None for n in shape)
    )
    return x, value


def same(got: Any, want: np.ndarray) -> bool:
    got = np.asarray(got)
    if got.shape != want.shape:
        return False
    if want.size > CHEAP:  # a view of a huge input: sample it
        got, want = (
            got.reshape(-1)[:: want.size // 16],
            want.reshape(-1)[:: want.size // 16],
        )
    return bool(np.allclose(got, want, equal_nan=True, rtol=1e-12, atol=0))


def check(inputs: list[Any], values: list[Any], case: Case) -> None:
    """Calls the compiled graph: NumPy's values, or an `Exception`."""
    note(f"graph: {oxtensor.dprint(case.var, file='str')}")
    try:
        f = oxtensor.function(inputs, case.var, on_unused_input="ignore")
        got = f(*values)
    except Exception as e:  # any Exception is an acceptable answer
        note(f"raised {type(e).__name__}: {e}")
        return
    if isinstance(case.value, MemoryError):
        return  # NumPy ran out (`np.tile` of a zero-stride view copies it first)
    if isinstance(case.value, Exception):
        # As in PyTensor, rewrites assume that axes not known to broadcast
        # have the lengths the graph implies, so inputs whose shapes could
        # not broadcast may get an answer; the graph as written must refuse
        # them, and any other error NumPy raises must be ours too.
        assert "broadcast" in str(case.value), (
            f"NumPy raised {case.value!r}, got {got!r}"
        )
        as_written = oxtensor.function(
            inputs, case.var, on_unused_input="ignore", mode=UNREWRITTEN
        )
        try:
            got = as_written(*values)
        except Exception:
            return
        raise AssertionError(f"NumPy raised {case.value!r}, got {got!r}")
    if same(got, case.value):
        return
    # As in PyTensor, algebraic rewrites assume finite values (`x * 0` is 0):
    # they may differ where NumPy's answer is not finite; the graph as
    # written may not.
    as_written = oxtensor.function(
        inputs, case.var, on_unused_input="ignore", mode=UNREWRITTEN
    )(*values)
    assert same(as_written, case.value), f"got {as_written!r}, NumPy {case.value!r}"
    assert np.shape(got) == case.value.shape
    assert case.value.size <= CHEAP, f"got {got!r}, NumPy {case.value!r}"
    finite = np.isfinite(case.value)
    assert same(np.asarray(got)[finite], case.value[finite]), f"got {got!r}"


@given(st.data())
def test_random_chains_of_operations(data: st.DataObject) -> None:
    x, value = data.draw(source())
    case = Case(x, value)
    for _ in range(data.draw(st.integers(1, 3))):
        if isinstance(case.value, Exception):
            break
        cheap = isinstance(case.value, np.ndarray) and case.value.size <= CHEAP
        op = data.draw(st.sampled_from(OPS if cheap else ALLOCATING))
        try:
            case = op(data.draw, case)
        except Exception as e:  # building the graph refused it
            note(f"building raised {type(e).__name__}: {e}")
            return
    check([x], [value], case)


@given(n=LENGTH, m=LENGTH, k=INDEX)
def test_eye(n: int, m: int, k: int) -> None:
    a, b, c = ot.lscalar("a"), ot.lscalar("b"), ot.lscalar("c")
    check(
        [a, b, c],
        [n, m, k],
        Case(ot.eye(a, b, c).sum(), numpy(lambda: np.eye(n, m, k).sum())),
    )


@given(start=INDEX, stop=INDEX, step=INDEX)
def test_arange(start: int, stop: int, step: int) -> None:
    a, b, c = ot.lscalar("a"), ot.lscalar("b"), ot.lscalar("c")
    count = max(0, -((start - stop) // step)) if step else 0
    # NumPy (given Python integers, so the span is exact) is the reference;
    # its length is `ceil(span / step)` in floats, which can be one less
    # than `range`'s. Lengths here are at most 2**24 (a span of 2**64 in
    # steps of 2**40) or at least 2**37 (steps of at most 5), which
    # oxtensor must refuse and NumPy is not asked to allocate.
    # An empty range is empty even where NumPy's length arithmetic
    # overflows (`arange(-2**63, 2**63 - 1, -1)` raises there).
    if count == 0 and step:
        want = np.zeros(0, dtype=np.int64)
    elif count <= 2**24:
        want = numpy(lambda: np.arange(start, stop, step, dtype=np.int64))
    else:
        want = MemoryError()
    check([a, b, c], [start, stop, step], Case(ot.arange(a, b, c), want))


@given(dims=st.lists(LENGTH, max_size=4), value=st.sampled_from([0.0, 2.5]))
def test_alloc(dims: list[int], value: float) -> None:
    shape = ot.lvector("shape")
    sym = ot.alloc(value, *[shape[i] for i in range(len(dims))])
    ref = numpy(lambda: np.full(dims, value))
    check([shape], [np.asarray(dims, dtype=np.int64)], Case(sym, ref))
