"""The letters `debugprint` labels nodes with."""


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


__all__ = ["char_from_number"]
