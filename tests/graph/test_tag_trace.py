"""`tag.trace`: a variable a type makes records where it was made, as
many frames of the caller's stack as `config.traceback__limit` says."""

import oxtensor
import oxtensor.tensor as ot
from oxtensor.graph.utils import add_tag_trace


def _made_here():
    return ot.dvector("v")


def test_the_trace_starts_at_the_users_line():
    with oxtensor.config.change_flags(traceback__limit=1):
        v = _made_here()
    [stack] = v.tag.trace
    [(filename, _, function, line)] = stack
    assert filename == __file__
    assert function == "_made_here"
    assert line == 'return ot.dvector("v")'


def test_the_limit_counts_frames_and_zero_records_none():
    with oxtensor.config.change_flags(traceback__limit=2):
        v = _made_here()
    [stack] = v.tag.trace
    assert [f[2] for f in stack] == [
        "test_the_limit_counts_frames_and_zero_records_none",
        "_made_here",
    ]
    with oxtensor.config.change_flags(traceback__limit=0):
        assert _made_here().tag.trace == []
    with oxtensor.config.change_flags(traceback__limit=-1):
        assert len(_made_here().tag.trace[0]) > 2


def test_tensor_type_calls_and_add_tag_trace_record_it():
    t = ot.TensorType("float32", (None, 3))
    with oxtensor.config.change_flags(traceback__limit=1):
        assert t("m").tag.trace[0][0][2] == (
            "test_tensor_type_calls_and_add_tag_trace_record_it"
        )
        v = ot.dvector().owner
        w = add_tag_trace(ot.dvector("w") * 2)
    assert v is None
    assert len(w.tag.trace[0]) == 1
