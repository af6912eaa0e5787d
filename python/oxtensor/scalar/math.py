"""The special-function scalar ops under PyTensor's module path
(`pytensor.scalar.math`); they are defined with the others in `basic`, and
the scalar table marks them (``special``)."""

from oxtensor.scalar.basic import KINDS as _KINDS

_SPECIAL = [(cls, op, attr) for cls, op, attr, special, *_ in _KINDS if special]
globals().update({cls.__name__: cls for cls, _, _ in _SPECIAL})
globals().update({attr: op for _, op, attr in _SPECIAL})

__all__ = [
    *(cls.__name__ for cls, _, _ in _SPECIAL),
    *(attr for _, _, attr in _SPECIAL),
]
