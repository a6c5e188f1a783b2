"""How a command reports the end of its work: the files it wrote, and a failure after its result was printed."""

from __future__ import annotations

__all__ = ["CommandFailed", "written"]


class CommandFailed(Exception):
    """A command that printed its result and still fails: the one line for stderr, and the exit ``status``."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def written(path):
    """The line that names a file a command wrote (stdout, aligned with the report's other lines)."""
    print(f"written             {path}")
