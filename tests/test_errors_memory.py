"""An allocation the machine cannot satisfy raises in Python; the process
survives (it used to abort inside the allocator)."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest


def test_an_impossible_allocation_raises_and_the_process_survives():
    n = ot.lscalar("n")
    f = oxtensor.function([n], ot.zeros((n, n)))
    for size in (2**30, 2**31):  # too many bytes; more than a usize can count
        with pytest.raises(BaseException, match="cannot allocate an array of"):
            f(np.int64(size))
    np.testing.assert_array_equal(f(np.int64(2)), np.zeros((2, 2)))
