"""`map`, `reduce`, `foldl` and `foldr`: `scan` with one argument pattern
each (PyTensor's names and meanings)."""

from typing import Any

from oxtensor.scan.basic import scan


def map(
    fn: Any,
    sequences: Any,
    non_sequences: Any = None,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
) -> Any:
    """``fn`` applied to each step of ``sequences``: a scan without
    recurrent outputs."""
    return scan(
        fn,
        sequences=sequences,
        outputs_info=None,
        non_sequences=non_sequences,
        go_backwards=go_backwards,
        mode=mode,
        name=name,
    )


def reduce(fn: Any, sequences: Any, outputs_info: Any, **kwargs: Any) -> Any:
    """The last value of each output of the scan of ``fn``; ``kwargs``
    (``non_sequences``, ``go_backwards``, ``mode``, ``name``) go to `scan`."""
    outs = scan(
        fn, sequences=sequences, outputs_info=outputs_info, return_list=True, **kwargs
    )
    last = [o[-1] for o in outs]
    return last[0] if len(last) == 1 else last


def foldl(fn: Any, sequences: Any, outputs_info: Any, **kwargs: Any) -> Any:
    """`reduce` from the first step to the last (``non_sequences``, ``mode``
    and ``name`` as for `reduce`)."""
    return reduce(fn, sequences, outputs_info, go_backwards=False, **kwargs)


def foldr(fn: Any, sequences: Any, outputs_info: Any, **kwargs: Any) -> Any:
    """`reduce` from the last step to the first."""
    return reduce(fn, sequences, outputs_info, go_backwards=True, **kwargs)


__all__ = ["foldl", "foldr", "map", "reduce"]
