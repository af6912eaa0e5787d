"""`JAXFunction`: what ``oxtensor.function(..., mode="JAX")`` returns. It
holds the rewritten graph and one ``jax.jit``-ed function of the explicit
inputs and the shared variables' values, returning the outputs and the
updated values; a call passes the shared values in and writes the updates
back, as the native `Function` does. Outputs are ``jax.Array``s (they keep
their device and sharding; ``np.asarray`` copies one to the host)."""

from types import SimpleNamespace
from typing import Any

import jax

from oxtensor.link.jax.linker import fgraph_to_jax


class JAXFunction:
    """A compiled graph run by JAX; see the module docs."""

    def __init__(self, recipe: Any, trust_input: bool = False) -> None:
        self.recipe = recipe
        self.trust_input = trust_input
        self.name = recipe.name
        self._inputs = [tuple(entry) for entry in recipe.inputs]
        self._shared = list(recipe.shared)
        self._updates = list(recipe.updates)
        self._n_outputs = recipe.n_outputs
        self._single = recipe.single
        fgraph = recipe.fgraph
        self.maker = SimpleNamespace(
            fgraph=fgraph,
            inputs=[e[0] for e in self._inputs],
            linker="jax",
            mode=recipe.mode,
        )
        #: The pure function of the graph's inputs (explicit, then shared).
        self.jax_fn = fgraph_to_jax(fgraph)
        self._jitted = jax.jit(self.jax_fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        values = self._bind(args, kwargs)
        shared = [s.container.value for s in self._shared]
        outs = self._jitted(*values, *shared)
        for k, s_index in enumerate(self._updates):
            self._shared[s_index].set_value(outs[self._n_outputs + k], borrow=True)
        outs = outs[: self._n_outputs]
        return outs[0] if self._single else list(outs)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """The explicit inputs' values, by position then by name, each
        checked by its type unless it is already a JAX array (which keeps
        its placement) or ``trust_input`` is set."""
        n = len(self._inputs)
        if len(args) > n:
            raise TypeError(f"Tried to provide too many arguments: {len(args)} of {n}")
        values: list[Any] = list(args) + [None] * (n - len(args))
        given = [True] * len(args) + [False] * (n - len(args))
        names = [e[1] for e in self._inputs]
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"Unknown input or state: {key}")
            values[names.index(key)], given[names.index(key)] = value, True
        for i, ok in enumerate(given):
            if not ok:
                raise TypeError(f"Missing required input: {self._inputs[i][0]}")
        if self.trust_input:
            return values
        return [self._filter(i, v) for i, v in enumerate(values)]

    def _filter(self, i: int, value: Any) -> Any:
        var, _, strict, allow_downcast, *_ = self._inputs[i]
        ty = var.type
        if isinstance(value, jax.Array):
            if str(value.dtype) != ty.dtype or value.ndim != ty.ndim:
                raise TypeError(
                    f"Bad input argument at index {i} ({var}): a JAX array of dtype "
                    f"{value.dtype} and rank {value.ndim}, expected {ty}"
                )
            return value
        try:
            return ty.filter(value, strict=strict, allow_downcast=allow_downcast)
        except Exception as exc:
            exc.add_note(f"Bad input argument at index {i} ({var})")
            raise

    def __repr__(self) -> str:
        return f"JAXFunction(name={self.name!r})"
