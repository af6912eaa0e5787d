"""`clone_replace`'s rebuild keywords, as PyTensor's: `copy_inputs_over`
(keep the root variables, or use clones of them) and `rebuild_strict`
(convert the replacements to the replaced types, or rebuild for theirs)."""

import numpy as np
import oxtensor
import oxtensor.tensor as T
import pytest
from oxtensor.compile.sharedvalue import shared
from oxtensor.graph.replace import clone_replace
from oxtensor.graph.traversal import graph_inputs


def _roots(out):
    return list(graph_inputs([out]))


def _holds(roots, var):
    return any(r is var for r in roots)


@pytest.mark.parametrize("replace", [None, "y2"])
def test_copy_inputs_over_false_clones_the_roots(replace):
    x, y, y2 = T.dvector("x"), T.dvector("y"), T.dvector("y2")
    z = shared(0.25, name="z")
    out = z * (x + y) ** 2 + 5
    pairs = None if replace is None else [(y, y2)]
    new = clone_replace(out, replace=pairs, copy_inputs_over=False)
    roots = _roots(new)
    for v in (x, y, y2, z):
        assert not _holds(roots, v)
    # The clones keep the names and types, and the shared variable's clone
    # reads the same value.
    names = {r.name for r in roots if r.name}
    assert {"x", "z", "y" if replace is None else "y2"} <= names
    (z_clone,) = [r for r in roots if r.name == "z"]
    assert z_clone.container is z.container
    xs, ys = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    (x_clone,) = [r for r in roots if r.name == "x"]
    (y_clone,) = [r for r in roots if r.name in ("y", "y2")]
    f = oxtensor.function([x_clone, y_clone], new)
    np.testing.assert_allclose(f(xs, ys), 0.25 * (xs + ys) ** 2 + 5)


def test_copy_inputs_over_true_keeps_the_roots():
    x, y, y2 = T.dvector("x"), T.dvector("y"), T.dvector("y2")
    z = shared(0.25)
    out = z * (x + y) ** 2 + 5
    roots = _roots(clone_replace(out, {y: y2}, copy_inputs_over=True))
    assert all(_holds(roots, v) for v in (x, y2, z))
    assert not _holds(roots, y)


def test_rebuild_strict_false_takes_the_replacement_type():
    x, y, y2 = T.dvector("x"), T.fvector("y"), T.dvector("y2")
    out = (x + y) * 2.0
    with pytest.raises(TypeError, match="Cannot convert Type"):
        clone_replace(out, {y: y2}, rebuild_strict=True)
    # float32 -> float64 changes nothing here (x is float64); a float32
    # graph rebuilt on float64 changes the output dtype.
    f32 = T.fvector("f")
    new = clone_replace(f32 * 2, {f32: y2}, rebuild_strict=False)
    assert new.dtype == "float64"
    rebuilt = clone_replace(out, {y: y2}, rebuild_strict=False)
    assert _holds(_roots(rebuilt), y2)
    f = oxtensor.function([x, y2], rebuilt)
    np.testing.assert_allclose(
        f(np.array([1.0]), np.array([1e-9 + 1.0])), [2 * (2.0 + 1e-9)]
    )
