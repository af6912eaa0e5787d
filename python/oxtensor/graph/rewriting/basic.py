"""Rewriters, as PyTensor's ``pytensor.graph.rewriting.basic``.

`NodeRewriter` and `GraphRewriter` are the classes to subclass; the
drivers (`WalkingGraphRewriter`, `EquilibriumGraphRewriter`,
`SequentialGraphRewriter`, `MergeOptimizer`) are core passes, and a node
rewriter written in Python is called back by them on the nodes it tracks,
its replacements checked and validated like any other.
"""

import logging
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from oxtensor import _core
from oxtensor.graph.op import Op
from oxtensor.graph.rewriting.eager import pre_constant_merge, pre_greedy_node_rewriter
from oxtensor.graph.rewriting.pattern import (
    Asterisk,
    PatternNodeRewriter,
    SubstitutionNodeRewriter,
)
from oxtensor.graph.rewriting.tracker import OpToRewriterTracker
from oxtensor.graph.rewriting.unify import OpPattern
from oxtensor.graph.utils import InconsistencyError

_log = logging.getLogger("oxtensor.graph.rewriting.basic")

NodeRewriter = _core.NodeRewriter
GraphRewriter = _core.GraphRewriter
RewriteProfile = _core.RewriteProfile


def _check_tracks(tracks: Any) -> None:
    if tracks is None:
        return
    if len(tracks) == 0:
        raise ValueError(
            "Use None instead of an empty list to make a rewriter track every node"
        )
    for t in tracks:
        if not (
            isinstance(t, Op | OpPattern) or (isinstance(t, type) and issubclass(t, Op))
        ):
            raise TypeError(
                "tracks must hold Op instances or Op subclasses (or OpPatterns), "
                f"got {t!r}"
            )


class FromFunctionNodeRewriter(NodeRewriter):
    """A node rewriter made from a function ``fn(fgraph, node)``."""

    def __init__(
        self, fn: Callable[..., Any], tracks: Any, requirements: Sequence[Any] = ()
    ) -> None:
        super().__init__()
        self.fn = fn
        self._tracks = tracks
        self.requirements = tuple(requirements)
        self.__name__ = getattr(fn, "__name__", str(fn))

    def tracks(self) -> Any:
        return self._tracks

    def transform(
        self, fgraph: Any, node: Any, enforce_tracks: bool = True, **kwargs: Any
    ) -> Any:
        """``fn(fgraph, node)``; ``False`` for a node whose op the rewriter
        does not track (unless ``enforce_tracks=False``)."""
        if enforce_tracks and not _tracks_op(self, node.op):
            return False
        return self.fn(fgraph, node)

    def add_requirements(self, fgraph: Any) -> None:
        for req in self.requirements:
            req(fgraph)

    def __call__(self, fgraph: Any, node: Any) -> Any:
        return self.fn(fgraph, node)

    def __str__(self) -> str:
        return self.__name__

    def __repr__(self) -> str:
        return (
            f"FromFunctionNodeRewriter({self.fn!r}, {self._tracks!r}, "
            f"{self.requirements!r})"
        )


def _tracks_op(rewriter: Any, op: Any) -> bool:
    """Whether a driver would ask ``rewriter`` about a node of ``op`` (the
    core's answer, remembered per op: drivers call ``transform`` often)."""
    if rewriter.tracks() is None:
        return True
    seen = rewriter.__dict__.setdefault("_tracked_ops", {})
    try:
        return bool(seen[op])
    except (KeyError, TypeError):
        pass
    answer = bool(_core.rewriters_for_op([rewriter], op))
    if len(seen) > 256:
        seen.clear()
    try:
        seen[op] = answer
    except TypeError:  # an unhashable op is asked every time
        pass
    return answer


def node_rewriter(
    tracks: Any, inplace: bool = False, requirements: Sequence[Any] = ()
) -> Callable[[Callable[..., Any]], FromFunctionNodeRewriter]:
    """Decorator: ``@node_rewriter([Elemwise])`` on ``fn(fgraph, node)``.

    ``fn`` returns ``None``/``False`` (no change), a list with one
    replacement per output of ``node``, or a dict ``{old: new}`` (with an
    optional ``"remove"`` list).
    """
    _check_tracks(tracks)
    if inplace:
        raise TypeError(
            "not supported yet: node_rewriter(inplace=True) needs the destroy "
            "handler (issue 27)"
        )

    def decorator(fn: Callable[..., Any]) -> FromFunctionNodeRewriter:
        return FromFunctionNodeRewriter(fn, tracks, requirements)

    return decorator


