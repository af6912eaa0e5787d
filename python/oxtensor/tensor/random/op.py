"""`RandomVariable`: the op that draws from a distribution with a NumPy
``Generator``.

A node has the inputs ``(rng, size, *dist_params)`` and the outputs
``(next_rng, draw)``; calling the op returns the draw (``default_output``
is 1). ``size`` is ``NoneConst`` (the draw's batch shape is the
parameters' broadcast batch shape, as in NumPy) or an int64 vector. The
op's ``signature`` (``"(),()->()"``, ``"(),(p)->(p)"``) gives the core
dimensions of each parameter and of the draw. ``perform`` draws with the
generator's method ``name`` on a copy of the rng, so a generator held by
the caller never advances behind their back; ``next_rng`` is the advanced
copy. ``inplace`` is a prop as in PyTensor, but only ``False`` is
supported.
"""

import copy
import functools
from typing import Any, ClassVar

import numpy as np

from oxtensor.configdefaults import config
from oxtensor.gradient import grad_undefined
from oxtensor.graph.basic import Apply, Variable
from oxtensor.graph.op import Op
from oxtensor.tensor.random.shapes import batch_static_shape, infer_draw_shape
from oxtensor.tensor.random.signature import parse_signature
from oxtensor.tensor.random.type import RandomType
from oxtensor.tensor.random.utils import normalize_size_param, size_static_shape
from oxtensor.tensor.type import TensorType


