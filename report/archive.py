"""The archive audit's report: one self-contained page a platform or a regulator can publish.

The verdict first, in plain words; the counts; the findings table; then, for the
deals proven by seeds and for the deals only recorded, every statistic as an
observed-against-expected plot (matplotlib, inline SVG) beside its test, its
p-value after Holm's correction and the smallest bias the sample could have seen.
Built on the shared machinery of :mod:`tarneeb.report` (``templates/archive.html``).
Needs matplotlib (``pip install 'tarneeb[report]'``).
"""

from __future__ import annotations

import os
import textwrap
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tarneeb.replay.archive.audit import ArchiveSummary, describe_test
from tarneeb.replay.archive.monitor import MONITOR_KINDS
from tarneeb.replay.archive.seen import ARCHIVE_KINDS
from tarneeb.replay.archive.words import (
    ORIGIN_WORDS,
    detectable_sentence,
    evidence_sentence,
    format_p,
    key_counts,
    verdict_lines,
)
from tarneeb.replay.fairplay.summary import (
    GroupResult,
    anytime,
    distinct_names,
    quiet_verdict,
    replay_hint,
)
from tarneeb.replay.verify.findings import KINDS, place
from tarneeb.replay.verify.people import hands_from_1

from .page import Banner, Tone, render_page, write_page
from .plots import plain_text

if TYPE_CHECKING:
    from tarneeb.audit.fairness import StatResult

GROUP_WORDS = {"seat": "by seat relative to the dealer", "label": "by seat label",
               "table seat": "by table seat", "team": "by team", "player": "by player",
               "match state": "against the state of the match",
               "serial": "against the one before", "rule set": "by rule set",
               "named by declarer": "given the declarer's length in the named suit",
               "key": "by signing key", "all": "over all deals",
               "computer vs human": "computer seats against human seats"}


def headline(summary: ArchiveSummary, fairness: dict[str, list[StatResult]],
             play: Sequence[GroupResult] | None = None) -> Banner:
    """The verdict banner: what a reader must know if they read nothing else. Its colour
    means what the match report's means: green (``clean``) only when every log is clean,
    signed under a pinned key and dealt from proven seeds, the deals show no evidence
    of bias, and the play (``play``: the fair-play analysis's groups, with ``--play``) none
    of cards not seen; logs clean but not tied to a platform (a key not pinned), deals only
    recorded, or logs left out (``--skip-unreadable``) are a ``notice``."""
    s = summary
    # the fair-play groups with evidence: flagged, or significant and named to no player
    peeking = [] if play is None else [r for r in play if r.flagged or r.caveat()]
    biased = [o for o, rs in fairness.items() if any(r.flagged for r in rs)]
    if s.logs == 0:
        return Banner("notice", "No logs were found.")
    logs = ("The log is clean" if s.clean == s.logs == 1 else
            f"All {s.logs:,} logs are clean" if s.clean == s.logs else
            f"{s.logs - s.clean:,} of {s.logs:,} logs have findings or could not be read")
    if s.lost:
        logs += f" ({s.lost:,} judged before {'is' if s.lost == 1 else 'are'} gone)"
    if s.stopped:
        logs = f"INCOMPLETE: the audit stopped after {s.logs:,} logs. {logs}"
    if s.evidence is not None:  # with a state: the evidence over the history decides
        biased = ["all"] if s.evidence["flagged"] else []
        deals = ("the deals show evidence of bias over the archive's history" if biased else
                 "the deals show no evidence of bias over the archive's history")
    elif biased:
        deals = f"the {' and '.join(biased)} deals show evidence of bias"  # proven, recorded
    elif fairness:
        deals = "the deals show no evidence of bias"
    else:
        deals = "there were no deals to test"
    tone: Tone = "unreadable" if s.unreadable or s.unlisted or s.stopped else (
        "findings" if s.with_findings or biased or s.lost or peeking else
        "notice" if s.unpinned or s.deals.get("recorded", 0) else "clean")
    if s.clean == s.logs:
        joint = ", but " if biased else ", and "
    else:
        joint = ", and " if biased else "; "
    but = []
    if tone == "notice" and s.unpinned:
        but.append(f"{s.unpinned:,} of them {'is' if s.unpinned == 1 else 'are'} signed by a "
                   "key not pinned: nothing ties them to a platform")
    if tone == "notice" and s.deals.get("recorded", 0):
        but.append("some deals are only recorded by the platform: nothing proves how they "
                   "were dealt")
    if peeking:
        shown = distinct_names(play or ())
        deals += (f"; the play shows evidence of cards not seen ({len(peeking)} fair-play "
                  f"group{'' if len(peeking) == 1 else 's'}: "
                  + "; ".join(f"{r.kind} {shown(r.name)}" for r in peeking[:3])
                  + ("; …" if len(peeking) > 3 else "") + ")")
    said = f"{logs}{joint}{deals}" + (f"; but {'; '.join(but)}" if but else "")
    return Banner(tone, said + ".", " ".join(verdict_lines(s, None)))


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:,.{digits}f}"


