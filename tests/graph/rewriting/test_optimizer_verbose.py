"""``config.optimizer_verbose``: a line per replacement, from
``fgraph.replace`` and from the core's drivers, minus the reasons in
``optimizer_verbose_ignore``."""

import sys

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from oxtensor.configdefaults import config
from oxtensor.graph.fg import FunctionGraph


def _graph() -> tuple[FunctionGraph, object, object, object]:
    x, y, z = ot.dvector("x"), ot.dvector("y"), ot.dvector("z")
    fg = FunctionGraph([x, y, z], [ot.exp(x + y)], clone=False)
    return fg, x, y, z


def test_replace_prints_only_when_asked(capsys):
    fg, _, y, z = _graph()
    fg.replace(y, z, reason="y->z")
    assert capsys.readouterr().out == ""
    with config.change_flags(optimizer_verbose=True):
        fg.replace(z, y, reason="z->y")
    out = capsys.readouterr().out
    assert out.startswith("rewriting: rewrite z->y replaces z of None with y of None")


def test_replace_skips_ignored_reasons(capsys):
    fg, _, y, z = _graph()
    with config.change_flags(
        optimizer_verbose=True, optimizer_verbose_ignore="y->z, a"
    ):
        fg.replace(y, z, reason="y->z")
        fg.replace(z, y, reason="z->y")
    out = capsys.readouterr().out
    assert "y->z" not in out
    assert "z->y" in out


def test_verbose_argument_overrides_the_config(capsys):
    fg, _, y, z = _graph()
    with config.change_flags(optimizer_verbose=True):
        fg.replace(y, z, reason="quiet", verbose=False)
    assert capsys.readouterr().out == ""


def test_verbose_false_reads_no_config(monkeypatch):
    fg, _, y, z = _graph()
    # An import of the config module would now fail.
    monkeypatch.setitem(sys.modules, "oxtensor.configdefaults", None)
    fg.replace(y, z, reason="quiet", verbose=False)
    add = fg.outputs[0].owner.inputs[0].owner
    assert add.inputs[1] is z


def test_compiling_prints_the_core_rewrites(capsys):
    x = ot.dvector("x")
    with config.change_flags(optimizer_verbose=True):
        f = oxtensor.function([x], ot.log(1 + x))
    out = capsys.readouterr().out
    lines = [
        line for line in out.splitlines() if line.startswith("rewriting: rewrite ")
    ]
    assert any(
        line.startswith("rewriting: rewrite local_log1p replaces ") for line in lines
    ), out
    np.testing.assert_allclose(f(np.array([1e-20, 1.0])), np.log1p([1e-20, 1.0]))


def test_compiling_is_silent_by_default_and_for_ignored_rewrites(capsys):
    x = ot.dvector("x")
    oxtensor.function([x], ot.log(1 + x))
    assert capsys.readouterr().out == ""
    with config.change_flags(
        optimizer_verbose=True, optimizer_verbose_ignore="local_log1p"
    ):
        oxtensor.function([x], ot.log(1 + x))
    assert "local_log1p" not in capsys.readouterr().out
