"""The fair-play analysis of played hands: decisions, and what the player's information
made of them.

At each analysed decision (a seat about to play, from trick ``FIRST_TRICK`` to
``LAST_TRICK``; on a share ``OWN_SHARE`` of hands the opening lead as well, on
``OWN_SAMPLES`` layouts) the analysis draws ``samples`` reference layouts of the hidden
cards: uniform among those agreeing with what the seat knew and with the real shape and
high-card points of each hidden hand (:func:`~.layouts.shape_layouts`; why the shape and
points: docs/FAIRPLAY.md, "The null"), and ``partner_samples`` more that keep the
partner's real hand as well. It solves each and the real layout with DDS
(:mod:`~.solver`, one batch a hand), and scores the card played on each: 1 when it is
double-dummy best, less the share of the legal cards that are best (the card played
against a legal card at random).

* the real layout's score less the reference layouts' mean is the decision's
  :attr:`~Decision.excess`: 0 on average for a seat that cannot see the hidden cards,
  whatever its skill;
* the partner-known layouts' mean less the reference mean is its
  :attr:`~Decision.partner_excess`: what knowing the partner's hand made of the card
  (0 on average for a seat that did not know it; the partnership statistic).

A decision with a single legal card, or with only cards the seat can tell are
equivalent, says nothing and is skipped (one whose legal cards are worth the same on
every reference layout drawn counts: left out, the others' reference mean would be
biased low against their real score).

What comes out per hand is a :class:`HandPlay`: one record of fourteen small integers
per decision, which the summary folds per player, per seat label and per partnership
(:mod:`~.summary`) and which a state store can keep as it is (:meth:`HandPlay.to_json`,
:meth:`HandPlay.from_json`).
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tarneeb.replay.fairplay.layouts import (
    InfoSet,
    actual_hands,
    infoset,
    leaders_of,
    shape_layouts,
)
from tarneeb.replay.fairplay.solver import Position, solve_many
from tarneeb.replay.rules.cards import SUIT_MASKS, Card, Mask
from tarneeb.replay.rules.scoring import Hand, partner_of

FIRST_TRICK = 6  # tricks counted from 1: from here on a solve costs about 0.5 ms or less
LAST_TRICK = 11  # the last two tricks are nearly always forced
SAMPLES = 6  # reference layouts per decision (the variance carries the Monte Carlo part)
PARTNER_SAMPLES = 5  # layouts per decision with the partner's hand known as well
FIELDS = 14  # integers in a decision's record
OWN_SHARE = 0.3  # share of hands whose opening lead is analysed (3 solves of 52 cards: ~130 ms)
OWN_SAMPLES = 2  # reference layouts for an opening lead (the most power per solve)


@dataclass(frozen=True, slots=True)
class Decision:
    """One analysed decision: the seat, the play's index in the hand (0–51), the card
    played, ``x`` (1: a double-dummy best card on the real layout), ``best`` (how many of
    the ``legal`` cards were best there), and over the ``samples`` reference layouts
    (the seat's information and the real shape): ``hits`` (on how many the card played
    was best), and the sums of ``b`` (the number of best legal cards on each), of ``b`` on
    the layouts that were hits, and of ``b²``; then over ``p_samples`` layouts drawn with
    the partner's real hand known as well (0: not drawn), ``p_hits`` and ``p_sum_b``."""

    seat: int
    index: int
    card: Card
    x: int
    best: int
    legal: int
    samples: int
    hits: int
    sum_b: int
    sum_hb: int
    sum_bb: int
    p_samples: int = 0
    p_hits: int = 0
    p_sum_b: int = 0

    @property
    def p(self) -> float:
        """The estimated chance that the card played is best, given the information."""
        return self.hits / self.samples

    @property
    def reference(self) -> float:
        """The score's mean over the reference layouts."""
        return (self.hits - self.sum_b / self.legal) / self.samples

    @property
    def excess(self) -> float:
        """The score: the card played against a legal card at random (best or not, less
        the share of best legal cards), on the real layout less on the reference ones."""
        return self.x - self.best / self.legal - self.reference

    @property
    def variance(self) -> float:
        """The score's variance, estimated from the reference layouts' scores and the real
        one together (see :func:`tarneeb.audit.fairness.scores.score`): a lead rarely best
        that is best on the real layout counts in it, where two draws that agree say 0."""
        legal, k = self.legal, self.samples
        y = self.x - self.best / legal
        total = self.hits - self.sum_b / legal + y
        squares = self.hits - 2 * self.sum_hb / legal + self.sum_bb / legal ** 2 + y * y
        return max(0.0, (squares - total * total / (k + 1)) / k) * (1 + 1 / k)

    @property
    def before_partner(self) -> bool:
        """Whether the seat chose before its partner played any card of the hand (the
        opening lead, or second hand to it): no play of the partner's can have told it
        where the cards lie, so its excess is its own (docs/FAIRPLAY.md, "Whose figure")."""
        return self.index < 2

    @property
    def partner_dependent(self) -> bool:
        """Whether knowing the partner's hand changed what the card played was worth: its
        mean score with the partner's hand known differs from the reference one (exactly,
        in integers). Only these decisions enter the partnership statistic; the others
        would add nothing to its sums."""
        legal = self.legal
        return bool(self.p_samples) and (
            self.samples * (self.p_hits * legal - self.p_sum_b)
            != self.p_samples * (self.hits * legal - self.sum_b))

    @property
    def partner_excess(self) -> float:
        """What knowing the partner's hand made of the card played: its mean score on
        layouts with the partner's real hand, less on the reference layouts."""
        if not self.partner_dependent:
            return 0.0
        return (self.p_hits - self.p_sum_b / self.legal) / self.p_samples - self.reference

    def row(self) -> list[int]:
        return [self.seat, self.index, self.card, self.x, self.best, self.legal,
                self.samples, self.hits, self.sum_b, self.sum_hb, self.sum_bb,
                self.p_samples, self.p_hits, self.p_sum_b]


