"""`debugprint` / `dprint` in PyTensor 3.x's format, `char_from_number`,
the letters it labels nodes with, and `pprint`, the expression printer."""

from typing import Any

from oxtensor import _core

debugprint = _core.debugprint
dprint = debugprint


def pprint(var: Any) -> str:
    """``var``'s graph as the expression a user would type: inputs by name,
    constants by value, infix arithmetic, ``x[0:2, idx]``,
    ``set_subtensor(x[0], z)``, ``sum(x, axis=(0,))``; other ops as calls.

    >>> import oxtensor.tensor as ot
    >>> x = ot.dmatrix("x")
    >>> pprint(x[0:2].sum(axis=0))
    'sum(x[0:2], axis=(0,))'
    """
    return _core.pprint(var)


def char_from_number(number: int) -> str:
    """``number`` in base 26 over ``A``..``Z`` (0 is ``A``, 26 is ``BA``), as
    the ``[id ...]`` labels of `debugprint` count."""
    if number < 0:
        raise ValueError(f"char_from_number needs a number >= 0, got {number}")
    letters = ""
    while True:
        number, digit = divmod(number, 26)
        letters = chr(ord("A") + digit) + letters
        if number == 0:
            return letters


__all__ = ["char_from_number", "debugprint", "dprint", "pprint"]
