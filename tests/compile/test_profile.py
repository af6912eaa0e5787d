"""`function(..., profile=True)`: per-node call counts and times, and the
`summary()` text, sorted by time, with Python ops marked."""

import re

import numpy as np
import oxtensor.tensor as ot
from oxtensor import function
from oxtensor.compile.mode import get_mode
from oxtensor.ifelse import ifelse

from tests.helpers import CountingOp, ThunkIdentity


def test_no_profile_unless_asked():
    x = ot.dvector("x")
    assert function([x], x * 2).profile is None
    assert function([x], x * 2, profile=False).profile is None


def op_text(node):
    """A node's text before its inputs (a ``Composite{...}`` has parentheses
    of its own, inside braces)."""
    depth = 0
    for i, ch in enumerate(node):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "(" and depth == 0:
            return node[:i]
    return node


def by_op(profile):
    """``apply_stats`` keyed by each node's op (its text before the inputs)."""
    return {op_text(node): row for node, *row in profile.apply_stats}


def test_counts_calls_per_node():
    x = ot.dvector("x")
    f = function([x], [(x + 1).sum(), x * 2], profile=True, name="prof")
    for _ in range(5):
        f(np.ones(10))
    p = f.profile
    assert p.calls == 5
    stats = by_op(p)
    assert set(stats) == {"Add", "Sum{axes=None}", "Mul"}
    assert {cls for cls, *_ in stats.values()} == {"Elemwise", "Sum"}
    assert {calls for _, calls, _, _ in stats.values()} == {5}
    assert all(secs >= 0 for _, _, secs, _ in stats.values())
    assert not any(py for *_, py in stats.values())
    assert p.total_time >= sum(secs for _, _, secs, _ in stats.values())


def test_python_ops_are_profiled_and_marked():
    x = ot.dvector("x")
    perform, thunk = CountingOp("profiled"), ThunkIdentity()
    f = function([x], thunk(perform(x)) + 1, profile=True)
    f(np.ones(3))
    f(np.ones(3))
    stats = {op: (calls, py) for op, (_, calls, _, py) in by_op(f.profile).items()}
    assert stats == {
        "CountingOp{tag='profiled'}": (2, True),
        "ThunkIdentity": (2, True),
        "Add": (2, False),
    }
    rows = apply_lines(f.profile.summary())
    marked = {op_text(node): node.endswith(" (py)") for _, _, node in rows}
    assert marked == {
        "CountingOp{tag='profiled'}": True,
        "ThunkIdentity": True,
        "Add": False,
    }


def apply_lines(text):
    """The ``Apply`` table rows of a summary: (apply time, #call, node)."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s+[\d.]+%\s+[\d.]+%\s+(\S+)s\s+\S+s\s+(\d+)\s+\d+\s+(.*)", line)
        if m:
            rows.append((float(m[1]), int(m[2]), m[3]))
    return rows


def test_summary_is_sorted_by_time():
    x = ot.dvector("x")
    y = x
    for _ in range(6):
        y = ot.sin(y) * 1.5
    # Unfused, so that there are many nodes to sort.
    unfused = get_mode("FAST_RUN").excluding("fusion")
    f = function([x], y.sum(), profile=True, name="chain", mode=unfused)
    for _ in range(3):
        f(np.linspace(0, 1, 20_000))
    text = f.profile.summary()
    assert "Message: chain" in text
    assert "Time in 3 calls to Function.__call__" in text
    rows = apply_lines(text)
    assert len(rows) == len(f.profile.apply_stats) == 13
    times = [t for t, _, _ in rows]
    assert times == sorted(times, reverse=True)
    assert {calls for _, calls, _ in rows} == {3}
    assert str(f.profile) == text


def test_lazy_programs_count_only_the_nodes_that_ran():
    c, x = ot.bscalar("c"), ot.dvector("x")
    taken, skipped = CountingOp("taken"), CountingOp("skipped")
    f = function([c, x], ifelse(c, taken(x) * 2, skipped(x) + 1), profile=True)
    f(1, np.ones(2))
    f(1, np.ones(2))
    calls = {op: n for op, (_, n, _, _) in by_op(f.profile).items()}
    assert calls == {
        "if{}": 2,
        "CountingOp{tag='taken'}": 2,
        "Mul": 2,
        "CountingOp{tag='skipped'}": 0,
        "Add": 0,
    }
    assert (taken.calls, skipped.calls) == (2, 0)
