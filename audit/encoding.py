"""Byte encodings shared by the protocol: its name, its domain tags, length prefixes.

Every tag is the protocol name, a slash, a purpose, and one zero byte, so no
tag is a prefix of another and no two purposes can ever hash the same bytes.

>>> SERVER_COMMIT_TAG
b'tarneeb-fair-v2/server-commit\\x00'
>>> lp16(b"m-1").hex()
'00036d2d31'
>>> parse_hex("00ff", "client seed").hex()
'00ff'
"""

from __future__ import annotations

import errno
import os
import re
import stat
import struct
from collections.abc import Iterable, Sized
from pathlib import Path
from typing import BinaryIO

from .errors import AuditInputError

PROTOCOL = "tarneeb-fair-v2"
"""Name and version of the scheme; it starts every domain tag."""


def tag(purpose: str, protocol: str = PROTOCOL) -> bytes:
    """The domain tag for a purpose: ``b"tarneeb-fair-v2/" + purpose + b"\\x00"``
    (another protocol of the project, such as blind dealing, names itself)."""
    return f"{protocol}/{purpose}".encode("ascii") + b"\x00"


SERVER_COMMIT_TAG = tag("server-commit")
CLIENT_COMMIT_TAG = tag("client-commit")
DEAL_TAG = tag("deal")
FIRST_DEALER_TAG = tag("first-dealer")
BINDING_TAG = tag("binding")
SEASON_HEAD_TAG = tag("season-head")
RECEIPT_TAG = tag("receipt")

SERVER_SEED_LEN = 32
COMMITMENT_LEN = 32
CLIENT_SEED_MIN, CLIENT_SEED_MAX = 16, 64  # 16 bytes: 128 bits, see PROTOCOL.md §2
MATCH_ID_MIN, MATCH_ID_MAX = 1, 64
SEATS = 4
MAX_DEAL_NUMBER = 2**32 - 1
MAX_SEASON_SIZE = 2**40

_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")


def u16be(n: int) -> bytes:
    return _U16.pack(n)


def u32be(n: int) -> bytes:
    return _U32.pack(n)


def u64be(n: int) -> bytes:
    return _U64.pack(n)


def lp16(field: bytes) -> bytes:
    """``field`` preceded by its length as a big-endian 16-bit number."""
    return _U16.pack(len(field)) + field


def nbytes(n: int) -> str:
    """``"1 byte"``, ``"3 bytes"``."""
    return f"{n} byte" if n == 1 else f"{n} bytes"


SMALL_FILE_BYTES = 1024 * 1024
"""The most bytes a small file given on a command line may hold (1 MiB): a keys file, a
rules file, a season, a PEM key. Each holds a few kilobytes; a larger one is refused unread."""

_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
            (stat.S_ISDIR, "a directory"))


class NotRegularFile(OSError):
    """A path that names something other than a regular file: refused unread."""


def _refuse_special(mode: int, path: str) -> None:
    if stat.S_ISREG(mode):
        return
    what = next((text for test, text in _SPECIAL if test(mode)), "not a regular file")
    raise NotRegularFile(0, f"{what}, not a regular file: refused without reading it", path)


def open_regular(path: str) -> BinaryIO:
    """Open the regular file at ``path`` for reading; anything else (a FIFO, a device, a
    socket, a directory) raises :class:`NotRegularFile` without being opened for reading:
    opening a FIFO no one writes to waits forever, and a device may never end or do
    something when read. A file replaced by one between the check and the open is opened
    without waiting (``O_NONBLOCK``), checked again and refused.

    >>> import tempfile
    >>> try:
    ...     open_regular(tempfile.gettempdir())
    ... except NotRegularFile as e:
    ...     print(e.strerror)
    a directory, not a regular file: refused without reading it
    """
    if "\0" in path:  # (os.stat raises ValueError for it: no file is so named)
        raise FileNotFoundError(errno.ENOENT, "no file name holds a NUL byte", path)
    _refuse_special(os.stat(path).st_mode, path)
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_BINARY", 0))
    fd = os.open(path, flags)
    try:
        _refuse_special(os.fstat(fd).st_mode, path)
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class FileTooLarge(OSError):
    """A file larger than its limit: refused without reading it."""


