"""`function`: compile a graph into a callable."""

import warnings
from typing import Any

from oxtensor import _core
from oxtensor.compile.io import In
from oxtensor.compile.mode import get_mode
from oxtensor.compile.sharedvalue import SharedVariable
from oxtensor.compile.stateful import Slot, StatefulFunction
from oxtensor.configdefaults import config
from oxtensor.link.basic import Container

Function = _core.Function
UnusedInputError = _core.UnusedInputError


def _check_no_default_updates(value: Any) -> None:
    if not isinstance(value, bool | list):
        raise TypeError(
            "no_default_updates must be a bool or a list of shared variables, "
            f"got {type(value).__name__} {value!r}"
        )


def _split_inputs(
    inputs: Any, pairs: list[Any], givens: Any
) -> tuple[list[Any], Any, list[Slot] | None]:
    """The explicit inputs, the givens, and the slots of a function whose
    inputs carry state (None when none does). Each ``In(x, value=...)`` or
    ``In(x, update=e)`` becomes a shared variable over a container,
    substituted for ``x`` by ``givens`` and updated with ``e``."""
    explicit, slots = [], []
    stateful = False
    for item in inputs:
        # `In(shared)` is an explicit input too, refused by the compiler.
        plain = not isinstance(item, In) or isinstance(item.variable, SharedVariable)
        if plain or (item.value is None and item.update is None):
            explicit.append(item)
            slots.append(Slot(item))
            continue
        if item.implicit and item.value is None:
            raise TypeError(f"An implicit input must be given a default value: {item}")
        stateful = True
        slot = _slot_of(item)
        container_value = isinstance(item.value, Container)
        slots.append(
            Slot(
                item,
                slot,
                required=item.value is None,
                refeed=item.value is not None
                and not container_value
                and item.update is None,
                implicit=item.implicit,
            )
        )
    if not stateful:
        return explicit, givens, None
    givens = list(givens.items()) if isinstance(givens, dict) else list(givens or [])
    for item, slot in zip(inputs, slots, strict=True):
        if slot.shared is not None:
            givens.append((item.variable, slot.shared))
            if item.update is not None:
                pairs.append((slot.shared, item.update))
    return explicit, givens, slots


def _slot_of(item: In) -> SharedVariable:
    value = item.value
    if not isinstance(value, Container):
        stored = (
            None
            if value is None
            else item.variable.type.filter(value, allow_downcast=item.allow_downcast)
        )
        value = Container(
            item.variable,
            storage=[stored],
            strict=item.strict,
            allow_downcast=item.allow_downcast,
        )
    return SharedVariable(
        item.variable.type, None, container=value, name=item.variable.name
    )


def _substitute_givens(outputs: Any, pairs: list[Any], givens: Any) -> tuple:
    """``rebuild_strict=False``: the givens substituted in the outputs and
    the update expressions at once (`clone_replace` with
    ``rebuild_strict=False``), so a replacement of another type rebuilds
    the nodes above it for its type instead of being refused."""
    from oxtensor.compile.io import Out
    from oxtensor.graph.basic import Variable
    from oxtensor.graph.replace import clone_replace

    given = list(givens.items()) if isinstance(givens, dict) else list(givens or [])
    if not given or outputs is None:
        return outputs, pairs, givens
    single = not isinstance(outputs, list | tuple)
    outs = [outputs] if single else list(outputs)
    exprs = [o.variable if isinstance(o, Out) else o for o in outs]
    updated = [i for i, (_, e) in enumerate(pairs) if isinstance(e, Variable)]
    exprs += [pairs[i][1] for i in updated]
    new = clone_replace(exprs, given, rebuild_strict=False)
    new_outs = [
        Out(n, borrow=o.borrow) if isinstance(o, Out) else n
        for o, n in zip(outs, new, strict=False)
    ]
    for i, n in zip(updated, new[len(outs) :], strict=True):
        pairs[i] = (pairs[i][0], n)
    return (new_outs[0] if single else new_outs), pairs, None


