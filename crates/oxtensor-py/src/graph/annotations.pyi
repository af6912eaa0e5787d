"""Annotations of `oxtensor._core`: variables, applies, tensor variables and the graph utilities.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

@t.final
class Scratchpad:
    """The attribute bag behind every ``tag``: accepts any attribute."""

    def __new__(cls) -> Self: ...
    def __update__(self, other: t.Any) -> None:
        """Copy another scratchpad's (or a dict's) attributes into this one."""
    def info(self) -> None:
        """Print the attributes, one per line."""

@t.final
class _AutoIds:
    """The iterator of ``auto_N`` numbers (``Variable.__count__``)."""

    def __iter__(self) -> Self: ...
    def __next__(self) -> int: ...

@disjoint_base
class Variable:
    """A value in a graph: a root, a constant or a node's output.

    ``Variable(type, owner=None, index=None, name=None)``. Equality and hash
    are identity; subclasses (``TensorVariable``, ``Constant``) share the layout.
    """

    __count__: t.ClassVar[t.Iterator[int]]
    type: t.Any
    owner: Apply | None
    index: int | None
    name: str | None
    tag: Scratchpad
    def __new__(cls, *args: t.Any, **kwargs: t.Any) -> Self: ...
    def __init__(
        self,
        type: t.Any,
        owner: Apply | None = None,
        index: int | None = None,
        name: str | None = None,
    ) -> None: ...
    def _init_constant(self, type: t.Any, data: t.Any, name: str | None = None) -> None:
        """Initialise a constant: ``type.filter(data)``, kept read-only."""
    @property
    def data(self) -> t.Any:
        """A constant's value (``AttributeError`` for other variables)."""
    @property
    def auto_name(self) -> str:
        """``auto_N``, from one counter shared by every variable."""
    @property
    def clients(self) -> list[_Client]:
        """Uses in the ``FunctionGraph`` that last imported this variable:
        ``(apply, i)`` pairs and ``("output", i)`` entries."""
    @property
    def fgraph(self) -> FunctionGraph | None:
        """The ``FunctionGraph`` that last imported this variable, if alive."""
    @property
    def owner_op(self) -> Op | None:
        """The owner's op, or ``None``."""
    def clone(self, **kwargs: t.Any) -> Variable:
        """A new owner-less variable of the same class, type, name and tag
        (a constant returns itself)."""
    def get_parents(self) -> list[Apply]:
        """The owner, as a list."""
    def __bool__(self) -> bool:
        """Always raises ``TypeError``: the value is unknown until the graph runs."""
    def __copy__(self) -> Self:
        """A shallow copy: same class, fields and instance attributes."""
    def dprint(self, **kwargs: t.Any) -> t.Any:
        """``debugprint(self, **kwargs)``."""
    def eval(self, inputs_to_values: t.Any = None, **kwargs: t.Any) -> t.Any:
        """Compile (once per set of inputs) and run the graph of this variable."""

