"""Compilation modes: which rewrites run (a query of the rewrite database)
and how the graph is linked. Every linker name runs oxtensor's native VM,
but ``jax`` (mode ``"JAX"``), which hands the graph to `oxtensor.link.jax`."""

from typing import Any

from oxtensor import _core
from oxtensor.configdefaults import config
from oxtensor.graph.rewriting.basic import GraphRewriter

Mode = _core.Mode

#: The database of compilation phases every mode queries.
optdb = _core.optdb_object()

#: PyTensor's predefined modes; the backend names but JAX mean the native VM.
predefined_modes: dict[str, Any] = {
    "FAST_RUN": Mode("vm", "fast_run"),
    "FAST_COMPILE": Mode("vm", "fast_compile"),
    "NUMBA": Mode("numba", "fast_run"),
    "CVM": Mode("cvm", "fast_run"),
    "VM": Mode("vm", "fast_run"),
    "C": Mode("c", "fast_run"),
    "py": Mode("py", "fast_compile"),
    "JAX": Mode("jax", "fast_run"),
}


class AddFeatureOptimizer(GraphRewriter):
    """A graph rewriter that only attaches ``feature`` to the graph (in
    ``add_requirements``), so the feature can veto later rewrites."""

    def __init__(self, feature: Any) -> None:
        super().__init__()
        self.feature = feature

    def add_requirements(self, fgraph: Any) -> None:
        fgraph.attach_feature(self.feature)

    def apply(self, fgraph: Any) -> None:
        """Nothing: the feature is attached by ``add_requirements``."""

    def __str__(self) -> str:
        return f"AddFeatureOptimizer({self.feature})"


def _config_mode() -> Any:
    """Mode ``"Mode"``: ``config.linker`` and ``config.optimizer``."""
    linker = config.linker
    if not config.allow_gc and not linker.endswith("_nogc") and linker != "jax":
        linker = "vm_nogc"
    return Mode(linker, config.optimizer)


def _with_config_tags(mode: Any) -> Any:
    """``mode`` with ``config.optimizer_including``/``excluding``/``requiring``."""
    for kind in ("including", "excluding", "requiring"):
        tags = [t for t in getattr(config, f"optimizer_{kind}").split(":") if t]
        if tags:
            mode = getattr(mode, kind)(*tags)
    return mode


def get_mode(mode: Any) -> Any:
    """The `Mode` for a name (or the mode itself); ``None`` is
    ``config.mode``. A name gets the config's optimizer tags."""
    if mode is None:
        mode = config.mode
    if isinstance(mode, Mode):
        return mode
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string or a Mode, got {mode!r}")
    if mode == "Mode":
        return _with_config_tags(_config_mode())
    if mode in ("DebugMode", "DEBUG_MODE"):
        # Imported here: the debug package builds on this module.
        from oxtensor.compile.debug.debugmode import DebugMode

        return _with_config_tags(DebugMode(optimizer=config.optimizer))
    if mode not in predefined_modes and mode.upper() in predefined_modes:
        # PyTensor reads the names case-insensitively (``mode="fast_run"``).
        mode = mode.upper()
    if mode not in predefined_modes:
        names = ", ".join(["Mode", "DebugMode", *predefined_modes])
        raise ValueError(f"unknown mode {mode!r}; expected one of {names}")
    return _with_config_tags(predefined_modes[mode])


def get_default_mode() -> Any:
    """The mode ``function`` uses when given none (``config.mode``)."""
    return get_mode(None)


__all__ = [
    "AddFeatureOptimizer",
    "Mode",
    "get_default_mode",
    "get_mode",
    "optdb",
    "predefined_modes",
]
