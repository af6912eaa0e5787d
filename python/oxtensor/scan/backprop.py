"""Backpropagation through time: the gradient of a `Scan` is a second
`Scan` that walks the stored states backwards.

With states ``h[t+1] = f(x[t], h[t], w)``, per-step outputs
``y[t] = g(x[t], h[t], w)`` and summed outputs ``s = s0 + Σ u(x[t], h[t], w)``,
the adjoint ``a[t]`` of ``h[t]`` obeys ``a[n] = gH[n]`` and
``a[t] = gH[t] + (∂f/∂h)ᵀ a[t+1] + (∂g/∂h)ᵀ gY[t] + (∂u/∂h)ᵀ gS``; each
backward step also gives the sequence's gradient row ``gX[t]`` and a term
of the non-sequences' gradient, which the backward loop sums (a summed
output: one value, not one per step). The backward inner graph is the
forward one replayed on the stored ``x[t]``, ``h[t]``, differentiated with
`oxtensor.grad` against ``aᵀ f + gYᵀ g + gSᵀ u``.
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


def _floats(vs: list[Any]) -> list[int]:
    return [i for i, v in enumerate(vs) if _float(v)]


class _Backward:
    """The backward loop's inner graph, built from the forward op's."""

    def __init__(self, op: Any) -> None:
        seqs, states, non_seqs = op._groups(op.inner_inputs)
        outs = op.inner_outputs
        first_sum = op.n_states + op.n_nit
        per_step, summed = outs[op.n_states : first_sum], outs[first_sum:]
        self.d_seqs, self.d_states = _floats(seqs), _floats(states)
        self.d_non_seqs, self.d_steps = _floats(non_seqs), _floats(per_step)
        self.d_sums = _floats(summed)
        # The forward step's inputs again (the loop's sequences and
        # non-sequences), then the cotangents of its outputs.
        self.x = [v.type() for v in seqs]
        self.h = [v.type() for v in states]
        self.w = [v.type() for v in non_seqs]
        self.gh = [states[k].type() for k in self.d_states]
        self.gy = [per_step[j].type() for j in self.d_steps]
        self.gs = [summed[j].type() for j in self.d_sums]
        self.a = [states[k].type() for k in self.d_states]
        replay = clone_replace(
            outs, dict(zip(op.inner_inputs, self.x + self.h + self.w, strict=True))
        )
        cot = list(zip(self.a, [replay[k] for k in self.d_states], strict=True))
        cot += zip(
            self.gy, [replay[op.n_states + j] for j in self.d_steps], strict=True
        )
        cot += zip(self.gs, [replay[first_sum + j] for j in self.d_sums], strict=True)
        self.outputs = self._pullback(cot, states)

    def _pullback(self, cot: list[tuple[Any, Any]], states: list[Any]) -> list[Any]:
        """Next adjoints, sequence rows, non-sequence terms: the replayed
        step's outputs pulled back along their cotangents."""
        wrt = (
            [self.x[i] for i in self.d_seqs]
            + [self.h[k] for k in self.d_states]
            + [self.w[j] for j in self.d_non_seqs]
        )
        if cot and wrt:
            cost = sum(
                ((c * out).sum() for c, out in cot[1:]), (cot[0][0] * cot[0][1]).sum()
            )
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
        return new_a + gx + gw

    @property
    def inputs(self) -> list[Any]:
        return self.x + self.h + self.gh + self.gy + self.a + self.w + self.gs

    @property
    def n_seqs(self) -> int:
        return len(self.x) + len(self.h) + len(self.gh) + len(self.gy)


def backprop_through_time(
    op: Any, inputs: list[Any], outputs: list[Any], output_grads: list[Any]
) -> list[Any]:
    """The gradients of ``op``'s inputs (`Scan.L_op`)."""
    from oxtensor.scan.op import Scan

    n = inputs[0]
    seqs, _, _, non_seqs = op.outer_groups(inputs[1:])
    grads = [_or_zeros(g, o) for g, o in zip(output_grads, outputs, strict=True)]
    first_sum = op.n_states + op.n_nit
    g_traces, g_steps = grads[: op.n_states], grads[op.n_states : first_sum]
    g_sums = grads[first_sum:]
    bw = _Backward(op)

    def backwards(v: Any) -> Any:
        return v[:n][::-1]

    outer_seqs = (
        [backwards(s) for s in seqs]
        + [backwards(tr) for tr in outputs[: op.n_states]]
        + [backwards(g_traces[k]) for k in bw.d_states]
        + [g_steps[j][::-1] for j in bw.d_steps]
    )
    outer_inits = [g_traces[k][-1] for k in bw.d_states]
    outer_sums = [zeros_like(non_seqs[j]) for j in bw.d_non_seqs]
    outer_non_seqs = non_seqs + [g_sums[j] for j in bw.d_sums]
    loop = Scan(
        bw.inputs,
        bw.outputs,
        bw.n_seqs,
        len(bw.a),
        f"grad_of_{op.name}",
        n_sums=len(outer_sums),
    )
    results: list[Any] = loop.make_node(
        n, *outer_seqs, *outer_inits, *outer_sums, *outer_non_seqs
    ).outputs
    n_a, n_x = len(bw.a), len(bw.d_seqs)
    result: list[Any] = [disconnected_type() for _ in inputs]
    for i, dx in zip(bw.d_seqs, results[n_a : n_a + n_x], strict=True):
        result[1 + i] = set_subtensor(zeros_like(seqs[i])[:n], dx[::-1])
    for k, trace in zip(bw.d_states, results[:n_a], strict=True):
        result[1 + op.n_seqs + k] = trace[-1]
    first_sum_input = 1 + op.n_seqs + op.n_states
    for j in bw.d_sums:
        # A summed output's initial value is added once: same gradient.
        result[first_sum_input + j] = g_sums[j]
    first_non_seq = first_sum_input + op.n_sums
    for j, total in zip(bw.d_non_seqs, results[n_a + n_x :], strict=True):
        result[first_non_seq + j] = total
    return result


__all__ = ["backprop_through_time"]
