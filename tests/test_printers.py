"""PyTensor's printing API beyond the text of `debugprint`: the expression
printers (`PPrinter`, `PatternPrinter`, `OperatorPrinter`, `pprint`'s
assignments), `min_informative_str`, ``used_ids`` and `get_node_by_id`,
the Rich tree, ``id_type="auto"``, ``print_storage``, the `Print` op and
`pydotprint`'s optional dependency."""

import io

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.compile.builders import OpFromGraph
from oxtensor.gradient import grad
from oxtensor.printing import (
    OperatorPrinter,
    PatternPrinter,
    PPrinter,
    Print,
    debugprint,
    default_printer,
    get_node_by_id,
    min_informative_str,
    pprint,
)


def test_pattern_and_operator_printers():
    x, y, z = ot.dscalar("x"), ot.dscalar("y"), ot.dscalar("z")
    add_op = (x + y).owner.op
    mul_op = (x * y).owner.op
    printer = PPrinter()
    printer.assign(add_op, OperatorPrinter("+", -1, "either"))
    printer.assign(mul_op, OperatorPrinter("*", 1, "either"))
    printer.assign(lambda pstate, r: r.owner is None, default_printer)
    # The sum binds looser than the product: parentheses only where needed.
    assert printer((x + y) * z) == "(x + y) * z"
    assert printer(x + y * z) == "x + y * z"
    abs_diff = PPrinter()
    abs_diff.assign(add_op, PatternPrinter(("|%(0)s - %(1)s|", -1000)))
    abs_diff.assign(lambda pstate, r: True, default_printer)
    assert abs_diff(x + y) == "|x - y|"


def test_unassigned_variables_have_no_printer():
    printer = PPrinter()
    with pytest.raises(TypeError, match="No printer is assigned"):
        printer(ot.dscalar("x") + 1)
    with pytest.raises(TypeError, match="assign takes an op"):
        printer.assign(3, default_printer)
    with pytest.raises(ValueError, match="assoc"):
        OperatorPrinter("+", 0, "up")


def test_pprint_takes_assignments_before_the_core_printer():
    x = ot.dvector("x")
    assert pprint(x[1]) == "x[1]"
    y = ot.exp(x)
    custom = pprint.clone_assign(y.owner.op, PatternPrinter("e^%(0)s"))
    assert custom(y) == "e^x"
    # The clone's assignment leaves pprint itself alone.
    assert pprint(y) != "e^x"


def test_min_informative_str_names_each_variable_once():
    a, b, d = ot.dmatrix("a"), ot.dmatrix("b"), ot.dmatrix("d")
    c = a + b
    c.name = "c"
    g = c + d * c
    assert min_informative_str(g) == "A. Add\n B. c\n C. Mul\n  D. d\n  <B>"


def test_used_ids_and_get_node_by_id():
    x, y = ot.dvector("x"), ot.dvector("y")
    s = x * y
    out = s.sum() + s.mean()
    used = {}
    debugprint(out, file="str", used_ids=used)
    by_label = {label: obj for obj, label in used.items()}
    assert by_label["[id A]"] is out.owner
    assert by_label["[id C]"] is s.owner
    assert by_label["[id D]"] is x
    assert get_node_by_id(out, "E") is y
    assert get_node_by_id(out, "ZZ") is None


def test_get_node_by_id_inside_an_inner_graph():
    x = ot.dvector("x")
    inner = ot.exp(x) + 1
    op = OpFromGraph([x], [inner])
    out = op(ot.dvector("z"))
    text = debugprint(out, file="str")
    # The inner output's line: " ← Add [id C]".
    assert " ← Add [id C]" in text
    assert get_node_by_id(out, "C") is op.fgraph.outputs[0].owner


def test_rich_tree_mirrors_the_text():
    rich = pytest.importorskip("rich")
    x = ot.dvector("x")
    shared = x * 2
    tree = debugprint(shared.sum() + shared.mean(), file="rich")
    assert isinstance(tree, rich.tree.Tree)
    add = tree.children[0]
    assert len(add.children) == 2
    first = add.children[0].children[0]
    second = add.children[1].children[0].children[0]
    # The shared product: one colour on both lines, the repeat elided.
    colour = first.label[1:].split("]")[0]
    assert second.label.startswith(f"[{colour}]")
    assert [c.label for c in second.children] == [
        f"[bright_{colour}]···[/bright_{colour}]"
    ]
    buf = io.StringIO()
    rich.console.Console(file=buf, width=120).print(tree)
    assert "Mul" in buf.getvalue()


def test_rich_tree_has_an_inner_graphs_branch():
    pytest.importorskip("rich")
    x = ot.dvector("x")
    out = OpFromGraph([x], [x.std()])(x)
    tree = debugprint(out, file="rich")
    assert len(tree.children) == 2
    assert str(tree.children[1].label) == "Inner graphs:"


def test_auto_ids_are_the_variables_auto_names():
    a, b = ot.dmatrix(), ot.dmatrix()
    d = b.dot(a)
    e = d + a
    text = debugprint(e, file="str", id_type="auto")
    assert text.splitlines()[0] == f"Add [id {e.auto_name}]"
    assert f"[id {a.auto_name}]" in text.splitlines()[-1]


def test_print_storage_of_a_compiled_function():
    a, b = ot.dmatrix("a"), ot.dmatrix("b")
    f = oxtensor.function([a, b], a + b)
    text = debugprint(f, file="str", id_type="", print_storage=True)
    assert text == "Add 0 [None]\n ├─ a [None]\n └─ b [None]\n"


def test_stop_on_name_elides_a_named_node():
    a, b = ot.dmatrix("a"), ot.dmatrix("b")
    c = a + b
    c.name = "c"
    text = debugprint(c * 2, file="str", stop_on_name=True)
    assert " ├─ Add [id B] 'c'\n │  └─ ···\n" in text


def test_nested_inner_graphs_are_listed_after_their_parent():
    x = ot.dvector("x")
    inner = OpFromGraph([x], [ot.exp(x)])
    y = ot.dvector("y")
    outer = OpFromGraph([y], [inner(y) + 1])
    text = debugprint(outer(ot.dvector("z")), file="str")
    section = text.split("Inner graphs:\n")[1]
    assert section.count("OpFromGraph{inline=False}") == 3  # two headers, one use
    assert section.index("← Add") < section.index("← Exp")


def test_print_op_prints_at_run_time_and_passes_values_and_gradients(capsys):
    x = ot.dvector("x")
    shown = Print("x is")(x)
    f = oxtensor.function([x], [shown * 2, grad((shown**2).sum(), x)])
    assert capsys.readouterr().out == ""
    value = np.array([1.0, 2.0])
    doubled, g = f(value)
    np.testing.assert_array_equal(doubled, [2.0, 4.0])
    np.testing.assert_array_equal(g, [2.0, 4.0])
    assert "x is __str__ = [1. 2.]" in capsys.readouterr().out
    np.testing.assert_array_equal(value, [1.0, 2.0])


def test_print_op_is_not_constant_folded(capsys):
    out = Print("hello")(ot.as_tensor_variable(1.0) * 3.0)
    f = oxtensor.function([], out)
    assert any(isinstance(n.op, Print) for n in f.maker.fgraph.toposort())
    assert float(f()) == 3.0
    assert "hello" in capsys.readouterr().out


def test_pydotprint_says_what_it_needs():
    try:
        import pydot  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("pydot is installed")
    from oxtensor.printing import pydotprint

    with pytest.raises(ImportError, match="pydot"):
        pydotprint(ot.dvector("x") * 2, return_image=True)
