"""Exceptions and helpers shared by the graph modules."""

import linecache
import os
import sys
from typing import Any

from oxtensor import _core
from oxtensor.configdefaults import config

InconsistencyError = _core.InconsistencyError
MissingInputError = _core.MissingInputError
MethodNotDefined = _core.MethodNotDefined
Scratchpad = _core.Scratchpad

# Frames in oxtensor's own files are not the user's: the trace starts at the
# line that asked for the variable.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


_INTERNAL: dict[str, bool] = {}


def _is_internal(filename: str) -> bool:
    found = _INTERNAL.get(filename)
    if found is None:
        found = _INTERNAL[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
    return found


def simple_extract_stack(limit: int | None = None) -> list[tuple[str, int, str, str]]:
    """The caller's stack outside oxtensor, innermost last, as
    ``(filename, lineno, function, source line)``; at most ``limit`` frames
    (``None``: all)."""
    frames: list[tuple[str, int, str, str]] = []
    frame = sys._getframe(1)
    while frame is not None and (limit is None or len(frames) < limit):
        code = frame.f_code
        filename = code.co_filename
        if not _is_internal(filename):
            lineno = frame.f_lineno
            line = linecache.getline(filename, lineno, frame.f_globals).strip()
            frames.append((filename, lineno, code.co_name, line))
        frame = frame.f_back
    frames.reverse()
    return frames


def add_tag_trace(thing: Any, user_line: int | None = None) -> Any:
    """Stores where ``thing`` was made in ``thing.tag.trace``: a list of one
    stack (``simple_extract_stack``) of ``user_line`` frames, by default
    ``config.traceback__limit`` (-1: all, 0: an empty list)."""
    if user_line is None:
        user_line = config.traceback__limit
    if user_line == 0:
        thing.tag.trace = []
        return thing
    stack = simple_extract_stack(None if user_line == -1 else user_line)
    thing.tag.trace = [stack] if stack else []
    return thing


__all__ = [
    "InconsistencyError",
    "MethodNotDefined",
    "MissingInputError",
    "Scratchpad",
    "add_tag_trace",
    "simple_extract_stack",
]
