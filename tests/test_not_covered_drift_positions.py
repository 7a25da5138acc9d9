"""The "not covered" sentence names two riggings the battery cannot see.

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
  measures as if a card's table seat were one.
"""

import random

from tarneeb.replay.archive.measures import UNCOVERED, fairness_results, uncovered
from tarneeb.replay.archive.words import fairness_sentence
from tarneeb.testing.dealsim import synthetic_archive


def test_drift_named_is_only_that_of_seats_1_and_3_and_the_computer_seats() -> None:
    assert "drift other than" in UNCOVERED
    assert "seats 1 and 3" in UNCOVERED and "computer seats" in UNCOVERED
    assert "one seat against its partner" in UNCOVERED


def test_card_positions_named_as_relative_to_the_dealer() -> None:
    assert "card positions relative to the dealer" in uncovered(["card position"])
    assert "card positions relative to the dealer" in UNCOVERED


def test_the_no_evidence_sentence_carries_both() -> None:
    tallies = synthetic_archive(random.Random(11), 40, 10, recorded_share=1.0)
    results = fairness_results(tallies, 0.05)["recorded"]
    text = fairness_sentence("recorded", results, 0.05)
    assert "card positions relative to the dealer" in text
    assert "drift other than" in text
