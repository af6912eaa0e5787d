"""``oxtensor.config``: PyTensor's options, set from ``OXTENSOR_FLAGS`` (or
``PYTENSOR_FLAGS``) at import and by assignment or ``config.change_flags``.

The options oxtensor honours change what it does (``floatX``, ``mode``,
``linker``, ``optimizer``, ``optimizer_including``/``excluding``/
``requiring``, ``on_unused_input``, ``on_opt_error``,
``optdb__max_use_ratio``, ``optimizer_verbose``(``_ignore``), ``profile``,
``allow_gc``, ``check_view_maps``, ``DebugMode__check_preallocated_output``,
``cast_policy``, ``traceback__limit``). The
others exist so PyTensor code that reads or sets them runs; they change
nothing here, and their ``doc`` says so (``docs/for-pytensor-users.md``
lists them).
"""

from oxtensor import _core
from oxtensor.configparser import (
    BoolParam,
    ConfigParam,
    EnumStr,
    FloatParam,
    IntParam,
    OxtensorConfigParser,
    StrParam,
    environment_flags,
    warn_unknown,
)

IGNORED = "Accepted for PyTensor code; oxtensor has no use for it."

config = OxtensorConfigParser(environment_flags())


def _honoured(config: OxtensorConfigParser) -> None:
    config.add(
        "floatX",
        "The float dtype of constructors without a dtype, of Python float "
        "constants and of integer true division.",
        EnumStr("float64", ["float32"], apply=_core._set_floatx),
    )
    config.add(
        "mode",
        "The mode functions compile with when given none ('Mode': the "
        "linker and optimizer options; or a predefined mode's name).",
        StrParam("Mode"),
    )
    config.add(
        "linker",
        "The linker of mode 'Mode'; every name but 'jax' runs the native VM.",
        EnumStr(
            "auto",
            [
                "vm",
                "cvm",
                "py",
                "c",
                "c|py",
                "numba",
                "vm_nogc",
                "cvm_nogc",
                "c|py_nogc",
                "jax",
            ],
        ),
    )
    config.add(
        "optimizer",
        "The rewrites of mode 'Mode'.",
        EnumStr(
            "o4",
            [
                "o3",
                "o2",
                "o1",
                "fast_run",
                "fast_compile",
                "merge",
                "unsafe",
                "stabilize",
                "None",
            ],
        ),
    )
    for kind in ("including", "excluding", "requiring"):
        config.add(
            f"optimizer_{kind}",
            f"Tags (separated by ':') the default mode is {kind}.",
            StrParam(""),
        )
    config.add(
        "on_unused_input",
        "What function() does with an input the outputs do not need.",
        EnumStr("raise", ["warn", "ignore"]),
    )
    config.add(
        "on_opt_error",
        "What a failing rewriter does: a warning naming it, an exception, or nothing.",
        EnumStr("warn", ["raise", "ignore"]),
    )
    config.add(
        "optdb__max_use_ratio",
        "An equilibrium stops once a rewriter was applied this many times "
        "the graph's node count.",
        FloatParam(8.0, validate=lambda v: v > 0),
    )
    config.add(
        "optimizer_verbose",
        "Print a line for each replacement a rewrite makes: the rewrite, "
        "the replaced variable and its replacement.",
        BoolParam(False),
    )
    config.add(
        "optimizer_verbose_ignore",
        "Rewrites (separated by ',') that optimizer_verbose does not print.",
        StrParam(""),
    )
    config.add("profile", "Profile every compiled function.", BoolParam(False))
    config.add(
        "allow_gc",
        "Free intermediate results once read (False: the '_nogc' linkers).",
        BoolParam(True),
    )
    config.add(
        "check_view_maps",
        "After each node, compare the memory of its outputs and inputs with "
        "the op's view_map and destroy_map, and raise BadViewMap for an output "
        "that shares memory with an input it does not declare (cheap: nothing "
        "is re-run or copied; DebugMode checks this and more).",
        BoolParam(False),
    )
    config.add(
        "DebugMode__check_preallocated_output",
        "DebugMode runs each node again with its outputs preallocated in "
        "these kinds (':'-separated: initial, previous, c_contiguous, "
        "f_contiguous, strided, wrong_size, or ALL) and raises BadThunkOutput "
        "when a result changes; empty: not at all.",
        StrParam(""),
    )
    config.add(
        "traceback__limit",
        "How many frames of the user's stack (outside oxtensor) a variable "
        "made by a type, `dvector('x')`, keeps in `tag.trace`; -1: all, 0: none.",
        IntParam(8),
    )
    config.add(
        "cast_policy",
        "How Python numbers become constants: 'custom' (PyTensor's "
        "autocaster: the narrowest int dtype holding the value, float32 when "
        "exact) or 'numpy+floatX' (NumPy's defaults: int64, and floatX for "
        "floats; arange's dtype as NumPy's).",
        EnumStr("custom", ["numpy+floatX"], apply=_core._set_cast_policy),
    )


def _ignored(config: OxtensorConfigParser) -> None:
    params: dict[str, ConfigParam] = {
        "device": EnumStr("cpu"),
        "cxx": StrParam(""),
        "exception_verbosity": EnumStr("low", ["medium", "high"]),
        "cycle_detection": EnumStr("regular", ["fast"]),
        "check_stack_trace": EnumStr("off", ["raise", "warn", "log"]),
        "warn_float64": EnumStr("ignore", ["warn", "raise", "pdb"]),
        "deterministic": EnumStr("default", ["more"]),
        "on_shape_error": EnumStr("warn", ["raise"]),
        "print_global_stats": BoolParam(False),
        "profile_optimizer": BoolParam(False),
        "profile_memory": BoolParam(False),
        "vm__lazy": ConfigParam(None),
        "openmp": BoolParam(False),
        "openmp_elemwise_minsize": IntParam(200000),
        "compile__wait": IntParam(5),
        "compile__timeout": IntParam(120),
        "traceback__compile_limit": IntParam(0),
        "tensor__cmp_sloppy": IntParam(0),
        "blas__ldflags": StrParam(""),
        "compiledir": StrParam(""),
        "base_compiledir": StrParam(""),
        "unittests__rseed": StrParam("666"),
    }
    for name, param in params.items():
        config.add(name, IGNORED, param)


_honoured(config)
_ignored(config)
warn_unknown(config)

__all__ = ["config"]
