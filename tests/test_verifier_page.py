"""The verifier page (``tarneeb verifier``): the TypeScript verifier bundled into one HTML
file, opened from a file in headless Chromium as a player would, every request refused."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run

from tarneeb.replay.log import parse_log
from tarneeb.replay.verify.findings import KINDS
from tarneeb.report.match import _HEADLINES, GAMES

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "js"
PAGE = JS / "dist" / "verify.html"
FIXTURES = ROOT / "fixtures"
MANIFEST = json.loads((FIXTURES / "altered" / "manifest.json").read_text())


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page as ``tarneeb verifier -o`` writes it (built first when it is not, or is
    older than its sources)."""
    sources = [*(JS / "src").rglob("*.ts"), *(JS / "page").glob("*.*"), JS / "package-lock.json"]
    if not PAGE.exists() or any(p.stat().st_mtime > PAGE.stat().st_mtime for p in sources):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is not installed: the verifier page cannot be built")
        if not (JS / "node_modules").exists():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS, check=True)
        subprocess.run([npm, "run", "build"], cwd=JS, check=True)
    out = tmp_path_factory.mktemp("page") / "verify.html"
    from tarneeb.cli.entry import main

    with pytest.raises(SystemExit) as e:
        main(["verifier", "-o", str(out)])
    assert e.value.code in (0, None)
    return out


def check(chromium: Any, page_file: Path, log: Path, width: int = 1200,
          key: Path | None = None, seat: int = 0, receipt: Path | None = None,
          root: str | None = None) -> dict[str, Any]:
    """Open the page, give it ``log`` (and ``key``, ``receipt``, a season ``root``), and
    read what it shows."""
    with chromium.open(page_file, width=width) as opened:
        p = opened.page
        if key is not None:
            p.set_input_files("#key", str(key))
            p.locator("#key-status:not(:empty)").wait_for(state="attached")
        if receipt is not None:
            p.set_input_files("#receipt", str(receipt))
            p.locator("#receipt-status:not(:empty)").wait_for(state="attached")
        if root is not None:
            p.fill("#root", root)
            p.dispatch_event("#root", "change")
        p.select_option("#seat", str(seat))
        p.set_input_files("#log", str(log))
        # locators, not wait_for_function: the page's CSP forbids the eval that needs
        p.locator("#verdict:not([data-verdict=none]):not([data-verdict=checking])").wait_for()
        p.wait_for_load_state("networkidle")
        seen = {
            "verdict": p.locator("#verdict").get_attribute("data-verdict"),
            "headline": opened.text("#verdict .headline"),
            "detail": opened.text("#verdict .detail"),
            "steps": p.eval_on_selector_all("#proof li[data-status]",
                                            "els => els.map(e => e.dataset.status)"),
            "signature": p.eval_on_selector_all("#signature li[data-status]",
                                                "els => els.map(e => e.dataset.status)"),
            "kinds": p.eval_on_selector_all(".finding", "els => els.map(e => e.dataset.kind)"),
            "hands": opened.texts("section.deal h3"),
            "mine": p.eval_on_selector_all(
                "section.deal p.mine", "els => els.map(e => Array.from("
                "e.querySelectorAll('.card'), c => c.textContent))"),
            "finding_hands": p.eval_on_selector_all(
                "section.deal .finding", "els => els.map(e => e.closest('section.deal')"
                ".dataset.hand)"),
            "overflow": p.evaluate("document.documentElement.scrollWidth "
                                   "- document.documentElement.clientWidth"),
            "receipt_status": opened.text("#receipt-status") if receipt else "",
            "root_status": opened.text("#root-status") if root is not None else "",
            "key_status": opened.text("#key-status") if key else "",
            "proof": opened.text("#proof") if p.locator("#proof").count() else "",
            "blind_words": opened.texts("section.deal p.blind"),
            "errors": opened.errors,
            "requests": opened.requests,
            "text": opened.text("body"),
            "signature_text": opened.text("#signature") if p.locator("#signature").count()
            else "",
            "seats": p.eval_on_selector_all("#seat option", "els => els.map(e => e.textContent)"),
            "facts": dict(zip(opened.texts("#players dt"), opened.texts("#players dd"),
                              strict=True)),
        }
        # the verdict is the first thing a player reads: above the inputs and the rest
        verdict = p.locator("#verdict").bounding_box()
        seen["verdict_first"] = verdict["y"] < p.locator("#drop").bounding_box()["y"] and \
            verdict["y"] + verdict["height"] < (900 if width > 390 else 2000)
    return seen


def test_the_page_is_one_file_that_loads_nothing(page_file: Path) -> None:
    html = page_file.read_text(encoding="utf-8")
    assert "default-src 'none'" in html
    assert "<script src" not in html and "<link" not in html
    assert "http://" not in html.split("<script", 1)[0]  # nothing to fetch in the markup


