"""Linkers outside the native VM: each turns a rewritten graph into a
callable of another engine (``oxtensor.link.jax``)."""
