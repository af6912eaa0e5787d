"""`until`, PyTensor's marker for a while-loop condition, and the error
raised for the parts of `scan` that oxtensor does not implement."""

from typing import Any

from oxtensor.tensor.basic import as_tensor_variable


class until:
    """``return outputs, until(condition)`` in PyTensor makes a while loop.

    oxtensor's `scan` recognises it and refuses it with
    `ScanNotSupportedError`: while loops are outside the supported subset.
    """

    def __init__(self, condition: Any) -> None:
        self.condition = as_tensor_variable(condition)
        if self.condition.ndim != 0:
            raise TypeError(
                f"until: the condition must be a scalar, got {self.condition.type}"
            )


class ScanNotSupportedError(NotImplementedError):
    """A `scan` feature outside the subset oxtensor implements (see
    ``docs/for-pytensor-users.md``)."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"scan: {what} is outside the subset oxtensor's scan implements "
            "(sequences with integer taps, recurrent outputs with taps [-1], "
            "per-step outputs, non_sequences, n_steps, go_backwards)"
        )


__all__ = ["ScanNotSupportedError", "until"]
