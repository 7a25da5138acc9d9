"""The fair-play analysis: do a seat's card choices show it saw cards it could not see?

:mod:`~tarneeb.replay.fairplay.solver` (double-dummy values from DDS, through the
optional ``endplay``: ``pip install 'tarneeb[play]'``), :mod:`~.layouts` (what a seat
knows at a decision, and layouts of the hidden cards drawn uniformly among those
agreeing with it and, for the audit, with the real shape), :mod:`~.analyse` (a played
hand's decisions, each scored: was the card chosen double-dummy best on the real
layout, on how many reference layouts, on how many with the partner's hand known),
:mod:`~.summary` (per player, per seat label, per partnership: the score test of
:mod:`tarneeb.audit.fairness.scores`, Holm-corrected, worst first; a player named only on
its own figure, its opening leads, chosen before its partner played). The statistic and
what it can and cannot see are in docs/FAIRPLAY.md.

May import: :mod:`tarneeb.replay.verify`, :mod:`tarneeb.replay.log`,
:mod:`tarneeb.replay.rules`, :mod:`tarneeb.audit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tarneeb.replay.fairplay.analyse import SAMPLES, HandPlay, analyse_hand, hand_rng
from tarneeb.replay.fairplay.solver import INSTALL, PlayUnavailable, available
from tarneeb.replay.fairplay.summary import GroupResult, MatchPlay, PlaySummary
from tarneeb.replay.rules.scoring import Hand

ANALYSIS = 4
"""The analysis's version, kept with each log's fair-play record under ``--state``: a
record made by another version (1: opening leads' references kept the hidden hands' suit
lengths only, not their high-card points; 2: a decision whose legal cards were worth the
same on every reference layout drawn was left out, which biased the others' figure up;
3: the references of the decisions after the opening lead kept the lengths only, so an
honest partnership that reads the bids for the honours was flagged) is analysed again."""


@dataclass(frozen=True, slots=True)
class PlayOptions:
    """How the audit analyses play: the Monte Carlo ``seed`` (from :mod:`secrets` in the
    command), layouts per decision, and ``per_match`` (``--play-sample N``): at most that
    many hands of each match (spread evenly; ``None``: all), and none of a match whose four
    players this process has already analysed that many hands of in this ``run`` (what
    tells one audit from another), so that a quick look at a large archive costs about N
    hands a player, not N a match."""

    seed: bytes
    samples: int = SAMPLES
    per_match: int | None = None
    run: str = ""


_analysed: tuple[str, dict[str, int], set[bytes]] = ("", {}, set())
"""Hands analysed per player in this process, for the run named first (``--play-sample``),
and the logs (by content) analysed."""


def _wanted(names: Sequence[str], match: bytes, options: PlayOptions) -> bool:
    """Whether a match of these players is analysed: always without ``--play-sample``;
    with it, when one of them has fewer than N hands analysed in this process and run, and
    the same bytes were not analysed before in it (a copy of a log counts once in the
    summary: counted twice here, it would keep the players' other matches out)."""
    global _analysed
    if options.per_match is None:
        return True
    if _analysed[0] != options.run:
        _analysed = (options.run, {}, set())
    counts, seen = _analysed[1], _analysed[2]
    if match in seen:
        return False
    return any(counts.get(n, 0) < options.per_match for n in names)


def _count(names: Sequence[str], match: bytes, hands: int) -> None:
    counts = _analysed[1]
    if hands:
        _analysed[2].add(match)
    for n in set(names):
        counts[n] = counts.get(n, 0) + hands


def analyse_match(path: str, match: bytes, history: Sequence[Hand], names: Sequence[str],
                  computer: Sequence[bool], reveals: bool, options: PlayOptions) -> MatchPlay:
    """The analysed hands of one verified match (``match``: what tells it from others, for
    the Monte Carlo streams; ``reveals``: the rules show the dealer's 13th card)."""
    played = [h for h in history if not h.cancelled and len(h.plays) == 52]
    if not _wanted(names, match, options):
        played = []
    if options.per_match is not None and len(played) > options.per_match:
        step = len(played) / options.per_match
        played = [played[int(i * step)] for i in range(options.per_match)]
    if options.per_match is not None:
        _count(names, match, len(played))
    hands = [analyse_hand(h, reveals, hand_rng(options.seed, match, h.deal_number),
                          options.samples) for h in played]
    return MatchPlay(path, tuple(names), tuple(computer), hands)


__all__ = ["ANALYSIS", "INSTALL", "GroupResult", "HandPlay", "MatchPlay", "PlayOptions",
           "PlaySummary",
           "PlayUnavailable", "analyse_match", "available"]
