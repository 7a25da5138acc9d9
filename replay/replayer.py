"""The replayer: re-runs the rules on a log and compares everything it claims.

It checks the signature, the revealed server seed against its commitment (and
inclusion proof), each client seed against its commitment, derives every deal,
replays every bid and card through :class:`~tarneeb.replay.engine.MatchState`
and compares the claimed trump, tricks, scores, totals and winner. After a
finding it keeps going wherever the log can still be read, so one run reports
everything.

>>> from tarneeb.replay.simulate import play_logged_match
>>> log = play_logged_match("sahrat41", seed=b"replayer doc")  # reproducible: not secret
>>> verdict = verify_bytes(log, "match.tlog")
>>> verdict.clean, verdict.exit_code, verdict.deals_proven
(True, 0, True)
>>> damaged = bytearray(log); damaged[-1] ^= 1
>>> [str(f) for f in verify_bytes(bytes(damaged)).findings]  # doctest: +ELLIPSIS
['match: the signature does not match the log: ...']
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Mapping
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tarneeb.audit.derive import DealDeriver
from tarneeb.audit.errors import AuditError
from tarneeb.audit.seeds import (
    SeasonLeaf,
    match_binding,
    verify_client_seed,
    verify_server_seed,
)
from tarneeb.audit.signing import key_id, public_key_from_raw, verify

from .cards import card_name
from .engine import (
    BID_BASE,
    PASS,
    TRUMP_BASE,
    Hand,
    IllegalAction,
    MatchState,
    Phase,
    check_deal,
    describe_action,
)
from .findings import Verdict
from .houserules import explain, nearest_preset, shipped
from .logformat import (
    PASS_CODE,
    Abandonment,
    EndRecord,
    HandRecord,
    Header,
    LogError,
    ParsedLog,
    SignatureRecord,
    encode_record,
    parse_log,
    read_log,
)
from .logstream import DEFAULT_LIMITS, Limits
from .paths import exercised_paths
from .receipt import SignedReceipt, check_receipt, season_leaf
from .rules import PRESETS, RuleSet, preset_departures

SUITS = "♣♦♥♠"
TEAM_NAMES = ("team 0+2", "team 1+3")

_CALL_KINDS = {"bid-range": "bid-out-of-range", "bid-minimum": "bid-below-minimum",
               "bid-not-higher": "bid-not-higher", "wrong-phase": "pass-not-allowed"}


def verify_file(path: str, public_key: bytes | None = None, count_paths: bool = False,
                root: bytes | None = None, keys: Mapping[str, bytes] | None = None,
                limits: Limits = DEFAULT_LIMITS, receipt: SignedReceipt | None = None,
                server_seed: bytes | None = None) -> Verdict:
    """Verify one log file, read as a stream within ``limits`` (a file over
    ``limits.max_bytes`` is refused unread). Never raises for a bad log: see ``Verdict.error``."""
    try:
        log = read_log(path, limits)
    except LogError as e:
        v = Verdict(path)
        v.error = str(e)
        return v
    return verify_log(log, path, public_key, count_paths, root, keys, receipt,
                      server_seed)


def verify_bytes(data: bytes, path: str = "<log>", public_key: bytes | None = None,
                 count_paths: bool = False, root: bytes | None = None,
                 keys: Mapping[str, bytes] | None = None,
                 limits: Limits = DEFAULT_LIMITS, receipt: SignedReceipt | None = None,
                 server_seed: bytes | None = None) -> Verdict:
    """Verify a log held in memory."""
    try:
        log = parse_log(data, path, limits)
    except LogError as e:
        v = Verdict(path)
        v.error = str(e)
        return v
    return verify_log(log, path, public_key, count_paths, root, keys, receipt,
                      server_seed)


def verify_log(log: ParsedLog, path: str = "<log>", public_key: bytes | None = None,
               count_paths: bool = False, root: bytes | None = None,
               keys: Mapping[str, bytes] | None = None,
               receipt: SignedReceipt | None = None,
               server_seed: bytes | None = None, fast: bool = True) -> Verdict:
    """Verify a parsed log; ``public_key`` pins the platform's raw Ed25519 key,
    ``root`` the season root the platform published (when it committed a season), and
    ``receipt`` is a seat's pre-play receipt: the log must be the match it promised.

    ``server_seed`` is the server seed the platform revealed outside a log that does
    not reveal it (a log cut short by a crash): with it every whole move is checked.

    ``keys`` maps platform names to their raw keys (a keys file): the log must be
    signed by one of them, and the verdict names that platform (``Verdict.signer``).
    ``server_seed`` is the server seed the platform revealed outside a log that does
    not reveal it (a log cut short by a crash): with it every whole move is checked.
    ``count_paths`` also fills ``Verdict.paths``, the rule paths the match went through.
    ``fast=False`` replays every hand move by move (the verdict is the same: a hand whose
    every move is legal is otherwise taken in one piece, :meth:`MatchState.play_hand`).

    A clean verdict means every dealing attempt was replayed from a deal derived from
    seeds that all match their commitments (``deals_proven``) or recorded in the log
    (``recorded``); an attempt that cannot be is a ``not-replayed`` finding.
    """
    v = Verdict(path)
    v.rules = log.header.rules
    v.computer = tuple(s.computer for s in log.header.seats)
    v.names = tuple(s.name for s in log.header.seats)
    _note_rules(log.header.rules, v)
    _check_header_form(log.header, v)
    _check_signature(log, v, public_key, keys)
    deriver, no_deal = _check_seeds(log, v, root, public_key, server_seed)
    if receipt is not None:
        check_receipt(log.header, receipt, v, public_key)
    elif log.header.server_commitment is not None:
        v.notes.append("not compared with a seat's pre-play receipt (--receipt): that the log "
                       "is the match promised before play rests on the platform's word")
    header = log.header
    first_dealer = header.first_dealer
    seeds_ok = False
    if deriver is not None:
        # proven only when every seed matches what was committed (and published) before play
        seeds_ok = not any(f.kind in ("client-seed", "batch-proof", "receipt-mismatch")
                           for f in v.findings)
        drawn = deriver.first_dealer()
        if drawn != first_dealer:
            v.add("wrong-first-dealer", f"the log names seat {first_dealer} as first dealer, "
                  f"but the seeds draw seat {drawn}", seat=first_dealer)
            first_dealer = drawn
    state = MatchState(header.rules, first_dealer)
    timers: list[int] = []
    replay = _HandReplay(state, v, deriver, no_deal, fast)
    if header.blind:  # libsodium is loaded only for a log dealt blind
        from .blindcheck import BlindChecker

        replay.blind = BlindChecker(log, v)
        replay.fast = False  # the fast path deals from the seeds
        v.blind = True
    for rec, offset in zip(log.hands, log.offsets, strict=True):
        if state.is_over:
            v.add("played-after-win", f"hand {rec.deal_number} was played after "
                  f"{TEAM_NAMES[state.winner]} had won the match", hand=rec.deal_number,
                  offset=offset)
            break
        replay.run(rec, offset)
        timers.append(rec.timer)
    v.hands, v.played, v.recorded = replay.replayed, replay.played, replay.recorded
    v.deals_proven = seeds_ok  # then every deal is derived: none is recorded or missing
    if replay.blind is not None:
        v.deals_proven = seeds_ok and not replay.blind.faults and not replay.missing
        _note_secret_hands(v, replay.blind.secret_cancelled)
        for n in replay.blind.secret_cancelled:  # never shown: no made-up cards in the history
            if n < len(state.history):
                state.history[n].hands = (0, 0, 0, 0)
    if v.recorded:
        v.notes.append(f"{v.recorded} of the deals replayed are recorded by the platform, not "
                       "proven by committed seeds")
    _report_not_replayed(v, replay.missing)
    _check_end(log, state, v)
    if count_paths:
        v.paths = exercised_paths(header.rules, state.history, timers)
    v.history = state.history
    return v


def _note_rules(rules: RuleSet, v: Verdict) -> None:
    """A preset's name on rules it does not offer is a finding; otherwise say, in words,
    where the rules differ from the preset (or shipped variant) of their name, or from the
    nearest preset: "values a 10 at 30 (sahrat400: 40)"."""
    base = PRESETS.get(rules.name)
    if base is not None and base != rules:
        departures = preset_departures(rules)
        if departures:  # a log that says eram41 must be a game ERAM CARDS offers
            changed = [k for k, x in base.to_dict().items() if rules.to_dict()[k] != x]
            shown = ", ".join(f"{k}={rules.to_dict()[k]}" for k in changed)
            v.add("wrong-rules", f"the rules bear the name {rules.name}, but "
                  f"{rules.name} has another {', '.join(departures)} and offers no house "
                  f"option there ({shown}): these rules are not {rules.name}", offset=0)
            return
    v.notes.extend(rules_notes(rules))


@functools.lru_cache(maxsize=64)
def rules_notes(rules: RuleSet) -> tuple[str, ...]:
    """The verdict's notes on ``rules`` (none for a preset or shipped variant as it stands).

    >>> from tarneeb.replay.rules import preset
    >>> rules_notes(preset("qahwa41", target=61))
    ('rules qahwa41 with house options: plays to 61 (qahwa41: 41)',)
    """
    if rules.name in PRESETS:
        if rules == PRESETS[rules.name]:
            return ()
        return (f"rules {rules.name} with house options: "
                + "; ".join(explain(rules, PRESETS[rules.name])),)
    variants = shipped()
    if rules.name in variants:
        if rules == variants[rules.name]:
            return ()
        return (f"house rules {rules.name!r} differ from the {rules.name} shipped with "
                "tarneeb: " + "; ".join(explain(rules, variants[rules.name])),)
    nearest = nearest_preset(rules)
    said = "; ".join(explain(rules, nearest)) or "none"
    return (f"house rules {rules.name!r}, recorded in full in the log; their differences "
            f"from the nearest preset, {nearest.name}: {said}",)


@functools.lru_cache(maxsize=64)
def _rules_form(raw: bytes, rules: RuleSet) -> str | None:
    """What is wrong with the rules map's bytes ``raw``, against the one form of ``rules``."""
    canonical = msgpack.packb(rules.to_dict(), use_bin_type=True)
    if raw == canonical:
        return None
    order = list(msgpack.unpackb(raw))
    if order != list(rules.to_dict()):
        return ("the rules map's keys are not in the order FORMAT.md gives them (" +
                ", ".join(rules.to_dict()) + ")")
    return "the rules map does not have the one byte form of its rules (a value of another type)"


