"""The "not covered" sentence names the riggings the battery cannot see.

* Drift is tested on seats 1 and 3's points together and on the computer seats' points
  only (the CUSUM). A platform that gives seat 1 the better of its and its partner's
  hand early in the archive and seat 3 late (in the deals an odd seat deals: 0.68 points
  a hand either way at strength 0.5, 1.36 at 1) leaves every seat's, team's and label's
  figure fair and the CUSUM's series unmoved: in archives of 2,500 matches of 10 deals
  with their season order no test aimed at it flagged it (two at each strength). The
  sentence said only "drift where the logs carry no season order", as though drift were
  covered where they do.
* Card positions are counted by seat relative to the dealer. A platform that moves the
  trump ace to table seat 1 (swapping it for seat 1's ace of another suit, and a low
  card of each suit back: points, aces, kings, trumps and suit lengths unchanged; seat 1
  then holds it in 64 % of deals, not 25 %) was not flagged by a test of card positions
  in archives of 2,500 matches, yet the sentence listed "card positions" among the
  measures as if a card's table seat were one. (The trump honours' points now see the
  trump ace moved so, tests/test_fairness_trump_honours.py; a side suit's ace is not.)
* An archive whose logs stand in no season (recorded deals) has no drift or successive
  matches' test at all: the sentence said these went untested only for "a player with
  fewer than 20 matches".
* The labels and names are the platform's word; a deck gathered from the last deal's
  tricks and a shuffle biased against the last deal's deck are tested by nothing: an
  examiner's archives of 1,000 matches rigged so were "no evidence of bias", and the
  sentence did not name them.
"""

import random

from tarneeb.audit.fairness import Tally
from tarneeb.replay.archive.battery.covered import UNCOVERED, uncovered
from tarneeb.replay.archive.battery.measures import fairness_results
from tarneeb.replay.archive.words import fairness_sentence
from tarneeb.testing.dealsim import synthetic_archive, synthetic_match


def test_drift_named_is_only_that_of_seats_1_and_3_and_the_computer_seats() -> None:
    assert "drift other than" in UNCOVERED
    assert "seats 1 and 3" in UNCOVERED and "computer seats" in UNCOVERED
    assert "one seat against its partner" in UNCOVERED


def test_card_positions_named_as_relative_to_the_dealer() -> None:
    assert "card positions relative to the dealer" in uncovered(["card position"])
    assert "card positions relative to the dealer" in UNCOVERED
    assert "table seat, team, player or seat label other than the trump honours'" in UNCOVERED


def test_what_the_platform_labels_and_the_last_deal_s_deck_are_named() -> None:
    assert "a computer seat labelled human" in UNCOVERED
    assert "a deck gathered from the last deal's tricks" in UNCOVERED
    assert "biased relative to the deck the last deal left" in UNCOVERED


def test_logs_in_no_season_are_told_their_order_was_not_tested() -> None:
    """Recorded deals: no test of drift or successive matches ran, and the sentence says
    so, not that only players with fewer than 20 matches went untested."""
    rng = random.Random(12)  # NOT secret: a reproducible test
    tally = Tally()
    for _ in range(60):
        synthetic_match(tally, rng, "eram41", 10)  # no leaf: no season order
    results = fairness_results({"recorded": tally}, 0.05)["recorded"]
    assert not any(r.test[1] in ("archive order", "successive matches") and r.tested
                   for r in results)
    text = fairness_sentence("recorded", results, 0.05)
    assert "drift over the archive and a player's successive matches (no test of them ran" \
        in text
    assert "the successive matches of a player with fewer than 20" not in text


def test_the_no_evidence_sentence_carries_both() -> None:
    tallies = synthetic_archive(random.Random(11), 40, 10, recorded_share=1.0)
    results = fairness_results(tallies, 0.05)["recorded"]
    text = fairness_sentence("recorded", results, 0.05)
    assert "card positions relative to the dealer" in text
    assert "drift other than" in text


def test_an_archive_of_no_deals_says_no_test_ran(tmp_path, capsys) -> None:
    """Matches abandoned before their first deal: the text says no test ran, as the JSON
    and the report say (it said "0 deals" and nothing of the tests)."""
    from cli_runner import run

    from tarneeb.replay.log import Abandonment, EndRecord
    from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
    from tarneeb.testing.alterations import rewrite

    secrets = MatchSecrets(b"no deals")

    def stopped(log):
        log.hands = []
        log.end = EndRecord(None, log.end.server_seed, Abandonment("disconnect", 0, "gone"))

    for i in range(2):
        data = play_logged_match("eram41", seed=b"no deals %d" % i, key=secrets.key)
        (tmp_path / f"m{i}.tlog").write_bytes(rewrite(data, stopped, resign=secrets.key))
    code, out, _ = run(capsys, "audit", "-j", "1", str(tmp_path))
    assert code == 0 and "No test ran: nothing is said of the deals." in out
