"""Simulated card players for the fair-play analysis: honest ones of every skill, and
cheats who see cards they should not.

Every player bids as the package's bot (:class:`~tarneeb.replay.rules.players.BotPlayer`)
and differs only in how it chooses cards:

honest (they see only their own cards, the cards played, the bids, the revealed card)

* :class:`RandomCards`: any legal card;
* the package's :class:`~tarneeb.replay.rules.players.BotPlayer`;
* :class:`CardCounter`: the bot, plus what counting the cards shows: it plays a card
  that is the highest left in its suit when an opponent leads the trick, and does not
  lead a side suit an opponent has shown void in while trumps are out;
* :class:`MonteCarlo`: a single-dummy player: it draws layouts of the hidden cards that
  agree with what it has seen and with the bids (each other seat's dealt hand must be
  worth about its bid by the bot's own estimate), solves each with DDS and plays the
  card that takes most tricks over them;

cheats

* :class:`Peeker`: on a share ``rate`` of hands (1.0: every hand) it sees every hidden
  card and plays a double-dummy best card (the bot's card when that is one of them);
* a :class:`MonteCarlo` with ``sees_partner``: two such partners see each other's hands.

Players draw randomness only from their ``rng``. Everything here is for simulations and
benches: it is slow (DDS at every decision), and it is not an opponent for people.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tarneeb.replay.fairplay.layouts import actual_hands, infoset, leaders_of, sample_layouts
from tarneeb.replay.fairplay.solver import Position, solve, solve_many
from tarneeb.replay.rules.actions import BID_BASE, is_bid
from tarneeb.replay.rules.cards import FULL_DECK, SUIT_MASKS, Card, Mask
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.rules.players import BotPlayer, Move, Player, choose_card, estimate_tricks
from tarneeb.replay.rules.scoring import Hand, partner_of


def _legal(state: MatchState) -> list[Card]:
    return [a for a in state.legal_actions()]


@dataclass
class RandomCards:
    """Bids as the bot; plays any legal card, uniformly."""

    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def choose(self, state: MatchState) -> Move:
        if state.phase != Phase.PLAY:
            return BotPlayer(self.rng).choose(state)
        return Move(self.rng.choice(_legal(state)))


def _played_mask(hand: Hand) -> Mask:
    m = 0
    for c in hand.plays:
        m |= 1 << c
    return m


@dataclass
class CardCounter:
    """The bot, with what counting the cards adds (see the module)."""

    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def choose(self, state: MatchState) -> Move:
        if state.phase != Phase.PLAY:
            return BotPlayer(self.rng).choose(state)
        hand = state.hand_under_way
        seat = state.to_move
        own = state.hands[seat]
        unseen = FULL_DECK & ~_played_mask(hand) & ~own
        trick = state.trick
        legal = _legal(state)
        card = choose_card(state)
        trumps_out = state.trump is not None and unseen & SUIT_MASKS[state.trump]
        if not trick and trumps_out:
            info = infoset(hand, len(hand.plays), state.rules.reveals_card)
            opp_voids = info.voids[(seat + 1) & 3] | info.voids[(seat + 3) & 3]
            if opp_voids >> (card // 13) & 1 and card // 13 != state.trump:
                safe = [c for c in legal if not opp_voids >> (c // 13) & 1]
                if safe:
                    card = max(safe, key=lambda c: (c % 13, -c))
        elif trick and len(trick) == 1:  # an opponent led: take it with a master card
            masters = [c for c in legal if c // 13 == trick[0] // 13 and c > trick[0]
                       and not unseen & SUIT_MASKS[c // 13] & ~((1 << (c + 1)) - 1)]
            if masters:
                card = min(masters)
        return Move(card)


def bid_consistent(hand: Hand, layout: Sequence[Mask], seat: int, slack: float = 1.5,
                   ) -> bool:
    """Whether every other seat's dealt hand in ``layout`` (cards still held plus those it
    played) is worth its personal bid within ``slack`` tricks by the bot's estimate."""
    leaders = leaders_of(hand)
    played = [0, 0, 0, 0]
    for i, c in enumerate(hand.plays):
        t, p = divmod(i, 4)
        played[(leaders[t] + p) & 3] |= 1 << c
    for s, a in hand.calls:
        if s == seat or not is_bid(a):
            continue
        est = estimate_tricks(layout[s] | played[s], hand.trump)
        if abs(est - (a - BID_BASE)) > slack:
            return False
    return True


@dataclass
class MonteCarlo:
    """A single-dummy player (see the module): ``samples`` layouts a decision, from trick
    ``from_trick`` on (the bot's card before); ``sees_partner`` makes it a cheat who sees
    its partner's hand too; ``use_bids`` keeps only layouts agreeing with the bids."""

    rng: random.Random = field(default_factory=lambda: random.Random(0))
    samples: int = 8
    from_trick: int = 4
    sees_partner: bool = False
    use_bids: bool = True

    def choose(self, state: MatchState) -> Move:
        if state.phase != Phase.PLAY:
            return BotPlayer(self.rng).choose(state)
        legal = _legal(state)
        hand = state.hand_under_way
        if len(legal) == 1 or len(hand.plays) < 4 * (self.from_trick - 1):
            return Move(choose_card(state))
        seat = state.to_move
        sees = (partner_of(seat),) if self.sees_partner else ()
        info = infoset(hand, len(hand.plays), state.rules.reveals_card, sees)
        layouts = sample_layouts(info, self.samples * (4 if self.use_bids else 1), self.rng)
        if self.use_bids and state.rules.bidding == "personal":
            kept = [lay for lay in layouts if bid_consistent(hand, lay, seat)]
            layouts = (kept or layouts)[:self.samples]
        else:
            layouts = layouts[:self.samples]
        values = solve_many([Position(lay, info.leader, info.trick, hand.trump)
                             for lay in layouts])
        totals = {c: sum(v[c] for v in values) for c in legal}
        best = max(totals.values())
        bot = choose_card(state)
        return Move(bot if totals[bot] == best else
                    min(c for c in legal if totals[c] == best))