def _test_row(r: StatResult) -> dict[str, Any]:
    measure, by, group = (*r.test, "", "")[:3]
    if r.method == "G-test":
        observed = f"{sum(r.observed):,.0f} in {len(r.categories)} categories"
        expected = f"G = {_fmt(r.statistic)}, df {r.df}" if r.statistic is not None else "–"
    elif len(r.observed) > 1:  # a joint test: the group furthest from its expectation
        i = _worst(r)
        observed = f"{r.categories[i]} {_fmt(r.observed[i])}"
        expected = f"{_fmt(r.expected[i])}; chi-square {_fmt(r.statistic)}, df {r.df}" \
            if r.statistic is not None else _fmt(r.expected[i])
    elif r.observed and r.method == "max z over states" and r.categories:  # its worst cell
        observed, expected = f"{r.categories[0]}: {_fmt(r.observed[0])}", _fmt(r.expected[0])
    elif r.observed:
        observed, expected = _fmt(r.observed[0]), _fmt(r.expected[0])
    else:  # not tested (too few players with enough hands, too few deals): nothing observed
        observed = expected = "–"
    unit = {"Cohen's w": "w", "mean shift per hand": "per hand",
            "difference per deal": "difference"}.get(r.detectable_unit, r.detectable_unit)
    return {"measure": measure, "group": group if by != "all" else "all deals",
            "by": GROUP_WORDS.get(by, by), "method": r.method, "n": f"{r.n:,}",
            "observed": observed, "expected": expected, "p": format_p(r.p_value),
            "p_adjusted": format_p(r.p_adjusted), "flagged": r.flagged, "tested": r.tested,
            "detectable": f"{_fmt(r.detectable)} {unit}" if r.detectable is not None else "–",
            "id": _slug(r.test)}


def _worst(r: StatResult) -> int:
    """The group of a joint test furthest from its expectation."""
    return max(range(len(r.observed)), key=lambda i: abs(r.observed[i] - r.expected[i]))


def _slug(test: tuple[str, ...]) -> str:
    return "-".join("".join(c if c.isalnum() else "-" for c in part) for part in test).lower()


