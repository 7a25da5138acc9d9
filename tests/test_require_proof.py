"""The user's policy ``--require-proof`` (docs/PROTOCOL.md §13.4, "Requiring proof"): a log
dealt blind under ``tarneeb-blind-v1`` (its shuffle passes without proofs) or with deals
the platform recorded verifies clean with a note, and with ``--require-proof`` each such deal
is an ``unproven-deal`` finding (exit 1), in ``tarneeb verify``, ``tarneeb audit``, the
TypeScript CLI and the verifier page (a visible switch); a log whose every deal is proven
stays clean under it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from js_build import built

from tarneeb.replay.log import parse_log
from tarneeb.replay.server.blind import play_blind_match
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.receipt import read_receipt, receipt_json, receipt_of
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.trust import Trust

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "js" / "dist" / "src" / "cli.js"
REQUIRE = Trust(require_proof=True)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("proof")
    made = {"v1": play_blind_match("qahwa41", seed=b"require v1", target=3, version=1,
                                   max_hands=2),
            "v3": play_blind_match("qahwa41", seed=b"require v3", target=3, max_hands=2),
            "recorded": play_logged_match("classic", seed=b"require rec", seeded=False),
            "seeds": play_logged_match("classic", seed=b"require seeds")}
    out = {}
    for name, data in made.items():
        out[name] = d / f"{name}.tlog"
        out[name].write_bytes(data)
    return out


def _kinds(path: Path, trust: Trust = REQUIRE) -> list[str]:
    return [f.kind for f in verify_bytes(path.read_bytes(), trust=trust).findings]


def test_an_unproven_deal_is_a_note_by_default_and_a_finding_when_proof_is_required(
        logs: dict[str, Path]) -> None:
    for name in ("v1", "recorded"):
        assert verify_bytes(logs[name].read_bytes()).clean, name
    v = verify_bytes(logs["v1"].read_bytes(), trust=REQUIRE)
    assert {f.kind for f in v.findings} == {"unproven-deal"} and v.blind_v1
    assert sorted(f.hand for f in v.findings) == list(range(len(v.history)))
    assert all(f.seat is None for f in v.findings)  # nobody's fault: the protocol's
    assert _kinds(logs["recorded"]) == ["unproven-deal"]
    assert _kinds(logs["v3"]) == [] and _kinds(logs["seeds"]) == []


def _tarneeb(*args: str) -> int:
    from tarneeb.cli.entry import main

    with pytest.raises(SystemExit) as e:
        main(list(args))
    return int(e.value.code or 0)


def test_verify_and_audit_take_require_proof(logs: dict[str, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert _tarneeb("verify", str(logs["v1"])) == 0
    assert _tarneeb("verify", "--require-proof", str(logs["v1"])) == 1
    assert "proof is required" in capsys.readouterr().out
    assert _tarneeb("verify", "--require-proof", "--json", str(logs["recorded"])) == 1
    out = json.loads(capsys.readouterr().out)
    assert [f["kind"] for f in out[0]["findings"]] == ["unproven-deal"]
    assert _tarneeb("verify", "--require-proof", str(logs["v3"]), str(logs["seeds"])) == 0
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "v1.tlog").write_bytes(logs["v1"].read_bytes())
    assert _tarneeb("audit", "-j", "1", "--json", str(archive)) == 0
    capsys.readouterr()
    assert _tarneeb("audit", "-j", "1", "--json", "--require-proof", str(archive)) == 1
    assert "unproven-deal" in capsys.readouterr().out


def test_the_typescript_cli_takes_require_proof(logs: dict[str, Path], tmp_path: Path) -> None:
    node = built("cli.js")
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def run(*args: str) -> tuple[int, Any]:
        r = subprocess.run([node, str(CLI), "verify", "--json", *args], capture_output=True,
                           text=True, timeout=120, env=env)
        return r.returncode, json.loads(r.stdout)

    code, out = run(str(logs["recorded"]))  # a note without the policy, as in Python
    assert code == 0 and [v["verdict"] for v in out] == ["clean"]
    code, out = run("--require-proof", str(logs["v1"]), str(logs["recorded"]), str(logs["seeds"]))
    assert code == 1
    assert [sorted({f["kind"] for f in v["findings"]}) for v in out] == [
        ["unproven-deal"], ["unproven-deal"], []]
    py = [f.hand for f in verify_bytes(logs["v1"].read_bytes(), trust=REQUIRE).findings]
    assert [f["hand"] for f in out[0]["findings"]] == py


def test_the_page_has_a_switch_for_it(chromium: Any, logs: dict[str, Path],
                                      tmp_path: Path) -> None:
    built("cli.js")
    page = tmp_path / "verify.html"
    assert _tarneeb("verifier", "-o", str(page)) == 0
    with chromium.open(page) as opened:
        p = opened.page
        switch = p.locator("#require-proof")
        assert switch.is_visible() and not switch.is_checked()
        p.set_input_files("#log", str(logs["recorded"]))
        done = "#verdict:not([data-verdict=none]):not([data-verdict=checking])"
        p.locator(done).wait_for()
        assert p.locator("#verdict").get_attribute("data-verdict") == "clean"
        switch.check()
        p.locator("#verdict[data-verdict=findings]").wait_for()
        kinds = p.eval_on_selector_all(".finding", "els => els.map(e => e.dataset.kind)")
        assert set(kinds) == {"unproven-deal"}
        assert opened.errors == [] and opened.requests == []


# ------------------------------------------------------- the receipt binds the dealing

def _receipts(log: bytes, key: Any, tmp: Path) -> dict[str, Path]:
    """The receipts of ``log``'s match: promising v3 (what the recorder deals), v1, the
    seeds; one made before receipts named the dealing; and the v3 one with its dealing
    field taken out."""
    header = parse_log(log).header
    out = {}
    for name, dealing in (("v3", None), ("v1", "tarneeb-blind-v1"), ("seeds", "seeds")):
        out[name] = tmp / f"{name}.json"
        out[name].write_text(receipt_json(header, key, dealing))
    doc = json.loads(out["v3"].read_text())
    assert doc["dealing"] == "tarneeb-blind-v3"
    del doc["dealing"]
    out["stripped"] = tmp / "stripped.json"
    out["stripped"].write_text(json.dumps(doc))
    doc["signature"] = receipt_of(header).sign(key).hex()  # as an old receipt was signed
    out["old"] = tmp / "old.json"
    out["old"].write_text(json.dumps(doc))
    return out


def test_the_receipt_binds_the_dealing_protocol(tmp_path: Path) -> None:
    """A match promised under tarneeb-blind-v3 and logged under v1 (a platform moving it to
    a weaker version after the receipt) is a receipt-mismatch on every hand; a receipt
    without the dealing (an old one) still verifies, and does not let a v1 deal pass under
    --require-proof; the field cannot be taken out of a receipt that has it."""
    key = MatchSecrets(b"dealing receipt").key
    log = play_blind_match("qahwa41", seed=b"require v1", target=3, version=1,
                           max_hands=2, key=key)
    r = _receipts(log, key, tmp_path)

    def verdict(name: str, trust: Trust = Trust()) -> Any:
        return verify_bytes(log, trust=trust.replace(
            receipts=(read_receipt(r[name].read_bytes()),)))

    v = verdict("v3")
    assert {f.kind for f in v.findings} == {"receipt-mismatch"}
    assert sorted(f.hand for f in v.findings) == list(range(len(v.history)))
    assert "tarneeb-blind-v3" in v.findings[0].message
    assert verdict("v1").clean
    assert [f.kind for f in verdict("seeds").findings] == ["receipt-mismatch"]
    assert "signature does not verify" in str(verdict("stripped").findings)
    old = verdict("old")
    assert old.clean and any("does not name the dealing" in n for n in old.notes)
    assert {f.kind for f in verdict("old", REQUIRE).findings} == {"unproven-deal"}
    # the TypeScript verifier, on the same receipts
    node = built("cli.js")
    path = tmp_path / "m.tlog"
    path.write_bytes(log)
    for name, kinds in (("v3", {"receipt-mismatch"}), ("old", set())):
        run = subprocess.run([node, str(CLI), "verify", "--json", "--receipt", str(r[name]),
                              str(path)], capture_output=True, text=True, timeout=120,
                             env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
        out = json.loads(run.stdout)[0]
        assert {f["kind"] for f in out["findings"]} == kinds, (name, out["findings"])
        assert run.returncode == (1 if kinds else 0)
        py = verdict(name)
        assert [f["hand"] for f in out["findings"]] == [f.hand for f in py.findings]


def test_a_receipt_made_for_a_blind_log_binds_what_the_recorder_deals(tmp_path: Path) -> None:
    """``tarneeb play --receipt-out`` writes ``receipt_json`` of the log's header: for a log
    dealt blind it promises tarneeb-blind-v3, and a v3 log verifies clean against it, with
    proof required."""
    key = MatchSecrets(b"require v3").key
    log, receipt = tmp_path / "m.tlog", tmp_path / "r.json"
    log.write_bytes(play_blind_match("qahwa41", seed=b"require v3", target=3, max_hands=2,
                                     key=key))
    receipt.write_text(receipt_json(parse_log(log.read_bytes()).header, key))
    assert json.loads(receipt.read_text())["dealing"] == "tarneeb-blind-v3"
    assert _tarneeb("verify", "--receipt", str(receipt), "--require-proof", str(log)) == 0
