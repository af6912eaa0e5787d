"""Random graphs and random edits (Hypothesis): whatever the edit, a
`FunctionGraph` either applies it or raises a Python exception, and its
clients, nodes and toposort stay consistent. A Rust panic would surface as
`PanicException`, which derives from `BaseException` and fails the test."""

import oxtensor.tensor as T
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.graph.features import Bookkeeper
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.utils import InconsistencyError, MissingInputError

UNARY = (T.exp, T.log, T.sin, T.neg)
BINARY = (T.add, T.mul, T.sub)
EXPECTED = (TypeError, ValueError, IndexError, InconsistencyError, MissingInputError)


class NodeTracker(Bookkeeper):
    """Follows the graph through callbacks alone; at each callback the node
    must already show that change. (Graph-level state such as
    `fgraph.outputs` is the state at the end of the whole call.)"""

    def __init__(self):
        self.nodes = set()

    def on_import(self, fgraph, node, reason):
        assert node not in self.nodes
        self.nodes.add(node)

    def on_prune(self, fgraph, node, reason):
        self.nodes.remove(node)

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        assert var is not new_var
        if node != "output":
            assert node.inputs[i] is new_var


def random_graph(data):
    n_inputs = data.draw(st.integers(1, 3), label="inputs")
    inputs = [T.dscalar(f"x{i}") for i in range(n_inputs)]
    pool = list(inputs)
    for _ in range(data.draw(st.integers(1, 8), label="nodes")):
        pool.append(random_expression(data, pool))
    outputs = data.draw(
        st.lists(st.sampled_from(pool[n_inputs:]), min_size=1, max_size=3),
        label="outputs",
    )
    return inputs, outputs


def random_expression(data, pool):
    if data.draw(st.booleans(), label="unary"):
        return data.draw(st.sampled_from(UNARY))(data.draw(st.sampled_from(pool)))
    a, b = data.draw(st.sampled_from(pool)), data.draw(st.sampled_from(pool))
    if data.draw(st.booleans(), label="constant"):
        b = data.draw(st.floats(-3, 3, allow_nan=False, width=32))
    return data.draw(st.sampled_from(BINARY))(a, b)


def has_cycle(fg):
    """An independent check: does some node depend on itself?"""
    state = {}  # node -> "open" while its inputs are explored, then "done"

    def visit(node):
        stack = [(node, iter(node.inputs))]
        state[node] = "open"
        while stack:
            current, inputs = stack[-1]
            for inp in inputs:
                parent = inp.owner
                if parent is None or state.get(parent) == "done":
                    continue
                if state.get(parent) == "open":
                    return True
                state[parent] = "open"
                stack.append((parent, iter(parent.inputs)))
                break
            else:
                state[current] = "done"
                stack.pop()
        return False

    return any(visit(n) for n in fg.apply_nodes if n not in state)


def check_consistent(fg):
    """Checks clients and order; returns False when the graph became cyclic
    (`change_node_input` allows that, as in PyTensor) and toposort says so."""
    fg.check_integrity()
    if has_cycle(fg):
        with pytest.raises(ValueError, match=r"^graph contains cycles$"):
            fg.toposort()
        return False
    order = fg.toposort()
    assert set(order) == fg.apply_nodes
    position = {node: i for i, node in enumerate(order)}
    for node in order:
        for i, inp in enumerate(node.inputs):
            assert (node, i) in fg.clients[inp]
            if inp.owner is not None:
                assert position[inp.owner] < position[node]
    for var in fg.variables:
        for client, i in fg.clients[var]:
            if client == "output":
                assert fg.outputs[i] is var
            else:
                assert client.inputs[i] is var
                assert client in fg.apply_nodes
    return True


def random_edit(data, fg):
    variables = sorted(fg.variables, key=lambda v: v.auto_name)
    nodes = sorted(fg.apply_nodes, key=lambda n: n.outputs[0].auto_name)
    kind = data.draw(
        st.sampled_from(["replace", "change", "output", "wrong_type", "remove", "add"]),
        label="edit",
    )
    if kind == "replace":
        old = data.draw(st.sampled_from(variables))
        new = random_expression(data, variables)
        fg.replace(old, new, import_missing=data.draw(st.booleans()))
    elif kind == "change" and nodes:
        node = data.draw(st.sampled_from(nodes))
        index = data.draw(st.integers(0, len(node.inputs)))  # may be out of range
        fg.change_node_input(node, index, data.draw(st.sampled_from(variables)))
    elif kind == "output":
        index = data.draw(st.integers(0, len(fg.outputs)))
        fg.change_node_input("output", index, data.draw(st.sampled_from(variables)))
    elif kind == "wrong_type":
        fg.replace(data.draw(st.sampled_from(variables)), T.dvector("v"))
    elif kind == "remove":
        fg.remove_output(data.draw(st.integers(0, len(fg.outputs))))
    elif kind == "add":
        fg.add_output(random_expression(data, variables))


@given(st.data())
def test_random_edits_keep_the_graph_consistent(data):
    inputs, outputs = random_graph(data)
    tracker = NodeTracker()
    fg = FunctionGraph(
        inputs,
        outputs,
        clone=data.draw(st.booleans(), label="clone"),
        features=[tracker],
    )
    assert check_consistent(fg)
    checkpoint = fg.checkpoint()
    for _ in range(data.draw(st.integers(1, 6), label="edits")):
        if not fg.outputs:
            break
        try:
            random_edit(data, fg)
        except EXPECTED:
            pass
        if not check_consistent(fg):
            break
        assert tracker.nodes == fg.apply_nodes
    if data.draw(st.booleans(), label="revert"):
        fg.revert(checkpoint)
        assert check_consistent(fg)
        assert tracker.nodes == fg.apply_nodes


@given(st.data())
def test_clones_compute_the_same(data):
    from tests.helpers import assert_equal_computations

    inputs, outputs = random_graph(data)
    fg = FunctionGraph(inputs, outputs)
    copy, equiv = fg.clone_get_equiv()
    assert check_consistent(copy)
    assert_equal_computations(copy.outputs, fg.outputs, copy.inputs, fg.inputs)
    assert_equal_computations(fg.outputs, outputs, fg.inputs, inputs)
    assert all(equiv[v] is not v for v in fg.inputs)
