"""A flagged group's sentence says what its reference layouts leave out.

The reference layouts keep the cards a seat saw and the real lengths and points; they
are uniform within them, so they model neither what the bids nor what the other
players' habits of play say of *which* cards a hand holds. An honest partnership (a
seat that leads trumps relentlessly beside one that always plays its lowest card,
against one that always plays its highest) was flagged on 5 matches: its third-hand
plays (the bot's) beat layouts that did not know the lowest-card partner's lead
showed no lower card, nor the highest-card opponent's that it held no higher one. The
sentence must not read as if the layouts held all the seat saw but the bids.
"""

from tarneeb.replay.fairplay.summary import GroupResult


def _flagged_line() -> str:
    r = GroupResult("partnership", "Duck & TrumpLead", 745, 86, 0.014, 2.87, 0.0021,
                    0.017, flagged=True, significant=True)
    return r.describe()


def test_the_flag_sentence_says_the_layouts_do_not_model_the_others_habits() -> None:
    line = _flagged_line()
    assert "over its reference layouts" in line
    assert "not what the bids say of which cards" in line
    assert "nor what the other players' habits of play say of them" in line
