"""Computer players: legal, deterministic, steerable, fast, and sensible in simple spots."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import pytest

from tarneeb.replay.rules.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUIT_MASKS,
    deal_hands,
    mask_of,
    parse_card,
)
from tarneeb.replay.rules.engine import (
    BID_BASE,
    PASS,
    MatchState,
    Phase,
    bid_action,
    is_bid,
    trump_action,
)
from tarneeb.replay.rules.players import (
    BadMove,
    BotPlayer,
    MatchTooLong,
    Move,
    Player,
    RandomPlayer,
    choose_card,
    estimate_tricks,
    play_match,
    shuffled_deals,
)
from tarneeb.replay.rules.ruleset import PRESETS, preset

ALL = tuple(PRESETS)


def card(text: str) -> int:
    return parse_card(text)


def cards(text: str) -> int:
    return mask_of(parse_card(t) for t in text.split())


@dataclass
class Checked:
    """Wraps a player and asserts that every move it makes is allowed."""

    inner: Player
    moves: int = 0
    timer_moves: int = 0
    seen_phases: set[Phase] = field(default_factory=set)

    def choose(self, state: MatchState) -> Move:
        move = self.inner.choose(state)
        assert state.check(move.action) is None, state.check(move.action)
        assert move.action in state.legal_actions()
        if move.timer:
            assert move.action in state.timer_actions()
            self.timer_moves += 1
        self.moves += 1
        self.seen_phases.add(state.phase)
        return move


def bots(seed: int, **knobs: object) -> list[BotPlayer]:
    return [BotPlayer(random.Random(seed * 4 + s), **knobs) for s in range(4)]  # type: ignore[arg-type]


def run(name: str, seed: int, players: list, max_hands: int = 500, **options: int
        ) -> tuple[MatchState, list]:
    return play_match(preset(name, **options), seed % 4, shuffled_deals(random.Random(seed)),
                      players, max_hands=max_hands)


def summary(state: MatchState) -> list:
    return [(h.dealer, h.trump, h.calls, h.plays, h.scores, h.totals) for h in state.history]


# ---------------------------------------------------------------------------- whole matches

@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("seed", range(6))
def test_bot_match_ends_with_a_winner_and_only_legal_moves(name: str, seed: int) -> None:
    players = [Checked(b) for b in bots(seed, timer_rate=0.1)]
    state, flags = run(name, seed, players)
    assert state.is_over and state.winner in (0, 1)
    assert state.history[-1].winner == state.winner
    assert all(h.winner is None for h in state.history[:-1])
    assert sum(p.moves for p in players) == sum(len(f) for f in flags)
    assert sum(p.timer_moves for p in players) == sum(map(sum, flags))


@pytest.mark.parametrize("name", ALL)
def test_timer_flags_line_up_with_each_hands_moves(name: str) -> None:
    state, flags = run(name, 11, bots(11, timer_rate=0.3))
    assert len(flags) == len(state.history)
    for hand, f in zip(state.history, flags, strict=True):
        trump_choice = 1 if hand.declarer is not None else 0
        assert len(f) == len(hand.calls) + trump_choice + len(hand.plays)
    assert any(map(any, flags))


def bid_4(s: MatchState) -> Move | None:
    return Move(bid_action(4)) if s.phase == Phase.BID and s.rules.bidding == "personal" \
        else None


@pytest.mark.parametrize("name", ALL)
def test_every_move_by_the_timer(name: str) -> None:
    # the timer alone never gets past the bidding (personal: 2+2+2+2 < 11; auction: four
    # passes), so the bids of personal sets are forced to 4 and only the plays are left
    players = [Checked(BotPlayer(random.Random(s), timer_rate=1.0, override=bid_4))
               for s in range(4)]
    with pytest.raises(MatchTooLong) as err:
        run(name, 3, players, max_hands=5)
    state, flags = err.value.state, err.value.timer_flags
    assert len(state.history) == len(flags) == 5
    for hand, f in zip(state.history, flags, strict=True):
        if name == "classic":
            assert hand.cancelled and f == [True] * 4
        else:
            assert f == [False] * 4 + [True] * 52
    assert sum(p.timer_moves for p in players) == sum(map(sum, flags)) > 0


@pytest.mark.parametrize("name", ALL)
def test_random_players_make_legal_moves(name: str) -> None:
    players = [Checked(RandomPlayer(random.Random(s), timer_rate=0.2)) for s in range(4)]
    with pytest.raises(MatchTooLong) as err:  # random bids rarely win a match
        run(name, 5, players, max_hands=8)
    assert len(err.value.state.history) == 8
    assert sum(p.moves for p in players) > 8 * 4


@pytest.mark.parametrize("name", ALL)
def test_same_seeds_same_match(name: str) -> None:
    def players(seed: int) -> list[BotPlayer]:
        out = bots(seed, timer_rate=0.2)
        out[0].bid_shift = 1
        return out

    a, fa = run(name, 21, players(21))
    b, fb = run(name, 21, players(21))
    assert summary(a) == summary(b) and fa == fb and a.winner == b.winner
    c, _ = run(name, 22, players(22))
    assert summary(c) != summary(a)


def test_bot_match_is_fast() -> None:
    times = []
    for seed in range(5):
        start = time.perf_counter()
        run("eram41", seed, bots(seed))
        times.append(time.perf_counter() - start)
    assert sorted(times)[2] < 0.1


def test_too_many_hands_raises() -> None:
    never_bid = BotPlayer(override=lambda s: Move(PASS) if s.phase == Phase.BID else None)
    with pytest.raises(MatchTooLong, match="no winner after 12 hands"):
        play_match(preset("classic"), 0, shuffled_deals(random.Random(1)), [never_bid] * 4,
                   max_hands=12)


def test_an_illegal_move_is_refused() -> None:
    bad = BotPlayer(override=lambda s: Move(bid_action(1)) if s.phase == Phase.BID else None)
    with pytest.raises(BadMove, match="bid 1"):
        play_match(preset("eram41"), 0, shuffled_deals(random.Random(1)), [bad] * 4)


def test_a_timer_move_the_rules_do_not_give_is_refused() -> None:
    def fake_timer(s: MatchState) -> Move | None:
        return Move(bid_action(5), timer=True) if s.phase == Phase.BID else None
    with pytest.raises(BadMove, match="timer move bid 5"):
        play_match(preset("eram41"), 0, shuffled_deals(random.Random(1)),
                   [BotPlayer(override=fake_timer)] * 4)


def test_play_match_needs_four_players() -> None:
    with pytest.raises(ValueError, match="4 players"):
        play_match(preset("eram41"), 0, shuffled_deals(random.Random(1)), bots(0)[:3])


def test_deals_get_the_deal_number_and_dealer() -> None:
    asked = []
    inner = shuffled_deals(random.Random(9))

    def deals(number: int, dealer: int):  # type: ignore[no-untyped-def]
        asked.append((number, dealer))
        return inner(number, dealer)

    state, _ = play_match(preset("qahwa41"), 2, deals, bots(9))
    assert asked == [(k, (2 + k) % 4) for k in range(len(state.history))]


# ---------------------------------------------------------------------------- steering

def first_hand_bids(name: str, seed: int, **knobs: object) -> list[int]:
    state = MatchState(preset(name), 0)
    state.deal(*shuffled_deals(random.Random(seed))(0, 0))
    players = bots(seed, **knobs)
    bids = []
    while state.phase == Phase.BID:
        a = players[state.current_player].choose(state).action
        bids.append(a - BID_BASE if is_bid(a) else None)
        state.apply(a)
    return bids


@pytest.mark.parametrize("name", ["eram41", "qahwa41", "sahrat41", "sahrat400"])
def test_bid_shift_moves_personal_bids(name: str) -> None:
    for seed in range(5):
        base = first_hand_bids(name, seed)
        up = first_hand_bids(name, seed, bid_shift=3)
        down = first_hand_bids(name, seed, bid_shift=-13)
        assert all(b <= u <= b + 3 for u, b in zip(up[:3], base[:3], strict=True))
        assert sum(up) > sum(base)
        assert down == [2, 2, 2, 2]


def test_bid_shift_down_cancels_every_hand() -> None:
    with pytest.raises(MatchTooLong):
        play_match(preset("eram41"), 0, shuffled_deals(random.Random(4)),
                   bots(4, bid_shift=-13), max_hands=30)


def test_bid_shift_up_fails_bids_and_goes_below_zero() -> None:
    players = bots(4)
    players[0].bid_shift = 4
    state, _ = run("qahwa41", 4, players)
    played = [h for h in state.history if not h.cancelled]
    failed = [h for h in played if h.tricks[0] < h.bid_of(0)]
    assert len(failed) > len(played) // 2
    assert min(h.totals[0] for h in state.history) < 0


def test_bid_shift_and_aggression_in_the_auction() -> None:
    quiet = [first_hand_bids("classic", seed, bid_shift=-13) for seed in range(5)]
    assert all(b == [None] * 4 for b in quiet)
    bold = [first_hand_bids("classic", seed, aggression=10) for seed in range(5)]
    assert all(13 in b for b in bold)


def test_override_is_consulted_first() -> None:
    def seat0_bids_13(s: MatchState) -> Move | None:
        if s.phase == Phase.BID and s.current_player == 0:
            return Move(bid_action(13))
        return None

    players = bots(2, timer_rate=1.0)
    players[0] = BotPlayer(random.Random(0), timer_rate=1.0, override=seat0_bids_13)
    state, flags = run("qahwa41", 2, players)
    for hand, f in zip(state.history, flags, strict=True):
        assert hand.bid_of(0) == 13
        i = next(k for k, (seat, _) in enumerate(hand.calls) if seat == 0)
        assert f[i] is False


# ---------------------------------------------------------------------------- bidding

def test_estimate_counts_high_cards_and_trumps() -> None:
    weak = cards("2C 3C 4C 5C 6C 7C 2D 3D 4D 5D 2S 3S 4S")
    strong = cards("AH KH QH JH 10H AS KS AC KC AD 2D 3D 4D")
    assert estimate_tricks(weak, HEARTS) < 1 < 8 < estimate_tricks(strong, HEARTS)
    # the same cards are worth more with their long suit as trump
    assert estimate_tricks(strong, HEARTS) > estimate_tricks(strong, CLUBS)


def test_personal_bid_follows_the_hand() -> None:
    # qahwa41, dealer 3: seat 0 holds all 13 hearts (trump), seat 1 all clubs
    state = MatchState(preset("qahwa41"), 3)
    state.deal((SUIT_MASKS[HEARTS], SUIT_MASKS[CLUBS], SUIT_MASKS[DIAMONDS],
                SUIT_MASKS[SPADES]))
    bid = BotPlayer().choose(state).action - BID_BASE
    assert bid >= 11
    state.apply(bid_action(bid))
    assert BotPlayer().choose(state).action == bid_action(2)


def test_personal_bid_respects_the_400_minimum() -> None:
    state = MatchState(preset("sahrat400"), 3)
    state.totals = [52, 0, 0, 0]  # the scoreboard before the hand: seat 0 must bid 5+
    state.deal((SUIT_MASKS[CLUBS], SUIT_MASKS[HEARTS], SUIT_MASKS[DIAMONDS],
                SUIT_MASKS[SPADES]))
    assert BotPlayer().choose(state).action == bid_action(5)
    assert BotPlayer(bid_shift=-5).choose(state).action == bid_action(5)


def test_dealer_tops_up_to_avoid_a_cancelled_hand() -> None:
    state = MatchState(preset("eram41"), 3)
    deck = list(range(52))
    random.Random(3).shuffle(deck)
    state.deal(deal_hands(deck, 3), deck[51])
    for n in (2, 2, 2):
        state.apply(bid_action(n))
    top = BotPlayer(aggression=13).choose(state).action
    assert top == bid_action(5)  # 6 + 5 = 11, the table minimum
    assert BotPlayer(aggression=13, bid_shift=-13).choose(state).action == bid_action(2)


def test_auction_strong_hand_bids_weak_hand_passes() -> None:
    state = MatchState(preset("classic"), 3)
    state.deal((cards("AS KS QS JS 10S 9S AH KH AD KD AC 2C 3C"),
                cards("2S 3S 4S 2H 3H 4H 5H 2D 3D 4D 5D 4C 5C"),
                cards("5S 6S 7S 6H 7H 8H 9H 6D 7D 8D 9D 6C 7C"),
                cards("8S 10H JH QH 10D JD QD 8C 9C 10C JC QC KC")))
    assert BotPlayer().choose(state).action == bid_action(7)
    state.apply(bid_action(7))
    assert BotPlayer().choose(state).action == PASS
    state.apply(PASS)
    state.apply(PASS)
    state.apply(PASS)
    assert state.phase == Phase.TRUMP
    assert BotPlayer().choose(state).action == trump_action(SPADES)


# ---------------------------------------------------------------------------- card play

# qahwa41 (hearts trump), dealer 3: seat 0 leads the first trick.
HANDS = (
    "5S AS 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC",
    "3S 9S KS 2H 3H 4H 5H 6H 7H 8H 2D 3D 4D",
    "2S 10S QS JS 9H 10H JH QH KH AH 5D 6D 7D",
    "4S 6S 7S 8S KC AC 8D 9D 10D JD QD KD AD",
)


def dealt() -> MatchState:
    state = MatchState(preset("qahwa41"), 3)
    state.deal(tuple(cards(h) for h in HANDS))  # type: ignore[arg-type]
    for _ in range(4):
        state.apply(bid_action(3))
    return state


def test_lead_the_highest_card_left_in_a_suit() -> None:
    assert choose_card(dealt()) == card("AS")


def test_follow_with_the_lowest_card_that_wins() -> None:
    state = dealt()
    state.apply(card("5S"))
    assert choose_card(state) == card("9S")  # not the K♠
    state.apply(card("9S"))
    assert choose_card(state) == card("10S")
    state.apply(card("10S"))
    assert choose_card(state) == card("4S")  # cannot win: the lowest


def test_partner_winning_play_low() -> None:
    state = dealt()
    state.apply(card("AS"))
    assert choose_card(state) == card("3S")
    state.apply(card("3S"))
    assert choose_card(state) == card("2S")  # the partner's A♠ is winning


def test_void_trump_in_and_overtrump_only_when_an_opponent_wins() -> None:
    state = dealt()
    state.apply(card("2C"))
    assert choose_card(state) == card("2H")  # the lowest trump
    state.apply(card("2H"))
    assert choose_card(state) == card("9H")  # the lowest trump that beats the 2♥
    state.apply(card("9H"))
    assert choose_card(state) == card("KC")  # must follow, cannot win


def test_void_with_partner_winning_discards_the_lowest() -> None:
    state = dealt()
    state.apply(card("QC"))
    state.apply(card("2D"))
    assert choose_card(state) == card("2S")  # not a trump


def test_bot_play_matches_choose_card_without_timer() -> None:
    state = dealt()
    assert BotPlayer().choose(state) == Move(card("AS"), timer=False)
    assert BotPlayer(timer_rate=1.0).choose(state) == Move(card("2C"), timer=True)
