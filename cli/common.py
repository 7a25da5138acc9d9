"""What every command shares: errors, reading and writing files or ``-``, the consoles.

Nothing here imports typer or rich at module level, so the commands that do not need
them (a plain ``tarneeb verify``) start fast.

>>> expand_logs(["-"])
['-']
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn, TextIO, cast

if TYPE_CHECKING:
    from rich.console import Console

    from tarneeb.replay.log import ParsedLog
    from tarneeb.replay.log.stream import Limits

STDIO = "-"  # a file argument of "-" means standard input or standard output
_GLOB_MAGIC = frozenset("*?[")  # what glob.has_magic looks for: a log named plainly needs no glob


@cache
def console(stderr: bool = False) -> Console:
    """The rich console for stdout (or stderr): colour on a terminal, plain text in a pipe."""
    from rich.console import Console
    from rich.text import Text

    from tarneeb.audit.encoding import shown

    class Shown(Console):
        """A console that prints every control character of the text it is given escaped
        (:func:`tarneeb.audit.encoding.shown`): a line that holds a file name or an
        engine's answer cannot act on the terminal; its own styles still can."""

        def print(self, *objects: Any, **kwargs: Any) -> None:
            safe = [shown(o) if isinstance(o, str) else
                    Text(shown(o.plain), style=o.style)
                    if isinstance(o, Text) and shown(o.plain) != o.plain else o
                    for o in objects]
            super().print(*safe, **kwargs)

    # data (paths, names from a log) is never read as markup or emoji codes: a command that
    # styles text passes rich Text, or markup=True for lines whose data it escaped
    return Shown(stderr=stderr, highlight=False, soft_wrap=True, markup=False, emoji=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr and an exit code: the way every bad input ends (a file name or
    other text from outside in ``message`` shown escaped)."""
    from tarneeb.audit.encoding import shown

    with contextlib.suppress(AttributeError, OSError, ValueError):  # (stdout closed: None)
        sys.stdout.flush()
    if sys.stderr is not None:  # (closed too: the exit code alone says it)
        sys.stderr.write(f"tarneeb: error: {shown(message)}\n")
        sys.stderr.flush()
    raise SystemExit(code)


def read_input(path: Path | str, most: int, cap: str = "") -> bytes:
    """The bytes of ``path``, or of standard input for ``-``, of at most ``most`` bytes
    (one more read from standard input says it is longer: the caller's to refuse). A file
    longer than that, anything but a regular file (a FIFO, a device: refused without being
    opened for reading) or a read error ends the command in one line; ``cap`` says where
    the limit comes from (``" (--max-bytes)"``)."""
    from tarneeb.audit.encoding import FileTooLarge, read_small_file

    if str(path) == STDIO:
        return sys.stdin.buffer.read(most + 1)
    try:
        return read_small_file(path, most)
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror or e}"
             + (cap if isinstance(e, FileTooLarge) else ""))


def open_input(path: Path | str) -> contextlib.AbstractContextManager[BinaryIO]:
    """``path`` open for reading as a stream, to use in ``with`` (standard input for ``-``,
    left open); a file that cannot be opened, or is not a regular file (a FIFO no one
    writes to would wait forever: refused unopened, as the log readers refuse it), ends
    the command."""
    if str(path) == STDIO:
        return contextlib.nullcontext(sys.stdin.buffer)
    from tarneeb.audit.encoding import open_regular

    try:
        return open_regular(str(path))
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror or e}")


class ReaderGone(io.RawIOBase):
    """A standard stream's file descriptor that discards what is written once its reader
    has gone (``tarneeb verify LOG | head``: a closed pipe), so the command still ends
    with its own exit code (the verdict's) instead of a broken-pipe error."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    # (override: BinaryIO's write takes any buffer; this one takes the bytes a command writes)
    def write(self, b: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        n = memoryview(b).nbytes
        if not self.gone:
            try:
                return os.write(self.fd, b)
            except BrokenPipeError:
                self.gone = True
        return n


STDIN_CLOSED = "standard input is closed (<&-): there is nothing to read as -; give a file"
STDOUT_CLOSED = ("standard output is closed (>&-): what this command prints would be lost; "
                 "redirect it to a file (or to /dev/null) instead")


class ClosedStdin:
    """``sys.stdin`` when the process started with standard input closed (``<&-``): any
    read of it (``-`` as an input) ends the command in one line instead of a traceback;
    a command that never reads it runs as usual."""

    def isatty(self) -> bool:
        return False

    def __iter__(self) -> NoReturn:
        fail(STDIN_CLOSED)

    def __getattr__(self, name: str) -> NoReturn:  # buffer, read, readline, fileno...
        fail(STDIN_CLOSED)


def guard_std_streams() -> None:
    """Put stdout and stderr (as Python made them, not a test's capture) over
    :class:`ReaderGone`, so a closed pipe never changes the exit code.

    A standard stream closed when the process started (``>&-``: Python's ``None``):
    standard output ends the command at once (exit 2), before it makes anything (a
    secret seed) it could not print; standard input becomes a :class:`ClosedStdin`,
    which ends the command only when it is read. A closed descriptor 0 or 2 is opened
    on the null device, so no file the command opens takes its number (and reaches an
    engine it starts as that stream).
    """
    if sys.stdout is None:
        fail(STDOUT_CLOSED)
    if sys.stdin is None:
        sys.stdin = cast("TextIO", ClosedStdin())
    for fd in (0, 2):
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
                if null != fd:  # (an fd below it is closed too: the next pass gets that)
                    os.dup2(null, fd)
                    os.close(null)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or stream is not getattr(sys, f"__{name}__"):
            continue
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            continue
        stream.flush()
        setattr(sys, name, io.TextIOWrapper(
            io.BufferedWriter(ReaderGone(fd)), encoding=stream.encoding, errors=stream.errors,
            line_buffering=stream.line_buffering))


def load_log(path: Path | str, limits: Limits | None = None) -> ParsedLog:
    """The log at ``path`` (``-``: standard input), read as a stream within ``limits``.

    Raises :class:`tarneeb.replay.log.LogError` naming the file (``<stdin>``).
    """
    from tarneeb.replay.log import parse_log, read_log
    from tarneeb.replay.log.stream import DEFAULT_LIMITS

    limits = limits or DEFAULT_LIMITS
    if str(path) == STDIO:
        stdin = sys.stdin.buffer
        peek = getattr(stdin, "peek", None)
        first = peek(1)[:1] if peek is not None else b""
        if first and first in b"{ \t\r\n\xef":  # a log's JSON form, maybe: read whole
            return _stdin_json_form(stdin.read(limits.max_json_bytes + 1), limits)
        return parse_log(stdin, shown_name(path), limits)
    return read_log(str(path), limits)


def _stdin_json_form(raw: bytes, limits: Limits) -> ParsedLog:
    """The log standard input holds (``raw``), read as a log, else as its JSON form
    (``tarneeb export``), as a file is: no tarneeb log and no JSON log, both failures said."""
    from tarneeb.replay.log import LogError, parse_log

    name = shown_name(STDIO)
    try:
        return parse_log(raw, name, limits)
    except LogError as e:
        if "not a tarneeb log" not in str(e):
            raise
        first = e
    try:
        data = _json_form_of(raw, limits)
    except LogError as e:
        raise LogError(f"{first}; nor a log's JSON form: {e}") from None
    if data is None:
        raise first
    return parse_log(data, name, limits)


def read_log_bytes(path: Path | str, limits: Limits) -> bytes:
    """The bytes of the log at ``path`` (``-``: standard input), no more than the
    ``max_bytes`` cap: one byte past it is read, for the reader to refuse the log.

    Raises :class:`tarneeb.replay.log.LogError` naming the file (``<stdin>``).
    """
    from tarneeb.audit.encoding import open_regular
    from tarneeb.replay.log import LogError

    try:
        if str(path) == STDIO:
            return sys.stdin.buffer.read(limits.max_bytes + 1)
        with open_regular(str(path)) as f:
            return f.read(limits.max_bytes + 1)
    except OSError as e:
        raise LogError(f"cannot read: {e.strerror or e}", None, shown_name(path)) from None


def json_form(path: Path | str, limits: Limits | None = None) -> bytes | None:
    """The log whose JSON form (``tarneeb export``) the file ``path`` holds, as the log's
    bytes; ``None`` when the file does not start as a JSON object (or cannot be read).

    Raises :class:`tarneeb.replay.log.LogError` for a JSON document that is no JSON log.
    """
    from tarneeb.replay.log.stream import DEFAULT_LIMITS

    limits = limits or DEFAULT_LIMITS
    try:
        with open(path, "rb") as f:
            raw = f.read(limits.max_json_bytes + 1)
    except OSError:
        return None
    return _json_form_of(raw, limits)


def _json_form_of(raw: bytes, limits: Limits) -> bytes | None:
    """The log whose JSON form ``raw`` holds, as the log's bytes; None when it does not
    start as a JSON object. Raises :class:`tarneeb.replay.log.LogError` for a JSON
    document that is no JSON log."""
    from tarneeb.replay.log import LogError
    from tarneeb.replay.log import jsonform as logjson

    if not raw.lstrip(b" \t\r\n\xef\xbb\xbf").startswith(b"{"):
        return None
    try:
        return logjson.loads(raw.decode("utf-8"), limits)
    except UnicodeDecodeError:
        raise LogError("not UTF-8 text") from None


def json_form_instead(path: Path | str, error: str, limits: Limits | None = None,
                      ) -> bytes | None:
    """A file that failed to read as a log with ``error``: the log its JSON form
    (``tarneeb export``) gives, when ``error`` says it is no tarneeb log and the file starts
    as a JSON object; ``None`` otherwise. Raises :class:`tarneeb.replay.log.LogError`
    naming both failures for a JSON document that is no JSON log."""
    from tarneeb.replay.log import LogError

    if str(path) == STDIO or "not a tarneeb log" not in error:
        return None
    try:
        return json_form(path, limits)
    except LogError as e:
        raise LogError(f"{error}; nor a log's JSON form: {e}") from None


def shown_name(path: Path | str) -> str:
    """How messages name a file: ``<stdin>`` for ``-``."""
    return "<stdin>" if str(path) == STDIO else str(path)


def output_name(path: Path | str) -> str:
    """``path`` as given for a file to write; one that names no file (``''``, ``.``,
    ``/``, ``dir/``) ends the command in one line (exit 2)."""
    text = str(path)
    why = _no_file_name(text)
    if why is not None:
        fail(why)
    return text


def output_file(path: Path | str) -> str:
    """:func:`output_name`, and checked before a long run rather than at its end: a
    directory, a socket, a path through a file or into a directory that is not there ends
    the command in one line (exit 2). (Whether the file can be written is learnt when it
    is.)"""
    text = str(path)
    if text == STDIO:
        return text
    output_name(text)
    try:
        if _output_mode(text) is None and not os.path.isdir(os.path.dirname(text) or "."):
            raise OutputError(f"{text}: cannot write: its directory is not there")
    except OutputError as e:
        fail(str(e))
    return text


def _no_file_name(text: str) -> str | None:
    """Why ``text`` (``''``, ``.``, ``/``, ``dir/``) is no file to write; None for a file."""
    if not text:
        return "an empty output file name: give a file (or - for standard output)"
    if os.path.basename(text) in ("", ".", ".."):
        return f"{text}: names a directory, not a file to write: give a file name"
    return None


def write_output(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` (standard output for ``-``), atomically.

    The file gets the user's umask like any file the user makes (a published log, a
    JSON export): only secrets are written private, by :mod:`tarneeb.audit.signing`.
    A temporary file beside ``path`` is renamed over it, so a reader never sees half a
    file and a failed write leaves the old one.

    What ``path`` names decides how:

    * a regular file, or nothing yet: the atomic rename above;
    * a symbolic link: followed; the file it names (or would name) is replaced the same
      way, the temporary file in that file's directory, and the link is kept;
    * a character device or a FIFO (``/dev/null``, ``/dev/stdout``, a named pipe):
      written through, without a temporary file (renaming over it would put a regular
      file in its place); a FIFO waits for its reader, as a shell's ``>`` does;
    * a directory, a socket, a block device, or a name that is no file name (``''``,
      ``.``, ``/``): refused in one line (exit 2), as is a closed standard output
      for ``-``; nothing is written.
    """
    try:
        put_output(path, data)
    except OutputError as e:
        fail(str(e))


def refuse_to_replace(output: Path | str, *inputs: Path | str | None) -> None:
    """End the command in one line (exit 2) when ``output`` is one of the files
    ``inputs`` (the same file, by any name): writing it would replace what was read (a
    log, a private key), which nothing could give back."""
    if str(output) == STDIO:
        return
    try:
        out = os.stat(output)
    except OSError:
        return  # (nothing there yet: nothing to replace)
    for given in inputs:
        if given is None or str(given) == STDIO:
            continue
        try:
            st = os.stat(given)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
            fail(f"{output}: it is {given}, which this command reads: writing it would "
                 "replace it; give another file to write")


LOG_MAGIC = b"\xabtarneeb-log"  # the header's magic, as msgpack writes it, near a log's start


def holds_a_log(path: Path | str) -> bool:
    """Whether the regular file at ``path`` starts as a log does (its header's magic in its
    first 16 bytes)."""
    if not os.path.isfile(path):  # (a FIFO is not opened: it would wait for a writer)
        return False
    try:
        with open(path, "rb") as f:
            return LOG_MAGIC in f.read(16)
    except OSError:
        return False


def refuse_to_replace_listed(output: Path | str | None, listed: Iterable[str]) -> None:
    """:func:`refuse_to_replace` for the many logs a command lists: those of ``output``'s
    name alone are asked whether they are its file (one question a log would be a cost on
    a large archive), so a report or a JUnit file named as one of the logs read does not
    replace it."""
    if output is None or str(output) == STDIO or not os.path.isfile(output):
        return
    name = os.path.basename(output)
    refuse_to_replace(output, *(p for p in listed if os.path.basename(p) == name))


class OutputError(Exception):
    """What :func:`put_output` could not write, in one line."""


def put_output(path: Path | str, data: bytes) -> None:
    """:func:`write_output`, raising :class:`OutputError` instead of ending the command
    (for a command that says it after what it has already written)."""
    if str(path) == STDIO:
        if sys.stdout is None:
            raise OutputError(STDOUT_CLOSED)
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    import secrets
    import stat

    text = str(path)
    why = _no_file_name(text)
    if why is not None:
        raise OutputError(why)
    mode = _output_mode(text)
    if mode is not None and not stat.S_ISREG(mode):  # a character device or a FIFO
        _write_through(text, data)
        return
    # (a name that names no file is refused above, and a link to "/" is a directory)
    target = Path(os.path.realpath(text)) if os.path.islink(text) else Path(text)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as e:
        raise OutputError(f"{text}: cannot write: {e.strerror or e}") from None


def _output_mode(text: str) -> int | None:
    """The mode of the file ``text`` names (through a symbolic link) when it is one to
    write: a regular file, a character device or a FIFO; None when there is none yet.
    :class:`OutputError` for a directory, a socket, a block device, a loop of links, a
    path through a file or one not allowed."""
    import stat

    try:
        mode = os.stat(text).st_mode
    except FileNotFoundError:
        return None  # a new file (or a link to one)
    except OSError as e:  # a loop of links, a path through a file, no permission
        raise OutputError(f"{text}: cannot write: {e.strerror or e}") from None
    if stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return mode
    what = "a directory" if stat.S_ISDIR(mode) else "a socket" if stat.S_ISSOCK(mode) \
        else "a block device" if stat.S_ISBLK(mode) else "not a regular file"
    raise OutputError(f"{text}: cannot write: it is {what}: give a regular file to write")


def _write_through(path: str, data: bytes) -> None:
    """Write ``data`` into the character device or FIFO ``path`` as it is (no temporary
    file, no truncation, nothing created); anything else found there once it is open
    (a file that took its place) is left alone and the command ends."""
    import stat

    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "wb") as f:
            mode = os.fstat(f.fileno()).st_mode
            if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
                raise OSError(0, "another file took its place as it was opened: left alone")
            f.write(data)
    except OSError as e:
        raise OutputError(f"{path}: cannot write: {e.strerror or e}") from None


def expand_logs(args: Iterable[str | Path]) -> list[str]:
    """The logs named on a command line: files as given, a directory's ``*.tlog`` files
    and its subdirectories' (:func:`tarneeb.replay.archive.paths.logs_under`, the rule
    ``audit`` follows too), a quoted glob's matches, ``-`` for standard input.

    A path that does not exist is kept, so the command reports it as unreadable; a
    directory without logs or a glob matching nothing ends the command (exit 2).
    """
    out: list[str] = []
    for raw in args:
        text = str(raw)
        if not text:  # (Path("") is the current directory)
            fail("an empty file name: give a log, a directory, a pattern or - for standard "
                 "input")
        p = Path(text)
        if text == STDIO:
            out.append(text)
        elif p.is_dir():
            from tarneeb.replay.archive.paths import ArchiveError, logs_under

            try:  # a subdirectory that cannot be listed ends the command: never skipped
                found = list(logs_under(p))
            except ArchiveError as e:
                fail(str(e))
            if not found:
                fail(f"{p}: no *.tlog match logs in this directory or its subdirectories")
            out.extend(found)
        elif not p.exists() and _GLOB_MAGIC.intersection(text):
            from tarneeb.replay.archive.paths import ArchiveError, expand_paths

            try:  # as audit expands it: each log once, no link to a directory followed
                out.extend(expand_paths([text]))
            except ArchiveError as e:
                fail(str(e))
        else:
            out.append(text)
    return out


__all__ = ["LOG_MAGIC", "STDIN_CLOSED", "STDIO", "STDOUT_CLOSED", "ClosedStdin", "ReaderGone",
           "console", "expand_logs", "fail", "guard_std_streams", "holds_a_log", "json_form",
           "json_form_instead",
           "load_log", "open_input", "output_file", "output_name", "read_input",
           "refuse_to_replace", "refuse_to_replace_listed", "shown_name", "write_output"]
