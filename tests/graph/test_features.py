"""The standard graph features: `Feature.provides` and callback registration,
`ReplaceValidate` (always attached), `History`/`Validator` over the core's
log and checks, `FullHistory`, `NoOutputFromInplace`, `execute_callbacks`."""

import logging

import oxtensor.tensor as ot
import pytest
from oxtensor.compile.mode import AddFeatureOptimizer
from oxtensor.configdefaults import config
from oxtensor.graph.basic import Apply
from oxtensor.graph.features import (
    AlreadyThere,
    Feature,
    FullHistory,
    History,
    NoOutputFromInplace,
    ReplacementDidNotRemoveError,
    ReplaceValidate,
    Validator,
    register_feature_callback,
)
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op
from oxtensor.graph.rewriting.basic import (
    NodeProcessingGraphRewriter,
    WalkingGraphRewriter,
)
from oxtensor.graph.utils import InconsistencyError


class Veto(Feature):
    """Refuses every graph."""

    def on_validate(self, fgraph):
        raise InconsistencyError("vetoed by the test")


class DoubleInPlace(Op):
    """``2 * x`` written over ``x``."""

    __props__ = ()

    def __init__(self):
        self.destroy_map = {0: [0]}

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        inputs[0] *= 2
        output_storage[0][0] = inputs[0]


def graph():
    x = ot.dvector("x")
    return x, FunctionGraph([x], [ot.exp(x) + 1.0], clone=False)


def test_every_graph_has_one_replace_validate():
    _, fg = graph()
    assert sum(isinstance(f, ReplaceValidate) for f in fg._features) == 1
    fg.attach_feature(ReplaceValidate())
    assert sum(isinstance(f, ReplaceValidate) for f in fg._features) == 1
    with pytest.raises(AlreadyThere, match="already present"):
        ReplaceValidate().on_attach(fg)
    clone = fg.clone()
    assert sum(isinstance(f, ReplaceValidate) for f in clone._features) == 1


def test_provides_are_forwarded_to_the_feature():
    class Counter(Feature):
        provides = ("count_nodes",)

        def count_nodes(self, fgraph, plus=0):
            return len(fgraph.apply_nodes) + plus

    _, fg = graph()
    fg.attach_feature(Counter())
    assert fg.count_nodes(plus=1) == len(fg.apply_nodes) + 1 == 4
    with pytest.raises(AttributeError, match="no attribute 'count_nodez'"):
        fg.count_nodez  # noqa: B018


def test_callbacks_are_registered_per_class():
    class Tracer(Feature):
        @register_feature_callback
        def on_custom(self, fgraph):
            pass

    assert {"on_import", "on_validate", "on_custom"} <= Tracer._feature_callbacks
    assert "on_custom" not in Feature._feature_callbacks


def test_a_name_both_provided_and_a_callback_is_refused():
    with pytest.raises(
        TypeError, match=r"Bad: \['on_prune'\] appear in both `provides`"
    ):

        class Bad(Feature):
            provides = ("on_prune",)


def test_replace_all_validate_reverts_a_vetoed_replacement():
    x, fg = graph()
    exp_node = fg.outputs[0].owner.inputs[0]
    fg.attach_feature(Veto())
    with pytest.raises(InconsistencyError, match="vetoed by the test"):
        fg.replace_all_validate([(exp_node, ot.log(x))], reason="test")
    assert fg.outputs[0].owner.inputs[0] is exp_node
    assert fg.consistent() is False


def test_replace_validate_through_the_feature_prints_when_verbose(capsys):
    x, fg = graph()
    exp_node = fg.outputs[0].owner.inputs[0]
    rv = next(f for f in fg._features if isinstance(f, ReplaceValidate))
    rv.replace_all_validate(fg, [(exp_node, ot.log(x))], reason="why", verbose=True)
    assert "rewriting: rewrite why replaces Exp.0 of Exp(x) with Log.0 of Log(x)" in (
        capsys.readouterr().out
    )
    fg.attach_feature(Veto())
    with pytest.raises(InconsistencyError):
        rv.replace_all_validate(fg, [(fg.outputs[0], x)], reason="why", verbose=True)
    assert "rewriting: validate failed on node Add.0" in capsys.readouterr().out


