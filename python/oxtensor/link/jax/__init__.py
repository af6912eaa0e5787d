"""The JAX backend: a rewritten graph as one ``jax.jit``-ed function, so it
runs on XLA devices (CPU, GPU, TPU) and shards with ``jax.sharding``.

``oxtensor.function(..., mode="JAX")`` compiles through it;
`as_jax_function` exports a graph as a pure JAX callable; `jax_funcify`
is the table of op implementations (register your own ops there).

Importing this module enables JAX's 64-bit types (``jax_enable_x64``), as
oxtensor's graphs default to float64 and int64 (PyTensor does the same).
"""

try:
    import jax
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "oxtensor's JAX backend (mode='JAX') needs JAX: `pip install oxtensor[jax]` "
        "(or `pip install 'jax[cpu]'`)"
    ) from exc

jax.config.update("jax_enable_x64", True)

from oxtensor.link.jax.dispatch import JAXUnsupportedError, jax_funcify  # noqa: E402
from oxtensor.link.jax.export import as_jax_function  # noqa: E402
from oxtensor.link.jax.function import JAXFunction  # noqa: E402
from oxtensor.link.jax.linker import JAXLinker, fgraph_to_jax  # noqa: E402

__all__ = [
    "JAXFunction",
    "JAXLinker",
    "JAXUnsupportedError",
    "as_jax_function",
    "fgraph_to_jax",
    "jax_funcify",
]
