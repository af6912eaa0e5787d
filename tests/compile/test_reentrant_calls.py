"""A Python op whose ``perform`` calls the compiled function it belongs to:
each level nests native frames that Python's recursion limit does not
count. Past some depth the call raises ``RecursionError``, whatever the
limit is set to; it used to overflow the native stack (a segmentation
fault) once the limit was 2000 or more."""

import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent(
    """
    import sys
    import numpy as np
    import oxtensor
    import oxtensor.tensor as ot
    from oxtensor.graph.basic import Apply
    from oxtensor.graph.op import Op

    sys.setrecursionlimit({limit})
    calls = []

    class Again(Op):
        __props__ = ()

        def make_node(self, x):
            x = ot.as_tensor_variable(x)
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage):
            calls.append(1)
            output_storage[0][0] = f(inputs[0] + 1)

    x = ot.dvector("x")
    f = oxtensor.function([x], Again()(x) * 1.0)
    try:
        f(np.zeros(3))
    except RecursionError as err:
        print("RecursionError", len(calls), str(err)[:60])
    # The function still works once the recursion is unwound.
    g = oxtensor.function([x], x * 2)
    print("after", g(np.ones(2)).tolist())
    """
)


@pytest.mark.parametrize("limit", [1000, 2000, 10**5, 10**6])
def test_recursion_through_a_python_op_raises_recursion_error(limit):
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(limit=limit)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    first, second = done.stdout.splitlines()[-2:]
    assert first.startswith("RecursionError"), done.stdout
    assert second == "after [2.0, 2.0]"
