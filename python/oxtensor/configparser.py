"""PyTensor's configuration machinery: typed options (``ConfigParam`` and its
kinds), the parser that holds their values (``config``), ``change_flags``,
and the ``OXTENSOR_FLAGS`` / ``PYTENSOR_FLAGS`` environment syntax
(``name=value,section__name=value``)."""

import functools
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any


class ConfigParam:
    """One option: its default, how a new value is checked (``filter``
    returns the value to store or raises ``ValueError``), and what is done
    once it is set (``apply``, e.g. telling the core)."""

    def __init__(
        self,
        default: Any,
        apply: Callable[[Any], None] | None = None,
        validate: Callable[[Any], bool] | None = None,
        mutable: bool = True,
    ) -> None:
        self.default = default
        self.apply = apply
        self.validate = validate
        self.mutable = mutable
        self.doc = ""
        self.name = ""

    def filter(self, value: Any) -> Any:
        if self.validate is not None and not self.validate(value):
            raise ValueError(f"invalid value {value!r} for config option {self.name!r}")
        return value


class StrParam(ConfigParam):
    """A string option."""

    def filter(self, value: Any) -> Any:
        return super().filter(str(value))


class EnumStr(ConfigParam):
    """A string option with a fixed set of values (the default first)."""

    def __init__(
        self,
        default: str,
        options: Sequence[str] = (),
        apply: Callable[[Any], None] | None = None,
        mutable: bool = True,
    ) -> None:
        super().__init__(default, apply=apply, mutable=mutable)
        self.all = (default, *[o for o in options if o != default])

    def filter(self, value: Any) -> Any:
        value = str(value)
        if value not in self.all:
            raise ValueError(
                f"invalid value {value!r} for config option {self.name!r}; "
                f"expected one of {', '.join(map(repr, self.all))}"
            )
        return value


_BOOL_WORDS = {"0": False, "false": False, "1": True, "true": True}


class BoolParam(ConfigParam):
    """A boolean option; the environment's ``0``/``1``/``False``/``True``
    are read as booleans."""

    def filter(self, value: Any) -> Any:
        if isinstance(value, str) and value.lower() in _BOOL_WORDS:
            value = _BOOL_WORDS[value.lower()]
        if not isinstance(value, bool):
            raise ValueError(f"config option {self.name!r} takes a bool, got {value!r}")
        return super().filter(value)


class _NumberParam(ConfigParam):
    """A number option: ``kind`` converts the value (the environment gives
    strings) and ``an`` names it in the error."""

    kind: type
    an: str

    def filter(self, value: Any) -> Any:
        try:
            number = self.kind(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"config option {self.name!r} takes {self.an}, got {value!r}"
            ) from None
        return super().filter(number)


class IntParam(_NumberParam):
    """An integer option."""

    kind, an = int, "an int"


class FloatParam(_NumberParam):
    """A float option."""

    kind, an = float, "a float"


def parse_config_string(text: str) -> dict[str, str]:
    """``"floatX=float32,optdb__max_use_ratio=10"`` as a dict; an entry
    without ``=`` is a boolean flag set to ``"True"``."""
    flags: dict[str, str] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        flags[name.strip()] = value.strip() if sep else "True"
    return flags


def environment_flags() -> dict[str, str]:
    """The flags of ``PYTENSOR_FLAGS``, overridden by ``OXTENSOR_FLAGS``."""
    flags = parse_config_string(os.environ.get("PYTENSOR_FLAGS", ""))
    flags.update(parse_config_string(os.environ.get("OXTENSOR_FLAGS", "")))
    return flags


class OxtensorConfigParser:
    """The options and their values (PyTensor's ``PyTensorConfigParser``).
    ``config.name`` reads a value; assigning checks it with its param."""

    def __init__(self, flags: dict[str, str] | None = None) -> None:
        object.__setattr__(self, "_params", {})
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_flags", dict(flags or {}))

    def add(
        self, name: str, doc: str, configparam: ConfigParam, in_c_key: bool = True
    ) -> None:
        """Registers option ``name``, set from the environment's flags when
        they name it, else to its default."""
        if name in self._params:
            raise AttributeError(f"config option {name!r} is already defined")
        configparam.name = name
        configparam.doc = doc
        self._params[name] = configparam
        raw = self._flags.pop(name, None)
        value = configparam.default if raw is None else raw
        self._store(name, configparam.filter(value))

    def _store(self, name: str, value: Any) -> None:
        param = self._params[name]
        if param.apply is not None:
            param.apply(value)
        self._values[name] = value

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"oxtensor.config has no option {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        param = self._params.get(name)
        if param is None:
            raise AttributeError(f"oxtensor.config has no option {name!r}")
        if not param.mutable:
            raise AttributeError(f"config option {name!r} can only be set at startup")
        self._store(name, param.filter(value))

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._params})

    def unknown_flags(self) -> dict[str, str]:
        """Environment flags that named no option."""
        return dict(self._flags)

    def get_config_hash(self) -> str:
        """The options' values as one string (changes when any does)."""
        return ",".join(f"{k}={v!r}" for k, v in sorted(self._values.items()))

    def __str__(self) -> str:
        return "\n".join(
            f"{name} ({type(p).__name__}): {self._values[name]!r}\n    {p.doc}"
            for name, p in sorted(self._params.items())
        )

    @contextmanager
    def _changed(self, changes: dict[str, Any]) -> Iterator[None]:
        old = {name: getattr(self, name) for name in changes}
        try:
            for name, value in changes.items():
                setattr(self, name, value)
            yield
        finally:
            for name, value in old.items():
                self._store(name, value)

    def change_flags(self, *args: Any, **kwargs: Any) -> "_ChangeFlags":
        """Options set for the duration of a ``with`` block or of each call
        of a decorated function, then restored (also if it raises)."""
        changes: dict[str, Any] = {}
        for arg in args:
            changes.update(arg)
        changes.update(kwargs)
        for name in changes:
            if name not in self._params:
                raise AttributeError(f"oxtensor.config has no option {name!r}")
        return _ChangeFlags(self, changes)


class _ChangeFlags:
    """What ``config.change_flags(...)`` returns: a context manager and a
    decorator."""

    def __init__(self, config: OxtensorConfigParser, changes: dict[str, Any]) -> None:
        self.config = config
        self.changes = changes
        self._active: list[Any] = []

    def __enter__(self) -> None:
        cm = self.config._changed(self.changes)
        cm.__enter__()
        self._active.append(cm)

    def __exit__(self, *exc: Any) -> None:
        self._active.pop().__exit__(*exc)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.config._changed(self.changes):
                return fn(*args, **kwargs)

        return wrapper


def warn_unknown(config: OxtensorConfigParser) -> None:
    """Warns once about environment flags that named no option."""
    unknown = config.unknown_flags()
    if unknown:
        warnings.warn(
            "OXTENSOR_FLAGS/PYTENSOR_FLAGS name unknown config options: "
            + ", ".join(sorted(unknown)),
            stacklevel=3,
        )


PyTensorConfigParser = OxtensorConfigParser

__all__ = [
    "BoolParam",
    "ConfigParam",
    "EnumStr",
    "FloatParam",
    "IntParam",
    "OxtensorConfigParser",
    "PyTensorConfigParser",
    "StrParam",
    "environment_flags",
    "parse_config_string",
]
