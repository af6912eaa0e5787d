"""Graph walks in PyTensor 3.x's exact orders (``tests/graph/test_traversal.py``
and anatomy §3.5): a stack-based DFS that pops the last pending item first."""

import types

import oxtensor
import oxtensor.tensor as T
import pytest
from oxtensor.graph.basic import (
    Apply,
    ancestors,
    applys_between,
    graph_inputs,
    io_toposort,
    orphans_between,
    vars_between,
)
from oxtensor.graph.traversal import (
    apply_depends_on,
    explicit_graph_inputs,
    general_toposort,
    get_var_by_name,
    toposort,
    truncated_graph_inputs,
    variable_depends_on,
    walk,
)

from tests.graph.utils import MyOp, MyVariable


def two_level():
    r1, r2, r3 = MyVariable(1), MyVariable(2), MyVariable(3)
    o1 = MyOp(r1, r2)
    o1.name = "o1"
    o2 = MyOp(r3, o1)
    o2.name = "o2"
    return r1, r2, r3, o1, o2


def test_ancestors():
    r1, r2, r3, o1, o2 = two_level()
    assert list(ancestors([o2])) == [o2, o1, r2, r1, r3]
    assert list(ancestors([o2], blockers=None)) == [o2, o1, r2, r1, r3]
    assert list(ancestors([o2], blockers=[o1])) == [o2, o1, r3]
    # A single variable is accepted as well as a list.
    assert list(ancestors(o2)) == [o2, o1, r2, r1, r3]


def test_graph_inputs():
    r1, r2, r3, _o1, o2 = two_level()
    assert list(graph_inputs([o2])) == [r2, r1, r3]
    assert list(graph_inputs([o2], blockers=None)) == [r2, r1, r3]


def test_graph_inputs_with_blockers():
    r1, r2, r3, o1, o2 = two_level()
    # Blocked variables are not inputs unless they have no owner.
    assert list(graph_inputs([o2], blockers=[o1])) == [r3]
    assert list(graph_inputs([o2], blockers=[r1])) == [r2, r1, r3]
    assert list(graph_inputs([o1, o2])) == [r2, r1, r3]


def test_graph_inputs_include_constants():
    x = T.dscalar("x")
    c = T.constant(2.0)
    assert list(graph_inputs([x * c])) == [c, x]


def test_vars_between_and_orphans():
    r1, r2, r3, o1, o2 = two_level()
    assert list(vars_between([r1, r2], [o2])) == [o2, o1, r2, r1, r3]
    assert list(orphans_between([r1, r2], [o2])) == [r3]
    assert list(vars_between([o1], [o2])) == [o2, o1, r3]
    assert list(orphans_between([o1], [o2])) == [r3]


def test_applys_between():
    r1, r2, r3, r4 = MyVariable(1), MyVariable(2), MyVariable(3), MyVariable(4)
    o1 = MyOp(r1, r2)
    o2 = MyOp(r3, r4)
    o3 = MyOp(r3, o1, o2)
    assert applys_between([r1, r2], [o3]) == [o3.owner, o2.owner, o1.owner]
    assert applys_between([o1], [o3]) == [o3.owner, o2.owner]


def test_io_toposort_simple():
    r1, r2, r5 = MyVariable(1), MyVariable(2), MyVariable(5)
    o = MyOp(r1, r2)
    o2 = MyOp(o, r5)
    assert io_toposort([r5], [o2]) == [o.owner, o2.owner]


def test_toposort_double_dependencies():
    r1, r5 = MyVariable(1), MyVariable(5)
    o = MyOp.make_node(r1, r1)
    o2 = MyOp.make_node(o.outputs[0], r5)
    assert toposort(o2.outputs) == [o, o2]
    assert io_toposort([], o2.outputs) == [o, o2]


def test_io_toposort_inputs_with_owners():
    r1, r5 = MyVariable(1), MyVariable(5)
    o = MyOp.make_node(r1, r1)
    r2b = o.outputs[0]
    o2 = MyOp.make_node(r2b, r2b)
    assert io_toposort([r2b], o2.outputs) == [o2]
    o2 = MyOp.make_node(r2b, r5)
    assert io_toposort([r2b], o2.outputs) == [o2]


def test_io_toposort_not_connected():
    r1, r2, r3, r4 = MyVariable(1), MyVariable(2), MyVariable(3), MyVariable(4)
    o0 = MyOp.make_node(r1, r2)
    o1 = MyOp.make_node(r3, r4)
    # The DFS pops the last pending output first.
    assert io_toposort([r1, r2, r3, r4], o0.outputs + o1.outputs) == [o1, o0]


def test_io_toposort_chain():
    r1, r2 = MyVariable(1), MyVariable(2)
    o0 = MyOp.make_node(r1, r2)
    o1 = MyOp.make_node(o0.outputs[0], r1)
    assert io_toposort([r1, o0.outputs[0]], [o0.outputs[0], o1.outputs[0]]) == [o1]


def test_io_toposort_outputs_with_clients():
    r1, r2, r4 = MyVariable(1), MyVariable(2), MyVariable(4)
    o0 = MyOp.make_node(r1, r2)
    MyOp.make_node(o0.outputs[0], r4)
    assert io_toposort([], o0.outputs) == [o0]


def test_anatomy_toposort_examples():
    x = T.dscalar("x")
    e, lg, s = T.exp(x), T.log(x), T.sin(x)
    assert io_toposort([x], [e, lg]) == [lg.owner, e.owner]
    out = T.add(e, lg, s)
    assert toposort([out]) == [s.owner, lg.owner, e.owner, out.owner]


