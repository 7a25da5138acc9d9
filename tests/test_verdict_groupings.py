"""The fixed-sample verdict's "no evidence of bias" says what its groupings do not cross.

A platform can favour one named player under one signing key only, two named players when
they sit as partners, or the player who bids first: each grouping of the battery sees such
a bias only diluted into its whole, and the sentence must not let a reader think otherwise.
"""

import random

from tarneeb.replay.archive.battery.covered import UNCOVERED
from tarneeb.replay.archive.battery.measures import fairness_results
from tarneeb.replay.archive.words import fairness_sentence
from tarneeb.testing.dealsim import synthetic_archive


def _sentence() -> str:
    tallies = synthetic_archive(random.Random(7), 120, 10, recorded_share=1.0)
    results = fairness_results(tallies, 0.05)["recorded"]
    assert not any(r.flagged for r in results)
    return fairness_sentence("recorded", results, 0.05)


def test_no_evidence_names_the_groupings_not_crossed() -> None:
    text = _sentence()
    assert "no evidence of bias" in text
    assert UNCOVERED in text
    assert "one player under one key" in text and "partners" in text
    assert "not by who bids first" in text


def test_no_evidence_gives_the_one_player_size() -> None:
    text = _sentence()
    assert "points per hand for one named player over all their matches" in text


def test_the_measures_named_are_those_the_archive_was_tested_on() -> None:
    """An archive of rules that reveal no card is not told its revealed cards were
    measured; one whose rules reveal the dealer's card is."""
    from tarneeb.audit.fairness import Tally
    from tarneeb.testing.dealsim import synthetic_match

    for rules, revealed in (("classic", False), ("eram41", True)):
        tally, rng = Tally(), random.Random(3)
        for _ in range(40):
            synthetic_match(tally, rng, rules, 10)
        results = fairness_results({"recorded": tally}, 0.05)["recorded"]
        text = fairness_sentence("recorded", results, 0.05)
        named = text[text.index("the measures are"):text.index("); rigging steered")]
        assert ("the revealed card" in named) is revealed, named
        assert "high-card points" in named and "card positions" in named
