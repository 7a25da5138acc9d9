"""The platform's recorder: a match's log written move by move, from plain values.

A server calls :class:`MatchRecorder` as the match happens — the seats, the rules
and the commitments once; each deal; each call, trump and card as it is made; the
platform's own claims when a hand closes; the ending — and the recorder appends each
to the log at once, with the :class:`~tarneeb.replay.log.writer.Durability` asked for,
and signs at the end. It needs no engine of this package: it checks the order of
the calls it gets (a card before a deal, a claim twice) and the range of each value,
never the rules, and it never computes a claim: the claims are the platform's, and
``tarneeb verify`` judges them. ``docs/PLATFORM.md`` walks through a whole match.

>>> import io
>>> out = io.BytesIO()
>>> rec = MatchRecorder(out, rules="qahwa41", seats=["Ann", "Ben", "Cat", "Dan"],
...                     match_id=b"m-1", first_dealer=0)
>>> start = rec.deal(dealer=0)       # the byte offset of the deal record
>>> rec.call(1, 6) - start, rec.call(2, "pass") - start  # each move: one byte, at once
(6, 7)
>>> out.getvalue()[start + 6:].hex(" ")
'56 6f'
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import os
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, BinaryIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.encoding import shown, unsafe_character
from tarneeb.audit.seeds import server_commitment as commitment_of
from tarneeb.replay.log.blind import (
    BlindTranscript,
    RevealedKeys,
    blind_from_list,
    blind_list,
    keys_from_list,
    keys_list,
    proof_from_list,
    proof_list,
)
from tarneeb.replay.log.decode import SCORE_LIMIT
from tarneeb.replay.log.records import (
    ABANDON_CAUSES,
    CALL_MOVE,
    CARD_MOVE,
    MAX_REASON,
    PASS_CODE,
    TIMER_MOVE,
    TRUMP_MOVE,
    Abandonment,
    BatchProof,
    EndRecord,
    HandRecord,
    Header,
    RecordedDeal,
    encode_record,
)
from tarneeb.replay.log.writer import Durability, LogWriter, sync_directory
from tarneeb.replay.rules.cards import mask_of
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.server.filelock import held, lock_log
from tarneeb.replay.server.resume import go_on_from, zeros_its_own
from tarneeb.replay.server.values import (
    Card,
    RecorderError,
    card_of,
    checked_signature,
    four_of,
    header_bytes,
    raw_of,
    raws_of,
    read_back,
    readable,
    revealed_seed,
    rules_of,
    seat_of,
    seats_of,
    suit_of,
)
from tarneeb.replay.verify.people import hands_from_1


def _open_log(path: str | os.PathLike[str], name: str) -> BinaryIO:
    """The log at ``path`` (shown as ``name``) opened to be read and written on, a regular
    file (a FIFO, a device or a directory refused: a FIFO's read would wait for ever); its
    errors a :class:`RecorderError`."""
    try:
        stream = open(os.fspath(path), "r+b", buffering=0)  # noqa: SIM115 - for the match
    except OSError as e:
        raise RecorderError(f"cannot go on with {name}: {e.strerror or e}") from None
    if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
        stream.close()
        raise RecorderError(f"cannot go on with {name}: not a regular file")
    return stream


class LogExistsError(RecorderError, FileExistsError):
    """The log a recorder was told to write exists already: a recorder never writes over a
    log (a log a crash cut short is carried on by :meth:`MatchRecorder.resume`). It is a
    :class:`RecorderError` and a :class:`FileExistsError`."""


def _durability(durability: Durability | str) -> Durability:
    """A recorder's durability, from its text form or as given; else RecorderError."""
    try:
        durability = Durability.parse(durability) if isinstance(durability, str) else durability
    except ValueError as e:
        raise RecorderError(str(e)) from None
    if not isinstance(durability, Durability):
        raise RecorderError(f"durability is flush, fsync or group:MS, not {durability!r}")
    return durability


class MatchRecorder:
    """Writes one match's signed log as it is played: see the module's docstring.

    ``out`` is a path (the file is created; it must not exist) or a binary stream.
    ``rules`` a preset name, a :class:`~tarneeb.replay.rules.ruleset.RuleSet` or its fields;
    ``seats`` four names, or ``(name, computer)`` pairs; ``match_id`` the bytes that
    enter every deal; ``first_dealer`` the seat that deals first. A platform using the
    seed protocol gives ``server_commitment``, ``client_commitments`` and ``client_seeds``
    (and ``season`` for a match of a committed season); one that is not records every
    deal in full (:meth:`deal` with ``hands``). ``public_key`` is the platform's raw
    Ed25519 key, written into the header. ``durability``: ``"flush"``, ``"fsync"``,
    ``"group:MS"`` or a :class:`Durability` (see ``docs/PLATFORM.md``). ``dealing="blind"``
    records a match dealt blind (docs/PROTOCOL.md §13): each :meth:`deal` gives the deal's
    transcript, each :meth:`play` the card's proof, and :meth:`reveal_keys` the keys the
    seats reveal after the match.
    """

    def __init__(self, out: str | os.PathLike[str] | BinaryIO, *,
                 rules: str | RuleSet | Mapping[str, Any],
                 seats: Sequence[str | tuple[str, bool]], match_id: bytes, first_dealer: int,
                 public_key: bytes | None = None, server_commitment: bytes | None = None,
                 client_commitments: Sequence[bytes] | None = None,
                 client_seeds: Sequence[bytes] | None = None,
                 season: BatchProof | None = None,
                 durability: Durability | str = "flush", dealing: str = "seeds") -> None:
        ruleset = rules_of(rules)
        named = seats_of(seats)
        for seat in named:  # the reader refuses what could rewrite a verdict that shows it
            if unsafe_character(seat.name) is not None:
                raise RecorderError(f"seat name {seat.name!r} holds the character "
                                    f"{unsafe_character(seat.name)}")
        durability = _durability(durability)
        header = Header(rules=ruleset, seats=named, match_id=raw_of(match_id, "match_id"),
                        first_dealer=seat_of(first_dealer, "first_dealer"),
                        server_commitment=raw_of(server_commitment, "server_commitment", True),
                        batch=season,
                        client_commitments=raws_of(client_commitments, "client_commitments"),
                        client_seeds=raws_of(client_seeds, "client_seeds"),
                        public_key=raw_of(public_key, "public_key", nil=True),
                        blind=dealing == "blind")
        if dealing not in ("seeds", "blind"):
            raise RecorderError(f"dealing is 'seeds' or 'blind', not {dealing!r}")
        if header.blind and server_commitment is None:  # the seeds draw its first dealer
            raise RecorderError("a match dealt blind commits to seeds too (server_commitment, "
                                "client seeds): they draw its first dealer")
        header_bytes(header)  # read back as a reader reads it: nothing unreadable is written
        self.blind = header.blind
        self._commitment, self._key = header.server_commitment, header.public_key
        self._own = isinstance(out, (str, os.PathLike))  # a file the recorder opens (and closes)
        if isinstance(out, (str, os.PathLike)):
            try:  # the file stays open for the match; close() closes it. Unbuffered: each
                # value goes to the system whole or, torn by a failed write, is cut off it
                self._stream: BinaryIO = open(os.fspath(out), "xb", buffering=0)  # noqa: SIM115
            except FileExistsError:
                raise LogExistsError(f"{shown(os.fspath(out))} exists: a recorder never "
                                    "writes over a log (resume a log a crash cut short with "
                                    "MatchRecorder.resume)") from None
            except OSError as e:  # (as the Node recorder says it)
                raise RecorderError(f"cannot create {shown(os.fspath(out))}: "
                                    f"{e.strerror or e}") from None
            if not lock_log(self._stream):
                self._stream.close()
                raise RecorderError(held(out))
        else:
            self._stream = out
        self.rules = ruleset
        self.writer = LogWriter(self._stream, durability)
        try:
            self.writer.write(header)
        except BaseException:
            if self._own:  # nothing of the match was written: no file left behind
                self._stream.close()
                with contextlib.suppress(OSError):
                    os.unlink(os.fspath(out))  # type: ignore[arg-type]
            raise
        self._path = os.fspath(out) if isinstance(out, (str, os.PathLike)) else None
        # a new file's directory entry, synced too: else a power loss may lose the file whole
        self._dir_synced = self._path is not None and durability.mode != "flush"
        if self._path is not None and self._dir_synced:
            sync_directory(self._path)
        self.cut: str | None = None  # what resume() cut off the log
        self._hand: HandRecord | None = None  # the hand in progress
        self._deals = 0
        self._trump_named = False
        self._ended = False
        self._signed = False
        self.moves = 0  # moves written in the hand in progress

    @classmethod
    def resume(cls, path: str | os.PathLike[str], *, durability: Durability | str = "flush",
               server_seed: bytes | None = None) -> MatchRecorder:
        """Go on with the log a crashed or restarted server left at ``path``.

        What follows its last whole value is cut off (the file is truncated): a torn value,
        a zero-filled tail, bytes no writer writes (the garbage a power loss may leave); in
        a log dealt blind, a deal record without its blind record and a card without its
        proof too (the server writes them again, whole). With the ``server_seed`` (a match
        on the seed protocol; one that records its deals needs none) the log's last values
        are also replayed as ``tarneeb verify`` judges them, and cut where they stop
        following the rules (:mod:`tarneeb.replay.verify.tail`). ``cut`` then says what was cut
        (``None``: nothing). The recorder stands where the log stops — in the hand it stops
        in, with the moves it has — so the server goes on, or ends the match (``abandon``
        with ``server-fault``, the seed revealed) and signs it."""
        from tarneeb.replay.log.parse import parse_log
        from tarneeb.replay.log.stream import LogError
        durability = _durability(durability)  # (before the file is cut)
        seed = raw_of(server_seed, "server_seed", nil=True)
        if seed is not None and len(seed) != 32:
            raise RecorderError(f"server_seed must be 32 bytes, not {len(seed)}")
        name = shown(os.fspath(path))
        stream = _open_log(path, name)
        try:  # the file locked first: read, judged and cut by this recorder alone
            if not lock_log(stream):
                raise RecorderError(held(path))
            data = stream.read()
            try:
                log = parse_log(data, str(path))
            except LogError as e:
                raise RecorderError(shown(f"cannot go on with this log: {e}")) from None
            if log.signature is not None:
                raise RecorderError(f"{name}: the log is signed: the match is over")
            commitment = log.header.server_commitment
            if seed is not None and (commitment is None or not hmac.compare_digest(
                    commitment_of(seed), commitment)):
                raise RecorderError(f"{name}: the server seed given is not the one the log's "
                                    "header commits to (another match's?)"
                                    if commitment is not None else
                                    f"{name}: the log's header commits to no server seed")
            log = zeros_its_own(data, log, seed) or go_on_from(log, seed)
        except BaseException:
            stream.close()
            raise
        keep = len(log.signed_bytes)  # every byte read as a value, as judged
        stream.truncate(keep)
        stream.seek(keep)
        self = cls.__new__(cls)
        self._own, self._stream, self.rules = True, stream, log.header.rules
        self.blind = log.header.blind
        self._commitment, self._key = commitment, log.header.public_key
        self.writer = LogWriter(stream, durability, written=data[:keep],
                                named_trump=self.rules.trump == "named")
        self._path = os.fspath(path)
        self._dir_synced = durability.mode != "flush"
        if self._dir_synced:  # the cut, on disk before anything is appended to it
            self.writer.sync()
            sync_directory(self._path)
        said = log.cut_short.message if log.cut_short is not None else (
            f"cut at byte {keep}: the rest of the file ({len(data) - keep:,} bytes) is zeros, "
            "not records")
        self.cut = None if keep == len(data) else (
            f"cut {len(data) - keep:,} bytes from byte {keep:,}: {hands_from_1(said)}")
        last = log.hands[-1] if log.hands else None
        self._hand = last if last is not None and not last.closed and log.end is None else None
        self._deals = len(log.hands)
        self._trump_named = self._hand is not None and self.rules.trump == "named" \
            and self._hand.trump is not None
        self._ended = log.end is not None
        self._signed = False
        self.moves = 0 if self._hand is None else (
            len(self._hand.calls) + len(self._hand.plays) + int(self._trump_named))
        return self

    # -- the hand
    def _open(self, what: str) -> HandRecord:
        if self._ended:
            raise RecorderError(f"{what} after the end of the match")
        if self._hand is None:
            raise RecorderError(f"{what} before the hand's deal (call deal() first)")
        return self._hand

    def deal(self, dealer: int, *, revealed: Card | None = None,
             hands: Sequence[int | Sequence[Card]] | None = None,
             thirteenth: Card | None = None, blind: BlindTranscript | None = None) -> int:
        """A new dealing attempt: ``dealer`` deals; ``revealed`` is the card shown to all
        (rules that reveal the dealer's 13th card). A platform without the seed protocol
        gives the deal itself: ``hands`` (four masks, or four lists of cards, by seat) and
        the dealer's 13th card. A match dealt blind gives the deal's public transcript
        (``blind``), written right after the deal record. Returns the byte offset of the
        deal record."""
        if self._ended:
            raise RecorderError("a deal after the end of the match")
        if self._hand is not None:
            raise RecorderError(f"a deal while hand {self._hand.deal_number + 1} is open: "
                                "claim() closes it")
        recorded = None
        if hands is not None:
            if isinstance(hands, str | bytes) or len(hands) != 4:
                raise RecorderError("hands must be four, by seat")
            masks = [h if isinstance(h, int) else mask_of(card_of(c) for c in h) for h in hands]
            recorded = RecordedDeal((masks[0], masks[1], masks[2], masks[3]),
                                    None if thirteenth is None else card_of(thirteenth))
        hand = HandRecord(self._deals, seat_of(dealer, "dealer"),
                          revealed=None if revealed is None else card_of(revealed, "revealed"),
                          deal=recorded, totals=None, closed=False)
        if self.blind != (blind is not None):
            raise RecorderError("a match dealt blind gives each deal's transcript (blind=), "
                                "and only such a match")
        if recorded is not None:  # a mask out of range: refused (the rest is checked above)
            readable("deal record", encode_record(hand))
        if blind is not None:  # the transcript read back before the deal record is written
            read_back("blind", lambda: blind_list(blind), blind_from_list)
        offset = self.writer.begin_hand(hand)
        if blind is not None:
            self.writer.blind_deal(blind)
        self._hand, self._trump_named, self.moves = hand, False, 0
        self._deals += 1
        return offset

    def _move(self, code: int, timer: bool) -> int:
        offset = self.writer.move(code | (TIMER_MOVE if timer else 0))
        self.moves += 1
        return offset

    def call(self, seat: int, bid: int | str | None, *, timer: bool = False) -> int:
        """Seat ``seat`` calls: a bid 0-13, or a pass (``None`` or ``"pass"``); ``timer``
        when the turn timer made the call. Returns the move's byte offset: once it
        returns, the call is written (see the durability)."""
        hand = self._open("a call")
        if hand.plays or self._trump_named:
            raise RecorderError("a call after the trump was named or the play began")
        if bid is None or bid == "pass":
            value = PASS_CODE
        elif type(bid) is int and 0 <= bid <= 13:
            value = bid
        else:
            raise RecorderError(f"a bid is 0-13, or None / 'pass' for a pass, not {bid!r}")
        if len(hand.calls) == 64:
            raise RecorderError("a hand has at most 64 calls")
        seat = seat_of(seat)
        hand.calls.append((seat, value))
        return self._move(CALL_MOVE | seat << 4 | value, timer)

    def name_trump(self, suit: int | str, *, timer: bool = False) -> int:
        """The auction winner names the trump (rules whose trump is named: classic)."""
        hand = self._open("a trump named")
        if self.rules.trump != "named":
            raise RecorderError(f"in {self.rules.name} the trump is not named by a player; "
                                "give it with claim(trump=...)")
        if self._trump_named or hand.plays:
            raise RecorderError("the trump is named once, before the first card")
        trump = suit_of(suit)  # (refused before the trump counts as named)
        self._trump_named = True
        hand.trump = trump
        return self._move(TRUMP_MOVE + trump, timer)

    def play(self, card: Card, *, timer: bool = False,
             proof: tuple[int, bytes] | None = None) -> int:
        """The seat on turn plays ``card`` (0-51 or a name like ``"10♥"``); the log does
        not say who: the rules do, from the deal. In a match dealt blind, ``proof`` is the
        seat's ``(position, proof)`` that the card is the one dealt to it there."""
        hand = self._open("a card")
        if len(hand.plays) == 52:
            raise RecorderError("a hand has 52 cards")
        if self.blind != (proof is not None):
            raise RecorderError("in a match dealt blind every card comes with its proof "
                                "(proof=), and only there")
        c = card_of(card)
        if proof is not None:  # the proof read back before the card is written
            read_back("proof", lambda: proof_list(*proof), proof_from_list)
        hand.plays += bytes((c,))
        offset = self._move(CARD_MOVE + c, timer)
        if proof is not None:
            self.writer.play_proof(*proof)
        return offset

    def claim(self, *, totals: Sequence[int], tricks: Sequence[int] | None = None,
              scores: Sequence[int] | None = None, trump: int | str | None = None) -> int:
        """Close the hand with the platform's claims: its running ``totals`` per seat and,
        for a played hand, ``tricks`` and hand ``scores`` per seat (team games: the team's
        figure on both partners); ``trump`` the trump it used where the rules derive it
        (nil for a cancelled hand, and in rules that name it by a move)."""
        hand = self._open("a claim")
        if (tricks is None) != (scores is None):
            raise RecorderError("tricks and scores go together: both for a played hand, "
                                "neither for a cancelled one")
        if trump is not None and self.rules.trump == "named":
            raise RecorderError("in these rules the trump is named by a move (name_trump)")
        claims = (four_of(tricks, "tricks", 0, 13), four_of(scores, "scores", -SCORE_LIMIT,
                  SCORE_LIMIT), four_of(totals, "totals", -SCORE_LIMIT, SCORE_LIMIT, True),
                  None if trump is None else suit_of(trump))  # all checked, then kept
        hand.tricks, hand.scores, hand.totals = claims[:3]
        if self.rules.trump != "named":
            hand.trump = claims[3]
        hand.closed = True
        offset = self.writer.close_hand(hand)
        self._hand = None
        return offset

    # -- the end
    def finish(self, winner: int, server_seed: bytes | None) -> int:
        """The match is won by team ``winner`` (0: seats 0 and 2, 1: seats 1 and 3); the
        server seed is revealed (``None`` for a platform that records its deals)."""
        if type(winner) is not int or winner not in (0, 1):
            raise RecorderError(f"the winner is team 0 or 1, not {winner!r}")
        return self._end(EndRecord(winner, raw_of(server_seed, "server_seed", nil=True)))

    def abandon(self, cause: str, seat: int | None, reason: str,
                server_seed: bytes | None) -> int:
        """The match stops before it is won: ``cause`` one of ``disconnect``, ``timeout``,
        ``resignation``, ``server-fault``; the ``seat`` that left (``None`` for a server
        fault); the platform's ``reason``. The server seed is revealed all the same, so
        every move made can be checked. A hand in progress stays as it is (no claims)."""
        if cause not in ABANDON_CAUSES:
            raise RecorderError(f"cause must be one of {', '.join(ABANDON_CAUSES)}, "
                                f"not {cause!r}")
        if not isinstance(reason, str):
            raise RecorderError(f"the reason is text, not {type(reason).__name__}")
        if len(reason) > MAX_REASON:
            raise RecorderError(f"a reason of at most {MAX_REASON} characters")
        if unsafe_character(reason) is not None:
            raise RecorderError(f"the reason holds the character {unsafe_character(reason)}")
        if (seat is None) != (cause == "server-fault"):
            raise RecorderError("seat is None for a server fault, and the seat that left "
                                "otherwise")
        return self._end(EndRecord(None, raw_of(server_seed, "server_seed", nil=True), Abandonment(
            cause, None if seat is None else seat_of(seat), reason)), abandoned=True)

    def _end(self, rec: EndRecord, abandoned: bool = False) -> int:
        if self._ended:
            raise RecorderError("the match has ended already")
        if self._hand is not None and not abandoned:
            raise RecorderError(f"hand {self._hand.deal_number + 1} is open: claim() closes it "
                                "before the match ends (or abandon())")
        readable("end record", encode_record(rec))  # a seed of the wrong length: refused
        revealed_seed(rec.server_seed, self._commitment)  # and one not committed to
        self._ended = True
        self._hand = None
        return self.writer.end(rec)

    def reveal_keys(self, keys: RevealedKeys) -> int:
        """After the end of a match dealt blind: the scalars and permutations the seats
        revealed for one dealing attempt (``None`` for a seat that keeps its own)."""
        if not self.blind or not self._ended or self._signed:
            raise RecorderError("keys are revealed after the end of a match dealt blind, "
                                "before the signature")
        read_back("keys", lambda: keys_list(keys), keys_from_list)
        return self.writer.write(keys)

    def sign(self, key: Ed25519PrivateKey | Callable[[bytes], bytes]) -> bytes:
        """Sign everything written with the platform's key (or a function that signs
        bytes, e.g. through an HSM), append the signature, sync and close the log.
        Returns the signature."""
        if not self._ended:
            raise RecorderError("sign after finish() or abandon()")
        if self._signed:
            raise RecorderError("the log is signed already")
        signer = key.sign if isinstance(key, Ed25519PrivateKey) else key
        signed = self.writer.signed_bytes
        signature = checked_signature(signer(signed), self._key, signed)
        from tarneeb.replay.log.records import SignatureRecord

        self.writer.write(SignatureRecord(signature))
        self._signed = True
        self.writer.sync()  # in every durability: the log is synced, its directory entry too
        if self._path is not None and not self._dir_synced:
            sync_directory(self._path)
            self._dir_synced = True
        if self._own:  # signed: this recorder writes nothing more, the log is free
            lock_log(self._stream, unlock=True)
        return signature

    def close(self) -> None:
        """Sync the log, and close the file the recorder opened (a log closed before its
        end reads as cut short)."""
        self.writer.close(close_stream=self._own)  # (after a group commit's fsync in flight)

    def __enter__(self) -> MatchRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def record_json(doc: Mapping[str, Any], out: str | os.PathLike[str] | BinaryIO, *,
                key: Ed25519PrivateKey | Callable[[bytes], bytes],
                durability: Durability | str = "flush",
                each: Callable[[MatchRecorder], None] | None = None) -> MatchRecorder:
    """Record a match given in the JSON form (``tarneeb export``) move by move, as a
    server whose engine speaks plain values does, and sign it with ``key``; ``each`` is
    called after every value written (e.g. to acknowledge it). The bytes are the log's.

    >>> import io
    >>> from tarneeb.replay.log.jsonform import to_json
    >>> from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
    >>> log = play_logged_match("classic", seed=b"record_json doc")  # reproducible
    >>> out = io.BytesIO()
    >>> _ = record_json(to_json(log), out, key=MatchSecrets(b"record_json doc").key)
    >>> out.getvalue() == log
    True
    """
    header = doc["records"][0]

    def hexes(v: Sequence[str] | None) -> list[bytes] | None:
        return None if v is None else [bytes.fromhex(x) for x in v]

    b = header["batch"]
    rec = MatchRecorder(
        out, rules=header["rules"], seats=[(x["name"], x["computer"]) for x in header["seats"]],
        match_id=bytes.fromhex(header["match_id"]), first_dealer=header["first_dealer"],
        public_key=_unhex(header["public_key"]),
        server_commitment=_unhex(header["server_commitment"]),
        client_commitments=hexes(header["client_commitments"]),
        client_seeds=hexes(header["client_seeds"]),
        season=None if b is None else BatchProof(b["index"], b["size"], hexes(b["path"]) or [],
                                                 bytes.fromhex(b["root"]),
                                                 bytes.fromhex(b["head_signature"])),
        durability=durability, dealing=header.get("dealing", "seeds"))
    done = each or (lambda r: None)
    done(rec)
    for call in match_calls(doc):
        call(rec)
        done(rec)
    rec.sign(key)
    done(rec)
    return rec


def _unhex(v: str | None) -> bytes | None:
    return None if v is None else bytes.fromhex(v)


def match_calls(doc: Mapping[str, Any]) -> Iterator[Callable[[MatchRecorder], int]]:
    """The recorder calls that write the match of a JSON document (``tarneeb export``) after
    its header, in order, up to its end record (dealt blind: its keys records too): each a
    function of the recorder that writes one value — dealt blind, a deal with its blind
    record and a card with its proof. :func:`record_json` makes them; a server resumed after
    a crash (:meth:`MatchRecorder.resume`) goes on with those its log does not have yet.

    >>> from tarneeb.replay.log.jsonform import to_json
    >>> from tarneeb.replay.server.simulate import play_logged_match
    >>> doc = to_json(play_logged_match("classic", seed=b"match_calls doc"))
    >>> len(list(match_calls(doc)))  # each deal record, move and claims record; the end
    426
    """
    from tarneeb.replay.log.jsonform import record_from_json

    records = doc["records"]
    named = records[0]["rules"]["trump"] == "named"
    for i, h in enumerate(records):
        if h["type"] != "hand":
            continue
        deal = h["deal"]
        read = None if h.get("blind") is None else record_from_json(i, h, named_trump=named)
        blind = read.blind if isinstance(read, HandRecord) else None
        proofs = {} if blind is None else blind.play_proofs
        yield functools.partial(MatchRecorder.deal, dealer=h["dealer"], revealed=h["revealed"],
                                hands=None if deal is None else deal["hands"],
                                thirteenth=None if deal is None else deal["thirteenth"],
                                blind=blind)
        timer = set(h["timer"])
        k = 0
        for c in h["calls"]:
            yield functools.partial(MatchRecorder.call, seat=c["seat"], bid=c["call"],
                                    timer=k in timer)
            k += 1
        if named and h["trump"] is not None:
            yield functools.partial(MatchRecorder.name_trump, suit=h["trump"], timer=k in timer)
            k += 1
        for n, card in enumerate(h["plays"]):
            yield functools.partial(MatchRecorder.play, card=card, timer=k in timer,
                                    proof=proofs.get(n))
            k += 1
        if h.get("closed", True):
            yield functools.partial(MatchRecorder.claim, totals=h["totals"], tricks=h["tricks"],
                                    scores=h["scores"], trump=None if named else h["trump"])
    end = next(r for r in records if r["type"] == "end")
    a = end.get("abandoned")
    seed = _unhex(end["server_seed"])
    if a is None:
        yield functools.partial(MatchRecorder.finish, winner=end["winner"], server_seed=seed)
    else:
        yield functools.partial(MatchRecorder.abandon, cause=a["cause"], seat=a["seat"],
                                reason=a["reason"], server_seed=seed)
    for i, r in enumerate(records):
        if r["type"] == "keys":
            keys = record_from_json(i, r)
            if isinstance(keys, RevealedKeys):
                yield functools.partial(MatchRecorder.reveal_keys, keys=keys)


__all__ = ["Durability", "MatchRecorder", "RecorderError", "match_calls", "record_json"]
