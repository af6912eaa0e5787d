"""PyTensor 3.x's module names around compiled functions:
`compile.executor`, `compile.debug.profiling`, and the
`RewriteDatabaseQuery` tags and `_contains_cycle` helper its tests use."""

import io

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from oxtensor.compile.debug.profiling import ProfileStats
from oxtensor.compile.executor import Function, In
from oxtensor.compile.mode import Mode
from oxtensor.graph.destroyhandler import _contains_cycle
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.rewriting.db import RewriteDatabaseQuery


def test_executor_function_is_what_function_returns():
    x = ot.dvector("x")
    f = oxtensor.function([In(x)], x * 2)
    assert isinstance(f, Function)
    np.testing.assert_array_equal(f([1.0, 2.0]), [2.0, 4.0])


def test_profile_is_a_profile_stats_and_writes_its_summary():
    x = ot.dvector("x")
    f = oxtensor.function([x], ot.exp(x), profile=True)
    f(np.zeros(3))
    assert isinstance(f.profile, ProfileStats)
    out = io.StringIO()
    text = f.profile.summary(file=out)
    assert out.getvalue() == text
    assert "Exp" in text
    assert f.profile.calls == 1


def test_none_tags_select_and_exclude_nothing():
    q = RewriteDatabaseQuery(include=[None], exclude=[None, "fusion"])
    assert q.include == []
    assert q.exclude == ["fusion"]
    # A mode over it runs no rewrite: x * 1 stays a multiplication.
    x = ot.dvector("x")
    f = oxtensor.function([x], x * 1, mode=Mode("py", q))
    ops = [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
    assert ops
    np.testing.assert_array_equal(f([3.0]), [3.0])


def test_contains_cycle_with_extra_orderings():
    x = ot.dscalar("x")
    fg = FunctionGraph([x], [((x + 1) * 2) - 1])
    first, _, last = fg.toposort()
    assert not _contains_cycle(fg, {})
    assert not _contains_cycle(fg, {last: [first]})
    assert _contains_cycle(fg, {first: [last]})
