"""Archives of dealt hands without logs: fair, or with one cheat, for the statistics' tests.

A generated *log* archive (:mod:`tarneeb.testing.archive`) costs a replay per match; the
calibration of the fairness tests needs thousands of archives, so here the deals go
straight to the same measures (:func:`~tarneeb.replay.archive.battery.measures.tally_match`) and
the same results (:func:`~tarneeb.replay.archive.audit.fairness_results`) as an audit's,
as the engine's ``Hand`` records would. A match is a run of deals, the dealer in turn
from a random first, each team scoring a random 0–13 after each deal (the state a
dishonest platform could steer by).

Each cheat (``CHEATS``, and the rigging of ``RIGGING``) is the platform re-dealing, with
probability ``strength``, a deal that does not suit it:

* ``player``: one named player (``Rami``) across matches gets the better of two deals;
  ``player in one rule set``: in ``classic`` matches only (a fifth of them);
* ``table seat``: seat 1 gets the better of two deals, whoever deals;
* ``team``: seats 1 and 3 get the better of two deals;
* ``honours``: seat 1 trades a king and a jack for another hand's ace and low card
  (its points unchanged, its aces up, its kings down);
* ``match state``: the side behind gets the better of two deals;
* ``first dealer``: the first dealer is a computer seat;
* ``repeat``: a deal of the archive dealt again, its hands to other seats;
* ``serial``: of two deals, the one whose points for seats 1 and 3 are nearer the deal
  before's (streaks: a side's luck lasts);
* ``shuffle``: a biased shuffle, Fisher-Yates with an off-by-one from a deck in order
  (:func:`off_by_one_shuffle`: no card stays in its place), for every deal whatever the
  strength;
* ``long suits``: seat 1 gets the deal of two with more long suits (5 cards or more);
* ``voids``: seats 1 and 3 get the deal of two with more voids;
* ``close to the target``: the side alone within a quarter of the target gets the better
  of two deals (to end the match);
* ``late comeback``: the side behind gets the better of two deals, from the match's
  middle deal on;
* ``rule set``: in ``classic`` matches only, the first hand dealt (``dealer+1``) gets the
  better of two deals;
* ``seed space``: every deal shuffled by a generator seeded from only ``SEEDS`` (2^20)
  seeds, whatever the strength (whole deals repeat: the birthday bound);
* ``riffle``: every deal a deck in new-deck order (card ``c`` at position ``c``) given
  ``RIFFLES`` riffle shuffles (Gilbert–Shannon–Reeds: a binomial cut, then cards dropped
  from each packet in proportion to its size) and a cut, dealt one card a seat;
* ``first deal``: the computer seats get the better of two deals, on the first deal of
  each match only;
* ``behind late``: a named player's side (``FAVOURED``'s) gets the worse of two deals
  when it is behind in the second half of the match;
* ``consecutive matches``: the side of seats 1 and 3 lucky in the match before (more than
  20 points a deal) gets the better of two deals in this one, the other side when not
  (each match stands at the next leaf of one season, as a platform's seasons order them);
* ``near repeat``: a weak shuffle: a deck of the archive dealt again with ``NEAR_SWAPS``
  pairs of its cards swapped, each pair between two hands (hands that share 12 of their
  13 cards with an earlier one, and never the same deal again);
* ``partners fit``: seats 1 and 3 get the deal of two whose suits fit better (the sum
  over suits of their lengths multiplied);
* ``drift``: the human seats get the better of two deals early in the archive and the
  computer seats late, the more the further from its middle (``strength`` of the deals at
  either end, none halfway: the archive as a whole favours no label);
* ``player balance``: the side whose players had the worse luck in their match before
  gets the better of two deals (luck made up from one of a player's matches to the
  next).
* ``trump ace``: where the deal fixes the trump, a computer seat holding a side ace and a
  low trump takes, with probability ``strength``, a human hand's trump ace and a low card
  of the ace's suit for them: the points, aces, kings, trump counts and every suit's
  length of each hand unchanged, only the trump honours' points moved.

Each match's score goes to the side with more points in the deal when it has 4 more
(else to a side at random), so the state of a match depends on the deals before it, as
in play.

Reproducible from the ``random.Random`` given (NOT secret: tests and benches only).

>>> import random
>>> t = synthetic_archive(random.Random(1), 4, 5)
>>> sorted(t), sum(n for k, n in t["recorded"].counts.items() if k[0] == "fit"  # matches
...                and k[1][0] == "first dealer" and k[1][1] == "all")
(['proven', 'recorded'], 3)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from tarneeb.audit.fairness import Tally
from tarneeb.replay.archive.battery.measures import deal_value, hcp, suit_lengths, tally_match
from tarneeb.replay.rules.cards import deal_hands
from tarneeb.replay.rules.ruleset import PRESETS

CHEATS = ("player", "table seat", "team", "honours", "match state", "first dealer", "repeat",
          "serial", "shuffle", "long suits", "voids", "close to the target", "late comeback",
          "rule set", "consecutive matches", "signing key", "player in one rule set")
# the rigging a platform would really do (docs/ARCHIVE.md, "The threats"): each flagged
# at 1,000 matches or fewer, measured by bench/bench_threats.py
RIGGING = ("seed space", "riffle", "first deal", "behind late", "near repeat", "partners fit",
           "drift", "player balance", "trump ace")
NEAR_SWAPS = 2  # pairs of cards swapped in a deck dealt again (the ``near repeat`` cheat)
SEEDS = 1 << 20  # the seed space of the ``seed space`` cheat
RIFFLES = 3  # riffle shuffles of the ``riffle`` cheat
PLAYERS = ("Rami", "Lina", "Omar", "Sara", "Karim", "Nour", "Ziad", "Dana", "Hadi", "Maya",
           "Fadi", "Rana")
FAVOURED = "Rami"
_SEASON = b"synthetic season root" + bytes(11)  # where the matches stand, in order
_ACES = [13 * s + 12 for s in range(4)]
_KINGS = [13 * s + 11 for s in range(4)]
_JACKS = [13 * s + 9 for s in range(4)]


def _shuffled(rng: random.Random) -> list[int]:
    deck = list(range(52))
    rng.shuffle(deck)
    return deck


def random_deal_value(rng: random.Random) -> bytes:
    """A fair deal's value as the repeated deals' test keeps it (:func:`deal_value`)."""
    deck = _shuffled(rng)
    a, b, c = (sum(1 << x for x in deck[13 * i:13 * i + 13]) for i in range(3))
    return deal_value(a, b, c)


def off_by_one_shuffle(rng: random.Random) -> list[int]:
    """Fisher-Yates with an off-by-one, from a deck in order: position ``i`` swapped with
    one before it (``randrange(i)``, not ``randrange(i + 1)``). That is Sattolo's
    algorithm: it makes only cyclic orders, so no card ever stays in its place."""
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = rng.randrange(i)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def off_by_one_placement() -> list[list[float]]:
    """The exact probability that :func:`off_by_one_shuffle` deals card ``c`` to the seat
    ``g`` places after the dealer (position ``i`` to ``dealer + 1 + i``): every position
    but its own, ``1 / 51`` each."""
    return [[sum(1 / 51 for i in range(52) if i != c and (1 + i) % 4 == g) for g in range(4)]
            for c in range(52)]


def _trade_honours(rng: random.Random, deck: list[int], dealer: int) -> list[int]:
    """Seat 0's king and jack for another hand's ace and a low card (points unchanged)."""
    hands = deal_hands(deck, dealer)
    where = {c: i for i, c in enumerate(deck)}
    seat_of = {c: s for s in range(4) for c in range(52) if hands[s] >> c & 1}
    mine = [c for c in deck if seat_of[c] == 0]
    k = next((c for c in mine if c in _KINGS), None)
    j = next((c for c in mine if c in _JACKS), None)
    a = next((c for c in _ACES if seat_of[c] != 0 and where[c] != 51), None)
    if k is None or j is None or a is None:
        return deck
    low = next((c for c in deck if seat_of[c] == seat_of[a] and c % 13 < 9 and where[c] != 51),
               None)
    if low is None or where[k] == 51 or where[j] == 51:
        return deck
    out = list(deck)
    out[where[k]], out[where[a]] = a, k
    out[where[j]], out[where[low]] = low, j
    return out


def riffle_shuffle(rng: random.Random, riffles: int = RIFFLES) -> list[int]:
    """A deck in new-deck order given ``riffles`` riffle shuffles (Gilbert–Shannon–Reeds)
    and a cut, as a person shuffles: each riffle cuts the deck binomially and drops the
    next card from a packet with probability in proportion to the cards it has left."""
    deck = list(range(52))
    for _ in range(riffles):
        cut = sum(rng.random() < 0.5 for _ in range(52))
        left, right, out = deck[:cut], deck[cut:], []
        i = j = 0
        while i < len(left) or j < len(right):
            if rng.random() * (len(left) - i + len(right) - j) < len(left) - i:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
        deck = out
    cut = rng.randrange(52)
    return deck[cut:] + deck[:cut]


def _deal(rng: random.Random, dealer: int, cheat: str | None, strength: float,
          favoured: Sequence[int], behind: int | None, past: list[list[int]],
          last: int | None = None, worse: bool = False) -> list[int]:
    if cheat == "shuffle":
        return off_by_one_shuffle(rng)
    if cheat == "seed space":
        deck = list(range(52))
        random.Random(rng.randrange(SEEDS)).shuffle(deck)
        return deck
    if cheat == "riffle":
        return riffle_shuffle(rng)
    deck = _shuffled(rng)
    if cheat == "near repeat":
        if not past or rng.random() >= strength:
            past.append(deck)
            return deck
        deck = list(rng.choice(past))
        for _ in range(NEAR_SWAPS):  # two cards of different hands: never the same deal
            i = rng.randrange(52)
            j = rng.choice([k for k in range(52) if (k - i) % 4])
            deck[i], deck[j] = deck[j], deck[i]
        return deck
    if cheat is None or rng.random() >= strength:
        past.append(deck)
        return deck
    if cheat == "repeat":
        return rng.choice(past) if past else deck
    if cheat == "serial":
        if last is None:
            return deck
        other = _shuffled(rng)

        def gap(d: list[int]) -> int:
            hs = deal_hands(d, dealer)
            return abs(hcp(hs[0]) + hcp(hs[2]) - last)

        return other if gap(other) < gap(deck) else deck
    if cheat == "honours":
        return _trade_honours(rng, deck, dealer)
    if cheat == "match state":
        if behind is None:
            return deck
        favoured = (behind, behind + 2)
    if cheat in ("first dealer",) or not favoured:
        return deck
    other = _shuffled(rng)

    def points(d: list[int]) -> int:
        hs = deal_hands(d, dealer)
        if cheat == "partners fit":
            return sum(a * b for a, b in zip(suit_lengths(hs[0]), suit_lengths(hs[2]),
                                             strict=True))
        if cheat in ("long suits", "voids"):
            return sum(1 for s in favoured for k in suit_lengths(hs[s])
                       if (k >= 5 if cheat == "long suits" else k == 0))
        return sum(hcp(hs[s]) for s in favoured)

    if worse:
        return other if points(other) < points(deck) else deck
    return other if points(other) > points(deck) else deck


def synthetic_match(tally: Tally, rng: random.Random, rules: str, deals: int,
                    cheat: str | None = None, strength: float = 0.5,
                    past: list[list[int]] | None = None, leaf: int | None = None,
                    luck: list[int] | None = None, progress: float = 1.0,
                    players: dict[str, int] | None = None) -> int:
    """One match of ``deals`` deals into ``tally`` (as an audit would add it); ``past``,
    the decks dealt before (the archive's, for ``repeat``); ``leaf``, its index in the
    season; ``luck``, seats 1 and 3's points over 20 a deal in each match before (this
    one's is appended); ``progress``, how far into the archive it stands (0 to 1);
    ``players``, each player's side's points over 20 a deal in their match before."""
    past = [] if past is None else past
    luck = [] if luck is None else luck
    computer = tuple(rng.random() < 0.5 for _ in range(4))
    names = rng.sample(PLAYERS, 4)
    first = rng.randrange(4)
    if cheat == "first dealer" and any(computer) and rng.random() < strength:
        first = rng.choice([s for s in range(4) if computer[s]])
    # ``signing key``: the archive's matches under two keys, the bias under one only
    key = rng.choice(("platform", "platform B")) if cheat == "signing key" else "platform"
    seats = {"table seat": (0,), "team": (0, 2), "long suits": (0,), "voids": (0, 2),
             "partners fit": (0, 2)}.get(cheat or "", ())
    players = {} if players is None else players
    if cheat == "drift":
        seats = tuple(s for s in range(4) if computer[s] == (progress >= 0.5))
        strength *= abs(2 * progress - 1)
    if cheat == "player balance":
        before = [sum(players.get(names[s], 0) for s in (t, t + 2)) for t in (0, 1)]
        seats = () if before[0] == before[1] else (0, 2) if before[0] < before[1] else (1, 3)
    cut = -(-3 * PRESETS[rules].target // 4)
    if (cheat == "player" or (cheat == "player in one rule set" and rules == "classic")) \
            and FAVOURED in names:
        seats = (names.index(FAVOURED),)
    totals = [0, 0]
    records: list[Any] = []
    for k in range(deals):
        dealer = (first + k) % 4
        behind = None if totals[0] == totals[1] else int(totals[1] < totals[0])
        last = hcp(records[-1].hands[0]) + hcp(records[-1].hands[2]) if records else None
        aim = seats
        if cheat == "close to the target" and (totals[0] >= cut) != (totals[1] >= cut):
            aim = (0, 2) if totals[0] >= cut else (1, 3)
        elif cheat == "late comeback" and behind is not None and 2 * k >= deals:
            aim = (behind, behind + 2)
        elif ((cheat == "rule set" and rules == "classic")
              or (cheat == "signing key" and key == "platform B")):
            aim = ((dealer + 1) % 4,)
        elif cheat == "consecutive matches" and luck:
            aim = (0, 2) if luck[-1] > 0 else (1, 3)
        elif cheat == "first deal":
            aim = tuple(s for s in range(4) if computer[s]) if k == 0 else ()
        elif cheat == "behind late":
            mine = names.index(FAVOURED) % 2 if FAVOURED in names else None
            aim = (mine, mine + 2) if (mine is not None and behind == mine
                                       and 2 * k >= deals) else ()
        deck = _deal(rng, dealer, cheat, strength, aim, behind, past, last,
                     worse=cheat == "behind late")
        if cheat == "trump ace" and rng.random() < strength:
            _trump_ace_to_computers(deck, dealer, PRESETS[rules].trump_for_deal(deck[51]),
                                    computer)
        trump = rng.randrange(4)
        side, won = rng.randrange(2), rng.randrange(14)
        hs = deal_hands(deck, dealer)
        gap = hcp(hs[0] | hs[2]) - hcp(hs[1] | hs[3])
        totals[side if abs(gap) < 4 else int(gap < 0)] += won
        records.append(SimpleNamespace(
            hands=hs, dealer=dealer, thirteenth=deck[51],
            totals=[totals[0], totals[1], totals[0], totals[1]], declarer=rng.randrange(4),
            trump=trump, cancelled=False))
    luck.append(sum(hcp(r.hands[0] | r.hands[2]) - 20 for r in records))
    for seat, name in enumerate(names):
        players[name] = luck[-1] if seat % 2 == 0 else -luck[-1]
    return tally_match(tally, PRESETS[rules], computer, key, records, names,
                       None if leaf is None else (_SEASON, leaf))


def _trump_ace_to_computers(deck: list[int], dealer: int, trump: int | None,
                            computer: Sequence[bool]) -> None:
    """The ``trump ace`` cheat, in place: a human hand's trump ace and a low card of a
    suit ``S`` for a computer hand's ace of ``S`` and a low trump (never the dealer's shown
    card, ``deck[51]``)."""
    if trump is None:
        return
    seat_of = [(dealer + 1 + i) % 4 for i in range(52)]
    at = {card: i for i, card in enumerate(deck)}
    ace = at[13 * trump + 12]
    if computer[seat_of[ace]] or ace == 51:
        return
    human = seat_of[ace]

    def low(seat: int, suit: int) -> int | None:
        return next((at[c] for c in range(13 * suit, 13 * suit + 9)
                     if seat_of[at[c]] == seat and at[c] != 51), None)

    for c in (s for s in range(4) if computer[s]):
        for suit in (x for x in range(4) if x != trump):
            side, mine, theirs = at[13 * suit + 12], low(c, trump), low(human, suit)
            if seat_of[side] == c and side != 51 and mine is not None and theirs is not None:
                deck[ace], deck[side] = deck[side], deck[ace]
                deck[mine], deck[theirs] = deck[theirs], deck[mine]
                return


def synthetic_archive(rng: random.Random, matches: int, deals: int = 10,
                      cheat: str | None = None, strength: float = 0.5,
                      recorded_share: float = 0.5) -> dict[str, Tally]:
    """An archive's tallies by origin: each match proven or recorded at random (a cheat is
    in the recorded ones), rule sets at random, the matches at leaves 0, 1, ... of one
    season."""
    out = {"proven": Tally(), "recorded": Tally()}
    names = list(PRESETS)
    past: list[list[int]] = []
    luck: list[int] = []
    players: dict[str, int] = {}
    for leaf in range(matches):
        origin = "recorded" if rng.random() < recorded_share else "proven"
        synthetic_match(out[origin], rng, rng.choice(names), deals,
                        cheat if origin == "recorded" else None, strength, past, leaf, luck,
                        leaf / max(1, matches - 1), players)
    return {o: t for o, t in out.items() if t}


__all__ = ["CHEATS", "FAVOURED", "NEAR_SWAPS", "PLAYERS", "RIFFLES", "RIGGING", "SEEDS",
           "off_by_one_placement", "off_by_one_shuffle", "random_deal_value", "riffle_shuffle",
           "synthetic_archive", "synthetic_match"]
