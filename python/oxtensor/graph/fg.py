"""`FunctionGraph` (implemented in the Rust extension), the `Output` op
PyTensor names an fgraph's output slots by, and `FrozenFunctionGraph`: an
immutable, hashable graph whose nodes are shared between all frozen
graphs built the same way (so equal graphs have the very same outputs)."""

import weakref
from typing import Any

from oxtensor import _core
from oxtensor.graph.basic import Apply, Constant, Variable
from oxtensor.graph.frozen_apply import FrozenApply
from oxtensor.graph.nominal import NominalVariable
from oxtensor.graph.op import Op

FunctionGraph = _core.FunctionGraph


class Output(Op):
    """``Output(idx)``: marks a variable as output ``idx`` of a graph; its
    node has the variable as only input and no outputs."""

    __props__ = ("idx",)

    def __init__(self, idx: int) -> None:
        self.idx = idx

    def make_node(self, var: Any) -> Any:
        if not isinstance(var, Variable):
            raise TypeError(f"Output takes a variable, got {var!r}")
        return Apply(self, [var], [])

    def __str__(self) -> str:
        return f"Output{{{self.idx}}}"


#: Every frozen constant, by ``(class, signature)``.
_CONSTANTS: "weakref.WeakValueDictionary[Any, Any]" = weakref.WeakValueDictionary()


def _constant_key(c: Any) -> Any:
    sig = c.signature()
    try:
        hash(sig)
    except TypeError:
        # Unhashable data (an ndarray): its type and bytes identify it.
        data = c.data
        sig = (c.type, getattr(data, "dtype", None), data.tobytes())
    return (type(c), sig)


def _frozen_constant(c: Any) -> Any:
    key = _constant_key(c)
    found = _CONSTANTS.get(key)
    if found is None:
        _CONSTANTS[key] = found = c
    return found


def _frozen_node(node: Any, inputs: list[Any]) -> Any:
    frozen = FrozenApply(node.op, inputs, [o.type for o in node.outputs])
    for new, old in zip(frozen.outputs, node.outputs, strict=True):
        if new.name is None:
            new.name = old.name
    return frozen


def _freeze_graph(inputs: Any, outputs: Any) -> tuple[list[Any], list[Any]]:
    """The nominal inputs and the shared outputs of ``outputs`` computed
    from ``inputs``."""
    inputs = list(inputs)
    outputs = list(outputs)
    memo: dict[Any, Any] = {
        inp: NominalVariable(i, inp.type) for i, inp in enumerate(inputs)
    }
    for out in outputs:
        if out not in memo and out.owner is None and not isinstance(out, Constant):
            raise ValueError(
                f"Output {out} could not be mapped: it is neither an input, "
                "a constant nor computed from the inputs"
            )
    for node in _core.io_toposort(inputs, outputs):
        new_inputs = []
        for inp in node.inputs:
            if inp not in memo:
                if not isinstance(inp, Constant):
                    raise ValueError(
                        f"Orphan variable {inp} of {node}: a frozen graph's "
                        "free variables must be among its inputs"
                    )
                memo[inp] = _frozen_constant(inp)
            new_inputs.append(memo[inp])
        frozen = _frozen_node(node, new_inputs)
        memo.update(zip(node.outputs, frozen.outputs, strict=True))
    frozen_outputs = []
    for out in outputs:
        if out not in memo:
            memo[out] = _frozen_constant(out)
        frozen_outputs.append(memo[out])
    return [memo[i] for i in inputs], frozen_outputs


class FrozenFunctionGraph:
    """``FrozenFunctionGraph(inputs, outputs)``: the graph of ``outputs``
    over ``inputs`` renumbered as `NominalVariable` s, read-only.

    Two frozen graphs built the same way (equal ops and constants, same
    input types) share their nodes, so they compare and hash equal;
    ``unfreeze()`` gives an editable `FunctionGraph` copy and ``bind``
    the outputs computed from other inputs."""

    def __init__(self, inputs: Any, outputs: Any) -> None:
        ins, outs = _freeze_graph(inputs, outputs)
        self._fgraph = FunctionGraph(ins, outs, clone=False)
        self.inputs = tuple(ins)
        self.outputs = tuple(outs)
        self._output_nodes = tuple(
            Output(i).make_node(o) for i, o in enumerate(self.outputs)
        )
        self._key = (
            tuple(i.type for i in self.inputs),
            tuple(id(o) for o in self.outputs),
        )

    @property
    def apply_nodes(self) -> set[Any]:
        return set(self._fgraph.apply_nodes)

    @property
    def variables(self) -> set[Any]:
        return set(self._fgraph.variables)

    @property
    def clients(self) -> dict[Any, list[Any]]:
        """Each variable's readers; an output's include its `Output` node."""
        clients: dict[Any, list[Any]] = {}
        for var, readers in self._fgraph.clients.items():
            clients[var] = [c for c in readers if not isinstance(c[0], str)]
        for node in self._output_nodes:
            clients.setdefault(node.inputs[0], []).append((node, 0))
        return clients

    def toposort(self) -> list[Any]:
        return list(self._fgraph.toposort())

    def unfreeze(self) -> Any:
        """An editable `FunctionGraph` copy."""
        return FunctionGraph(list(self.inputs), list(self.outputs), clone=True)

    def bind(self, inputs: Any) -> list[Any]:
        """The outputs computed from ``inputs`` instead of the nominal inputs."""
        inputs = list(inputs)
        if len(inputs) != len(self.inputs):
            raise ValueError(
                f"bind expects {len(self.inputs)} inputs, got {len(inputs)}"
            )
        replace = dict(zip(self.inputs, inputs, strict=True))
        return list(_core.clone_replace(list(self.outputs), replace=replace))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, FrozenFunctionGraph) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __reduce__(self) -> Any:
        return (FrozenFunctionGraph, (list(self.inputs), list(self.outputs)))

    def __repr__(self) -> str:
        return f"FrozenFunctionGraph({list(self.inputs)}, {list(self.outputs)})"


_core._register("FrozenFunctionGraph", FrozenFunctionGraph)

__all__ = ["FrozenFunctionGraph", "FunctionGraph", "Output"]
