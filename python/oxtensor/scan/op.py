"""The `Scan` op: a loop whose body is an inner graph, run by ``perform``.

Inputs, in order: ``n_steps`` (an int64 scalar), the sequences (one per
sequence tap, iterated along their first axis), the initial states (the
recurrent outputs, tap ``-1``), the initial values of the summed outputs,
then the non-sequences (passed unchanged to every step). The inner graph
takes the sequences' entries, the states and the non-sequences, and gives
the next states, the per-step (non-recurrent) outputs, then the summed
outputs' terms.

Outputs: one trace per state, ``(n_steps + 1, *state_shape)`` with the
initial state in row 0 (the gradient reads the stored states from it;
`oxtensor.scan.scan` hands users ``trace[1:]``), one
``(n_steps, *out_shape)`` array per per-step output, and per summed
output its initial value plus the sum of its terms over the steps. Summed
outputs are how the gradient adds up a non-sequence's terms without
keeping one per step; `scan` itself does not make them.
"""

from typing import Any

import numpy as np

from oxtensor.graph.basic import Apply, Variable, equal_computations
from oxtensor.graph.op import HasInnerGraph, Op
from oxtensor.tensor.basic import as_tensor_variable
from oxtensor.tensor.type import TensorType


class Scan(Op, HasInnerGraph):
    """A loop over ``n_steps`` steps of an inner graph (see the module doc).

    The inner graph is compiled with `oxtensor.function` the first time the
    op runs, and reused for every later step and call.
    """

    def __init__(
        self,
        inner_inputs: list[Any],
        inner_outputs: list[Any],
        n_seqs: int,
        n_states: int,
        name: str | None = None,
        mode: Any = None,
        n_sums: int = 0,
    ) -> None:
        self._inner_inputs = list(inner_inputs)
        self._inner_outputs = list(inner_outputs)
        self.n_seqs = n_seqs
        self.n_states = n_states
        self.n_sums = n_sums
        self.n_nit = len(self._inner_outputs) - n_states - n_sums
        self.n_non_seqs = len(self._inner_inputs) - n_seqs - n_states
        self.name = name or "scan_fn"
        self.mode = mode
        self._fn: Any = None

    # --- HasInnerGraph -------------------------------------------------
    @property
    def inner_inputs(self) -> list[Any]:
        return self._inner_inputs

    @property
    def inner_outputs(self) -> list[Any]:
        return self._inner_outputs

    @property
    def fn(self) -> Any:
        """The inner graph compiled with `oxtensor.function` (once)."""
        if self._fn is None:
            from oxtensor.compile.function import function

            self._fn = function(
                self._inner_inputs,
                self._inner_outputs,
                mode=self.mode,
                on_unused_input="ignore",
            )
        return self._fn

    def clone(self) -> "Scan":
        from oxtensor.graph.replace import clone_replace

        inputs = [v.type() for v in self._inner_inputs]
        outputs = clone_replace(
            self._inner_outputs, dict(zip(self._inner_inputs, inputs, strict=True))
        )
        return Scan(
            inputs,
            outputs,
            self.n_seqs,
            self.n_states,
            self.name,
            self.mode,
            self.n_sums,
        )

    def __str__(self) -> str:
        return f"Scan{{{self.name}, while_loop=False, inplace=none}}"

    def _key(self) -> tuple[Any, ...]:
        return (self.n_seqs, self.n_states, self.n_sums, self.name, self.mode)

    # Two loops are equal when their inner graphs compute the same thing
    # (so the merge pass folds repeated scans into one node).
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scan) or type(self) is not type(other):
            return False
        if self._key() != other._key():
            return False
        if [v.type for v in self._inner_inputs] != [
            v.type for v in other._inner_inputs
        ]:
            return False
        return equal_computations(
            self._inner_outputs,
            other._inner_outputs,
            self._inner_inputs,
            other._inner_inputs,
        )

    def __hash__(self) -> int:
        return hash((type(self), *self._key()[:4], len(self._inner_outputs)))

    # --- graph ---------------------------------------------------------
    def _groups(self, values: list[Any]) -> tuple[list[Any], list[Any], list[Any]]:
        """Inner inputs (or values in their order) as sequences, states,
        non-sequences."""
        s, k = self.n_seqs, self.n_seqs + self.n_states
        return list(values[:s]), list(values[s:k]), list(values[k:])

    def outer_groups(self, values: list[Any]) -> tuple[list[Any], ...]:
        """The node's inputs after ``n_steps`` as sequences, initial states,
        initial sums, non-sequences."""
        k = self.n_seqs + self.n_states
        seqs, inits = list(values[: self.n_seqs]), list(values[self.n_seqs : k])
        sums, non_seqs = (
            list(values[k : k + self.n_sums]),
            list(values[k + self.n_sums :]),
        )
        return seqs, inits, sums, non_seqs

    def _expected_inputs(self) -> list[Any]:
        """What each outer input (after ``n_steps``) must match."""
        seqs, states, non_seqs = self._groups(self._inner_inputs)
        sums = self._inner_outputs[len(self._inner_outputs) - self.n_sums :]
        return seqs + states + sums + non_seqs

    def make_node(self, n_steps: Any, *outer: Any) -> Apply:
        n_steps = as_tensor_variable(n_steps)
        if n_steps.ndim != 0 or not n_steps.dtype.startswith(("int", "uint")):
            raise TypeError(
                f"{self}: n_steps must be an integer scalar, got {n_steps.type}"
            )
        inputs: list[Any] = [
            v if isinstance(v, Variable) else as_tensor_variable(v) for v in outer
        ]
        expected = self._expected_inputs()
        if len(inputs) != len(expected):
            raise ValueError(
                f"{self}: expected {len(expected)} inputs after n_steps "
                f"({self.n_seqs} sequences, {self.n_states} initial states, "
                f"{self.n_sums} initial sums, {self.n_non_seqs} non-sequences), "
                f"got {len(inputs)}"
            )
        for i, (out_v, in_v) in enumerate(zip(inputs, expected, strict=True)):
            self._check_outer(i, out_v, in_v)
        n_stacked = len(self._inner_outputs) - self.n_sums
        outputs = [_stacked(v.type) for v in self._inner_outputs[:n_stacked]]
        outputs += [v.type() for v in self.outer_groups(inputs)[2]]
        return Apply(self, [n_steps, *inputs], outputs)

    def _check_outer(self, i: int, outer: Any, inner: Any) -> None:
        """An outer input must have the inner input's dtype, with one more
        axis for a sequence; a non-tensor input (a generator, say), its type."""
        extra = 1 if i < self.n_seqs else 0
        if not isinstance(inner.type, TensorType) and not extra:
            if outer.type != inner.type:
                raise TypeError(
                    f"{self}: input {i} ({outer}) has type {outer.type}; the inner "
                    f"graph expects {inner.type}"
                )
            return
        if outer.dtype != inner.dtype or outer.ndim != inner.ndim + extra:
            what = "sequence" if extra else "input"
            raise TypeError(
                f"{self}: {what} {i} ({outer}) has type {outer.type}; the inner "
                f"graph expects {inner.type}" + (" per step" if extra else "")
            )

    def connection_pattern(self, node: Any) -> list[list[bool]]:
        # n_steps and integer inputs carry no gradient; every other input
        # may reach every output through the loop.
        n_out = len(node.outputs)
        return [[False] * n_out] + [
            [_differentiable(v)] * n_out for v in node.inputs[1:]
        ]

    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> list[Any]:
        from oxtensor.scan.inner_shape import inner_output_shapes
        from oxtensor.tensor.shape import shape_i

        n = node.inputs[0]
        seqs, inits, sums, non_seqs = self.outer_groups(list(shapes[1:]))
        inner = inner_output_shapes(
            self._inner_inputs,
            self._inner_outputs,
            [s[1:] for s in seqs] + inits + non_seqs,
        )
        traced = [(n + 1, *shape) for shape in inits]
        per_step = []
        for k in range(self.n_states, self.n_states + self.n_nit):
            out = node.outputs[k]
            # A length that depends on values inside the loop is only known
            # once the loop has run: it is read from the output itself, as
            # `Shape_i` (what the shape rewrites leave as it is; a `Shape`
            # would be expanded into this very answer again).
            dims = [
                d if d is not None else shape_i(out, i + 1)
                for i, d in enumerate(inner[k])
            ]
            per_step.append((n, *dims))
        return traced + per_step + [tuple(shape) for shape in sums]

    # --- run -----------------------------------------------------------
    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        n = int(inputs[0])
        seqs, inits, sums, non_seqs = self.outer_groups(list(inputs[1:]))
        self._check_lengths(n, seqs)
        traces = [_trace(n, init) for init in inits]
        totals = [np.array(init, dtype=init.dtype, copy=True) for init in sums]
        per_step: list[Any] = [None] * self.n_nit
        fn, first_sum = self.fn, self.n_states + self.n_nit
        for t in range(n):
            outs = fn(*[s[t] for s in seqs], *[tr[t] for tr in traces], *non_seqs)
            for k, trace in enumerate(traces):
                self._store(trace, t + 1, outs[k], f"state {k}", t)
            for j in range(self.n_nit):
                per_step[j] = self._step_output(node, per_step[j], n, t, j, outs)
            for j, total in enumerate(totals):
                self._add(total, outs[first_sum + j], first_sum + j, t)
        results = traces + [
            values
            if values is not None
            else _empty_steps(node.outputs[self.n_states + j])
            for j, values in enumerate(per_step)
        ]
        for k, value in enumerate(results + totals):
            output_storage[k][0] = value

    def _step_output(
        self, node: Any, buf: Any, n: int, t: int, j: int, outs: list[Any]
    ) -> np.ndarray:
        """Per-step output ``j``'s buffer with step ``t``'s value in it."""
        k = self.n_states + j
        value = np.asarray(outs[k])
        if buf is None:
            buf = np.empty((n, *value.shape), dtype=node.outputs[k].dtype)
        self._store(buf, t, value, f"output {k}", t)
        return buf

    def _add(self, total: np.ndarray, value: Any, k: int, step: int) -> None:
        value = np.asarray(value)
        if value.shape != total.shape:
            raise ValueError(
                f"{self}: output {k} (summed) has shape {value.shape} at step {step}, "
                f"but its initial value has shape {total.shape}"
            )
        total += value

    def _check_lengths(self, n: int, seqs: list[Any]) -> None:
        if n < 0:
            raise ValueError(f"{self}: n_steps must be non-negative, got {n}")
        for i, s in enumerate(seqs):
            if s.shape[0] < n:
                raise ValueError(
                    f"{self}: sequence {i} has {s.shape[0]} entries (shape "
                    f"{s.shape}) but the loop runs {n} steps"
                )

    def _store(
        self, buf: np.ndarray, row: int, value: Any, what: str, step: int
    ) -> None:
        value = np.asarray(value)
        if value.shape != buf.shape[1:]:
            raise ValueError(
                f"{self}: {what} has shape {value.shape} at step {step}, but "
                f"shape {buf.shape[1:]} before; a scan output keeps its shape "
                "across steps"
            )
        buf[row] = value

    # --- gradient ------------------------------------------------------
    def L_op(self, inputs: Any, outputs: Any, output_grads: Any) -> list[Any]:
        from oxtensor.scan.backprop import backprop_through_time

        return backprop_through_time(
            self, list(inputs), list(outputs), list(output_grads)
        )


def _stacked(t: Any) -> Any:
    """The type of ``t`` values stacked along a new leading axis."""
    return TensorType(t.dtype, shape=(None, *t.shape))()


def _differentiable(v: Any) -> bool:
    return str(getattr(v.type, "dtype", "")).startswith("float")


def _trace(n: int, init: Any) -> np.ndarray:
    init = np.asarray(init)
    trace = np.empty((n + 1, *init.shape), dtype=init.dtype)
    trace[0] = init
    return trace


def _empty_steps(out: Any) -> np.ndarray:
    """A zero-step per-step output: its shape is the static one where known
    (there is no step to take the rest from), with 0 elsewhere."""
    dims = [d if d is not None else 0 for d in out.type.shape[1:]]
    return np.empty((0, *dims), dtype=out.dtype)


__all__ = ["Scan"]
