"""The match report (``tarneeb report``) shows every finding ``tarneeb verify`` gives, once,
where it happens, and says no more than the verifier does.

Each test holds a page to the command line's verdict where they once differed: a problem
of a trick in a hand that could not be replayed (a log dealt blind whose
transcript does not open its cards) was listed with a link to a trick the page never drew,
and was shown nowhere else; a problem of no hand that a proof step shows (a dealing
attempt not replayed) was shown twice, under two elements of the same id; and a log dealt
blind was said to have its deals "proven by the transcript" whatever its verdict, and sent
the reader away from the verifier page, which does check blind deals; a whole log checked
against another platform's key was said "changed or torn after signing".
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run

ALTERED = Path(__file__).resolve().parent.parent / "fixtures" / "altered"


def _cli_and_page(capsys: Any, chromium: Any, log: Path, tmp_path: Path) -> tuple[dict[str, Any],
                                                                                 dict[str, Any]]:
    code, out, _ = run(capsys, "verify", "--json", str(log))
    want = json.loads(out)[0]
    page = tmp_path / "match.html"
    rcode, _, _ = run(capsys, "report", str(log), "-o", str(page))
    assert rcode == code  # the report's exit code is the verifier's
    with chromium.open(page) as opened:
        p = opened.page
        seen = {
            "errors": opened.errors, "requests": opened.requests,
            "tone": p.locator("#verdict").get_attribute("class"),
            "kinds": p.eval_on_selector_all(".finding", "els => els.map(e => e.dataset.kind)"),
            "ids": p.eval_on_selector_all(".finding", "els => els.map(e => e.id)"),
            # each problem the list names, and whether the place it links to is on the page
            "links": p.eval_on_selector_all(
                "#problems li a", "els => els.map(a => [a.getAttribute('href'), "
                "document.getElementById(a.getAttribute('href').slice(1)) !== null])"),
            "in_hands": p.eval_on_selector_all(
                "section.hand .finding", "els => els.map(e => [e.dataset.kind, "
                "e.closest('section.hand').id])"),
            "text": opened.text("body"),
        }
    return want, seen


@pytest.mark.parametrize("name", ["wrong-shuffle-qahwa5.tlog", "wrong-decryption-qahwa5.tlog"])
def test_a_problem_in_a_hand_not_replayed_is_shown_in_that_hand(
        capsys: Any, chromium: Any, tmp_path: Path, name: str) -> None:
    """A card played that is not the card dealt (a trick's problem) in a blind hand whose
    cards the transcript does not open: the page shows it, in its hand, and its link in
    "What is wrong" leads there."""
    want, seen = _cli_and_page(capsys, chromium, ALTERED / name, tmp_path)
    assert seen["errors"] == [] and seen["requests"] == []
    assert "card-not-dealt" in {f["kind"] for f in want["findings"]}
    assert sorted(seen["kinds"]) == sorted(f["kind"] for f in want["findings"])
    assert len(seen["links"]) == len(want["findings"])
    assert all(there for _, there in seen["links"]), seen["links"]
    hands = Counter((f["kind"], f"hand-{f['hand'] + 1}") for f in want["findings"]
                    if f["hand"] is not None)
    assert Counter(map(tuple, seen["in_hands"])) == hands
    assert seen["tone"] == "verdict findings"
    # not replayed, dealt blind: no word of deals proven, nor of seeds it never had
    assert "deals are proven by the transcript" not in seen["text"]
    assert "no seeds to re-make it" not in seen["text"]
    assert "does not check blind deals" not in seen["text"]


@pytest.mark.parametrize("name", ["cut-short-eram41.tlog", "seed-not-revealed-classic.tlog",
                                  "server-seed-sahrat400.tlog"])
def test_a_problem_a_proof_step_shows_is_shown_once(
        capsys: Any, chromium: Any, tmp_path: Path, name: str) -> None:
    """The dealing attempts not replayed (no seed to derive them from) are one finding: the
    page shows it once, in the proof step, not again at the end under the same id."""
    want, seen = _cli_and_page(capsys, chromium, ALTERED / name, tmp_path)
    assert seen["errors"] == [] and seen["requests"] == []
    assert "not-replayed" in {f["kind"] for f in want["findings"]}
    assert sorted(seen["kinds"]) == sorted(f["kind"] for f in want["findings"])
    assert len(seen["ids"]) == len(set(seen["ids"])) == len(want["findings"])
    assert all(there for _, there in seen["links"]), seen["links"]


def _verdict_text(path: Path) -> str:
    import html
    import re

    page = path.read_text(encoding="utf-8")
    start = page.index(">", page.index('id="verdict"')) + 1
    return html.unescape(re.sub(r"<[^>]+>", " ", page[start:page.index("</section>", start)]))


def test_a_whole_log_under_another_key_is_said_signed_by_another_key_not_changed(
        capsys: Any, tmp_path: Path) -> None:
    """A log intact under the key it names, checked against another platform's key (given
    alone, or as a keys file that holds only others): the report's headline says another
    key signed it, as the verifier page says, and does not say it was changed or torn."""
    from tarneeb.audit.signing import load_public_key_file, public_key_raw

    log = ALTERED.parent / "matches" / "eram41-01.tlog"
    assert run(capsys, "keygen", str(tmp_path / "other.pem"))[0] == 0
    other = tmp_path / "other.pub.pem"
    keys = tmp_path / "platforms.toml"
    keys.write_text(f'other = "{public_key_raw(load_public_key_file(other)).hex()}"\n')
    for given, words in (("--key", "not under the key you gave"),
                         ("--keys", "which is none of the platform keys you gave")):
        page = tmp_path / f"{given}.html"
        code, _, _ = run(capsys, "report", str(log), given, str(other if given == "--key"
                                                                 else keys), "-o", str(page))
        assert code == 1
        said = " ".join(_verdict_text(page).split())
        assert said.startswith("This log was not signed by the platform's key: another key "
                               "signed it"), said
        assert "key named inside the log" in said and words in said
        assert "changed" not in said and "torn" not in said
    # a log changed after signing, given its own key, is still said to be changed
    broken = tmp_path / "broken.html"
    run(capsys, "report", str(ALTERED / "broken-signature-eram41.tlog"), "-o", str(broken))
    assert "changed or torn" in _verdict_text(broken)


def test_the_report_reads_a_logs_json_form_as_verify_and_the_page_do(
        capsys: Any, tmp_path: Path) -> None:
    """``tarneeb export``'s JSON form: the report of it is the report of the log (it was
    refused as "not a tarneeb log", where verify and the verifier page read it)."""
    log = ALTERED.parent / "matches" / "eram41-01.tlog"
    form = tmp_path / "m.json"
    assert run(capsys, "export", str(log), "-o", str(form))[0] == 0
    assert run(capsys, "report", str(form), "-o", str(tmp_path / "j.html"))[0] == 0
    assert run(capsys, "report", str(log), "-o", str(tmp_path / "b.html"))[0] == 0
    assert _verdict_text(tmp_path / "j.html") == _verdict_text(tmp_path / "b.html")
    (tmp_path / "no.json").write_text('{"format": "something else"}')
    code, out, err = run(capsys, "report", str(tmp_path / "no.json"), "-o",
                         str(tmp_path / "n.html"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "JSON form" in err
    assert not (tmp_path / "n.html").exists()
