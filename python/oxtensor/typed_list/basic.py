"""Ops on typed lists (`MakeList`, `GetItem`, `Append`, `Extend`, `Insert`,
`Remove`, `Reverse`, `Index`, `Count`, `Length`) and the list variables.
They are Python ops whose ``perform`` works on the Python lists the VM
carries as host values; an ``inplace`` op edits its input list (declared
in ``destroy_map``), the others copy it."""

from operator import attrgetter
from typing import Any

import numpy as np

from oxtensor.graph.basic import Apply, Constant, Variable
from oxtensor.graph.op import Op
from oxtensor.tensor.basic import as_tensor_variable
from oxtensor.tensor.type import TensorType
from oxtensor.typed_list.type import TypedListType


class _ListOperators:
    """What list variables (plain and constant) can do."""

    # Read from the variable's type.
    ttype = property(attrgetter("type.ttype"))
    dtype = property(attrgetter("type.dtype"))
    ndim = property(attrgetter("type.ndim"))

    def __getitem__(self, index: Any) -> Any:
        return getitem(self, index)

    def __len__(self) -> int:
        raise TypeError(
            "a symbolic list has no Python length: use its symbolic `length()`"
        )

    def length(self) -> Any:
        return length(self)

    def append(self, item: Any) -> Any:
        return append(self, item)

    def extend(self, other: Any) -> Any:
        return extend(self, other)

    def insert(self, index: Any, item: Any) -> Any:
        return insert(self, index, item)

    def remove(self, item: Any) -> Any:
        return remove(self, item)

    def reverse(self) -> Any:
        return reverse(self)

    def count(self, item: Any) -> Any:
        return count(self, item)

    def ind(self, item: Any) -> Any:
        """The index of the first item equal to ``item`` (`index_`)."""
        return index_(self, item)


class TypedListVariable(_ListOperators, Variable):
    """A variable of a `TypedListType`."""


class TypedListConstant(_ListOperators, Constant):
    """A list fixed in the graph."""

    def __init__(self, type: Any, data: Any, name: str | None = None) -> None:
        Constant.__init__(self, type, type.filter(data), name)

    def signature(self) -> tuple[Any, ...]:
        # Hashable (a list of arrays is not): the type and each item's bytes.
        return (self.type, tuple(_item_key(item) for item in self.data))


def _item_key(item: Any) -> Any:
    if isinstance(item, list):
        return tuple(_item_key(i) for i in item)
    a = np.asarray(item)
    return (a.dtype.str, a.shape, a.tobytes())


def _as_list_variable(x: Any) -> Any:
    if isinstance(getattr(x, "type", None), TypedListType):
        return x
    raise TypeError(
        f"expected a typed list variable, got {x!r} of type "
        f"{getattr(x, 'type', type(x).__name__)}"
    )


def _as_item(lst: Any, item: Any) -> Any:
    """``item`` as a variable of the list's item type (a `TypeError` otherwise)."""
    ttype = lst.type.ttype
    if not isinstance(item, Variable):
        item = (
            as_tensor_variable(item)
            if isinstance(ttype, TensorType)
            else ttype.constant_type(ttype, item)
        )
    if item.type != ttype:
        convert = getattr(ttype, "convert_variable", None)
        converted = convert(item) if convert is not None else None
        if converted is None:
            raise TypeError(
                f"{lst} holds items of type {ttype}, got {item} of type {item.type}"
            )
        item = converted
    return item


def _as_index(index: Any) -> Any:
    index = as_tensor_variable(index)
    if index.ndim != 0 or index.dtype not in _INTEGER_DTYPES:
        raise TypeError(f"a list index must be an integer scalar, got {index.type}")
    return index


_INTEGER_DTYPES = (
    *("int8", "int16", "int32", "int64"),
    *("uint8", "uint16", "uint32", "uint64"),
)


def _same_item(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list)
            and isinstance(b, list)
            and len(a) == len(b)
            and all(_same_item(x, y) for x, y in zip(a, b, strict=True))
        )
    return bool(np.array_equal(a, b))


def _out(op: Any, node: Any, inputs: list[Any]) -> list[Any]:
    """The list to write: the input itself for an inplace op, a copy otherwise."""
    return inputs[0] if op.inplace else list(inputs[0])