@dataclass(frozen=True, slots=True)
class HandPlay:
    """The analysed decisions of one played hand (``deal_number`` as in the log)."""

    deal_number: int
    decisions: tuple[Decision, ...]

    def to_json(self) -> list[Any]:
        """A compact form: ``[deal_number, [[seat, index, card, x, best, legal, samples,
        hits, sum_b, sum_hb, sum_bb, p_samples, p_hits, p_sum_b], ...]]``."""
        return [self.deal_number, [d.row() for d in self.decisions]]

    @classmethod
    def from_json(cls, data: Any) -> HandPlay:
        """The record :meth:`to_json` wrote (raises ValueError on anything else)."""
        try:
            number, rows = data
            out = []
            for row in rows:
                v = [int(x) for x in row]
                if len(v) != FIELDS:
                    raise ValueError(f"a decision of {len(v)} fields: {row!r}")
                d = Decision(*v)
                if not (0 <= d.seat < 4 and 0 <= d.index < 52 and 0 <= d.card < 52
                        and d.x in (0, 1) and 1 <= d.best <= d.legal <= 13
                        and d.samples >= 2 and 0 <= d.hits <= d.samples
                        and 0 <= d.sum_hb <= d.sum_b <= d.samples * d.legal
                        and 0 <= d.sum_bb <= d.samples * d.legal ** 2
                        and 0 <= d.p_hits <= d.p_samples <= 64
                        and 0 <= d.p_sum_b <= d.p_samples * d.legal
                        and d.p_hits <= d.p_sum_b):
                    raise ValueError(f"a decision out of range: {row!r}")
                out.append(d)
            return cls(int(number), tuple(out))
        except (TypeError, ValueError) as e:
            raise ValueError(f"not a fair-play hand record: {e}") from None


