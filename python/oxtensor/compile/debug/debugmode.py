"""DebugMode: every node checked against what its op declares, every result
against the same graph compiled in ``FAST_COMPILE``.

The checks run in the core (``crates/oxtensor-core/src/compile/debug``):
each node runs on copies of its inputs (``debug_perform`` for Python ops
that define one), then

* an input changed that ``destroy_map`` does not declare raises
  `BadDestroyMap`;
* an output sharing memory with an input (or another output) that
  ``view_map``/``destroy_map`` do not declare raises `BadViewMap`;
* an output that is not a value of its type (dtype, rank, static shape)
  raises `InvalidValueError`;
* a final output that differs from ``FAST_COMPILE``'s beyond the dtype's
  tolerance raises `BadThunkOutput`;
* with ``check_preallocated_output`` (or
  ``config.DebugMode__check_preallocated_output``), each node runs again
  with its output storage preallocated in each kind named (``initial``,
  ``previous``, ``c_contiguous``, ``f_contiguous``, ``strided``,
  ``wrong_size``, or ``ALL``), and a result that changes raises
  `BadThunkOutput`;
* the compiler records every replacement the rewrites make, and each call
  computes both the replaced variable (from the graph as it was) and its
  replacement: values that differ raise `BadOptimization`, naming the
  rewrite. A side that cannot be computed (inside an ``ifelse`` branch not
  taken, say) is not compared.

``ifelse`` stays lazy: the branch not taken is not run, and the nodes that
run are checked.

``config.check_view_maps`` switches on the `BadViewMap` check alone in any
mode, without copies or a second run.
"""

from typing import Any, cast

import numpy as np

from oxtensor.compile.mode import Mode


class DebugModeError(Exception):
    """Base of DebugMode's findings. Keyword arguments become attributes
    (``node``, ``op``, ``idx``, ...) so handlers can read what was found."""

    def __init__(self, *args: Any, **fields: Any) -> None:
        super().__init__(*args)
        for name, value in fields.items():
            setattr(self, name, value)


class BadThunkOutput(DebugModeError):
    """A result differs from what it is checked against: the same graph's
    ``FAST_COMPILE`` result, or the node's own first result when it ran
    again with preallocated outputs (``thunk1`` computed the expected
    value, ``thunk2`` the other; ``r`` the variable or node)."""


class BadOptimization(DebugModeError):
    """A rewrite replaced a variable by one computing another value:
    ``reason`` is the rewrite, ``old_r`` and ``new_r`` the replaced variable
    and its replacement (printed), and the message says how they differ."""


class BadDestroyMap(DebugModeError):
    """An op changed an input its ``destroy_map`` does not declare."""


class BadViewMap(DebugModeError):
    """An output shares memory with an input, or another output, that the
    op's ``view_map``/``destroy_map`` do not declare."""


class StochasticOrder(DebugModeError):
    """PyTensor raises this when a graph's schedule differs between two
    compilations; oxtensor's schedule is deterministic, so never here."""


class InvalidValueError(DebugModeError):
    """An op produced a value that is not of its output's type."""


def _preallocated_kinds(given: Any) -> list[str]:
    """The kinds of preallocated output asked for: ``given`` (a list, or a
    ``:``-separated string), else the config's; the core checks the names."""
    if given is None:
        from oxtensor import config

        given = config.DebugMode__check_preallocated_output
    if isinstance(given, str):
        given = given.split(":")
    return [str(k).strip() for k in given if str(k).strip()]


def str_diagnostic(expected: Any, value: Any, rtol: Any, atol: Any) -> str:
    """A report of how ``value`` differs from ``expected``: their shapes and
    dtypes, the largest absolute and relative differences and where they
    are, and the tolerances."""
    lines = []
    for name, v in (("Expected", expected), ("Observed", value)):
        a = np.asarray(v)
        lines.append(f"  {name} value: dtype={a.dtype}, shape={a.shape}")
        if a.size:
            lines.append(f"    min={a.min()}, max={a.max()}, mean={np.mean(a)}")
    try:
        e = np.asarray(expected, dtype="float64")
        o = np.asarray(value, dtype="float64")
        diff = np.abs(e - o)
        if diff.size:
            at = (
                np.unravel_index(np.nanargmax(diff), diff.shape)
                if np.any(diff == diff)
                else ()
            )
            rel = diff / np.maximum(np.abs(e), np.finfo("float64").tiny)
            lines.append(f"  Max abs diff: {np.nanmax(diff)} (at {at})")
            lines.append(f"  Max rel diff: {np.nanmax(rel)}")
    except (TypeError, ValueError) as exc:
        lines.append(f"  (no elementwise difference: {exc})")
    lines.append(f"  rtol={rtol}, atol={atol}")
    return "\n".join(lines) + "\n"


class DebugMode(Mode):
    """``mode="DebugMode"``: the ``optimizer``'s rewrites, every node run
    under DebugMode's checks, every call compared with ``FAST_COMPILE``.

    ``check_preallocated_output`` lists the kinds of preallocated output
    each node runs again with (default: the config's
    ``DebugMode__check_preallocated_output``, ``:``-separated). PyTensor's
    other arguments (``check_c_code``, ``stability_patience``, ...) are
    accepted and ignored: there is one native implementation of each op to
    check, and the schedule is deterministic.
    """

    check_preallocated_output: list[str]

    def __new__(
        cls,
        optimizer: Any = "fast_run",
        stability_patience: Any = None,
        check_c_code: Any = None,
        check_py_code: Any = None,
        check_isfinite: Any = None,
        check_preallocated_output: Any = None,
        *args: Any,
        **kwargs: Any,
    ) -> "DebugMode":
        kinds = _preallocated_kinds(check_preallocated_output)
        checks = ":".join(["debug", *kinds])
        mode = cast("DebugMode", super().__new__(cls, "vm", optimizer, checks=checks))
        mode.check_preallocated_output = kinds
        return mode

    def __reduce__(self) -> Any:
        kinds = list(self.check_preallocated_output)
        return (type(self), (self.provided_optimizer, None, None, None, None, kinds))

    def __repr__(self) -> str:
        return f"DebugMode(optimizer={self.provided_optimizer})"


__all__ = [
    "BadDestroyMap",
    "BadOptimization",
    "BadThunkOutput",
    "BadViewMap",
    "DebugMode",
    "DebugModeError",
    "InvalidValueError",
    "StochasticOrder",
    "str_diagnostic",
]
