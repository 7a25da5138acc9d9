"""Play a whole match between computer players and write the signed log a platform would.

The match uses the real protocol: a fresh server seed and its commitment, four
client seeds committed before they are revealed, every deal derived from them,
and the log signed with the platform's Ed25519 key.

A *reproducible* match (``seed=...``) derives every secret from that seed
instead of :mod:`secrets`: for fixtures, demos and tests only, never for play.

>>> log = play_logged_match("eram41", seed=b"doc example")  # reproducible: not secret
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> verify_bytes(log).clean
True
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Sequence
from io import BytesIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.derive import DealDeriver
from tarneeb.audit.seeds import SeasonLeaf, client_commitments, match_binding, server_commitment
from tarneeb.audit.signing import public_key_raw, sign
from tarneeb.replay.log.blind import BlindTranscript, RevealedKeys
from tarneeb.replay.log.records import (
    PASS_CODE,
    BatchProof,
    EndRecord,
    HandRecord,
    Header,
    RecordedDeal,
    Seat,
)
from tarneeb.replay.log.writer import LogWriter
from tarneeb.replay.rules.actions import BID_BASE, PASS
from tarneeb.replay.rules.cards import deal_hands
from tarneeb.replay.rules.engine import MatchState
from tarneeb.replay.rules.players import BotPlayer, DealSource, Player, play_match
from tarneeb.replay.rules.ruleset import RuleSet, preset
from tarneeb.replay.rules.scoring import Hand

DEFAULT_NAMES = ("North bot", "East bot", "South bot", "West bot")


def _labelled(seed: bytes, label: str, n: int = 32) -> bytes:
    out = b""
    counter = 0
    while len(out) < n:
        out += hmac.digest(seed, f"tarneeb-reproducible/{label}/{counter}".encode(), "sha256")
        counter += 1
    return out[:n]


class MatchSecrets:
    """The server seed, client seeds, match id and signing key of one match."""

    def __init__(self, seed: bytes | None = None) -> None:
        self.reproducible = seed is not None
        self.batch: BatchProof | None = None  # where the commitment stands in a season root
        if seed is None:
            self.server_seed = secrets.token_bytes(32)
            self.client_seeds = [secrets.token_bytes(32) for _ in range(4)]
            self.match_id = secrets.token_bytes(8)
            self.key = Ed25519PrivateKey.generate()
            self.rng_seed = secrets.randbits(64)
        else:
            self.server_seed = _labelled(seed, "server-seed")
            self.client_seeds = [_labelled(seed, f"client-seed/{s}") for s in range(4)]
            self.match_id = _labelled(seed, "match-id", 8)
            self.key = Ed25519PrivateKey.from_private_bytes(_labelled(seed, "platform-key"))
            self.rng_seed = int.from_bytes(_labelled(seed, "players", 8), "big")

    @property
    def leaf(self) -> SeasonLeaf | None:
        """Where the match stands in its season, or ``None`` for a match committed alone."""
        b = self.batch
        return None if b is None else SeasonLeaf(b.index, b.size, b.root)

    def client_commitments(self) -> list[bytes]:
        """The four seats' commitments, bound to what the server promised."""
        binding = match_binding(server_commitment(self.server_seed), self.leaf)
        return list(client_commitments(self.match_id, self.client_seeds, binding))


def hand_record(rules: RuleSet, hand: Hand, timer_flags: Sequence[bool]) -> HandRecord:
    """The log record of one hand the engine played (or cancelled)."""
    played = not hand.cancelled
    timer = 0
    for k, flag in enumerate(timer_flags):
        if flag:
            timer |= 1 << k
    return HandRecord(
        deal_number=hand.deal_number, dealer=hand.dealer,
        calls=[(s, PASS_CODE if a == PASS else a - BID_BASE) for s, a in hand.calls],
        revealed=hand.thirteenth if rules.reveals_card else None,
        trump=hand.trump if played else None,
        plays=bytes(hand.plays), timer=timer,
        tricks=list(hand.tricks) if played else None,
        scores=list(hand.scores) if played and hand.scores is not None else None,
        totals=list(hand.totals or [0, 0, 0, 0]),
    )


