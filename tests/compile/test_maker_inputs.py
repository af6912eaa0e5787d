"""What the maker of a compiled function says about its inputs (PyTensor's
`In` objects, explicit then implicit), and the error for `givens` that
replace one of the function's own inputs."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.compile.io import In


def test_maker_inputs_are_in_objects_explicit_then_shared():
    x = ot.dvector("x")
    s = oxtensor.shared(np.zeros(2), name="s")
    t = oxtensor.shared(np.ones(2), name="t")
    f = oxtensor.function(
        [In(x, borrow=True, allow_downcast=True)], x + s + t, updates={s: s + 1}
    )
    explicit, *implicit = f.maker.inputs
    assert all(isinstance(i, In) for i in f.maker.inputs)
    assert f.maker.expanded_inputs == f.maker.inputs
    assert explicit.variable is x
    assert (explicit.name, explicit.borrow, explicit.allow_downcast) == (
        "x",
        True,
        True,
    )
    assert not explicit.implicit
    assert explicit.value is None
    by_var = {i.variable: i for i in implicit}
    assert set(by_var) == {s, t}
    assert all(i.implicit for i in implicit)
    assert by_var[s].value is s.container
    assert by_var[t].value is t.container
    assert by_var[t].update is None
    # The update is the compiled graph's expression of the new value.
    assert by_var[s].update in f.maker.fgraph.outputs


def test_copy_with_swapped_shared_variables_reads_their_containers():
    i = ot.iscalar("i")
    a = oxtensor.shared(np.arange(3.0), name="a")
    b = oxtensor.shared(np.arange(3.0) * 10, name="b")
    f = oxtensor.function([i], a[i])
    g = f.copy(swap={a: b})
    assert [inp.value for inp in f.maker.inputs] == [None, a.container]
    assert g.maker.inputs[1].value is b.container
    assert g(2) == 20.0


def test_givens_replacing_an_input_is_a_runtime_error():
    x = ot.dscalar("x")
    with pytest.raises(RuntimeError, match="You are trying to replace variable 'x'"):
        oxtensor.function([x], x * 2, givens={x: x + 1})
    # A variable that is not an input may be replaced.
    y = ot.dscalar("y")
    f = oxtensor.function([x], (x + y) * 2, givens={y: x + 1})
    assert f(1.0) == 6.0
