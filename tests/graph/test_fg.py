"""`FunctionGraph` (anatomy §3), with the seeds' ``("output", i)`` clients."""

import oxtensor.tensor as T
import pytest
from oxtensor.graph.basic import Variable
from oxtensor.graph.features import AlreadyThere, Bookkeeper, Feature
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.utils import InconsistencyError, MissingInputError

from tests.helpers import TwoOutputs, assert_equal_computations


def exp_graph():
    """The anatomy's example: ``y = exp(x); z = y + y``, outputs ``[z, y]``."""
    x = T.dscalar("x")
    y = T.exp(x)
    z = y + y
    return x, y, z, FunctionGraph([x], [z, y], clone=False)


class Tracer(Feature):
    """Records every callback as text."""

    def __init__(self):
        self.log = []

    def on_attach(self, fgraph):
        self.log.append("on_attach")

    def on_detach(self, fgraph):
        self.log.append("on_detach")

    def on_import(self, fgraph, node, reason):
        self.log.append(f"on_import {node} {reason}")

    def on_prune(self, fgraph, node, reason):
        self.log.append(f"on_prune {node} {reason}")

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        self.log.append(f"on_change_input {node} {i} {var} -> {new_var} {reason}")

    def on_validate(self, fgraph):
        self.log.append("on_validate")


class Veto(Feature):
    """Refuses every graph with a `Log` node."""

    def on_validate(self, fgraph):
        if any(str(n.op) == "Log" for n in fgraph.apply_nodes):
            raise InconsistencyError("no Log allowed")


# --- construction ---


def test_state_of_the_anatomys_example():
    x, y, z, fg = exp_graph()
    assert fg.inputs == [x]
    assert fg.outputs == [z, y]
    assert fg.apply_nodes == {y.owner, z.owner}
    assert fg.variables == {x, y, z}
    add = z.owner
    assert fg.clients[y] == [(add, 0), (add, 1), ("output", 1)]
    assert fg.clients[z] == [("output", 0)]
    assert fg.clients[x] == [(y.owner, 0)]
    assert repr(fg) == "FunctionGraph(Add(*1 -> Exp(x), *1), *1)"
    assert str(fg) == repr(fg)
    fg.check_integrity()


def test_clients_are_a_dict_in_insertion_order():
    x, y, z, fg = exp_graph()
    assert list(fg.clients) == [x, y, z]
    assert fg.get_clients(y) == fg.clients[y]
    assert y.clients == fg.clients[y]


def test_clone_true_is_the_default_and_leaves_the_user_graph_alone():
    x = T.dscalar("x")
    y = T.exp(x)
    fg = FunctionGraph([x], [y])
    assert fg.inputs[0] is not x
    assert fg.outputs[0] is not y
    assert fg.inputs[0].name == "x"
    assert fg.outputs[0].owner.inputs[0] is fg.inputs[0]
    assert y.owner.inputs[0] is x
    fg.replace(fg.outputs[0], T.log(fg.inputs[0]))
    assert str(y.owner.op) == "Exp"
    assert str(fg.outputs[0].owner.op) == "Log"
    assert_equal_computations(fg.outputs, [T.log(x)], fg.inputs, [x])


def test_clone_false_keeps_identity():
    x, _y, z, fg = exp_graph()
    assert fg.inputs[0] is x
    assert fg.outputs[0] is z
    assert next(iter(fg.apply_nodes & {z.owner})) is z.owner


def test_clone_keywords():
    x = T.dscalar("x")
    y = T.exp(x)
    fg = FunctionGraph([x], [y], copy_inputs=False)
    assert fg.inputs[0] is x
    assert fg.outputs[0] is not y
    w = T.dscalar("w")
    fg = FunctionGraph([x], [y], memo={x: w})
    assert fg.inputs[0] is w


def test_inputs_default_to_the_graph_inputs():
    x, y = T.dscalar("x"), T.dscalar("y")
    c = T.constant(2.0)
    fg = FunctionGraph(outputs=[x * c + y], clone=False)
    # graph_inputs order without the constant
    assert fg.inputs == [y, x]


