"""Annotations of `oxtensor._core`: `FunctionGraph` and the destroy handler.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

@disjoint_base
class FunctionGraph:
    """A graph with declared inputs and outputs, clients and features.

    The structure lives in a core arena; Python features hear about every
    change after the call that made it completes, in order.
    """

    def __new__(cls, *args: t.Any, **kwargs: t.Any) -> Self: ...
    def __init__(
        self,
        inputs: Sequence[Variable] | None = None,
        outputs: Sequence[Variable] | None = None,
        features: Iterable[t.Any] | None = None,
        clone: bool = True,
        update_mapping: dict[int, int] | None = None,
        **clone_kwds: t.Any,
    ) -> None: ...
    def __contains__(self, obj: object, /) -> bool: ...
    @property
    def inputs(self) -> list[Variable]:
        """The declared inputs."""
    @property
    def outputs(self) -> list[Variable]:
        """The outputs."""
    @property
    def apply_nodes(self) -> set[Apply]:
        """The nodes in the graph."""
    @property
    def variables(self) -> set[Variable]:
        """The variables the outputs depend on (unused inputs excluded)."""
    @property
    def clients(self) -> dict[Variable, list[_Client]]:
        """``{variable: [(apply, i) or ("output", i), ...]}``."""
    @property
    def update_mapping(self) -> dict[int, int] | None:
        """``{output index: input index}`` for updates, if given."""
    @property
    def _features(self) -> list[t.Any]:
        """The attached Python features."""
    def get_clients(self, var: Variable) -> list[_Client]:
        """The clients of one variable."""
    def toposort(self) -> list[Apply]:
        """The nodes in dependency order, features' orderings included."""
    def orderings(self) -> dict[Apply, list[Apply]]:
        """``{node: [nodes that must run first]}`` from every feature."""
    def replace(
        self,
        var: Variable,
        new_var: t.Any,
        reason: t.Any = None,
        verbose: bool | None = None,
        import_missing: bool = False,
    ) -> None:
        """Replace every use of ``var``; a cycle raises ``InconsistencyError``."""
    def replace_all(
        self,
        pairs: Iterable[t.Any],
        reason: t.Any = None,
        verbose: bool | None = None,
        **_kwargs: t.Any,
    ) -> None:
        """``replace`` for each ``(var, new_var)`` pair."""
    def replace_all_validate(
        self,
        replacements: Iterable[t.Any],
        reason: t.Any = None,
        verbose: bool | None = None,
        **_kwargs: t.Any,
    ) -> int:
        """``replace_all`` then ``validate``; everything is reverted on failure."""
    def replace_validate(self, r: Variable, new_r: t.Any, reason: t.Any = None) -> int:
        """``replace_all_validate`` for one pair."""
    def change_node_input(
        self,
        node: Apply | str,
        i: int,
        new_var: Variable,
        reason: t.Any = None,
        import_missing: bool = False,
        check: bool = True,
    ) -> None:
        """Make input ``i`` of ``node`` (or output ``i``, node ``"output"``) read
        ``new_var``."""
    def import_var(
        self, var: Variable, reason: t.Any = None, import_missing: bool = False
    ) -> None:
        """Bring a variable, and what computes it, into the graph."""
    def import_node(
        self,
        apply_node: Apply,
        check: bool = True,
        reason: t.Any = None,
        import_missing: bool = False,
    ) -> None:
        """Bring a node, and what it needs, into the graph."""
    def add_input(self, var: Variable, check: bool = True) -> None:
        """Declare another input."""
    def add_output(
        self, var: Variable, reason: t.Any = None, import_missing: bool = False
    ) -> None:
        """Append an output."""
    def remove_node(self, node: Apply, reason: t.Any = None) -> None:
        """Remove ``node``, the nodes and outputs depending on it, then the
        producers left unused."""
    def remove_input(self, idx: int, reason: t.Any = None) -> None:
        """Remove input ``idx`` and everything that uses it."""
    def remove_output(self, idx: int, reason: t.Any = None) -> None:
        """Remove output ``idx``; later outputs shift down."""
    def remove_client(
        self,
        var: Variable,
        client_to_remove: tuple[t.Any, int],
        reason: t.Any = None,
        remove_if_empty: bool = False,
    ) -> None:
        """Remove one client ``(node, i)`` or ``("output", i)`` of ``var``;
        nodes left unused are removed, recursively (with ``remove_if_empty``
        the variables left without clients also leave ``clients``)."""
    def attach_feature(self, feature: t.Any) -> None:
        """Attach a feature; ``AlreadyThere`` from ``on_attach`` skips it."""
    def remove_feature(self, feature: t.Any) -> None:
        """Detach a feature, calling its ``on_detach``."""
    def execute_callbacks(self, name: str, *args: t.Any) -> None:
        """Call ``name(self, *args)`` on every feature that has it, timed."""
    @property
    def execute_callbacks_times(self) -> dict[t.Any, float]:
        """``{feature: seconds}`` spent in ``execute_callbacks``."""
    def checkpoint(self) -> int:
        """A token for ``revert``."""
    def revert(self, checkpoint: int) -> None:
        """Undo the input changes made since ``checkpoint``."""
    def validate(self) -> None:
        """Ask every feature to accept the graph (``InconsistencyError`` if not)."""
    def consistent(self) -> bool:
        """Whether ``validate`` passes."""
    def check_integrity(self) -> None:
        """Check clients, nodes and variables agree; raise ``Exception`` if not."""
    def clone_get_equiv(
        self, check_integrity: bool = True, attach_feature: bool = True
    ) -> tuple[FunctionGraph, dict[t.Any, t.Any]]:
        """A deep copy and the ``{old: new}`` map of variables and nodes."""
    def clone(self, check_integrity: bool = True) -> FunctionGraph:
        """A deep copy, features cloned."""
    def dprint(self, **kwargs: t.Any) -> t.Any:
        """``debugprint(self, **kwargs)``."""
    def __copy__(self) -> FunctionGraph:
        """``clone()``: two graphs cannot share variables."""
    def __getnewargs__(self) -> tuple[()]:
        """No arguments: ``__setstate__`` builds the graph."""
    def __getstate__(self) -> tuple[t.Any, ...]:
        """``(inputs, outputs, features, update_mapping, instance dict)``."""
    def __setstate__(self, state: t.Any) -> None:
        """Import the pickled objects; features get ``unpickle(fgraph)``."""

