"""The engine against RULES.md, one rule at a time, for every rule set that has the rule.

Deals are built by hand from card lists. Two layouts carry most of the scoring tests,
played out with every seat taking the lowest legal card (by card number, so clubs
first and spades last):

* ``one_suit_each``: every seat holds one whole suit. The seat holding the trump suit
  takes all 13 tricks (it trumps every lead, then leads trumps).
* ``nine_four``: seat ``a`` holds the nine top trumps and the four lowest cards of a
  side suit ``x``; seat ``b`` holds the nine top ``x`` and the four lowest trumps; the
  other two seats hold one whole suit each. When ``a`` or ``b`` leads the first trick,
  ``a`` takes 9 tricks and ``b`` 4 (``b`` wins the ``x`` tricks while ``a`` still has
  to follow, ``a`` wins every trump trick and every ``x`` trick it can ruff).

Where a test needs a score state it sets ``state.totals`` before the deal: that is
setting up the scoreboard, as if earlier hands had been played.
"""

from __future__ import annotations

import random

import pytest

from tarneeb.replay.rules.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUIT_MASKS,
    Card,
    Mask,
    cards_of,
    colour_mate,
    deal_hands,
    make_card,
    mask_of,
    parse_card,
    suit_of,
)
from tarneeb.replay.rules.engine import (
    PASS,
    IllegalAction,
    MatchState,
    Phase,
    bid_action,
    check_deal,
    trump_action,
)
from tarneeb.replay.rules.ruleset import preset

PERSONAL = ("eram41", "qahwa41", "sahrat41", "sahrat400")
REVEALED = ("eram41", "sahrat41")
HEARTS_ALWAYS = ("qahwa41", "sahrat400")
TEAM_TOTAL = ("eram41", "qahwa41")
HIGHEST_PLAYER = ("sahrat41", "sahrat400")

Hands = tuple[Mask, Mask, Mask, Mask]


# ---------------------------------------------------------------------------- helpers

def card(text: str) -> Card:
    return parse_card(text)


def cards(text: str) -> Mask:
    return mask_of(parse_card(t) for t in text.split())


def run(suit: int, low: int, high: int) -> Mask:
    """Ranks ``low``..``high`` (0 = 2 … 12 = ace) of ``suit``."""
    return mask_of(make_card(r, suit) for r in range(low, high + 1))


def hands_from(*texts: str) -> Hands:
    """Four hands (seats 0-3) from card lists such as ``"AS KS 2H"``; they must be a deal."""
    hands = tuple(cards(t) for t in texts)
    assert check_deal(hands, 0, None, False) is None, check_deal(hands, 0, None, False)
    return hands  # type: ignore[return-value]


def new_match(name: str, dealer: int, totals: list[int] | None = None, **options: int
              ) -> MatchState:
    state = MatchState(preset(name, **options), first_dealer=dealer)
    if totals is not None:
        state.totals = list(totals)  # the scoreboard before this hand
    return state


def one_suit_each(name: str, dealer: int, trump_seat: int) -> tuple[Hands, Card | None]:
    """Every seat holds one whole suit; ``trump_seat`` holds the trump suit.

    Revealed-card sets: the dealer holds clubs and shows the A♣, so spades are trump.
    Hearts-always sets: ``trump_seat`` holds the hearts, nothing is shown.
    """
    rules = preset(name)
    suits: list[int | None] = [None] * 4
    if rules.reveals_card:
        assert trump_seat != dealer
        suits[trump_seat], suits[dealer] = SPADES, CLUBS
        rest = [DIAMONDS, HEARTS]
    else:
        suits[trump_seat] = HEARTS
        rest = [CLUBS, DIAMONDS, SPADES]
    for s in range(4):
        if suits[s] is None:
            suits[s] = rest.pop(0)
    hands = tuple(SUIT_MASKS[s] for s in suits)  # type: ignore[index]
    thirteenth = make_card(12, CLUBS) if rules.reveals_card else None
    return hands, thirteenth  # type: ignore[return-value]


def nine_four(a: int, b: int, trump: int, x: int, others: dict[int, int]) -> Hands:
    """``a``: top nine trumps + four lowest ``x``; ``b``: top nine ``x`` + four lowest trumps.

    ``others`` gives the whole suit each of the two other seats holds.
    """
    hands = [0, 0, 0, 0]
    hands[a] = run(trump, 4, 12) | run(x, 0, 3)
    hands[b] = run(x, 4, 12) | run(trump, 0, 3)
    for seat, suit in others.items():
        hands[seat] = SUIT_MASKS[suit]
    return tuple(hands)  # type: ignore[return-value]


