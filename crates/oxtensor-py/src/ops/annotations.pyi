"""Annotations of `oxtensor._core`: the op base class, the ops with hand-typed members, and the op builders.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

@t.final
class Thunk:
    """What ``make_py_thunk`` returns: runs ``perform`` on storage cells and
    marks the outputs computed in the compute map."""

    def __call__(self, *args: t.Any, **kwargs: t.Any) -> None: ...
    @property
    def inputs(self) -> list[list[t.Any]]:
        """The input storage cells."""
    @property
    def outputs(self) -> list[list[t.Any]]:
        """The output storage cells."""
    @property
    def perform(self) -> Callable[..., t.Any]:
        """The function the thunk calls (``perform`` or ``debug_perform``)."""
    @property
    def lazy(self) -> bool:
        """Always ``False``: Python thunks compute all their outputs at once."""

@disjoint_base
class Op:
    """The base of every op. Subclass it and define ``make_node`` and ``perform``
    (the seeds' contract); ``__props__`` gives equality, hash and ``str``."""

    default_output: int | None
    view_map: _IoMap
    destroy_map: _IoMap
    itypes: Sequence[t.Any] | None
    otypes: Sequence[t.Any] | None
    _output_type_depends_on_input_value: bool
    def __new__(cls, *args: t.Any, **kwargs: t.Any) -> Self: ...
    def __init__(self, *args: t.Any, **kwargs: t.Any) -> None: ...
    def __init_subclass__(cls, **_kwargs: t.Any) -> None:
        """Check ``__props__`` and install the props-based ``__str__``."""
    def __call__(self, *inputs: t.Any, **kwargs: t.Any) -> t.Any:
        """``make_node``, then the default output, the only output or all of them."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def make_node(self, *inputs: t.Any) -> Apply:
        """Build the node; the default uses ``itypes`` and ``otypes``."""
    def _props(self) -> tuple[t.Any, ...]:
        """The props' values, in order."""
    def _props_dict(self) -> dict[str, t.Any]:
        """The props as a dict."""
    @property
    def infer_shape(self) -> t.Callable[..., list[tuple[t.Any, ...]]]:
        """A built-in op's `infer_shape(fgraph, node, shapes)`."""
    def do_constant_folding(self, fgraph: t.Any, node: Apply) -> bool:
        """Whether constant folding may precompute this node (``True``)."""
    def prepare_node(
        self, node: Apply, storage_map: t.Any, compute_map: t.Any, impl: t.Any
    ) -> None:
        """Hook called before thunks are made; does nothing by default."""
    def make_py_thunk(
        self,
        node: Apply,
        storage_map: t.Any,
        compute_map: t.Any,
        no_recycling: t.Any,
        debug: bool = False,
    ) -> Thunk:
        """A thunk calling ``perform`` (``debug_perform`` with ``debug``)."""
    def make_thunk(
        self,
        node: Apply,
        storage_map: t.Any,
        compute_map: t.Any,
        no_recycling: t.Any,
        impl: t.Any = None,
    ) -> t.Any:
        """``prepare_node``, then ``make_py_thunk``."""
    def grad(self, inputs: Sequence[t.Any], output_grads: Sequence[t.Any]) -> t.Any:
        """The seeds' gradient; the base forwards to an overridden ``pullback``
        or ``L_op``, else raises ``NotImplementedError``."""
    def L_op(
        self,
        inputs: Sequence[t.Any],
        outputs: Sequence[t.Any],
        output_grads: Sequence[t.Any],
    ) -> t.Any:
        """``pullback`` if overridden, else ``grad``."""
    def pullback(
        self,
        inputs: Sequence[t.Any],
        outputs: Sequence[t.Any],
        cotangents: Sequence[t.Any],
    ) -> t.Any:
        """Vector-Jacobian product: an overridden ``L_op`` or ``grad``."""
    def R_op(self, inputs: Sequence[t.Any], eval_points: Sequence[t.Any]) -> t.Any:
        """The seeds' R-operator: an overridden ``pushforward``."""
    def pushforward(
        self,
        inputs: Sequence[t.Any],
        outputs: Sequence[t.Any],
        tangents: Sequence[t.Any],
    ) -> t.Any:
        """Jacobian-vector product: an overridden ``R_op``."""
    def inplace_on_inputs(self, allowed_inplace_inputs: t.Any) -> Op:
        """An inplace version of this op; the base returns the op itself."""

@disjoint_base
class Elemwise(Op):
    """``Elemwise(scalar_op, inplace_pattern=None, name=None)``: a scalar op
    mapped over broadcast tensors."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(
        cls,
        scalar_op: ScalarOp,
        inplace_pattern: dict[int, int] | None = None,
        name: str | None = None,
        nfunc_spec: t.Any = None,
    ) -> Self: ...
    def __init__(
        self,
        scalar_op: ScalarOp,
        inplace_pattern: dict[int, int] | None = None,
        name: str | None = None,
        nfunc_spec: t.Any = None,
    ) -> None:
        """An ``Elemwise`` of a scalar op written in Python gets its methods."""
    @property
    def scalar_op(self) -> ScalarOp:
        """The scalar op (``Add``, ``Mul``, ...)."""
    @property
    def inplace_pattern(self) -> dict[int, int]:
        """``{output: input}`` pairs computed in place."""
    @property
    def destroy_map(self) -> _IoMap:  # type: ignore[override]
        """``{output: [input]}``, from the inplace pattern."""
    @property
    def name(self) -> str | None:
        """The name given at construction, if any."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class DimShuffle(Op):
    """``DimShuffle(input_ndim=..., new_order=...)``: reorder, drop and insert
    (``"x"``) axes; the output is a view of the input."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, *, input_ndim: int, new_order: Sequence[int | str]) -> Self: ...
    @property
    def input_ndim(self) -> int:
        """The input's rank."""
    @property
    def new_order(self) -> tuple[int | str, ...]:
        """The order, ``"x"`` for new axes."""
    @property
    def shuffle(self) -> list[int]:
        """Kept input axes, in output order."""
    @property
    def drop(self) -> list[int]:
        """Dropped input axes."""
    @property
    def augment(self) -> list[int]:
        """Output positions of new axes."""
    @property
    def view_map(self) -> _IoMap:  # type: ignore[override]
        """``{0: [0]}``."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

@disjoint_base
class CAReduce(Op):
    """A commutative, associative scalar op folded over axes; the base of
    ``Sum``, ``Prod``, ``Max``, ``Min``, ``All`` and ``Any``."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(
        cls,
        scalar_op: t.Any,
        axis: t.Any = None,
        dtype: t.Any = None,
        acc_dtype: t.Any = None,
        upcast_discrete_output: bool = False,
    ) -> CAReduce:
        """``CAReduce(scalar_op, axis)``: folds ``add``, ``mul``, ``maximum``,
        ``minimum`` (``and_``/``or_`` of bools); keeps the input's dtype
        unless ``upcast_discrete_output``."""
    def make_node(self, input: t.Any) -> Apply:  # type: ignore[override]
        """Reduce ``input``; dtypes not given follow PyTensor's defaults."""
    @property
    def scalar_op(self) -> ScalarOp:
        """The folded scalar op (``add``, ``maximum``, ...)."""
    @property
    def axis(self) -> tuple[int, ...] | None:
        """Reduced axes, ``None`` for all."""
    @property
    def dtype(self) -> str | None:
        """Output dtype (``None`` until resolved for an input)."""
    @property
    def acc_dtype(self) -> str | None:
        """Accumulator dtype (``None`` until resolved for an input)."""
    @property
    def upcast_discrete_output(self) -> bool:
        """Sums of small integers widen their output dtype."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

@disjoint_base
class ScalarOp(Op):
    """The base of the scalar op classes; ``Elemwise.scalar_op`` is one."""

    @property
    def name(self) -> str:
        """The instance name, e.g. ``add``."""
    @property
    def nin(self) -> int:
        """Number of inputs (``-1``: any number)."""
    @property
    def nout(self) -> int:
        """Number of outputs (1)."""
    @property
    def commutative(self) -> bool:
        """Whether inputs may be swapped."""
    @property
    def associative(self) -> bool:
        """Whether the op takes any number of inputs and groups freely."""
    def output_dtype(self, *dtypes: t.Any) -> str:
        """The output dtype for these input dtypes."""
    def __reduce__(self) -> tuple[t.Any, tuple[str]]: ...

def matmul(x1: t.Any, x2: t.Any) -> TensorVariable:
    """NumPy's ``matmul`` (``x1 @ x2``): one ``Matmul`` node.

    Vectors get ``ExpandDims`` before it and ``Squeeze`` after it.
    """

def scalar_op(name: str) -> ScalarOp:
    """The shared scalar op instance named ``add``, ``mul``, ..."""

def elemwise_op(scalar_op: ScalarOp) -> Elemwise:
    """The shared ``Elemwise`` of a scalar op."""

def softmax(x: t.Any, axis: _Axis = None) -> TensorVariable:
    """``Softmax`` along ``axis`` (negative axes count from the end)."""

def log_softmax(x: t.Any, axis: _Axis = None) -> TensorVariable:
    """``LogSoftmax`` along ``axis`` (negative axes count from the end)."""

def logsumexp(x: t.Any, axis: _Axis = None, keepdims: bool = False) -> TensorVariable:
    """``LogSumExp`` over ``axis``, the axes kept as length 1 with ``keepdims``."""

def argmax(x: t.Any, axis: _Axis = None, keepdims: bool = False) -> TensorVariable:
    """``Argmax`` over ``axis``, the axes kept as length 1 with ``keepdims``."""

def var(
    x: t.Any,
    axis: t.Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    corrected: bool = False,
) -> TensorVariable:
    """Variance over ``axis`` (NumPy's ``ddof``), built by the core."""

def std(
    x: t.Any,
    axis: t.Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    corrected: bool = False,
) -> TensorVariable:
    """Standard deviation over ``axis`` (NumPy's ``ddof``), built by the core."""

def getitem(x: t.Any, args: t.Any, kind: str | None = None) -> TensorVariable:
    """``x[args]`` by NumPy's rules; ``kind`` ``"basic"`` or ``"advanced"``
    forces the op."""

def inc_subtensor(
    x: t.Any,
    y: t.Any,
    inplace: bool = False,
    set_instead_of_inc: bool = False,
    ignore_duplicates: bool = False,
) -> TensorVariable:
    """``x``'s indexed tensor with ``x``'s region incremented by (or set to) ``y``."""

def take(a: t.Any, indices: t.Any, axis: int | None = None) -> TensorVariable:
    """``a``'s elements at ``indices`` along ``axis`` (of ``a`` flattened if None)."""


def _parse_gufunc_signature(
    signature: str,
) -> tuple[list[list[str]], list[list[str]]]:
    """The core dim names of each input and output of ``"(m,n),(n)->(m)"``."""

def _einsum_plan(subscripts: str, shapes: list[tuple[int | None, ...]]) -> dict[str, t.Any]:
    """The core's einsum plan: ``path``, ``optimized``, ``broadcast_label``
    and ``steps`` (``(operands, prepare, dot, transpose)`` each)."""
