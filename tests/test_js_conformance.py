"""Two verifiers that agree: the TypeScript verifier in ``js/`` (written from docs/FORMAT.md,
docs/PROTOCOL.md and docs/RULES.md) against ``tarneeb verify --json`` on every corpus log,
every altered log, and generated and mutated logs (hypothesis strategies).

They must give the same verdict (clean, findings, unreadable), the same counts of hands
replayed and played, whether the deals are proven and how they were dealt, and the same
findings: kind, hand, trick, seat and card (not the English text, nor the byte offset).
A log dealt blind is compared as any other (its transcripts checked from the proofs alone
by both); what the JS verifier does not check of one (a ``tarneeb-blind-v1`` transcript, a
blind deal that stopped, a blind log cut short or unsigned) it must say so (verdict
``not-verified``, exit 2), never clean: every blind log of the corpus and the altered logs
is compared in full.

``TARNEEB_CONFORMANCE=N`` sets how many generated logs are compared (default 150; each
also gives a cut, a changed byte or a zero-filled tail of it, about three in four), and
``TARNEEB_CONFORMANCE_KEEP=DIR`` keeps the logs that disagree there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "js"
CLI = JS / "dist" / "src" / "cli.js"
COUNT = int(os.environ.get("TARNEEB_CONFORMANCE", "150"))
BATCH = 200


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (>= 20) is not installed: the JS verifier cannot run "
                    "(make test installs it)")
    return node


@pytest.fixture(scope="module")
def node() -> str:
    node = _node()
    sources = [*(JS / "src").glob("*.ts"), JS / "package-lock.json"]
    if not CLI.exists() or any(p.stat().st_mtime > CLI.stat().st_mtime for p in sources):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is not installed: the JS verifier cannot be built")
        if not (JS / "node_modules").exists():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS, check=True)
        subprocess.run([npm, "run", "build"], cwd=JS, check=True)
    return node


def _js(node: str, paths: list[Path], *options: str) -> list[dict]:
    out = subprocess.run([node, str(CLI), "verify", "--json", *options, *map(str, paths)],
                         capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1, 2), out.stderr
    return json.loads(out.stdout)


def _py(paths: list[Path], *options: str) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "tarneeb", "verify", "--json", *options,
                          *map(str, paths)],
                         capture_output=True, text=True, check=False, cwd=ROOT)
    assert out.returncode in (0, 1, 2), out.stderr
    return json.loads(out.stdout)


def _summary(v: dict) -> dict:
    """What both verifiers must agree on."""
    if v["verdict"] == "unreadable":
        return {"verdict": "unreadable"}
    return {
        "verdict": v["verdict"], "hands": v["hands"], "played": v["played"],
        "deals_proven": v["deals_proven"], "dealing": v["dealing"],
        "recorded_deals": v["recorded_deals"], "not_replayed": v["not_replayed"],
        "key": v["key"]["id"],
        "findings": sorted((f["kind"], f["hand"], f["trick"], f["seat"], f["card"])
                           for f in v["findings"]),
    }


def _disagreements(node: str, paths: list[Path], *options: str) -> list[str]:
    out: list[str] = []
    for i in range(0, len(paths), BATCH):
        part = paths[i:i + BATCH]
        for path, js, py in zip(part, _js(node, part, *options), _py(part, *options),
                                strict=True):
            if js["verdict"] == "not-verified":
                if py["dealing"] != "blind" or str(path).startswith(str(ROOT / "fixtures")):
                    out.append(f"{path}: JS does not verify it: {js['error']}")
                continue
            a, b = _summary(js), _summary(py)
            if a != b:
                diff = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
                out.append(f"{path}: JS vs Python {diff}")
    return out


def test_corpus_and_altered_logs_agree(node: str) -> None:
    paths = sorted((ROOT / "fixtures" / "matches").glob("*.tlog")) + \
        sorted((ROOT / "fixtures" / "altered").glob("*.tlog"))
    assert len(paths) > 100
    blind = [p for p in paths if "blind" in p.name or "qahwa5" in p.name]
    assert len(blind) >= 10  # the blind corpus log and its altered cheats are compared too
    assert _disagreements(node, paths) == []


def test_pinned_keys_and_roots_agree(node: str, tmp_path: Path) -> None:
    """--key (another key than the log's, and the log's own) and --root give the same
    findings in both."""
    vectors = json.loads((ROOT / "fixtures" / "vectors" / "signature.json").read_text())
    other = tmp_path / "other.pem"
    other.write_text(vectors["public_key_pem"])
    paths = [ROOT / "fixtures" / "altered" / f"{name}.tlog" for name in
             ("batch-proof-eram41", "key-mismatch-sahrat41", "weak-key-sahrat41",
              "broken-signature-eram41", "cut-short-classic")] + \
        sorted((ROOT / "fixtures" / "matches").glob("eram41-*.tlog"))
    assert _disagreements(node, paths, "--key", str(other)) == []
    assert _disagreements(node, paths, "--root", "11" * 32) == []


def test_generated_logs_agree(node: str, tmp_path: Path) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tarneeb.testing import edited_logs, logs

    made: list[bytes] = []

    @settings(max_examples=COUNT, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.one_of(logs(), edited_logs()), st.integers(0, 2**32 - 1), st.integers(0, 255))
    def collect(log: bytes, at: int, byte: int) -> None:
        made.append(log)
        if at % 4 == 0:  # a log cut short somewhere, as a crash leaves it
            made.append(log[:at % len(log)])
        elif at % 4 == 1:  # one byte changed: damage, or a forger's edit
            i = at % len(log)
            made.append(log[:i] + bytes([byte]) + log[i + 1:])
        elif at % 4 == 2:  # a zero-filled tail, as a power loss leaves it
            i = at % len(log)
            made.append(log[:i] + bytes(len(log) - i))

    collect()
    paths = []
    for i, log in enumerate(made):
        p = tmp_path / f"gen-{i:05d}.tlog"
        p.write_bytes(log)
        paths.append(p)
    assert len(paths) >= COUNT
    bad = _disagreements(node, paths)
    keep = os.environ.get("TARNEEB_CONFORMANCE_KEEP")  # a folder to keep the logs that disagree in
    if keep and bad:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for line in bad:
            shutil.copy(line.split(":", 1)[0], keep)
    assert bad == [], f"{len(bad)} of {len(paths)} generated logs disagree:\n" + "\n".join(bad[:20])


def test_blind_logs_cut_short_agree(node: str, tmp_path: Path) -> None:
    """The corpus log dealt blind cut short, and with a zero-filled tail, at points inside its
    blind record, its plays and their proofs, its keys records and its signature: the same
    verdicts and findings in both (an open end judged as for any log)."""
    data = (ROOT / "fixtures" / "matches" / "qahwa5-blind.tlog").read_bytes()
    paths = []
    for at in (600, 9000, 40922, 42631, 44000, len(data) - 66, len(data) - 1):
        for name, log in (("cut", data[:at]), ("zeros", data[:at] + bytes(len(data) - at))):
            p = tmp_path / f"{name}-{at}.tlog"
            p.write_bytes(log)
            paths.append(p)
    verdicts = _js(node, paths)
    assert all(v["verdict"] != "not-verified" for v in verdicts)
    assert _disagreements(node, paths) == []


def test_blind_transcripts_not_checked_are_not_verified(node: str, tmp_path: Path) -> None:
    """What the JS verifier does not check of blind dealing — a ``tarneeb-blind-v1``
    transcript, a v2 deal that stopped at a seat (PROTOCOL.md §13.8) — gives
    ``not-verified`` (exit 2), never clean."""
    import msgpack

    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed((ROOT / "fixtures" / "matches" / "qahwa5-blind.tlog").read_bytes())
    values = list(unpacker)
    at = next(i for i, v in enumerate(values) if isinstance(v, list) and v[0] == 5)
    blind = values[at]
    v1 = [*blind[:4], [bytes(3328)] * 3, blind[5]]
    stopped = [5, blind[1], blind[2][:2], [], [b"", *blind[4][1:5]], None]
    logs = {"v1": [*values[:at], v1, *values[at + 1:]],
            "stopped": [*values[:at], stopped, [2, None, None, ["timeout", 2, "no answer"]]]}
    paths = []
    for name, vals in logs.items():
        p = tmp_path / f"{name}.tlog"
        p.write_bytes(b"".join(msgpack.packb(v, use_bin_type=True) for v in vals))
        paths.append(p)
    out = subprocess.run([node, str(CLI), "verify", "--json", *map(str, paths)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 2, out.stderr
    verdicts = json.loads(out.stdout)
    assert [v["verdict"] for v in verdicts] == ["not-verified", "not-verified"]
    assert "tarneeb-blind-v1" in verdicts[0]["error"]
    assert "stopped" in verdicts[1]["error"]
    assert [v["dealing"] for v in _py(paths)] == ["blind", "blind"]  # both logs read as blind
