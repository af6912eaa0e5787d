"""`OpToRewriterTracker`, as PyTensor's: node rewriters filed by what they
track, and the ones to ask about an op. Which rewriters fit an op, and in
what order, is decided by the Rust core's tracker (the one the drivers
use); this class keeps PyTensor's view of what was added."""

from typing import Any

from oxtensor import _core


class OpToRewriterTracker:
    """Node rewriters by what they track: ``tracked_types`` (Op classes),
    ``tracked_instances`` (Op instances), ``tracked_op_patterns`` and
    ``untracked_rewrites`` (those that track every node)."""

    def __init__(self) -> None:
        self.tracked_instances: dict[Any, list[Any]] = {}
        self.tracked_types: dict[type, list[Any]] = {}
        self.tracked_op_patterns: dict[Any, list[Any]] = {}
        self.untracked_rewrites: list[Any] = []
        self._added: list[Any] = []

    def add_tracker(self, rewriter: Any) -> None:
        """Files ``rewriter`` under each thing its ``tracks()`` names."""
        tracks = rewriter.tracks()
        if tracks is None:
            self.untracked_rewrites.append(rewriter)
        else:
            for track in tracks:
                self._file(track, rewriter)
        self._added.append(rewriter)

    def _file(self, track: Any, rewriter: Any) -> None:
        if isinstance(track, type):
            self.tracked_types.setdefault(track, []).append(rewriter)
        elif hasattr(track, "op_type") and hasattr(track, "match_op"):
            self.tracked_op_patterns.setdefault(track, []).append(rewriter)
        else:
            self.tracked_instances.setdefault(track, []).append(rewriter)

    def get_trackers(self, op: Any) -> list[Any]:
        """The rewriters to ask about a node of ``op``: those of its classes
        (most specific first), then of an equal op, then the untracked."""
        return [self._added[i] for i in _core.rewriters_for_op(self._added, op)]

    def get_rewriters(self) -> list[Any]:
        """Every rewriter once: by type, by op pattern, by instance, untracked."""
        groups = [
            *self.tracked_types.values(),
            *self.tracked_op_patterns.values(),
            *self.tracked_instances.values(),
            self.untracked_rewrites,
        ]
        seen: list[Any] = []
        for group in groups:
            seen.extend(r for r in group if not any(r is s for s in seen))
        return seen


__all__ = ["OpToRewriterTracker"]
