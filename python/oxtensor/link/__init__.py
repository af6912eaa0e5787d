"""Linking: the storage compiled functions read and write (``basic``), and
linkers outside the native VM, each turning a rewritten graph into a
callable of another engine (``oxtensor.link.jax``, imported on demand)."""

from oxtensor.link import basic

__all__ = ["basic"]
