"""The recorder's lock on its log: one recorder per log file (``flock``), held from
creation or resume until the log is signed, dropped by the system when the process dies,
however it dies (and a child it forked with the log open has exited: the child holds it)."""

from __future__ import annotations

import os
from typing import BinaryIO

from tarneeb.audit.encoding import shown


def lock_log(stream: BinaryIO, unlock: bool = False) -> bool:
    """Take an exclusive lock on the log open as ``stream`` for as long as the recorder
    has it open; False when another recorder holds it (a server resumed while the one
    thought dead still writes: both would write over each other and lose moves one of
    them acknowledged). Only recorders that lock see it (``flock``; not on Windows): the
    Node recorder takes the same lock (``js/src/recorder/filelock.ts``, through util-linux's
    ``flock(1)``); a file system without locks locks nothing (True). ``unlock``: drop it (the
    log signed).

    >>> import tempfile
    >>> with tempfile.TemporaryFile() as f, open(f"/proc/self/fd/{f.fileno()}", "rb") as g:
    ...     lock_log(f), lock_log(g), lock_log(f, unlock=True), lock_log(g)
    (True, False, True, True)
    """
    try:
        import fcntl
    except ImportError:  # Windows
        return True
    try:
        fcntl.flock(stream.fileno(), fcntl.LOCK_UN if unlock else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        pass  # a file system that locks nothing (ENOLCK, EINVAL)
    return True


def held(path: str | os.PathLike[str]) -> str:
    """Why a second recorder is refused a log another recorder holds (its lock)."""
    return (f"{shown(os.fspath(path))} is being written by another recorder (it holds the "
            "file's lock): one recorder per log")


__all__ = ["held", "lock_log"]