@plain_text
def _figures(origin: str, results: list[StatResult]) -> list[Any]:
    """One figure per measure and grouping (a panel per group, one above the other), and one
    for the means: 6 inches wide (7 with many categories; the means 5, their labels beside
    them), text of 9 points at least; a phone shows each 36rem wide, scrolled sideways in
    its box (report.css), so 9 points stay 9 CSS pixels or more, and print fits them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plots import figure_svg

    panels: dict[tuple[str, str], list[StatResult]] = defaultdict(list)
    means: list[StatResult] = []
    for r in results:
        if not r.tested:
            continue  # too few deals for a test: nothing to plot
        if r.method == "G-test":
            panels[(r.test[0], r.test[1])].append(r)
        else:
            means.append(r)
    figures = []
    for (measure, by), rs in panels.items():
        wide = max(len(r.categories) for r in rs) > 14
        rows = len(rs)
        fig, axes = plt.subplots(rows, 1, figsize=(7 if wide else 6, 2.8 * rows),
                                 squeeze=False, gridspec_kw={"hspace": 0.9})
        for ax, r in zip(axes.flat, rs, strict=False):
            x = range(len(r.categories))
            ax.bar(x, r.observed, color="#7b8fb5", label="observed")
            ax.plot(x, r.expected, "o", color="#a11d1d", markersize=4,
                    label="expected (uniform shuffle)")
            ax.set_xticks(list(x), r.categories, rotation=90 if wide or len(x) > 8 else 0,
                          fontsize=9)
            flag = "FLAGGED " if r.flagged else ""
            label = r.test[2] if r.test[1] != "all" else "all deals"
            ax.set_title(f"{flag}{label}: p (Holm) {format_p(r.p_adjusted)}", fontsize=11,
                         color="#a11d1d" if r.flagged else "#1d2330")
            ax.tick_params(axis="y", labelsize=9)
        for ax in list(axes.flat)[len(rs):]:
            ax.axis("off")
        axes.flat[0].legend(fontsize=9)
        fig.suptitle(f"{measure}, {GROUP_WORDS.get(by, by)}", fontsize=12)
        fig.subplots_adjust(top=1 - 0.5 / (2.8 * rows))
        title = f"{measure}, {GROUP_WORDS.get(by, by)}: observed against expected"
        figures.append(figure_svg(fig, f"{origin} deals: {title}",
                                  caption=f"{title}; counts per category, rare categories "
                                          "merged until each expects at least 5."))
    if means:
        # its labels beside it, wrapped so that the drawing keeps its width (9-point text
        # stays 9 CSS pixels on a phone)
        labels = [textwrap.fill(describe_test(r), 44) for r in means]
        lines = sum(label.count("\n") + 1 for label in labels)
        fig, ax = plt.subplots(figsize=(5, 0.2 * lines + 0.16 * len(means) + 1.4))
        for i, r in enumerate(means):
            diff = r.observed[_worst(r)] - r.expected[_worst(r)] if r.observed else 0.0
            colour = "#a11d1d" if r.flagged else "#1d2330"
            ax.errorbar(diff, i, xerr=1.96 * (r.std_error or 0.0), fmt="o", color=colour,
                        capsize=3, markersize=4)
            if r.detectable is not None:
                ax.plot([-r.detectable, r.detectable], [i, i], "|", color="#c9a227",
                        markersize=10)
        ax.axvline(0, color="#5b6475", linewidth=0.8)
        ax.set_yticks(range(len(means)), labels, fontsize=9)
        ax.invert_yaxis()
        ax.set_xlabel("observed minus expected (dot, with 95% interval); detectable bias "
                      "(yellow ticks)", fontsize=9)
        ax.tick_params(axis="x", labelsize=9)
        title = ("means per hand and computer against human: observed minus expected (a joint "
                 "test: its group furthest from expected)")
        figures.append(figure_svg(fig, f"{origin} deals: {title}", caption=title))
    return figures


@plain_text
def evidence_figure(history: list[float], alpha: float, crossed: int | None) -> Any:
    """The evidence against matches (the order the archive's state first saw them): the
    combined e-value on a log scale, the line ``1/alpha`` it must reach to flag the
    archive, and the match where it first did."""
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plots import figure_svg

    fig, ax = plt.subplots(figsize=(6, 2.8))
    x = range(1, len(history) + 1)
    ax.plot(x, [v / math.log(10) for v in history], color="#2d4a7b", linewidth=1.2,
            label="e-value (log10)")
    ax.axhline(math.log10(1 / alpha), color="#a11d1d", linestyle="--", linewidth=1,
               label=f"1/alpha = {1 / alpha:g}")
    if crossed is not None:
        ax.axvline(crossed, color="#a11d1d", linewidth=0.8)
        ax.annotate(f"crossed at match {crossed:,}", (crossed, math.log10(1 / alpha)),
                    textcoords="offset points", xytext=(4, 6), fontsize=9)
    ax.set_xlabel("matches, in the order first audited", fontsize=9)
    ax.set_ylabel("log10 e-value", fontsize=9)
    ax.tick_params(labelsize=9)
    ax.legend(fontsize=9, loc="upper left")
    caption = ("The evidence of bias after each match. A fair archive reaches the dashed "
               f"line with probability at most {alpha:g} over its whole history, however "
               "often it is looked at.")
    return figure_svg(fig, "The evidence of bias against matches", caption)


def _evidence_section(summary: ArchiveSummary, history: list[float] | None,
                      alpha: float) -> dict[str, Any] | None:
    ev = summary.evidence
    if ev is None or history is None:
        return None
    return {"figure": evidence_figure(history, alpha, ev["crossed_at"]) if history else None,
            "sentence": evidence_sentence(ev, alpha),
            "strongest": [(_evidence_test(t["test"]),
                           f"{t['e_value_log10']:.2f}") for t in ev["strongest"]],
            "fixed_only": [describe_battery_test(t) for t in ev.get("fixed_sample_only", [])],
            "state": summary.monitor}


def describe_battery_test(test: list[Any]) -> str:
    """A test of the fixed-sample battery in words: the measure and the group."""
    measure, by, *group = [str(x) for x in test]
    return f"{measure}, {'all deals' if by == 'all' else ' '.join([by, *group])}"


def _evidence_test(test: list[Any]) -> str:
    """A test of the evidence in words: what is bet on (``mean``, ``fit``, ``cov``), the
    measure and the group.

    >>> _evidence_test(["cov", "high-card points", "match state", "side behind"])
    'high-card points, match state side behind (bets on the covariance)'
    """
    kind, measure, by, *group = [str(x) for x in test]
    what = {"mean": "the mean", "fit": "the distribution", "cov": "the covariance",
            "place": "the positions", "repeat": "repeats", "bound": "the bounded mean",
            "lag": "consecutive members", "state": "each state's cells",
            "drift": "a drift learnt from the deals before", "balance": "successive matches",
            "pairing": "the pairing of the four hands", "near": "near pairs"}.get(kind, kind)
    where = "all deals" if by == "all" else " ".join([by, *group])
    return f"{measure}, {where} (bets on {what})"


def archive_page(summary: ArchiveSummary, fairness: dict[str, list[StatResult]],
                 alpha: float, subtitle: str = "", generator: str = "tarneeb audit",
                 history: list[float] | None = None,
                 play: Sequence[GroupResult] | None = None) -> str:
    """The report as HTML text (``history``: with a state, the evidence after each
    match; ``play``: the fair-play analysis's groups, worst first)."""
    sections = []
    for origin, results in fairness.items():
        what, meaning = ORIGIN_WORDS[origin]
        tested = [r for r in results if r.tested]
        flagged = [r for r in tested if r.flagged]
        sections.append({
            "id": f"fairness-{origin}", "title": f"Fairness of the {what}",
            "meaning": meaning[0].upper() + meaning[1:] + ".",
            "deals": summary.deals.get(origin, 0),
            "matches": summary.matches_by_origin.get(origin, 0),
            "tested": len(tested), "flagged": [describe_test(r) for r in flagged],
            "detectable": detectable_sentence(tested),
            "rows": [_test_row(r) for r in results],
            "figures": _figures(origin, results),
        })
    findings = [{"where": f"{f.path}: "
                          + hands_from_1(place(hand=f.hand, trick=f.trick, seat=f.seat)),
                 "kind": f.kind, "message": hands_from_1(f.message)}
                for f in summary.first_findings]  # for people: hands counted from 1
    meanings = {**KINDS, **ARCHIVE_KINDS, **MONITOR_KINDS}
    kinds = [{"kind": k, "count": f"{n:,}", "meaning": meanings.get(k, "")}
             for k, n in sorted(summary.findings_by_kind.items(), key=lambda kv: -kv[1])]
    facts = [("logs", f"{summary.logs:,}"), ("clean", f"{summary.clean:,}"),
             ("with findings", f"{summary.with_findings:,}"),
             ("unreadable", f"{summary.unreadable:,}"),
             ("deals proven by seeds or a blind transcript",
              f"{summary.deals.get('proven', 0):,}"),
             ("deals only recorded", f"{summary.deals.get('recorded', 0):,}"),
             ("hands played", f"{summary.played:,}"),
             ("copies of a log read before", f"{summary.copies:,}"),
             ("other logs of a match read before", f"{summary.conflicting:,}"),
             ("matches by rule set", ", ".join(f"{k} {v:,}" for k, v in
                                                sorted(summary.by_rules.items())))]
    if summary.deals_unsigned:
        facts.insert(6, ("of them in logs with a signature finding (not shown to be the "
                         "platform's)", f"{summary.deals_unsigned:,}"))
    if summary.not_read or summary.unlisted:
        facts[4:4] = [("files not read at all", f"{summary.not_read:,}"),
                      ("directories not listed", f"{summary.unlisted:,}")]
    signers = [{"key": k, "platform": summary.signers.get(k, (None, False))[0] or "",
                "pinned": summary.signers.get(k, (None, False))[1], "label": label,
                "matches": f"{n:,}", "known": k in summary.signers}
               for (label, n), k in zip(key_counts(summary), _keys_by_count(summary),
                                        strict=True)]
    ab = summary.abandoned
    abandoned = None
    if ab.matches:
        p = ab.p_value()
        abandoned = {"sentence": ab.sentence(alpha), "causes": sorted(ab.by_cause.items()),
                     "seats": [(f"seat {k + 1}", v) for k, v in sorted(ab.by_seat.items())],
                     "labels": sorted(ab.by_label.items()),
                     "behind": ab.behind, "ahead": ab.ahead, "level": ab.level,
                     "p": format_p(p), "flagged": p is not None and p < alpha}
    return render_page("archive.html", title="Archive audit", subtitle=subtitle,
                       generator=generator, verdict=headline(summary, fairness, play),
                       lines=verdict_lines(summary, fairness, alpha), facts=facts, kinds=kinds,
                       findings=findings, findings_total=sum(summary.findings_by_kind.values()),
                       unreadable=summary.first_unreadable, sections=sections,
                       unlisted=summary.first_unlisted, signers=signers, abandoned=abandoned,
                       repeats=summary.first_repeats,
                       repeats_total=summary.copies + summary.conflicting,
                       evidence=_evidence_section(summary, history, alpha),
                       play=_play_rows(play), play_anytime=play is not None and anytime(play),
                       play_quiet=None if play is None else _capital(quiet_verdict(play)),
                       play_tested=play is not None and any(r.tested for r in play),
                       alpha=f"{alpha:.0%}" if alpha >= 0.01 else f"{alpha:g}")


def _keys_by_count(summary: ArchiveSummary) -> list[str]:
    """The key ids in the order :func:`key_counts` gives them."""
    return [k for k, _ in sorted(summary.by_key.items(), key=lambda kv: (-kv[1], kv[0]))]


def write_archive_report(path: str | os.PathLike[str], summary: ArchiveSummary,
                         fairness: dict[str, list[StatResult]], alpha: float,
                         subtitle: str = "", history: list[float] | None = None,
                         play: Sequence[GroupResult] | None = None) -> None:
    """Write the report to ``path`` (atomically); ``history``: with a state, the evidence
    after each match; ``play``: the fair-play analysis's groups, worst first (``--play``)."""
    write_page(path, archive_page(summary, fairness, alpha, subtitle, history=history,
                                  play=play))


def _capital(text: str | None) -> str | None:
    return None if text is None else text[:1].upper() + text[1:]


def _play_rows(play: Sequence[GroupResult] | None) -> list[dict[str, Any]] | None:
    """The fair-play groups for the page, worst first, each with a hand to replay."""
    if play is None:
        return None
    shown = distinct_names(play)  # a name that looks like another's written out, as in text
    return [{"group": f"{r.kind} {shown(r.name)}", "decisions": f"{r.decisions:,}",
             "hands": f"{r.hands:,}", "excess": f"{100 * r.excess:+.1f}", "z": f"{r.z:+.2f}",
             "p": format_p(r.p_value),
             "p_adjusted": "" if r.p_adjusted is None else format_p(r.p_adjusted),
             "tested": r.tested, "flagged": r.flagged, "caveat": r.caveat(shown),
             "replay": replay_hint(r.weighing[0]) if r.weighing else ""} for r in play]


__all__ = ["archive_page", "headline", "write_archive_report"]