class _ListEdit(Op):
    """An op giving a new list of the first input's type."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace
        if inplace:
            self.destroy_map = {0: [0]}

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list[Any]) -> list[Any]:
        raise NotImplementedError(f"{self}: a list has no tensor shape")


class MakeList(Op):
    """A list of its inputs, which must all have one type."""

    __props__ = ()

    def make_node(self, items: Any) -> Apply:
        items = [i if isinstance(i, Variable) else as_tensor_variable(i) for i in items]
        if not items:
            raise ValueError("MakeList needs at least one item to know the item type")
        if any(i.type != items[0].type for i in items[1:]):
            raise TypeError(
                "MakeList needs all its inputs to be of the same type, got "
                + ", ".join(str(i.type) for i in items)
            )
        return Apply(self, items, [TypedListType(items[0].type)()])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        outputs[0][0] = list(inputs)


class GetItem(Op):
    """Item ``index`` of a list (an integer scalar input), or the sub-list
    ``lst[start:stop:step]`` when the op is built with a Python ``slice``
    of ints (kept in the op, as a slice is no graph value here)."""

    __props__ = ("slice_",)

    def __init__(self, slice_: Any = None) -> None:
        if slice_ is not None:
            slice_ = (slice_.start, slice_.stop, slice_.step)
        self.slice_ = slice_

    def make_node(self, lst: Any, index: Any = None) -> Apply:
        lst = _as_list_variable(lst)
        if self.slice_ is not None:
            return Apply(self, [lst], [lst.type()])
        return Apply(self, [lst, _as_index(index)], [lst.type.ttype()])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        if self.slice_ is not None:
            outputs[0][0] = inputs[0][slice(*self.slice_)]
        else:
            outputs[0][0] = inputs[0][int(inputs[1])]


class Append(_ListEdit):
    """The list with one item added at the end."""

    def make_node(self, lst: Any, item: Any) -> Apply:
        lst = _as_list_variable(lst)
        return Apply(self, [lst, _as_item(lst, item)], [lst.type()])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        out = _out(self, node, inputs)
        out.append(inputs[1])
        outputs[0][0] = out


class Extend(_ListEdit):
    """The list followed by the items of another list of the same type."""

    def make_node(self, lst: Any, other: Any) -> Apply:
        lst, other = _as_list_variable(lst), _as_list_variable(other)
        if other.type != lst.type:
            raise TypeError(f"cannot extend {lst.type} with {other.type}")
        return Apply(self, [lst, other], [lst.type()])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        out = _out(self, node, inputs)
        out.extend(inputs[1])
        outputs[0][0] = out


class Insert(_ListEdit):
    """The list with an item inserted before position ``index``."""

    def make_node(self, lst: Any, index: Any, item: Any) -> Apply:
        lst = _as_list_variable(lst)
        return Apply(self, [lst, _as_index(index), _as_item(lst, item)], [lst.type()])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        out = _out(self, node, inputs)
        out.insert(int(inputs[1]), inputs[2])
        outputs[0][0] = out


class Remove(_ListEdit):
    """The list without its first item equal to ``item`` (`ValueError` at
    run time when there is none)."""

    def make_node(self, lst: Any, item: Any) -> Apply:
        lst = _as_list_variable(lst)
        return Apply(self, [lst, _as_item(lst, item)], [lst.type()])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        out = _out(self, node, inputs)
        del out[_position(inputs[0], inputs[1])]
        outputs[0][0] = out


class Reverse(_ListEdit):
    """The list in reverse order."""

    def make_node(self, lst: Any) -> Apply:
        lst = _as_list_variable(lst)
        return Apply(self, [lst], [lst.type()])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        out = _out(self, node, inputs)
        out.reverse()
        outputs[0][0] = out


def _position(lst: list[Any], item: Any) -> int:
    for i, x in enumerate(lst):
        if _same_item(x, item):
            return i
    raise ValueError("the item is not in the list")


class _ListQuery(Op):
    """An op giving an int64 scalar about a list."""

    __props__ = ()

    def _node(self, inputs: list[Any]) -> Apply:
        return Apply(self, inputs, [TensorType("int64", shape=())()])

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list[Any]) -> list[Any]:
        return [()]


class Index(_ListQuery):
    """The position of the first item equal to ``item`` (`ValueError` at
    run time when there is none)."""

    def make_node(self, lst: Any, item: Any) -> Apply:
        lst = _as_list_variable(lst)
        return self._node([lst, _as_item(lst, item)])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        outputs[0][0] = np.asarray(_position(inputs[0], inputs[1]), dtype="int64")


class Count(_ListQuery):
    """How many items equal ``item``."""

    def make_node(self, lst: Any, item: Any) -> Apply:
        lst = _as_list_variable(lst)
        return self._node([lst, _as_item(lst, item)])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        n = sum(_same_item(x, inputs[1]) for x in inputs[0])
        outputs[0][0] = np.asarray(n, dtype="int64")


class Length(_ListQuery):
    """The number of items."""

    def make_node(self, lst: Any) -> Apply:
        return self._node([_as_list_variable(lst)])

    def perform(self, node: Apply, inputs: list[Any], outputs: list[Any]) -> None:
        outputs[0][0] = np.asarray(len(inputs[0]), dtype="int64")


make_list = MakeList()
append = Append()
extend = Extend()
insert = Insert()
remove = Remove()
reverse = Reverse()
index_ = Index()
count = Count()
length = Length()


def getitem(lst: Any, index: Any) -> Any:
    """``lst[index]``: an item for an integer (scalar) index, a sub-list
    for a Python ``slice``."""
    if isinstance(index, slice):
        return GetItem(index)(lst)
    return GetItem()(lst, index)


__all__ = [
    "Append",
    "Count",
    "Extend",
    "GetItem",
    "Index",
    "Insert",
    "Length",
    "MakeList",
    "Remove",
    "Reverse",
    "TypedListConstant",
    "TypedListVariable",
    "append",
    "count",
    "extend",
    "getitem",
    "index_",
    "insert",
    "length",
    "make_list",
    "remove",
    "reverse",
]