def test_replace_all_validate_remove():
    x, fg = graph()
    exp_var = fg.outputs[0].owner.inputs[0]
    log_x = ot.log(x)
    fg.replace_all_validate_remove([(exp_var, log_x)], remove=[exp_var.owner])
    assert exp_var.owner not in fg.apply_nodes
    kept = log_x.owner
    with pytest.warns(UserWarning, match="did not remove Log"):
        with pytest.raises(ReplacementDidNotRemoveError, match="did not remove Log"):
            fg.replace_all_validate_remove(
                [(fg.outputs[0], ot.sin(log_x))], remove=[kept], reason="r"
            )
    assert fg.outputs[0].owner.inputs[0] is log_x


def test_history_and_validator_forward_to_the_graph():
    x, fg = graph()
    history, validator = History(), Validator()
    chk = history.checkpoint(fg)
    exp_var = fg.outputs[0].owner.inputs[0]
    fg.replace(exp_var, ot.log(x))
    history.revert(fg, chk)
    assert fg.outputs[0].owner.inputs[0] is exp_var
    validator.validate(fg)
    fg.attach_feature(Veto())
    assert validator.consistent(fg) is False
    with pytest.raises(InconsistencyError, match="vetoed"):
        validator.validate(fg)


def test_full_history_walks_back_and_forth():
    x, fg = graph()
    history = FullHistory()
    fg.attach_feature(history)
    exp_var = fg.outputs[0].owner.inputs[0]
    first = fg.outputs[0]
    fg.replace(exp_var, ot.log(x))
    second = fg.outputs[0]
    fg.replace(second, ot.sin(second))
    third = fg.outputs[0]
    assert len(history.fw) == 2
    history.start()
    assert fg.outputs[0] is first
    assert fg.outputs[0].owner.inputs[0] is exp_var
    history.next()
    assert fg.outputs[0] is second
    history.end()
    assert fg.outputs[0] is third
    history.goto(1)
    assert fg.outputs[0] is second
    for _ in range(5):
        history.prev()
    assert fg.outputs[0] is first
    fg.check_integrity()
    with pytest.raises(ValueError, match="already attached"):
        history.on_attach(graph()[1])


def test_no_output_from_inplace_vetoes_a_destroying_output():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.exp(x), ot.sin(x)], clone=False)
    fg.attach_feature(NoOutputFromInplace([1]))
    fg.replace_validate(fg.outputs[0], DoubleInPlace()(fg.outputs[0]))
    with pytest.raises(InconsistencyError, match=r"prevented the output .* \(output 1"):
        fg.replace_validate(fg.outputs[1], DoubleInPlace()(fg.outputs[1]))
    assert fg.outputs[1].owner.op == ot.sin(x).owner.op


def test_execute_callbacks_times_each_feature():
    _, fg = graph()
    seen = []

    class Listener(Feature):
        def on_import(self, fgraph, node, reason):
            seen.append((node, reason))

    listener = Listener()
    fg.attach_feature(listener)
    node = fg.outputs[0].owner
    fg.execute_callbacks("on_import", node, "test")
    assert seen == [(node, "test")]
    assert fg.execute_callbacks_times[listener] >= 0.0
    with pytest.raises(TypeError):
        fg.execute_callbacks("on_import", node)


def test_failure_callbacks(caplog):
    assert issubclass(WalkingGraphRewriter, NodeProcessingGraphRewriter)
    args = (None, [], "rw", "node")
    NodeProcessingGraphRewriter.warn_ignore(ValueError("x"), *args)
    NodeProcessingGraphRewriter.warn_inplace(InconsistencyError("x"), *args)
    assert caplog.records == []
    with config.change_flags(on_opt_error="warn"), caplog.at_level(logging.ERROR):
        NodeProcessingGraphRewriter.warn_inplace(ValueError("boom"), *args)
    assert "Rewrite failure due to: rw" in caplog.text
    with config.change_flags(on_opt_error="raise"):
        with pytest.raises(ValueError, match="boom"):
            NodeProcessingGraphRewriter.warn(ValueError("boom"), *args)


def test_add_feature_optimizer_attaches_its_feature():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.exp(x)], clone=False)
    feature = NoOutputFromInplace()
    rewriter = AddFeatureOptimizer(feature)
    rewriter.rewrite(fg)
    assert feature in fg._features
    assert str(rewriter).startswith("AddFeatureOptimizer(")
    with pytest.raises(InconsistencyError, match="in-place"):
        fg.replace_validate(fg.outputs[0], DoubleInPlace()(fg.outputs[0]))