class TensorVariable(Variable):
    """A tensor variable: NumPy-like operators and methods build graph nodes in Rust."""

    __array_priority__: ClassVar[float]
    def __hash__(self) -> int: ...
    def __add__(self, other: t.Any, /) -> TensorVariable: ...
    def __radd__(self, other: t.Any, /) -> TensorVariable: ...
    def __sub__(self, other: t.Any, /) -> TensorVariable: ...
    def __rsub__(self, other: t.Any, /) -> TensorVariable: ...
    def __mul__(self, other: t.Any, /) -> TensorVariable: ...
    def __rmul__(self, other: t.Any, /) -> TensorVariable: ...
    def __truediv__(self, other: t.Any, /) -> TensorVariable: ...
    def __rtruediv__(self, other: t.Any, /) -> TensorVariable: ...
    def __floordiv__(self, other: t.Any, /) -> TensorVariable: ...
    def __rfloordiv__(self, other: t.Any, /) -> TensorVariable: ...
    def __mod__(self, other: t.Any, /) -> TensorVariable: ...
    def __rmod__(self, other: t.Any, /) -> TensorVariable: ...
    def __pow__(self, other: t.Any, mod: None = None, /) -> TensorVariable: ...
    def __rpow__(self, other: t.Any, mod: None = None, /) -> TensorVariable: ...
    def __and__(self, other: t.Any, /) -> TensorVariable: ...
    def __rand__(self, other: t.Any, /) -> TensorVariable: ...
    def __or__(self, other: t.Any, /) -> TensorVariable: ...
    def __ror__(self, other: t.Any, /) -> TensorVariable: ...
    def __xor__(self, other: t.Any, /) -> TensorVariable: ...
    def __rxor__(self, other: t.Any, /) -> TensorVariable: ...
    def __lt__(self, other: t.Any, /) -> TensorVariable: ...
    def __le__(self, other: t.Any, /) -> TensorVariable: ...
    def __gt__(self, other: t.Any, /) -> TensorVariable: ...
    def __ge__(self, other: t.Any, /) -> TensorVariable: ...
    def __neg__(self) -> TensorVariable: ...
    def __abs__(self) -> TensorVariable: ...
    def __invert__(self) -> TensorVariable: ...
    def __matmul__(self, other: t.Any, /) -> TensorVariable: ...
    def __rmatmul__(self, other: t.Any, /) -> TensorVariable: ...
    @property
    def ndim(self) -> int:
        """Number of dimensions."""
    @property
    def dtype(self) -> str:
        """The dtype, as a string (``"float64"``)."""
    @property
    def broadcastable(self) -> tuple[bool, ...]:
        """Which dimensions are statically 1."""
    @property
    def shape(self) -> TensorVariable:
        """The symbolic shape (a ``Shape`` node), an int64 vector."""
    @property
    def T(self) -> TensorVariable:
        """The transpose (all axes reversed)."""
    def dimshuffle(self, *pattern: t.Any) -> TensorVariable:
        """``x.dimshuffle(1, "x", 0)`` or ``x.dimshuffle([1, "x", 0])``."""
    def transpose(self, *axes: t.Any) -> TensorVariable:
        """Permute the axes (reversed when none are given)."""
    def sum(
        self,
        axis: _Axis = None,
        dtype: t.Any = None,
        keepdims: bool = False,
        acc_dtype: t.Any = None,
    ) -> TensorVariable:
        """Sum over ``axis`` (all axes by default)."""
    def prod(
        self,
        axis: _Axis = None,
        dtype: t.Any = None,
        keepdims: bool = False,
        acc_dtype: t.Any = None,
    ) -> TensorVariable:
        """Product over ``axis``."""
    def max(self, axis: _Axis = None, keepdims: bool = False) -> TensorVariable:
        """Maximum over ``axis``."""
    def min(self, axis: _Axis = None, keepdims: bool = False) -> TensorVariable:
        """Minimum over ``axis``."""
    def all(self, axis: _Axis = None, keepdims: bool = False) -> TensorVariable:
        """Whether all elements along ``axis`` are true."""
    def any(self, axis: _Axis = None, keepdims: bool = False) -> TensorVariable:
        """Whether any element along ``axis`` is true."""
    def mean(
        self,
        axis: _Axis = None,
        dtype: t.Any = None,
        keepdims: bool = False,
        acc_dtype: t.Any = None,
    ) -> TensorVariable:
        """The sum divided by ``Shape_i`` lengths of the reduced axes."""
    def reshape(
        self, shape: t.Any, *more: t.Any, ndim: int | None = None
    ) -> TensorVariable:
        """``x.reshape(shape)``; a constant shape gives a static output shape."""
    def flatten(self, ndim: int = 1) -> TensorVariable:
        """``x`` with its trailing axes merged so it has ``ndim`` axes."""
    def squeeze(self, axis: t.Any = None) -> TensorVariable:
        """``x`` without its length-1 axes (``squeeze``)."""
    def swapaxes(self, axis1: t.Any, axis2: t.Any) -> TensorVariable:
        """``x`` with two axes exchanged (``swapaxes``)."""
    def repeat(self, repeats: t.Any, axis: t.Any = None) -> TensorVariable:
        """Each element repeated along ``axis`` (``repeat``)."""
    def astype(self, dtype: t.Any) -> TensorVariable:
        """``x`` cast to ``dtype`` (``x`` itself if it already has it)."""
    def dot(self, other: t.Any) -> TensorVariable:
        """Inner, matrix-vector or matrix product."""
    @property
    def real(self) -> TensorVariable:
        """The real part (``x`` itself for real dtypes)."""
    @property
    def imag(self) -> TensorVariable:
        """The imaginary part (zeros for real dtypes)."""
    def conj(self) -> TensorVariable:
        """The complex conjugate; ``x`` itself when it is not complex."""
    def conjugate(self) -> TensorVariable:
        """The complex conjugate (``conj``)."""
    def round(self, mode: str | None = None) -> TensorVariable:
        """Rounded: ``"half_to_even"`` (default) or ``"half_away_from_zero"``."""
    def trunc(self) -> TensorVariable:
        """Rounded towards zero."""
    def clip(self, a_min: t.Any, a_max: t.Any) -> TensorVariable:
        """``clip(x, a_min, a_max)``."""
    def __getitem__(self, args: t.Any, /) -> TensorVariable:
        """``x[...]``: a ``Subtensor`` (a view) or an ``AdvancedSubtensor``."""
    def __iter__(self) -> t.Iterator[TensorVariable]:
        """``x[0], x[1], ...`` when the first length is static, else ``TypeError``."""
    def set(self, y: t.Any) -> TensorVariable:
        """``set_subtensor(self, y)`` for ``self = t[idx]``."""
    def inc(self, y: t.Any) -> TensorVariable:
        """``inc_subtensor(self, y)`` for ``self = t[idx]``."""
    # Attached by oxtensor/tensor/variable_methods.py when oxtensor.tensor is imported.
    def arccos(self) -> TensorVariable: ...
    def arccosh(self) -> TensorVariable: ...
    def arcsin(self) -> TensorVariable: ...
    def arcsinh(self) -> TensorVariable: ...
    def arctan(self) -> TensorVariable: ...
    def arctanh(self) -> TensorVariable: ...
    def ceil(self) -> TensorVariable: ...
    def cos(self) -> TensorVariable: ...
    def cosh(self) -> TensorVariable: ...
    def deg2rad(self) -> TensorVariable: ...
    def exp(self) -> TensorVariable: ...
    def exp2(self) -> TensorVariable: ...
    def expm1(self) -> TensorVariable: ...
    def floor(self) -> TensorVariable: ...
    def log(self) -> TensorVariable: ...
    def log10(self) -> TensorVariable: ...
    def log1p(self) -> TensorVariable: ...
    def log2(self) -> TensorVariable: ...
    def rad2deg(self) -> TensorVariable: ...
    def sin(self) -> TensorVariable: ...
    def sinh(self) -> TensorVariable: ...
    def sqrt(self) -> TensorVariable: ...
    def tan(self) -> TensorVariable: ...
    def tanh(self) -> TensorVariable: ...
    def argmax(self, axis: _Axis = None, keepdims: bool = False) -> TensorVariable: ...
    def argmin(self, axis: _Axis = None, keepdims: bool = False) -> TensorVariable: ...
    def sort(
        self,
        axis: int | None = -1,
        kind: str | None = None,
        order: t.Any = None,
        *,
        stable: bool | None = None,
    ) -> TensorVariable: ...
    def argsort(
        self,
        axis: int | None = -1,
        kind: str | None = None,
        order: t.Any = None,
        stable: bool | None = None,
    ) -> TensorVariable: ...
    def cumsum(self, axis: int | None = None) -> TensorVariable: ...
    def cumprod(self, axis: int | None = None) -> TensorVariable: ...
    def var(
        self,
        axis: _Axis = None,
        ddof: int = 0,
        keepdims: bool = False,
        corrected: bool = False,
    ) -> TensorVariable: ...
    def std(
        self,
        axis: _Axis = None,
        ddof: int = 0,
        keepdims: bool = False,
        corrected: bool = False,
    ) -> TensorVariable: ...
    def ptp(self, axis: _Axis = None, keepdims: bool = False) -> TensorVariable: ...
    def norm(
        self, L: float, axis: _Axis = None, keepdims: bool = False
    ) -> TensorVariable: ...
    def take(
        self, indices: t.Any, axis: int | None = None, mode: str = "raise"
    ) -> TensorVariable: ...
    def nonzero(self, return_matrix: bool = False) -> t.Any: ...
    def nonzero_values(self) -> TensorVariable: ...
    def fill(self, value: t.Any) -> TensorVariable: ...
    def copy(self, name: str | None = None) -> TensorVariable: ...
    def zeros_like(self, dtype: t.Any = None) -> TensorVariable: ...
    def ones_like(self, dtype: t.Any = None) -> TensorVariable: ...
    def ravel(self, ndim: int = 1) -> TensorVariable: ...
    def transfer(self, target: t.Any) -> TensorVariable: ...
    def diagonal(
        self, offset: int = 0, axis1: int = 0, axis2: int = 1
    ) -> TensorVariable: ...
    def trace(self) -> TensorVariable: ...
    def compress(self, x: t.Any, axis: int | None = None) -> TensorVariable: ...
    def searchsorted(
        self, v: t.Any, side: str = "left", sorter: t.Any = None
    ) -> TensorVariable: ...
    def choose(self, choices: t.Any, mode: str = 'raise') -> TensorVariable: ...
    def get_underlying_scalar_constant(
        self,
        *,
        elemwise: bool = True,
        only_process_constants: bool = False,
        max_recur: int = 10,
        raise_not_constant: bool = True,
    ) -> t.Any: ...
    @property
    def size(self) -> TensorVariable:
        """The number of elements, as a symbolic int64 scalar."""
    @property
    def mT(self) -> TensorVariable:
        """The transpose of the last two axes."""
    @property
    def owner_op_and_inputs(self) -> tuple[t.Any, ...]:
        """``(op, *inputs)`` of the node computing ``x``, or ``(None,)``."""
    def __setitem__(self, key: t.Any, value: t.Any) -> None:
        """Always a ``TypeError``: use ``x[idx].set(y)`` or ``x[idx].inc(y)``."""

