"""Issue 30's programs, as a hostile user wrote them: each one ends in a
Python exception (or the right answer), never a signal and never a panic
message. Each runs in a child process, where a segmentation fault or an
abort shows as the child's exit status instead of killing the test run,
and where stderr shows whether a Rust panic report was printed.

`test_errors_memory.py`, `graph/test_apply_edits.py`,
`tensor/test_dtype_spellings.py` and `test_internal_error.py` check the
messages in detail, `compile/test_reentrant_calls.py` the recursive Python
op; this file checks the programs end as they should.
"""

import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import numpy as np
import oxtensor
import oxtensor.tensor as ot

def outcome(run):
    try:
        value = run()
    except Exception as e:
        print("raised", type(e).__name__)
    else:
        print("returned", np.asarray(value).tolist())
"""


def run_child(program: str) -> str:
    """Runs `program` after `PRELUDE` in a fresh interpreter; its stdout.
    Fails on a signal, a nonzero exit or a panic report on stderr."""
    code = PRELUDE + textwrap.dedent(program)
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, f"exit status {run.returncode}:\n{run.stderr[-3000:]}"
    assert "panicked" not in run.stderr, run.stderr[-3000:]
    return run.stdout


PROGRAMS = {
    # The four segmentation faults.
    "repeat_counts_sum_to_2_64": (
        """
        v, c = ot.dvector("v"), ot.lvector("c")
        f = oxtensor.function([v, c], ot.repeat(v, c))
        outcome(lambda: f(np.ones(4), np.array([2**62] * 4)))
        """,
        "raised MemoryError",
    ),
    "reshape_product_wraps": (
        """
        v, n = ot.dvector("v"), ot.lscalar("n")
        f = oxtensor.function([v, n], v.reshape((n, 4)).sum(axis=0))
        outcome(lambda: f(np.arange(4.0), 2**62 + 1))
        """,
        "raised ValueError",
    ),
    "eye_byte_size_wraps": (
        """
        n = ot.lscalar("n")
        outcome(lambda: oxtensor.function([n], ot.eye(n, 8).sum(axis=0))(2**61 + 8))
        """,
        "raised MemoryError",
    ),
    "dprint_of_a_200000_node_chain": (
        """
        z = x = ot.dvector("x")
        for _ in range(200_000):
            z = z + 1.0
        outcome(lambda: len(oxtensor.dprint(z, file="str")) > 200_000)
        """,
        "returned True",
    ),
    # The panics.
    "zeros_2_62_in_constant_folding": (
        "outcome(lambda: oxtensor.function([], ot.zeros((2**62,)))())",
        "raised MemoryError",
    ),
    # Setting `owner.inputs`: refused at once.
    "owner_inputs_of_another_rank": (
        """
        x, m = ot.dvector("x"), ot.dmatrix("m")
        y = ot.exp(x)
        def edit():
            y.owner.inputs = [m]
        outcome(edit)
        """,
        "raised TypeError",
    ),
    "owner_inputs_emptied": (
        """
        z = ot.dvector("x") + 1.0
        def edit():
            z.owner.inputs = []
        outcome(edit)
        """,
        "raised TypeError",
    ),
    "owner_inputs_emptied_in_place_then_compiled": (
        """
        z = ot.dvector("x") + 1.0
        z.owner.inputs.clear()
        outcome(lambda: oxtensor.function([], z)())
        """,
        "raised TypeError",
    ),
    "owner_outputs_and_index": (
        """
        y = ot.exp(ot.dvector("x"))
        def edit():
            y.index = 3
        outcome(edit)
        """,
        "raised ValueError",
    ),
    # Dtypes as NumPy spells them, and byte-swapped arrays.
    "byte_swapped_argument": (
        """
        x = ot.dvector("x")
        f = oxtensor.function([x], x * 2)
        outcome(lambda: f(np.arange(3, dtype=">f8")))
        """,
        "returned [0.0, 2.0, 4.0]",
    ),
    "dtype_spellings": (
        """
        x = ot.dvector("x")
        got = [
            ot.tensor(dtype="f8", shape=(None,)).dtype,
            ot.tensor(dtype="float", shape=(None,)).dtype,
            ot.tensor(dtype="<f8", shape=(None,)).dtype,
            ot.tensor(dtype=np.float64, shape=(None,)).dtype,
            ot.cast(x, "f4").dtype,
            x.astype("i4").dtype,
        ]
        outcome(lambda: got == ["float64"] * 4 + ["float32", "int32"])
        """,
        "returned True",
    ),
    "dtype_oxtensor_lacks": (
        """outcome(lambda: ot.tensor(dtype="float128", shape=()))""",
        "raised TypeError",
    ),
}

LONG = 67280421310721  # 274177 * LONG = 2**64 + 1
BROADCAST = {
    "add": "a + b",
    "sort": "ot.sort(a + b)",
    "sum": "(a + b).sum()",
    "slice": "(a + b)[::2]",
    "cumsum": "ot.cumsum(a + b, axis=1)",
    "inc_subtensor": "ot.inc_subtensor((a + b)[0], 1.0)",
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_program_ends_in_an_exception_or_the_answer(name):
    program, want = PROGRAMS[name]
    assert run_child(program).strip().splitlines()[-1] == want


@pytest.mark.parametrize("expr", BROADCAST.values(), ids=list(BROADCAST))
def test_broadcasting_to_2_64_plus_1_elements(expr):
    program = f"""
    a = ot.tensor("a", dtype="float64", shape=(None, 1))
    b = ot.tensor("b", dtype="float64", shape=(1, None))
    f = oxtensor.function([a, b], {expr})
    wide = np.broadcast_to(np.ones((1, 1)), (1, {LONG}))
    outcome(lambda: f(np.ones((274177, 1)), wide))
    """
    assert run_child(program).strip() == "raised MemoryError"