def nine_four_personal(name: str, dealer: int) -> tuple[Hands, Card | None, int, int]:
    """A ``nine_four`` deal for a personal-bid set: ``a`` leads (dealer's right), ``b`` is next.

    Revealed-card sets: the dealer holds the clubs and shows the A♣, so spades are trump.
    Returns the hands, the 13th card, ``a`` and ``b``.
    """
    a, b, c = (dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4
    if preset(name).reveals_card:
        hands = nine_four(a, b, SPADES, DIAMONDS, {c: HEARTS, dealer: CLUBS})
        return hands, make_card(12, CLUBS), a, b
    return nine_four(a, b, HEARTS, CLUBS, {c: DIAMONDS, dealer: SPADES}), None, a, b


def bid_all(state: MatchState, bids: list[int]) -> None:
    """Personal bids by seat (``bids[seat]``), made in turn order."""
    for _ in range(4):
        state.apply(bid_action(bids[state.current_player]))


def play_lowest(state: MatchState) -> None:
    """Play out the hand, every seat taking its lowest legal card (by card number)."""
    while state.phase == Phase.PLAY:
        state.apply(state.legal_actions()[0])


def calls(state: MatchState, *moves: int | str) -> None:
    """Classic auction calls in turn: a number bids it, ``"p"`` passes."""
    for m in moves:
        state.apply(PASS if m == "p" else bid_action(m))  # type: ignore[arg-type]


def kind_of(state: MatchState, action: int) -> str | None:
    problem = state.check(action)
    return None if problem is None else problem.kind


def personal_hand(name: str, bids: list[int], totals: list[int] | None = None,
                  dealer: int = 3, **options: int) -> MatchState:
    """A ``nine_four`` hand of a personal set: seat a=dealer+1 takes 9, b=dealer+2 takes 4."""
    state = new_match(name, dealer, totals, **options)
    hands, thirteenth, a, b = nine_four_personal(name, dealer)
    state.deal(hands, thirteenth)
    bid_all(state, bids)
    play_lowest(state)
    last = state.history[-1]
    assert last.tricks[a] == 9 and last.tricks[b] == 4
    return state


def allocate(total: int, lows: list[int]) -> list[int]:
    """Bids by seat that add up to ``total``, each at least ``lows[seat]``."""
    bids = list(lows)
    extra = total - sum(bids)
    assert extra >= 0
    for s in range(4):
        add = min(extra, 13 - bids[s])
        bids[s] += add
        extra -= add
    return bids


# ---------------------------------------------------------------------------- the deal

@pytest.mark.parametrize("dealer", range(4))
def test_card_i_goes_to_the_seat_dealer_plus_1_plus_i(dealer: int) -> None:
    deck = list(range(52))
    random.Random(dealer).shuffle(deck)
    hands = deal_hands(deck, dealer)
    for i, c in enumerate(deck):
        assert hands[(dealer + 1 + i) % 4] >> c & 1
    assert all(h.bit_count() == 13 for h in hands)
    # the first card goes to the dealer's right, the dealer receives last
    assert hands[(dealer + 1) % 4] >> deck[0] & 1
    received = [c for i, c in enumerate(deck) if (dealer + 1 + i) % 4 == dealer]
    assert received[-1] == deck[51] and len(received) == 13


@pytest.mark.parametrize("name", REVEALED)
@pytest.mark.parametrize("dealer", range(4))
def test_the_revealed_13th_card_is_deck_51_in_the_dealers_hand(name: str, dealer: int) -> None:
    deck = list(range(52))
    random.Random(100 + dealer).shuffle(deck)
    state = new_match(name, dealer)
    state.deal(deal_hands(deck, dealer), deck[51])
    assert state.hand.thirteenth == deck[51]
    assert state.hands[dealer] >> deck[51] & 1  # the card stays in the dealer's hand
    assert state.trump == colour_mate(suit_of(deck[51]))


@pytest.mark.parametrize("name", REVEALED)
def test_a_revealed_card_not_in_the_dealers_hand_is_a_bad_deal(name: str) -> None:
    deck = list(range(52))
    hands = deal_hands(deck, 3)
    state = new_match(name, 3)
    with pytest.raises(IllegalAction) as err:
        state.deal(hands, deck[50])  # the card before the last goes to seat 2
    assert err.value.kind == "bad-deal"
    with pytest.raises(IllegalAction) as err:
        state.deal(hands, None)
    assert err.value.kind == "bad-deal"


def test_a_deal_must_be_four_disjoint_hands_of_13() -> None:
    state = new_match("qahwa41", 0)
    good = deal_hands(list(range(52)), 0)
    for bad in [(good[0], good[0], good[2], good[3]),
                (good[0] | good[1], 0, good[2], good[3])]:
        with pytest.raises(IllegalAction) as err:
            state.deal(bad)
        assert err.value.kind == "bad-deal"


# ---------------------------------------------------------------------------- trump

@pytest.mark.parametrize("name", REVEALED)
@pytest.mark.parametrize(("shown", "trump"), [("7C", SPADES), ("7S", CLUBS),
                                              ("7D", HEARTS), ("7H", DIAMONDS)])
def test_trump_is_the_revealed_cards_colour_mate(name: str, shown: str, trump: int) -> None:
    dealer = 2
    deck = [c for c in range(52) if c != card(shown)] + [card(shown)]
    state = new_match(name, dealer)
    state.deal(deal_hands(deck, dealer), deck[51])
    assert state.trump == trump and state.hand.trump == trump


@pytest.mark.parametrize("name", HEARTS_ALWAYS)
@pytest.mark.parametrize("shown", [None, "7C", "7S", "7D", "7H"])
def test_hearts_are_always_trump(name: str, shown: str | None) -> None:
    dealer = 1
    deck = list(range(52))
    if shown is not None:
        deck = [c for c in deck if c != card(shown)] + [card(shown)]
    state = new_match(name, dealer)
    state.deal(deal_hands(deck, dealer), None if shown is None else deck[51])
    assert state.trump == HEARTS


@pytest.mark.parametrize("suit", [CLUBS, DIAMONDS, HEARTS, SPADES])
def test_classic_trump_is_named_by_the_auction_winner(suit: int) -> None:
    state = new_match("classic", 3)
    state.deal(deal_hands(list(range(52)), 3), None)
    assert state.trump is None
    calls(state, "p", 8, "p", "p")
    assert state.phase == Phase.TRUMP and state.current_player == 1
    state.apply(trump_action(suit))
    assert state.trump == suit and state.hand.trump == suit and state.phase == Phase.PLAY


# ---------------------------------------------------------------------------- play

# qahwa41, dealer 3, so seat 0 leads the first trick; hearts are trump.
PLAY_DEAL = (
    "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",  # seat 0: all spades
    "2H 3H 4H 5H 6H 7H 2C 3C 4C 2D 3D 4D 5D",  # seat 1: void in spades
    "8H 9H 10H JH QH KH AH 5C 6C 7C 8C 9C 10C",  # seat 2
    "JC QC KC AC 6D 7D 8D 9D 10D JD QD KD AD",  # seat 3: void in spades and hearts
)


def play_state() -> MatchState:
    state = new_match("qahwa41", 3)
    state.deal(hands_from(*PLAY_DEAL))
    bid_all(state, [3, 3, 3, 3])
    return state


def test_follow_suit_when_holding_it_renege_otherwise() -> None:
    state = new_match("qahwa41", 3)
    # seat a=0 holds hearts 6-A and clubs 2-5, seat 1 hearts 2-5 and clubs 6-A
    state.deal(nine_four(0, 1, HEARTS, CLUBS, {2: DIAMONDS, 3: SPADES}))
    bid_all(state, [3, 3, 3, 3])
    state.apply(card("6H"))
    assert state.legal_actions() == [card(t) for t in ("2H", "3H", "4H", "5H")]
    problem = state.check(card("AC"))
    assert problem is not None and problem.kind == "renege"
    assert "♥" in str(problem)
    with pytest.raises(IllegalAction) as err:
        state.apply(card("AC"))
    assert err.value.kind == "renege"
    assert state.check(card("5H")) is None


def test_void_may_play_any_card_with_no_duty_to_trump() -> None:
    state = play_state()
    state.apply(card("2S"))
    # seat 1 is void in spades and holds trumps: a club, a diamond or a heart are all legal
    for t in ("2C", "5D", "7H"):
        assert state.check(card(t)) is None
    assert len(state.legal_actions()) == 13


def test_a_card_not_held_or_already_played_is_refused() -> None:
    state = play_state()
    assert kind_of(state, card("2H")) == "not-held"
    state.apply(card("AS"))
    state.apply(card("2C"))
    state.apply(card("5C"))
    state.apply(card("JC"))
    assert state.current_player == 0  # the only spade won
    assert kind_of(state, card("AS")) == "not-held"
    with pytest.raises(IllegalAction) as err:
        state.apply(card("AS"), checked=False)  # never applied, even unchecked
    assert err.value.kind == "not-held"


def test_trick_without_trump_goes_to_the_highest_card_of_the_led_suit() -> None:
    state = play_state()
    for t in ("2S", "5D", "10C", "AD"):  # an ace of another suit does not win
        state.apply(card(t))
    assert state.hand.trick_winners == [0]
    assert state.current_player == 0 and state.leader == 0  # the winner leads next


def test_trick_with_trump_goes_to_the_highest_trump() -> None:
    state = play_state()
    for t in ("AS", "7H", "8H", "AD"):  # a ruff, then an overruff
        state.apply(card(t))
    assert state.hand.trick_winners == [2]
    assert state.current_player == 2
    state.apply(card("9H"))  # seat 2 leads a trump; seat 3 is void in hearts, plays a diamond
    assert state.check(card("KD")) is None
    state.apply(card("KD"))
    state.apply(card("2S"))
    state.apply(card("6H"))
    assert state.hand.trick_winners == [2, 2]
    assert state.hand.trick_leaders == [0, 2]


@pytest.mark.parametrize("name", PERSONAL)
@pytest.mark.parametrize("dealer", range(4))
def test_personal_bids_from_the_dealers_right_and_first_lead_there(name: str, dealer: int
                                                                  ) -> None:
    state = new_match(name, dealer)
    hands, thirteenth, a, _ = nine_four_personal(name, dealer)
    state.deal(hands, thirteenth)
    order = []
    for _ in range(4):
        order.append(state.current_player)
        state.apply(bid_action(4))
    assert order == [(dealer + k) % 4 for k in (1, 2, 3, 4)]  # dealer bids last
    assert state.phase == Phase.PLAY
    assert state.current_player == (dealer + 1) % 4 == a


def test_classic_first_lead_is_the_declarers() -> None:
    state = new_match("classic", 3)
    state.deal(deal_hands(list(range(52)), 3), None)
    calls(state, "p", "p", 7, "p")
    assert state.hand.declarer == 2 and state.hand.contract == 7
    state.apply(trump_action(SPADES))
    assert state.current_player == 2 and state.leader == 2


@pytest.mark.parametrize("name", PERSONAL)
def test_thirteen_tricks_then_the_hand_is_scored(name: str) -> None:
    state = personal_hand(name, [4, 4, 2, 2])
    hand = state.history[0]
    assert len(hand.plays) == 52 and len(hand.trick_winners) == 13
    assert sum(hand.tricks) == 13 and hand.scores is not None


# ---------------------------------------------------------------------------- next dealer

@pytest.mark.parametrize("name", [*PERSONAL, "classic"])
@pytest.mark.parametrize("dealer", range(4))
def test_next_dealer_after_a_scored_hand(name: str, dealer: int) -> None:
    state = new_match(name, dealer)
    if name == "classic":
        hands = nine_four((dealer + 1) % 4, (dealer + 2) % 4, SPADES, DIAMONDS,
                          {(dealer + 3) % 4: HEARTS, dealer: CLUBS})
        state.deal(hands, None)
        calls(state, 7, "p", "p", "p")
        state.apply(trump_action(SPADES))
    else:
        hands, thirteenth, _, _ = nine_four_personal(name, dealer)
        state.deal(hands, thirteenth)
        bid_all(state, [4, 4, 4, 4])
    play_lowest(state)
    assert not state.history[0].cancelled
    assert state.phase == Phase.DEAL and state.dealer == (dealer + 1) % 4
    assert state.deal_number == 1


@pytest.mark.parametrize("name", [*PERSONAL, "classic"])
@pytest.mark.parametrize("dealer", range(4))
def test_next_dealer_after_a_cancelled_hand(name: str, dealer: int) -> None:
    state = new_match(name, dealer)
    deck = list(range(52))
    state.deal(deal_hands(deck, dealer), deck[51])
    if name == "classic":
        calls(state, "p", "p", "p", "p")
    else:
        bid_all(state, [2, 2, 2, 2])
    assert state.history[0].cancelled
    assert state.phase == Phase.DEAL and state.dealer == (dealer + 1) % 4


# ---------------------------------------------------------------------------- cancelled hands

@pytest.mark.parametrize("name", ["eram41", "qahwa41", "sahrat41"])
def test_bids_totalling_less_than_11_cancel_the_hand(name: str) -> None:
    state = new_match(name, 3)
    hands, thirteenth, _, _ = nine_four_personal(name, 3)
    state.deal(hands, thirteenth)
    bid_all(state, [2, 3, 3, 2])  # 10
    hand = state.history[0]
    assert hand.cancelled and hand.scores is None and hand.plays == []
    assert state.totals == [0, 0, 0, 0] and hand.totals == [0, 0, 0, 0]
    state.deal(*nine_four_personal(name, 0)[:2])
    bid_all(state, [3, 3, 3, 2])  # 11
    assert state.phase == Phase.PLAY


@pytest.mark.parametrize(("min_total", "cancelled_at", "played_at"),
                         [(11, 10, 11), (12, 11, 12), (13, 12, 13)])
def test_qahwa_table_minimum_option(min_total: int, cancelled_at: int, played_at: int) -> None:
    options = {} if min_total == 11 else {"min_total": min_total}
    state = new_match("qahwa41", 3, **options)
    state.deal(*nine_four_personal("qahwa41", 3)[:2])
    bid_all(state, allocate(cancelled_at, [2, 2, 2, 2]))
    assert state.history[-1].cancelled
    state.deal(*nine_four_personal("qahwa41", 0)[:2])
    bid_all(state, allocate(played_at, [2, 2, 2, 2]))
    assert state.phase == Phase.PLAY


@pytest.mark.parametrize(("highest", "minimum"),
                         [(0, 11), (29, 11), (30, 12), (39, 12), (40, 13), (49, 13),
                          (50, 14), (75, 14)])
@pytest.mark.parametrize("holder", [0, 2, 3])
def test_400_minimum_total_rises_with_the_highest_score_at_the_table(
        highest: int, minimum: int, holder: int) -> None:
    totals = [-7, 5, 0, 12]
    totals[holder] = highest
    lows = [preset("sahrat400").lowest_bid(t) for t in totals]
    state = new_match("sahrat400", 3, totals)
    assert state.lowest_total() == minimum
    state.deal(*nine_four_personal("sahrat400", 3)[:2])
    bid_all(state, allocate(minimum - 1, lows))
    assert state.history[-1].cancelled and state.totals == totals
    state.deal(*nine_four_personal("sahrat400", 0)[:2])
    bid_all(state, allocate(minimum, lows))
    assert state.phase == Phase.PLAY


@pytest.mark.parametrize("name", [*PERSONAL, "classic"])
def test_several_cancelled_hands_in_a_row(name: str) -> None:
    state = new_match(name, 1)
    for k in range(5):
        dealer = (1 + k) % 4
        assert state.dealer == dealer and state.deal_number == k
        deck = list(range(52))
        random.Random(k).shuffle(deck)
        state.deal(deal_hands(deck, dealer), deck[51])
        if name == "classic":
            calls(state, "p", "p", "p", "p")
        else:
            bid_all(state, [2, 2, 3, 3])
    assert [h.cancelled for h in state.history] == [True] * 5
    assert [h.dealer for h in state.history] == [1, 2, 3, 0, 1]
    assert state.totals == [0, 0, 0, 0] and state.winner is None


# ---------------------------------------------------------------------------- bids

@pytest.mark.parametrize(("score", "low"),
                         [(-20, 2), (0, 2), (29, 2), (30, 3), (39, 3), (40, 4), (49, 4),
                          (50, 5), (90, 5)])
def test_400_lowest_bid_rises_with_own_score(score: int, low: int) -> None:
    state = new_match("sahrat400", 3, [score, 0, 0, 0])
    state.deal(*nine_four_personal("sahrat400", 3)[:2])
    assert state.current_player == 0
    assert state.legal_actions()[0] == bid_action(low)
    assert state.check(bid_action(low)) is None
    if low > 2:
        assert kind_of(state, bid_action(low - 1)) == "bid-minimum"
        with pytest.raises(IllegalAction) as err:
            state.apply(bid_action(2))
        assert err.value.kind == "bid-minimum"
    state.apply(bid_action(low))
    # the next seat's minimum depends on its own score (0), not seat 0's
    assert state.legal_actions()[0] == bid_action(2)


@pytest.mark.parametrize("name", ["eram41", "qahwa41", "sahrat41"])
def test_41_lowest_bid_is_2_whatever_the_score(name: str) -> None:
    state = new_match(name, 3, [60, -30, 0, 0])
    state.deal(*nine_four_personal(name, 3)[:2])
    assert state.check(bid_action(2)) is None
    assert state.legal_actions() == [bid_action(n) for n in range(2, 14)]


@pytest.mark.parametrize("name", PERSONAL)
@pytest.mark.parametrize("bad", [bid_action(0), bid_action(1), PASS, trump_action(HEARTS), 5])
def test_personal_bid_out_of_range(name: str, bad: int) -> None:
    state = new_match(name, 3)
    state.deal(*nine_four_personal(name, 3)[:2])
    assert kind_of(state, bad) == "bid-range"
    with pytest.raises(IllegalAction):
        state.apply(bad)
    assert state.check(bid_action(13)) is None


def test_classic_bid_out_of_range() -> None:
    state = new_match("classic", 3)
    state.deal(deal_hands(list(range(52)), 3), None)
    for n in (0, 2, 6):
        assert kind_of(state, bid_action(n)) == "bid-range"
    assert state.legal_actions() == [bid_action(n) for n in range(7, 14)] + [PASS]


# ---------------------------------------------------------------------------- classic auction

def classic_dealt(dealer: int = 3) -> MatchState:
    state = new_match("classic", dealer)
    state.deal(deal_hands(list(range(52)), dealer), None)
    return state


def test_auction_each_bid_must_be_higher() -> None:
    state = classic_dealt()
    calls(state, 8)
    assert kind_of(state, bid_action(8)) == "bid-not-higher"
    assert kind_of(state, bid_action(7)) == "bid-not-higher"
    assert state.legal_actions() == [bid_action(n) for n in range(9, 14)] + [PASS]
    calls(state, 9)
    assert state.legal_actions()[0] == bid_action(10)


def test_auction_a_pass_is_final() -> None:
    state = classic_dealt()
    calls(state, "p", 7, 8)  # seat 0 passes, seat 1 bids 7, seat 2 bids 8
    assert state.current_player == 3
    calls(state, 9)
    assert state.current_player == 1  # seat 0 is skipped: its pass is final
    calls(state, 10)
    assert state.current_player == 2
    calls(state, "p")
    assert state.current_player == 3
    calls(state, "p")
    # only seat 1 is left: it holds the highest bid, so the auction is over
    assert state.phase == Phase.TRUMP and state.hand.declarer == 1
    assert state.hand.contract == 10
    assert [s for s, _ in state.hand.calls] == [0, 1, 2, 3, 1, 2, 3]


def test_auction_ends_when_the_other_three_have_passed_after_a_bid() -> None:
    state = classic_dealt()
    calls(state, 7, "p", "p")
    assert state.phase == Phase.BID and state.current_player == 3
    calls(state, "p")
    assert state.phase == Phase.TRUMP and state.current_player == 0
    assert (state.hand.declarer, state.hand.contract) == (0, 7)


def test_auction_dealer_may_bid_after_three_passes() -> None:
    state = classic_dealt()
    calls(state, "p", "p", "p")
    assert state.phase == Phase.BID and state.current_player == 3
    calls(state, 7)
    assert state.phase == Phase.TRUMP and state.hand.declarer == 3


@pytest.mark.parametrize("prefix", [(), ("p",), (7, 8)])
def test_auction_ends_at_once_on_13(prefix: tuple) -> None:
    state = classic_dealt()
    calls(state, *prefix)
    seat = state.current_player
    calls(state, 13)
    assert state.phase == Phase.TRUMP
    assert (state.hand.declarer, state.hand.contract) == (seat, 13)


def test_auction_all_four_pass_cancels_the_hand() -> None:
    state = classic_dealt(dealer=2)
    calls(state, "p", "p", "p", "p")
    hand = state.history[0]
    assert hand.cancelled and hand.declarer is None and hand.scores is None
    assert state.phase == Phase.DEAL and state.dealer == 3
    assert state.totals == [0, 0, 0, 0]


# ---------------------------------------------------------------------------- personal scoring

# nine_four with bids a=7 (takes 9), b=5 (takes 4), c=2 and dealer=2 (no tricks)
MADE_FAILED = {
    "eram41": [7, -5, -2, -2],
    "qahwa41": [14, -10, -2, -2],
    "sahrat41": [7, -5, -2, -2],
    "sahrat400": [14, -10, -2, -2],
}


@pytest.mark.parametrize("name", PERSONAL)
def test_made_adds_the_bid_value_failed_loses_it(name: str) -> None:
    state = personal_hand(name, [7, 5, 2, 2])
    assert state.history[0].scores == MADE_FAILED[name]
    assert state.totals == MADE_FAILED[name]
    assert state.history[0].totals == MADE_FAILED[name]


@pytest.mark.parametrize("name", PERSONAL)
def test_tricks_above_the_bid_add_nothing(name: str) -> None:
    exact = personal_hand(name, [9, 4, 2, 2]).totals
    over = personal_hand(name, [2, 2, 4, 4]).totals  # seat 0 takes 9 on a bid of 2
    value_9 = {"eram41": 9, "qahwa41": 18, "sahrat41": 9, "sahrat400": 27}[name]
    assert exact[:2] == [value_9, 4]
    assert over[:2] == [2, 2]


LINEAR = {b: b for b in range(2, 14)}
DOUBLED = {2: 2, 3: 3, 4: 4, 5: 10, 6: 12, 7: 14, 8: 16, 9: 18, 10: 20, 11: 22, 12: 24, 13: 26}
TABLE_400 = {2: 2, 3: 3, 4: 4, 5: 10, 6: 12, 7: 14, 8: 16, 9: 27, 10: 40, 11: 40, 12: 40,
             13: 40}
TABLE_400_FROM_30 = {**TABLE_400, 5: 5, 6: 6}
VALUES = {"eram41": LINEAR, "qahwa41": DOUBLED, "sahrat41": LINEAR, "sahrat400": TABLE_400}


def value_hand(name: str, bid: int, totals: list[int]) -> MatchState:
    """one_suit_each, dealer 3: seat 0 holds the trumps and takes all 13; seat 1 takes none.

    Seat 0 and seat 1 bid ``bid``, seats 2 and 3 bid 4.
    """
    state = new_match(name, 3, totals)
    state.deal(*one_suit_each(name, 3, trump_seat=0))
    bid_all(state, [bid, bid, 4, 4])
    play_lowest(state)
    assert state.history[0].tricks == [13, 0, 0, 0]
    return state


@pytest.mark.parametrize("name", PERSONAL)
@pytest.mark.parametrize("bid", range(2, 14))
def test_bid_values(name: str, bid: int) -> None:
    state = value_hand(name, bid, [0, 0, 0, 0])
    v = VALUES[name][bid]
    assert state.history[0].scores == [v, -v, -4, -4]


@pytest.mark.parametrize("bid", range(3, 14))
def test_400_values_once_own_score_is_30(bid: int) -> None:
    before = [30, 30, 0, 0]
    state = value_hand("sahrat400", bid, before)
    v = TABLE_400_FROM_30[bid]
    assert state.history[0].scores == [v, -v, -4, -4]
    assert state.totals == [30 + v, 30 - v, -4, -4]


@pytest.mark.parametrize(("own", "five", "six"), [(29, 10, 12), (30, 5, 6), (45, 5, 6),
                                                  (-10, 10, 12)])
def test_400_five_and_six_change_value_at_own_score_30(own: int, five: int, six: int) -> None:
    # seat 0 bids 5 and makes it, seat 1 bids 6 and fails; only the bidder's own score counts
    state = new_match("sahrat400", 3, [own, own, 29, 29])
    state.deal(*one_suit_each("sahrat400", 3, trump_seat=0))
    bid_all(state, [5, 6, 5, 5])
    play_lowest(state)
    assert state.history[0].scores == [five, -six, -10, -10]


@pytest.mark.parametrize("name", PERSONAL)
def test_totals_may_go_below_zero(name: str) -> None:
    state = new_match(name, 3)
    for k in range(2):
        dealer = (3 + k) % 4
        hands, thirteenth = one_suit_each(name, dealer, trump_seat=(dealer + 2) % 4)
        state.deal(hands, thirteenth)
        bid_all(state, [3, 3, 3, 3])
        play_lowest(state)
    # seat 1 held the trumps in the first hand, seat 2 in the second
    assert state.totals == [-6, 0, 0, -6]
    state.totals = [-3, 5, -8, 0]  # the scoreboard before the next hand
    state.deal(*nine_four_personal(name, 1)[:2])
    bid_all(state, [5, 2, 5, 2])  # seat 2 (a) takes 9, seat 3 (b) takes 4, seat 0 takes none
    play_lowest(state)
    assert state.totals[0] < -3 and state.totals[2] > -8


# ---------------------------------------------------------------------------- personal win check

TARGETS = {"eram41": 41, "qahwa41": 41, "sahrat41": 41, "sahrat400": 41}
VALUE_9 = {"eram41": 9, "qahwa41": 18, "sahrat41": 9, "sahrat400": 27}


def win_hand(name: str, after: list[int], **options: int) -> MatchState:
    """A nine_four hand (dealer 3) with bids 9, 4, 2, 2 that ends on the totals ``after``.

    Seat 0 makes 9, seat 1 makes 4, seats 2 and 3 fail their 2.
    """
    gains = [VALUE_9[name], 4, -2, -2]
    before = [t - g for t, g in zip(after, gains, strict=True)]
    state = personal_hand(name, [9, 4, 2, 2], before, **options)
    assert state.totals == after
    return state


@pytest.mark.parametrize("name", PERSONAL)
def test_partner_at_zero_blocks_the_win(name: str) -> None:
    state = win_hand(name, [45, 10, 0, 5])
    assert state.winner is None and state.history[0].winner is None
    assert state.phase == Phase.DEAL


@pytest.mark.parametrize("name", PERSONAL)
def test_partner_below_zero_blocks_the_win(name: str) -> None:
    state = win_hand(name, [50, 10, -3, 5])
    assert state.winner is None and state.phase == Phase.DEAL


@pytest.mark.parametrize("name", PERSONAL)
@pytest.mark.parametrize("score", [41, 44])
def test_target_with_partner_above_zero_wins(name: str, score: int) -> None:
    state = win_hand(name, [score, 10, 1, 5])
    assert state.winner == 0 and state.history[0].winner == 0
    assert state.phase == Phase.OVER and state.is_over


@pytest.mark.parametrize("name", PERSONAL)
def test_40_is_not_the_target(name: str) -> None:
    state = win_hand(name, [40, 10, 5, 5])
    assert state.winner is None


@pytest.mark.parametrize("name", PERSONAL)
def test_nothing_is_played_after_the_win(name: str) -> None:
    state = win_hand(name, [41, 10, 5, 5])
    assert kind_of(state, bid_action(4)) == "over"
    with pytest.raises(IllegalAction) as err:
        state.deal(*nine_four_personal(name, 0)[:2])
    assert err.value.kind == "wrong-phase"


@pytest.mark.parametrize("name", TEAM_TOTAL)
def test_both_qualify_team_total_decides(name: str) -> None:
    # seat 0 is the higher player, but team 1 (seats 1+3) has the higher team total
    state = win_hand(name, [50, 41, 1, 20])
    assert state.winner == 1
    state = win_hand(name, [50, 41, 12, 20])
    assert state.winner == 0


@pytest.mark.parametrize("name", TEAM_TOTAL)
def test_both_qualify_equal_team_totals_play_on(name: str) -> None:
    state = win_hand(name, [50, 41, 11, 20])  # 61 each
    assert state.winner is None and state.phase == Phase.DEAL
    assert state.history[0].winner is None


@pytest.mark.parametrize("name", HIGHEST_PLAYER)
def test_both_qualify_higher_player_decides(name: str) -> None:
    # team 1 has the higher team total, but seat 0 is the higher qualifying player
    state = win_hand(name, [50, 41, 1, 20])
    assert state.winner == 0
    state = win_hand(name, [45, 48, 20, 1])
    assert state.winner == 1


@pytest.mark.parametrize("name", HIGHEST_PLAYER)
def test_both_qualify_equal_players_play_on(name: str) -> None:
    state = win_hand(name, [45, 45, 1, 20])  # team totals differ, the players are equal
    assert state.winner is None and state.phase == Phase.DEAL


@pytest.mark.parametrize("name", PERSONAL)
def test_only_one_team_qualifying_wins_even_if_the_other_has_a_player_on_target(name: str
                                                                                ) -> None:
    state = win_hand(name, [41, 53, 1, 0])  # seat 1's partner is at zero
    assert state.winner == 0


@pytest.mark.parametrize(("target", "after", "winner"),
                         [(31, [31, 10, 1, 5], 0), (31, [30, 10, 1, 5], None),
                          (41, [31, 10, 1, 5], None), (61, [59, 10, 1, 5], None),
                          (61, [61, 10, 1, 5], 0)])
def test_qahwa_target_options(target: int, after: list[int], winner: int | None) -> None:
    options = {} if target == 41 else {"target": target}
    state = win_hand("qahwa41", after, **options)
    assert state.winner == winner


# ---------------------------------------------------------------------------- classic scoring

def classic_hand(declarer_calls: tuple, trump: int, totals: list[int] | None = None,
                 layout: str = "nine_four", **options: int) -> MatchState:
    """Dealer 3. ``nine_four``: seat 0 takes 9, seat 1 takes 4 (spades trump).

    ``one_suit_each``: seat 0 spades, 1 hearts, 2 diamonds, 3 clubs: the seat holding
    the named trump takes all 13.
    """
    state = new_match("classic", 3, totals, **options)
    if layout == "nine_four":
        state.deal(nine_four(0, 1, SPADES, DIAMONDS, {2: HEARTS, 3: CLUBS}), None)
    else:
        state.deal((SUIT_MASKS[SPADES], SUIT_MASKS[HEARTS], SUIT_MASKS[DIAMONDS],
                    SUIT_MASKS[CLUBS]), None)
    calls(state, *declarer_calls)
    state.apply(trump_action(trump))
    play_lowest(state)
    return state


@pytest.mark.parametrize("bid", [7, 8, 9])
def test_classic_made_adds_the_tricks_taken_not_the_bid(bid: int) -> None:
    state = classic_hand((bid, "p", "p", "p"), SPADES)
    hand = state.history[0]
    assert hand.tricks == [9, 4, 0, 0]
    assert hand.scores == [9, 0, 9, 0]  # the other team gets nothing
    assert state.totals == [9, 0, 9, 0]


@pytest.mark.parametrize("bid", [10, 11, 12])
def test_classic_failed_loses_the_bid_and_the_others_add_their_tricks(bid: int) -> None:
    state = classic_hand((bid, "p", "p", "p"), SPADES)
    assert state.history[0].scores == [-bid, 4, -bid, 4]


def test_classic_failed_by_the_other_team() -> None:
    # seat 1 wins the auction and leads; seat 0 still takes 9
    state = classic_hand(("p", 7, "p", "p"), SPADES)
    hand = state.history[0]
    assert hand.declarer == 1 and hand.trick_leaders[0] == 1
    assert hand.tricks == [9, 4, 0, 0]
    assert hand.scores == [9, -7, 9, -7]


@pytest.mark.parametrize("bid", [7, 10, 12])
def test_classic_all_13_without_bidding_13_scores_16(bid: int) -> None:
    state = classic_hand((bid, "p", "p", "p"), SPADES, layout="one_suit_each")
    assert state.history[0].tricks == [13, 0, 0, 0]
    assert state.history[0].scores == [16, 0, 16, 0]


@pytest.mark.parametrize("bid", [7, 12])
def test_classic_all_13_to_the_other_team_scores_16_for_them(bid: int) -> None:
    # seat 0 names hearts, which seat 1 holds: the other team takes all 13
    state = classic_hand((bid, "p", "p", "p"), HEARTS, layout="one_suit_each")
    assert state.history[0].tricks == [0, 13, 0, 0]
    assert state.history[0].scores == [-bid, 16, -bid, 16]


def test_classic_kaboot_made_scores_26() -> None:
    state = classic_hand((13,), SPADES, layout="one_suit_each")
    assert state.history[0].scores == [26, 0, 26, 0]


def test_classic_kaboot_failed_loses_16_and_the_others_add_their_tricks() -> None:
    state = classic_hand(("p", 13), SPADES)  # seat 1 bids 13, takes 4
    assert state.history[0].contract == 13
    assert state.history[0].scores == [9, -16, 9, -16]


def test_classic_kaboot_failed_without_a_trick() -> None:
    # the other team takes all 13 without having bid 13: 16 (the Sahrat page: "All 13
    # tricks without bidding 13: 16 points to the team that took them (either team)")
    state = classic_hand((13,), HEARTS, layout="one_suit_each")
    assert state.history[0].scores == [-16, 16, -16, 16]


def test_classic_totals_go_below_zero() -> None:
    state = classic_hand((12, "p", "p", "p"), SPADES, totals=[3, 0, 3, 0])
    assert state.totals == [-9, 4, -9, 4]


@pytest.mark.parametrize(("target", "before", "winner"),
                         [(41, [32, 40, 32, 40], 0), (41, [31, 0, 31, 0], None),
                          (31, [22, 0, 22, 0], 0), (61, [50, 0, 50, 0], None),
                          (61, [52, 0, 52, 0], 0)])
def test_classic_first_team_to_reach_the_target_wins(target: int, before: list[int],
                                                     winner: int | None) -> None:
    options = {} if target == 41 else {"target": target}
    state = classic_hand((7, "p", "p", "p"), SPADES, totals=before, **options)
    assert state.totals[0] == before[0] + 9
    assert state.winner == winner
    assert state.phase == (Phase.OVER if winner is not None else Phase.DEAL)


def test_classic_the_defending_team_can_reach_the_target() -> None:
    state = classic_hand((10, "p", "p", "p"), SPADES, totals=[20, 37, 20, 37])
    assert state.totals == [10, 41, 10, 41]
    assert state.winner == 1


# ---------------------------------------------------------------------------- timer moves

@pytest.mark.parametrize("name", ["eram41", "qahwa41", "sahrat41"])
def test_timer_bid_is_2(name: str) -> None:
    state = new_match(name, 3, [45, 0, 0, 0])
    state.deal(*nine_four_personal(name, 3)[:2])
    assert state.timer_actions() == [bid_action(2)]


def test_timer_bid_400_is_the_lowest_allowed() -> None:
    state = new_match("sahrat400", 3, [30, 42, 55, 7])
    state.deal(*nine_four_personal("sahrat400", 3)[:2])
    seen = []
    for _ in range(4):
        (a,) = state.timer_actions()
        seen.append(a)
        state.apply(a)
    assert seen == [bid_action(n) for n in (3, 4, 5, 2)]
    assert state.phase == Phase.PLAY  # 14 reaches the minimum total at a highest score of 55


def test_timer_in_the_auction_passes() -> None:
    state = classic_dealt()
    assert state.timer_actions() == [PASS]
    calls(state, 8)
    assert state.timer_actions() == [PASS]


def test_timer_card_ties_across_suits_are_all_accepted() -> None:
    state = play_state()
    state.apply(card("AS"))
    # seat 1: void in spades, holds 2-7♥ (trump), 2-4♣, 2-5♦
    assert state.timer_actions() == [card("2C"), card("2D")]
    state.apply(card("2D"))
    # seat 2: void in spades, holds 8-A♥ and 5-10♣: the weakest is 5♣, not a trump
    assert state.timer_actions() == [card("5C")]
    state.apply(card("5C"))
    # seat 3: J-A♣ and 6-A♦: 6♦ is the lowest-ranked
    assert state.timer_actions() == [card("6D")]


def test_timer_card_follows_suit() -> None:
    state = new_match("qahwa41", 3)
    state.deal(hands_from(
        "5D 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS",
        "2C 9D KD AS 2H 3H 4H 5H 6H 7H 8H 9H 10H",
        "JH QH KH AH 3C 4C 5C 6C 7C 8C 9C 10C JC",
        "QC KC AC 2D 3D 4D 6D 7D 8D 10D JD QD AD",
    ))
    bid_all(state, [3, 3, 3, 3])
    state.apply(card("5D"))
    # seat 1 must follow diamonds: the 9♦, although the 2♣ is ranked lower
    assert state.timer_actions() == [card("9D")]
    state.apply(card("KD"))
    # seat 2 is void in diamonds: its lowest non-trump
    assert state.timer_actions() == [card("3C")]
    state.apply(card("3C"))
    assert state.timer_actions() == [card("2D")]


def test_timer_card_is_the_lowest_trump_when_only_trumps_are_legal() -> None:
    # seat 0 leads a heart: seat 1 holds hearts 2-5 and clubs, it must follow with a trump
    state = new_match("qahwa41", 3)
    state.deal(nine_four(0, 1, HEARTS, CLUBS, {2: DIAMONDS, 3: SPADES}))
    bid_all(state, [3, 3, 3, 3])
    assert state.timer_actions() == [card("2C")]  # seat 0: the 2♣ rather than a trump
    state.apply(card("AH"))
    assert state.timer_actions() == [card("2H")]
    # a void seat that holds only trumps plays its lowest trump
    state = new_match("qahwa41", 3)
    state.deal(*one_suit_each("qahwa41", 3, trump_seat=1))
    bid_all(state, [3, 3, 3, 3])
    state.apply(card("AC"))
    assert state.timer_actions() == [card("2H")]


@pytest.mark.parametrize("name", REVEALED)
def test_timer_card_uses_the_revealed_trump(name: str) -> None:
    # dealer 3 shows the A♣: spades are trump, so the 2♠ is not the weakest card
    hands = hands_from(
        "2S 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
        "2C 3C 4C 5C 6C 7C 8C 9C 10C 2D 3S 4S 5S",
        "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
        "JC QC KC AC 6S 7S 8S 9S 10S JS QS KS AS",
    )
    state = new_match(name, 3)
    state.deal(hands, card("AC"))
    assert state.trump == SPADES
    bid_all(state, [3, 3, 3, 3])
    assert state.timer_actions() == [card("3D")]


def test_timer_card_in_classic_uses_the_named_trump() -> None:
    state = classic_dealt()  # dealer 3: seat 0 holds every 4th card, 2♣ 6♣ 10♣ A♣ 5♦ …
    calls(state, 7, "p", "p", "p")
    state.apply(trump_action(CLUBS))
    held = cards_of(state.hands[0])
    assert state.timer_actions() == [min((c for c in held if suit_of(c) != CLUBS),
                                         key=lambda c: c % 13)]


# ---------------------------------------------------------------------------- fast paths

@pytest.mark.parametrize("name", [*PERSONAL, "classic"])
def test_fast_paths_agree_with_move_by_move_play(name: str) -> None:
    from tarneeb.replay.rules.players import BotPlayer, play_match, shuffled_deals

    bots = [BotPlayer(random.Random(s), timer_rate=0.1) for s in range(4)]
    played, _ = play_match(preset(name), 1, shuffled_deals(random.Random(8)), bots)
    state = new_match(name, 1)
    for hand in played.history:
        state.deal(hand.hands, hand.thirteenth)
        assert state.apply_calls(hand.calls) == len(hand.calls)
        if hand.declarer is not None:
            state.apply(trump_action(hand.trump))
        if not hand.cancelled:
            assert state.play_cards(bytes(hand.plays[:10])) == 10  # then a trick under way
            assert state.play_cards(hand.plays[10:]) == 42
        mine = state.history[-1]
        assert (mine.tricks, mine.trick_winners, mine.scores, mine.totals, mine.winner) == \
            (hand.tricks, hand.trick_winners, hand.scores, hand.totals, hand.winner)
    assert state.winner == played.winner


def test_play_cards_stops_before_a_renege() -> None:
    state = new_match("qahwa41", 3)
    state.deal(nine_four(0, 1, HEARTS, CLUBS, {2: DIAMONDS, 3: SPADES}))
    bid_all(state, [3, 3, 3, 3])
    # seat 1 holds hearts but plays a club on the heart lead
    assert state.play_cards([card("AH"), card("AC"), card("2D")]) == 1
    assert state.current_player == 1 and state.trick == [card("AH")]
    assert kind_of(state, card("AC")) == "renege"
