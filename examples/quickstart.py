"""Build a small graph and print it: the README's example, kept runnable."""

import oxtensor
import oxtensor.tensor as ot

x = ot.dmatrix("x")
b = ot.dvector("b")
y = ot.exp(x * 2.0 + b).sum(axis=1)
y.name = "y"
oxtensor.dprint(y)