def _check_header_form(header: Header, v: Verdict) -> None:
    """The header's rules map re-encoded from the rules it gives must be the same bytes."""
    if header.rules_raw is None:
        return
    problem = _rules_form(msgpack.packb(header.rules_raw, use_bin_type=True), header.rules)
    if problem is not None:
        v.add("not-canonical", problem, offset=0)


def _check_signature(log: ParsedLog, v: Verdict, pinned: bytes | None,
                     keys: Mapping[str, bytes] | None = None) -> None:
    key = log.header.public_key
    named = {raw: name for name, raw in keys.items()} if keys else {}
    if pinned is not None:
        if key is not None and key != pinned:
            v.add("key-mismatch", "the log names another platform key than the one given; "
                  "checking the signature against the key given")
        key = pinned
        v.key_pinned = True
    elif keys is not None:
        if key is not None and key in named:
            v.key_pinned = True
        elif key is not None:
            v.add("key-mismatch", f"the log's key {key_id(key)} is none of the "
                  f"{len(named)} platform keys given")
    if key is not None:
        v.key_id = key_id(key)
        v.signer = named.get(key)
    if log.signature is None:
        if log.end is not None:
            v.add("unsigned", "the log ends without the platform's signature",
                  offset=log.end_offset)
        return
    if key is None:
        v.add("unsigned", "there is no public key to check the signature against",
              offset=log.signature_offset)
        return
    try:
        public = _public_key(key)
    except AuditError as e:
        v.add("weak-key", f"{e}: a signature under it proves nothing",
              offset=log.signature_offset)
        return
    try:
        verify(public, log.signed_bytes, log.signature.signature)
    except AuditError:
        at = log.size - log.zero_tail
        # a torn write zero-fills the signature's own last bytes (the file keeps its length);
        # zeros after a whole signature record are a tail, and leave the signature broken
        if log.zero_tail >= 4 and log.signature_offset is not None \
                and log.signature_offset < at < log.signature_offset + SIGNATURE_RECORD_LEN:
            v.add("cut-short", f"cut at byte {at}: the signature ends in {log.zero_tail} "
                  "zero bytes, a torn write; it does not match the log", offset=at)
            return
        v.add("broken-signature", "the signature does not match the log: its bytes were "
              "changed after signing, or another key signed it", offset=log.signature_offset)