def test_undeclared_input():
    x, y = T.dscalar("x"), T.dscalar("y")
    with pytest.raises(MissingInputError) as info:
        FunctionGraph([x], [x + y])
    assert str(info.value) == (
        "Input 1 (y) of the graph (indices start from 0), used to compute Add(x, y), "
        "was not provided and not given a value. Declare it as an input of the graph "
        "or give it a value."
    )
    with pytest.raises(MissingInputError, match="Undeclared input: y"):
        FunctionGraph([x], [y])


def test_owned_input():
    x = T.dscalar("x")
    with pytest.raises(ValueError, match="One of the provided inputs is the output"):
        FunctionGraph([x + 1], [x], clone=False)


def test_constant_input():
    with pytest.raises(TypeError, match="cannot be an input"):
        FunctionGraph([T.constant(1.0)], [T.dscalar("x")], clone=False)


def test_no_outputs():
    with pytest.raises(ValueError, match="No outputs specified"):
        FunctionGraph([T.dscalar()], None)
    with pytest.raises(ValueError, match="No outputs specified"):
        FunctionGraph([T.dscalar()])


def test_non_variable_output():
    with pytest.raises(TypeError, match="Expected a Variable, got 3"):
        FunctionGraph([], [3])


def test_unused_inputs_have_clients_but_are_not_variables():
    v1, v2 = T.dscalar("v1"), T.dscalar("v2")
    fg = FunctionGraph([v1, v2], [v1], clone=False)
    assert fg.clients == {v1: [("output", 0)], v2: []}
    assert fg.variables == {v1}
    fg = FunctionGraph([v1, v2], [], clone=False)
    assert fg.clients == {v1: [], v2: []}
    assert fg.variables == set()


def test_duplicate_outputs():
    x = T.dscalar("x")
    fg = FunctionGraph([x], [x, x], clone=False)
    assert fg.clients[x] == [("output", 0), ("output", 1)]


def test_variables_include_unused_outputs_and_constants():
    x = T.dscalar("x")
    a, b = TwoOutputs()(x)
    c = T.constant(3.0)
    out = a * c
    fg = FunctionGraph([x], [out], clone=False)
    assert b in fg.variables
    assert fg.clients[b] == []
    assert c in fg.variables
    assert c not in fg.inputs


def test_null_type_variable_is_refused():
    from oxtensor.gradient import grad_undefined

    x = T.dscalar("x")
    null = grad_undefined(T.exp, 0, x)
    with pytest.raises(TypeError, match=r"Computation graph contains a NaN\. This var"):
        FunctionGraph([x], [null], clone=False)
    fg = FunctionGraph([x], [T.exp(x)], clone=False)
    with pytest.raises(TypeError, match=r"Cannot convert|NullType"):
        fg.replace(x, null)
    fg.check_integrity()


def test_contains():
    x, y, _z, fg = exp_graph()
    assert x in fg
    assert y.owner in fg
    assert T.dscalar() not in fg
    assert T.exp(x).owner not in fg


# --- toposort ---


def test_toposort_orders():
    x = T.dscalar("x")
    s = T.add(T.exp(x), T.log(x), T.sin(x))
    fg = FunctionGraph([x], [s], clone=False)
    assert [str(n.op) for n in fg.toposort()] == ["Sin", "Log", "Exp", "Add"]
    fg = FunctionGraph([x], [T.exp(x), T.log(x)], clone=False)
    assert [str(n.op) for n in fg.toposort()] == ["Log", "Exp"]


def test_toposort_respects_dependencies():
    x, y = T.dscalars("x", "y")
    out = T.exp(x + y) * T.log(x) - y
    fg = FunctionGraph([x, y], [out], clone=False)
    order = fg.toposort()
    assert set(order) == fg.apply_nodes
    position = {node: i for i, node in enumerate(order)}
    for node in order:
        for inp in node.inputs:
            if inp.owner is not None:
                assert position[inp.owner] < position[node]


