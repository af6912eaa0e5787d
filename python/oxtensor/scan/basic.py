"""`scan`: PyTensor's looping function, for its common subset.

``fn`` is called once, on symbolic step variables, and the graph it returns
becomes the inner graph of one `Scan` node. Supported: sequences (taps
``[0]``, or a dict ``{"input": x, "taps": [...]}`` with integer taps),
recurrent outputs with taps ``[-1]`` (their initial values in
``outputs_info``), per-step outputs (``None`` in ``outputs_info``),
``non_sequences`` (and variables ``fn`` uses without passing them),
``n_steps`` and ``go_backwards``. Everything else raises
`ScanNotSupportedError`.
"""

import warnings
from typing import Any

import numpy as np

from oxtensor.graph.basic import Constant, Variable
from oxtensor.graph.replace import clone_replace
from oxtensor.graph.traversal import graph_inputs
from oxtensor.scan.op import Scan
from oxtensor.scan.utils import ScanNotSupportedError, until
from oxtensor.tensor.basic import as_tensor_variable
from oxtensor.tensor.conversions import cast
from oxtensor.tensor.math import minimum
from oxtensor.tensor.type import TensorType


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    return list(x) if isinstance(x, list | tuple) else [x]


def _sequence_spec(spec: Any) -> tuple[Any, list[int]]:
    """A ``sequences`` entry as (tensor, taps)."""
    if isinstance(spec, dict):
        if spec.get("input") is None:
            raise ValueError(f"scan: the sequence {spec} has no 'input' entry")
        seq, taps = spec["input"], _as_list(spec.get("taps", [0]))
    else:
        seq, taps = spec, [0]
    seq = as_tensor_variable(seq)
    if seq.ndim == 0:
        raise ValueError(
            f"scan: sequence {seq} is a scalar; a sequence needs an axis to iterate"
        )
    if not taps or not all(isinstance(t, int | np.integer) for t in taps):
        raise TypeError(
            f"scan: the taps of sequence {seq} must be integers, got {taps}"
        )
    return seq, [int(t) for t in taps]


def _sequences(sequences: Any, go_backwards: bool) -> tuple[list[Any], list[Any]]:
    """The op's sequence inputs (one per tap) and ``fn``'s step variables."""
    outer, steps = [], []
    for spec in _as_list(sequences):
        seq, taps = _sequence_spec(spec)
        name = seq.name
        if go_backwards:
            seq = seq[::-1]
        # Step t reads seq[t - low + tap]: tap 0 is always inside the window,
        # so the loop has len(seq) - (high - low) steps.
        low, high = min(*taps, 0), max(*taps, 0)
        step_type = TensorType(seq.dtype, shape=seq.type.shape[1:])
        for tap in taps:
            start, stop = tap - low, (tap - high) or None
            outer.append(seq if (start, stop) == (0, None) else seq[start:stop])
            label = f"{name}[t{tap:+d}]" if tap else f"{name}[t]"
            steps.append(step_type(label if name else None))
    return outer, steps


def _n_steps(n_steps: Any, seqs: list[Any]) -> Any:
    """The number of steps: ``n_steps``, or the shortest sequence's length."""
    if n_steps is not None:
        if isinstance(n_steps, int) and n_steps < 0:
            raise ScanNotSupportedError(
                f"a negative n_steps ({n_steps}); use go_backwards=True"
            )
        n = as_tensor_variable(n_steps)
        if n.ndim != 0 or not n.dtype.startswith(("int", "uint")):
            raise TypeError(f"scan: n_steps must be an integer scalar, got {n.type}")
        return cast(n, "int64")
    if not seqs:
        raise ValueError(
            "scan: no information about the number of steps: provide n_steps "
            "or at least one sequence"
        )
    n = seqs[0].shape[0]
    for s in seqs[1:]:
        n = minimum(n, s.shape[0])
    return cast(n, "int64")


def _initial(entry: Any) -> Any:
    """An ``outputs_info`` entry's initial value (``None`` for a per-step output)."""
    if entry is None:
        return None
    if isinstance(entry, dict):
        if entry.get("initial") is None:
            return None
        taps = _as_list(entry.get("taps", [-1]))
        if taps != [-1]:
            raise ScanNotSupportedError(
                f"a recurrent output with taps {taps} (only [-1] is)"
            )
        entry = entry["initial"]
    if isinstance(entry, Variable) and not isinstance(entry.type, TensorType):
        raise ScanNotSupportedError(
            f"an untraced outputs_info entry ({entry} of type {entry.type})"
        )
    if not isinstance(entry, Variable):
        # NumPy's dtype for a plain number (np.float64(0) stays float64):
        # the recurrent output must match it exactly.
        entry = np.asarray(entry)
    return as_tensor_variable(entry)


def _step_outputs(raw: Any) -> list[Any]:
    """What ``fn`` returned, as a list of variables; updates and ``until``
    conditions are refused."""
    items = list(raw) if isinstance(raw, list | tuple) else [raw]
    if any(isinstance(i, until) for i in items):
        raise ScanNotSupportedError("a while loop (fn returned an `until` condition)")
    if any(isinstance(i, dict) and i for i in items):
        raise ScanNotSupportedError(
            "updating shared variables inside the loop (fn returned updates)"
        )
    items = [i for i in items if not isinstance(i, dict)]
    if len(items) == 1 and isinstance(items[0], list | tuple):
        items = list(items[0])  # the (outputs, updates) form
    # A plain number keeps NumPy's dtype, as an initial value does.
    return [
        as_tensor_variable(i if isinstance(i, Variable) else np.asarray(i))
        for i in items
    ]


