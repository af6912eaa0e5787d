"""Linking: the storage compiled functions read and write."""

from oxtensor.link import basic

__all__ = ["basic"]