@disjoint_base
class Apply:
    """An op applied to inputs: ``Apply(op, inputs, outputs)``.

    Outputs without an owner get ``owner=self`` and ``index=i``.
    """

    op: t.Any
    inputs: list[Variable]
    outputs: list[Variable]
    tag: Scratchpad
    def __new__(cls, *args: t.Any, **kwargs: t.Any) -> Self: ...
    def __init__(
        self, op: t.Any, inputs: Sequence[Variable], outputs: Sequence[Variable]
    ) -> None: ...
    def default_output(self) -> Variable:
        """``op.default_output``'s output, else the only one, else ``ValueError``."""
    @property
    def out(self) -> Variable:
        """Alias of ``default_output()``."""
    @property
    def nin(self) -> int:
        """Number of inputs."""
    @property
    def nout(self) -> int:
        """Number of outputs."""
    def get_parents(self) -> list[Variable]:
        """The inputs."""
    def clone(self, clone_inner_graph: bool | None = None) -> Apply:
        """Same op and inputs, fresh output clones, a copied tag."""
    def clone_with_new_inputs(
        self, inputs: Sequence[Variable], strict: bool = True
    ) -> Apply:
        """A copy reading ``inputs``; differing types rebuild it with ``make_node``."""
    def __copy__(self) -> Self:
        """A shallow copy: same op, inputs, outputs and tag (new lists)."""
    def dprint(self, **kwargs: t.Any) -> t.Any:
        """``debugprint(self, **kwargs)``."""


