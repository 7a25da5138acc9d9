"""The engine against other platforms' house rules: the fields beyond the presets.

Each test quotes the rule it checks, as the platforms state it (the sentences come from
the rules other platforms publish, quoted in docs/RULES.md). The presets keep their own
behaviour (tests/test_engine_rules.py); here each field is set the other way.
"""

from __future__ import annotations

import pytest
from test_engine_rules import (
    calls,
    classic_dealt,
    classic_hand,
    kind_of,
    new_match,
    nine_four_personal,
    win_hand,
)

from tarneeb.replay.rules.cards import HEARTS, SPADES
from tarneeb.replay.rules.engine import PASS, MatchState, Phase, bid_action, break_tie
from tarneeb.replay.rules.ruleset import PRESETS, RulesError, RuleSet, preset

CHAIN = ["highest_player", "team_total", "team_0+2"]


# ---------------------------------------------------------------------------- the tie chain
# "when both teams reach the target after the same hand, [the platform] gives the match to
# the team of the player with the higher score; if those are equal, to the team with the
# higher team total; if that is equal too, to team 0+2"

def test_tie_chain_first_step_the_higher_player() -> None:
    # team 1+3 has the higher team total, but seat 0 is the higher player
    state = win_hand("sahrat400", [50, 41, 1, 20], tie=CHAIN)
    assert state.winner == 0


def test_tie_chain_equal_players_then_the_team_total() -> None:
    state = win_hand("sahrat400", [45, 45, 1, 20], tie=CHAIN)  # 46 against 65
    assert state.winner == 1 and state.phase == Phase.OVER


def test_tie_chain_everything_equal_then_the_named_team() -> None:
    state = win_hand("sahrat400", [45, 45, 20, 20], tie=CHAIN)
    assert state.winner == 0 and state.phase == Phase.OVER
    other = win_hand("sahrat400", [45, 45, 20, 20], tie=[*CHAIN[:2], "team_1+3"])
    assert other.winner == 1


def test_tie_chain_ending_in_play_on_deals_another_hand() -> None:
    state = win_hand("eram41", [45, 45, 20, 20], tie=[*CHAIN[:2], "play_on"])
    assert state.winner is None and state.phase == Phase.DEAL


def test_tie_chain_names_the_step_that_decided() -> None:
    rules = preset("sahrat400", tie=CHAIN)
    assert break_tie(rules, [50, 41, 1, 20], [0, 1]) == (0, "highest_player")
    assert break_tie(rules, [45, 45, 1, 20], [0, 1]) == (1, "team_total")
    assert break_tie(rules, [45, 45, 20, 20], [0, 1]) == (0, "team_0+2")


def test_tie_single_values_are_shorthands_for_a_chain() -> None:
    assert PRESETS["eram41"].tie == ("team_total", "play_on")
    assert PRESETS["sahrat41"].tie == ("highest_player", "play_on")
    assert preset("eram41", tie="play_on").tie == ("play_on",)
    assert preset("eram41", tie="team_0+2").tie == ("team_0+2",)
    assert preset("eram41", tie=["team_total", "play_on"]) == PRESETS["eram41"]
    assert PRESETS["sahrat41"].to_dict()["tie"] == "highest_player"
    assert preset("sahrat41", tie=CHAIN).to_dict()["tie"] == CHAIN


def test_tie_alone_to_a_named_team() -> None:
    state = win_hand("eram41", [50, 41, 12, 20], tie="team_1+3")  # team 0 has the higher total
    assert state.winner == 1


