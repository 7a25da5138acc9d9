"""The audit page printed: every plot and every table stays inside the page's width."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tarneeb.replay.archive.audit import ArchiveSummary, fairness_results
from tarneeb.report.archive import write_archive_report
from tarneeb.testing.dealsim import synthetic_archive

# A4 (210 mm) less the print stylesheet's margins (12 mm each side), in CSS pixels (96 dpi)
A4_WIDTH = round((210 - 2 * 12) / 25.4 * 96)


def test_the_printed_audit_page_keeps_plots_and_tables_inside_the_page(
        tmp_path: Path, chromium: Any) -> None:
    """Print media at the width of an A4 page's text: no plot, table or line is wider than
    the page (a wide one would be cut at the paper's edge), and the page prints to PDF."""
    tallies = synthetic_archive(random.Random(12), 40, 8)
    fairness = fairness_results(tallies, 0.05)
    summary = ArchiveSummary(logs=40, clean=40, tallies=tallies)
    page_file = tmp_path / "audit.html"
    write_archive_report(page_file, summary, fairness, 0.05)
    with chromium.open(page_file, width=A4_WIDTH, height=1000) as page:
        page.page.emulate_media(media="print")
        assert page.count("figure.plot svg") >= 4 and page.count("table.tests") == 2
        widths = page.page.eval_on_selector_all(
            "body *", "els => els.map(e => [e.tagName + ' ' + e.className, "
            "e.getBoundingClientRect().left, e.getBoundingClientRect().right])")
        wide = [(tag, round(right)) for tag, left, right in widths
                if left < -0.5 or right > A4_WIDTH + 0.5]
        assert wide == [], wide
        scroll = page.page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= A4_WIDTH, scroll
        page.pdf(tmp_path / "audit.pdf")
    assert (tmp_path / "audit.pdf").read_bytes()[:5] == b"%PDF-"


def test_the_summary_says_what_was_tested_apart_and_corrected_together() -> None:
    """"No evidence of bias" read as covering every rule set, key and measure by state: a
    rule set of a few matches is not tested apart (its deals count only in the tests of
    the whole), each origin's tests are corrected at one level with the other's, and the
    match state is crossed with high-card points alone; the summary says each."""
    from collections import Counter

    from tarneeb.replay.archive.words import verdict_lines

    tallies = synthetic_archive(random.Random(3), 60, 10)
    fairness = fairness_results(tallies, 0.05)
    assert not any(r.flagged for rs in fairness.values() for r in rs)
    by_rules = Counter({"eram41": 20, "qahwa41": 20, "sahrat41": 20, "club": 1})
    summary = ArchiveSummary(logs=61, clean=61, tallies=tallies, by_rules=by_rules)
    lines = verdict_lines(summary, fairness, 0.05)
    said = [line for line in lines if line.startswith("Fairness of the")]
    assert len(said) == 2
    for line in said:
        assert "corrected together with the other deals' " in line
        assert "Not tested apart (fewer than 100 of these deals" in line
        assert "club" in line.split("Not tested apart", 1)[1].split(":", 2)[1]
        assert "any measure but high-card points steered by the match state" in line
    # and the JSON, per origin (it had only what no test looks for)
    doc = summary.to_json(fairness)
    assert set(doc["not_tested_apart"]) == set(fairness)
    assert all("club" in (x or "") for x in doc["not_tested_apart"].values())
