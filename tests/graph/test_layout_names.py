"""Names of PyTensor 3.x's layout: `graph.basic.NominalVariable` and
`clone`, `graph.replace.graph_replace`, `graph.op.HasInnerGraph`, the dtype
lists and the ``shape=`` keyword of `tensor.type`, `_convert_to_*`, and
`printing.char_from_number`."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.basic import NominalVariable, as_string, clone
from oxtensor.graph.op import HasInnerGraph, Op
from oxtensor.graph.replace import graph_replace
from oxtensor.printing import char_from_number
from oxtensor.tensor import basic as tbasic
from oxtensor.tensor import type as ttype
from oxtensor.tensor.variable import TensorVariable


def test_nominal_variable_is_one_per_type_and_id():
    t = ot.TensorType("float64", (None,))
    a = NominalVariable(7, t)
    assert a is NominalVariable(7, ot.TensorType("float64", (None,)))
    assert a is not NominalVariable(8, t)
    assert isinstance(a, TensorVariable)
    assert a.equals(NominalVariable(7, t))
    assert a.signature() == (t, 7)
    assert a.clone() is a
    assert pickle.loads(pickle.dumps(a)) is a
    assert repr(a) == f"NominalVariable(7, {t!r})"
    np.testing.assert_array_equal((a * 2).eval({a: np.array([1.0, 2.0])}), [2, 4])


def test_clone_keeps_or_copies_inputs():
    x, y = ot.dvector("x"), ot.dvector("y")
    out = ot.exp(x) + y
    (cx, cy), (cout,) = clone([x, y], [out])
    assert cx is not x
    assert cout is not out
    (kx, ky), (kout,) = clone([x, y], [out], copy_inputs=False)
    assert kx is x
    assert ky is y
    assert kout.owner.inputs[1] is y
    v = np.array([0.0, 1.0])
    np.testing.assert_allclose(oxtensor.function([cx, cy], cout)(v, v), np.exp(v) + v)


def test_graph_replace_rebuilds_only_downstream():
    x, y, z = ot.dvector("x"), ot.dvector("y"), ot.dvector("z")
    left = ot.exp(z)
    out = left + x
    new = graph_replace([out], {x: y * 2})[0]
    assert new.owner.inputs[0] is left
    assert graph_replace(out, {out: y}) is y
    assert graph_replace([out], {y: z}, strict=False)[0] is out
    with pytest.raises(ValueError, match="not used"):
        graph_replace([out], {y: z})
    v = np.array([1.0, 2.0])
    np.testing.assert_allclose(new.eval({y: v, z: v}), np.exp(v) + 2 * v)


def test_has_inner_graph_is_an_interface():
    class Inner(Op, HasInnerGraph):
        __props__ = ()

        fn = property(lambda self: None)
        inner_inputs = property(lambda self: [])
        inner_outputs = property(lambda self: [])

        def clone(self):
            return Inner()

    class Missing(Op, HasInnerGraph):
        __props__ = ()

    assert isinstance(Inner(), HasInnerGraph)
    with pytest.raises(TypeError):
        Missing()


def test_dtype_lists_partition_the_dtypes():
    assert set(ttype.all_dtypes) == set(ttype.discrete_dtypes) | set(
        ttype.continuous_dtypes
    )
    assert "bool" in ttype.discrete_dtypes
    assert "uint8" in ttype.integer_dtypes
    assert set(ttype.float_dtypes) & set(ttype.integer_dtypes) == set()
    assert ttype.complex_dtypes == ["complex64", "complex128"]


def test_shape_keyword_of_predefined_types():
    assert ttype.fmatrix(shape=(1, None)).type == ttype.frow
    assert ttype.dmatrix("m", shape=(2, 3)).type.shape == (2, 3)
    assert ttype.dmatrix("m").name == "m"
    with pytest.raises(ValueError, match="length 2"):
        ttype.fmatrix(shape=(None, None, None))
    with pytest.raises(ValueError, match="does not fit"):
        ttype.fmatrix(shape=(3, 5)).type(shape=(4, 5))
    with pytest.raises(ValueError, match="does not fit"):
        ttype.drow(shape=(None, None))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "float32"])
def test_convert_to_matches_numpy_astype(dtype):
    x = ot.dvector("x")
    conv = getattr(tbasic, f"_convert_to_{dtype}")
    v = np.array([1.7, -2.5, 100.25])
    out = oxtensor.function([x], conv(x))(v)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, v.astype(dtype))


def test_char_from_number():
    assert [char_from_number(n) for n in (0, 1, 25, 26, 27)] == [
        "A",
        "B",
        "Z",
        "BA",
        "BB",
    ]
    with pytest.raises(ValueError, match=">= 0"):
        char_from_number(-1)


def test_as_string_writes_shared_values_once():
    x, y = ot.dvector("x"), ot.dvector("y")
    a = x + y
    assert as_string([x, y], [ot.exp(a)]) == ["Exp(Add(x, y))"]
    assert as_string([x, y], [a * a, ot.exp(a)]) == [
        "Mul(*1 -> Add(x, y), *1)",
        "Exp(*1)",
    ]
    assert as_string([a], [a * a]) == ["Mul(Add.0, Add.0)"]
    typed = as_string([x], [ot.exp(x)], leaf_formatter=lambda v: str(v.type))
    assert typed == [f"Exp({x.type})"]


def test_apply_clone_with_its_inner_graph():
    from oxtensor.compile.builders import OpFromGraph
    from oxtensor.graph.basic import equal_computations

    a, b = ot.dscalars("a", "b")
    ofg = OpFromGraph([a, b], [a * b + 1])
    x, y = ot.dscalars("x", "y")
    node = ofg(x, y).owner
    kept = node.clone()
    assert kept.op is node.op
    copied = node.clone(clone_inner_graph=True)
    assert copied is not node
    assert copied.op is not node.op
    assert copied.op.fgraph is not node.op.fgraph
    assert equal_computations(
        copied.op.inner_outputs,
        node.op.inner_outputs,
        copied.op.inner_inputs,
        node.op.inner_inputs,
    )
    assert copied.inputs == node.inputs
