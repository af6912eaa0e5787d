"""`FunctionGraph` calls as PyTensor 3.x has them: `remove_client` (which
prunes what is left unused), removed variables leaving `clients`, inputs
listed twice, `tag.imported_by`/`removed_by`, and the message for a single
variable where a list is expected."""

import oxtensor.tensor as ot
import pytest
from oxtensor.graph.fg import FunctionGraph


def graph():
    """``a = exp(x); b = a * y; c = log(b)``, outputs ``[a, c]``."""
    x, y = ot.dvector("x"), ot.dvector("y")
    a = ot.exp(x)
    b = a * y
    c = ot.log(b)
    return x, y, a, b, c, FunctionGraph([x, y], [a, c], clone=False)


def test_remove_client_keeps_a_node_that_still_has_clients():
    _x, y, _a, b, _c, fg = graph()
    fg.remove_client(y, (b.owner, 1))
    assert fg.get_clients(y) == []
    assert b.owner in fg.apply_nodes


def test_removing_the_last_client_prunes_recursively():
    _x, _y, a, b, c, fg = graph()
    fg.remove_client(c, ("output", 1), reason="testing")
    assert fg.apply_nodes == {a.owner}
    assert c.owner.tag.removed_by == ["testing"]
    assert b.owner.tag.removed_by == ["testing"]
    assert not hasattr(a.owner.tag, "removed_by")
    # As in PyTensor, the emptied entries stay unless `remove_if_empty`.
    assert fg.clients[b] == []
    assert fg.clients[c] == []
    assert fg.get_clients(a) == [("output", 0)]
    # A client that is not (or no longer) listed is ignored.
    fg.remove_client(a, (b.owner, 0))
    assert fg.get_clients(a) == [("output", 0)]


def test_remove_if_empty_drops_the_emptied_entries():
    x, y, a, _b, c, fg = graph()
    fg.remove_client(c, ("output", 1), remove_if_empty=True)
    assert set(fg.clients) == {x, y, a}
    assert fg.clients[y] == []


def test_remove_client_of_a_variable_outside_the_graph():
    _x, _y, _a, b, c, fg = graph()
    z = ot.dvector("z")
    with pytest.raises(ValueError, match="not in this FunctionGraph"):
        fg.remove_client(z, (b.owner, 0))
    fg.remove_output(1)
    with pytest.raises(ValueError, match=r"Log\.0 has no clients entry"):
        fg.remove_client(c, ("output", 0))


def test_removed_outputs_leave_clients_but_inputs_stay():
    x, y, a, _b, _c, fg = graph()
    fg.remove_output(1)
    fg.check_integrity()
    assert set(fg.clients) == {x, y, a}
    fg.remove_output(0)
    fg.check_integrity()
    assert fg.clients == {x: [], y: []}
    assert not fg.apply_nodes


def test_an_input_listed_twice_keeps_its_other_slot():
    x, y = ot.dvector("x"), ot.dvector("y")
    out = x * y
    fg = FunctionGraph([x, x, y], [out], clone=False)
    assert fg.inputs == [x, x, y]
    fg.remove_input(0)
    fg.check_integrity()
    assert fg.inputs == [x, y]
    assert fg.outputs == []
    assert x not in fg.variables
    assert x in fg.clients
    fg.remove_input(0)
    assert fg.inputs == [y]
    assert x not in fg.clients


def test_imported_nodes_record_why():
    _x, y, a, _b, _c, fg = graph()
    assert a.owner.tag.imported_by == ["init"]
    d = ot.sin(y)
    assert not hasattr(d.owner.tag, "imported_by")
    fg.import_node(d.owner, reason="testing")
    assert d.owner.tag.imported_by == ["testing"]
    assert (d.owner, 0) in fg.get_clients(y)


def test_a_single_variable_is_not_a_list():
    x = ot.dvector("x")
    out = ot.exp(x)
    with pytest.raises(TypeError, match="'TensorVariable' object is not iterable"):
        FunctionGraph(x, [out], clone=False)
    with pytest.raises(TypeError, match="'TensorVariable' object is not iterable"):
        FunctionGraph([x], out, clone=False)
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        FunctionGraph([x], 3, clone=False)