@functools.lru_cache(maxsize=16)
def _public_key(raw: bytes) -> Ed25519PublicKey:
    return public_key_from_raw(raw)


SIGNATURE_RECORD_LEN = len(encode_record(SignatureRecord(bytes(64))))  # 68 bytes


def _check_seeds(log: ParsedLog, v: Verdict, root: bytes | None = None,
                 pinned_key: bytes | None = None,
                 given_seed: bytes | None = None) -> tuple[DealDeriver | None, str]:
    """The deriver of the deals when the seeds allow it, and why not otherwise."""
    h = log.header
    if root is not None and (h.batch is None or not hmac.compare_digest(h.batch.root, root)):
        v.add("batch-proof", "the log does not place the match in the published season root "
              f"{root.hex()[:16]}…" + ("" if h.batch is None else
                                      f" (it names root {h.batch.root.hex()[:16]}…)"))
    elif h.batch is not None and root is None:
        v.notes.append("the season root named in the log was not compared with the published "
                       "one; pass it to pin it")
    if h.server_commitment is None:
        stray = [name for name, value in (
            ("a season proof", h.batch), ("client commitments", h.client_commitments),
            ("client seeds", h.client_seeds),
            ("a server seed", log.end.server_seed if log.end is not None else None))
            if value is not None]
        if stray:
            v.add("not-canonical", f"the log has no server commitment, but carries "
                  f"{', '.join(stray)}: a log without the seed protocol has nil there",
                  offset=0)
        return None, NO_DEAL
    seed = log.end.server_seed if log.end is not None else None
    if seed is None and given_seed is not None:
        seed = given_seed
        v.notes.append("the server seed is not in the log: it was given to the verifier")
    if seed is None:
        why = ("the log ends before its end record" if log.end is None else
               "the end record does not reveal it")
        v.add("seed-not-revealed", f"the server seed is not revealed ({why}), so the deals "
              "cannot be re-derived", offset=log.end_offset)
        return None, f"the server seed is not revealed ({why}), so the deal cannot be derived"
    try:
        verify_server_seed(seed, h.server_commitment)
    except AuditError:
        v.add("server-seed", "the revealed server seed does not match the commitment published "
              "before play", offset=log.end_offset)
        return None, ("the revealed server seed does not match its commitment, so the deal "
                      "cannot be derived")
    leaf = season_leaf(h)
    if h.batch is not None and leaf is not None:
        _check_season(h.batch.path, h.batch.head_signature, h.server_commitment, leaf, v,
                      pinned_key if pinned_key is not None else h.public_key)
    if h.client_seeds is None or h.client_commitments is None:
        v.add("client-seed", "the log lacks the client seeds or their commitments, so the "
              "deals cannot be re-derived")
        return None, "the log lacks the client seeds, so the deal cannot be derived"
    binding = match_binding(h.server_commitment, leaf)
    for seat in range(4):
        try:
            verify_client_seed(h.match_id, seat, h.client_seeds[seat], h.client_commitments[seat],
                               binding)
        except AuditError:
            v.add("client-seed", f"seat {seat}'s client seed does not match the commitment it "
                  "made before the seeds were revealed, for this match and this binding",
                  seat=seat)
    return DealDeriver(seed, h.match_id, tuple(h.client_seeds), leaf), ""


