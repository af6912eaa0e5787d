"""Annotations of `oxtensor._core`: the graph types.

Read by tools/stubgen.py (`make stubs`), which writes python/oxtensor/_core.pyi
from these and the built extension. Names not written here are generated.
"""

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
    def clone(  # type: ignore[override]
        self, dtype: t.Any = None, shape: t.Any = None, broadcastable: t.Any = None
    ) -> TensorType:
        """A copy with another dtype and/or shape."""
    @staticmethod
    def values_eq(  # type: ignore[override]
        a: t.Any, b: t.Any, force_same_dtype: bool = True
    ) -> bool:
        """Same shape (and dtype, if forced) and equal values, NaN matching NaN."""
    @staticmethod
    def values_eq_approx(  # type: ignore[override]
        a: t.Any,
        b: t.Any,
        allow_remove_inf: bool = False,
        allow_remove_nan: bool = False,
        rtol: float | None = None,
        atol: float | None = None,
    ) -> bool:
        """``values_eq`` up to the dtype's tolerance."""
    @staticmethod
    def may_share_memory(a: t.Any, b: t.Any) -> bool:
        """NumPy's answer for two ndarrays, ``False`` when either is not one."""

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

@disjoint_base
class ScalarType(Type):
    """``ScalarType(dtype)``: one number of a dtype; its values are NumPy scalars."""

    __props__: ClassVar[tuple[str, ...]]
    def __new__(cls, dtype: t.Any) -> Self: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __getnewargs__(self) -> tuple[str]:
        """``ScalarType(dtype)`` rebuilds it (pickle, copy)."""
    @property
    def dtype(self) -> str:
        """The dtype, as a string (``"float64"``)."""
    @property
    def ndim(self) -> int:
        """A scalar has no dimensions."""
    @property
    def shape(self) -> tuple[()]:
        """The empty static shape."""
    @property
    def variable_type(self) -> type[Variable]:  # type: ignore[override]
        """Variables of this type are ``ScalarVariable`` s (defined in Python)."""
    @property
    def constant_type(self) -> type[Variable]:
        """Constants of this type are ``ScalarConstant`` s."""
    def filter(
        self, data: t.Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> t.Any:
        """The value as a NumPy scalar of the dtype (``strict``: it must be one)."""
    def is_super(self, otype: t.Any) -> bool | None:
        """``True`` when ``otype`` is a scalar type of the same dtype."""
    def values_eq(  # type: ignore[override]
        self, a: t.Any, b: t.Any, force_same_dtype: bool = False
    ) -> bool:
        """Equal values, NaN matching NaN (and dtypes, if forced)."""
