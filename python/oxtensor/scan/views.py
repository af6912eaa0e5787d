"""`map`, `reduce`, `foldl` and `foldr`: `scan` with one argument pattern
each (PyTensor's names and meanings). As `scan`, each returns ``(result,
updates)`` unless ``return_updates=False`` (PyTensor 3.0's default, with a
`DeprecationWarning`)."""

from typing import Any

from oxtensor.scan.basic import scan, with_updates


def map(
    fn: Any,
    sequences: Any,
    non_sequences: Any = None,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """``fn`` applied to each step of ``sequences``: a scan without
    recurrent outputs."""
    out = scan(
        fn,
        sequences=sequences,
        outputs_info=None,
        non_sequences=non_sequences,
        go_backwards=go_backwards,
        mode=mode,
        name=name,
        return_updates=False,
    )
    return with_updates(out, return_updates)


def reduce(
    fn: Any,
    sequences: Any,
    outputs_info: Any,
    return_updates: bool = True,
    **kwargs: Any,
) -> Any:
    """The last value of each output of the scan of ``fn``; ``kwargs``
    (``non_sequences``, ``go_backwards``, ``mode``, ``name``) go to `scan`."""
    outs = scan(
        fn,
        sequences=sequences,
        outputs_info=outputs_info,
        return_list=True,
        return_updates=False,
        **kwargs,
    )
    last = [o[-1] for o in outs]
    return with_updates(last[0] if len(last) == 1 else last, return_updates)


def foldl(fn: Any, sequences: Any, outputs_info: Any, **kwargs: Any) -> Any:
    """`reduce` from the first step to the last (``non_sequences``, ``mode``,
    ``name`` and ``return_updates`` as for `reduce`)."""
    return reduce(fn, sequences, outputs_info, go_backwards=False, **kwargs)


def foldr(fn: Any, sequences: Any, outputs_info: Any, **kwargs: Any) -> Any:
    """`reduce` from the last step to the first."""
    return reduce(fn, sequences, outputs_info, go_backwards=True, **kwargs)


__all__ = ["foldl", "foldr", "map", "reduce"]