def _check_season(path: list[bytes], head_signature: bytes, commitment: bytes,
                  leaf: SeasonLeaf, v: Verdict, key: bytes | None) -> None:
    """The commitment must be the named leaf of a season head the platform signed."""
    try:
        leaf.verify(commitment, path)
    except AuditError:
        v.add("batch-proof", f"the commitment is not match {leaf.index} of the published "
              f"root {leaf.root.hex()[:16]}…: its inclusion proof does not lead there")
    try:
        if key is None:
            raise AuditError("no key")
        leaf.head.verify(_public_key(key), head_signature)
    except AuditError:
        v.add("batch-proof", f"the season head (size {leaf.size}, root {leaf.root.hex()[:16]}…) "
              "is not signed by the platform's key: the size and root are not the ones "
              "published")


def _runs(numbers: list[int]) -> str:
    """``0-3, 7, 9-10`` for ``[0, 1, 2, 3, 7, 9, 10]``.

    >>> _runs([0, 1, 2, 3, 7, 9, 10])
    '0-3, 7, 9-10'
    """
    out: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(out)


def _report_not_replayed(v: Verdict, missing: list[tuple[int, int, str]]) -> None:
    """One finding per reason for the dealing attempts that had no deal to replay."""
    by_reason: dict[str, list[tuple[int, int]]] = {}
    for n, offset, why in missing:
        by_reason.setdefault(why, []).append((n, offset))
    for why, hands in by_reason.items():
        numbers = [n for n, _ in hands]
        v.not_replayed.extend(numbers)
        if len(hands) == 1:
            v.add("not-replayed", f"the hand could not be replayed: {why}; none of its bids, "
                  "cards or claims are checked", hand=numbers[0], offset=hands[0][1])
        else:
            v.add("not-replayed", f"hands {_runs(numbers)} ({len(numbers)} dealing attempts) "
                  f"could not be replayed: {why}; none of their bids, cards or claims are "
                  "checked", offset=hands[0][1])
    v.not_replayed.sort()


NO_DEAL = "the log has neither seeds to derive the deal nor a recorded deal"
SECRET_HAND = ("a blind deal that was not played out, and whose seats did not reveal their "
               "keys: its cards stay secret, so its plays cannot be checked against the hands")


def _note_secret_hands(v: Verdict, hands: list[int]) -> None:
    if hands:
        v.notes.append(f"hand(s) {_runs(hands)} dealt blind and cancelled in the bidding: their "
                       "cards were never shown and no keys were revealed; their calls "
                       "do not depend on them and are checked")


def log_deriver(header: Header, end: EndRecord | None) -> DealDeriver | None:
    """The deriver of a log's deals from its revealed seeds, or ``None`` without them.

    It checks nothing: :func:`verify_log` checks the seeds against their commitments.
    """
    if header.server_commitment is None or header.client_seeds is None or end is None \
            or end.server_seed is None:
        return None
    return DealDeriver(end.server_seed, header.match_id, tuple(header.client_seeds),
                       season_leaf(header))


Deal = tuple[tuple[int, int, int, int], int | None]