def test_orderings_affect_toposort():
    x = T.dscalar("x")
    e, lg = T.exp(x), T.log(x)
    fg = FunctionGraph([x], [e, lg], clone=False)
    assert fg.toposort() == [lg.owner, e.owner]

    class ExpFirst(Feature):
        def orderings(self, fgraph):
            return {lg.owner: [e.owner]}

    fg.attach_feature(ExpFirst())
    assert fg.orderings() == {lg.owner: [e.owner]}
    assert fg.toposort() == [e.owner, lg.owner]


def test_cyclic_orderings_are_reported():
    x = T.dscalar("x")
    e = T.exp(x)
    out = T.log(e)
    fg = FunctionGraph([x], [out], clone=False)

    class Backwards(Feature):
        def orderings(self, fgraph):
            return {e.owner: [out.owner]}

    fg.attach_feature(Backwards())
    with pytest.raises(ValueError, match="graph contains cycles"):
        fg.toposort()


# --- replace ---


def test_replace_and_clients():
    x, y, z, fg = exp_graph()
    new = T.log(x)
    fg.replace(y, new, reason="test")
    add = z.owner
    assert add.inputs == [new, new]
    assert fg.outputs == [z, new]
    assert fg.clients[new] == [(add, 0), (add, 1), ("output", 1)]
    assert fg.clients[y] == []
    assert y.owner not in fg.apply_nodes
    assert y not in fg.variables
    assert new.owner in fg.apply_nodes
    fg.check_integrity()


def test_callback_trace_matches_the_anatomy():
    x, y, _z, fg = exp_graph()
    tracer = Tracer()
    fg.attach_feature(tracer)
    fg.replace(y, T.log(x), reason="test")
    assert tracer.log == [
        "on_attach",
        "on_import Log(x) test",
        "on_change_input Add(Log.0, Exp.0) 0 Exp.0 -> Log.0 test",
        "on_change_input Add(Log.0, Log.0) 1 Exp.0 -> Log.0 test",
        "on_prune Exp(x) test",
        "on_change_input output 1 Exp.0 -> Log.0 test",
    ]


def test_on_import_is_not_called_for_construction_nodes():
    tracer = Tracer()
    x = T.dscalar("x")
    FunctionGraph([x], [T.exp(x)], features=[tracer], clone=False)
    assert tracer.log == ["on_attach"]


def test_bookkeeper_replays_imports_on_attach_and_prunes_on_detach():
    seen = []

    class Book(Bookkeeper):
        def on_import(self, fgraph, node, reason):
            seen.append(("import", str(node.op), reason))

        def on_prune(self, fgraph, node, reason):
            seen.append(("prune", str(node.op), reason))

    _x, _y, _z, fg = exp_graph()
    book = Book()
    fg.attach_feature(book)
    assert seen == [("import", "Exp", "on_attach"), ("import", "Add", "on_attach")]
    seen.clear()
    fg.remove_feature(book)
    assert [s[:2] for s in seen] == [("prune", "Exp"), ("prune", "Add")]
    assert book not in fg._features


def test_replace_type_mismatch():
    _x, y, z, fg = exp_graph()
    with pytest.raises(TypeError) as info:
        fg.replace(y, T.dvector("v"))
    assert str(info.value) == (
        "Cannot convert Type Vector(float64, shape=(?,)) (of Variable v) into Type "
        "Scalar(float64, shape=()). You can try to manually convert v into a "
        "Scalar(float64, shape=())."
    )
    with pytest.raises(TypeError, match="Cannot convert Type Scalar"):
        fg.replace(y, T.fscalar("f"))
    fg.check_integrity()
    assert z.owner.inputs == [y, y]


def test_replace_with_a_more_specific_type_is_accepted():
    v = T.dvector("v")
    out = T.exp(v)
    fg = FunctionGraph([v], [out], clone=False)
    fixed = T.tensor("w", dtype="float64", shape=(3,))
    fg.replace(v, fixed, import_missing=True)
    assert out.owner.inputs[0] is fixed


def test_replace_refuses_cycles():
    x, y, z, fg = exp_graph()
    with pytest.raises(InconsistencyError, match="would create a cycle"):
        fg.replace(x, T.exp(z))
    with pytest.raises(InconsistencyError, match="would create a cycle"):
        fg.replace(y, z)
    fg.check_integrity()
    assert z.owner.inputs == [y, y]
    assert fg.outputs == [z, y]