def legal_cards(info: InfoSet) -> Mask:
    """The cards the seat may play: the led suit when it holds it, else any."""
    if info.trick:
        follow = info.own & SUIT_MASKS[info.trick[0] // 13]
        if follow:
            return follow
    return info.own


def _distinct(legal: Mask, info: InfoSet) -> bool:
    """Whether the legal cards are not all one run the seat can see is equivalent (two
    cards of a suit are, when every card between them is played or the seat's own)."""
    visible = ~(info.hidden | sum(info.known[s] for s in range(4) if s != info.seat))
    cards = [c for c in range(52) if legal >> c & 1]
    for a, b in itertools.pairwise(cards):
        if a // 13 != b // 13:
            return True
        between = ((1 << b) - 1) & ~((1 << (a + 1)) - 1)
        if between & ~visible:
            return True
    return False


def hand_rng(seed: bytes, match: bytes, deal_number: int) -> random.Random:
    """The Monte Carlo stream of one hand: from the audit's seed, the match and the hand."""
    digest = hashlib.sha256(b"tarneeb-fairplay\x00" + seed + match
                            + deal_number.to_bytes(4, "big")).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _tally(values: Sequence[dict[Card, int]], card: Card) -> tuple[int, int, int, int]:
    """Over layouts' values: hits (the card best), and the sums of b, of b on hits, of b²."""
    hits = sum_b = sum_hb = sum_bb = 0
    for v in values:
        top = max(v.values())
        b = sum(1 for t in v.values() if t == top)
        h = v[card] == top
        hits += h
        sum_b += b
        sum_hb += b * h
        sum_bb += b * b
    return hits, sum_b, sum_hb, sum_bb


def analyse_hand(hand: Hand, reveals: bool, rng: random.Random, samples: int = SAMPLES,
                 first_trick: int = FIRST_TRICK, last_trick: int = LAST_TRICK,
                 shares: Sequence[tuple[int, int]] = (),
                 partner_samples: int = PARTNER_SAMPLES, own_share: float = OWN_SHARE,
                 own_samples: int = OWN_SAMPLES, points: bool = True) -> HandPlay:
    """The decisions of a played hand (52 plays), analysed. ``shares``: pairs of seats
    analysed as if each saw the other's cards (no use in an audit: the simulations
    calibrate with it). With chance ``own_share`` (drawn from ``rng``, whatever the
    cards) the opening lead is analysed too, on ``own_samples`` reference layouts: the
    one decision of the hand no partner's play can have informed, and the dearest to
    solve (52 cards). Every decision's references keep each hidden hand's high-card
    points as well as its shape (``points``; docs/FAIRPLAY.md, "The null")."""
    if hand.cancelled or len(hand.plays) != 52:
        return HandPlay(hand.deal_number, ())
    sees = {a: (b,) for a, b in shares} | {b: (a,) for a, b in shares}
    pending: list[tuple[InfoSet, Card, int, int]] = []
    positions: list[Position] = []
    leaders = leaders_of(hand)
    lead = rng.random() < own_share and first_trick > 1
    for index in [0] * lead + list(range(4 * (first_trick - 1), 4 * last_trick)):
        t, p = divmod(index, 4)
        seat = (leaders[t] + p) & 3
        info = infoset(hand, index, reveals, sees.get(seat, ()))
        legal = legal_cards(info)
        if legal.bit_count() < 2 or not _distinct(legal, info):
            continue
        actual = actual_hands(hand, index)
        partner = partner_of(seat)
        k = own_samples if index < 4 * (first_trick - 1) else samples
        k_p = partner_samples if info.known[partner] != actual[partner] and index >= 2 else 0
        layouts = shape_layouts(info, actual, k, rng, points=points)
        layouts += shape_layouts(info, actual, k_p, rng, keep=(partner,), points=points)
        layouts.append(actual)
        positions.extend(Position(lay, info.leader, info.trick, hand.trump) for lay in layouts)
        pending.append((info, hand.plays[index], k, k_p))
    values = solve_many(positions)
    out = []
    at = 0
    for info, card, k, k_p in pending:
        rows = values[at:at + k + k_p + 1]
        at += k + k_p + 1
        # (every decision counts, its references' draws all ties or not: left out for
        # them, the others' reference mean would be biased low against their real score)
        sampled, known, actual_v = rows[:k], rows[k:-1], rows[-1]
        hits, sum_b, sum_hb, sum_bb = _tally(sampled, card)
        p_hits, p_sum_b, _, _ = _tally(known, card)
        top = max(actual_v.values())
        out.append(Decision(info.seat, info.index, card, int(actual_v[card] == top),
                            sum(1 for t in actual_v.values() if t == top), len(actual_v),
                            k, hits, sum_b, sum_hb, sum_bb, k_p, p_hits, p_sum_b))
    return HandPlay(hand.deal_number, tuple(out))


__all__ = ["FIELDS", "FIRST_TRICK", "LAST_TRICK", "OWN_SAMPLES", "OWN_SHARE", "PARTNER_SAMPLES",
           "SAMPLES", "Decision",
           "HandPlay", "analyse_hand", "hand_rng", "legal_cards"]
