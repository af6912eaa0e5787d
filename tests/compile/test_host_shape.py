"""Python ops in the compiler's shape inference: ``x.shape`` of an
`OpFromGraph`'s or a `Scan`'s output compiles to a graph of the inputs'
shapes (the op no longer runs), ops without a usable ``infer_shape`` fall
back to running, and a malformed answer is an error naming the op."""

import logging
import re
from functools import partial
from typing import Any

import numpy as np
import oxtensor as ox
import oxtensor.tensor as pt
import pytest
from oxtensor.compile.builders import OpFromGraph
from oxtensor.configdefaults import config
from oxtensor.graph.basic import Apply
from oxtensor.scan import basic as loops
from oxtensor.scan.op import Scan

from tests.helpers import UnaryPythonOp

# PyTensor 3.x's form without the updates dict (see test_scan.py for the default).
scan = partial(loops.scan, return_updates=False)

RNG = np.random.default_rng(2611)


def _op_names(f: Any) -> list[str]:
    return [type(n.op).__name__ for n in f.maker.fgraph.toposort()]


def test_opfromgraph_output_shape_does_not_run_the_op():
    x, y = pt.dmatrices("x", "y")
    op = OpFromGraph([x, y], [pt.dot(x, y.T)[1:], (x + y).sum(0)])
    a, b = pt.dmatrices("a", "b")
    first, second = op(a, b)
    f = ox.function([a, b], [first.shape, second.shape])
    assert "OpFromGraph" not in _op_names(f)
    av, bv = RNG.normal(size=(5, 3)), RNG.normal(size=(4, 3))
    got = f(av, bv)
    expected = (np.dot(av, bv.T)[1:].shape, (av[:4] + bv).sum(0).shape)
    assert [tuple(g) for g in got] == [tuple(e) for e in expected]


def test_opfromgraph_length_that_reads_an_input_value():
    n = pt.lscalar("n")
    op = OpFromGraph([n], [pt.zeros((n, 2))])
    m = pt.lscalar("m")
    f = ox.function([m], op(m * 2).shape)
    assert "OpFromGraph" not in _op_names(f)
    assert tuple(f(3)) == (6, 2)


def test_scan_output_shape_does_not_run_the_loop():
    x = pt.dmatrix("x")
    ys = scan(lambda row: pt.exp(row) * 2.0, sequences=[x])
    f = ox.function([x], ys.shape)
    assert not any(isinstance(n.op, Scan) for n in f.maker.fgraph.toposort())
    xv = RNG.normal(size=(6, 4))
    assert tuple(f(xv)) == (6, 4)


def test_scan_recurrent_output_shape():
    v = pt.dvector("v")
    k = pt.lscalar("k")
    acc = scan(lambda a: a + 1.0, outputs_info=[pt.zeros_like(v)], n_steps=k)
    f = ox.function([v, k], acc.shape)
    assert not any(isinstance(n.op, Scan) for n in f.maker.fgraph.toposort())
    assert tuple(f(np.zeros(3), 5)) == (5, 3)
    g = ox.function([v, k], acc)
    np.testing.assert_allclose(g(np.zeros(3), 5)[-1], np.full(3, 5.0))


def test_scan_length_known_only_after_the_loop_reads_the_output():
    x = pt.dmatrix("x")
    ys = scan(lambda row: row[pt.nonzero(row > 0)[0]], sequences=[x])
    f = ox.function([x], ys.shape)
    xv = np.array([[1.0, -1.0, 2.0], [3.0, 4.0, -5.0]])
    assert tuple(f(xv)) == (2, 2)


class _Twice(UnaryPythonOp):
    """``2 * x``; its shape rule is set per test."""

    __props__ = ("tag",)

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        output_storage[0][0] = inputs[0] * 2


class _NoRule(_Twice):
    pass


class _TooFewDims(_Twice):
    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> Any:
        return [shapes[0][:1]]


class _FloatLength(_Twice):
    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> Any:
        return [(pt.constant(2.5), shapes[0][1])]


class ShapeError(Exception):
    """PyTensor's "cannot tell" exception, matched by name."""


class _CannotTell(_Twice):
    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> Any:
        raise ShapeError("depends on the values")


class _Broken(_Twice):
    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> Any:
        raise ZeroDivisionError("bug in the rule")


class _Swapped(_Twice):
    """A correct rule over the node's own input, as PyTensor passes it."""

    def make_node(self, x: Any) -> Apply:
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.T.type()])

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        output_storage[0][0] = inputs[0].T * 2

    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> Any:
        assert node.op is self
        assert len(node.inputs) == 1
        rows, cols = shapes[0]
        return [(cols, rows)]


def test_python_rule_is_used():
    x = pt.dmatrix("x")
    f = ox.function([x], _Swapped("s")(x).shape)
    assert "_Swapped" not in _op_names(f)
    assert tuple(f(np.ones((2, 5)))) == (5, 2)


@pytest.mark.parametrize("cls", [_NoRule, _CannotTell])
def test_ops_that_cannot_tell_run(cls):
    x = pt.dmatrix("x")
    f = ox.function([x], cls("t")(x).shape)
    assert cls.__name__ in _op_names(f)
    assert tuple(f(np.ones((2, 5)))) == (2, 5)


def test_a_raising_rule_is_logged_and_the_op_runs(caplog):
    x = pt.dmatrix("x")
    with caplog.at_level(logging.WARNING):
        f = ox.function([x], _Broken("b")(x).shape)
    assert "_Broken" in _op_names(f)
    assert tuple(f(np.ones((2, 5)))) == (2, 5)
    assert any(
        "_Broken" in r.getMessage() and "ZeroDivisionError" in r.getMessage()
        for r in caplog.records
    )


@pytest.mark.parametrize(
    ("cls", "error", "match"),
    [
        (_TooFewDims, ValueError, r"\{tag='t'\}.infer_shape returned a shape of 1 "),
        (_FloatLength, TypeError, r"\{tag='t'\}.infer_shape gave .* for axis 0 "),
    ],
)
def test_a_malformed_answer_is_an_error_naming_the_op(cls, error, match):
    x = pt.dmatrix("x")
    with config.change_flags(on_opt_error="raise"), pytest.raises(error) as info:
        ox.function([x], cls("t")(x).shape)
    assert re.search(cls.__name__ + match, str(info.value))


def test_a_malformed_answer_warns_and_the_op_runs():
    x = pt.dmatrix("x")
    with pytest.warns(UserWarning, match=r"_TooFewDims\{tag='w'\}.infer_shape"):
        f = ox.function([x], _TooFewDims("w")(x).shape)
    assert tuple(f(np.ones((2, 5)))) == (2, 5)
