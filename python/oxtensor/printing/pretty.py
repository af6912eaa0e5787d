"""PyTensor's expression printers: `PPrinter` chooses a `Printer` for each
variable (by its node's op, or by a condition), and the printers write the
variable from the text of its inputs.

`pprint` (also `pp`) is a `PPrinter` whose printers a user may extend with
``pprint.assign(op, printer)``; a variable no assigned printer takes is
written by the core's printer (`_core.pprint`) with its whole subgraph.
`min_informative_str` is PyTensor's terse listing of a graph.
"""

import abc
import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

from oxtensor import _core
from oxtensor.printing.letters import char_from_number


class PrinterState:
    """What printers pass down: the `PPrinter` (``pprinter``), the
    precedence of the surrounding expression (``precedence``), and a memo
    of the text of variables already written."""

    def __init__(self, props: dict | None = None, **more_props: Any) -> None:
        self.memo: dict = {}
        self.precedence = -1000
        self.__dict__.update(props or {}, **more_props)

    def clone(self, props: dict | None = None, **more_props: Any) -> "PrinterState":
        state = PrinterState(dict(self.__dict__))
        state.__dict__.update(props or {}, **more_props)
        return state


@contextlib.contextmanager
def set_precedence(pstate: PrinterState, precedence: int = -1000) -> Iterator[None]:
    """``pstate.precedence`` is ``precedence`` inside the block."""
    old = pstate.precedence
    pstate.precedence = precedence
    try:
        yield
    finally:
        pstate.precedence = old


class Printer(abc.ABC):
    """Writes one variable: ``process(output, pstate)`` returns its text."""

    @abc.abstractmethod
    def process(self, output: Any, pstate: PrinterState) -> str:
        """The text of ``output``."""


def _memoized(
    process: Callable[[Any, Any, PrinterState], str],
) -> Callable[[Any, Any, PrinterState], str]:
    """``process`` written once per variable and printer state: a variable
    that stands several times in a graph keeps the text it was first given
    (``pstate.memo``)."""

    @functools.wraps(process)
    def memoized(self: Any, output: Any, pstate: PrinterState) -> str:
        if output in pstate.memo:
            return pstate.memo[output]
        text = pstate.memo[output] = process(self, output, pstate)
        return text

    return memoized


def _inputs_text(node: Any, pstate: PrinterState, precedences: list[int]) -> list[str]:
    """The text of each input of ``node`` at its own precedence."""
    texts = []
    for inp, precedence in zip(node.inputs, precedences, strict=False):
        with set_precedence(pstate, precedence):
            texts.append(pstate.pprinter.process(inp, pstate))
    return texts


def _owner(output: Any, printer: Printer) -> Any:
    node = output.owner
    if node is None:
        raise TypeError(
            f"{type(printer).__name__} cannot print a variable without an "
            f"owner: {output}"
        )
    return node


class OperatorPrinter(Printer):
    """An infix (``a + b``) or prefix (``-a``) operator of ``precedence``;
    an operand of lower precedence, or of equal precedence on the side the
    operator does not associate to (``assoc``: ``"left"``, ``"right"`` or
    ``"either"``), is put in parentheses."""

    def __init__(self, operator: str, precedence: int, assoc: str = "left") -> None:
        if assoc not in ("left", "right", "either"):
            raise ValueError(
                f"assoc must be 'left', 'right' or 'either', got {assoc!r}"
            )
        self.operator = operator
        self.precedence = precedence
        self.assoc = assoc

    @_memoized
    def process(self, output: Any, pstate: PrinterState) -> str:
        node = _owner(output, self)
        outer = getattr(pstate, "precedence", -1000)
        n = len(node.inputs)
        # A hair above this operator's precedence where it does not associate.
        tighter = self.precedence + 1e-3
        precedences = [
            self.precedence
            if self.assoc == "either"
            or (self.assoc == "left" and k == 0)
            or (self.assoc == "right" and k == n - 1)
            else tighter
            for k in range(n)
        ]
        texts = _inputs_text(node, pstate, precedences)
        text = (
            f"{self.operator}{texts[0]}" if n == 1 else f" {self.operator} ".join(texts)
        )
        if self.precedence < outer:
            text = f"({text})"
        return text


class PatternPrinter(Printer):
    """A ``%``-pattern per output of the node (``"%(0)s - %(1)s"``), each
    given as the pattern alone or as ``(pattern, precedence of input 0,
    precedence of input 1, ...)`` (1000 for inputs not given)."""

    def __init__(self, *patterns: Any) -> None:
        self.patterns = [
            (p, ()) if isinstance(p, str) else (p[0], tuple(p[1:])) for p in patterns
        ]

    @_memoized
    def process(self, output: Any, pstate: PrinterState) -> str:
        node = _owner(output, self)
        pattern, precedences = self.patterns[node.outputs.index(output)]
        given = list(precedences) + [1000] * (len(node.inputs) - len(precedences))
        texts = _inputs_text(node, pstate, given)
        return pattern % {str(k): t for k, t in enumerate(texts)}