class RandomVariable(Op):
    """Draws from the distribution ``name`` (a ``numpy.random.Generator``
    method unless ``rng_fn`` is overridden)."""

    __props__: tuple[str, ...] = ("name", "signature", "dtype", "inplace")
    default_output = 1
    name: str = "random_variable"
    signature: str = "()->()"
    dtype: str | None = None
    #: The parameters' keyword names and defaults, for ``__call__``.
    param_names: tuple[str, ...] = ()
    param_defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        raw = cls.__dict__.get("rng_fn")
        if isinstance(raw, classmethod | staticmethod):
            cls.rng_fn = type(raw)(_size_as_keyword(raw.__func__))
        elif raw is not None:
            cls.rng_fn = _size_as_keyword(raw)

    def __init__(
        self,
        name: str | None = None,
        dtype: str | None = None,
        inplace: bool = False,
        signature: str | None = None,
    ) -> None:
        self.name = name if name is not None else type(self).name
        self.signature = signature if signature is not None else type(self).signature
        self.dtype = dtype if dtype is not None else type(self).dtype
        self.inplace = bool(inplace)
        self._core_in, self._core_out = parse_signature(self.signature)
        if len(self._core_out) != 1:
            raise ValueError(f"{self.signature!r}: a random variable draws one output")
        if self.inplace:
            # The host thunk copies a Python op's destroyed inputs with
            # `.copy()`, which a Generator lacks; drawing on a copy is all
            # that oxtensor does, so there is nothing an inplace op would save.
            raise NotImplementedError(
                f"{type(self).__name__}(inplace=True): oxtensor draws on a copy of "
                "the rng; inplace random variables are not supported"
            )

    @property
    def ndim_supp(self) -> int:
        """The number of core (support) dimensions of a draw."""
        return len(self._core_out[0])

    @property
    def ndims_params(self) -> list[int]:
        """The number of core dimensions of each parameter."""
        return [len(names) for names in self._core_in]

    def __str__(self) -> str:
        return f"{type(self).__name__}({self.name})"

    def size_param(self, node: Apply) -> Variable:
        """The node's ``size`` input."""
        return node.inputs[1]

    def rng_param(self, node: Apply) -> Variable:
        """The node's ``rng`` input."""
        return node.inputs[0]

    def dist_params(self, node: Apply) -> list[Variable]:
        """The node's distribution parameters (the inputs after rng and size)."""
        return list(node.inputs[2:])

    def rng_fn(self, rng: np.random.Generator, *args: Any, **kwargs: Any) -> Any:
        """Draws; the last argument is the size (``None`` or a tuple), or
        it is given as ``size=``."""
        if "size" in kwargs:
            args = (*args, kwargs.pop("size"))
        *params, size = args
        return getattr(rng, self.name)(*params, size=size, **kwargs)

    def _out_dtype(self, params: list[Variable]) -> str:
        if self.dtype == "floatX":
            return str(config.floatX)
        if self.dtype is None:
            return str(params[0].dtype)
        return str(self.dtype)

    def __call__(
        self,
        *args: Any,
        size: Any = None,
        name: str | None = None,
        rng: Any = None,
        dtype: str | None = None,
        **kwargs: Any,
    ) -> Any:
        args = self._bind_params(args, kwargs)
        op = self
        if dtype is not None and dtype != self.dtype:
            # PyTensor makes a distinct op per output dtype.
            op = copy.copy(self)
            op.dtype = dtype
        out = Op.__call__(op, rng, size, *args)
        if name is not None:
            out.name = name
        return out

    def _bind_params(self, args: tuple, kwargs: dict) -> tuple:
        """The parameters in order, from positions, keywords (``param_names``)
        and ``param_defaults``."""
        names = self.param_names or tuple(f"p{i}" for i in range(len(args)))
        if len(args) > len(names):
            raise TypeError(f"{self} takes {len(names)} parameters, got {len(args)}")
        bound = dict(zip(names, args, strict=False))
        for key, value in kwargs.items():
            if key not in names or key in bound:
                raise TypeError(f"{self} got an unknown or repeated argument {key!r}")
            bound[key] = value
        for key in names:
            if key not in bound and key in self.param_defaults:
                bound[key] = self.param_defaults[key]
        missing = [key for key in names if key not in bound]
        if missing:
            raise TypeError(f"{self} is missing the parameters {missing}")
        return tuple(bound[key] for key in names)

    def make_node(self, rng: Any, size: Any, *dist_params: Any) -> Apply:
        rng = _check_rng(self, rng)
        size = normalize_size_param(size)
        params = self._check_params(dist_params)
        core_shape = self._core_static_shape(params)
        if _is_none(size):
            batch = batch_static_shape(self, params)
        else:
            batch = size_static_shape(size)
            self._check_size(batch, params)
        out = TensorType(self._out_dtype(params), tuple(batch) + core_shape)()
        return Apply(self, [rng, size, *params], [rng.type(), out])

    def _check_params(self, dist_params: tuple) -> list[Variable]:
        from oxtensor.tensor import as_tensor_variable

        if len(dist_params) != len(self.ndims_params):
            raise TypeError(
                f"{self} takes {len(self.ndims_params)} distribution parameters "
                f"(signature {self.signature!r}), got {len(dist_params)}"
            )
        params = [as_tensor_variable(p) for p in dist_params]
        for i, (p, nd) in enumerate(zip(params, self.ndims_params, strict=True)):
            if p.ndim < nd:
                raise ValueError(
                    f"{self}: parameter {i} ({p}) needs at least {nd} dimensions "
                    f"(signature {self.signature!r}), got {p.type}"
                )
        return params

    def _core_static_shape(self, params: list[Variable]) -> tuple:
        """The draw's core lengths, from parameters sharing their names."""
        lengths = []
        for name in self._core_out[0]:
            found = None
            for p, names in zip(params, self._core_in, strict=True):
                if name in names:
                    axis = p.ndim - len(names) + names.index(name)
                    found = p.type.shape[axis]
                    break
            lengths.append(found)
        return tuple(lengths)

    def _check_size(self, batch: tuple, params: list[Variable]) -> None:
        for i, (p, nd) in enumerate(zip(params, self.ndims_params, strict=True)):
            if p.ndim - nd > len(batch):
                raise ValueError(
                    f"{self}: size has {len(batch)} dimensions but parameter {i} "
                    f"({p.type}) has {p.ndim - nd} batch dimensions"
                )

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: list) -> list:
        return [None, infer_draw_shape(self, node, input_shapes)]

    def _infer_shape(
        self, size: Any, dist_params: Any, param_shapes: Any = None
    ) -> tuple:
        """The shape (ints or scalar graphs) of a draw with ``size`` and
        ``dist_params``, as `infer_shape` gives it for such a node;
        ``param_shapes`` defaults to the parameters' symbolic shapes."""
        from oxtensor.tensor.random.type import random_generator_type

        node = self.make_node(random_generator_type(), size, *dist_params)
        if param_shapes is None:
            param_shapes = [
                [p.shape[i] for i in range(p.ndim)] for p in self.dist_params(node)
            ]
        return tuple(self.infer_shape(None, node, [None, None, *param_shapes])[1])

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        rng, size, *params = inputs
        rng = copy.deepcopy(rng)
        size = None if size is None else tuple(int(n) for n in size)
        draw = self.rng_fn(rng, *params, size)
        output_storage[0][0] = rng
        output_storage[1][0] = np.asarray(draw, dtype=node.outputs[1].dtype)

    def grad(self, inputs: list, output_grads: list) -> list:
        return [
            grad_undefined(self, k, inp, "No gradient defined for random variables")
            for k, inp in enumerate(inputs)
        ]


def _size_as_keyword(rng_fn: Any) -> Any:
    """``rng_fn(..., size)`` also callable as PyTensor's
    ``rng_fn(..., size=size)`` (the size is the last argument)."""

    @functools.wraps(rng_fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if "size" in kwargs:
            args = (*args, kwargs.pop("size"))
        return rng_fn(*args, **kwargs)

    return call


def _is_none(size: Variable) -> bool:
    from oxtensor.tensor.type_other import NoneTypeT

    return isinstance(size.type, NoneTypeT)


def _check_rng(op: RandomVariable, rng: Any) -> Variable:
    """``rng``, or a new shared generator when it is ``None``."""
    if rng is None:
        from oxtensor.compile.sharedvalue import shared

        return shared(np.random.default_rng())
    if isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{op}: rng must be a graph variable of RandomGeneratorType; wrap the "
            "Generator with oxtensor.shared(...)"
        )
    if not isinstance(getattr(rng, "type", None), RandomType):
        raise TypeError(
            f"{op}: the type of rng should be an instance of RandomGeneratorType, "
            f"got {getattr(rng, 'type', type(rng).__name__)}"
        )
    return rng


__all__ = ["RandomVariable"]
