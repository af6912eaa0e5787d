"""Type stub for ``oxtensor._core``, the PyO3 extension (``crates/oxtensor-py``).

Written by hand and checked against the built module by
``python -m mypy.stubtest oxtensor._core`` (``make lint``). Users import these
names through the PyTensor-shaped modules (``oxtensor.graph.basic.Variable``,
``oxtensor.tensor.type.TensorType``, ...), not from ``_core``.
"""

import os
import typing as t
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar, TypeAlias

from typing_extensions import Self, disjoint_base

# PyO3 generates the runtime __all__; stubtest checks this copy of it.
# fmt: off
__all__ = [
    "QR",
    "SVD",
    "ARange",
    "AdvancedIncSubtensor",
    "AdvancedIncSubtensor1",
    "AdvancedSubtensor",
    "AdvancedSubtensor1",
    "All",
    "Alloc",
    "AllocEmpty",
    "AlreadyThere",
    "Any",
    "Apply",
    "ArgSortOp",
    "Argmax",
    "Argmin",
    "Bincount",
    "CAReduce",
    "Cast",
    "CentredSquares",
    "Cholesky",
    "CholeskyGrad",
    "Composite",
    "CorePass",
    "CumOp",
    "DestroyHandler",
    "Det",
    "DimShuffle",
    "DisconnectedInputError",
    "DisconnectedType",
    "Dot",
    "Eigh",
    "EighGrad",
    "Eigvalsh",
    "Elemwise",
    "Eye",
    "Function",
    "FunctionGraph",
    "FunctionRecipe",
    "GradOp",
    "GraphPickle",
    "GraphRewriter",
    "IfElse",
    "IncSubtensor",
    "InconsistencyError",
    "InternalError",
    "Join",
    "LogSoftmax",
    "LogSumExp",
    "MakeVector",
    "Matmul",
    "MatrixInverse",
    "Max",
    "MethodNotDefined",
    "Min",
    "MissingInputError",
    "Mode",
    "NodeRewriter",
    "Nonzero",
    "NullType",
    "NullTypeGradError",
    "Op",
    "Prod",
    "ProfileStats",
    "QRGrad",
    "Repeat",
    "Reshape",
    "RewriteDatabase",
    "RewriteDatabaseQuery",
    "RewriteProfile",
    "SLogDet",
    "ScalarOp",
    "Scratchpad",
    "Shape",
    "Shape_i",
    "Softmax",
    "Solve",
    "SortOp",
    "SpecifyShape",
    "Split",
    "Subtensor",
    "Sum",
    "TakeAlongAxis",
    "TensorType",
    "TensorVariable",
    "Thunk",
    "Type",
    "UnusedInputError",
    "Variable",
    "_blas",
    "_blas_engines",
    "_blas_machine",
    "_blas_products",
    "_floatx",
    "_grad",
    "_grad_op",
    "_install_blas",
    "_panic",
    "_pushforward",
    "_register",
    "_set_floatx",
    "_simd",
    "ancestors",
    "applys_between",
    "argmax",
    "as_tensor_variable",
    "clone_get_equiv",
    "clone_replace",
    "composite_from_state",
    "composite_reduce_from_state",
    "constant",
    "debug_tolerance",
    "debugprint",
    "elemwise_op",
    "equal_computations",
    "equilibrium_pass",
    "fast_inplace_check",
    "function_recipe",
    "graph_inputs",
    "inplace_candidates",
    "io_toposort",
    "log_softmax",
    "logsumexp",
    "matmul",
    "merge_pass",
    "optdb_object",
    "orphans_between",
    "scalar_kinds",
    "scalar_op",
    "sequential_pass",
    "softmax",
    "toposort",
    "vars_between",
    "walking_pass",
]
# fmt: on

_IoMap: TypeAlias = dict[int, list[int]]
_Client: TypeAlias = tuple[Apply | str, int]
_Axis: TypeAlias = int | Sequence[int] | None
_NewArgs: TypeAlias = tuple[tuple[t.Any, ...], dict[str, t.Any]]

# ---- exceptions ---------------------------------------------------------------

class InconsistencyError(Exception):
    """A change would leave the graph inconsistent (a cycle, a double destroy, ...)."""

class MissingInputError(Exception):
    """A graph needs a variable that was not given as an input."""

class AlreadyThere(Exception):
    """Raised by a feature's ``on_attach`` to cancel attaching it."""

class MethodNotDefined(Exception):
    """A method the caller relies on is not defined on this Op."""

class DisconnectedInputError(ValueError):
    """A gradient was asked for a variable the cost does not depend on."""

