"""Annotations of `oxtensor._core`: rewriters, passes and the rewrite database.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

@t.final
class CorePass:
    """A pass of the Rust core (a walk, an equilibrium, a sequence, merging),
    handed to ``GraphRewriter._set_core``."""

@disjoint_base
class NodeRewriter:
    """A local rewriter: subclass it with ``tracks()`` and
    ``transform(fgraph, node)``; built-in ones hold a core rewriter."""

    def __new__(cls, *args: t.Any, **kwargs: t.Any) -> Self: ...
    def _set_sequence(self, rewriters: Iterable[t.Any], name: str) -> None:
        """Makes this rewriter the group of ``rewriters``, asked in turn."""
    def _set_substitution(self, op1: t.Any, op2: t.Any, name: str) -> None:
        """Makes this rewriter ``op1(*inputs) -> op2(*inputs)``."""
    def tracks(self) -> t.Any:
        """The Ops or Op classes it looks at; ``None`` for every node."""
    def transform(self, fgraph: FunctionGraph, node: Apply) -> t.Any:
        """The replacements for ``node``'s outputs, or ``None``."""

@disjoint_base
class GraphRewriter:
    """A whole-graph pass: subclass it with ``apply(fgraph)``; the drivers
    and database queries hold a core pass."""

    def __new__(cls, *args: t.Any, **kwargs: t.Any) -> Self: ...
    def _set_core(self, pass_: CorePass | GraphRewriter) -> None:
        """Makes this object run a core pass."""
    def add_requirements(self, fgraph: FunctionGraph) -> None:
        """Attaches what the pass needs."""
    def apply(self, fgraph: FunctionGraph) -> t.Any:
        """Runs the pass on ``fgraph`` in place."""
    def rewrite(self, fgraph: FunctionGraph) -> t.Any:
        """``add_requirements`` then ``apply``."""
    def __call__(self, fgraph: FunctionGraph) -> t.Any: ...

@t.final
class RewriteProfile:
    """What a rewrite run did: per rewriter and per pass."""

    @property
    def rewriters(self) -> dict[str, dict[str, float]]:
        """``{name: {"calls", "applied", "failed", "time"}}``."""
    @property
    def passes(self) -> list[tuple[str, float, bool, int]]:
        """``(name, seconds, changed, nodes after)`` per pass, in run order."""
    def summary(self) -> str:
        """A printable table."""

@t.final
class RewriteDatabaseQuery:
    """Which rewriters a query selects: by included, required and excluded tags."""

    def __new__(
        cls,
        include: t.Any,
        require: t.Any = None,
        exclude: t.Any = None,
        subquery: dict[str, RewriteDatabaseQuery] | None = None,
        position_cutoff: float = ...,
        extra_rewrites: t.Any = None,
    ) -> RewriteDatabaseQuery: ...
    @property
    def include(self) -> list[str]: ...
    @property
    def require(self) -> list[str]: ...
    @property
    def exclude(self) -> list[str]: ...
    @property
    def position_cutoff(self) -> float: ...
    def including(self, *tags: str) -> RewriteDatabaseQuery: ...
    def excluding(self, *tags: str) -> RewriteDatabaseQuery: ...
    def requiring(self, *tags: str) -> RewriteDatabaseQuery: ...

@disjoint_base
class RewriteDatabase:
    """Named rewriters with tags and positions (a sequence, an equilibrium
    or a walk), queried by tag."""

    def __new__(cls, kind: str = "sequence", *args: t.Any, **kwargs: t.Any) -> Self: ...
    @property
    def name(self) -> str: ...
    def register(
        self,
        name: str,
        rewriter: t.Any,
        *tags: str,
        position: t.Any = None,
        final_rewriter: bool = False,
        cleanup: bool = False,
        use_db_name_as_tag: bool = True,
    ) -> None:
        """Registers a rewriter (or a nested database) under ``name``."""
    def add_tags(self, name: str, *tags: str) -> None: ...
    def remove(self, name: str) -> bool: ...
    def query(self, *args: t.Any) -> GraphRewriter:
        """The pass running what the query (or ``+tag``/``&tag``/``-tag``) selects."""
    def names(self) -> list[str]: ...
    def __getitem__(self, key: str, /) -> t.Any: ...
    def __contains__(self, key: str, /) -> bool: ...

def walking_pass(
    rewriters: t.Any,
    order: str,
    ignore_newtrees: bool,
    name: str,
    failure_callback: t.Any = None,
    nav: t.Any = None,
) -> CorePass:
    """A walk over node rewriters; failures go to ``failure_callback``."""

def equilibrium_pass(
    node_rewriters: t.Any,
    global_rewriters: t.Any,
    final_rewriters: t.Any,
    cleanup_rewriters: t.Any,
    name: str,
    max_use_ratio: float | None = None,
    failure_callback: t.Any = None,
    nav: t.Any = None,
) -> CorePass:
    """An equilibrium over node rewriters with global, final and cleanup passes."""

def sequential_pass(rewriters: t.Any, name: str) -> CorePass:
    """Graph rewriters in order."""

def merge_pass() -> CorePass:
    """Merging of equal constants and twin nodes."""

def rewriters_for_op(rewriters: t.Any, op: Op) -> list[int]:
    """The positions of the rewriters that track ``op``, in dispatch order."""

def constant_folding_rewriter() -> NodeRewriter:
    """The core's ``constant_folding`` node rewriter."""

def optdb_object() -> RewriteDatabase:
    """The process-wide database of compilation phases."""