def test_the_page_runs_its_own_script_and_no_other(chromium, page_file, tmp_path):
    """The policy allows the page's one script by its hash, not any inline script: a tag
    injected into a copy of the page (as a flaw that let markup through would inject it)
    runs nothing, while the page's own script still checks a log."""
    html = page_file.read_text(encoding="utf-8")
    assert "'unsafe-inline'" not in html.split("script-src", 1)[1].split(";", 1)[0]
    injected = tmp_path / "injected.html"
    injected.write_text(html.replace("<main id=\"result\">", "<img src=x onerror=\""
                                     "document.title='pwned'\"><script>document.title="
                                     "'pwned'</script><main id=\"result\">", 1), "utf-8")
    seen = check(chromium, injected, FIXTURES / "matches" / "classic-01.tlog")
    assert seen["verdict"] == "clean"
    with chromium.open(injected) as opened:
        assert opened.page.title() != "pwned"


def test_a_missing_page_is_one_line_saying_how_to_build_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("TARNEEB_VERIFIER_PAGE", str(tmp_path / "none.html"))
    code, out, err = run(capsys, "verifier", "-o", str(tmp_path / "v.html"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "not built" in err and "make js" in err
    assert not (tmp_path / "v.html").exists()


def test_clean_log_with_the_platform_key(chromium, page_file, tmp_path):
    from cryptography.hazmat.primitives import serialization

    from tarneeb.replay.log import parse_log
    from tarneeb.replay.rules.cards import card_name, cards_of
    from tarneeb.replay.verify.replayer import verify_log
    from tarneeb.testing.corpus.specs import MATCHES, platform_key

    log = FIXTURES / "matches" / "classic-timer.tlog"
    spec = next(s for s in MATCHES if s.file == log.name)
    pem = tmp_path / "platform.pub.pem"
    pem.write_bytes(platform_key(spec).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    seen = check(chromium, page_file, log, key=pem, seat=2)
    assert seen["errors"] == [] and seen["requests"] == []
    assert seen["verdict"] == "clean" and seen["verdict_first"]
    assert seen["headline"].startswith("No problems found: this match was dealt fairly")
    # every step re-computed in the browser passes; the receipt is said not checked
    assert seen["steps"][0] == "skip" and set(seen["steps"][1:]) == {"pass"}
    assert seen["signature"] == ["pass"]
    assert seen["kinds"] == []
    parsed = parse_log(log.read_bytes())
    history = verify_log(parsed, log.name).history
    assert len(seen["hands"]) == len(parsed.hands) and seen["hands"][0].startswith("Hand 1 · ")
    # the seat chosen (the third, 2 in the log) sees the cards the Python replayer deals it
    assert len(seen["mine"]) == len(history)
    for shown, hand in zip(seen["mine"], history, strict=True):
        assert sorted(shown) == sorted(card_name(c) for c in cards_of(hand.hands[2]))


def test_a_keys_file_pins_the_platform_by_name(chromium, page_file, tmp_path, capsys):
    """A keys file (TOML, platform name = key, as tarneeb verify --keys takes) names the
    platform that signed the log: clean, as tarneeb verify --keys says; a keys file that
    holds only other platforms' keys leaves the log unpinned; a broken one is one line."""
    from tarneeb.testing.corpus.specs import MATCHES, platform_key

    log = FIXTURES / "matches" / "classic-timer.tlog"
    spec = next(s for s in MATCHES if s.file == log.name)
    raw = platform_key(spec).public_key().public_bytes_raw().hex()
    keys = tmp_path / "platforms.toml"
    keys.write_text(f'qahwa-house = "{raw}"\nother = "{"ab" * 32}"\n', encoding="utf-8")
    want = _python_verdict(capsys, log, "--keys", str(keys))
    seen = check(chromium, page_file, log, key=keys)
    assert seen["errors"] == [] and seen["requests"] == []
    assert "a keys file of 2 platforms" in seen["key_status"]
    assert want["verdict"] == "clean" and seen["verdict"] == "clean"
    assert "qahwa-house" in seen["detail"] and want["key"]["platform"] == "qahwa-house"
    others = tmp_path / "others.toml"
    others.write_text(f'other = "{"ab" * 32}"\n', encoding="utf-8")
    seen = check(chromium, page_file, log, key=others)
    assert seen["verdict"] != "clean" or "nothing ties" in seen["headline"]
    broken = tmp_path / "broken.toml"
    broken.write_text('house = "12"\n', encoding="utf-8")
    seen = check(chromium, page_file, log, key=broken)
    assert seen["key_status"].startswith("broken.toml: house: a raw Ed25519 key is 64 hex digits")
    assert seen["headline"] == "No problems found, but nothing ties this log to the platform"


def test_without_a_key_the_page_says_nothing_ties_it_to_the_platform(chromium, page_file):
    seen = check(chromium, page_file, FIXTURES / "matches" / "eram41-01.tlog")
    assert seen["verdict"] == "clean"
    assert seen["headline"] == "No problems found, but nothing ties this log to the platform"
    assert seen["errors"] == [] and seen["requests"] == []


@pytest.mark.parametrize("name", ["renege-eram41", "client-seed-qahwa41", "server-seed-sahrat400",
                                  "broken-signature-eram41", "cut-short-classic"])
def test_altered_logs_show_the_finding_in_place(chromium, page_file, name):
    entry = next(e for e in MANIFEST if e["file"] == f"{name}.tlog")
    seen = check(chromium, page_file, FIXTURES / "altered" / entry["file"], width=390)
    assert seen["errors"] == [] and seen["requests"] == []
    assert seen["verdict"] == "findings"
    assert seen["overflow"] <= 0
    assert entry["kind"] in seen["kinds"]
    kind = entry["kind"]
    if kind in _HEADLINES:
        assert seen["headline"] == _HEADLINES[kind]
    else:
        assert "problem" in seen["headline"] and "does not check out" in seen["headline"]
    if entry["hand"] is not None and kind != "cut-short":
        assert str(entry["hand"] + 1) in seen["finding_hands"]  # in its hand's section
    if kind in ("client-seed", "server-seed"):
        assert "fail" in seen["steps"]
    if kind == "broken-signature":
        assert seen["signature"] == ["fail"]


def _python_verdict(capsys: Any, log: Path, *options: str) -> dict[str, Any]:
    """``tarneeb verify --json`` on ``log``: the verdict the page must agree with."""
    code, out, _ = run(capsys, "verify", "--json", *options, str(log))
    assert code in (0, 1), out
    data = json.loads(out)
    return data[0] if isinstance(data, list) else data


@pytest.mark.parametrize("name", ["matches/qahwa5-blind.tlog",
                                  "altered/blind-transcript-qahwa5.tlog"])
def test_a_blind_dealt_log_is_verified_from_its_proofs(chromium, page_file, capsys, name):
    """A log dealt blind (tarneeb-blind-v2) gets the verdict and findings tarneeb verify
    gives it, checked from the transcript's proofs in the browser; the seat's hand is said
    to be known only to its holder, never drawn from seeds that did not deal it."""
    log = FIXTURES / name
    want = _python_verdict(capsys, log)
    seen = check(chromium, page_file, log, width=390, seat=1)
    assert seen["errors"] == [] and seen["requests"] == [] and seen["overflow"] <= 0
    assert seen["verdict"] == ("findings" if want["findings"] else "clean")
    assert sorted(seen["kinds"]) == sorted(f["kind"] for f in want["findings"])
    assert len(seen["hands"]) == want["hands"] and seen["mine"] == []
    assert "The blind deals" in seen["proof"]
    assert seen["blind_words"] and all("known only to" in w for w in seen["blind_words"])
    if want["findings"]:
        assert "fail" in seen["steps"]
    else:
        # no key given: clean replay, but nothing ties the log to the platform
        assert seen["headline"] == "No problems found, but nothing ties this log to the platform"


def test_a_v1_log_and_a_stalled_blind_deal_are_verified(chromium, page_file, capsys, tmp_path,
                                                       monkeypatch):
    """A ``tarneeb-blind-v1`` log is checked in the browser, its passes said not proven; a
    blind deal that stopped at a seat (PROTOCOL.md §13.8) shows where it stopped, and a
    timeout blamed on another seat is the finding tarneeb verify gives."""
    from tarneeb.replay.log.records import Abandonment, EndRecord
    from tarneeb.replay.server import blind as blindplay
    from tarneeb.replay.server.simulate import MatchSecrets
    from tarneeb.testing.alterations.base import _close, _open

    stalled = _open(blindplay.play_blind_match("eram41", seed=b"page stall", target=3,
                                               stall=(0, 6)))  # seat 2's first round missing
    assert stalled.end is not None
    stalled.end = EndRecord(None, stalled.end.server_seed, Abandonment("timeout", 0, "gone"))
    logs = {"stalled": _close(stalled, MatchSecrets(b"page stall").key)}
    logs["v1"] = blindplay.play_blind_match("qahwa41", seed=b"page v1", target=3, version=1)
    seen = {}
    for name, data in logs.items():
        path = tmp_path / f"{name}.tlog"
        path.write_bytes(data)
        want = _python_verdict(capsys, path)
        seen[name] = check(chromium, page_file, path, width=390, seat=2)
        got = seen[name]
        assert got["errors"] == [] and got["requests"] == [] and got["overflow"] <= 0
        assert got["verdict"] == ("findings" if want["findings"] else "clean") == (
            "findings" if name == "stalled" else "clean")
        assert sorted(got["kinds"]) == sorted(f["kind"] for f in want["findings"])
        assert len(got["hands"]) == len(parse_log(data).hands) and got["mine"] == []
    assert "tarneeb-blind-v1, carry no proofs" in seen["v1"]["detail"]
    assert "Under tarneeb-blind-v1 the shuffle passes carry no proofs" in seen["v1"]["proof"]
    assert seen["stalled"]["kinds"] == ["timeout-out-of-turn"]
    assert any("the deal stopped before any card was dealt" in w and "did not deliver its "
               "partial decryptions of round 1" in w for w in seen["stalled"]["blind_words"])


def test_unreadable_log(chromium, page_file, tmp_path):
    junk = tmp_path / "junk.tlog"
    junk.write_bytes(b"\x93\x00\xabnot-a-log\x03 and then some bytes")
    seen = check(chromium, page_file, junk, width=390)
    assert seen["verdict"] == "unreadable"
    assert seen["headline"] == "This log could not be read"
    assert "junk.tlog" in seen["detail"] and "not a tarneeb log" in seen["detail"]
    assert seen["errors"] == [] and seen["requests"] == [] and seen["overflow"] <= 0


def test_the_page_uses_the_finding_words_of_the_match_report():
    words = json.loads((JS / "page" / "words.json").read_text(encoding="utf-8"))
    assert words == {"kinds": KINDS, "headlines": _HEADLINES, "games": GAMES}


def test_a_seats_receipt_is_checked_and_a_changed_one_is_a_finding(chromium, page_file, tmp_path,
                                                                  capsys):
    """With the receipt the seat kept, the commitment step passes (it is the match promised
    before play); a receipt whose terms were changed, or another match's, is a
    receipt-mismatch finding, as tarneeb verify --receipt says."""
    key = tmp_path / "p.pem"
    assert run(capsys, "keygen", str(key))[0] == 0
    log, receipt = tmp_path / "m.tlog", tmp_path / "r.json"
    assert run(capsys, "play", "--rules", "sahrat41", "--key", str(key), "-o", str(log),
               "--receipt-out", str(receipt))[0] == 0
    pub = tmp_path / "p.pub.pem"
    seen = check(chromium, page_file, log, key=pub, receipt=receipt)
    assert seen["errors"] == [] and seen["requests"] == []
    assert seen["verdict"] == "clean" and set(seen["steps"]) == {"pass"}
    assert run(capsys, "verify", "--key", str(pub), "--receipt", str(receipt), str(log))[0] == 0
    changed = json.loads(receipt.read_text())
    changed["client_commitments"][1] = "00" * 32
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(changed))
    other_log, other = tmp_path / "o.tlog", tmp_path / "o.json"
    assert run(capsys, "play", "--rules", "sahrat41", "--key", str(key), "-o", str(other_log),
               "--receipt-out", str(other))[0] == 0
    for wrong in (bad, other):
        seen = check(chromium, page_file, log, key=pub, receipt=wrong)
        assert seen["errors"] == [] and seen["requests"] == []
        assert seen["verdict"] == "findings" and "receipt-mismatch" in seen["kinds"]
        assert seen["steps"][0] == "fail"
        assert seen["headline"] == _HEADLINES["receipt-mismatch"]
        assert run(capsys, "verify", "--key", str(pub), "--receipt", str(wrong),
                   str(log))[0] == 1
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    seen = check(chromium, page_file, log, key=pub, receipt=junk)
    assert seen["receipt_status"].startswith("junk.json: not a receipt: ")
    # a receipt given that cannot be read: nothing is checked, as the command refuses it
    # (the page gave its green verdict as if no receipt had been given)
    assert seen["verdict"] == "unreadable" and seen["steps"] == []
    assert "the receipt junk.json: " in seen["detail"] + seen["headline"]
    assert run(capsys, "verify", "--key", str(pub), "--receipt", str(junk), str(log))[0] == 2


def test_names_and_reasons_from_the_log_are_isolated(chromium, page_file, tmp_path):
    """Right-to-left names (Arabic) and a reason with a right-to-left mark are each set in a
    ``<bdi>``: they cannot reorder the sentence around them ("علي: 7c35…" was shown with the
    seed's first digit before the name)."""
    from tarneeb.replay.log import Abandonment
    from tarneeb.replay.log.records import EndRecord
    from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
    from tarneeb.testing.alterations.base import rewrite

    names = ["أحمد", "سالم", "محمد", "علي"]
    secrets = MatchSecrets(b"bidi")
    data = play_logged_match("eram41", seed=b"bidi", names=names, key=secrets.key)
    log = tmp_path / "arabic.tlog"
    log.write_bytes(data)

    def stopped(edit):
        edit.end = EndRecord(None, edit.end.server_seed,
                             Abandonment("resignation", 1, "no answer\u200f 2 ,\u200f1 hand"))

    ended = tmp_path / "ended.tlog"
    ended.write_bytes(rewrite(data, stopped, resign=secrets.key))
    for path, wanted in ((log, names), (ended, ["no answer\u200f 2 ,\u200f1 hand"])):
        with chromium.open(page_file) as opened:
            opened.page.set_input_files("#log", str(path))
            opened.page.locator("#verdict:not([data-verdict=none]):not([data-verdict=checking])"
                                ).wait_for()
            isolated = opened.page.eval_on_selector_all("bdi", "els => els.map(e => e.textContent)")
            seeds = opened.page.eval_on_selector_all(
                "#proof li", "els => els.map(e => e.querySelectorAll('bdi').length)")
        assert set(wanted) <= set(isolated), isolated
        if path == log:
            assert max(seeds) >= 4  # the four players' seeds, each name isolated


def test_a_json_form_past_the_cap_is_refused_unread(chromium, page_file, tmp_path):
    """A JSON form past the log's size cap is refused at once, in the command's words (the
    page read the whole document first: seconds, then another error)."""
    big = tmp_path / "big.json"
    big.write_bytes(b'{"format": "tarneeb-log-json", "header": "' + b"a" * (17 << 20) + b'"}')
    seen = check(chromium, page_file, big)
    assert seen["verdict"] == "unreadable"
    assert "over the max_bytes cap of 16,777,216" in seen["detail"] + seen["headline"]


def test_a_log_dropped_on_the_page_is_checked(chromium, page_file):
    """Dropping the file anywhere on the page does what choosing it does."""
    log = FIXTURES / "matches" / "eram41-recorded-deals.tlog"
    with chromium.open(page_file) as opened:
        p = opened.page
        data = list(log.read_bytes())
        p.evaluate("""([name, bytes]) => {
            const dt = new DataTransfer();
            dt.items.add(new File([new Uint8Array(bytes)], name));
            document.body.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true,
                                                               cancelable: true}));
        }""", [log.name, data])
        p.locator("#verdict:not([data-verdict=none]):not([data-verdict=checking])").wait_for()
        assert p.locator("#verdict").get_attribute("data-verdict") == "clean"
        # recorded deals: no rule broken, but nothing proves the cards were not chosen
        assert opened.text("#verdict .headline") == \
            "No rule was broken, but the deals are only recorded"
        assert "only recorded" in opened.text("#proof")
        assert opened.count("section.deal p.mine") == opened.count("section.deal")
        assert opened.errors == [] and opened.requests == []


def _verdict_now(p: Any) -> dict[str, Any]:
    p.locator("#verdict:not([data-verdict=none]):not([data-verdict=checking])").wait_for()
    return {"verdict": p.locator("#verdict").get_attribute("data-verdict"),
            "headline": p.locator("#verdict .headline").inner_text(),
            "kinds": p.eval_on_selector_all(".finding", "els => els.map(e => e.dataset.kind)"),
            "steps": p.eval_on_selector_all("li[data-status]",
                                            "els => els.map(e => e.dataset.status)")}


def test_the_json_form_pasted_or_chosen_reads_as_the_log_itself(chromium, page_file, tmp_path,
                                                                capsys):
    """Every log of the corpus and every altered log, given as its JSON form (tarneeb
    export), dealt blind too (v2, v1 and a deal that stopped: transcripts, play proofs and
    keys), is re-encoded by the page to the bytes the platform signed (a byte off would
    break the signature), so it gives the very verdict the .tlog gives; a few, pasted or
    chosen, are shown so in the browser."""
    from tarneeb.replay.server import blind as blindplay

    logs = sorted((FIXTURES / "matches").glob("*.tlog")) + \
        sorted((FIXTURES / "altered").glob("*.tlog"))
    made = {"stalled": blindplay.play_blind_match("eram41", seed=b"form stall", target=3,
                                                   stall=(0, 9))}
    made["v1"] = blindplay.play_blind_match("qahwa41", seed=b"form v1", target=3, version=1)
    made["after-signature"] = (FIXTURES / "matches" / "classic-01.tlog").read_bytes() + b"zz"
    for name, data in made.items():
        (tmp_path / f"{name}.tlog").write_bytes(data)
        logs.append(tmp_path / f"{name}.tlog")
    assert len(logs) > 60
    assert sum(parse_log(p.read_bytes()).header.blind for p in logs) >= 12
    for log in logs:
        assert run(capsys, "export", str(log), "-o", str(tmp_path / f"{log.stem}.json"))[0] == 0
    # every form is re-encoded by the page's own jsonform.ts (bundled, run once in Node) to
    # the very bytes of its .tlog: so it gets the .tlog's verdict, whatever that is
    bundle = tmp_path / "jsonform.mjs"
    subprocess.run([str(JS / "node_modules" / ".bin" / "esbuild"),
                    str(JS / "src" / "log" / "jsonform.ts"),
                    "--bundle", "--format=esm", "--platform=node", f"--outfile={bundle}",
                    "--log-level=error"], check=True)
    script = tmp_path / "same.mjs"
    script.write_text(
        f"import {{ jsonFormToBytes }} from {json.dumps(str(bundle))};\n"
        "import { readFileSync } from 'node:fs';\n"
        f"const logs = {json.dumps([[str(p), str(tmp_path / f'{p.stem}.json')] for p in logs])};\n"
        "for (const [log, form] of logs) {\n"
        "  const b = jsonFormToBytes(JSON.parse(readFileSync(form, 'utf8')));\n"
        "  if (Buffer.compare(Buffer.from(b), readFileSync(log))) console.log(log);\n"
        "}\n", encoding="utf-8")
    differ = subprocess.run(["node", str(script)], capture_output=True, text=True, check=True)
    assert differ.stdout == "", differ.stdout
    # and in the browser, pasted and chosen, a few give the verdict their .tlog gives
    shown = [FIXTURES / "matches" / "classic-timer.tlog"] + \
        [FIXTURES / "altered" / f"{n}.tlog" for n in ("renege-eram41", "broken-signature-eram41",
                                                       "cut-short-classic")] + \
        [FIXTURES / "matches" / "qahwa5-blind.tlog"]  # pasted: dealt blind, checked from proofs
    with chromium.open(page_file) as opened:
        p = opened.page
        reset = "document.querySelector('#verdict').dataset.verdict = 'none'"
        p.locator("details summary").first.click()  # opens the box to paste into
        for n, log in enumerate(shown):
            form = tmp_path / f"{log.stem}.json"
            p.evaluate(reset)
            p.set_input_files("#log", str(log))
            want = _verdict_now(p)
            p.evaluate(reset)
            if n % 2:
                p.set_input_files("#log", str(form))
            else:
                p.fill("#json-text", form.read_text(encoding="utf-8"))
                p.click("#json-check")
            assert _verdict_now(p) == want, log.name
        assert opened.errors == [] and opened.requests == []


def test_a_json_form_that_is_not_one_is_unreadable(chromium, page_file, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tarneeb-log-json", "version": 3, "records": [{"type": "x"}]}')
    seen = check(chromium, page_file, bad)
    assert seen["verdict"] == "unreadable"
    assert "its JSON form cannot be read: record 0 (x)" in seen["detail"]
    assert seen["errors"] == [] and seen["requests"] == []


def test_a_season_match_shows_its_season_proof_checked(chromium, page_file, tmp_path, capsys):
    key = tmp_path / "p.pem"
    assert run(capsys, "keygen", str(key))[0] == 0
    code, out, _ = run(capsys, "commit", "--matches", "5", "--json", "--key", str(key))
    assert code == 0
    season = tmp_path / "season.json"
    season.write_text(out)
    log = tmp_path / "s.tlog"
    assert run(capsys, "play", "--rules", "qahwa41", "--season", str(season),
               "--season-match", "4", "--key", str(key), "-o", str(log))[0] == 0
    seen = check(chromium, page_file, log, key=tmp_path / "p.pub.pem")
    assert seen["verdict"] == "clean" and len(seen["steps"]) == 5
    # the root is the log's own: not checked until the one the platform published is given
    # (it read "checked", though the log could name a root of its own making)
    assert seen["steps"][0] == "skip" and seen["steps"][1] == "skip"
    assert "not checked (give it above)" in seen["proof"]
    published = json.loads(out)["root"]
    seen = check(chromium, page_file, log, key=tmp_path / "p.pub.pem", root=published)
    assert seen["verdict"] == "clean" and seen["steps"][0] == "pass"
    assert "the root you gave" in seen["proof"]
    seen = check(chromium, page_file, log, key=tmp_path / "p.pub.pem", root="ab" * 32)
    assert seen["verdict"] == "findings" and seen["steps"][0] == "fail"
    assert run(capsys, "verify", "--key", str(tmp_path / "p.pub.pem"), "--root", "ab" * 32,
               str(log))[0] == 1
    seen = check(chromium, page_file, log, key=tmp_path / "p.pub.pem", root="not hex")
    assert seen["verdict"] == "unreadable" and "not 64 hex digits" in seen["root_status"]
    with chromium.open(page_file) as opened:
        opened.page.set_input_files("#log", str(log))
        opened.page.locator("#verdict:not([data-verdict=none]):not([data-verdict=checking])"
                            ).wait_for()
        assert "leaf 4 of 5" in opened.text("#proof")
    broken = check(chromium, page_file, FIXTURES / "altered" / "batch-proof-eram41.tlog")
    assert broken["verdict"] == "findings" and broken["steps"][0] == "fail"
    assert "batch-proof" in broken["kinds"]


def test_a_blind_log_shows_its_progress_deal_by_deal(chromium, page_file, tmp_path):
    """A log dealt blind takes seconds a deal to check in the browser: the page says which
    deal it is checking while it works (each text it shows is recorded as it is set: a
    poll of the page, which works between deals only, may come too late for one), then
    gives the verdict as for any log."""
    from tarneeb.replay.server.blind import play_blind_match

    log = tmp_path / "three.tlog"
    log.write_bytes(play_blind_match("eram41", seed=b"page progress", target=5))
    assert len(parse_log(log.read_bytes()).hands) == 3
    with chromium.open(page_file) as opened:
        p = opened.page
        p.evaluate("""() => {
            window.shown = [];
            const verdict = document.querySelector("#verdict");
            new MutationObserver(() => {
                const progress = verdict.querySelector(".progress");
                if (progress && progress.textContent) window.shown.push(progress.textContent);
            }).observe(verdict, {subtree: true, childList: true, characterData: true});
        }""")
        p.set_input_files("#log", str(log))
        assert _verdict_now(p)["verdict"] == "clean"
        shown = list(dict.fromkeys(p.evaluate("window.shown")))  # (each once, in order)
        assert shown == ["Checking deal 1 of 3…", "Checking deal 2 of 3…",
                         "Checking deal 3 of 3…"]
        assert "Checking deal" not in p.locator("#verdict").inner_text()
        assert opened.errors == [] and opened.requests == []


def _key_pem(tmp_path: Path, name: str) -> Path:
    """The public key (PEM) the corpus log ``name`` was signed with."""
    from cryptography.hazmat.primitives import serialization

    from tarneeb.testing.corpus.specs import MATCHES, platform_key

    spec = next(s for s in MATCHES if s.file == name)
    pem = tmp_path / f"{name}.pub.pem"
    pem.write_bytes(platform_key(spec).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return pem


def test_a_pasted_key_is_used_as_it_is_pasted_and_by_its_button(chromium, page_file,
                                                               tmp_path):
    """A key pasted into the box pins the log without the box losing focus; the button
    "Use this key" takes what the box holds."""
    log = FIXTURES / "matches" / "classic-timer.tlog"
    pem = _key_pem(tmp_path, log.name).read_text()
    with chromium.open(page_file) as opened:
        p = opened.page
        p.set_input_files("#log", str(log))
        p.locator("#verdict[data-verdict=clean]").wait_for()
        assert opened.text("#verdict .headline").startswith("No problems found, but nothing")
        p.locator("#key-text").fill(pem)  # typed or pasted: focus stays in the box
        p.locator("#key-status:not(:empty)").wait_for()
        p.locator("#verdict .headline:text('dealt fairly')").wait_for()
        assert p.evaluate("document.activeElement.id") == "key-text"
        assert opened.errors == [] and opened.requests == []
    with chromium.open(page_file) as opened:
        p = opened.page
        p.set_input_files("#log", str(log))
        p.locator("#verdict[data-verdict=clean]").wait_for()
        # the text put in without an input event: only the button can take it
        p.eval_on_selector("#key-text", "(e, pem) => { e.value = pem; }", pem)
        p.click("#key-use")
        p.locator("#verdict .headline:text('dealt fairly')").wait_for()
        assert "pinned" in opened.text("#signature")


def test_a_wrong_key_is_said_to_be_another_key_not_a_changed_log(chromium, page_file,
                                                                 tmp_path, capsys):
    """A whole log checked against another platform's key: the headline says another key
    signed it (naming both), not that it was changed or torn."""
    key = tmp_path / "other.pem"
    assert run(capsys, "keygen", str(key))[0] == 0
    seen = check(chromium, page_file, FIXTURES / "matches" / "classic-timer.tlog",
                 key=tmp_path / "other.pub.pem")
    assert seen["verdict"] == "findings" and "key-mismatch" in seen["kinds"]
    assert seen["headline"] == ("This log was not signed by the platform's key: another key "
                                "signed it")
    assert "changed" not in seen["headline"] + seen["detail"]
    assert "key named inside the log" in seen["detail"] and "key you gave" in seen["detail"]
    # a log changed after signing, given its own key, is still said to be changed
    broken = check(chromium, page_file, FIXTURES / "altered" / "broken-signature-eram41.tlog",
                   key=_key_pem(tmp_path, "eram41-01.tlog"))
    assert broken["headline"] == _HEADLINES["broken-signature"]


def test_a_keys_file_of_other_platforms_is_not_called_the_key_you_gave(chromium, page_file,
                                                                        tmp_path, capsys):
    """A whole log checked against a keys file that holds only other platforms' keys: another
    key signed it, which is none of them (not "the key you gave", with the log's own id)."""
    from tarneeb.audit.signing import load_public_key_file, public_key_raw

    assert run(capsys, "keygen", str(tmp_path / "other.pem"))[0] == 0
    raw = public_key_raw(load_public_key_file(tmp_path / "other.pub.pem")).hex()
    keys = tmp_path / "platforms.toml"
    keys.write_text(f'other = "{raw}"\n', encoding="utf-8")
    seen = check(chromium, page_file, FIXTURES / "matches" / "classic-timer.tlog", key=keys)
    assert seen["headline"] == ("This log was not signed by the platform's key: another key "
                                "signed it")
    assert "none of the platform keys you gave" in seen["detail"]
    assert "key you gave (key" not in seen["detail"] and "changed" not in seen["detail"]


def test_a_changed_signature_is_worded_once(chromium, page_file):
    """The signature section says once that the signature does not cover the log."""
    seen = check(chromium, page_file, FIXTURES / "altered" / "broken-signature-eram41.tlog",
                 width=390)
    lines = [line for line in seen["signature_text"].splitlines() if "does not" in line]
    assert len(lines) == 1, lines
    assert "checked up to byte" in seen["signature_text"]  # where it stops is still said
    problems = seen["text"].split("What is wrong (1)", 1)[1].split("\n", 2)[1]
    assert problems.count("does not") == 2 and "signed" not in problems.split(".", 1)[1]


def test_the_phone_page_links_to_the_players_hand_near_the_top(chromium, page_file):
    """On a phone the player's own hand is thousands of pixels down: the verdict links to
    it on the first screen, and the words about the key box say where it is."""
    log = FIXTURES / "matches" / "eram41-01.tlog"
    with chromium.open(page_file, width=390, height=800) as opened:
        p = opened.page
        p.select_option("#seat", "2")
        p.set_input_files("#log", str(log))
        p.locator("#verdict[data-verdict=clean]").wait_for()
        link = p.locator("#verdict a[href='#hands']")
        assert link.inner_text().startswith("Your hand in every deal (")
        assert link.bounding_box()["y"] + link.bounding_box()["height"] < 800
        assert p.locator("#hands").bounding_box()["y"] > 2000
        link.click()  # scrolls the hands to the top of the screen
        assert abs(p.locator("#hands").bounding_box()["y"]) < 100
        detail = opened.text("#verdict .detail")
        verdict, key = p.locator("#verdict").bounding_box(), p.locator("#key").bounding_box()
        assert key["y"] > verdict["y"] + verdict["height"]  # the key box is below the verdict
        assert "public key below" in detail and "above" not in detail
        assert opened.errors == [] and opened.requests == []


def test_a_broken_hand_is_counted_and_words_are_whole(chromium, page_file):
    """A log of 18 dealing attempts (17 played) whose hand 8 is broken is counted as the
    log holds it; the game is named as the match report names it; no "(s)" plurals."""
    from tarneeb.report.match import game_name

    log = FIXTURES / "altered" / "card-not-held-sahrat41.tlog"
    parsed = parse_log(log.read_bytes())
    assert len(parsed.hands) == 18
    seen = check(chromium, page_file, log)
    assert seen["verdict"] == "findings"
    played = sum(1 for h in parsed.hands if h.plays)
    assert seen["facts"]["Hands"] == f"18 dealt, {played} played"
    assert seen["facts"]["Game"] == f"{game_name('sahrat41')}, played to 41"
    assert "(s)" not in seen["text"]
    assert "tarneeb-blind-v3" in seen["text"] and "leaves to" not in seen["text"]  # the footer
    assert "4 calls, 52 cards played." in seen["text"]


def test_a_receipt_mismatch_says_what_mismatched(chromium, page_file, tmp_path, capsys):
    """The verdict of a receipt that promised another match says what differs, not only
    that each difference is marked below."""
    key = tmp_path / "p.pem"
    assert run(capsys, "keygen", str(key))[0] == 0
    log, receipt = tmp_path / "m.tlog", tmp_path / "r.json"
    assert run(capsys, "play", "--rules", "sahrat41", "--seed", "x", "--key", str(key), "-o",
               str(log), "--receipt-out", str(receipt))[0] == 0
    changed = json.loads(receipt.read_text())
    changed["client_commitments"][1] = "00" * 32
    receipt.write_text(json.dumps(changed))
    seen = check(chromium, page_file, log, key=tmp_path / "p.pub.pem", receipt=receipt)
    assert seen["headline"] == _HEADLINES["receipt-mismatch"]
    assert "Your receipt: " in seen["detail"] and "client commitment of" in seen["detail"]


@pytest.mark.parametrize(("name", "seat", "hand"), [
    ("wrong-deal-number-sahrat400", 1, 25),  # its 25th attempt numbered 24, as the 24th is
    ("wrong-dealer-classic", 3, 7),  # its 7th attempt dealt by the seat before the dealer
])
def test_the_pages_hand_n_is_tarneeb_show_hand_n(chromium, page_file, capsys, name, seat, hand):
    """Hand N on the page is the hand `tarneeb show --hand N` shows (and a finding's "hand
    N"): the N-th dealing attempt, dealt as the verifier deals it, by the dealer the rules
    give, whatever number and dealer its record writes; the player's cards are the ones the
    Python replayer dealt that seat in that attempt."""
    from tarneeb.replay.rules.cards import card_name, cards_of
    from tarneeb.replay.verify.people import Table
    from tarneeb.replay.verify.replayer import verify_log

    log = FIXTURES / "altered" / f"{name}.tlog"
    seen = check(chromium, page_file, log, seat=seat)
    assert seen["errors"] == [] and seen["requests"] == []
    v = verify_log(parse_log(log.read_bytes()), log.name)
    table = Table.of(v)
    assert seen["hands"] == [f"Hand {i + 1} · dealt by {table.name(h.dealer)}"
                             for i, h in enumerate(v.history)]
    for shown, h in zip(seen["mine"], v.history, strict=True):
        assert sorted(shown) == sorted(card_name(c) for c in cards_of(h.hands[seat]))
    assert [f.hand for f in v.findings] == [hand - 1]
    assert seen["finding_hands"] == [str(hand)]  # in the section of the hand it names
    code, out, _ = run(capsys, "show", "--json", "--hand", str(hand), str(log))
    shown_hand = json.loads(out)["hands"]
    assert code == 1 and [h["deal_number"] for h in shown_hand] == [hand - 1]  # (a finding)
    assert seen["hands"][hand - 1] == f"Hand {hand} · dealt by " \
        f"{table.name(shown_hand[0]['dealer'])}"


def test_the_page_names_players_as_tarneeb_verify_does(chromium, page_file, tmp_path):
    """Names a sentence could misread — one that reads as another seat, one that two seats
    share (case aside), one holding a seat's words — are said as the CLI and the match
    report say them: quoted with their seat, and never read again as a seat or a hand."""
    from test_js_people import _named

    log = tmp_path / "named.tlog"
    log.write_bytes(_named((FIXTURES / "altered" / "renege-classic.tlog").read_bytes(),
                           ["seat 2", "Nour", "x seat 3", "nour"]))
    seen = check(chromium, page_file, log, seat=1)
    assert seen["errors"] == [] and seen["requests"] == []
    assert "“Nour” (Seat 2) played 6♥ on a ♦ lead" in seen["text"]
    assert "“seat 2” (Seat 1)" in seen["text"] and "x seat 3" in seen["text"]
    assert "x “nour” (Seat 4)" not in seen["text"]  # a name is not read again
