"""A seal on a file of one's own: an HMAC-SHA256, under a key only its user holds, of the
whole content of an SQLite database, so that a file changed by anyone else (or damaged)
is told from one's own.

``tarneeb audit --state FILE`` keeps verdicts it does not judge again: a state rewritten by
someone else (a log's verdict set to clean, an evidence's wealth set low) or handed over
by a platform would be a clean never proven. So the state carries a seal, made at each
commit under the user's **state key** (32 bytes from :mod:`secrets`, in the user's
config directory, ``state.key``, made when missing, readable by its owner alone), and a
run checks it before it trusts anything in the file.

The content is the database's schema and every table's rows, in the order of the table's
columns (not of SQLite's row ids, which ``VACUUM`` may renumber): per query its
text, then each row as msgpack (an integer, a float's 8 bytes, a string's
UTF-8, surrogates kept, a blob's bytes: the same row is the same bytes on any machine),
into SHA-256; the seal is ``HMAC-SHA256(key, "tarneeb-state-seal-v1" 0x00 digest)``, in hex.

>>> import sqlite3
>>> db = sqlite3.connect(":memory:")
>>> _ = db.execute("CREATE TABLE t (a TEXT, b BLOB)")
>>> _ = db.execute("INSERT INTO t VALUES ('x', x'00ff')")
>>> key = bytes(32)
>>> s = seal(key, database_digest(db, ("t", "a", "y")))
>>> _ = db.execute("UPDATE t SET b = x'01ff'")
>>> same_seal(s, seal(key, database_digest(db, ("t", "a", "y"))))
False
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tarneeb.audit.errors import AuditInputError

SEAL_CONTEXT = b"tarneeb-state-seal-v1\x00"
KEY_FILE_NAME = "state.key"
KEY_BYTES = 32


class SealKeyError(AuditInputError):
    """The state key cannot be read or made."""


RUNS_DIR = "state-runs"  # beside the key: per state, its last run and seal


@dataclass(frozen=True, slots=True)
class Sealer:
    """A state's key, and where its last run is noted (``state-runs/`` beside the key, a file
    named by the SHA-256 of the state's real path: its run number and seal), so that an
    older copy of the state put back, validly sealed, is told from it (and said: a copy
    restored on purpose, from a backup or for a test, is one too)."""

    key: bytes
    record: Path
    made: Path | None = None  # the key file, when it was missing and made by this run

    @classmethod
    def of(cls, state: str, key_file: Path | None = None) -> Sealer:
        """The sealer of the state at ``state`` with the key in ``key_file`` (default:
        the user's, :func:`state_key`)."""
        key_file = key_file if key_file is not None else config_home() / KEY_FILE_NAME
        name = hashlib.sha256(os.fsencode(os.path.realpath(state))).hexdigest()[:32]
        missing = not os.path.lexists(key_file)
        return cls(state_key(key_file), key_file.parent / RUNS_DIR / name,
                   key_file if missing else None)

    def noted(self) -> tuple[int, str] | None:
        """The last run noted of the state and its seal (None: none noted, or the note
        unreadable)."""
        try:
            run, sealed = self.record.read_text("ascii").split()
            return int(run), sealed
        except (OSError, ValueError, UnicodeDecodeError):
            return None

    def set_back(self, state: str) -> str | None:
        """Why the state at ``state``, of a format without a seal (made before states were
        sealed), is refused: a sealed run of it is noted, so its format was set back,
        which would turn the seal's check off (None: no run noted)."""
        noted = self.noted()
        return None if noted is None else (
            f"{state}: the state says it is of a format without a seal (made before tarneeb "
            f"sealed its states), but a sealed run of it is noted (run {noted[0]}, in "
            f"{self.record}): changed outside tarneeb; start a new state, or put back a copy")

    def older(self, run: int, sealed: str) -> int | None:
        """The last run noted of the state, when the state (its last run ``run``, sealed
        ``sealed``; 0: a state made now) is older: a later run was noted (of a state made
        now: a state at its path was deleted or moved), or the same run with another seal;
        else None."""
        noted = self.noted()
        if noted is None:
            return None  # none noted (the end of this run notes it)
        last, seal_then = noted
        return last if run < last or (run == last and not same_seal(sealed, seal_then)) \
            else None

    def note(self, run: int, sealed: str) -> str | None:
        """Note the state's run ``run`` and seal, after its commit (whole or not at all; a
        note that cannot be written leaves the last one in place); why it could not be
        (None: noted). Without the note the next run cannot tell an older copy put back, a
        state deleted, or one set back to a format without a seal: the caller says so."""
        made = self.record.with_name(f".{self.record.name}.{os.getpid()}")
        try:
            self.record.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            made.write_text(f"{run} {sealed}\n", "ascii")
            os.replace(made, self.record)
        except OSError as e:
            with contextlib.suppress(OSError):
                made.unlink(missing_ok=True)
            return f"{self.record}: {e.strerror or e}"
        return None


def config_home() -> Path:
    """tarneeb's config directory (``~/.config/tarneeb`` on Linux, ``%APPDATA%\\tarneeb``
    on Windows, as platformdirs names it), where the user's keys file and state key are."""
    config = linux_config_home()
    if config is not None:
        return Path(config) / "tarneeb"
    from platformdirs import user_config_dir

    return Path(user_config_dir("tarneeb", appauthor=False, roaming=True))


def linux_config_home() -> str | None:
    """The config directory platformdirs gives on Linux in the common case, found without
    loading it (its import costs a one-log verify more than the replay): an absolute
    ``$XDG_CONFIG_HOME``, else ``~/.config`` under an absolute ``$HOME``. ``None`` where
    platformdirs decides: another system, Android, a relative or blank-padded
    ``$XDG_CONFIG_HOME`` (which its versions read differently), a relative ``$HOME``."""
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") \
            or "ANDROID_DATA" in os.environ:
        return None
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if xdg:
        return xdg if xdg.startswith("/") and xdg == xdg.strip() else None
    home = os.environ.get("HOME", "")
    if not home.startswith("/") or home != home.strip():
        return None
    return os.path.expanduser("~/.config")


def state_key(path: Path | None = None) -> bytes:
    """The state key in ``path`` (default: ``state.key`` in :func:`config_home`), made there
    when missing: 32 bytes from :mod:`secrets`, written as 64 hex digits and a newline,
    readable and writable by its owner alone, made at once or not at all (two runs making
    it at once both use the one that won)."""
    import secrets  # (here: a verify, which finds the config directory, needs it not)

    path = path if path is not None else config_home() / KEY_FILE_NAME
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        raise SealKeyError(f"{path}: cannot read the state key: {e.strerror or e}") from None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        made = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
        fd = os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secrets.token_bytes(KEY_BYTES).hex().encode() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(made, path)  # (fails when another run made it first: then that one)
        except FileExistsError:
            pass
        finally:
            os.unlink(made)
        return _read_key(path)
    except OSError as e:
        raise SealKeyError(f"{path}: cannot make the state key: {e.strerror or e} (the key "
                           "that seals a state; --state-key names another)") from None


def _read_key(path: Path) -> bytes:
    from tarneeb.audit.encoding import read_small_file

    # (a FIFO, a device or a huge file refused unread: a FIFO no one writes to waits
    # forever, /dev/zero never ends)
    text = read_small_file(path, 4096)
    try:
        key = bytes.fromhex(text.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) != KEY_BYTES:
        raise SealKeyError(f"{path}: not a state key ({2 * KEY_BYTES} hex digits)")
    return key


def database_digest(db: Any, left_out: tuple[str, str, str]) -> bytes:
    """SHA-256 of the content of the SQLite database open on ``db``: its schema (each
    object's type, name, table and SQL, by type and name), then each table's rows (by name;
    the rows in the order of their columns, the first first), but the
    row of the table ``left_out[0]`` whose column ``left_out[1]`` (its first) is
    ``left_out[2]`` (where the seal is kept)."""
    import msgpack

    h = hashlib.sha256()
    pack = msgpack.Packer(unicode_errors="surrogatepass").pack
    queries: list[tuple[str, tuple[str, ...]]] = [
        ("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name", ())]
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                              "ORDER BY name").fetchall():
        quoted = '"' + name.replace('"', '""') + '"'
        order = ", ".join(str(i + 1) for i in range(len(
            db.execute(f"SELECT * FROM {quoted} LIMIT 0").description)))
        queries.append((f"SELECT * FROM {quoted} ORDER BY {order}", ()) if name != left_out[0]
                       else (f"SELECT * FROM {quoted} WHERE {left_out[1]} IS NOT ? "
                             f"ORDER BY {order}", (left_out[2],)))
    for query, args in queries:
        h.update(pack(query))
        for row in db.execute(query, args):
            h.update(pack(row))
    return h.digest()


def seal(key: bytes, digest: bytes) -> str:
    """The seal of a content digest under ``key`` (hex)."""
    return hmac.new(key, SEAL_CONTEXT + digest, hashlib.sha256).hexdigest()


def same_seal(a: str, b: str) -> bool:
    """Whether two seals are the same (compared in constant time)."""
    return hmac.compare_digest(a.encode("ascii", "replace"), b.encode("ascii", "replace"))


__all__ = ["KEY_FILE_NAME", "RUNS_DIR", "SEAL_CONTEXT", "SealKeyError",
           "Sealer", "config_home", "database_digest", "linux_config_home", "same_seal", "seal",
           "state_key"]
