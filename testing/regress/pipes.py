"""An engine process's pipes, read for :mod:`~tarneeb.testing.regress.command`: its standard
output a line at a time within deadlines (:class:`Lines`: a pipe selected, or read by a
thread on Windows), and the last lines of its standard error (:class:`StderrTail`), kept
bounded for the line a failure ends with."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from tarneeb.audit.encoding import json_shown

MAX_LINE = 1 << 20  # the longest line an engine may answer with
_POLL = 0.1  # seconds between looks at whether the engine's process is still there
STDERR_LINES = 5  # the engine's last lines on stderr, shown with a failure
_STDERR_KEEP = 200  # characters kept of each of them


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ``...`` saying so.

    >>> clip("abcdef", 5), clip("abc", 5)
    ('ab...', 'abc')
    """
    return text if len(text) <= limit else text[:limit - 3] + "..."


class StderrTail:
    """Reads a child's stderr in a thread, keeping only its last lines (bounded)."""

    def __init__(self, stream: Any) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._partial = b""
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True,
                                        name="tarneeb-engine-stderr")
        self._thread.start()

    def _read(self, stream: Any) -> None:
        fd = stream.fileno()
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(fd, 65536):
                *done, self._partial = (self._partial + chunk).split(b"\n")
                self._partial = self._partial[-4 * _STDERR_KEEP:]
                for raw in done:
                    line = raw.decode("utf-8", "replace").rstrip()
                    if line:
                        self.lines.append(clip(line, _STDERR_KEEP))

    def text(self, wait: float = 0.0) -> str:
        """``; its last lines on stderr: "..." | "..."`` (or that it wrote none)."""
        if wait:
            self._thread.join(wait)
        lines = list(self.lines)
        rest = self._partial.decode("utf-8", "replace").strip()
        if rest:
            lines = [*lines, clip(rest, _STDERR_KEEP)][-STDERR_LINES:]
        if not lines:
            return "; it wrote nothing to stderr"
        return "; its last lines on stderr: " + " | ".join(
            json_shown(json.dumps(x, ensure_ascii=False)) for x in lines)


class Lines:
    """Lines from a child's stdout, each read within a deadline."""

    def __init__(self, stream: Any) -> None:
        self.fd = stream.fileno()
        self.buf = bytearray()
        self.eof = False
        self.held_open = False  # the process exited, its output held open by its children
        self._queue: Any = None
        if sys.platform == "win32":  # pipes cannot be selected there: a reader thread
            import queue

            self._queue = queue.Queue()
            threading.Thread(target=self._pump, daemon=True).start()
            self._selector: Any = None
        else:
            import selectors

            os.set_blocking(self.fd, False)
            self._selector = selectors.DefaultSelector()
            self._selector.register(self.fd, selectors.EVENT_READ)

    def _pump(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(self.fd, 65536):
                self._queue.put(chunk)
        self._queue.put(b"")

    def _more(self, timeout: float | None) -> bool:
        """Read what is there within ``timeout``; False when the time ran out."""
        if self._selector is None:
            import queue

            try:
                chunk = self._queue.get(timeout=timeout)
            except queue.Empty:
                return False
        else:
            if not self._selector.select(timeout):
                return False
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return True
            except OSError:
                chunk = b""
        if not chunk:
            self.eof = True
        self.buf += chunk
        return True

    def readline(self, deadline: float | None,
                 exited: Callable[[], bool] | None = None) -> bytes | None:
        """The next line, without its end; None at the end of the output (or past
        :data:`MAX_LINE` without an end, or when ``exited()`` says the process is gone
        while something it started holds its output open: ``held_open`` is then set);
        :class:`TimeoutError` past ``deadline``."""
        while True:
            end = self.buf.find(b"\n")
            if end >= 0:
                line = bytes(self.buf[:end])
                del self.buf[:end + 1]
                return line
            if self.eof or len(self.buf) > MAX_LINE:
                return None
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            if exited is not None:
                timeout = _POLL if timeout is None else min(timeout, _POLL)
            if not self._more(timeout):
                if exited is not None and exited():
                    self._more(0.0)  # what it wrote last, before it went
                    if b"\n" not in self.buf and not self.eof:
                        self.held_open = True
                        return None
                    continue
                if deadline is None or time.monotonic() < deadline:
                    continue
                raise TimeoutError

    def close(self) -> None:
        if self._selector is not None:
            self._selector.close()


__all__ = ["MAX_LINE", "STDERR_LINES", "Lines", "StderrTail", "clip"]