def test_replace_of_a_variable_not_in_the_graph_does_nothing():
    x, _y, _z, fg = exp_graph()
    before = dict(fg.clients)
    fg.replace(T.dscalar("other"), x)
    assert fg.clients == before


def test_replace_with_an_undeclared_input():
    x, y, _z, fg = exp_graph()
    w = T.dscalar("w")
    with pytest.raises(MissingInputError, match="Undeclared input: w"):
        fg.replace(x, w)
    fg.replace(x, w, import_missing=True)
    assert w in fg.inputs
    assert y.owner.inputs == [w]


def test_replace_raw_value_becomes_a_constant():
    x, y, _z, fg = exp_graph()
    fg.replace(x, 2.0)
    const = y.owner.inputs[0]
    assert isinstance(const, T.TensorConstant)
    assert const.data == 2.0
    assert const.type == T.dscalar


def test_replace_all():
    x, y, z, fg = exp_graph()
    a, b = T.log(x), T.sin(x)
    fg.replace_all([(y, a), (z, b)], reason="both")
    assert fg.outputs == [b, a]
    assert {str(n.op) for n in fg.apply_nodes} == {"Log", "Sin"}
    fg.check_integrity()


def test_replace_verbose(capsys):
    x, y, _z, fg = exp_graph()
    fg.replace(y, T.log(x), reason="because", verbose=True)
    out = capsys.readouterr().out
    assert (
        out
        == "rewriting: rewrite because replaces Exp.0 of Exp(x) with Log.0 of Log(x)\n"
    )


# --- change_node_input ---


def test_change_node_input():
    x, y, z, fg = exp_graph()
    tracer = Tracer()
    fg.attach_feature(tracer)
    w = T.log(x)
    fg.change_node_input(z.owner, 1, w, reason="r")
    assert z.owner.inputs == [y, w]
    assert fg.clients[y] == [(z.owner, 0), ("output", 1)]
    assert fg.clients[w] == [(z.owner, 1)]
    assert tracer.log[1:] == [
        "on_import Log(x) r",
        "on_change_input Add(Exp.0, Log.0) 1 Exp.0 -> Log.0 r",
    ]
    fg.check_integrity()


def test_change_node_input_on_an_output():
    _x, y, z, fg = exp_graph()
    fg.change_node_input("output", 0, y)
    assert fg.outputs == [y, y]
    assert z.owner not in fg.apply_nodes


def test_change_node_input_same_variable_does_nothing():
    _x, y, z, fg = exp_graph()
    tracer = Tracer()
    fg.attach_feature(tracer)
    fg.change_node_input(z.owner, 0, y)
    assert tracer.log == ["on_attach"]


def test_change_node_input_type_check():
    _x, _y, z, fg = exp_graph()
    with pytest.raises(TypeError) as info:
        fg.change_node_input(z.owner, 0, T.dvector())
    assert str(info.value) == (
        "The type of the replacement (Vector(float64, shape=(?,))) must be compatible "
        "with the type of the original Variable (Scalar(float64, shape=()))."
    )
    fg.check_integrity()


def test_change_node_input_bad_slots_are_errors_not_crashes():
    x, _y, z, fg = exp_graph()
    with pytest.raises(IndexError, match=r"Add\(Exp.0, Exp.0\) has no input 5"):
        fg.change_node_input(z.owner, 5, x)
    with pytest.raises(IndexError, match="has no output 3"):
        fg.change_node_input("output", 3, x)
    with pytest.raises(ValueError, match="is not in this FunctionGraph"):
        fg.change_node_input(T.log(x).owner, 0, x)
    fg.check_integrity()


# --- validation, checkpoints and features ---


