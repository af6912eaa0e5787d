"""Loops as graph nodes: `scan` builds a `Scan` op (`oxtensor.scan.op`)
whose inner graph is one step of the loop; `map`, `reduce`, `foldl` and
`foldr` are its common special cases."""

from oxtensor.scan.basic import scan
from oxtensor.scan.utils import ScanNotSupportedError, until
from oxtensor.scan.views import foldl, foldr, map, reduce

__all__ = ["ScanNotSupportedError", "foldl", "foldr", "map", "reduce", "scan", "until"]