class FunctionPrinter(Printer):
    """``name(input, ...)``, with keyword props after the inputs."""

    def __init__(self, names: list[str], keywords: list[str] | None = None) -> None:
        self.names = names
        self.keywords = keywords or []

    @_memoized
    def process(self, output: Any, pstate: PrinterState) -> str:
        node = _owner(output, self)
        texts = _inputs_text(node, pstate, [-1000] * len(node.inputs))
        texts += [f"{k}={getattr(node.op, k)}" for k in self.keywords]
        name = self.names[node.outputs.index(output)]
        return f"{name}({', '.join(texts)})"


class LeafPrinter(Printer):
    """A variable without an owner: its name, else its ``str``."""

    @_memoized
    def process(self, output: Any, pstate: PrinterState) -> str:
        return output.name if output.name is not None else str(output)


class DefaultPrinter(Printer):
    """A leaf by `LeafPrinter`, a computed variable as ``op(inputs)``."""

    @_memoized
    def process(self, output: Any, pstate: PrinterState) -> str:
        if output.owner is None:
            return leaf_printer.process(output, pstate)
        node = output.owner
        texts = _inputs_text(node, pstate, [-1000] * len(node.inputs))
        return f"{node.op}({', '.join(texts)})"


leaf_printer = LeafPrinter()
default_printer = DefaultPrinter()

Condition = Callable[[PrinterState, Any], bool]


class PPrinter(Printer):
    """Writes a variable with the printer assigned to its node's op (or to
    the op's class), else with the first assigned condition that holds."""

    def __init__(self) -> None:
        self.printers: list[tuple[Condition, Printer]] = []
        self.printers_dict: dict[Any, Printer] = {}

    def assign(self, condition: Any, printer: Printer) -> None:
        """``condition``: an op, an op class, or ``f(pstate, variable)``."""
        if _is_op(condition) or isinstance(condition, type):
            self.printers_dict[condition] = printer
        elif callable(condition):
            self.printers.append((condition, printer))
        else:
            raise TypeError(
                "assign takes an op, an op class or a condition f(pstate, r), "
                f"got {condition!r}"
            )

    def _printer_for(self, r: Any, pstate: PrinterState) -> Printer | None:
        op = getattr(r.owner, "op", None)
        if op is not None:
            for key in (op, type(op)):
                if _hashable(key) and key in self.printers_dict:
                    return self.printers_dict[key]
        for condition, printer in self.printers:
            if condition(pstate, r):
                return printer
        return None

    def process(self, r: Any, pstate: PrinterState | None = None) -> str:
        if pstate is None:
            pstate = PrinterState(pprinter=self)
        printer = self._printer_for(r, pstate)
        if printer is None:
            return self.fallback(r, pstate)
        return printer.process(r, pstate)

    def fallback(self, r: Any, pstate: PrinterState) -> str:
        raise TypeError(
            f"No printer is assigned for {r} (of {getattr(r.owner, 'op', None)})"
        )

    def clone(self) -> "PPrinter":
        twin = type(self)()
        twin.printers = list(self.printers)
        twin.printers_dict = dict(self.printers_dict)
        return twin

    def clone_assign(self, condition: Any, printer: Printer) -> "PPrinter":
        twin = self.clone()
        twin.assign(condition, printer)
        return twin

    def __call__(self, *args: Any) -> str:
        if len(args) != 1:
            raise TypeError(
                f"{type(self).__name__} takes one variable, got {len(args)}"
            )
        return self.process(args[0])


def _is_op(obj: Any) -> bool:
    from oxtensor.graph.op import Op

    return isinstance(obj, Op)


def _hashable(obj: Any) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


class _CorePPrinter(PPrinter):
    """`pprint`: the assigned printers first; the core's printer for the rest."""

    def fallback(self, r: Any, pstate: PrinterState) -> str:
        return _core.pprint(r)


pprint = _CorePPrinter()
pp = pprint


def min_informative_str(
    obj: Any,
    indent_level: int = 0,
    _prev_obs: dict | None = None,
    _tag_generator: Any = None,
) -> str:
    """A short listing of ``obj``'s graph: each variable once, tagged
    ``A.``, ``B.`` ...; a named variable by its name alone, an unnamed
    computed one by its op with its inputs one space further in; a
    variable met again by its tag."""
    del _tag_generator  # the tags count the variables in the memo
    memo = {} if _prev_obs is None else _prev_obs
    lines: list[str] = []
    stack = [(obj, indent_level)]
    while stack:
        var, level = stack.pop()
        indent = " " * level
        if id(var) in memo:
            lines.append(f"{indent}<{memo[id(var)]}>")
            continue
        tag = char_from_number(len(memo))
        memo[id(var)] = tag
        owner = getattr(var, "owner", None)
        if var.name is not None or owner is None:
            lines.append(f"{indent}{tag}. {var.name if var.name is not None else var}")
            continue
        lines.append(f"{indent}{tag}. {owner.op}")
        stack.extend((inp, level + 1) for inp in reversed(owner.inputs))
    return "\n".join(lines)


__all__ = [
    "DefaultPrinter",
    "FunctionPrinter",
    "LeafPrinter",
    "OperatorPrinter",
    "PPrinter",
    "PatternPrinter",
    "Printer",
    "PrinterState",
    "default_printer",
    "leaf_printer",
    "min_informative_str",
    "pp",
    "pprint",
    "set_precedence",
]