@pytest.mark.parametrize(("tie", "message"), [
    (["highest_player", "team_total"], "the last entry must be a fallback"),
    (["play_on", "team_total", "team_0+2"], "'play_on' is not a step of the chain"),
    (["team_total", "team_total", "play_on"], "a step appears twice"),
    ("coin_toss", "tie must be one of team_total, highest_player, play_on, team_0"),
    ([], "tie must be one of"),
    ([1, "play_on"], "tie must be one of"),
])
def test_tie_chain_is_validated(tie: object, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        preset("eram41", tie=tie)


# ---------------------------------------------------------------------------- the timer's bid
# "when the timer bids for the last bidder and the total is still below the table minimum,
# it bids what brings the total up to the minimum, so the hand is not cancelled"

def timer_bids(state: MatchState, bids: list[int]) -> None:
    for b in bids:
        state.apply(bid_action(b))


def test_timer_raises_the_last_bid_to_the_table_minimum() -> None:
    state = new_match("sahrat400", 3, timer_bid="reach_minimum")
    state.deal(*nine_four_personal("sahrat400", 3)[:2])
    assert state.timer_actions() == [bid_action(2)]  # not the last bidder: the lowest
    timer_bids(state, [2, 2, 2])
    assert state.current_player == state.dealer
    assert state.timer_actions() == [bid_action(5)]  # 2 + 2 + 2 + 5 = 11
    state.apply(bid_action(5))
    assert state.phase == Phase.PLAY


def test_timer_reaches_the_risen_400_minimum() -> None:
    state = new_match("sahrat400", 3, [0, 0, 45, 0], timer_bid="reach_minimum")
    state.deal(*nine_four_personal("sahrat400", 3)[:2])
    timer_bids(state, [2, 2, 4])  # seat 2, on 45, bids at least 4; the minimum total is 13
    assert state.timer_actions() == [bid_action(5)]


def test_timer_bids_the_lowest_when_the_minimum_is_reached_already() -> None:
    state = new_match("qahwa41", 3, timer_bid="reach_minimum")
    state.deal(*nine_four_personal("qahwa41", 3)[:2])
    timer_bids(state, [4, 4, 4])
    assert state.timer_actions() == [bid_action(2)]


def test_timer_bids_the_lowest_when_no_bid_reaches_the_minimum() -> None:
    rules = preset("eram41", timer_bid="reach_minimum", min_total=45)
    state = MatchState(rules, first_dealer=3)
    state.deal(*nine_four_personal("eram41", 3)[:2])
    timer_bids(state, [2, 2, 2])  # 6 + 13 < 45: cancelled whatever the timer bids
    assert state.timer_actions() == [bid_action(2)]


def test_timer_bid_lowest_is_the_default() -> None:
    state = new_match("sahrat400", 3)
    state.deal(*nine_four_personal("sahrat400", 3)[:2])
    timer_bids(state, [2, 2, 2])
    assert state.timer_actions() == [bid_action(2)]


@pytest.mark.parametrize(("options", "message"), [
    ({"timer_bid": "highest"}, "timer_bid must be one of lowest, reach_minimum"),
])
def test_timer_bid_is_validated(options: dict, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        preset("sahrat400", **options)
    with pytest.raises(RulesError, match="needs personal bids"):
        preset("classic", timer_bid="reach_minimum")


# ---------------------------------------------------------------------------- classic defenders
# "on a failed 13 the defenders score twice their tricks (2 × (13 − t)), not 13 − t;
# defenders who take all 13 tricks score 13 (or 26 on a failed 13), not 16"

def test_failed_13_defenders_score_twice_their_tricks() -> None:
    state = classic_hand(("p", 13), SPADES, kaboot_defenders_factor=2)  # seat 1 takes 4
    assert state.history[0].scores == [18, -16, 18, -16]


def test_failed_13_defenders_score_their_tricks_by_default() -> None:
    state = classic_hand(("p", 13), SPADES)
    assert state.history[0].scores == [9, -16, 9, -16]


@pytest.mark.parametrize("bid", [7, 12])
def test_defenders_taking_all_13_score_13(bid: int) -> None:
    state = classic_hand((bid, "p", "p", "p"), HEARTS, layout="one_suit_each",
                         defenders_all_tricks_value=13)
    assert state.history[0].scores == [-bid, 13, -bid, 13]


def test_defenders_taking_all_13_on_a_failed_13_score_26() -> None:
    state = classic_hand((13,), HEARTS, layout="one_suit_each", kaboot_defenders_factor=2,
                         kaboot_defenders_all_tricks_value=26)
    assert state.history[0].scores == [-16, 26, -16, 26]


def test_declarers_values_are_their_own() -> None:
    # the declarers' all-13 value no longer sets the defenders', nor the other way round
    state = classic_hand((7, "p", "p", "p"), SPADES, layout="one_suit_each",
                         defenders_all_tricks_value=13)
    assert state.history[0].scores == [16, 0, 16, 0]
    state = classic_hand((7, "p", "p", "p"), HEARTS, layout="one_suit_each",
                         all_tricks_value=20)
    assert state.history[0].scores == [-7, 16, -7, 16]
    state = classic_hand(("p", 13), SPADES, kaboot_failed_value=26)
    assert state.history[0].scores == [9, -26, 9, -26]


@pytest.mark.parametrize(("options", "message"), [
    ({"kaboot_defenders_factor": 0}, "kaboot_defenders_factor must be 1-10"),
    ({"kaboot_defenders_factor": 1.5}, "kaboot_defenders_factor must be a whole number"),
    ({"defenders_all_tricks_value": -1}, "defenders_all_tricks_value must be 0-1000"),
    ({"kaboot_defenders_all_tricks_value": "26"}, "must be a whole number"),
])
def test_defenders_fields_are_validated(options: dict, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        preset("classic", **options)


# ---------------------------------------------------------------------------- after a 13
# "Ours ends the auction at once on a bid of 13; elsewhere the remaining players still
# pass in turn."

def test_auction_goes_on_after_13_with_passes_in_turn() -> None:
    state = new_match("classic", 3, auction_ends_on_13=False)
    state.deal(classic_dealt().hand.hands, None)
    calls(state, 13)  # seat 0
    assert state.phase == Phase.BID and state.current_player == 1
    assert state.legal_actions() == [PASS] and state.timer_actions() == [PASS]
    assert kind_of(state, bid_action(13)) == "bid-not-higher"
    calls(state, "p", "p")
    assert state.phase == Phase.BID and state.current_player == 3
    calls(state, "p")
    assert state.phase == Phase.TRUMP
    assert (state.hand.declarer, state.hand.contract) == (0, 13)
    assert [s for s, _ in state.hand.calls] == [0, 1, 2, 3]


def test_auction_after_13_skips_those_who_passed() -> None:
    state = new_match("classic", 3, auction_ends_on_13=False)
    state.deal(classic_dealt().hand.hands, None)
    calls(state, "p", 7, 13)  # seat 0 passes, seat 1 bids 7, seat 2 bids 13
    assert state.current_player == 3
    calls(state, "p")
    assert state.current_player == 1  # seat 0's pass is final
    calls(state, "p")
    assert state.phase == Phase.TRUMP and state.hand.declarer == 2


def test_auction_after_13_fast_path_matches_call_by_call() -> None:
    state = new_match("classic", 3, auction_ends_on_13=False)
    state.deal(classic_dealt().hand.hands, None)
    taken = state.apply_calls([(0, bid_action(13)), (1, PASS), (2, bid_action(13)),
                               (2, PASS)])
    assert taken == 2 and state.current_player == 2


def test_auction_ends_on_13_must_be_true_or_false() -> None:
    with pytest.raises(RulesError, match="auction_ends_on_13 must be true or false"):
        preset("classic", auction_ends_on_13=1)


def test_every_new_field_is_in_the_rules_map() -> None:
    for name in ("timer_bid", "auction_ends_on_13", "defenders_all_tricks_value",
                 "kaboot_defenders_factor", "kaboot_defenders_all_tricks_value"):
        assert name in PRESETS["classic"].to_dict()
    r = preset("classic", kaboot_defenders_factor=2, auction_ends_on_13=False)
    assert RuleSet.from_dict(r.to_dict()) == r
