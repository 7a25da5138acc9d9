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

from tarneeb.replay.server.blind import play_blind_match
from tarneeb.replay.server.simulate import play_logged_match
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

    code, out = run(str(logs["v1"]), str(logs["recorded"]))
    assert code == 0 and [v["verdict"] for v in out] == ["clean", "clean"]
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
