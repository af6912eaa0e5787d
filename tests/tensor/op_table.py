"""The non-elementwise ops of issue 4 as one table the
``test_coverage_ops.py`` tests walk: how to build each from symbolic
inputs, NumPy's answer, the inputs for values / 0-d / empty cases (or why a
case does not apply), whether ``verify_grad`` applies, and PyTensor's
``str`` of the output's op (read from PyTensor 3). ``Spec`` is in
``op_spec.py``; the entries are split by family."""

from tests.tensor.op_spec import Spec
from tests.tensor.op_table_index import INDEXING, JOINING
from tests.tensor.op_table_linalg import LINALG
from tests.tensor.op_table_others import OTHERS, SPELLINGS
from tests.tensor.op_table_shape import SHAPE

SPECS: dict[str, Spec] = {
    **LINALG,
    **SHAPE,
    **INDEXING,
    **JOINING,
    **OTHERS,
    **SPELLINGS,
}
