"""Rewrite databases, as PyTensor's ``pytensor.graph.rewriting.db``: named
rewriters with tags and positions, queried by tag. The databases and their
queries live in the Rust core; these classes are views of them."""

from typing import Any

from oxtensor import _core

RewriteDatabase = _core.RewriteDatabase
RewriteDatabaseQuery = _core.RewriteDatabaseQuery


class SequenceDB(RewriteDatabase):
    """Rewriters run one after another, in ``(position, name)`` order."""

    def __new__(cls, *args: Any, **kwargs: Any) -> "SequenceDB":
        return super().__new__(cls, "sequence")


class EquilibriumDB(RewriteDatabase):
    """Rewriters applied until none applies (one equilibrium); graph
    rewriters may be registered as ``final_rewriter`` or ``cleanup``."""

    def __new__(
        cls, ignore_newtrees: bool = True, tracks_on_change_inputs: bool = False
    ) -> "EquilibriumDB":
        return super().__new__(cls, "equilibrium")


class TopoDB(RewriteDatabase):
    """Node rewriters applied in one walk (``in_to_out`` or ``out_to_in``)."""

    def __new__(cls, order: str = "in_to_out", **kwargs: Any) -> "TopoDB":
        return super().__new__(cls, order)


__all__ = [
    "EquilibriumDB",
    "RewriteDatabase",
    "RewriteDatabaseQuery",
    "SequenceDB",
    "TopoDB",
]
