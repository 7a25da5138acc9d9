"""The replayer: re-runs the rules on a log and compares everything it claims.

It checks the signature, the revealed server seed against its commitment (and
inclusion proof), each client seed against its commitment, derives every deal,
replays every bid and card through :class:`~tarneeb.replay.rules.engine.MatchState`
and compares the claimed trump, tricks, scores, totals and winner. After a
finding it keeps going wherever the log can still be read, so one run reports
everything.

A clean log in the common form is confirmed by the compiled core when it is built
(:mod:`tarneeb.replay.verify.compiled`); any other log is replayed in Python, hand by
hand (:mod:`tarneeb.replay.verify.hands`, loaded only then, which is the definition of a
verdict and the only path that makes findings).

>>> from tarneeb.replay.server.simulate import play_logged_match
>>> log = play_logged_match("sahrat41", seed=b"replayer doc")  # reproducible: not secret
>>> verdict = verify_bytes(log, "match.tlog")
>>> verdict.clean, verdict.exit_code, verdict.deals_proven
(True, 0, True)
>>> damaged = bytearray(log); damaged[-1] ^= 1
>>> [str(f) for f in verify_bytes(bytes(damaged)).findings]  # doctest: +ELLIPSIS
['match: the signature does not match the log: ...']
"""

from __future__ import annotations

import os

from tarneeb.replay.log.parse import _WHOLE, open_regular, parse_log, read_log
from tarneeb.replay.log.records import ParsedLog
from tarneeb.replay.log.stream import LogError, _regular_file_size
from tarneeb.replay.rules import compiled as core_switch
from tarneeb.replay.verify.compiled import verify_data
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.provenance import NO_RECEIPT_NOTE, SECRET_HAND, deal_of, log_deriver
from tarneeb.replay.verify.trust import NOTHING, Trust


def _arguments(call: str, trust: object, path: object = "") -> None:
    """Raise ``TypeError`` for arguments that are not what ``call`` takes: above all a
    :class:`Trust` given where the path goes, which would verify against no pinned key."""
    if not isinstance(trust, Trust):
        raise TypeError(f"{call}: trust must be a tarneeb.Trust, not {type(trust).__name__}")
    if not isinstance(path, str):
        raise TypeError(f"{call}: path is the name the verdict gives the log (text), not "
                        f"{type(path).__name__}; give the trust as trust=")


def verify_file(path: str | os.PathLike[str], trust: Trust = NOTHING,
                count_paths: bool = False) -> Verdict:
    """Verify one log file against what the user trusts (:class:`Trust`), read as a
    stream within ``trust.limits`` (a file over ``limits.max_bytes`` is refused unread).
    Never raises for a bad log: see ``Verdict.error``; raises ``TypeError`` for a
    ``path`` that is no path (the log's bytes: :func:`verify_bytes`) or a ``trust`` that
    is no :class:`Trust`."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"verify_file: path must be a file's path (str or os.PathLike), not "
                        f"{type(path).__name__}" + ("; a log held in memory is "
                        "verify_bytes(data)" if isinstance(path, bytes | bytearray) else ""))
    path = os.fspath(path)
    _arguments("verify_file", trust, path)
    if core_switch.CORE is not None:  # a clean log in the common form, confirmed in C
        data = _whole(path, min(trust.limits.max_bytes, _WHOLE))
        v = verify_data(data, path, trust, count_paths) if data is not None else None
        if v is not None:
            return v
    try:
        log = read_log(path, trust.limits)
    except LogError as e:
        v = Verdict(path)
        v.error = str(e)
        return v
    return verify_log(log, path, trust, count_paths)


def _whole(path: str, cap: int) -> bytes | None:
    """A regular file's bytes when it is within ``cap`` (``read_log``'s bound for reading a
    file whole) and reads whole, else ``None`` (:func:`read_log` then reads it, as a
    stream past that bound, and says what is wrong)."""
    try:
        with open_regular(path) as f:
            size = _regular_file_size(f)
            if size is None or size > cap:
                return None
            data = f.read(size + 1)  # the size read, not the cap: nothing larger is allocated
    except OSError:
        return None
    return data if len(data) == size else None


def verify_bytes(data: bytes, path: str = "<log>", trust: Trust = NOTHING,
                 count_paths: bool = False) -> Verdict:
    """Verify a log held in memory against what the user trusts (:class:`Trust`).
    Never raises for a bad log: see ``Verdict.error``; raises ``TypeError`` for ``data``
    that is not bytes (text, a path: :func:`verify_file`), or a ``path`` or ``trust`` of
    the wrong type (``verify_bytes(data, trust)`` gives the trust where the path goes)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"verify_bytes: data must be a log's bytes, not {type(data).__name__}"
                        + ("; a log file is verify_file(path)"
                           if isinstance(data, str | os.PathLike) else ""))
    _arguments("verify_bytes", trust, path)
    data = bytes(data)
    v = verify_data(data, path, trust, count_paths)
    if v is not None:
        return v
    try:
        log = parse_log(data, path, trust.limits)
    except LogError as e:
        v = Verdict(path)
        v.error = str(e)
        return v
    return verify_log(log, path, trust, count_paths)


def verify_log(log: ParsedLog, path: str = "<log>", trust: Trust = NOTHING,
               count_paths: bool = False, fast: bool = True) -> Verdict:
    """Verify a parsed log against what the user trusts (:class:`Trust`): the platform's
    pinned key or a keys file (the log must be signed by one of them, and the verdict
    names that platform, ``Verdict.signer``), the season root the platform published,
    a seat's pre-play receipt (the log must be the match it promised), and the server
    seed revealed outside a log that does not reveal it (a log cut short by a crash:
    with it every whole move is checked; given for a log that reveals its own, the two
    must agree).

    ``count_paths`` also fills ``Verdict.paths``, the rule paths the match went through.
    ``fast=False`` replays every hand move by move (the verdict is the same: a hand whose
    every move is legal is otherwise taken in one piece, :meth:`MatchState.play_hand`).

    A clean verdict means every dealing attempt was replayed from a deal derived from
    seeds that all match their commitments (``deals_proven``) or recorded in the log
    (``recorded``); an attempt that cannot be is a ``not-replayed`` finding.

    A log that ends unsigned and cut short is judged up to the last of its values that
    makes no finding of its own (:mod:`tarneeb.replay.verify.tail`): what follows may be bytes
    a power loss left, and is reported as unreadable.
    """
    return judged_log(log, path, trust, count_paths, fast)[1]


def judged_log(log: ParsedLog, path: str = "<log>", trust: Trust = NOTHING,
               count_paths: bool = False, fast: bool = True) -> tuple[ParsedLog, Verdict]:
    """The log as :func:`verify_log` judges it (cut where the values of a log that ends
    open stop being consistent: :mod:`tarneeb.replay.verify.tail`), and its verdict."""
    from tarneeb.replay.verify.hands import verify_parsed
    from tarneeb.replay.verify.tail import judge_open_end

    return judge_open_end(log, lambda judged: verify_parsed(judged, path, trust, count_paths,
                                                            fast))


__all__ = ["NO_RECEIPT_NOTE", "SECRET_HAND", "deal_of", "judged_log", "log_deriver",
           "verify_bytes", "verify_file", "verify_log"]