def play_logged_match(rules: RuleSet | str, *, seed: bytes | None = None,
                      players: Sequence[Player] | None = None,
                      key: Ed25519PrivateKey | None = None,
                      names: Sequence[str] = DEFAULT_NAMES,
                      computer: Sequence[bool] = (True, True, True, True),
                      max_hands: int = 500, seeded: bool = True,
                      server_seed: bytes | None = None,
                      batch: BatchProof | None = None,
                      rig: Callable[[DealSource], DealSource] | None = None) -> bytes:
    """Play a match and return its signed log.

    ``seed`` makes the run reproducible (every secret derived from it); ``players``
    replaces the default bots (e.g. steered bots for a fixture); ``key`` signs with
    the platform's key instead of a fresh one. ``seeded=False`` writes the log of a
    platform that does not use the seed protocol: every deal recorded in full, nothing
    committed (the verdict then says the deals are recorded, not proven).
    ``server_seed`` with ``batch`` plays one match of a season committed up front
    (``tarneeb commit --matches N``): that match's seed, its inclusion proof and the
    platform's signature of the season head.
    ``rig`` (only with ``seeded=False``) replaces the seeds' deals by the deals it makes of
    them, as a platform that records its deals may deal anything (test generators stack
    the deals of rare paths with it); a log of deals derived from seeds cannot be rigged.
    """
    if isinstance(rules, str):
        rules = preset(rules)
    if rig is not None and seeded:
        raise ValueError("deals derived from the seeds cannot be rigged: rig needs seeded=False")
    s = MatchSecrets(seed)
    if key is not None:
        s.key = key
    if server_seed is not None:
        s.server_seed = server_seed
    s.batch = batch
    if players is None:
        rng = random.Random(s.rng_seed)
        players = [BotPlayer(random.Random(rng.getrandbits(64))) for _ in range(4)]
    deriver = DealDeriver(s.server_seed, s.match_id, tuple(s.client_seeds), s.leaf)

    def deals(deal_number: int, dealer: int) -> tuple[tuple[int, int, int, int], int]:
        deck = deriver.deck(deal_number)
        return deal_hands(deck, dealer), deck[51]

    source: DealSource = deals if rig is None else rig(deals)
    state, flags = play_match(rules, deriver.first_dealer(), source, players, max_hands=max_hands)
    return write_log(rules, state, flags, s, names, computer, seeded)


def write_log(rules: RuleSet, state: MatchState, flags: Sequence[Sequence[bool]],
              s: MatchSecrets, names: Sequence[str], computer: Sequence[bool],
              seeded: bool = True, blind: Sequence[BlindTranscript] | None = None,
              keys: Sequence[RevealedKeys] = (), unfinished: HandRecord | None = None,
              end: EndRecord | None = None) -> bytes:
    """The signed log of a finished match (deals derived from the seeds, or recorded; or
    ``blind``: one transcript a dealing attempt, and the ``keys`` revealed after it).
    ``unfinished`` is a last hand whose blind deal stopped, ``end`` the end record of a
    match abandoned there."""
    out = BytesIO()
    w = LogWriter(out)
    first_dealer = state.history[0].dealer if state.history else state.dealer
    header = Header(
        rules=rules, seats=[Seat(n, c) for n, c in zip(names, computer, strict=True)],
        match_id=s.match_id, first_dealer=first_dealer,
        public_key=public_key_raw(s.key.public_key()), blind=blind is not None)
    if seeded:
        header.server_commitment = server_commitment(s.server_seed)
        header.batch = s.batch
        header.client_commitments = s.client_commitments()
        header.client_seeds = list(s.client_seeds)
    w.write(header)
    for hand, f in zip(state.history, flags, strict=True):
        rec = hand_record(rules, hand, f)
        if not seeded:
            rec.deal = RecordedDeal(hand.hands, hand.thirteenth)
        if blind is not None:
            rec.blind = blind[hand.deal_number]
        w.write(rec)
    if unfinished is not None:
        w.write(unfinished)
    w.write(end or EndRecord(state.winner, s.server_seed if seeded else None))
    for k in keys:
        w.write(k)
    w.sign(lambda data: sign(s.key, data))
    return out.getvalue()


def seed_bytes(text: str) -> bytes:
    """The bytes of a ``--seed`` given on the command line."""
    # the bytes the user typed, even when they are not UTF-8 (argv decodes them escaped)
    raw = text.encode("utf-8", "surrogateescape")
    return hashlib.sha256(b"tarneeb --seed\x00" + raw).digest()


__all__ = ["MatchSecrets", "hand_record", "play_logged_match", "seed_bytes", "write_log"]
