"""What `scan` refuses, with the exception type and what its message says:
features outside the supported subset, mismatched types and counts, and
bad values at run time."""

from functools import partial

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor import function
from oxtensor.scan import ScanNotSupportedError, until
from oxtensor.scan import basic as loops

# PyTensor 3.x's form without the updates dict (see test_scan.py for the default).
scan = partial(loops.scan, return_updates=False)


def test_until_is_refused():
    x = ot.dvector("x")
    with pytest.raises(ScanNotSupportedError, match="while loop"):
        scan(lambda xt: (xt * 2, until(xt > 3)), sequences=x)


def test_returned_updates_are_refused():
    s = oxtensor.shared(np.float64(0), name="s")
    x = ot.dvector("x")
    with pytest.raises(ScanNotSupportedError, match="updating shared variables"):
        scan(lambda xt: (xt * 2, {s: s + xt}), sequences=x)


def test_a_shared_variable_with_a_default_update_is_refused():
    s = oxtensor.shared(np.float64(0), name="s")
    s.default_update = s + 1
    x = ot.dvector("x")
    with pytest.raises(ScanNotSupportedError, match="default update"):
        scan(lambda xt: xt + s, sequences=x)


def test_output_taps_other_than_minus_one_are_refused():
    x0 = ot.dvector("x0")
    with pytest.raises(ScanNotSupportedError, match=r"taps \[-2, -1\]"):
        scan(
            lambda a, b: a + b,
            outputs_info=[{"initial": x0, "taps": [-2, -1]}],
            n_steps=3,
        )


def test_truncate_gradient_is_refused():
    x = ot.dvector("x")
    with pytest.raises(ScanNotSupportedError, match="truncate_gradient=2"):
        scan(lambda xt: xt, sequences=x, truncate_gradient=2)


def test_refusals_are_not_implemented_errors_that_name_the_subset():
    x = ot.dvector("x")
    with pytest.raises(NotImplementedError, match="outside the subset"):
        scan(lambda xt: xt, sequences=x, truncate_gradient=2)


def test_a_recurrent_output_must_keep_its_type():
    x = ot.fvector("x")
    with pytest.raises(TypeError, match=r"output 0 of fn has type .*float64.*float32"):
        scan(
            lambda xt, acc: acc + ot.cast(xt, "float64"),
            sequences=x,
            outputs_info=np.float32(0),
        )


def test_output_count_must_match_outputs_info():
    x = ot.dvector("x")
    with pytest.raises(
        ValueError, match="fn returned 2 outputs but outputs_info has 1"
    ):
        scan(lambda xt, acc: [acc + xt, xt], sequences=x, outputs_info=[np.float64(0)])


def test_the_number_of_steps_must_be_known():
    with pytest.raises(ValueError, match="provide n_steps or at least one sequence"):
        scan(lambda acc: acc + 1, outputs_info=np.float64(0))


def test_n_steps_must_be_an_integer():
    with pytest.raises(TypeError, match="n_steps must be an integer scalar"):
        scan(lambda acc: acc + 1, outputs_info=np.float64(0), n_steps=ot.dscalar("k"))


def test_negative_n_steps_is_refused():
    with pytest.raises(ScanNotSupportedError, match="negative n_steps"):
        scan(lambda acc: acc + 1, outputs_info=np.float64(0), n_steps=-2)


def test_scalar_sequence_is_refused():
    with pytest.raises(ValueError, match="is a scalar"):
        scan(lambda xt: xt, sequences=ot.dscalar("x"))


def test_strict_refuses_variables_not_passed():
    x, p = ot.dvector("x"), ot.dscalar("p")
    with pytest.raises(ValueError, match=r"strict=True.*\bp\b"):
        scan(lambda xt: xt * p, sequences=x, strict=True)


def test_n_steps_longer_than_a_sequence_fails_at_run_time():
    x, k = ot.dvector("x"), ot.iscalar("k")
    f = function([x, k], scan(lambda xt: xt * 2, sequences=x, n_steps=k))
    with pytest.raises(
        ValueError, match=r"sequence 0 has 3 entries .* the loop runs 5 steps"
    ):
        f(np.zeros(3), 5)


def test_negative_symbolic_n_steps_fails_at_run_time():
    k = ot.iscalar("k")
    f = function([k], scan(lambda acc: acc + 1, outputs_info=np.float64(0), n_steps=k))
    with pytest.raises(ValueError, match="n_steps must be non-negative, got -1"):
        f(-1)


def test_a_state_that_changes_shape_fails_at_run_time():
    x0 = ot.dvector("x0")
    grow = scan(lambda h: ot.concatenate([h, h]), outputs_info=x0, n_steps=2)
    with pytest.raises(
        ValueError, match=r"state 0 has shape \(4,\) at step 0, but shape \(2,\) before"
    ):
        function([x0], grow)(np.zeros(2))


def test_an_untraced_outputs_info_entry_is_refused():
    from oxtensor.tensor.type_other import none_type_t

    with pytest.raises(ScanNotSupportedError, match="untraced outputs_info entry"):
        scan(lambda n: n, outputs_info=[none_type_t("n")], n_steps=2)


def test_the_op_checks_its_inputs():
    x = ot.dvector("x")
    op = scan(lambda xt: xt * 2, sequences=x).owner.op
    with pytest.raises(TypeError, match=r"sequence 0 \(m\) has type Matrix"):
        op.make_node(3, ot.dmatrix("m"))
    with pytest.raises(ValueError, match="expected 1 inputs after n_steps"):
        op.make_node(3, x, x)
    with pytest.raises(TypeError, match="n_steps must be an integer scalar"):
        op.make_node(1.5, x)


def test_a_random_stream_inside_the_loop_is_refused():
    from oxtensor.tensor.random import RandomStream

    srng = RandomStream(1)
    x = ot.dvector("x")
    with pytest.raises(ScanNotSupportedError, match="random stream's generator"):
        scan(lambda xt: xt + srng.normal(), sequences=x)


def test_sequence_specs_are_checked():
    x = ot.dvector("x")
    with pytest.raises(ValueError, match="has no 'input' entry"):
        scan(lambda xt: xt, sequences=[{"taps": [0]}])
    with pytest.raises(
        TypeError, match=r"taps of sequence x must be integers, got \[0.5\]"
    ):
        scan(lambda xt: xt, sequences=[{"input": x, "taps": [0.5]}])


def test_a_summed_output_keeps_its_shape():
    from oxtensor.scan.op import Scan

    xt, s0 = ot.dvector("xt"), ot.dvector("s0")
    op = Scan([xt], [xt], n_seqs=1, n_states=0, n_sums=1)
    x = ot.dmatrix("x")
    f = function([x, s0], op(x.shape[0], x, s0))
    with pytest.raises(
        ValueError, match=r"output 0 \(summed\) has shape \(3,\) at step 0"
    ):
        f(np.zeros((2, 3)), np.zeros(2))
