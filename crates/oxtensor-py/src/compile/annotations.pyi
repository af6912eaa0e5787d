"""Annotations of `oxtensor._core`: compiled functions, modes, recipes and profiles.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

def debug_tolerance(dtype: str) -> tuple[float, float]:
    """``(atol, rtol)`` DebugMode compares results of ``dtype`` with."""

@t.final
class Function:
    """A compiled graph: call it with the inputs' values (positions or names)."""

    def __call__(self, *args: t.Any, **kwargs: t.Any) -> t.Any:
        """Run the graph; one output, or a list with ``outputs`` given as a list."""
    @property
    def maker(self) -> t.Any:
        """The compilation's results: ``.fgraph``, ``.inputs``, ``.outputs``."""
    @property
    def name(self) -> str | None:
        """The function's name, if given."""
    @property
    def unpack_single(self) -> bool:
        """Whether a single output is returned as itself, not in a list."""
    @property
    def _potential_aliased_input_groups(self) -> tuple[tuple[int, ...], ...]:
        """Groups of positions of borrowed inputs whose arguments may alias."""
    @property
    def trust_input(self) -> bool:
        """Skip argument checks (arguments must be ndarrays of the exact types)."""
    @trust_input.setter
    def trust_input(self, value: bool) -> None: ...
    @property
    def profile(self) -> ProfileStats | None:
        """Per-node counts and times, when compiled with ``profile=True``."""
    def copy(
        self,
        share_memory: bool = False,
        swap: dict[t.Any, t.Any] | None = None,
        delete_updates: bool = False,
        name: str | None = None,
        profile: t.Any = None,
    ) -> Function:
        """A new function over the same graph (PyTensor's ``Function.copy``)."""
    def __copy__(self) -> Function: ...
    def free(self) -> None:
        """Release the buffers kept between calls."""
    def __reduce__(self) -> tuple[t.Any, tuple[FunctionRecipe, bool]]:
        """``FunctionRecipe.compile(recipe, trust_input)``: recompiled on load."""

@disjoint_base
class Mode:
    """A compilation mode: the rewrites to run (a query of the rewrite
    database, by PyTensor's optimizer names) and the linker."""

    def __new__(
        cls,
        linker: t.Any = None,
        optimizer: t.Any = "default",
        db: t.Any = None,
        *,
        checks: str | None = None,
    ) -> Mode: ...
    def register(self, *optimizations: tuple[t.Any, float]) -> Mode:
        """This mode with ``(rewriter, position)`` passes added to its query."""
    @property
    def _optimizer(self) -> t.Any:
        """The query the mode runs (linker tags included), or the rewriter given."""
    @property
    def optdb(self) -> t.Any:
        """The database the query selects from (``optdb`` unless ``db=``)."""
    @property
    def linker(self) -> t.Any:
        """The linker, an object of PyTensor's linker class for its name."""
    @property
    def linker_name(self) -> str:
        """The linker's name."""
    @property
    def checks(self) -> str | None:
        """The checks every node runs under: ``"debug"`` (DebugMode),
        ``"view_maps"`` (``config.check_view_maps``) or None."""
    def with_view_map_checks(self) -> Mode:
        """This mode with the view-map check (DebugMode stays as it is)."""
    @property
    def provided_optimizer(self) -> t.Any:
        """The optimizer as given: a name, a query or a rewriter."""
    def including(self, *tags: str) -> Mode:
        """This mode with the rewrites of these tags added."""
    def excluding(self, *tags: str) -> Mode:
        """This mode without the rewrites of these tags."""
    def requiring(self, *tags: str) -> Mode:
        """This mode keeping only the rewrites with all of these tags."""
    def with_rewrite_settings(self, on_opt_error: str, max_use_ratio: float) -> Mode:
        """This mode with ``on_opt_error`` and ``optdb__max_use_ratio`` set."""
    def __reduce__(self) -> tuple[t.Any, ...]: ...

@t.final
class FunctionRecipe:
    """What a ``Function`` is compiled from and pickled as: the compiled graph,
    the inputs' options, shared variables, updates and call settings."""

    def __new__(
        cls,
        fgraph: FunctionGraph,
        inputs: Iterable[tuple[Variable, str | None, bool, bool | None]],
        shared: Iterable[Variable],
        updates: Sequence[int],
        outputs: Iterable[Variable],
        n_outputs: int,
        single: bool,
        borrow: Sequence[bool],
        name: str | None = None,
        profile: bool = False,
        mode: t.Any = None,
        reference: FunctionRecipe | None = None,
    ) -> Self: ...
    def compile(self, trust_input: bool = False) -> Function:
        """Link the graph for the VM and return a new ``Function``."""
    @property
    def mode(self) -> t.Any:
        """The mode as given (every mode runs the native VM)."""
    @property
    def fgraph(self) -> FunctionGraph | None:
        """The rewritten graph: explicit inputs, then the shared variables;
        outputs, then the update expressions."""
    @property
    def inputs(self) -> list[tuple[Variable, str | None, bool, bool | None]]:
        """``(variable, name, strict, allow_downcast)`` per explicit input."""
    @property
    def shared(self) -> list[Variable]:
        """The shared variables, in the order of the graph's trailing inputs."""
    @property
    def updates(self) -> list[int]:
        """For each trailing output, the shared variable (index) it updates."""
    @property
    def n_outputs(self) -> int:
        """The number of outputs the caller gets (the rest are updates)."""
    @property
    def single(self) -> bool:
        """Whether the caller gets one value rather than a list."""
    @property
    def name(self) -> str | None:
        """The function's name, if given."""

@t.final
class ProfileStats:
    """A function's profile (``f.profile``)."""

    @property
    def calls(self) -> int:
        """Number of calls."""
    @property
    def total_time(self) -> float:
        """Total seconds spent in calls."""
    @property
    def apply_stats(self) -> list[tuple[str, str, int, float, bool]]:
        """``(node, op class, calls, seconds, is_python)`` in toposort order."""
    def summary(self, file: t.Any = None) -> str:
        """The report as text, nodes sorted by time (also written to
        ``file`` when given)."""

def function_recipe(
    inputs: t.Any,
    outputs: t.Any = None,
    mode: t.Any = None,
    updates: t.Any = None,
    givens: t.Any = None,
    no_default_updates: t.Any = None,
    accept_inplace: bool = False,
    name: str | None = None,
    rebuild_strict: bool = True,
    allow_input_downcast: bool | None = None,
    profile: t.Any = None,
    on_unused_input: str | None = None,
) -> FunctionRecipe:
    """``function``'s work up to linking: the rewritten graph and what a call
    needs, for a linker outside the core (``oxtensor.link.jax``)."""