@t.final
class DestroyHandler:
    """Tracks views and destroyers of a graph; validates and orders them."""

    provides: t.ClassVar[tuple[str, ...]]
    def __new__(
        cls, do_imports_on_attach: bool = True, algo: t.Any = None
    ) -> DestroyHandler: ...
    def on_attach(self, fgraph: t.Any) -> None:
        """Attach the core handler; ``AlreadyThere`` when the graph has one."""
    def on_detach(self, fgraph: t.Any) -> None:
        """Detach the core handler."""
    def on_validate(self, _fgraph: t.Any) -> None:
        """Nothing: the core handler validated already."""
    def validate(self, fgraph: t.Any) -> None:
        """``InconsistencyError`` naming the nodes and the value."""
    def orderings(
        self, fgraph: t.Any, ordered: bool = True
    ) -> dict[t.Any, list[t.Any]]:
        """``{destroyer: [nodes that must run before it]}``."""
    def destroyers(self, fgraph: t.Any, r: t.Any) -> list[t.Any]:
        """The nodes that destroy ``r`` or an alias of it."""
    def has_destroyers(self, fgraph: t.Any, protected_list: t.Any) -> bool:
        """Whether any of the variables, or an alias of one, is destroyed."""
    def view_i(self, fgraph: t.Any) -> dict[t.Any, t.Any]:
        """``{view: viewed variable}``."""
    def clone(self) -> DestroyHandler:
        """A new handler for a cloned graph."""
    def __reduce__(self) -> tuple[t.Any, ...]:
        """Pickles as a new handler: its state is the graph's."""
    def unpickle(self, fgraph: t.Any) -> None:
        """Serve an unpickled graph: attach the core handler again."""

def inplace_candidates(
    fgraph: t.Any, inputs: t.Any, protected_inputs: t.Any = None
) -> list[t.Any]:
    """The inputs an inplace rewrite may try to destroy."""

def fast_inplace_check(fgraph: t.Any, inputs: t.Any) -> list[t.Any]:
    """The inputs that are not constants, destroyed or protected."""

def attach_no_output_from_inplace(
    fgraph: FunctionGraph, protected_out_ids: t.Sequence[int] | None = None
) -> None:
    """Attach the core check that these outputs (all when None) are not
    computed in place."""

def detach_no_output_from_inplace(
    fgraph: FunctionGraph, protected_out_ids: t.Sequence[int] | None = None
) -> None:
    """Detach that check, if attached."""
