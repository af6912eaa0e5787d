"""Registering rewrites into ``optdb``'s phases, as PyTensor's
``register_canonicalize`` and friends: decorators that work bare, with
tags, or called on a rewriter."""

from collections.abc import Callable
from typing import Any


def _register(phase: str, phase_tags: tuple[str, ...]) -> Callable[..., Any]:
    def register(rewriter: Any = None, *tags: str, **kwargs: Any) -> Any:
        from oxtensor.compile.mode import optdb

        if isinstance(rewriter, str):
            return lambda rw: register(rw, rewriter, *tags, **kwargs)
        if rewriter is None:
            return lambda rw: register(rw, *tags, **kwargs)
        name = kwargs.pop("name", None) or str(rewriter)
        optdb[phase].register(name, rewriter, *phase_tags, *tags, **kwargs)
        return rewriter

    register.__name__ = f"register_{phase}"
    register.__doc__ = (
        f"Registers a rewriter in the ``{phase}`` phase "
        f"(tags {', '.join(phase_tags)}, plus those given)."
    )
    return register


register_canonicalize = _register("canonicalize", ("fast_run", "fast_compile"))
register_stabilize = _register("stabilize", ("fast_run",))
register_specialize = _register("specialize", ("fast_run",))
register_uncanonicalize = _register("uncanonicalize", ("fast_run",))
register_useless = _register("useless", ("fast_run", "fast_compile"))

__all__ = [
    "register_canonicalize",
    "register_specialize",
    "register_stabilize",
    "register_uncanonicalize",
    "register_useless",
]

from oxtensor import _core  # noqa: E402

#: Folds a node whose inputs are all constants into constants of its
#: outputs' values, unless its op's ``do_constant_folding`` declines (the
#: core's rewriter; Python ops run their ``perform``).
constant_folding = _core.constant_folding_rewriter()

__all__ += ["constant_folding"]
