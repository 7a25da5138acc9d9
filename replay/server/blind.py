"""Play a match dealt blind: every seat holds its own secret key and learns its own hand only.

Each dealing attempt, the four seats (the computer players included) draw fresh
secrets (:class:`~tarneeb.audit.blind.BlindSeat`), shuffle and deal by
commutative encryption (``docs/PROTOCOL.md`` §13), each pass and each round of
partial decryptions with its proof (``tarneeb-blind-v2``), and each learns its own 13
cards; the table takes each seat's hand from that seat. A player chooses its
moves from a view of the table in which the other seats' hands are hidden. The
dealer opens its 13th card where the rules reveal it, and each card played is
opened by its seat with a proof, checked by the table when it is played. The
seed protocol still draws the first dealer. After the match every seat reveals
its keys (``reveal_keys=False``: none does).

>>> log = play_blind_match("qahwa41", seed=b"blind doc", target=3)  # reproducible: not secret
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> v = verify_bytes(log)
>>> v.clean, v.deals_proven, v.blind
(True, True, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.blind import (
    BlindDeal,
    BlindSeat,
    Opening,
    check_opening,
    deal_blind,
    fixed_rng,
)
from tarneeb.audit.blind.proofs import deal_blind_v2, deal_until
from tarneeb.audit.derive import DealDeriver
from tarneeb.replay.log.blind import OPENED_POSITION, BlindTranscript, RevealedKeys
from tarneeb.replay.log.records import Abandonment, EndRecord, HandRecord
from tarneeb.replay.rules.cards import by_seat
from tarneeb.replay.rules.engine import MatchState
from tarneeb.replay.rules.players import BotPlayer, Move, Player, play_match
from tarneeb.replay.rules.ruleset import RuleSet, preset
from tarneeb.replay.server.simulate import DEFAULT_NAMES, MatchSecrets, _labelled, write_log


class BlindTableError(RuntimeError):
    """A step of a blind deal that the table refuses (a seat's proof that fails)."""


class SeatStalled(Exception):
    """A seat did not deliver its step of deal ``n`` in time: the deal stops there."""

    def __init__(self, n: int, dealer: int, seat: int, transcript: BlindTranscript) -> None:
        super().__init__(f"hand {n + 1}: seat {seat} did not deliver")
        self.n, self.dealer, self.seat, self.transcript = n, dealer, seat, transcript


def transcript_of(deal: BlindDeal) -> BlindTranscript:
    """The log's form of a deal's public transcript (no openings yet)."""
    if deal.shuffle_proofs is not None:  # tarneeb-blind-v2
        return BlindTranscript(
            b"".join(deal.publics), [b"".join(d) for d in deal.passes],
            [b"".join(deal.partials[p][r].element for p in range(52)) for r in range(3)], [],
            None, list(deal.shuffle_proofs), b"".join(deal.batch_proofs or ()))
    return BlindTranscript(
        b"".join(deal.publics), [b"".join(d) for d in deal.passes],
        [b"".join(deal.partials[p][r].element for p in range(52)) for r in range(3)],
        [b"".join(deal.partials[p][r].proof for p in range(52)) for r in range(3)])


def seat_view(state: MatchState, seat: int) -> MatchState:
    """What ``seat`` sees of the table: the same state with every other hand hidden."""
    view = state.clone()
    view.hands = [h if s == seat else 0 for s, h in enumerate(state.hands)]
    if view.hand is not None:
        view.hand.hands = by_seat(h if s == seat else 0 for s, h in enumerate(view.hand.hands))
    return view


class BlindTable:
    """The deals of one blind match: each seat's secrets, and what the log records."""

    def __init__(self, match_id: bytes, rules: RuleSet, label: bytes | None = None,
                 stall: tuple[int, int] | None = None, version: int = 3) -> None:
        self.match_id, self.rules, self.label = match_id, rules, label
        self.version = version  # the blind protocol: 3 (compact shuffle arguments), 2 or 1
        self.stall = stall  # (deal, step): the step (0-15) no seat delivers, for tests
        self.state: MatchState | None = None  # the table, once a move is made
        self.flags: dict[int, list[bool]] = {}  # deal number -> each move's timer flag
        self.seats: list[BlindSeat] = []
        self.deal: BlindDeal | None = None
        self.transcripts: list[BlindTranscript] = []
        self.keys: list[RevealedKeys] = []
        self.hands: list[tuple[int, int, int, int]] = []  # what each seat learned, by deal

    def _seat(self, seat: int, n: int) -> BlindSeat:
        rng = None if self.label is None else fixed_rng(self.label + n.to_bytes(4, "big"), seat)
        return BlindSeat.new(seat, self.match_id, n, rng=rng)

    def deals(self, n: int, dealer: int) -> tuple[tuple[int, int, int, int], int | None]:
        """Shuffle and deal attempt ``n``; the hands are what each seat learned."""
        self.seats = [self._seat(s, n) for s in range(4)]
        if self.stall is not None and self.stall[0] == n:
            self._stop(n, dealer, self.stall[1])
        self.deal = deal_blind(self.seats, self.match_id, n, dealer) if self.version == 1 \
            else deal_blind_v2(self.seats, self.match_id, n, dealer, version=self.version)
        t = transcript_of(self.deal)
        self.transcripts.append(t)
        self.keys.append(RevealedKeys(n, [s.scalar for s in self.seats],
                                      [bytes(s.permutation) for s in self.seats]))
        hands = [0, 0, 0, 0]
        for s, seat in enumerate(self.seats):
            if seat.unreadable:
                raise BlindTableError(f"hand {n + 1}: seat {s} could not read position(s) "
                                      f"{seat.unreadable}")
            for card in seat.hand():
                hands[s] |= 1 << card
        self.hands.append((hands[0], hands[1], hands[2], hands[3]))
        thirteenth = None
        if self.rules.reveals_card:  # the dealer opens it to all, with its proof
            thirteenth, t.opened = self._open(dealer, OPENED_POSITION, "open")
        return (hands[0], hands[1], hands[2], hands[3]), thirteenth

    def _stop(self, n: int, dealer: int, steps: int) -> None:
        """The deal as far as ``steps`` steps go; the seat of the next one never answers."""
        passes, proofs, rows, batch = deal_until(self.seats, self.match_id, n, dealer, steps,
                                                 version=self.version)
        t = BlindTranscript(b"".join(s.public for s in self.seats),
                            [b"".join(d) for d in passes], [b"".join(r) for r in rows], [],
                            None, proofs, b"".join(batch))
        assert t.waiting_for is not None
        raise SeatStalled(n, dealer, t.waiting_for, t)

    def _open(self, seat: int, position: int, step: str) -> tuple[int, bytes]:
        assert self.deal is not None
        card, proof = self.seats[seat].open(position, step)
        fault = check_opening(self.deal, Opening(position, card, step, proof))
        if fault is not None:
            raise BlindTableError(str(fault))
        return card, proof

    def on_move(self, state: MatchState, seat: int, move: Move) -> None:
        """A card played: its seat opens it with a proof, which the table checks."""
        self.state = state
        hand = state.hand if state.hand is not None else state.history[-1]
        self.flags.setdefault(hand.deal_number, []).append(move.timer)
        if move.action >= 52:
            return
        k = len(hand.plays) - 1
        position = self.seats[seat].position_of(move.action)
        self.transcripts[-1].play_proofs[k] = (position, self._open(seat, position, "play")[1])


def play_blind_match(rules: RuleSet | str, *, seed: bytes | None = None,
                     players: Sequence[Player] | None = None,
                     key: Ed25519PrivateKey | None = None,
                     names: Sequence[str] = DEFAULT_NAMES,
                     computer: Sequence[bool] = (True, True, True, True),
                     max_hands: int = 500, reveal_keys: bool = True,
                     target: int | None = None, stall: tuple[int, int] | None = None,
                     version: int = 3) -> bytes:
    """Play a match dealt blind and return its signed log (see the module).

    ``seed`` makes it reproducible (every secret derived from it: NOT secret);
    ``target`` plays to another target (short matches for tests and benchmarks), as house
    rules named after the preset and the target (``qahwa41to5``). ``stall = (deal,
    step)``: in that deal the seat of that step (0-3 the passes, ``4 + 4r + k`` seat
    ``k``'s decryptions of round ``r``) never delivers, and the match is abandoned there
    (a timeout on that seat, PROTOCOL.md §13.8). ``version``: the blind protocol,
    ``tarneeb-blind-v3`` (each pass proven by the compact argument of §13.9), 2 (by
    the linear proof of §13.6) or 1 (passes unproven: to check old logs' reading).
    """
    return play_blind(rules, seed=seed, players=players, key=key, names=names,
                      computer=computer, max_hands=max_hands, reveal_keys=reveal_keys,
                      target=target, stall=stall, version=version)[0]


def play_blind(rules: RuleSet | str, *, seed: bytes | None = None,
               players: Sequence[Player] | None = None,
               key: Ed25519PrivateKey | None = None, names: Sequence[str] = DEFAULT_NAMES,
               computer: Sequence[bool] = (True, True, True, True),
               max_hands: int = 500, reveal_keys: bool = True,
               target: int | None = None, stall: tuple[int, int] | None = None,
               version: int = 3) -> tuple[bytes, BlindTable]:
    """:func:`play_blind_match`, with the table (what each seat learned, deal by deal)."""
    if isinstance(rules, str):
        rules = preset(rules)
    if target is not None and target != rules.target:  # house rules: a name of their own
        rules = replace(rules, target=target, name=f"{rules.name}to{target}")
    s = MatchSecrets(seed)
    if key is not None:
        s.key = key
    if players is None:
        rng = random.Random(s.rng_seed)
        players = [BotPlayer(random.Random(rng.getrandbits(64))) for _ in range(4)]
    label = None if seed is None else _labelled(seed, "blind-seats")
    table = BlindTable(s.match_id, rules, label, stall, version)
    first = DealDeriver(s.server_seed, s.match_id, tuple(s.client_seeds), s.leaf).first_dealer()
    try:
        state, flags = play_match(rules, first, table.deals, players, max_hands=max_hands,
                                  view=seat_view, on_move=table.on_move)
    except SeatStalled as stop:  # abandoned at the deal, on the seat that did not deliver
        state = table.state or MatchState(rules, first)
        flags = [table.flags.get(h.deal_number, []) for h in state.history]
        what = "its shuffle pass" if len(stop.transcript.passes) < 4 else \
            "its partial decryptions"
        end = EndRecord(None, s.server_seed, Abandonment(
            "timeout", stop.seat, f"seat {stop.seat} did not deliver {what} in time"))
        unfinished = HandRecord(stop.n, stop.dealer, closed=False, blind=stop.transcript)
        return write_log(rules, state, flags, s, names, computer, blind=table.transcripts,
                         keys=table.keys if reveal_keys else (), unfinished=unfinished,
                         end=end), table
    return write_log(rules, state, flags, s, names, computer, blind=table.transcripts,
                     keys=table.keys if reveal_keys else ()), table


__all__ = ["BlindTable", "BlindTableError", "SeatStalled", "play_blind", "play_blind_match",
           "seat_view", "transcript_of"]
