"""Where a resumed recorder goes on from (:meth:`MatchRecorder.resume
<tarneeb.replay.server.recorder.MatchRecorder.resume>`): the log a crash or a power cut
left, judged as ``verify`` judges it, and its last record kept when zeros the system
wrote after it are all that made it look torn."""

from __future__ import annotations

from tarneeb.replay.log.records import ParsedLog
from tarneeb.replay.verify.trust import Trust

ZEROS_OWN = 64  # the most zero bytes a record is taken to end in



def zeros_its_own(data: bytes, log: ParsedLog, server_seed: bytes | None) -> ParsedLog | None:
    """The log with its last record kept, when the reader dropped it because the record's
    own last bytes are zeros and a zero-filled tail follows (a power loss after an ``fsync``
    that covered it: a card's proof ends in a zero byte one time in 30 or so, a claims record
    in a running total of 0) and, judged with the ``server_seed`` as ``verify`` judges it,
    the record is the one written (a proof that proves, claims the rules give). ``None``:
    the reader's cut stands (no seed to judge it by, a record after the end record, or the
    record judged torn)."""
    from tarneeb.replay.log.parse import parse_log

    cut = log.cut_short
    if server_seed is None or cut is None or cut.offset is None \
            or "a record running into a zero-filled tail" not in cut.message:
        return None
    written = len(data.rstrip(b"\0"))
    # the record's end: where it first reads whole, within ZEROS_OWN of the last byte not
    # zero (a record's own zeros are a few: a scalar's top bytes, totals of 0; a torn record
    # is not read again for each byte of a long tail)
    for end in range(written + 1, min(len(data), written + ZEROS_OWN + 1)):
        whole = parse_log(data[:end])
        if whole.cut_short is None and len(whole.signed_bytes) == end:
            if whole.end is not None:  # a keys record: nothing judges it before the signature
                return None
            judged = go_on_from(whole, server_seed)
            return judged if len(judged.signed_bytes) == end else None
        if whole.cut_short is None or (whole.cut_short.offset or 0) < cut.offset:
            return None
    return None


def go_on_from(log: ParsedLog, server_seed: bytes | None) -> ParsedLog:
    """The log a resumed recorder goes on from: dealt blind, without a deal record that
    lacks its blind record or a card that lacks its proof (the server writes them again,
    whole); then judged as ``verify`` judges it (with the server seed, its last values by
    the rules too)."""
    from tarneeb.replay.verify.replayer import judged_log
    from tarneeb.replay.verify.tail import cut_at, value_ends

    last = log.hands[-1] if log.hands else None
    if log.header.blind and last is not None and not last.closed and log.end is None:
        if last.blind is None:
            log = cut_at(log, log.offsets[-1], f"hand {last.deal_number}'s deal record "
                         "without its blind record")
        elif last.plays and len(last.plays) - 1 not in last.blind.play_proofs:
            ends = value_ends(log.signed_bytes, log.offsets[-1])
            log = cut_at(log, ends[-2], f"hand {last.deal_number}'s last card without its "
                         "proof record")
    return judged_log(log, trust=Trust(server_seed=server_seed))[0]


__all__ = ["ZEROS_OWN", "go_on_from", "zeros_its_own"]
