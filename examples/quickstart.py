"""Build a graph, compile it, run it, and print it: the README's example."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot

x = ot.dmatrix("x")
b = ot.dvector("b")
y = ot.exp(x * 2.0 + b).sum(axis=1)
y.name = "y"
oxtensor.dprint(y)

f = oxtensor.function([x, b], y)
print(f(np.zeros((2, 3)), np.array([0.0, 1.0, 2.0])))
oxtensor.dprint(f)