class NullTypeGradError(TypeError):
    """An undefined (NullType) gradient reached a requested variable."""

class UnusedInputError(Exception):
    """An input of a function is not needed to compute its outputs."""

class InternalError(Exception):
    """An internal invariant of oxtensor failed: a bug in oxtensor, not in the
    caller's code (a Rust panic, caught where the extension calls the core)."""

# ---- graph objects ------------------------------------------------------------

@t.final
class Scratchpad:
    """The attribute bag behind every ``tag``: accepts any attribute."""

    def __new__(cls) -> Self: ...
    def __update__(self, other: t.Any) -> None:
        """Copy another scratchpad's (or a dict's) attributes into this one."""
    def info(self) -> None:
        """Print the attributes, one per line."""

@disjoint_base
class Variable:
    """A value in a graph: a root, a constant or a node's output.

    ``Variable(type, owner=None, index=None, name=None)``. Equality and hash
    are identity; subclasses (``TensorVariable``, ``Constant``) share the layout.
    """

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
        self, axis: int | None = -1, kind: str = "quicksort", order: t.Any = None
    ) -> TensorVariable: ...
    def argsort(
        self, axis: int | None = -1, kind: str = "quicksort", order: t.Any = None
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
    def ptp(self, axis: _Axis = None) -> TensorVariable: ...
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
    def zeros_like(model, dtype: t.Any = None) -> TensorVariable: ...
    def ones_like(model, dtype: t.Any = None) -> TensorVariable: ...
    def ravel(self) -> TensorVariable: ...
    def transfer(self, target: t.Any) -> TensorVariable: ...
    def diagonal(
        self, offset: int = 0, axis1: int = 0, axis2: int = 1
    ) -> TensorVariable: ...
    def trace(self) -> TensorVariable: ...
    def compress(self, a: t.Any, axis: int | None = None) -> TensorVariable: ...
    def get_underlying_scalar_constant(self) -> t.Any: ...
    @property
    def size(self) -> TensorVariable:
        """The number of elements, as a symbolic int64 scalar."""
    @property
    def mT(self) -> TensorVariable:
        """The transpose of the last two axes."""
    @property
    def owner_op_and_inputs(self) -> tuple[t.Any, ...]:
        """``(op, *inputs)`` of the node computing ``x``, or ``(None,)``."""

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

# ---- ops ----------------------------------------------------------------------

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

class Sum(CAReduce):
    """``Sum(axis=None, dtype=None, acc_dtype=None)``."""

    def __new__(
        cls, axis: _Axis = None, dtype: t.Any = None, acc_dtype: t.Any = None
    ) -> Self: ...

class Prod(CAReduce):
    """``Prod(axis=None, dtype=None, acc_dtype=None)``."""

    def __new__(
        cls, axis: _Axis = None, dtype: t.Any = None, acc_dtype: t.Any = None
    ) -> Self: ...

class Max(CAReduce):
    """``Max(axis=None)``."""

    def __new__(
        cls, axis: _Axis = None, dtype: t.Any = None, acc_dtype: t.Any = None
    ) -> Self: ...

class Min(CAReduce):
    """``Min(axis=None)``."""

    def __new__(
        cls, axis: _Axis = None, dtype: t.Any = None, acc_dtype: t.Any = None
    ) -> Self: ...

class All(CAReduce):
    """``All(axis=None)``: logical and."""

    def __new__(
        cls, axis: _Axis = None, dtype: t.Any = None, acc_dtype: t.Any = None
    ) -> Self: ...

class Any(CAReduce):  # type: ignore[no-redef]
    """``Any(axis=None)``: logical or (``oxtensor.tensor.math.Any_``)."""

    def __new__(
        cls, axis: _Axis = None, dtype: t.Any = None, acc_dtype: t.Any = None
    ) -> Self: ...

class Shape(Op):
    """``Shape()``: the input's shape as an int64 vector."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """``[[False]]``: only the shape matters, not the elements."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Shape_i(Op):
    """``Shape_i(i)``: the length of axis ``i``."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, i: int) -> Self: ...
    @property
    def i(self) -> int:
        """The axis."""
    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """``[[False]]``: only the shape matters, not the elements."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Reshape(Op):
    """``Reshape(ndim)``: inputs are the tensor and its new shape."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, ndim: int) -> Self: ...
    @property
    def ndim(self) -> int:
        """The output rank."""
    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """``[[True], [False]]``: the shape input is not differentiable."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Dot(Op):
    """``Dot()``: inner, matrix-vector and matrix products."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Matmul(Op):
    """``Matmul()``: stacked matrix products, batch axes broadcast."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class MatrixInverse(Op):
    """``MatrixInverse()``: the inverse of a square matrix."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Det(Op):
    """``Det()``: the determinant of a square matrix."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class SLogDet(Op):
    """``SLogDet()``: the sign and log absolute value of the determinant."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Solve(Op):
    """``Solve(assume_a="gen", lower=False, b_ndim=1)``: ``x`` with ``a @ x = b``."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(
        cls, assume_a: str = "gen", lower: bool = False, b_ndim: int = 1
    ) -> Self: ...
    @property
    def assume_a(self) -> str:
        """The structure assumed of ``a`` (only ``"gen"``)."""
    @property
    def lower(self) -> bool:
        """Which triangle a structured solve reads."""
    @property
    def b_ndim(self) -> int:
        """The rank of ``b``."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Cholesky(Op):
    """``Cholesky(lower=True, on_error="nan")``: the Cholesky factor."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, lower: bool = True, on_error: str = "nan") -> Self: ...
    @property
    def lower(self) -> bool:
        """Lower (``L``) or upper (``L.T``) factor."""
    @property
    def on_error(self) -> str:
        """``"nan"`` or ``"raise"`` for a matrix that is not positive definite."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class CholeskyGrad(Op):
    """``CholeskyGrad(lower=True)``: the gradient of ``Cholesky``.

    Inputs: the factor and its gradient.
    """

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, lower: bool = True) -> Self: ...
    @property
    def lower(self) -> bool:
        """Whether the factor is lower triangular."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Eigh(Op):
    """``Eigh(lower=True)``: eigenvalues (ascending) and eigenvectors."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, lower: bool = True) -> Self: ...
    @property
    def lower(self) -> bool:
        """Which triangle of the input is read."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Eigvalsh(Op):
    """``Eigvalsh(lower=True)``: eigenvalues (ascending) alone."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, lower: bool = True) -> Self: ...
    @property
    def lower(self) -> bool:
        """Which triangle of the input is read."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class EighGrad(Op):
    """``EighGrad(lower=True)``: the gradient of ``Eigh`` (inputs: w, v, gw, gv)."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, lower: bool = True) -> Self: ...
    @property
    def lower(self) -> bool:
        """Which triangle of the input is read."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class SVD(Op):
    """``SVD(full_matrices=True, compute_uv=True)``: ``[U, s, Vh]`` or ``[s]``."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, full_matrices: bool = True, compute_uv: bool = True) -> Self: ...
    @property
    def full_matrices(self) -> bool:
        """Square ``U`` and ``Vh``."""
    @property
    def compute_uv(self) -> bool:
        """Whether ``U`` and ``Vh`` are outputs."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class QR(Op):
    """``QR(mode="full")``: ``[Q, R]``, or ``[R]`` for ``mode="r"``."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, mode: str = "full") -> Self: ...
    @property
    def mode(self) -> str:
        """The decomposition's mode."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class QRGrad(Op):
    """``QRGrad()``: the gradient of ``QR`` (inputs: Q, R, gQ, gR)."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class GradOp(Op):
    """The gradient-shaping identities (``zero_grad``, ``grad_clip``, ...);
    ``str`` names the kind."""

    __props__: ClassVar[tuple[str, ...]]
    @property
    def view_map(self) -> _IoMap:  # type: ignore[override]
        """A view of the input."""

class IfElse(Op):
    """``IfElse(n_outs)``: the first ``n_outs`` branch inputs if the condition
    holds, else the next ``n_outs``; only the chosen branch is computed."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(
        cls, n_outs: int, as_view: bool = False, name: str | None = None
    ) -> Self:
        """``as_view`` and ``name`` are accepted and ignored."""
    @property
    def n_outs(self) -> int:
        """Number of outputs."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

# ---- indexing (oxtensor.tensor.subtensor) -----------------------------------

_IdxList: TypeAlias = tuple[int | slice, ...]

class Subtensor(Op):
    """``Subtensor(idx_list)``: basic indexing, a view of the input. Entries
    are positions of the index inputs (integers, slice bounds)."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, idx_list: t.Any) -> Self: ...
    @property
    def idx_list(self) -> _IdxList:
        """One entry per indexed axis: an input position or a slice of them."""
    @property
    def view_map(self) -> _IoMap:  # type: ignore[override]
        """``{0: [0]}``."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class IncSubtensor(Op):
    """``IncSubtensor(idx_list, inplace=False, set_instead_of_inc=False)``:
    ``x`` with ``x[idx]`` incremented by (or set to) ``y``, in a copy."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(
        cls,
        idx_list: t.Any,
        inplace: bool = False,
        set_instead_of_inc: bool = False,
        destroyhandler_tolerate_aliased: t.Any = None,
    ) -> Self:
        """``inplace=True`` is not supported yet (``NotImplementedError``)."""
    @property
    def idx_list(self) -> _IdxList:
        """One entry per indexed axis: an input position or a slice of them."""
    @property
    def inplace(self) -> bool:
        """Always ``False``."""
    @property
    def set_instead_of_inc(self) -> bool:
        """Set instead of increment."""
    @property
    def destroyhandler_tolerate_aliased(self) -> tuple[t.Any, ...]:
        """Always ``()``."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class AdvancedSubtensor1(Op):
    """``AdvancedSubtensor1()``: ``x[ilist]`` for one integer vector on axis 0."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class AdvancedIncSubtensor1(Op):
    """``AdvancedIncSubtensor1(inplace=False, set_instead_of_inc=False)``:
    inputs ``x``, ``y``, ``ilist``; repeated indices accumulate."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, inplace: bool = False, set_instead_of_inc: bool = False) -> Self:
        """``inplace=True`` is not supported yet (``NotImplementedError``)."""
    @property
    def inplace(self) -> bool:
        """Always ``False``."""
    @property
    def set_instead_of_inc(self) -> bool:
        """Set instead of increment."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class AdvancedSubtensor(Op):
    """``AdvancedSubtensor(idx_list)``: integer arrays and boolean masks mixed
    with slices, with NumPy's semantics."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, idx_list: t.Any) -> Self: ...
    @property
    def idx_list(self) -> _IdxList:
        """One entry per index: an input position or a slice of them."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class AdvancedIncSubtensor(Op):
    """``AdvancedIncSubtensor(idx_list, inplace=False, set_instead_of_inc=False,
    ignore_duplicates=False)``: repeated indices accumulate when incrementing."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(
        cls,
        idx_list: t.Any,
        inplace: bool = False,
        set_instead_of_inc: bool = False,
        ignore_duplicates: bool = False,
    ) -> Self:
        """``inplace`` and ``ignore_duplicates`` are not supported yet."""
    @property
    def idx_list(self) -> _IdxList:
        """One entry per index: an input position or a slice of them."""
    @property
    def inplace(self) -> bool:
        """Always ``False``."""
    @property
    def set_instead_of_inc(self) -> bool:
        """Set instead of increment."""
    @property
    def ignore_duplicates(self) -> bool:
        """Always ``False``."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