def test_replace_all_validate_reverts_on_veto():
    x, y, z, fg = exp_graph()
    fg.attach_feature(Veto())
    tracer = Tracer()
    fg.attach_feature(tracer)
    with pytest.raises(InconsistencyError, match="no Log allowed"):
        fg.replace_all_validate([(y, T.log(x))], reason="try")
    assert fg.outputs == [z, y]
    assert z.owner.inputs == [y, y]
    assert {str(n.op) for n in fg.apply_nodes} == {"Exp", "Add"}
    assert any(
        line.startswith("on_change_input") and "Revert" in line for line in tracer.log
    )
    fg.check_integrity()


def test_replace_all_validate_accepts():
    x, y, _z, fg = exp_graph()
    fg.attach_feature(Veto())
    chk = fg.replace_all_validate([(y, T.sin(x))], reason="ok")
    assert isinstance(chk, int)
    assert str(fg.outputs[1].owner.op) == "Sin"


def test_replace_validate_single_pair():
    x, y, _z, fg = exp_graph()
    fg.attach_feature(Veto())
    with pytest.raises(InconsistencyError):
        fg.replace_validate(y, T.log(x))
    fg.replace_validate(y, T.sin(x))
    assert str(fg.outputs[1].owner.op) == "Sin"


def test_validate_and_consistent():
    x, y, _z, fg = exp_graph()
    tracer = Tracer()
    fg.attach_feature(tracer)
    fg.validate()
    assert tracer.log[-1] == "on_validate"
    assert fg.consistent()
    fg.attach_feature(Veto())
    fg.replace(y, T.log(x))
    assert not fg.consistent()
    with pytest.raises(InconsistencyError):
        fg.validate()


def test_checkpoint_and_revert():
    x, y, z, fg = exp_graph()
    chk = fg.checkpoint()
    fg.replace(y, T.log(x))
    fg.replace(x, T.dscalar("w"), import_missing=True)
    fg.revert(chk)
    assert fg.outputs == [z, y]
    assert z.owner.inputs == [y, y]
    assert y.owner.inputs == [x]
    assert {str(n.op) for n in fg.apply_nodes} == {"Exp", "Add"}
    fg.check_integrity()


def test_already_there_cancels_attach():
    class Once(Feature):
        def on_attach(self, fgraph):
            if any(isinstance(f, Once) for f in fgraph._features):
                raise AlreadyThere()

    _x, _y, _z, fg = exp_graph()
    fg.attach_feature(Once())
    fg.attach_feature(Once())
    assert sum(isinstance(f, Once) for f in fg._features) == 1


def test_equal_features_are_attached_once():
    _x, _y, _z, fg = exp_graph()
    tracer = Tracer()
    fg.attach_feature(tracer)
    fg.attach_feature(tracer)
    assert fg._features.count(tracer) == 1
    assert tracer.log == ["on_attach"]


def test_attach_error_propagates():
    class Broken(Feature):
        def on_attach(self, fgraph):
            raise RuntimeError("cannot attach")

    _x, _y, _z, fg = exp_graph()
    with pytest.raises(RuntimeError, match="cannot attach"):
        fg.attach_feature(Broken())
    assert not any(isinstance(f, Broken) for f in fg._features)


def test_provides_forwards_calls():
    class Counter(Feature):
        provides = ("count_nodes",)

        def count_nodes(self, fgraph, op_name):
            return sum(str(n.op) == op_name for n in fgraph.apply_nodes)

    _x, _y, _z, fg = exp_graph()
    with pytest.raises(AttributeError, match="count_nodes"):
        fg.count_nodes("Exp")
    fg.attach_feature(Counter())
    assert fg.count_nodes("Exp") == 1
    assert fg.count_nodes("Log") == 0


def test_duck_typed_features_work():
    calls = []

    class Duck:
        def on_import(self, fgraph, node, reason):
            calls.append(str(node))

    x, y, _z, fg = exp_graph()
    fg.attach_feature(Duck())
    fg.replace(y, T.log(x))
    assert calls == ["Log(x)"]


def test_feature_error_in_a_callback_keeps_the_graph_consistent():
    class Grumpy(Feature):
        def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
            raise RuntimeError("grumpy")

    x, y, z, fg = exp_graph()
    fg.attach_feature(Grumpy())
    with pytest.raises(RuntimeError, match="grumpy"):
        fg.replace(y, T.log(x))
    # The core made every change; the Python objects were all updated.
    fg.check_integrity()
    assert z.owner.inputs[0] is z.owner.inputs[1]
    assert fg.outputs[1] is z.owner.inputs[0]


