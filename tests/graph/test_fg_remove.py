"""`FunctionGraph.remove_node` and `remove_input`: what depends on the
removed node or input goes too (outputs included), then unused producers;
features hear each prune."""

import oxtensor.tensor as ot
import pytest
from oxtensor.graph.features import Feature
from oxtensor.graph.fg import FunctionGraph


class Pruned(Feature):
    def __init__(self):
        self.pruned = []

    def on_prune(self, fgraph, node, reason):
        self.pruned.append((str(node.op), reason))


def chain():
    """``a = exp(x); b = a * y; c = log(b)``."""
    x, y = ot.dvector("x"), ot.dvector("y")
    a = ot.exp(x)
    b = a * y
    c = ot.log(b)
    return x, y, a, b, c


def test_remove_node_takes_its_dependents_and_their_outputs():
    x, y, a, b, c = chain()
    fg = FunctionGraph([x, y], [b, c, a], clone=False)
    pruned = Pruned()
    fg.attach_feature(pruned)
    fg.remove_node(b.owner, reason="test")
    fg.check_integrity()
    assert fg.outputs == [a]
    assert fg.apply_nodes == {a.owner}
    assert b not in fg.clients
    assert c not in fg.clients
    assert [p[0] for p in pruned.pruned] == ["Log", "Mul"]
    assert all(reason == "test" for _, reason in pruned.pruned)


def test_remove_node_prunes_unused_producers():
    x, y, _a, _b, c = chain()
    fg = FunctionGraph([x, y], [c], clone=False)
    fg.remove_node(c.owner)
    fg.check_integrity()
    assert fg.outputs == []
    assert not fg.apply_nodes


def test_remove_node_refuses_a_node_not_in_the_graph():
    x, y, _a, _b, c = chain()
    fg = FunctionGraph([x, y], [c], clone=False)
    other = ot.sin(x).owner
    with pytest.raises(ValueError, match=r"Sin\(x\) is not in this FunctionGraph"):
        fg.remove_node(other)


def test_remove_input_takes_what_uses_it():
    x, y, a, _b, c = chain()
    fg = FunctionGraph([x, y], [c, a, y], clone=False)
    fg.remove_input(1)
    fg.check_integrity()
    assert fg.inputs == [x]
    assert fg.outputs == [a]
    assert y not in fg.variables
    assert y not in fg.clients
    with pytest.raises(IndexError, match="no input 3"):
        fg.remove_input(3)