# ---- shape, creation and joining ops -------------------------------------------

class _PlainOp(Op):
    __props__: ClassVar[tuple[str, ...]]
    _output_type_depends_on_input_value: ClassVar[bool]  # type: ignore[misc]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class SpecifyShape(_PlainOp):
    """``SpecifyShape()``: inputs are the tensor and one length per axis (-1: any)."""

    @property
    def view_map(self) -> dict[int, list[int]]:  # type: ignore[override]
        """The output is a view of the input."""

class Alloc(_PlainOp):
    """``Alloc()``: inputs are the value and one length per output axis."""

class Join(_PlainOp):
    """``Join()``: inputs are the axis and the tensors."""

class _DtypeOp(Op):
    __props__: ClassVar[tuple[str, ...]]
    _output_type_depends_on_input_value: ClassVar[bool]  # type: ignore[misc]
    def __new__(cls, dtype: t.Any = None) -> Self: ...
    @property
    def dtype(self) -> str:
        """The output dtype."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class AllocEmpty(_DtypeOp):
    """``AllocEmpty(dtype)``: an uninitialised array of the given shape."""

class ARange(_DtypeOp):
    """``ARange(dtype)``: inputs are start, stop and step."""

class Eye(_DtypeOp):
    """``Eye(dtype)``: inputs are n, m and the diagonal k."""

class MakeVector(_DtypeOp):
    """``MakeVector(dtype='int64')``: a vector from scalars."""

class Split(Op):
    """``Split(len_splits)``: inputs are the tensor, the axis and the lengths."""

    __props__: ClassVar[tuple[str, ...]]
    _output_type_depends_on_input_value: ClassVar[bool]  # type: ignore[misc]
    def __new__(cls, len_splits: int) -> Self: ...
    @property
    def len_splits(self) -> int:
        """The number of outputs."""
    @property
    def view_map(self) -> dict[int, list[int]]:  # type: ignore[override]
        """Every output is a view of the input."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Bincount(Op):
    """``Bincount(minlength=0)``: inputs are the integer vector and optionally
    the weights; int64 counts, or sums in the weights' dtype."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, minlength: int = 0) -> Self: ...
    @property
    def minlength(self) -> int:
        """The least number of bins."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Repeat(Op):
    """``Repeat(axis)``: inputs are the tensor and the repeats."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, axis: int) -> Self: ...
    @property
    def axis(self) -> int:
        """The axis."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