def _check_states(outs: list[Any], inits: list[Any]) -> None:
    for idx, (out, init) in enumerate(zip(outs, inits, strict=True)):
        if init is None:
            continue
        if out.dtype != init.dtype or out.ndim != init.ndim:
            raise TypeError(
                f"scan: output {idx} of fn has type {out.type}, but its initial "
                f"value in outputs_info has type {init.type}; a recurrent output "
                "must keep the type of its initial value (cast one of them)"
            )


def _close_over(
    args: list[Any], outs: list[Any], strict: bool
) -> tuple[list, list, list]:
    """The inner graph, its inputs and the outer variables ``fn`` used
    without receiving them (they become extra non-sequences)."""
    known = set(args)
    free = [
        v for v in graph_inputs(outs) if v not in known and not isinstance(v, Constant)
    ]
    if free and strict:
        raise ValueError(
            f"scan(strict=True): fn uses {free}, which are not in non_sequences"
        )
    for v in free:
        if getattr(v, "default_update", None) is not None:
            raise ScanNotSupportedError(
                f"using {v} (a shared variable with a default update, such as a random "
                "stream's generator) inside the loop"
            )
    copies = [v.type() for v in free]
    inner = clone_replace(outs, dict(zip(free, copies, strict=True)))
    return args + copies, list(inner), free


def scan(
    fn: Any,
    sequences: Any = None,
    outputs_info: Any = None,
    non_sequences: Any = None,
    n_steps: Any = None,
    truncate_gradient: int = -1,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    profile: Any = False,
    allow_gc: Any = None,
    strict: bool = False,
    return_list: bool = False,
    return_updates: bool = True,
) -> Any:
    """Loop ``fn`` over ``sequences``: at step ``t`` it receives each
    sequence's entries (``seq[t + tap]``), then the previous value of each
    recurrent output, then the ``non_sequences`` themselves (the inner graph
    reads copies of them); it returns the outputs in ``outputs_info`` order.
    Returns the stacked outputs (one variable, or a list when there are
    several or ``return_list``); as in PyTensor 3.0, ``return_updates=True``
    (the default, with a `DeprecationWarning`) returns ``(outputs,
    updates)``, the updates empty (``fn`` may return none).
    ``profile`` and ``allow_gc`` are accepted and ignored."""
    del profile, allow_gc
    if truncate_gradient != -1:
        raise ScanNotSupportedError(f"truncate_gradient={truncate_gradient}")
    seqs, seq_args = _sequences(sequences, go_backwards)
    n = _n_steps(n_steps, seqs)
    infos = (
        None if outputs_info is None else [_initial(e) for e in _as_list(outputs_info)]
    )
    inits = [i for i in infos or [] if i is not None]
    state_args = [init.type() for init in inits]
    non_seqs = [
        as_tensor_variable(v) if not isinstance(v, Variable) else v
        for v in _as_list(non_sequences)
    ]
    # fn receives the non-sequences themselves, as in PyTensor, so it may
    # differentiate through them (`grad(y[i], x)` for non-sequences y of
    # x); the inner graph then reads a copy of each instead.
    outs = _step_outputs(fn(*seq_args, *state_args, *non_seqs))
    ns_args = [v.type() for v in non_seqs]
    if non_seqs:
        outs = list(clone_replace(outs, dict(zip(non_seqs, ns_args, strict=True))))
    infos = [None] * len(outs) if infos is None else infos
    if len(outs) != len(infos):
        raise ValueError(
            f"scan: fn returned {len(outs)} outputs but outputs_info has "
            f"{len(infos)} entries; give None in outputs_info for each output "
            "that does not feed back into fn"
        )
    _check_states(outs, infos)
    ordered = [o for o, i in zip(outs, infos, strict=True) if i is not None]
    ordered += [o for o, i in zip(outs, infos, strict=True) if i is None]
    inner_in, inner_out, free = _close_over(
        seq_args + state_args + ns_args, ordered, strict
    )
    op = Scan(inner_in, inner_out, len(seq_args), len(state_args), name, mode)
    node_outs: list[Any] = op.make_node(n, *seqs, *inits, *non_seqs, *free).outputs
    traces, per_step = iter(node_outs[: len(inits)]), iter(node_outs[len(inits) :])
    results = [next(traces)[1:] if i is not None else next(per_step) for i in infos]
    out = results[0] if len(results) == 1 and not return_list else results
    return with_updates(out, return_updates)


def with_updates(out: Any, return_updates: bool) -> Any:
    """``(out, {})`` with PyTensor 3.0's warning, or ``out``."""
    if not return_updates:
        return out
    warnings.warn(
        "Scan return signature will change. Updates dict will not be returned, "
        "only the first argument. Pass `return_updates=False` to conform to the "
        "new API and avoid this warning",
        DeprecationWarning,
        stacklevel=3,
    )
    return out, {}


__all__ = ["scan"]