def debugprint(
    graph_like: t.Any,
    depth: int = ...,  # -1: no limit
    print_type: bool = False,
    print_shape: bool = False,
    file: t.Any = None,
    id_type: str = "CHAR",
    stop_on_name: bool = False,
    print_destroy_map: bool = False,
    print_view_map: bool = False,
    print_storage: bool = False,
    **_kwargs: t.Any,
) -> t.Any:
    """PyTensor's ``debugprint``: to stdout, to ``file``, or as text (``"str"``)."""

def pprint(var: t.Any) -> str:
    """The expression of ``var`` as a user would type it.

    ``x[0:2]``, ``set_subtensor(x[0], z)``, ``sum(x, axis=(0,))``.
    """

def proven_sign(var: t.Any) -> str:
    """What the graph proves of ``var``'s elements.

    ``"positive"``, ``"non_negative"`` or ``"unknown"``.
    """

def canonical_slice(
    length: t.Any, start: t.Any = None, stop: t.Any = None, step: t.Any = None
) -> tuple[t.Any, t.Any, t.Any, t.Any]:
    """``slice(start, stop, step)`` over ``length`` in canonical form.

    Non-negative bounds, a positive step, and the direction to read in.
    """

def ancestors(graphs: t.Any, blockers: t.Any = None) -> list[Variable]:
    """Every variable the graphs depend on (graphs included), depth first."""

