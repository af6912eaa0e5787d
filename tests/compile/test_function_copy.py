"""`Function.copy(share_memory, swap, delete_updates, name, profile)`, as
PyTensor's (observed with PyTensor 3.0.7 where noted)."""

import copy
import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest

from tests.helpers import assert_matches


def accumulator() -> tuple:
    """``f(x) = x + s`` with the update ``s <- s + x``."""
    x = ot.dvector("x")
    s = oxtensor.shared(np.zeros(2), name="s")
    f = oxtensor.function([x], x + s, updates=[(s, s + x)], name="f")
    return f, s


def test_name_defaults_to_the_original_name_plus_copy():
    f, _ = accumulator()
    assert f.copy().name == "f copy"  # PyTensor 3.0.7: 'f copy'
    assert copy.copy(f).name == "f copy"
    assert f.copy(name="g").name == "g"
    x = ot.dvector("x")
    assert oxtensor.function([x], x * 2).copy().name is None


@pytest.mark.parametrize("share_memory", [False, True])
def test_copies_compute_the_same_and_share_the_state(share_memory):
    f, s = accumulator()
    g = f.copy(share_memory=share_memory)
    ones = np.ones(2)
    assert_matches(g(ones), np.ones(2))
    assert_matches(s.get_value(), np.ones(2))
    assert_matches(f(ones), np.full(2, 2.0))
    assert_matches(s.get_value(), np.full(2, 2.0))
    one, two = f(ones), g(ones)
    assert not np.shares_memory(one, two)


def test_swap_reads_and_updates_the_new_shared_variable_only():
    f, s = accumulator()
    s2 = oxtensor.shared(np.ones(2), name="s2")
    h = f.copy(swap={s: s2}, name="h")
    # PyTensor 3.0.7: h(ones) == [2, 2], s stays [0, 0], s2 becomes [2, 2].
    assert_matches(h(np.ones(2)), np.full(2, 2.0))
    assert_matches(s.get_value(), np.zeros(2))
    assert_matches(s2.get_value(), np.full(2, 2.0))
    assert_matches(f(np.ones(2)), np.ones(2))
    assert_matches(s.get_value(), np.ones(2))


def test_swap_refuses_another_type():
    f, s = accumulator()
    wrong = oxtensor.shared(np.zeros(3, dtype="float32"), name="w")
    with pytest.raises(TypeError, match="conflicts with original one"):
        f.copy(swap={s: wrong})


def test_swap_keys_must_be_shared_variables():
    f, s = accumulator()
    x = f.maker.inputs[0].variable
    with pytest.raises(TypeError, match="shared variables to shared variables"):
        f.copy(swap={x: s})


def test_delete_updates_leaves_the_state_alone():
    f, s = accumulator()
    d = f.copy(delete_updates=True)
    assert_matches(d(np.ones(2)), np.ones(2))
    assert_matches(d(np.ones(2)), np.ones(2))
    assert_matches(s.get_value(), np.zeros(2))
    f(np.ones(2))
    assert_matches(s.get_value(), np.ones(2))


def test_profile_turns_profiling_on_for_the_copy_only():
    f, _ = accumulator()
    assert f.profile is None
    p = f.copy(profile=True)
    p(np.ones(2))
    assert p.profile is not None
    assert f.profile is None
    assert f.copy(share_memory=True, profile=True).profile is not None


def test_a_swapped_copy_pickles_as_itself():
    f, s = accumulator()
    s2 = oxtensor.shared(np.full(2, 5.0), name="s2")
    h = pickle.loads(pickle.dumps(f.copy(swap={s: s2}, delete_updates=True)))
    assert_matches(h(np.ones(2)), np.full(2, 6.0))
    assert h.name == "f copy"


def test_the_compiled_graph_is_named_after_the_function():
    x = ot.dscalar("x")
    f = oxtensor.function([x], x * 2, name="twice")
    assert f.maker.fgraph.name == "twice"
    assert copy.deepcopy(f).maker.fgraph.name == "twice"
    assert oxtensor.function([x], x + 1).maker.fgraph.name is None