# --- integrity, clone ---


def test_check_integrity_detects_a_user_edit():
    _x, _y, z, fg = exp_graph()
    z.owner.inputs[0] = T.dscalar("intruder")
    with pytest.raises(Exception, match="Inconsistent clients list"):
        fg.check_integrity()


def test_clone_get_equiv():
    x, y, z, fg = exp_graph()
    tracer = Tracer()
    fg.attach_feature(tracer)
    new_fg, equiv = fg.clone_get_equiv()
    assert isinstance(new_fg, FunctionGraph)
    assert new_fg is not fg
    assert equiv[x] is new_fg.inputs[0]
    assert equiv[z] is new_fg.outputs[0]
    assert equiv[y] is new_fg.outputs[1]
    assert equiv[z.owner] is new_fg.outputs[0].owner
    assert equiv[y.owner].op == y.owner.op
    assert all(v is not equiv[v] for v in (x, y, z))
    assert tracer in new_fg._features  # the default Feature.clone returns itself
    assert_equal_computations(new_fg.outputs, fg.outputs, new_fg.inputs, fg.inputs)
    new_fg.check_integrity()


def test_clone_attaches_cloned_features():
    class Stateful(Feature):
        def clone(self):
            return Stateful()

    _x, _y, _z, fg = exp_graph()
    original = Stateful()
    fg.attach_feature(original)
    new_fg = fg.clone()
    (copy,) = [f for f in new_fg._features if isinstance(f, Stateful)]
    assert copy is not original
    new_fg.replace(new_fg.outputs[1], T.log(new_fg.inputs[0]))
    assert str(fg.outputs[1].owner.op) == "Exp"


def test_update_mapping():
    x, y, z, _ = exp_graph()
    fg = FunctionGraph([x], [z, y], update_mapping={1: 0}, clone=False)
    assert fg.update_mapping == {1: 0}
    assert FunctionGraph([x], [z], clone=False).update_mapping is None


def test_add_output_and_remove_output():
    x, y, z, fg = exp_graph()
    s = T.sin(x)
    fg.add_output(s)
    assert fg.outputs == [z, y, s]
    assert fg.clients[s] == [("output", 2)]
    fg.remove_output(0)
    assert fg.outputs == [y, s]
    assert fg.clients[y] == [("output", 0)]
    assert fg.clients[s] == [("output", 1)]
    assert z.owner not in fg.apply_nodes
    fg.check_integrity()
    with pytest.raises(IndexError, match="no output 7"):
        fg.remove_output(7)


def test_add_input():
    x, y, _z, fg = exp_graph()
    w = T.dscalar("w")
    fg.add_input(w)
    assert fg.inputs == [x, w]
    assert fg.clients[w] == []
    fg.add_input(w)
    assert fg.inputs == [x, w]
    with pytest.raises(ValueError, match="output of an already existing node"):
        fg.add_input(y)


def test_variables_of_a_graph_know_their_fgraph():
    _x, y, _z, fg = exp_graph()
    assert y.fgraph is fg
    assert isinstance(y, Variable)
    assert T.dscalar().fgraph is None


def test_replace_all_validate_reverts_a_failed_replacement():
    x, y, z, fg = exp_graph()
    with pytest.raises(TypeError, match="Cannot convert Type Vector"):
        fg.replace_all_validate([(y, T.log(x)), (z, T.dvector())])
    assert z.owner.inputs == [y, y]
    assert fg.outputs == [z, y]
    fg.check_integrity()


def test_orderings_must_name_nodes_of_the_graph():
    x, y, _z, fg = exp_graph()

    class Stray(Feature):
        def orderings(self, fgraph):
            return {T.log(x).owner: [y.owner]}

    fg.attach_feature(Stray())
    with pytest.raises(ValueError, match=r"Log\(x\) is not in this FunctionGraph"):
        fg.toposort()
