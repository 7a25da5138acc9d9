"""The match report's "check it yourself" section, and the report on a 390 px screen."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from cli_runner import run

from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.cards import card_name, cards_of
from tarneeb.replay.verify.replayer import verify_log
from tarneeb.report import write_page
from tarneeb.report.match import match_report

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_the_report_gives_the_seeds_the_match_id_and_the_commands(tmp_path, chromium, capsys):
    log = FIXTURES / "matches" / "sahrat41-01.tlog"
    parsed = parse_log(log.read_bytes())
    page_file = tmp_path / "m.html"
    code, _, _ = run(capsys, "report", str(log), "-o", str(page_file))
    assert code == 0
    with chromium.open(page_file) as page:
        assert page.errors == [] and page.requests == []
        section = page.text("#check")
        commands = page.texts("#check pre")
    h = parsed.header
    assert h.match_id.hex() in section and "tarneeb deal -m" in section
    assert parsed.end is not None and parsed.end.server_seed is not None
    assert parsed.end.server_seed.hex() in section
    assert all(c.hex() in section for c in h.client_seeds or [])
    assert "tarneeb verifier -o verify.html" in section
    assert commands[0] == f"tarneeb deal {log} --hand 1"
    # both commands, run as printed, give hand 1 as the replayer deals it
    want = [[card_name(c, symbols=False) for c in reversed(cards_of(m))]
            for m in verify_log(parsed, log.name).history[0].hands]
    for command in commands:
        code, out, err = run(capsys, *shlex.split(command)[1:], "--json")
        assert code == 0, err
        assert json.loads(out)["hands"] == want


def test_recorded_and_blind_logs_say_there_are_no_seeds_to_derive_from():
    html, _ = match_report((FIXTURES / "matches" / "eram41-recorded-deals.tlog").read_bytes(),
                           "r.tlog")
    check = html[html.index('id="check"'):]
    assert "recorded each deal in the log" in check and "tarneeb deal -s" not in check
    html, _ = match_report((FIXTURES / "altered" / "blind-transcript-qahwa5.tlog").read_bytes(),
                           "b.tlog")
    check = html[html.index('id="check"'):]
    assert "dealt blind" in check and "tarneeb deal -s" not in check


def test_at_390_px_tables_scroll_in_their_box_and_problems_wrap(tmp_path, chromium):
    """On a phone the page itself never scrolls sideways: a wide table scrolls inside its
    own box, and a problem's explanation shown in a trick table stays on the screen and
    wraps (it used to be as wide as the table, cut off at the screen's edge)."""
    for name in ("renege-eram41.tlog", "wrong-total-eram41.tlog", "bad-deal-eram41.tlog"):
        path = FIXTURES / "altered" / name
        html, _ = match_report(path.read_bytes(), name)
        page_file = tmp_path / f"{name}.html"
        write_page(page_file, html)
        with chromium.open(page_file, width=390, height=800) as page:
            assert page.errors == [] and page.requests == []
            p = page.page
            assert p.evaluate("document.documentElement.scrollWidth"
                              " <= document.documentElement.clientWidth")
            tables = p.eval_on_selector_all("table", """els => els.map(e => {
                const r = e.getBoundingClientRect();
                return {right: r.right, scrolls: getComputedStyle(e).overflowX,
                        wide: e.scrollWidth > e.clientWidth};})""")
            for t in tables:
                assert t["right"] <= 390
                if t["wide"]:
                    assert t["scrolls"] == "auto"
            boxes = p.eval_on_selector_all(".finding", """els => els.map(e => {
                const r = e.getBoundingClientRect(); return [r.left, r.right];})""")
            assert boxes
            for left, right in boxes:
                assert left >= 0 and right <= 390
