"""`Mode(linker, optimizer, db)` as PyTensor takes it: a query object or a
rewriter as the optimizer, a database of one's own, the linker's required
tags in `_optimizer`, and `register((rewriter, position))` adding passes
(`AddFeatureOptimizer(NoOutputFromInplace(...))` keeping an output out of
the inplace phase)."""

import pickle

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import function
from oxtensor.compile.mode import AddFeatureOptimizer, Mode, optdb
from oxtensor.graph.features import NoOutputFromInplace
from oxtensor.graph.rewriting.basic import GraphRewriter
from oxtensor.graph.rewriting.db import RewriteDatabaseQuery, SequenceDB


def test_a_query_and_a_database_of_ones_own():
    db = SequenceDB()
    mode = Mode(linker="py", optimizer=RewriteDatabaseQuery(include=None), db=db)
    assert mode.optdb is db
    assert str(mode).startswith("Mode(linker=py, optimizer=RewriteDatabaseQuery")
    assert Mode("py", "fast_run").optdb is optdb
    # An empty database rewrites nothing: the graph runs as written.
    x = ot.dvector("x")
    f = function([x], ot.exp(ot.log(x)), mode=Mode("py", "fast_run", db=db))
    ops = [str(n.op) for n in f.maker.fgraph.toposort()]
    assert any("Log" in op for op in ops), ops
    assert any("Exp" in op for op in ops), ops
    np.testing.assert_allclose(f(np.array([2.0, 3.0])), [2.0, 3.0])


def test_the_linker_requires_its_tags():
    mode = Mode(linker="py", optimizer="merge")
    assert set(mode._optimizer.include) == {"minimum_compile", "py_only", "merge"}
    new_mode = mode.including("fast_compile")
    assert set(new_mode._optimizer.include) == {
        "minimum_compile",
        "py_only",
        "merge",
        "fast_compile",
    }
    assert set(Mode("cvm", "fast_run")._optimizer.include) == {
        "minimum_compile",
        "fast_run",
    }
    assert Mode("py", None)._optimizer is None


class Count(GraphRewriter):
    """A graph rewriter that counts its runs."""

    def __init__(self):
        super().__init__()
        self.runs = 0

    def apply(self, fgraph):
        self.runs += 1


def test_a_rewriter_as_the_optimizer():
    count = Count()
    mode = Mode("vm", count)
    assert mode._optimizer is count
    assert mode.provided_optimizer is count
    x = ot.dvector("x")
    function([x], x + 1, mode=mode)
    assert count.runs == 1


def tanh_outputs():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    b = ot.tanh(ot.dot(x, y))
    c = ot.tanh(ot.dot(2 * x, y))
    return x, y, [b, c]


def destroys_output(f, i):
    op = f.maker.fgraph.outputs[i].owner.op
    return bool(op.destroy_map) and 0 in op.destroy_map


def test_no_output_from_inplace_keeps_the_registered_output_pure():
    x, y, outs = tanh_outputs()
    plain = function([x, y], outs, mode="FAST_RUN")
    assert destroys_output(plain, 0)
    assert destroys_output(plain, 1)
    opt = AddFeatureOptimizer(NoOutputFromInplace([1]))
    mode = Mode(linker="py", optimizer="fast_run").register((opt, 49.9))
    f = function([x, y], outs, mode=mode)
    assert destroys_output(f, 0)
    assert not destroys_output(f, 1)
    a, b = np.eye(2) * 0.5, np.arange(4.0).reshape(2, 2)
    got = f(a, b)
    np.testing.assert_allclose(got[0], np.tanh(a @ b))
    np.testing.assert_allclose(got[1], np.tanh((2 * a) @ b))


def test_register_takes_pairs_on_a_query_mode():
    with pytest.raises(TypeError, match=r"\(rewriter, position\) pairs"):
        Mode("vm", "fast_run").register(Count())
    with pytest.raises(TypeError, match="optimizer is a database query, not None"):
        Mode("vm", None).register((Count(), 1.0))


def test_a_registered_mode_refuses_pickling_and_others_keep_their_db():
    registered = Mode("vm", "fast_run").register((Count(), 1.0))
    with pytest.raises(TypeError, match=r"passes added by Mode\.register"):
        pickle.dumps(registered)
    again = pickle.loads(pickle.dumps(Mode("py", "fast_compile")))
    tags = {"minimum_compile", "py_only", "fast_compile"}
    assert set(again._optimizer.include) == tags


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="unexpected keyword argument 'optimiser'"):
        Mode("vm", optimiser="fast_run")
    with pytest.raises(TypeError, match="multiple values for argument 'linker'"):
        Mode("vm", linker="py")
    with pytest.raises(TypeError, match="optimizer must be a name, a RewriteDat"):
        Mode("vm", 3)
