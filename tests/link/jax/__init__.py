"""Tests of the JAX backend, skipped (with `SKIP_REASON`) when JAX is not
installed."""

SKIP_REASON = (
    "JAX is not installed (pip install oxtensor[jax]); the JAX backend is not tested"
)
