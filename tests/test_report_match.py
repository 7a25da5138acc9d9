"""tarneeb report: the match page a player reads, opened in headless Chromium."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.findings import KINDS
from tarneeb.replay.verify.trust import Trust
from tarneeb.report import write_page
from tarneeb.report.match import match_report
from tarneeb.report.rulebook import known_kinds, rule_for

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MANIFEST = json.loads((FIXTURES / "altered" / "manifest.json").read_text())


def test_clean_match_page(tmp_path, chromium, capsys):
    """A clean match: the verdict says so first, every proof step passed, every hand is
    there, numbered from 1, players by name."""
    from cryptography.hazmat.primitives import serialization

    from tarneeb.testing.corpus.specs import MATCHES, platform_key

    log = FIXTURES / "matches" / "classic-timer.tlog"
    spec = next(s for s in MATCHES if s.file == log.name)
    pem = tmp_path / "platform.pub.pem"
    pem.write_bytes(platform_key(spec).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    unpinned = tmp_path / "unpinned.html"
    code, _, _ = run(capsys, "report", str(log), "-o", str(unpinned))
    assert code == 0 and "nothing ties this log to the platform" in unpinned.read_text()
    page_file = tmp_path / "match.html"
    code, out, _ = run(capsys, "report", str(log), "--key", str(pem), "-o", str(page_file))
    assert code == 0 and "clean" in out
    shot = tmp_path / "clean.png"
    with chromium.open(page_file, screenshot=shot) as page:
        assert page.errors == [] and page.requests == []
        assert page.page.locator("#verdict").evaluate("e => e.className") == "verdict clean"
        assert page.text("#verdict .headline").startswith("No problems found")
        statuses = page.page.eval_on_selector_all("ol.steps > li",
                                                  "els => els.map(e => e.dataset.status)")
        # without a receipt, that the commitment came before play is not in the log
        assert statuses[0] == "skip" and set(statuses[1:]) == {"pass"}
        headings = page.texts("section.hand h3")
        assert headings[0].startswith("Hand 1 · dealt by ")
        assert len(headings) == len(parse_log(log.read_bytes()).hands)
        assert page.count(".finding") == 0
        assert page.count(".timer") > 0  # the timer's moves are marked
        assert "North bot" in page.text("#players")
        # the verdict is the first thing on the screen
        box = page.page.locator("#verdict").bounding_box()
        assert box is not None and box["y"] + box["height"] < 900
    assert shot.stat().st_size > 10_000


def test_altered_match_highlights_the_finding_where_it_happens(tmp_path, chromium):
    """A renege slipped into a log: the verdict names it first, and the trick where it
    happens carries the finding, the rule quoted, and the card marked."""
    log = FIXTURES / "altered" / "renege-eram41.tlog"
    entry = next(e for e in MANIFEST if e["file"] == log.name)
    html, verdict = match_report(log.read_bytes(), log.name)
    assert verdict.exit_code == 1
    page_file = tmp_path / "altered.html"
    write_page(page_file, html)
    with chromium.open(page_file, screenshot=tmp_path / "altered.png") as page:
        assert page.errors == [] and page.requests == []
        ids = page.page.eval_on_selector_all("[id]", "els => els.map(e => e.id)")
        assert len(ids) == len(set(ids))
        assert page.page.locator("#verdict").evaluate("e => e.className") == "verdict findings"
        assert "problems found" in page.text("#verdict .headline")
        detail = page.text("#verdict .detail")
        hand, trick = entry["hand"] + 1, entry["trick"]
        assert f"hand {hand}, trick {trick}" in detail.lower()
        row = page.page.locator(f"#hand-{hand}-trick-{trick}")
        assert "bad" in row.get_attribute("class")
        flagged = row.locator(".flagged")
        assert flagged.count() == 1
        finding = page.page.locator(f"#hand-{hand}-trick-{trick} + tr .finding")
        assert finding.get_attribute("data-kind") == "renege"
        assert "Follow the led suit if you hold it" in finding.inner_text()
        # the problem list at the top links there
        assert page.page.locator(f'#problems a[href="#hand-{hand}-trick-{trick}"]').count() >= 1


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["file"] for e in MANIFEST])
def test_every_altered_log_shows_its_finding(entry):
    """Each kind of alteration is on the page, in its place, with a rule quoted."""
    data = (FIXTURES / "altered" / entry["file"]).read_bytes()
    key = bytes.fromhex(str(entry["public_key"])) if entry.get("public_key") else None
    html, verdict = match_report(data, entry["file"], trust=Trust(public_key=key))
    assert verdict.findings
    assert f'data-kind="{entry["kind"]}"' in html
    box = f'data-kind="{entry["kind"]}"'
    if entry["hand"] is not None and f'id="hand-{entry["hand"] + 1}"' in html:
        start = html.index(f'id="hand-{entry["hand"] + 1}"')
        end = html.find('<section class="hand"', start)
        assert box in html[start:end if end > 0 else html.index('id="end"')]
    elif entry["hand"] is not None:  # a hand after the match was won: told at the end
        assert box in html[html.index('id="end"'):]
    assert "“" in html  # a rule quoted


def test_recorded_deals_are_said_to_be_recorded():
    data = (FIXTURES / "matches" / "eram41-recorded-deals.tlog").read_bytes()
    html, verdict = match_report(data, "r.tlog")
    assert verdict.clean and not verdict.deals_proven
    assert 'class="verdict notice"' in html and "the deals are only recorded" in html
    assert 'class="steps"' not in html


def test_broken_signature_is_said_in_the_signature_section():
    data = (FIXTURES / "altered" / "broken-signature-eram41.tlog").read_bytes()
    html, _ = match_report(data, "b.tlog")
    section = html[html.index('id="signature"'):html.index('id="proof"')]
    assert "does not check" in section and 'data-kind="broken-signature"' in section


def test_names_from_the_log_are_text_not_markup(tmp_path, chromium):
    hostile = '<img src=x onerror="console.error(1)">'
    data = play_logged_match("qahwa41", seed=b"report names",
                             names=[hostile, "Bea", "Cyd & co", "Dee"])
    html, _ = match_report(data, "n.tlog")
    assert hostile not in html
    page_file = tmp_path / "n.html"
    write_page(page_file, html)
    with chromium.open(page_file) as page:
        assert page.errors == [] and page.requests == []
        assert page.count("img") == 0
        assert hostile in page.text("#players")


def test_report_cli_bad_input_and_stdout(tmp_path, capsys):
    bad = tmp_path / "x.tlog"
    bad.write_bytes(b"not a log")
    code, out, err = run(capsys, "report", str(bad), "-o", str(tmp_path / "x.html"))
    assert code == 2 and err.count("\n") == 1 and "not a tarneeb log" in err
    assert not (tmp_path / "x.html").exists()
    log = FIXTURES / "altered" / "wrong-total-eram41.tlog"
    code, out, _ = run(capsys, "report", str(log), "-o", "-")
    assert code == 1 and out.startswith("<!DOCTYPE html>")


def test_every_finding_kind_has_a_rule_quoted():
    assert set(KINDS) <= known_kinds()
    for rules in PRESETS.values():
        for kind in KINDS:
            text = rule_for(kind, rules).text
            assert text.endswith(".") and len(text) > 15


def test_doctests():
    import doctest

    import tarneeb.replay.verify.people as p
    import tarneeb.report.match as m
    import tarneeb.report.rulebook as r

    for module in (m, p, r):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0


def test_receipt_shows_the_commitment_promised_before_play(tmp_path, capsys):
    log, receipt = tmp_path / "m.tlog", tmp_path / "r.json"
    code, _, _ = run(capsys, "play", "--rules", "sahrat41", "--seed", "report receipt",
                     "--receipt-out", str(receipt), "-o", str(log))
    assert code == 0
    page = tmp_path / "m.html"
    code, _, _ = run(capsys, "report", str(log), "--receipt", str(receipt), "-o", str(page))
    html = page.read_text()
    assert code == 0 and html.count('data-status="pass"') == 5 and "data-status=" + \
        '"skip"' not in html
    other = tmp_path / "o.tlog"
    run(capsys, "play", "--rules", "sahrat41", "--seed", "another match", "-o", str(other))
    code, _, _ = run(capsys, "report", str(other), "--receipt", str(receipt), "-o", str(page))
    html = page.read_text()
    assert code == 1 and "not the match the platform promised before play" in html
    assert 'data-kind="receipt-mismatch"' in html[html.index('id="proof"'):]


def test_a_wrong_deal_shows_what_the_log_records_beside_the_seeds_deal():
    entry = next(e for e in MANIFEST if e["kind"] == "wrong-deal")
    html, _ = match_report((FIXTURES / "altered" / entry["file"]).read_bytes(), "w.tlog")
    start = html.index(f'id="hand-{entry["hand"] + 1}"')
    section = html[start:html.index("</section>", start)]
    assert "The log records:" in section and 'title="not dealt to this player' in section
    assert html.count("The log records:") == section.count("The log records:")


def test_an_abandoned_match_says_how_it_ended():
    from tarneeb.replay.log import Abandonment
    from tarneeb.replay.server.simulate import MatchSecrets
    from tarneeb.testing.alterations.base import rewrite

    seed = b"report abandoned"
    data = play_logged_match("eram41", seed=seed)

    def leave(log):
        del log.hands[3:]
        log.end.winner = None
        log.end.abandoned = Abandonment("disconnect", 2, "no answer for 120 s")

    html, verdict = match_report(rewrite(data, leave, resign=MatchSecrets(seed).key), "a.tlog")
    assert verdict.clean, verdict.findings
    end = html[html.index('id="end"'):]
    assert "How it ended" in end and "South bot disconnected: “no answer for 120 s”" in end
    assert "The match did not finish" in html[:html.index('id="players"')]


def test_file_names_that_reorder_text_or_are_not_utf8_are_shown_escaped(tmp_path, capsys):
    """A log's file name is the archive's word: one with a bidi override (which would
    reorder the page's text after it: the match id and hand count read backwards) or bytes
    that are not UTF-8 (which ended the report in a traceback) is written on the match page
    and the archive report as the terminal shows it, escaped."""
    source = FIXTURES / "altered" / "renege-classic.tlog"
    names = {"m1\u202e.tlog": "m1\\u202e.tlog", os.fsdecode(b"x\xff.tlog"): "x\\xff.tlog"}
    for name in names:
        (tmp_path / name).write_bytes(source.read_bytes())
    for name, escaped in names.items():
        page = tmp_path / "match.html"
        code, _, err = run(capsys, "report", str(tmp_path / name), "-o", str(page))
        html = page.read_text(encoding="utf-8")
        assert code == 1 and err == "" and f"{escaped} · match" in html
        assert "\u202e" not in html
    page = tmp_path / "archive.html"
    code, _, err = run(capsys, "audit", "--report", str(page), str(tmp_path))
    html = page.read_text(encoding="utf-8")
    assert code == 1 and "Traceback" not in err and "\u202e" not in html
    assert all(f"{escaped}: hand 7, trick 2" in html for escaped in names.values())