def read_small_file(path: str | Path, most: int = SMALL_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, of at most ``most`` bytes (never more read
    than one byte past it). Raises ``OSError`` (``strerror`` saying why in a few words):
    :class:`FileTooLarge` for a larger file, refused unread; any other for what is not a
    regular file (a FIFO, a device, a socket: refused without being opened for reading,
    which for a FIFO waits forever; a directory: ``IsADirectoryError``).

    >>> import tempfile
    >>> try:
    ...     read_small_file(tempfile.gettempdir())
    ... except OSError as e:
    ...     print(e.strerror)
    it is a directory
    """
    name = str(path)
    if os.path.isdir(name):
        raise IsADirectoryError(errno.EISDIR, "it is a directory", name)
    with open_regular(name) as f:  # (no FIFO, no device: refused unopened)
        size = os.fstat(f.fileno()).st_size
        if size > most:
            raise FileTooLarge(0, f"{size:,} bytes, more than the {most:,} it may hold: "
                               "refused without reading it", name)
        data = f.read(most + 1)
    if len(data) > most:  # it grew after the size was read
        raise FileTooLarge(0, f"more than the {most:,} bytes it may hold", name)
    return data


def parse_hex(text: str, what: str, length: int | None = None) -> bytes:
    """Bytes from hex text (upper or lower case, surrounding spaces ignored).

    ``what`` names the value in the error message; ``length``, when given, is the
    exact number of bytes wanted.

    >>> try:
    ...     parse_hex("abc", "server seed")
    ... except AuditInputError as e:
    ...     print(e)
    server seed: not hex (3 hex digits; hex needs an even number)
    """
    t = text.strip()
    if t[:2] in ("0x", "0X"):
        t = t[2:]
    if len(t) % 2:
        raise AuditInputError(f"{what}: not hex ({len(t)} hex digits; hex needs an even number)")
    try:
        raw = bytes.fromhex(t)
    except ValueError:
        raise AuditInputError(f"{what}: not hex (use the digits 0-9 and a-f)") from None
    if length is not None and len(raw) != length:
        raise AuditInputError(
            f"{what}: {nbytes(len(raw))} ({len(t)} hex digits); it must be {length} bytes "
            f"({2 * length} hex digits)")
    return raw


# what a name or a reason may not hold: control characters (C0, DEL, C1: newlines,
# terminal escapes), line and paragraph separators, and the bidi embeddings,
# overrides and isolates, which reorder the text shown after them
_UNSAFE_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def unsafe_character(text: str) -> str | None:
    """The first character of ``text`` that would change how the text around it is
    shown (a newline, a terminal escape, a bidi override …), as ``U+001B``; else ``None``.

    Names and reasons that a verdict prints come from the data checked: such a
    character in one could forge or hide a line of the verdict.

    >>> unsafe_character("لاعب الشمال"), unsafe_character("North\\x1b[2K")
    (None, 'U+001B')
    """
    m = _UNSAFE_TEXT.search(text)
    return None if m is None else f"U+{ord(m.group()):04X}"


# the prototypes confusables.txt gives the printable ASCII characters, where they are ASCII
# too (all but ``%``'s): :func:`ascii_name_keys` makes a name's keys with them alone
# (tests/test_keys_names.py checks they are the table's)
ASCII_PROTOTYPES = {'"': "''", "0": "O", "1": "l", "I": "l", "`": "'", "d": "cl", "m": "rn",
                    "|": "l"}


def _ascii_skeleton(text: str) -> str:
    return "".join(ASCII_PROTOTYPES.get(c, c) for c in text)


def ascii_name_keys(name: str) -> frozenset[str] | None:
    """:func:`tarneeb.audit.names.name_keys` of a name of printable ASCII but ``%`` (None for
    any other), made without reading the UTS #39 table or loading Unicode's data: a
    verdict's players' names are most often such, and a verify of one log does neither.

    >>> sorted(ascii_name_keys("BiII")), ascii_name_keys("Omar\u200b")
    (['biii', 'bill'], None)
    """
    if not (name.isascii() and name.isprintable()) or "%" in name:
        return None
    return frozenset((_ascii_skeleton(name.casefold()),
                      _ascii_skeleton(_ascii_skeleton(name).casefold())))


def shown(text: str) -> str:
    """``text`` as a terminal may show it: each character :func:`unsafe_character` refuses
    (and a lone surrogate, an undecodable byte of a file name) written as an escape, so
    text from outside the program (a file name, an engine's answer, a keys file) cannot
    clear the screen, move the cursor, hide or reorder what follows, or start a new line.

    >>> print(shown("m\\x1b[2J.tlog"), shown("a\\rb\\u202ec"), shown("لاعب"))
    m\\x1b[2J.tlog a\\rb\\u202ec لاعب
    """
    if _UNSAFE_TEXT.search(text) is None and _SURROGATE.search(text) is None:
        return text  # the common case, unchanged
    return _SHOWN.sub(_escape, text)


def json_shown(document: str) -> str:
    """A JSON document (``json.dumps`` output, which writes C0 characters in strings as
    escapes already) with DEL, C1, the line separators and the bidi controls written as
    ``\\uXXXX`` escapes too: the same value, and nothing in it a terminal acts on.

    >>> print(json_shown('["a\\u202eb", "c\\x85"]'))
    ["a\\u202eb", "c\\u0085"]
    """
    return _JSON_SHOWN.sub(lambda m: f"\\u{ord(m.group()):04x}", document)


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    if 0xDC80 <= c <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{c - 0xDC00:02x}"
    return {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}.get(
        c, f"\\x{c:02x}" if c <= 0xFF else f"\\u{c:04x}")


_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN = re.compile(f"{_UNSAFE_TEXT.pattern}|{_SURROGATE.pattern}")
# what json.dumps leaves as it is: the C0 characters it has escaped already (those left
# are the layout's own newlines)
_JSON_SHOWN = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


_BYTES_LIKE = (bytes, bytearray, memoryview)


def check_bytes(value: object, what: str) -> bytes:
    if value.__class__ is bytes:  # the common case, first
        return value
    if isinstance(value, _BYTES_LIKE):
        return bytes(value)
    raise AuditInputError(f"{what} must be bytes, not {type(value).__name__}")


def check_server_seed(seed: bytes) -> bytes:
    seed = check_bytes(seed, "server seed")
    if len(seed) != SERVER_SEED_LEN:
        raise AuditInputError(
            f"server seed: {nbytes(len(seed))}; it must be {SERVER_SEED_LEN} bytes")
    return seed


def check_commitment(commitment: bytes, what: str = "commitment") -> bytes:
    commitment = check_bytes(commitment, what)
    if len(commitment) != COMMITMENT_LEN:
        raise AuditInputError(
            f"{what}: {nbytes(len(commitment))}; it must be {COMMITMENT_LEN} bytes (SHA-256)")
    return commitment


def check_match_id(match_id: bytes | str) -> bytes:
    """A match id as bytes: text is taken as its UTF-8 bytes, unchanged (no normalisation)."""
    try:
        raw = match_id.encode("utf-8") if isinstance(match_id, str) else check_bytes(
            match_id, "match id")
    except UnicodeEncodeError:  # e.g. bytes of another encoding passed through argv
        raise AuditInputError("match id: not UTF-8 text; give an id that is not text as "
                              "hex (--match-id-hex)") from None
    if not MATCH_ID_MIN <= len(raw) <= MATCH_ID_MAX:
        raise AuditInputError(
            f"match id: {nbytes(len(raw))}; it must be {MATCH_ID_MIN}-{MATCH_ID_MAX} bytes")
    return raw


def check_seat(seat: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS:
        raise AuditInputError(f"seat: {seat!r}; seats are 0-3")
    return seat


def check_client_seed(seed: bytes, seat: int | None = None) -> bytes:
    if seed.__class__ is bytes and CLIENT_SEED_MIN <= len(seed) <= CLIENT_SEED_MAX:
        return seed  # the common case, without making the message below
    what = "client seed" if seat is None else f"client seed of seat {seat}"
    seed = check_bytes(seed, what)
    if not CLIENT_SEED_MIN <= len(seed) <= CLIENT_SEED_MAX:
        why = " (a shorter seed can be found from its commitment)" \
            if len(seed) < CLIENT_SEED_MIN else ""
        raise AuditInputError(
            f"{what}: {nbytes(len(seed))}; it must be {CLIENT_SEED_MIN}-{CLIENT_SEED_MAX} "
            f"bytes{why}")
    return seed


def check_client_seeds(seeds: object) -> tuple[bytes, bytes, bytes, bytes]:
    """The four client seeds, in seat order 0-3."""
    if isinstance(seeds, bytes | str) or not isinstance(seeds, Sized) \
            or not isinstance(seeds, Iterable):
        raise AuditInputError("client seeds: give a sequence of four seeds, one per seat")
    seq = list(seeds)
    if len(seq) != SEATS:
        raise AuditInputError(f"client seeds: {len(seq)} given; there must be 4, one per seat")
    a, b, c, d = (check_client_seed(s, i) for i, s in enumerate(seq))
    return a, b, c, d


def check_count(value: object, what: str, lo: int, hi: int) -> int:
    """A whole number in ``lo..hi`` (never a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise AuditInputError(f"{what}: {value!r}; it must be a whole number {lo}-{hi}")
    return value


def check_deal_number(deal_number: int) -> int:
    if isinstance(deal_number, bool) or not isinstance(deal_number, int) \
            or not 0 <= deal_number <= MAX_DEAL_NUMBER:
        raise AuditInputError(f"deal number: {deal_number!r}; it must be 0-{MAX_DEAL_NUMBER}")
    return deal_number


__all__ = [
    "ASCII_PROTOTYPES", "BINDING_TAG", "CLIENT_COMMIT_TAG", "DEAL_TAG", "FIRST_DEALER_TAG",
    "PROTOCOL", "RECEIPT_TAG", "SEASON_HEAD_TAG", "SERVER_COMMIT_TAG", "SMALL_FILE_BYTES",
    "FileTooLarge", "NotRegularFile", "ascii_name_keys", "check_client_seed",
    "check_client_seeds", "check_commitment", "check_count", "check_deal_number",
    "check_match_id", "check_seat", "check_server_seed", "lp16", "open_regular", "parse_hex",
    "read_small_file", "tag", "u16be", "u32be", "u64be", "unsafe_character",
]
