"""Fair play looked at again and again (``tarneeb audit --play --state``, every day): the
groups' e-values against the family's bar keep the chance that an honest archive is
*ever* flagged, over every look, at or under alpha, where Holm's correction at each look
(right for one look) flags an honest archive more and more often the more it is looked at.

The simulated decisions are scored as the analysis scores them (``score``: the card played
against a legal card at random, on the real layout less on six reference draws, the
variance estimated from the draws), honest (the real layout a draw like the others), by
groups that come to the archive over time, as players do."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tarneeb.audit.fairness.scores import (
    ScoreTally,
    anytime_flags,
    family_threshold,
    holm_flags,
    mixture_log_e,
)
from tarneeb.testing.playscores import group_scores

ALPHA = 0.05


def test_the_mixture_is_the_integral_it_stands_for() -> None:
    from scipy import integrate

    rho = 2.0
    for s, v in [(30.0, 30.0), (0.0, 30.0), (-5.0, 10.0), (3.0, 1.0), (100.0, 2000.0)]:
        def f(lam: float, s: float = s, v: float = v) -> float:
            return 2 * math.sqrt(rho / (2 * math.pi)) * math.exp(
                -rho * lam * lam / 2 + lam * s - lam * lam * v / 2)
        value, _ = integrate.quad(f, 0, math.inf, limit=200)
        assert mixture_log_e(s, v) == pytest.approx(math.log(value), abs=1e-9)
    assert mixture_log_e(-1e6, 30.0) < -10  # far in the lower tail: no overflow, no log(0)


def test_the_bar_spends_alpha_once_over_every_rank() -> None:
    """The k-th group's share of alpha is 1/family_threshold(k): they add up to at most 1
    (the series to ten million, and its tail's integral bound)."""
    head = math.fsum(1 / family_threshold(k) for k in range(1, 10**6))
    tail = 1 / (1.6928 * (1 + math.log(10**6)))
    assert head + tail <= 1.0
    assert family_threshold(40) > 40 * family_threshold(1)  # more groups, a higher bar


def test_an_honest_archive_looked_at_after_every_match_is_flagged_at_most_at_alpha() -> None:
    archives, matches, groups = 300, 60, 12
    parts = [group_scores(50, matches, groups, np.random.default_rng(33 + i))
             for i in range(6)]
    n, s, v = (np.concatenate([p[j] for p in parts]).cumsum(axis=1) for j in range(3))
    anytime = holm = 0
    for a in range(archives):
        ever_anytime = ever_holm = False
        for m in range(matches):
            tested = [ScoreTally(int(n[a, m, g]), float(s[a, m, g]), float(v[a, m, g]))
                      for g in range(groups) if n[a, m, g] >= 50]
            if not tested:
                continue
            ever_anytime |= any(f for _, _, f in anytime_flags(tested, ALPHA))
            ever_holm |= any(f for _, f in holm_flags([t.result().p_value for t in tested],
                                                      ALPHA))
        anytime += ever_anytime
        holm += ever_holm
    # at or under alpha over sixty looks (a rate of exactly 5 % gives 27 or more in 300
    # about one time in ten); Holm at each look, valid for one, is ever wrong far more
    assert anytime <= 22, anytime
    assert holm >= 2 * ALPHA * archives and holm > 3 * anytime, (holm, anytime)


def test_a_seat_that_beats_its_information_is_still_flagged() -> None:
    """Power: one group's card is best 8 points more often than its information allows;
    the bar of twelve groups is reached within the archive, and by that group alone."""
    n, s, v = (x.cumsum(axis=1)[0] for x in group_scores(
        1, 150, 12, np.random.default_rng(5), shift=[0.08] + [0.0] * 11))
    flagged_at = None
    for m in range(150):
        tested = [g for g in range(12) if n[m, g] >= 50]
        flags = anytime_flags([ScoreTally(int(n[m, g]), float(s[m, g]), float(v[m, g]))
                               for g in tested], ALPHA)
        if any(f for _, _, f in flags):
            flagged_at = m + 1
            assert [g for g, (_, _, f) in zip(tested, flags, strict=True) if f] == [0]
            break
    assert flagged_at is not None and flagged_at <= 120, flagged_at


def test_a_summary_held_to_the_anytime_bar_says_so_in_text_json_and_report() -> None:
    """The same figures, another bar: the words, ``--json`` and the page say which, and a
    seat far beyond its information is flagged under either."""
    from tarneeb.replay.archive.audit import ArchiveSummary
    from tarneeb.replay.fairplay.analyse import Decision, HandPlay
    from tarneeb.replay.fairplay.summary import MatchPlay, PlaySummary, play_lines
    from tarneeb.report.archive import archive_page

    d = Decision(0, 30, 5, 1, 1, 2, 10, 3, 13, 3, 17)  # seat 0's card best, rarely so
    e = Decision(1, 31, 6, 0, 1, 2, 10, 5, 15, 5, 25)
    ps = PlaySummary()
    for i in range(60):
        ps.add(MatchPlay(f"m{i}.tlog", ("Ann", "Bo", "Cy", "Di"),
                         (False, True, False, True), [HandPlay(i, (d, e))]))
    once, always = ps.results(ALPHA), ps.results(ALPHA, anytime=True)
    assert [(r.kind, r.name, r.decisions, r.z) for r in once] == [
        (r.kind, r.name, r.decisions, r.z) for r in always]
    assert all(r.log_e is None for r in once) and all(r.log_e is not None for r in always)
    assert ps.to_json(once)["test"] == "holm" and ps.to_json(always)["test"] == "anytime"
    ann = next(r for r in always if (r.kind, r.name) == ("player", "Ann"))
    assert ann.significant and ann.p_adjusted is not None and ann.p_adjusted <= ALPHA
    text = "\n".join(play_lines(ps, always, ALPHA))
    assert "valid however often the archive is looked at" in text and "Holm" not in text
    assert "e-value e^" in text
    page = archive_page(ArchiveSummary(), {}, ALPHA, play=always)
    section = page[page.index('<section id="fairplay">'):]
    assert "p (anytime)" in section and "p (Holm)" not in section[:section.index("</section>")]
