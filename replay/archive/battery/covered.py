"""What the archive audit's battery does not test, in the words every verdict and the
JSON's ``not_covered`` give: the measures named are those the archive was tested on."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tarneeb.audit.fairness import StatResult
from tarneeb.audit.fairness.fit import HONOUR_FIT, SUIT_FIT
from tarneeb.audit.fairness.nearrepeat import TEST as NEAR_REPEATS
from tarneeb.replay.archive.battery.honours import TRUMP_HONOURS
from tarneeb.replay.archive.battery.measures import (
    ACES,
    CARD_POSITION,
    DECK_ORDER,
    FIRST_DEALER,
    HCP,
    KINGS,
    LONG,
    MIN_KEY_DEALS,
    PATTERN,
    REPEATED,
    REPEATED_DEALS,
    REVEALED,
    REVEALED_RANK,
    TRUMP_SUIT,
    TRUMPS,
    VOIDS,
)

# the battery's measures, in the words the verdict names them, and their tests' names
MEASURE_WORDS = (
    ("high-card points", (HCP,)), ("trumps", (TRUMPS,)),
    ("the trump honours' points", (TRUMP_HONOURS,)), ("voids", (VOIDS,)),
    ("aces", (ACES,)), ("kings", (KINGS,)), ("long suits", (LONG,)),
    ("suit patterns", (PATTERN,)), ("card positions relative to the dealer", (CARD_POSITION,)),
    ("repeated and near-repeated hands (12 of 13 cards) and deals",
     (REPEATED, NEAR_REPEATS[0], REPEATED_DEALS)),
    ("the deck's order", (DECK_ORDER,)),
    ("partners' suit and honour fit", (SUIT_FIT[0], HONOUR_FIT[0])),
    ("the revealed card", (REVEALED, REVEALED_RANK, TRUMP_SUIT)),
    ("the first dealer", (FIRST_DEALER,)))


def uncovered(tested: Iterable[tuple[str, ...] | str] | None = None) -> str:
    """What the battery does not test, said with every verdict and in the JSON: the
    measures named are those of the tests ``tested`` (their ids, or their measures alone;
    None: every test the battery has), so an archive without a revealed card is not told
    its revealed cards were measured, nor an archive whose logs stand in no season that
    its drift was.

    >>> uncovered([("high-card points", "seat", "dealer"), ("voids", "all", "all")])[:85]
    'No test looks for: rigging of what is not measured (the measures are high-card points'
    >>> [("the revealed card" in uncovered(m)) for m in ([("high-card points",)], None)]
    [False, True]
    """
    tests = None if tested is None else list(tested)
    have = None if tests is None else {t if isinstance(t, str) else t[0] for t in tests}
    words = [w for w, names in MEASURE_WORDS if have is None or have.intersection(names)]
    if not words:  # (no test ran: an archive of no deals)
        return "No test ran: nothing is said of the deals."
    listed = ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else "".join(words)
    # (measures named without their tests: the archive's order is not known untested)
    ordered = tests is None or all(isinstance(t, str) for t in tests) or any(
        not isinstance(t, str) and _of_order(t) for t in tests)
    order = _ORDER if ordered else _NO_ORDER
    return ("No test looks for: rigging of what is not measured (the measures are "
            f"{listed}" + _UNCOVERED_REST.replace("{order}", order))


# the tests of the archive's order (drift, a player's successive matches), which need the
# logs' places in a season
def _of_order(test: tuple[str, ...]) -> bool:
    """Whether ``test`` is one of the archive's order (drift, successive matches)."""
    return test[1:2] in (("archive order",), ("successive matches",)) \
        or test[1:3] == ("serial", "consecutive matches")


_ORDER = ("the successive matches of a player with fewer than 20 matches; drift other than "
          "of seats 1 and 3's or the computer seats' points (one seat against its partner, a "
          "seat relative to the dealer), and any of the logs that stand in no season")
_NO_ORDER = ("drift over the archive and a player's successive matches (no test of them "
             "ran: the logs stand in no season, as logs of recorded deals do not, or too "
             "few do)")
_UNCOVERED_REST = ("); rigging steered by what the tests do not see (a player's skill or bids, "
                   'the time of day, the stakes, a match state other than behind, ahead, late, '
                   'after a won or lost deal and the first deal); any measure but high-card '
                   'points steered by the match state (trumps, aces or voids dealt by the '
                   "score: the state tests measure points alone, and see the others only as "
                   "they move a label's or team's deals as a whole); the state of a player with "
                   'fewer than 20 matches, or a cell of the state test with fewer than 50 '
                   'deals; {order}; a card\'s place by table seat, team, player or seat label '
                   "other than the trump honours' (a side suit's ace steered to a seat by a swap "
                   'that keeps every count); hands that share 11 cards or fewer with an earlier '
                   "one; a seed space too large to repeat deals at this archive's size; a "
                   "person's shuffle of a deck gathered from the last deal's tricks, or a "
                   'shuffle biased relative to the deck the last deal left; the seat labels and '
                   "names as the logs give them (a computer seat labelled human, or a player "
                   'under a new name each match, is tested as labelled); matches left '
                   'out of the archive; and any bias smaller than the sizes above. The deals are'
                   ' grouped by one thing at a time (a key, a rule set, a named player, a seat '
                   'label, a team), crossed only with the state of the match (points alone; and '
                   'a player with '
                   'the rule set): a bias confined to one rule set or one key on a hand other '
                   "than the first dealt (a key's and a rule set's tests read the hand "
                   "dealt first: another seat's shows only as it moves the whole archive's "
                   'seat tests), to one player under one key, to two named '
                   "players when they sit as partners, or to players' first matches shows only "
                   "as much as it moves that player's or label's deals as a whole; and the first"
                   ' dealer is tested by its seat and its label, not by who bids first after it '
                   '(a named player or a computer seat).')
def not_tested_apart(tested: Iterable[StatResult], groups: Mapping[str, Iterable[str]]) -> str:
    """Which of the archive's rule sets and keys (``groups``) were tested apart, when some
    were not ("" when each was, or there is one): a group is tested apart only with
    ``MIN_KEY_DEALS`` of these deals and another group as large.

    >>> not_tested_apart([], {"rule set": ["eram41", "classic"]})[:62]
    'Not tested apart (fewer than 100 of these deals, or no other o'
    """
    parts = []
    for by, names in groups.items():
        every = sorted(set(names))
        if len(every) < 2:
            continue
        apart = {r.test[2] for r in tested if len(r.test) > 2 and r.test[1] == by}
        left = [n for n in every if n not in apart]
        if left:
            kept = sorted(apart & set(every))
            parts.append((f"{by}s {', '.join(left)}" if len(left) > 1 else f"{by} {left[0]}")
                         + (f" (tested apart: {', '.join(kept)})" if kept else ""))
    if not parts:
        return ""
    return (f"Not tested apart (fewer than {MIN_KEY_DEALS} of these deals, or no other "
            f"of its kind with as many): {'; '.join(parts)}: their deals count only in the "
            "tests of the whole. ")


UNCOVERED = uncovered()  # every measure named: the sentence of the whole battery


__all__ = ["MEASURE_WORDS", "UNCOVERED", "not_tested_apart", "uncovered"]
