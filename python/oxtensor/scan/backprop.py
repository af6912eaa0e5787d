"""Backpropagation through time: the gradient of a `Scan` is a second
`Scan` that walks the stored states backwards.

With states ``h[t+1] = f(x[t], h[t], w)`` and per-step outputs
``y[t] = g(x[t], h[t], w)``, the adjoint ``a[t]`` of ``h[t]`` obeys
``a[n] = gH[n]`` and ``a[t] = gH[t] + (∂f/∂h)ᵀ a[t+1] + (∂g/∂h)ᵀ gY[t]``;
each backward step also gives the sequence's gradient row ``gX[t]`` and a
term added to the non-sequences' gradient. The backward inner graph is the
forward one replayed on the stored ``x[t]``, ``h[t]``, differentiated with
`oxtensor.grad` against ``aᵀ f + gYᵀ g``.
"""

from typing import Any

from oxtensor.gradient import DisconnectedType, disconnected_type, grad
from oxtensor.graph.replace import clone_replace
from oxtensor.tensor.conversions import cast
from oxtensor.tensor.math import zeros_like
from oxtensor.tensor.subtensor import set_subtensor


def _float(v: Any) -> bool:
    return str(getattr(v.type, "dtype", "")).startswith("float")


def _or_zeros(g: Any, out: Any) -> Any:
    """An output's gradient, zeros where the cost does not reach it."""
    return zeros_like(out) if isinstance(g.type, DisconnectedType) else g


class _Backward:
    """The backward loop's inner graph, built from the forward op's."""

    def __init__(self, op: Any) -> None:
        seqs, states, non_seqs = op._groups(op.inner_inputs)
        outs = op.inner_outputs
        self.d_seqs = [i for i, v in enumerate(seqs) if _float(v)]
        self.d_states = [k for k, v in enumerate(states) if _float(v)]
        self.d_non_seqs = [j for j, v in enumerate(non_seqs) if _float(v)]
        per_step = outs[op.n_states :]
        self.d_steps = [j for j, v in enumerate(per_step) if _float(v)]
        # The forward step's inputs again (the loop's sequences and
        # non-sequences), then the output gradients and the carried sums.
        self.x = [v.type() for v in seqs]
        self.h = [v.type() for v in states]
        self.w = [v.type() for v in non_seqs]
        self.gh = [states[k].type() for k in self.d_states]
        self.gy = [per_step[j].type() for j in self.d_steps]
        self.a = [states[k].type() for k in self.d_states]
        self.acc = [non_seqs[j].type() for j in self.d_non_seqs]
        replay = clone_replace(
            outs, dict(zip(op.inner_inputs, self.x + self.h + self.w, strict=True))
        )
        self.outputs = self._pullback(op, replay, states, non_seqs)

    def _pullback(self, op: Any, replay: list, states: list, non_seqs: list) -> list:
        terms = [
            (a * replay[k]).sum() for a, k in zip(self.a, self.d_states, strict=True)
        ]
        terms += [
            (gy * replay[op.n_states + j]).sum()
            for gy, j in zip(self.gy, self.d_steps, strict=True)
        ]
        wrt = (
            [self.x[i] for i in self.d_seqs]
            + [self.h[k] for k in self.d_states]
            + [self.w[j] for j in self.d_non_seqs]
        )
        if terms and wrt:
            cost = terms[0]
            for t in terms[1:]:
                cost = cost + t
            grads = grad(
                cost, wrt, disconnected_inputs="ignore", return_disconnected="zero"
            )
        else:
            grads = [zeros_like(v) for v in wrt]
        n_x, n_h = len(self.d_seqs), len(self.d_states)
        gx, gh, gw = grads[:n_x], grads[n_x : n_x + n_h], grads[n_x + n_h :]
        new_a = [
            cast(g_out + g, states[k].dtype)
            for g_out, g, k in zip(self.gh, gh, self.d_states, strict=True)
        ]
        new_acc = [
            cast(acc + g, non_seqs[j].dtype)
            for acc, g, j in zip(self.acc, gw, self.d_non_seqs, strict=True)
        ]
        return new_a + new_acc + gx

    @property
    def inputs(self) -> list[Any]:
        return self.x + self.h + self.gh + self.gy + self.a + self.acc + self.w

    @property
    def n_seqs(self) -> int:
        return len(self.x) + len(self.h) + len(self.gh) + len(self.gy)

    @property
    def n_states(self) -> int:
        return len(self.a) + len(self.acc)


def backprop_through_time(
    op: Any, inputs: list[Any], outputs: list[Any], output_grads: list[Any]
) -> list[Any]:
    """The gradients of ``op``'s inputs (`Scan.L_op`)."""
    from oxtensor.scan.op import Scan

    n = inputs[0]
    seqs, _, non_seqs = op._groups(inputs[1:])
    grads = [_or_zeros(g, o) for g, o in zip(output_grads, outputs, strict=True)]
    g_traces, g_steps = grads[: op.n_states], grads[op.n_states :]
    bw = _Backward(op)

    def backwards(v: Any) -> Any:
        return v[:n][::-1]

    outer_seqs = (
        [backwards(s) for s in seqs]
        + [backwards(tr) for tr in outputs[: op.n_states]]
        + [backwards(g_traces[k]) for k in bw.d_states]
        + [g_steps[j][::-1] for j in bw.d_steps]
    )
    outer_inits = [g_traces[k][-1] for k in bw.d_states] + [
        zeros_like(non_seqs[j]) for j in bw.d_non_seqs
    ]
    loop = Scan(bw.inputs, bw.outputs, bw.n_seqs, bw.n_states, f"grad_of_{op.name}")
    results: list[Any] = loop.make_node(n, *outer_seqs, *outer_inits, *non_seqs).outputs
    n_a = len(bw.d_states)
    result: list[Any] = [disconnected_type() for _ in inputs]
    for i, dx in zip(bw.d_seqs, results[bw.n_states :], strict=True):
        result[1 + i] = set_subtensor(zeros_like(seqs[i])[:n], dx[::-1])
    for k, trace in zip(bw.d_states, results[:n_a], strict=True):
        result[1 + op.n_seqs + k] = trace[-1]
    for j, trace in zip(bw.d_non_seqs, results[n_a : bw.n_states], strict=True):
        result[1 + op.n_seqs + op.n_states + j] = trace[-1]
    return result


__all__ = ["backprop_through_time"]
