"""Exceptions of ``pytensor.tensor.exceptions``."""


class NotScalarConstantError(Exception):
    """Raised by ``get_underlying_scalar_constant_value`` for a variable
    that is not a constant scalar."""


__all__ = ["NotScalarConstantError"]