class FromFunctionGraphRewriter(GraphRewriter):
    """A graph rewriter made from a function ``fn(fgraph)``."""

    def __init__(
        self, fn: Callable[..., Any], requirements: Sequence[Any] = ()
    ) -> None:
        super().__init__()
        self.fn = fn
        self.requirements = tuple(requirements)
        self.__name__ = getattr(fn, "__name__", str(fn))

    def add_requirements(self, fgraph: Any) -> None:
        for req in self.requirements:
            req(fgraph)

    def apply(self, fgraph: Any) -> Any:
        return self.fn(fgraph)

    def __str__(self) -> str:
        return self.__name__


def graph_rewriter(fn: Callable[..., Any]) -> FromFunctionGraphRewriter:
    """Decorator: a graph rewriter from ``fn(fgraph)``."""
    return FromFunctionGraphRewriter(fn)


class NodeProcessingGraphRewriter(GraphRewriter):
    """The base of the graph rewriters that apply node rewriters node by
    node. Its static methods are PyTensor's failure callbacks, called as
    ``callback(exc, rewriter, repl_pairs, node_rewriter, node)`` when a
    node rewriter raises or its replacement is refused."""

    @staticmethod
    def warn(
        exc: BaseException, nav: Any, repl_pairs: Any, node_rewriter: Any, node: Any
    ) -> None:
        """Log the failure, or raise it when ``config.on_opt_error`` is ``"raise"``."""
        from oxtensor.configdefaults import config

        if config.on_opt_error == "raise":
            raise exc
        _log.error("Rewrite failure due to: %s", node_rewriter)
        _log.error("node: %s", node)
        _log.error("TRACEBACK:", exc_info=exc)

    @staticmethod
    def warn_inplace(
        exc: BaseException, nav: Any, repl_pairs: Any, node_rewriter: Any, node: Any
    ) -> None:
        """`warn`, but an `InconsistencyError` (a refused inplace) is ignored."""
        if isinstance(exc, InconsistencyError):
            return
        NodeProcessingGraphRewriter.warn(exc, nav, repl_pairs, node_rewriter, node)

    @staticmethod
    def warn_ignore(
        exc: BaseException, nav: Any, repl_pairs: Any, node_rewriter: Any, node: Any
    ) -> None:
        """Ignore every failure."""


class WalkingGraphRewriter(NodeProcessingGraphRewriter):
    """Applies node rewriters while walking the graph once (``in_to_out``,
    ``out_to_in``; ``dfs`` walks as ``in_to_out``)."""

    def __init__(
        self,
        node_rewriter: Any,
        order: str = "in_to_out",
        ignore_newtrees: bool = False,
        failure_callback: Any = None,
        name: str | None = None,
    ) -> None:
        super().__init__()
        # A group's members go to the core walk directly: it asks them in turn.
        rewriters = list(getattr(node_rewriter, "rewriters", None) or [node_rewriter])
        self.node_rewriter = node_rewriter
        self.order = order
        self.ignore_newtrees = ignore_newtrees
        self.failure_callback = failure_callback
        self.name = name or f"{type(self).__name__}({node_rewriter})"
        self._set_core(
            _core.walking_pass(
                rewriters,
                order,
                ignore_newtrees,
                self.name,
                failure_callback,
                weakref.ref(self),
            )
        )


class SequentialNodeRewriter(NodeRewriter):
    """Several node rewriters acting as one: a node is offered to those
    that track it, in order, and the first proposal wins."""

    def __init__(self, *rewriters: Any, apply_all_rewrites: bool = False) -> None:
        super().__init__()
        self.rewriters = list(rewriters)
        self.apply_all_rewrites = apply_all_rewrites
        self._set_sequence(self.rewriters, str(self))

    def transform(self, fgraph: Any, node: Any, *args: Any, **kwargs: Any) -> Any:
        """The first proposal of the members that track ``node``; with
        ``config.optimizer_verbose`` each member is asked from here so the
        one that proposed can be printed."""
        from oxtensor.configdefaults import config

        if not config.optimizer_verbose:
            return super().transform(fgraph, node)
        for i in _core.rewriters_for_op(self.rewriters, node.op):
            rw = self.rewriters[i]
            new = rw.transform(fgraph, node)
            if new:
                print(f"rewriting: rewrite {rw} replaces node {node} with {new}")
                return new
        return None

    def __str__(self) -> str:
        return f"SequentialNodeRewriter({', '.join(map(str, self.rewriters))})"