# ---- scalar ops ---------------------------------------------------------------

@disjoint_base
class ScalarOp(Op):
    """The base of the scalar op classes; ``Elemwise.scalar_op`` is one."""

    def __new__(cls, *_args: t.Any, **_kwargs: t.Any) -> Self: ...
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

class Cast(ScalarOp):
    """``Cast(dtype)``: conversion to a dtype; prints as ``Cast{float64}``."""

    def __new__(cls, dtype: t.Any) -> Self: ...
    @property
    def o_dtype(self) -> str:
        """The target dtype."""

class Composite(ScalarOp):
    """``Composite{...}``: a scalar graph run as one op, made by fusion."""

# ---- types --------------------------------------------------------------------

@disjoint_base
class Type:
    """The base of all types; subclass it and define ``filter``."""

    variable_type: ClassVar[type[Variable]]
    def __new__(cls, *args: t.Any, **kwargs: t.Any) -> Self: ...
    def __call__(self, name: str | None = None) -> Variable:
        """A new variable of this type: ``dmatrix("x")``."""
    def make_variable(self, name: str | None = None) -> Variable:
        """A new variable of class ``variable_type``."""
    def make_constant(self, value: t.Any, name: str | None = None) -> Variable:
        """A constant of class ``constant_type`` holding ``filter(value)``."""
    @property
    def constant_type(self) -> type[Variable]:
        """The class of constants of this type (``TensorConstant`` for tensors)."""
    def filter(
        self, data: t.Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> t.Any:
        """Validate or convert a runtime value; the base raises."""
    def filter_variable(self, other: t.Any, allow_convert: bool = True) -> Variable:
        """``other`` as a variable of this type, or ``TypeError``."""
    def convert_variable(self, var: Variable) -> Variable | None:
        """``var`` if this type is a supertype of its type, else ``None``."""
    def is_valid_value(self, data: t.Any, strict: bool = True) -> bool:
        """Whether ``filter`` accepts the value."""
    def in_same_class(self, otype: t.Any) -> bool:
        """Same class of types (default: equality)."""
    def is_super(self, otype: t.Any) -> bool | None:
        """``True`` if every value of ``otype`` fits this type, else ``None``."""
    def values_eq(self, a: t.Any, b: t.Any) -> bool:
        """Whether two values are equal."""
    def values_eq_approx(self, a: t.Any, b: t.Any) -> bool:
        """Whether two values are approximately equal (default: ``values_eq``)."""
    def clone(self, *args: t.Any, **kwargs: t.Any) -> t.Any:
        """A new instance built with the given arguments."""

@disjoint_base
class TensorType(Type):
    """``TensorType(dtype, shape=None, name=None, broadcastable=None)``: a dtype
    and a static shape (``None`` where a length is unknown)."""

    __props__: ClassVar[tuple[str, ...]]
    variable_type: ClassVar[type[TensorVariable]]
    def __new__(
        cls,
        dtype: t.Any,
        shape: Iterable[int | bool | None] | None = None,
        name: str | None = None,
        broadcastable: Iterable[bool] | None = None,
    ) -> Self: ...
    def __call__(
        self, name: str | None = None, shape: t.Any = None
    ) -> TensorVariable: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[t.Any, tuple[str, tuple[int | None, ...]]]: ...
    @property
    def dtype(self) -> str:
        """The element type (``"float64"``)."""
    @property
    def shape(self) -> tuple[int | None, ...]:
        """The static shape."""
    @property
    def ndim(self) -> int:
        """Number of dimensions."""
    @property
    def broadcastable(self) -> tuple[bool, ...]:
        """Which dimensions are statically 1."""
    @property
    def name(self) -> str | None:
        """The name given at construction, if any."""
    def make_variable(self, name: str | None = None) -> TensorVariable:
        """A new ``TensorVariable`` of this type."""
    def filter(
        self, data: t.Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> t.Any:
        """The value as an ndarray of this type, or ``TypeError`` saying why not."""
    def in_same_class(self, otype: t.Any) -> bool:
        """Same dtype and broadcastable pattern."""
    def is_super(self, otype: t.Any) -> bool | None:
        """Same dtype and rank, each static length unknown here or equal."""
    def convert_variable(self, var: Variable) -> Variable | None:
        """``var`` if this type is a supertype of its type, else ``None``
        (no ``SpecifyShape`` yet)."""
    def clone(self, dtype: t.Any = None, shape: t.Any = None) -> TensorType:  # type: ignore[override]
        """A copy with another dtype and/or shape."""
    def values_eq(  # type: ignore[override]
        self, a: t.Any, b: t.Any, force_same_dtype: bool = True
    ) -> bool:
        """Same shape (and dtype, if forced) and equal values, NaN matching NaN."""
    def values_eq_approx(  # type: ignore[override]
        self,
        a: t.Any,
        b: t.Any,
        allow_remove_inf: bool = False,
        allow_remove_nan: bool = False,
        rtol: float | None = None,
        atol: float | None = None,
    ) -> bool:
        """``values_eq`` up to the dtype's tolerance."""

@disjoint_base
class NullType(Type):
    """``NullType(why_null)``: the type of undefined gradients."""

    def __new__(cls, why_null: str = ...) -> Self:
        """``why_null`` defaults to ``"(no explanation given)"``."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    @property
    def why_null(self) -> str:
        """Why the gradient is undefined."""
    def filter(
        self, data: t.Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> t.Any:
        """Always raises ``ValueError``."""
    def filter_variable(self, other: t.Any, allow_convert: bool = True) -> t.Any:
        """Always raises ``ValueError``."""
    def values_eq(self, a: t.Any, b: t.Any) -> bool:
        """Always raises ``ValueError``."""

class DisconnectedType(Type):
    """Marks a gradient that is zero because the cost does not depend on it."""

    def __new__(cls) -> Self: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def filter(
        self, data: t.Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> t.Any:
        """Always raises ``AssertionError``."""
    def filter_variable(self, other: t.Any, allow_convert: bool = True) -> t.Any:
        """Always raises ``AssertionError``."""

# ---- FunctionGraph ------------------------------------------------------------

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
        self, pairs: Iterable[t.Any], reason: t.Any = None, **_kwargs: t.Any
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
    def remove_output(self, idx: int, reason: t.Any = None) -> None:
        """Remove output ``idx``; later outputs shift down."""
    def attach_feature(self, feature: t.Any) -> None:
        """Attach a feature; ``AlreadyThere`` from ``on_attach`` skips it."""
    def remove_feature(self, feature: t.Any) -> None:
        """Detach a feature, calling its ``on_detach``."""
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

def debug_tolerance(dtype: str) -> tuple[float, float]:
    """``(atol, rtol)`` DebugMode compares results of ``dtype`` with."""

def inplace_candidates(
    fgraph: t.Any, inputs: t.Any, protected_inputs: t.Any = None
) -> list[t.Any]:
    """The inputs an inplace rewrite may try to destroy."""

def fast_inplace_check(fgraph: t.Any, inputs: t.Any) -> list[t.Any]:
    """The inputs that are not constants, destroyed or protected."""

# ---- compiled functions -------------------------------------------------------

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
        linker: str | None = None,
        optimizer: str | None = ...,
        *,
        checks: str | None = None,
    ) -> Mode: ...
    @property
    def linker(self) -> str:
        """The linker's name."""
    @property
    def checks(self) -> str | None:
        """The checks every node runs under: ``"debug"`` (DebugMode),
        ``"view_maps"`` (``config.check_view_maps``) or None."""
    def with_view_map_checks(self) -> Mode:
        """This mode with the view-map check (DebugMode stays as it is)."""
    @property
    def provided_optimizer(self) -> str:
        """The optimizer's name, as given."""
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
    def summary(self) -> str:
        """The report as text, nodes sorted by time."""

# ---- pickling -----------------------------------------------------------------

@t.final
class GraphPickle:
    """The flat form graph objects pickle as: ``GraphPickle(classes)`` makes
    empty objects, ``__setstate__`` fills them, ``g[k]`` is object ``k``."""

    def __new__(cls, classes: Iterable[type]) -> Self: ...
    def __setstate__(self, state: Iterable[tuple[t.Any, ...]]) -> None:
        """Fill the objects' fields (one tuple per object)."""
    def __getitem__(self, key: int, /) -> t.Any:
        """Object ``key``."""
    def __len__(self) -> int:
        """Number of objects."""

# ---- functions ----------------------------------------------------------------

def _grad(
    cost: Variable | None,
    wrt: list[Variable],
    consider_constant: list[Variable],
    known_grads: list[tuple[Variable, Variable]],
    disconnected_inputs: str,
    add_names: bool,
    return_disconnected: str,
    null_gradients: str,
) -> list[t.Any]:
    """The core of ``oxtensor.grad``."""

def _pushforward(
    f: list[Variable],
    wrt: list[Variable],
    tangents: list[Variable],
    use_op_pushforward: bool,
    disconnected_outputs: str,
    return_disconnected: str,
) -> list[t.Any]:
    """The core of ``oxtensor.pushforward`` and ``Rop``."""

def _grad_op(x: t.Any, kind: str, a: float = 0.0, b: float = 0.0) -> t.Any:
    """``zero_grad``, ``disconnected_grad``, ``undefined_grad``, ``grad_clip``,
    ``grad_scale``."""

def matmul(x1: t.Any, x2: t.Any) -> TensorVariable:
    """NumPy's ``matmul`` (``x1 @ x2``): one ``Matmul`` node.

    Vectors get ``ExpandDims`` before it and ``Squeeze`` after it.
    """

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

def _install_blas(
    path: str | os.PathLike[str] | None,
    name: str = "",
    prefix: str = "",
    suffix: str = "",
    ilp64: bool = False,
    min_work: int = ...,  # 2**27: the core's MIN_WORK
    kernel: str = "",
    families: list[str] | None = None,
) -> None:
    """Linear algebra to the BLAS/LAPACK at ``path`` (None: back to faer):
    the ``families`` listed, or (None) those the machine's facts pick."""

def _blas() -> str | None:
    """The library large real products go to, or None for faer."""

def _blas_engines() -> list[tuple[str, str | None]]:
    """Each family and the library it runs on (None: faer)."""

def _blas_machine() -> tuple[bool, str | None, bool]:
    """(CPU has AVX-512F, the library's kernel name, it is AVX-512)."""

def _blas_products() -> int:
    """How many matrix products a host library has run in this process."""

def _set_floatx(name: str) -> None:
    """Sets the core's ``floatX`` (``"float32"`` or ``"float64"``)."""

def _floatx() -> str:
    """The core's ``floatX``."""

def _simd() -> tuple[str, str, str | None]:
    """(SIMD level the kernels run, widest the CPU runs, why OXTENSOR_SIMD
    was ignored or None); levels are "baseline", "avx2", "avx512"."""

def composite_from_state(state: t.Any) -> t.Any:
    """The ``Composite`` scalar op a pickle saved as ``state``."""

def composite_reduce_from_state(
    axis: t.Any, dtype: t.Any, acc_dtype: t.Any, state: t.Any
) -> t.Any:
    """The fused ``Sum`` (``CAReduce{Composite}``) a pickle saved."""

def _panic(message: str) -> None:
    """Panics inside the extension with ``message``, as a core bug would: the
    test suite checks that this reaches Python as `InternalError`, quietly."""

def _register(name: str, obj: t.Any) -> None:
    """Called by the Python package at import: the classes Rust instantiates."""

def scalar_op(name: str) -> ScalarOp:
    """The shared scalar op instance named ``add``, ``mul``, ..."""

def scalar_kinds() -> list[tuple[type[ScalarOp], ScalarOp, str, bool, bool, bool]]:
    """The scalar table, one tuple per kind: ``(class, shared instance, module
    attribute name, special, method, fused)``; the classes (``Add``, ``Exp``,
    ...) live in ``oxtensor.scalar``."""

def elemwise_op(scalar_op: ScalarOp) -> Elemwise:
    """The shared ``Elemwise`` of a scalar op."""

def constant(
    x: t.Any, name: str | None = None, ndim: int | None = None, dtype: t.Any = None
) -> TensorVariable:
    """A ``TensorConstant`` with PyTensor's autocasting and full static shape."""

def as_tensor_variable(
    x: t.Any, name: str | None = None, ndim: int | None = None, dtype: t.Any = None
) -> TensorVariable:
    """``x`` as a tensor variable: variables as they are, data as constants."""

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
    **_kwargs: t.Any,
) -> t.Any:
    """PyTensor's ``debugprint``: to stdout, to ``file``, or as text (``"str"``)."""

def ancestors(graphs: t.Any, blockers: t.Any = None) -> list[Variable]:
    """Every variable the graphs depend on (graphs included), depth first."""

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

# ---- axis-wise ops: softmax family, logsumexp, argmax, sorting, running ops

class Softmax(Op):
    """``Softmax(axis=None)``: ``exp(x) / sum(exp(x))`` along one axis."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, axis: _Axis = None) -> Self: ...
    @property
    def axis(self) -> tuple[int, ...] | None:
        """The axis as a 1-tuple, ``None`` for all elements."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class LogSoftmax(Op):
    """``LogSoftmax(axis=None)``: ``x - logsumexp(x)`` along one axis."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, axis: _Axis = None) -> Self: ...
    @property
    def axis(self) -> tuple[int, ...] | None:
        """The axis as a 1-tuple, ``None`` for all elements."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class LogSumExp(Op):
    """``LogSumExp(axis=None)``: ``log(sum(exp(x), axis))`` in one op."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, axis: _Axis = None) -> Self: ...
    @property
    def axis(self) -> tuple[int, ...] | None:
        """Reduced axes, ``None`` for all."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Argmax(Op):
    """``Argmax(axis=None)``: int64 positions of the maxima."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, axis: _Axis = None) -> Self: ...
    @property
    def axis(self) -> tuple[int, ...] | None:
        """Reduced axes, ``None`` for all."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class Argmin(Op):
    """``Argmin(axis=None)``: int64 positions of the minima."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, axis: _Axis = None) -> Self: ...
    @property
    def axis(self) -> tuple[int, ...] | None:
        """Reduced axes, ``None`` for all."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class CentredSquares(Op):
    """The sum of squared deviations from the mean (``var``'s numerator)."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(
        cls, axis: _Axis = None, mean_acc: t.Any = None, sum_acc: t.Any = None
    ) -> Self: ...
    @property
    def axis(self) -> tuple[int, ...] | None:
        """Reduced axes, ``None`` for all."""
    @property
    def mean_acc(self) -> str:
        """Accumulator dtype of the mean's sum."""
    @property
    def sum_acc(self) -> str:
        """Accumulator dtype of the squares' sum."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class SortOp(Op):
    """``SortOp(kind='quicksort')``: inputs are the tensor and the axis."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, kind: str = "quicksort", order: t.Any = None) -> Self: ...
    @property
    def kind(self) -> str:
        """NumPy's algorithm name (kept for printing and equality)."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class ArgSortOp(Op):
    """``ArgSortOp(kind='quicksort')``: int64 indices that sort along the axis."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, kind: str = "quicksort", order: t.Any = None) -> Self: ...
    @property
    def kind(self) -> str:
        """NumPy's algorithm name (kept for printing and equality)."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class TakeAlongAxis(Op):
    """``TakeAlongAxis()``: values picked along an axis by int64 indices
    shaped like them (inputs: values, indices, axis)."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

class CumOp(Op):
    """``CumOp(axis, mode='add')``: running sum (``add``) or product (``mul``)."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, axis: t.Any, mode: str = "add") -> Self: ...
    @property
    def axis(self) -> int:
        """The axis."""
    @property
    def mode(self) -> str:
        """``"add"`` or ``"mul"``."""
    def __getnewargs_ex__(self) -> _NewArgs:
        """The constructor's arguments, for ``copy`` and ``pickle``."""

def softmax(x: t.Any, axis: _Axis = None) -> TensorVariable:
    """``Softmax`` along ``axis`` (negative axes count from the end)."""

def log_softmax(x: t.Any, axis: _Axis = None) -> TensorVariable:
    """``LogSoftmax`` along ``axis`` (negative axes count from the end)."""

def logsumexp(x: t.Any, axis: _Axis = None, keepdims: bool = False) -> TensorVariable:
    """``LogSumExp`` over ``axis``, the axes kept as length 1 with ``keepdims``."""

def argmax(x: t.Any, axis: _Axis = None, keepdims: bool = False) -> TensorVariable:
    """``Argmax`` over ``axis``, the axes kept as length 1 with ``keepdims``."""

class Nonzero(Op):
    """``Nonzero()``: the nonzero elements' coordinates, one int64 vector per axis."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls) -> Self: ...
    def __getnewargs_ex__(self) -> _NewArgs: ...

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
    rewriters: t.Any, order: str, ignore_newtrees: bool, name: str
) -> CorePass:
    """A walk over node rewriters."""

def equilibrium_pass(
    node_rewriters: t.Any,
    global_rewriters: t.Any,
    final_rewriters: t.Any,
    cleanup_rewriters: t.Any,
    name: str,
) -> CorePass:
    """An equilibrium over node rewriters with global, final and cleanup passes."""

def sequential_pass(rewriters: t.Any, name: str) -> CorePass:
    """Graph rewriters in order."""

def merge_pass() -> CorePass:
    """Merging of equal constants and twin nodes."""

def optdb_object() -> RewriteDatabase:
    """The process-wide database of compilation phases."""