def test_toposort_with_blockers():
    _r1, _r2, _r3, o1, o2 = two_level()
    assert toposort([o2]) == [o1.owner, o2.owner]
    assert toposort([o2], blockers=[o1]) == [o2.owner]


def test_io_toposort_orderings():
    x = T.dscalar("x")
    e, lg = T.exp(x), T.log(x)
    assert io_toposort([x], [e, lg], orderings={lg.owner: [e.owner]}) == [
        e.owner,
        lg.owner,
    ]
    with pytest.raises(ValueError, match="graph contains cycles"):
        io_toposort([x], [T.log(e)], orderings={e.owner: [T.log(e).owner]})


def test_deep_graphs_do_not_overflow():
    # Traversals are iterative: a chain deeper than Python's recursion limit.
    x = T.dscalar("x")
    out = x
    for _ in range(3000):
        out = T.exp(out)
    order = toposort([out])
    assert len(order) == 3000
    assert order[0].inputs[0] is x
    assert list(graph_inputs([out])) == [x]
    assert len(list(ancestors([out]))) == 3001


def test_results_are_the_callers_objects():
    r1, r2, r3, o1, o2 = two_level()
    result = ancestors([o2])
    assert all(any(v is w for w in (r1, r2, r3, o1, o2)) for v in result)
    assert applys_between([r1], [o2])[0] is o2.owner


def test_non_variables_are_refused():
    with pytest.raises(TypeError, match="Expected a Variable, got 3"):
        ancestors([3])
    with pytest.raises(TypeError, match="Expected a Variable"):
        io_toposort([], ["x"])


def test_apply_ancestors_gives_each_node_once_and_stops_at_blockers():
    from oxtensor.graph.traversal import apply_ancestors

    x = T.dvector("x")
    e = T.exp(x)
    z = e + e
    assert apply_ancestors([z]) == [z.owner, e.owner]
    assert apply_ancestors([z], blockers=[e]) == [z.owner]
    assert apply_ancestors([x]) == []


def test_is_same_graph_pairs_the_givens():
    from oxtensor.graph.rewriting.utils import is_same_graph

    x, y = T.dvector("x"), T.dvector("y")
    assert is_same_graph(T.exp(x), T.exp(x))
    assert not is_same_graph(T.exp(x), T.exp(y))
    assert is_same_graph(T.exp(x), T.exp(y), givens={x: y})
    assert is_same_graph(T.exp(x) + 1, T.exp(y) + 1, givens=[(x, y)])
    assert not is_same_graph(T.exp(x), T.log(y), givens={x: y})


def test_ancestors_is_an_iterator_as_in_pytensor():
    r1, r2, r3, o1, o2 = two_level()
    walk_ = ancestors([o2])
    assert isinstance(walk_, types.GeneratorType)
    assert o1 in walk_
    assert list(walk_) == [r2, r1, r3]


def test_walk_orders_and_children():
    r1, r2, r3, o1, o2 = two_level()

    def expand(r):
        return r.owner.inputs if r.owner else None

    assert list(walk([o2], expand, bfs=True)) == [o2, r3, o1, r1, r2]
    assert list(walk([o2], expand, bfs=False)) == [o2, o1, r2, r1, r3]
    pairs = list(walk([o2], expand, return_children=True))
    assert pairs[0] == (o2, [r3, o1])
    assert pairs[1] == (r3, None)


def test_walk_passes_on_the_callbacks_error():
    *_, o2 = two_level()

    def expand(r):
        raise KeyError("from expand")

    with pytest.raises(KeyError, match="from expand"):
        list(walk([o2], expand))


def test_general_toposort_puts_dependencies_first_and_finds_cycles():
    r1, r2, r3, o1, o2 = two_level()

    def deps(obj):
        if isinstance(obj, Apply):
            return obj.inputs
        return [obj.owner] if obj.owner else []

    order = general_toposort([o2], deps)
    assert order == [r2, r1, r3, o1.owner, o1, o2.owner, o2]

    def cyclic(obj):
        return [o2, *deps(obj)] if obj is o1 else deps(obj)

    with pytest.raises(ValueError, match="graph contains cycles"):
        general_toposort([o2], cyclic)


def test_depends_on_and_truncated_inputs():
    x, y = T.dscalar("x"), T.dscalar("y")
    x2 = T.exp(x)
    y2 = y + x2
    o = T.exp(y2)
    assert variable_depends_on(o, x)
    assert variable_depends_on(o, [x])
    assert not variable_depends_on(o, [x], stop_at_vars=[x2])
    assert apply_depends_on(o.owner, x2.owner)
    assert apply_depends_on(o.owner, [o.owner])
    assert not apply_depends_on(x2.owner, [y2.owner])
    assert truncated_graph_inputs([o], [y]) == [x2, y]
    assert truncated_graph_inputs([o], [y2, o]) == [o, y2]
    assert truncated_graph_inputs([o]) == [o]


def test_explicit_inputs_and_names():
    x = T.dscalar("x")
    s = oxtensor.shared(1.0, name="s")
    out = T.exp(x + 2 + s)
    out.name = "out"
    assert list(explicit_graph_inputs(out)) == [x]
    assert get_var_by_name([out], "out") == (out,)
    assert get_var_by_name([out], "nothing") == ()
    assert get_var_by_name([out], x.auto_name) == (x,)