def function(
    inputs: Any,
    outputs: Any = None,
    mode: Any = None,
    updates: Any = None,
    givens: Any = None,
    no_default_updates: Any = False,
    accept_inplace: bool = False,
    name: str | None = None,
    rebuild_strict: bool = True,
    allow_input_downcast: bool | None = None,
    profile: Any = None,
    on_unused_input: str | None = None,
    trust_input: bool = False,
) -> Any:
    """Compile ``outputs`` as a function of ``inputs``.

    Parameters
    ----------
    inputs
        Variables (or `In`) the function takes, in order.
    outputs
        A variable (the function returns one array), a list (it returns a
        list), or None. `Out(variable, borrow=True)` skips the copy that keeps
        outputs from aliasing inputs.
    updates
        ``[(shared_variable, new_value_expression), ...]`` applied after the
        outputs are computed.
    givens
        ``[(variable, replacement), ...]`` substituted in the graph.
    on_unused_input
        ``"raise"`` (default), ``"warn"`` or ``"ignore"`` for inputs the
        outputs do not need.
    trust_input
        Skip argument checks; arguments must then be ndarrays of the exact types.
    profile
        Record per-node counts and times in ``f.profile``.

    Examples
    --------
    >>> import numpy as np, oxtensor, oxtensor.tensor as ot
    >>> x = ot.dvector("x")
    >>> f = oxtensor.function([x], x * 2 + 1)
    >>> f(np.array([1.0, 2.0]))
    array([3., 5.])
    """
    if not isinstance(inputs, list | tuple):
        raise TypeError(
            "Input variables of an oxtensor function should be contained in a "
            "list, even when there is a single input."
        )
    pairs = list(updates.items()) if isinstance(updates, dict) else list(updates or [])
    _check_no_default_updates(no_default_updates)
    if not rebuild_strict:
        outputs, pairs, givens = _substitute_givens(outputs, pairs, givens)
    explicit, givens, slots = _split_inputs(inputs, pairs, givens)
    mode = get_mode(mode).with_rewrite_settings(
        config.on_opt_error, config.optdb__max_use_ratio
    )
    if config.check_view_maps:
        mode = mode.with_view_map_checks()
    if on_unused_input is None:
        on_unused_input = config.on_unused_input
    if profile is None and config.profile:
        profile = True
    if mode.linker_name == "jax":
        # First, so that its ImportError (what to install) comes at once.
        from oxtensor.link.jax import JAXFunction
    recipe = _core.function_recipe(
        explicit,
        outputs,
        mode=mode,
        updates=pairs,
        givens=givens,
        no_default_updates=no_default_updates,
        accept_inplace=accept_inplace,
        name=name,
        rebuild_strict=rebuild_strict,
        allow_input_downcast=allow_input_downcast,
        profile=None if mode.linker_name == "jax" else profile,
        on_unused_input=on_unused_input,
    )
    if mode.linker_name == "jax":
        # The graph rewritten for JAX by the core (no inplace, no fusion),
        # linked by `oxtensor.link.jax` into one ``jax.jit``-ed function.
        fn = JAXFunction(recipe, trust_input=trust_input)
    else:
        fn = recipe.compile(trust_input)
    return fn if slots is None else StatefulFunction(fn, slots)


def _eval(self: Any, inputs_to_values: Any = None, **kwargs: Any) -> Any:
    """Compile (once per inputs and keyword arguments) and run the graph of
    this variable.

    Keys of ``inputs_to_values`` are variables or their names; with
    ``on_unused_input="ignore"`` a name not in the graph is ignored too.
    """
    mapping = dict(inputs_to_values or {})
    lenient = kwargs.get("on_unused_input") == "ignore"
    pairs = [(_resolve(self, k, lenient), v) for k, v in mapping.items()]
    pairs = [(k, v) for k, v in pairs if k is not None]
    pairs.sort(key=lambda kv: id(kv[0]))
    keys = [k for k, _ in pairs]
    try:
        key = (tuple(id(k) for k in keys), tuple(sorted(kwargs.items())))
        hash(key)
    except TypeError:
        # PyTensor's message: a dict of givens cannot key the cache.
        warnings.warn(
            "Keyword arguments could not be used to create a cache key for the "
            "underlying variable; the function is compiled for this call only",
            UserWarning,
            stacklevel=2,
        )
        return function(keys, self, **kwargs)(*[v for _, v in pairs])
    cache = self.__dict__.setdefault("_fn_cache", {})
    if key not in cache:
        cache[key] = function(keys, self, **kwargs)
    return cache[key](*[v for _, v in pairs])


def _resolve(var: Any, key: Any, lenient: bool) -> Any:
    if not isinstance(key, str):
        return key
    found = [v for v in _core.ancestors([var]) if key in (v.name, v.auto_name)]
    if len(found) > 1:
        raise ValueError(f"Found multiple variables with name {key} in the graph")
    if not found:
        if lenient:
            return None
        raise ValueError(f"{key} not found in graph")
    return found[0]


def _dprint(self: Any, **kwargs: Any) -> Any:
    """``f.dprint(...)`` is ``debugprint(f, ...)``: the compiled program."""
    from oxtensor.printing import debugprint

    return debugprint(self, **kwargs)


_core.Variable.eval = _eval
Function.dprint = _dprint
_core._register("function", function)

__all__ = ["Function", "UnusedInputError", "function"]