@dataclass
class Peeker:
    """A cheat: on a share ``rate`` of hands it sees every hidden card (see the module)."""

    rng: random.Random = field(default_factory=lambda: random.Random(0))
    rate: float = 1.0
    _hand: int = -1
    _peeking: bool = False

    def choose(self, state: MatchState) -> Move:
        if state.phase != Phase.PLAY:
            return BotPlayer(self.rng).choose(state)
        hand = state.hand_under_way
        if hand.deal_number != self._hand:
            self._hand = hand.deal_number
            self._peeking = self.rng.random() < self.rate
        bot = choose_card(state)
        legal = _legal(state)
        if not self._peeking or len(legal) == 1:
            return Move(bot)
        trick = tuple(state.trick)
        leader = leaders_of(hand)[len(hand.plays) // 4]
        values = solve(Position(actual_hands(hand, len(hand.plays)), leader, trick,
                                hand.trump))
        best = max(values.values())
        if values[bot] == best:
            return Move(bot)
        return Move(self.rng.choice([c for c in legal if values[c] == best]))


def table(kind: str, rng: random.Random) -> tuple[list[Player], tuple[str, ...],
                                                  tuple[bool, ...]]:
    """The players, names and labels of a simulated table of ``kind``: the suspect (or
    suspects) among honest bots and card counters. Kinds: ``honest`` (a random player,
    a bot, a card counter, a Monte Carlo player), ``peeker`` (sees every hand),
    ``peek30`` (peeks on 30 % of hands), ``computer30`` (both computer seats peek on 30 %
    of hands), ``partners`` (seats 0 and 2 see each other's hands, playing Monte Carlo),
    ``peekers`` (seats 0 and 2 both see every hand)."""
    r = [random.Random(rng.getrandbits(64)) for _ in range(4)]
    names = ("Random", "Bot", "Counter", "Monte Carlo")
    computer = (False, True, False, True)
    players: list[Player]
    if kind == "honest":
        players = [RandomCards(r[0]), BotPlayer(r[1]), CardCounter(r[2]), MonteCarlo(r[3])]
    elif kind in ("peeker", "peek30"):
        players = [Peeker(r[0], 1.0 if kind == "peeker" else 0.3), BotPlayer(r[1]),
                   CardCounter(r[2]), BotPlayer(r[3])]
        names = ("Suspect", "Bot", "Counter", "Bot 2")
    elif kind == "computer30":
        players = [CardCounter(r[0]), Peeker(r[1], 0.3), BotPlayer(r[2]), Peeker(r[3], 0.3)]
        names = ("Counter", "House 1", "Ann", "House 2")
    elif kind == "partners":
        players = [MonteCarlo(r[0], sees_partner=True), BotPlayer(r[1]),
                   MonteCarlo(r[2], sees_partner=True), CardCounter(r[3])]
        names = ("Pair A", "Bot", "Pair B", "Counter")
    elif kind == "peekers":
        players = [Peeker(r[0], 1.0), BotPlayer(r[1]), Peeker(r[2], 1.0), CardCounter(r[3])]
        names = ("Peek A", "Bot", "Peek B", "Counter")
    else:
        raise ValueError(f"unknown table {kind!r}")
    return players, names, computer


KINDS = ("honest", "peeker", "peek30", "computer30", "partners", "peekers")

__all__ = ["KINDS", "CardCounter", "MonteCarlo", "Peeker", "RandomCards", "bid_consistent",
           "simulate", "table", "write_play_archive"]


def simulate(kind: str, matches: int, rng: random.Random, rules: str = "eram41",
             samples: int | None = None) -> list[tuple[tuple[str, ...], tuple[bool, ...],
                                                       list[Hand]]]:
    """Play ``matches`` matches at tables of ``kind`` (:func:`table`); per match, its names,
    labels and played hands (no logs: the analysis needs only the hands)."""
    from tarneeb.replay.rules.players import MatchTooLong, play_match, shuffled_deals
    from tarneeb.replay.rules.ruleset import preset

    out = []
    for _ in range(matches):
        players, names, computer = table(kind, rng)
        try:
            state, _ = play_match(preset(rules), rng.randrange(4), shuffled_deals(rng), players,
                                  max_hands=60)
        except MatchTooLong as e:
            state = e.state
        out.append((names, computer, [h for h in state.history if not h.cancelled
                                      and len(h.plays) == 52]))
    return out


def write_play_archive(directory: str | Path, kind: str, matches: int, *,
                       seed: bytes = b"fairplay", rules: str = "eram41") -> list[Path]:
    """Write ``matches`` signed logs of tables of ``kind`` into ``directory`` (reproducible
    from ``seed``: NOT secret; tests and benches only); returns their paths."""
    from tarneeb.replay.server.simulate import play_logged_match

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(matches):
        match_seed = seed + b"/%d" % i
        players, names, computer = table(kind, random.Random(match_seed))
        p = out / f"m{i:05d}-{kind}.tlog"
        p.write_bytes(play_logged_match(rules, seed=match_seed, players=players, names=names,
                                        computer=computer))
        paths.append(p)
    return paths