def deal_of(rec: HandRecord, deriver: DealDeriver | None, n: int, dealer: int) -> Deal | None:
    """The four hands and the dealer's 13th card of dealing attempt ``n``: derived from the
    seeds where the log has them, else as the log records them; ``None`` without either."""
    if deriver is not None:
        h0, h1, h2, h3, thirteenth = deriver.dealt(n, dealer)
        return (h0, h1, h2, h3), thirteenth
    if rec.deal is not None:
        return rec.deal.hands, rec.deal.thirteenth
    return None


class _Abandon(Exception):
    """The hand cannot be replayed further; carry on from the log's own totals."""


class _HandReplay:
    """Replays one hand record at a time on the match state, adding findings."""

    def __init__(self, state: MatchState, v: Verdict, deriver: DealDeriver | None,
                 no_deal: str = "", fast: bool = True) -> None:
        self.state, self.v, self.deriver, self.no_deal = state, v, deriver, no_deal
        self.drift = [0, 0, 0, 0]  # claimed minus true running totals, after the last hand
        self.replayed = self.played = self.recorded = 0
        self.missing: list[tuple[int, int, str]] = []  # (deal number, offset, why) unreplayed
        self.fast = fast and deriver is not None
        self.blind: Any = None  # a BlindChecker for a log dealt blind

    def _fast(self) -> bool:
        """A derived deal whose every move is legal, as one piece (:meth:`MatchState.play_hand`),
        then the claims: ``False`` with the state untouched when the hand needs the
        move-by-move replay below, which says what is wrong."""
        state, rec = self.state, self.rec
        h0, h1, h2, h3, thirteenth = self.deriver.dealt(self.n, state.dealer)  # type: ignore
        if rec.revealed != (thirteenth if state.rules.reveals_card else None):
            return False
        hand = state.play_hand((h0, h1, h2, h3), thirteenth, rec.calls, rec.trump, rec.plays)
        if hand is None:
            return False
        self.replayed += 1
        if hand.cancelled:
            if rec.tricks is not None or rec.scores is not None or rec.trump is not None \
                    or rec.totals != hand.totals or any(self.drift):
                self._cancelled_claims()
        else:
            self.played += 1
            if rec.tricks != hand.tricks or rec.scores != hand.scores \
                    or rec.totals != hand.totals or any(self.drift):
                self._claims()
        return True

    def run(self, rec: HandRecord, offset: int) -> None:
        state, v = self.state, self.v
        n = state.deal_number
        self.offset, self.rec, self.n = offset, rec, n
        if self.fast and rec.closed and not rec.timer and rec.deal is None \
                and rec.deal_number == n and rec.dealer == state.dealer and self._fast():
            return
        if rec.deal_number != n:
            v.add("wrong-deal-number", f"the log numbers this dealing attempt {rec.deal_number}, "
                  f"but it is attempt {n}", hand=n, offset=offset)
        if rec.dealer != state.dealer:
            v.add("wrong-dealer", f"seat {rec.dealer} dealt, but it was seat {state.dealer}'s "
                  "deal", hand=n, seat=rec.dealer, offset=offset)
        dealt = False
        try:
            self._deal()
            dealt = True
            self._bidding()
            if state.phase in (Phase.DEAL, Phase.OVER):  # cancelled
                self._cancelled_claims()
            else:
                self._play()
                if rec.closed:
                    self._claims()
                    self.played += 1
        except _Abandon:
            if rec.closed:
                self._resync()
            elif dealt:  # the hand a log stops in: replayed as far as it goes
                self.replayed += 1
            return
        self.replayed += 1
        if rec.timer:
            self._timer_marks(state.history[-1])

    # -- the deal
    def _blind_deal(self) -> None:
        """A blind hand: its transcript checked, dealt the hands it proves."""
        state, rec, v, n = self.state, self.rec, self.v, self.n
        if rec.deal is not None:
            v.add("not-canonical", "a hand dealt blind writes out a deal; FORMAT.md has nil "
                  "there", hand=n, offset=self.offset)
        reveals = state.rules.reveals_card
        bh = self.blind.check(rec, n, state.dealer, reveals, self.offset)
        if bh is None or bh.hands is None or (reveals and bh.thirteenth is None):
            self.missing.append((n, self.offset, "its blind deal does not give four hands"))
            raise _Abandon
        if not bh.proven:  # only calls are replayed on secret hands: they do not depend on them
            if rec.plays or (state.rules.trump == "named" and rec.trump is not None):
                self.missing.append((n, self.offset, SECRET_HAND))
                raise _Abandon
            self.blind.secret_cancelled.append(n)
        state.deal(bh.hands, bh.thirteenth if reveals else None)
        if reveals and rec.revealed != bh.thirteenth:  # cannot be: the proof names it
            v.add("wrong-revealed-card", "the revealed card is not the one opened", hand=n,
                  seat=state.dealer, offset=self.offset)

    def _deal(self) -> None:
        state, rec, v, n = self.state, self.rec, self.v, self.n
        if self.blind is not None:
            self._blind_deal()
            return
        deal = deal_of(rec, self.deriver, n, state.dealer)
        if deal is None:
            self.missing.append((n, self.offset, self.no_deal or NO_DEAL))
            raise _Abandon
        hands, thirteenth = deal
        derived = self.deriver is not None
        if derived:
            if rec.deal is not None:
                if (rec.deal.hands, rec.deal.thirteenth) != deal:
                    v.add("wrong-deal", "the recorded deal is not the one the committed seeds "
                          "produce", hand=n, offset=self.offset)
                else:
                    v.add("not-canonical", "the record writes out the deal the seeds derive; "
                          "FORMAT.md has nil there", hand=n, offset=self.offset)
        else:
            problem = check_deal(hands, state.dealer, thirteenth, state.rules.reveals_card)
            if problem:
                v.add("bad-deal", f"the recorded deal is not a deal: {problem}", hand=n,
                      offset=self.offset)
                raise _Abandon
            self.recorded += 1  # a deal that is no deal is not replayed from
        state.deal(hands, thirteenth, validate=not derived)
        if state.rules.reveals_card:
            if rec.revealed != thirteenth:
                shown = card_name(rec.revealed) if rec.revealed is not None else "no card"
                v.add("wrong-revealed-card", f"the log reveals {shown}, but the dealer's 13th "
                      f"card is {card_name(thirteenth)}", hand=n, seat=state.dealer,
                      card=shown, offset=self.offset)
        elif rec.revealed is not None:
            v.add("wrong-revealed-card", f"the log reveals {card_name(rec.revealed)}, but "
                  f"{state.rules.name} reveals no card", hand=n, offset=self.offset)

    # -- bids
    def _timer_check(self, move: int, action: int, trick: int | None = None) -> None:
        if self.rec.timer >> move & 1 and action not in self.state.timer_actions():
            allowed = ", ".join(describe_action(a) for a in self.state.timer_actions())
            self.v.add("wrong-timer-move", f"the timer's move was {describe_action(action)}, "
                       f"but the rules' automatic move is {allowed}", hand=self.n, trick=trick,
                       seat=self.state.current_player,
                       card=card_name(action) if action < 52 else None, offset=self.offset)

    def _bidding(self) -> None:
        state, rec, v, n = self.state, self.rec, self.v, self.n
        timer = rec.timer
        move = 0
        if not timer:  # the fast path, without timer moves
            move = state.apply_calls([(s, PASS if c == PASS_CODE else BID_BASE + c)
                                      for s, c in rec.calls])
        for seat, code in rec.calls[move:]:
            if state.phase != Phase.BID:
                v.add("bidding-overrun", f"seat {seat}'s call comes after the bidding had ended",
                      hand=n, seat=seat, offset=self.offset)
                break
            action = PASS if code == PASS_CODE else BID_BASE + code
            if seat != state.current_player:
                said = describe_action(action)
                v.add("bid-out-of-turn", f"seat {seat} made a call ({said}) when it was seat "
                      f"{state.current_player}'s turn", hand=n, seat=seat, offset=self.offset)
                raise _Abandon
            if timer:
                self._timer_check(move, action)
            move += 1
            problem = state.check(action)
            if problem is not None:
                # a pass in personal bidding is no bid at all: the state cannot hold it
                no_bid = action == PASS or problem.kind == "wrong-phase"
                v.add("pass-not-allowed" if no_bid else
                      _CALL_KINDS.get(problem.kind, "bid-out-of-range"), str(problem), hand=n,
                      seat=seat, offset=self.offset)
                if no_bid or (state.rules.bidding == "personal" and not 2 <= code <= 13):
                    raise _Abandon  # no value to score it by
            state.apply_unchecked(action)
        if state.phase == Phase.BID:
            if not rec.closed:  # the log stops in the bidding
                raise _Abandon
            v.add("bidding-incomplete", f"the bidding stops before it is over: seat "
                  f"{state.current_player} has not called", hand=n, seat=state.current_player,
                  offset=self.offset)
            raise _Abandon
        self.move = move

    def _cancelled_claims(self) -> None:
        rec, v, n, hand = self.rec, self.v, self.n, self.state.history[-1]
        total = sum(self._bid_values(hand))
        if rec.plays:
            why = ("all four passed" if self.state.rules.bidding == "auction" else
                   f"the bids total {total}, below the minimum of "
                   f"{self.state.rules.lowest_total(max(hand.totals))}")
            v.add("played-when-cancelled", f"the hand was played although {why}: it does not "
                  "count", hand=n, offset=self.offset)
        if not rec.closed:  # the hand a log stops in: its moves are checked, it has no claims
            return
        if rec.scores is not None and any(rec.scores):
            v.add("wrong-hand-score", "the log scores a cancelled hand", hand=n,
                  offset=self.offset)
        extra = [what for what, value in (("a trump", rec.trump), ("trick counts", rec.tricks),
                                          ("hand scores", rec.scores)) if value is not None]
        if extra:
            v.add("not-canonical", f"the hand is cancelled, but its record carries "
                  f"{' and '.join(extra)}; FORMAT.md has nil there for a cancelled hand",
                  hand=n, offset=self.offset)
        self._compare_totals(rec.totals, hand.totals)

    def _timer_marks(self, hand: Hand) -> None:
        """Timer marks only on moves the hand has: calls, the named trump, the plays."""
        moves = len(self.rec.calls) + len(self.rec.plays) + (hand.declarer is not None)
        extra = self.rec.timer >> moves
        if extra:
            marks = [moves + i for i in range(extra.bit_length()) if extra >> i & 1]
            shown = ", ".join(map(str, marks[:5])) + (" …" if len(marks) > 5 else "")
            self.v.add("not-canonical", f"the timer marks move(s) {shown}, but the hand has "
                       f"only {moves} moves (0-{moves - 1})", hand=self.n, offset=self.offset)

    @staticmethod
    def _bid_values(hand: object) -> list[int]:
        return [a - BID_BASE for _, a in hand.calls if a != PASS]  # type: ignore[attr-defined]

    # -- play
    def _play(self) -> None:
        state, rec, v, n = self.state, self.rec, self.v, self.n
        move = self.move
        if state.phase == Phase.TRUMP:
            if rec.trump is None:
                if not rec.closed:  # the log stops before the trump is named
                    raise _Abandon
                v.add("wrong-trump", "the auction winner named no trump", hand=n,
                      seat=state.current_player, offset=self.offset)
                raise _Abandon
            self._timer_check(move, TRUMP_BASE + rec.trump)
            move += 1
            state.apply(TRUMP_BASE + rec.trump)
        elif rec.closed and rec.trump != state.trump:
            shown = SUITS[rec.trump] if rec.trump is not None else "none"
            v.add("wrong-trump", f"the log gives {shown} as trump, but the rules give "
                  f"{SUITS[state.trump]}", hand=n, offset=self.offset)
        if not rec.plays:
            if not rec.closed:
                raise _Abandon
            total = sum(self._bid_values(state.hand))
            v.add("cancelled-wrongly", f"the hand was not played, but the bids total {total}, "
                  "enough to play", hand=n, offset=self.offset)
            raise _Abandon
        timer = rec.timer >> move
        hands = state.hands
        plays = rec.plays
        start = 0 if timer else state.play_cards(plays)  # the fast path, without timer moves
        for k in range(start, len(plays)):
            card = plays[k]
            if timer >> k & 1:
                self._timer_check(move + k, card, k // 4 + 1)
            try:
                state.apply(card)
            except IllegalAction as e:
                seat = state.current_player
                trick = k // 4 + 1
                where = dict(hand=n, trick=trick, seat=seat, card=card_name(card),
                             offset=self.offset)
                if e.kind == "renege":
                    v.add("renege", f"renege: {e}", **where)
                    state.apply(card, checked=False)
                    continue
                owner = next((s for s in range(4) if hands[s] >> card & 1), None)
                if owner is None:
                    first = state.hand.plays.index(card) // 4 + 1 \
                        if card in state.hand.plays else None
                    earlier = f" in trick {first}" if first is not None else ""
                    v.add("card-already-played", f"{card_name(card)} was already played"
                          f"{earlier}, and is played again in trick {trick}", **where)
                elif k % 4 == 0 and k > 0:
                    v.add("wrong-trick-winner", f"trick {trick} is led with {card_name(card)}, "
                          f"seat {owner}'s card, but seat {seat} won trick {trick - 1} and leads: "
                          f"the trick was given to the wrong seat, or seat {owner} played out "
                          "of turn", **where)
                elif (owner - state.leader) & 3 < len(state.trick):
                    v.add("card-not-held", f"seat {seat} played {card_name(card)}, which it "
                          f"does not hold: it is seat {owner}'s, who has already played to "
                          "this trick", **where)
                else:
                    v.add("played-out-of-turn", f"{card_name(card)} is seat {owner}'s card, "
                          f"played when it was seat {seat}'s turn", **where)
                raise _Abandon from None
        if len(rec.plays) < 52:
            if not rec.closed:  # the log stops inside the play
                raise _Abandon
            v.add("hand-incomplete", f"the hand stops after {len(rec.plays)} of 52 cards",
                  hand=n, trick=len(rec.plays) // 4 + 1, offset=self.offset)
            raise _Abandon

    # -- claims
    def _compare(self, kind: str, what: str, claimed: list[int] | None,
                 actual: list[int]) -> None:
        if claimed == actual:
            return
        if claimed is None:
            self.v.add(kind, f"the log claims no {what}s", hand=self.n, offset=self.offset)
            return
        for s in range(4):
            if claimed[s] != actual[s]:
                self.v.add(kind, f"the log claims a {what} of {claimed[s]} for seat {s}, "
                           f"the rules give {actual[s]}", hand=self.n, seat=s,
                           offset=self.offset)

    def _claims(self) -> None:
        rec, hand = self.rec, self.state.history[-1]
        self._compare("wrong-trick-count", "trick count", rec.tricks, hand.tricks)
        self._compare("wrong-hand-score", "hand score", rec.scores, hand.scores)
        self._compare_totals(rec.totals, hand.totals)

    def _compare_totals(self, claimed: list[int], actual: list[int]) -> None:
        """Report a wrong running total where the error arises or changes, not again in every
        later hand that only carries it forward."""
        drift = [c - a for c, a in zip(claimed, actual, strict=True)]
        for s in range(4):
            if drift[s] and drift[s] != self.drift[s]:
                carried = f" (it was already off by {self.drift[s]})" if self.drift[s] else ""
                self.v.add("wrong-total", f"the log claims a running total of {claimed[s]} for "
                           f"seat {s}, the rules give {actual[s]}{carried}", hand=self.n, seat=s,
                           offset=self.offset)
        self.drift = drift

    def _resync(self) -> None:
        """Finish an unreplayable hand with the log's own totals, so the rest still checks."""
        state = self.state
        if state.hand is None and self.n != state.deal_number:  # it ended before the trouble
            return
        before = list(state.totals)
        state.finish_hand_with([self.rec.totals[s] - before[s] for s in range(4)])
        self.drift = [0, 0, 0, 0]
        if not self.missing or self.missing[-1][0] != self.n:
            self.v.notes.append(f"hand {self.n} could not be replayed to its end; the rest of "
                                "the match is checked from the totals the log claims after it")


def _check_end(log: ParsedLog, state: MatchState, v: Verdict) -> None:
    last = log.hands[-1] if log.hands else None
    if log.end is None:
        cut = log.cut_short
        at = cut.offset if cut is not None and cut.offset is not None else log.size
        what = cut.message if cut is not None else f"cut at byte {at}: the log ends"
        v.add("cut-short", f"{what}, after {len(log.hands)} dealing attempts, without its "
              "end record" + (f" (hand {last.deal_number} stops after {_moves(last)})"
                             if last is not None and not last.closed else ""), offset=at)
        return
    if log.cut_short is not None:
        v.add("cut-short", f"{log.cut_short.message}, after the end record",
              offset=log.cut_short.offset)
    claimed, actual = log.end.winner, state.winner
    at = log.end_offset
    abandoned = log.end.abandoned
    if abandoned is not None:
        v.ending = f"abandoned at {_stop_place(last)}: {_abandon_text(log, abandoned)}"
    elif last is not None and not last.closed:
        v.add("hand-incomplete", f"hand {last.deal_number} has no claims record: the match "
              f"ends inside it, after {_moves(last)}", hand=last.deal_number, offset=at)
    if actual is None and claimed is not None:
        v.add("winner-too-early", f"the log declares {TEAM_NAMES[claimed]} the winner, but no "
              f"team has won yet (totals {state.totals})", offset=at)
    elif actual is not None and claimed is None:
        v.add("no-winner", f"{TEAM_NAMES[actual]} won, but the log declares no winner"
              + (" (it says the match was abandoned)" if abandoned is not None else ""),
              offset=at)
    elif actual != claimed:
        v.add("wrong-winner", f"the log declares {TEAM_NAMES[claimed]} the winner, but "
              f"{TEAM_NAMES[actual]} won", offset=at)
    elif actual is None and abandoned is None:
        v.add("cut-short", "the match ends unfinished: no team has won, and the log does not "
              "say it was abandoned", offset=at)


def _moves(rec: HandRecord) -> str:
    return f"{len(rec.calls)} call(s) and {len(rec.plays)} card(s)"


def _stop_place(last: HandRecord | None) -> str:
    """Where a match stopped, from its last hand: ``hand 3, trick 5``."""
    if last is None:
        return "the start, before the first deal"
    if last.closed:
        return f"the end of hand {last.deal_number}, before the next deal"
    if len(last.plays) == 52:
        return f"hand {last.deal_number}, after its 13th trick, before its claims"
    if last.plays:
        return f"hand {last.deal_number}, trick {len(last.plays) // 4 + 1}"
    return f"hand {last.deal_number}, in the bidding"


_CAUSE_TEXT = {"disconnect": "disconnected", "timeout": "timed out", "resignation": "resigned"}


def _abandon_text(log: ParsedLog, a: Abandonment) -> str:
    if a.seat is None:
        who = "the server" if a.cause == "server-fault" else "a player"
    else:
        who = f"seat {a.seat} ({log.header.seats[a.seat].name})"
    what = "failed" if a.cause == "server-fault" else _CAUSE_TEXT.get(a.cause, a.cause)
    return f"{who} {what}" + (f": {a.reason}" if a.reason else "")


__all__ = ["deal_of", "log_deriver", "verify_bytes", "verify_file", "verify_log"]