def apply_ancestors(graphs: t.Any, blockers: t.Any = None) -> list[Apply]:
    """The nodes computing the ancestors, each once."""

def graph_inputs(graphs: t.Any, blockers: t.Any = None) -> list[Variable]:
    """The owner-less ancestors (roots and constants)."""

def vars_between(ins: t.Any, outs: t.Any) -> list[Variable]:
    """The variables between ``ins`` and ``outs``."""

def orphans_between(ins: t.Any, outs: t.Any) -> list[Variable]:
    """Owner-less variables between ``ins`` and ``outs`` that are not in ``ins``."""

def applys_between(ins: t.Any, outs: t.Any) -> list[Apply]:
    """The nodes between ``ins`` and ``outs``."""

def io_toposort(
    inputs: t.Any, outputs: t.Any, orderings: dict[Apply, list[Apply]] | None = None
) -> list[Apply]:
    """Nodes between ``inputs`` and ``outputs`` in dependency order."""

def toposort(graphs: t.Any, blockers: t.Any = None) -> list[Apply]:
    """Nodes computing ``graphs`` in dependency order, not past ``blockers``."""

def variable_depends_on(
    variable: t.Any, depends_on_vars: t.Any, stop_at_vars: t.Any = None
) -> bool:
    """Whether ``variable`` or an ancestor is one of ``depends_on_vars``."""

def apply_depends_on(apply: t.Any, depends_on: t.Any) -> bool:
    """Whether ``apply`` is one of ``depends_on`` or computed from one."""

def truncated_graph_inputs(
    outputs: t.Any, ancestors_to_include: t.Any = None
) -> list[Variable]:
    """The variables closest to ``outputs`` that the rest is computed from."""

def walk(
    nodes: t.Any,
    expand: t.Callable[[t.Any], t.Any],
    bfs: bool = True,
    return_children: bool = False,
    hash_fn: t.Callable[[t.Any], t.Any] | None = None,
) -> t.Iterator[t.Any]:
    """Every object reachable from ``nodes`` through ``expand``, each once."""

def general_toposort(
    outputs: t.Any,
    deps: t.Callable[[t.Any], t.Any] | None = None,
    compute_deps_cache: t.Callable[[t.Any], t.Any] | None = None,
    deps_cache: t.Any = None,
    clients: dict[t.Any, list[t.Any]] | None = None,
) -> list[t.Any]:
    """``outputs`` and what they depend on through ``deps``, dependencies first."""

def equal_computations(
    xs: t.Any,
    ys: t.Any,
    in_xs: t.Any = None,
    in_ys: t.Any = None,
    strict_dtype: bool = True,
) -> bool:
    """Whether ``xs`` compute what ``ys`` do, ``in_xs[k]`` standing for ``in_ys[k]``."""

def clone_get_equiv(
    inputs: list[Variable],
    outputs: list[Variable],
    copy_inputs: bool = True,
    copy_orphans: bool = True,
    memo: dict[t.Any, t.Any] | None = None,
) -> dict[t.Any, t.Any]:
    """Copies of the graph between ``inputs`` and ``outputs``: ``{old: new}``."""

def clone_replace(
    output: t.Any, replace: t.Any = None, **_rebuild_kwds: t.Any
) -> t.Any:
    """A copy of ``output``'s graph with the keys of ``replace`` substituted."""

def _vectorize_graph(
    outputs: list[t.Any],
    replace: list[tuple[t.Any, t.Any]],
    host_rule: Callable[..., list[t.Any] | None] | None = None,
) -> list[t.Any]:
    """The core of ``vectorize_graph``: the outputs rebuilt for the batched
    replacements; Python ops are offered to ``host_rule`` first."""

def _vectorize_node(
    node: t.Any,
    inputs: list[t.Any],
    host_rule: Callable[..., list[t.Any] | None] | None = None,
) -> list[t.Any]:
    """The core of ``vectorize_node``: the outputs of ``node`` rebuilt on the
    batched ``inputs``."""
