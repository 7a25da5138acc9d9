"""The archive audit's verdict in words: for a person, most important first.

>>> from tarneeb.replay.archive.audit import ArchiveSummary
>>> verdict_lines(ArchiveSummary())
['No logs were found.']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tarneeb.audit.fairness import DEFAULT_ALPHA, FAMILIES, StatResult
from tarneeb.audit.names import name_scripts
from tarneeb.replay.archive.audit import ORIGINS, ArchiveSummary, describe_test
from tarneeb.replay.archive.battery.covered import not_tested_apart, uncovered
from tarneeb.replay.archive.seen import CONFLICT_KIND

ORIGIN_WORDS = {
    "proven": ("deals proven by seeds or a blind transcript",
               "their seeds fix them (steering them takes choosing the seeds, which the "
               "players' receipts rule out, and a log signed by an unpinned key may have "
               "been made, seeds and all, by anyone), so these statistics test the "
               "implementation of the shuffle"),
    "recorded": ("deals only recorded by the platform", "nothing proves how they were "
                 "dealt, so these statistics are the only evidence of their fairness"),
}


def format_p(p: float | None) -> str:
    """A p-value as a reader wants it: three figures, or a bound past what a float holds.

    >>> format_p(0.01234), format_p(3e-7), format_p(0.0), format_p(None)
    ('0.0123', '3.0e-07', '< 1e-15', 'not tested')
    """
    if p is None:
        return "not tested"
    if p < 1e-15:
        return "< 1e-15"
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.1e}"


def count(n: int, noun: str) -> str:
    """A number of things, in words.

    >>> count(1, "match"), count(2_000, "log")
    ('1 match', '2,000 logs')
    """
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}{'es' if noun.endswith('ch') else 's'}"


def verdict_lines(summary: ArchiveSummary,
                  fairness: dict[str, list[StatResult]] | None = None,
                  alpha: float = DEFAULT_ALPHA) -> list[str]:
    """The verdict in plain words, most important first."""
    s = summary
    lines = []
    if s.logs == 0:  # (none read before it stopped: not "none found")
        return [f"INCOMPLETE: {s.stopped.rstrip('.')}. No log was read before it stopped."] \
            if s.stopped \
            else ["No logs were found."]
    if s.clean == s.logs:
        lines.append(("The log is clean" if s.logs == 1 else f"All {s.logs:,} logs are clean")
                     + ": every hand replays under the rules and every claim matches.")
    else:
        parts = []
        if s.with_findings:
            parts.append(f"{s.with_findings:,} " + ("has" if s.with_findings == 1 else "have")
                         + " findings")
        if s.unreadable:
            parts.append(f"{s.unreadable:,} could not be read")
        lines.append(f"{s.clean:,} of {count(s.logs, 'log')} "
                     + ("is" if s.clean == 1 else "are") + " clean; " + " and ".join(parts) + ".")
    if s.unpinned:  # as verify's first line says it of one log
        lines[0] += (f" {count(s.unpinned, 'log')} {'is' if s.unpinned == 1 else 'are'} signed "
                     "by a key named in the log itself, NOT PINNED (no key given with --key "
                     "or --keys): anyone could have made "
                     f"{'it' if s.unpinned == 1 else 'them'}, seeds and all, with a key of "
                     "their own.")
    if s.unlisted:
        lines[0] += (f" {s.unlisted:,} director{'y' if s.unlisted == 1 else 'ies'} could not be "
                     "listed: the logs in " + ("it" if s.unlisted == 1 else "them")
                     + " are not in this audit.")
    if s.not_read or s.unlisted:
        lines.append(not_read_sentence(s))
    if s.copies or s.conflicting:
        lines.append(repeats_sentence(s.copies, s.conflicting))
    if s.stopped:  # first of all: every count below is of the logs read before it
        lines.insert(0, f"INCOMPLETE: {s.stopped.rstrip('.')}. What follows counts only the "
                     f"{s.logs:,} logs read before it stopped.")
    if s.abandoned.matches:
        lines.append(s.abandoned.sentence(alpha))
    said = {}
    for origin in ORIGINS:
        deals = s.deals.get(origin, 0)
        matches = count(s.matches_by_origin.get(origin, 0), "match")
        said[origin] = f"{count(deals, 'deal')} ({matches}) {'is' if deals == 1 else 'are'}"
    unsigned = ""
    if s.deals_unsigned or s.matches_unsigned:
        unsigned = (f" ({s.deals_unsigned:,} of them, in "
                    f"{count(s.matches_unsigned, 'match')}, in logs with a signature finding: "
                    "not shown to be the platform's at all, whatever their seeds)")
    lines.append(f"{said['proven']} proven by seeds or a blind transcript; "
                 f"{said['recorded']} only recorded "
                 f"by the platform{unsigned}.")
    if s.monitor is not None:
        lines.extend(monitor_lines(s, alpha))
    every = sum(r.tested for rs in (fairness or {}).values() for r in rs)
    # (a key is its platform's name in the tests when the user's keys name it, as pinned)
    groups = s.groups()
    for origin, results in (fairness or {}).items():
        others = every - sum(r.tested for r in results)
        sentence = fairness_sentence(origin, results, alpha, others, groups)
        if s.evidence is not None:  # with a state the evidence makes the verdict
            sentence = (sentence.rstrip(".") + " (this look alone, not valid under repeated "
                        "looks: the verdict on bias is the evidence's).")
        lines.append(sentence)
    if fairness is not None and not any(fairness.values()) and s.evidence is None:
        lines.append(uncovered(()))  # (no deal to test: said, as the JSON and report say)
    return lines


def monitor_lines(s: ArchiveSummary, alpha: float) -> list[str]:
    """With a state: what the run read, the logs changed, lost and removed, the evidence."""
    m = s.monitor or {}
    checked = (f" ({m['checked']} of them read again to check their bytes are the same)"
               if m.get("checked") else "")
    lines = [f"State {m.get('file')}, run {m.get('run')}: {count(m.get('audited', 0), 'log')} "
             f"read, {count(m.get('kept', 0), 'log')} as the state knew them{checked}."]
    if m.get("older_than_run") and m.get("run") == 1:
        lines.append(f"The state is new, but a state at its path had run {m['older_than_run']}"
                     ": deleted or moved? Its history, its evidence and the changes and losses "
                     "it found are not in this one. Keep the state, and its backups, where "
                     f"only you can write (the run noted: {m.get('run_noted_in')}).")
    elif m.get("older_than_run"):
        lines.append(f"The state is older than the run noted of it (run {m['older_than_run']}; "
                     f"it held run {m.get('run', 1) - 1}): an older copy put back? It took the "
                     "logs judged since as new (one rewritten since got no changed-log "
                     "finding). Keep the state, and its backups, where only you can write "
                     f"(the run noted: {m.get('run_noted_in')}).")
    if m.get("judged_again") == "no seal":
        lines.append("The state had no seal (made before tarneeb sealed its states, or a "
                     "sealed one set back to such a format by someone who could write it, "
                     "when no sealed run of it was noted): every log it knew was judged "
                     "again, and it is sealed now; the changes and losses it held were taken "
                     "as they were.")
    elif m.get("judged_again"):
        lines.append("The state was made under another trust, policy or release: every log "
                     "it knew was judged again.")
    if m.get("not_noted"):
        lines.append(f"This run could not be noted beside the state key ({m['not_noted']}): "
                     "the next run cannot tell an older copy of the state put back, the "
                     "state deleted, or set back to a format without a seal. Let tarneeb "
                     "write there, or keep the state key (--state-key) in a directory it "
                     "can write.")
    if m.get("grown_count"):
        lines.append(f"{count(m['grown_count'], 'log')} grew since the state judged "
                     "them (the bytes judged then unchanged at their start: judged again, "
                     "no finding): " + ", ".join(m["grown"]) + ".")
    if m.get("waiting"):
        lines.append(f"{count(m['waiting'], 'match')} not in the evidence yet: "
                     f"{'its log stops' if m['waiting'] == 1 else 'their logs stop'} before "
                     "the end record (cut-short), and the match joins the evidence, with all "
                     "its deals, when a run finds its log whole.")
    if m.get("changed_count"):
        lines.append(f"{count(m['changed_count'], 'log')} changed since the state judged "
                     "them (a finding each, kept): " + ", ".join(m["changed"]) + ".")
    if s.lost:
        lines.append(f"{count(s.lost, 'log')} judged before {'is' if s.lost == 1 else 'are'} "
                     "gone or cannot be read (a finding each; --removed PATTERN if on "
                     "purpose): "
                     + ", ".join(m.get("lost", [])) + ".")
    if m.get("removed_count"):
        lines.append(f"{count(m['removed_count'], 'log')} removed on purpose (--removed), "
                     "forgotten by the state: " + ", ".join(m["removed"]) + ".")
    if s.evidence is not None:
        lines.append(evidence_sentence(s.evidence, alpha))
        only = s.evidence.get("fixed_sample_only")
        if only is None:
            lines.append("The fixed-sample battery was not run (--fixed-sample runs it).")
        elif only:
            lines.append(f"Fixed-sample only, not in the continuous evidence: "
                         f"{count(len(only), 'test')} (" + "; ".join(
                             f"{t[0]}, {' '.join(map(str, t[1:]))}" for t in only[:10])
                         + ("; …" if len(only) > 10 else "") + ").")
    return lines


def evidence_sentence(ev: dict[str, Any], alpha: float) -> str:
    """The anytime-valid evidence in a sentence.

    >>> print(evidence_sentence({"matches": 10, "e_value_log10": 0.1, "max_e_value_log10": 0.5,
    ...                          "crossed_at": None, "strongest": []}, 0.05))
    ... # doctest: +ELLIPSIS
    No evidence of bias over the archive's history of 10 matches: the e-value is 1.26 now ...
    """
    limit = 1 / alpha
    if ev["crossed_at"] is not None:
        tests = ", ".join(" ".join(str(x) for x in t["test"][1:]) for t in ev["strongest"][:3])
        return (f"EVIDENCE OF BIAS: over the archive's history the e-value reached "
                f"{limit:g} (1/alpha) at match {ev['crossed_at']:,}; a fair archive does "
                f"that with probability at most {alpha:g}, however often it is looked at "
                f"(strongest now: {tests}).")
    return (f"No evidence of bias over the archive's history of {count(ev['matches'], 'match')}: "
            f"the e-value is {10 ** ev['e_value_log10']:.3g} now and was at most "
            f"{10 ** ev['max_e_value_log10']:.3g}, below {limit:g} (1/alpha), the level a "
            f"fair archive reaches with probability at most {alpha:g} however often it is "
            "looked at. It speaks of the deals alone, of what its "
            f"{count(ev.get('tests', 0), 'test')} bet on (docs/ARCHIVE.md, \"Evidence valid "
            "however often one looks\"), and rules out no bias too small to have shown over "
            "these matches.")


def not_read_sentence(s: ArchiveSummary) -> str:
    """The files not read at all and the directories not listed, and what they do to the
    exit code.

    >>> s = ArchiveSummary(not_read=2, unlisted=1)
    >>> not_read_sentence(s)  # doctest: +ELLIPSIS
    '2 files could not be read at all and 1 directory could not be listed (named below): ...'
    """
    parts = []
    if s.not_read:
        parts.append(f"{count(s.not_read, 'file')} could not be read at all")
    if s.unlisted:
        parts.append(f"{s.unlisted:,} director{'y' if s.unlisted == 1 else 'ies'} could not "
                     "be listed")
    then = ("--skip-unreadable: the exit code is what the rest makes it" if s.skip_unreadable
            else "exit code 2; --skip-unreadable audits the rest and still names them")
    return " and ".join(parts) + f" (named below): {then}."


def repeats_sentence(copies: int, conflicting: int) -> str:
    """The logs that repeat a match already read, in a sentence.

    >>> repeats_sentence(2, 0)
    '2 logs are copies of a log read before them (the same bytes): each match counts once.'
    >>> repeats_sentence(0, 1)  # doctest: +ELLIPSIS
    '1 log is another log of a match read before it, with other bytes (conflicting-log: ...'
    """
    parts = []
    if copies:
        parts.append(f"{count(copies, 'log')} "
                     + ("is a copy" if copies == 1 else "are copies")
                     + f" of a log read before {'it' if copies == 1 else 'them'} (the same bytes)")
    if conflicting:
        parts.append(f"{count(conflicting, 'log')} "
                     + ("is another log" if conflicting == 1 else "are other logs")
                     + f" of a match read before {'it' if conflicting == 1 else 'them'}, with "
                     f"other bytes ({CONFLICT_KIND}: a finding on both logs, at most one "
                     "of them is the match as played)")
    return "; ".join(parts) + ": each match counts once."


def key_label(key_id: str, platform: str | None, pinned: bool) -> str:
    """A signing key as the summary names it: by its platform when the user's keys name it.

    >>> key_label("139e3940e64b5491", "cardroom", True)
    'cardroom (key 139e3940e64b5491)'
    >>> key_label("139e3940e64b5491", None, True), key_label("5a2b", None, False)
    ('key 139e3940e64b5491 (pinned)', 'key 5a2b (NOT PINNED)')
    >>> key_label("5a2b", "c\u0430rdroom", True)  # a Cyrillic a, as verify flags it
    'c\u0430rdroom (key 5a2b; the name mixes Cyrillic and Latin letters)'
    """
    if not pinned:
        return f"key {key_id} (NOT PINNED)"
    if platform is None:
        return f"key {key_id} (pinned)"
    scripts = name_scripts(platform)
    mixed = f"; the name mixes {' and '.join(scripts)} letters" if len(scripts) > 1 else ""
    return f"{platform} (key {key_id}{mixed})"


def key_counts(summary: ArchiveSummary) -> list[tuple[str, int]]:
    """Matches per signing key, most first, each key by :func:`key_label`."""
    return [(key_label(k, *summary.signers[k]) if k in summary.signers else k, n)
            for k, n in sorted(summary.by_key.items(), key=lambda kv: (-kv[1], kv[0]))]


def fairness_sentence(origin: str, results: list[StatResult],
                      alpha: float = DEFAULT_ALPHA, others: int = 0,
                      groups: Mapping[str, Iterable[str]] | None = None) -> str:
    """One origin's statistics in a sentence: flagged tests, or what could have been seen.
    ``others``: the tests of the other origin, corrected together with these; ``groups``:
    the archive's rule sets and keys (``"rule set"``, ``"key"``), to say which were tested
    apart."""
    what, meaning = ORIGIN_WORDS[origin]
    tested = [r for r in results if r.tested]
    flagged = [r for r in tested if r.flagged]
    families = [f for f in FAMILIES if any(r.family == f for r in tested)]
    together = (f"corrected together with the other deals' {others:,} tests at {alpha:.0%} "
                "family-wise over both" if others else
                f"corrected together at {alpha:.0%} family-wise")
    head = (f"Fairness of the {what} ({meaning}): {len(tested)} tests against the exact "
            f"distributions of a uniform shuffle, in families by threat "
            f"({', '.join(f'{f} {sum(r.family == f for r in tested)}' for f in families)}), "
            f"{together} (Holm's weighted procedure, "
            f"each family's weight the square root of its number of tests)")
    if flagged:
        worst = sorted(flagged, key=lambda r: r.p_value or 0.0)[:3]
        said = "; ".join(f"{describe_test(r)}: observed {_fmt_obs(r)} "
                         f"(p {_p_words(r.p_adjusted)} after correction)" for r in worst)
        more = f" and {len(flagged) - 3} more" if len(flagged) > 3 else ""
        return f"{head}: EVIDENCE OF BIAS in {len(flagged)} tests: {said}{more}."
    return (f"{head}: no evidence of bias. {detectable_sentence(tested)} "
            + not_tested_apart(tested, groups or {}) + uncovered(r.test for r in tested))


def _p_words(p: float | None) -> str:
    text = format_p(p)
    return text if text.startswith("<") else f"= {text}"


def _fmt_obs(r: StatResult) -> str:
    if r.method == "G-test":
        worst = max(range(len(r.observed)), key=lambda i: abs(r.observed[i] - r.expected[i]),
                    default=None)
        if worst is None:
            return "-"
        return (f"{r.observed[worst]:.0f} against {r.expected[worst]:.1f} expected "
                f"in category {r.categories[worst]}")
    return f"{r.observed[0]:.2f} against {r.expected[0]:.2f} expected"


def detectable_sentence(results: list[StatResult]) -> str:
    """What the sample would have caught (80 % power), in high-card points."""
    def worst(pred: Callable[[StatResult], bool]) -> float | None:
        xs = [r.detectable for r in results if pred(r) and r.detectable is not None]
        return max(xs) if xs else None

    seat = worst(lambda r: r.test[:2] == ("high-card points", "seat") and r.method != "G-test")
    label = worst(lambda r: r.test[:2] == ("high-card points", "team") and r.method != "G-test")
    paired = worst(lambda r: r.test[0] == "high-card points" and r.method == "paired z-test")
    w = worst(lambda r: r.method == "G-test" and r.test[1] == "seat")
    state = worst(lambda r: r.method == "max z over states")
    player = worst(lambda r: r.test == ("high-card points", "player", "by name")
                   and r.method == "max z over members")
    near = worst(lambda r: r.method == "near repeats (Poisson)")
    parts = []
    if seat is not None:
        parts.append(f"{seat:.2f} high-card points per hand at any seat relative to the dealer")
    if label is not None:
        parts.append(f"{label:.2f} per hand for one team")
    if paired is not None:
        parts.append(f"a difference of {paired:.2f} points between computer and human hands")
    if w is not None:
        parts.append(f"a departure of Cohen's w = {w:.2f} from any distribution of a hand")
    if player is not None:
        parts.append(f"{player:.2f} points per hand for one named player over all "
                     "their matches")
    if state is not None:
        parts.append(f"{state:.2f} points per hand for a player's side, a seat label or a "
                     f"team in one state of the match (a cell of median size)")
    if near is not None:
        parts.append(f"{count(round(near), 'pair')} of hands sharing 12 or 13 cards")
    if not parts:
        return "Too few deals to test anything."
    return "The sample would have detected (80% power) a bias of " + "; ".join(parts) + "."


__all__ = ["ORIGIN_WORDS", "count", "detectable_sentence", "fairness_sentence",
           "format_p", "key_counts", "key_label", "not_read_sentence", "repeats_sentence",
           "verdict_lines"]
