"""`compile.aliasing`: `Supervisor` refuses graphs that destroy protected
variables; `add_supervisor_to_fgraph` protects the non-mutable inputs."""

import oxtensor.tensor as ot
import oxtensor.tensor.inplace as inp
import pytest
from oxtensor.compile.aliasing import Supervisor, add_supervisor_to_fgraph
from oxtensor.compile.io import In
from oxtensor.graph.destroyhandler import DestroyHandler
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.utils import InconsistencyError


def _supervised(out_of, x, y):
    fg = FunctionGraph([x, y], [out_of(x, y)], clone=False)
    fg.attach_feature(DestroyHandler())
    add_supervisor_to_fgraph(fg, [In(x), In(y, mutable=True)])
    return fg


def test_mutable_input_may_be_destroyed():
    x, y = ot.dvector("x"), ot.dvector("y")
    fg = _supervised(lambda a, b: ot.exp(a) + b, x, y)
    out = fg.outputs[0]
    fg.replace_validate(out, inp.add_inplace(y, out.owner.inputs[0]))
    assert fg.outputs[0].owner.op == inp.add_inplace


def test_protected_input_may_not_be_destroyed():
    x, y = ot.dvector("x"), ot.dvector("y")
    fg = _supervised(lambda a, b: ot.exp(b) + a, x, y)
    out = fg.outputs[0]
    with pytest.raises(InconsistencyError, match="protected"):
        fg.replace_validate(out, inp.add_inplace(x, out.owner.inputs[0]))
    assert fg.outputs[0] is out


def test_inplace_graph_needs_accept_inplace():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [inp.exp_inplace(x)], clone=False)
    with pytest.raises(TypeError, match="inplace"):
        add_supervisor_to_fgraph(fg, [In(x)])
    add_supervisor_to_fgraph(fg, [In(x)], accept_inplace=True)
    (sup,) = [f for f in fg._features if isinstance(f, Supervisor)]
    assert sup.protected == []


def test_supervisor_without_destroy_handler_accepts():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.exp(x)], clone=False)
    fg.attach_feature(Supervisor([x]))
    fg.validate()