def walking_rewriter(
    order: str,
    *node_rewriters: Any,
    name: str | None = None,
    failure_callback: Any = None,
    ignore_newtrees: bool = False,
    **kwargs: Any,
) -> WalkingGraphRewriter:
    """A walk applying ``node_rewriters`` (each asked in turn per node)."""
    if len(node_rewriters) == 1:
        (rw,) = node_rewriters
    else:
        rw = SequentialNodeRewriter(*node_rewriters)
    return WalkingGraphRewriter(
        rw,
        order=order,
        ignore_newtrees=ignore_newtrees,
        failure_callback=failure_callback,
        name=name,
    )


def in2out(*node_rewriters: Any, **kwargs: Any) -> WalkingGraphRewriter:
    """A walk from the inputs to the outputs."""
    return walking_rewriter("in_to_out", *node_rewriters, **kwargs)


def out2in(*node_rewriters: Any, **kwargs: Any) -> WalkingGraphRewriter:
    """A walk from the outputs to the inputs."""
    return walking_rewriter("out_to_in", *node_rewriters, **kwargs)


def dfs_rewriter(*node_rewriters: Any, **kwargs: Any) -> WalkingGraphRewriter:
    """A depth-first walk (run inputs first here)."""
    return walking_rewriter("dfs", *node_rewriters, **kwargs)


class EquilibriumGraphRewriter(GraphRewriter):
    """Applies rewriters until none applies (the core's worklist
    equilibrium): node rewriters where they track, graph rewriters at the
    start of each round, ``final_rewriters`` at its end, and
    ``cleanup_rewriters`` after each change."""

    def __init__(
        self,
        rewriters: Sequence[Any],
        failure_callback: Any = None,
        ignore_newtrees: bool = True,
        tracks_on_change_inputs: bool = False,
        max_use_ratio: float | None = None,
        final_rewriters: Sequence[Any] | None = None,
        cleanup_rewriters: Sequence[Any] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__()
        node_rws = [r for r in rewriters if not isinstance(r, GraphRewriter)]
        global_rws = [r for r in rewriters if isinstance(r, GraphRewriter)]
        self.rewriters = list(rewriters)
        self.final_rewriters = list(final_rewriters or [])
        self.cleanup_rewriters = list(cleanup_rewriters or [])
        self.max_use_ratio = max_use_ratio
        self.failure_callback = failure_callback
        self.name = name or "EquilibriumGraphRewriter"
        self._set_core(
            _core.equilibrium_pass(
                node_rws,
                global_rws,
                self.final_rewriters,
                self.cleanup_rewriters,
                self.name,
                max_use_ratio,
                failure_callback,
                weakref.ref(self),
            )
        )


class SequentialGraphRewriter(GraphRewriter):
    """Graph rewriters applied in order."""

    def __init__(self, *rewriters: Any, failure_callback: Any = None) -> None:
        super().__init__()
        if len(rewriters) == 1 and isinstance(rewriters[0], list | tuple):
            rewriters = tuple(rewriters[0])
        self.data = list(rewriters)
        self.failure_callback = failure_callback
        self._set_core(_core.sequential_pass(self.data, "SequentialGraphRewriter"))


class MergeOptimizer(GraphRewriter):
    """Merges equal constants and nodes applying equal ops to the same inputs."""

    def __init__(self) -> None:
        super().__init__()
        self._set_core(_core.merge_pass())


def copy_stack_trace(from_var: Any, to_var: Any) -> None:
    """Copies ``tag.trace`` from one variable (or list) to another (or list)."""
    sources = from_var if isinstance(from_var, list | tuple) else [from_var]
    targets = to_var if isinstance(to_var, list | tuple) else [to_var]
    trace: list[Any] = []
    for v in sources:
        trace.extend(getattr(getattr(v, "tag", None), "trace", []) or [])
    for v in targets:
        if trace:
            v.tag.trace = list(trace)


__all__ = [
    "Asterisk",
    "EquilibriumGraphRewriter",
    "FromFunctionGraphRewriter",
    "FromFunctionNodeRewriter",
    "GraphRewriter",
    "MergeOptimizer",
    "NodeProcessingGraphRewriter",
    "NodeRewriter",
    "OpToRewriterTracker",
    "PatternNodeRewriter",
    "RewriteProfile",
    "SequentialGraphRewriter",
    "SequentialNodeRewriter",
    "SubstitutionNodeRewriter",
    "WalkingGraphRewriter",
    "copy_stack_trace",
    "dfs_rewriter",
    "graph_rewriter",
    "in2out",
    "node_rewriter",
    "out2in",
    "pre_constant_merge",
    "pre_greedy_node_rewriter",
    "walking_rewriter",
]
