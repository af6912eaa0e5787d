"""`clone_replace`: a copy of a graph with some variables substituted."""

from oxtensor import _core

clone_replace = _core.clone_replace

__all__ = ["clone_replace"]
