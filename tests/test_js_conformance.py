"""Two verifiers that agree: the TypeScript verifier in ``js/`` (written from docs/FORMAT.md,
docs/PROTOCOL.md and docs/RULES.md) against ``tarneeb verify --json``.

Over every corpus log, every altered log, every log of ``fixtures/vectors``, generated and
mutated logs (hypothesis strategies, each also cut, changed in one byte or given a
zero-filled tail), with and without ``--key``, ``--keys``, ``--root``, ``--server-seed`` and
``--receipt``, the two must give the same exit code and the **same verdict JSON, field for
field**: verdict, error, counts, key (id, pinned, platform, scripts), the signed line, the
ending, every finding (kind, message, hand, trick, seat, card, offset), the notes and the
rule paths. No field is exempt. A bad option, key, keys file or receipt ends both with
exit 2 and the same one line (after each program's ``error:`` prefix).

A log dealt blind is compared as any other (its transcripts checked from the proofs alone
by both); what the JS verifier does not check of one (a ``tarneeb-blind-v1`` transcript, a
blind deal that stopped) it must say so (verdict ``not-verified``, exit 2), never clean,
and every blind log of the corpus and the altered logs is compared in full.

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
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "js"
CLI = JS / "dist" / "src" / "cli.js"
COUNT = int(os.environ.get("TARNEEB_CONFORMANCE", "150"))
BATCH = 200
VECTORS = sorted((ROOT / "fixtures" / "vectors").glob("log-*.json"))


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (>= 20) is not installed: the JS verifier cannot run "
                    "(make test installs it)")
    return node


@pytest.fixture(scope="module")
def node() -> str:
    node = _node()
    sources = [*(JS / "src").rglob("*.ts"), JS / "package-lock.json"]
    if not CLI.exists() or any(p.stat().st_mtime > CLI.stat().st_mtime for p in sources):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is not installed: the JS verifier cannot be built")
        if not (JS / "node_modules").exists():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS, check=True)
        subprocess.run([npm, "run", "build"], cwd=JS, check=True)
    return node


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment without the user's own keys file, which both verifiers would read."""
    config = tmp_path_factory.mktemp("config")
    return {**os.environ, "XDG_CONFIG_HOME": str(config), "HOME": str(config)}


def _start(cmd: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env)


def _result(proc: subprocess.Popen[str]) -> tuple[int, Any]:
    """The exit code and the JSON verdicts, or the one error line (after ``error: ``)."""
    stdout, stderr = proc.communicate()
    assert proc.returncode in (0, 1, 2), stderr
    if stdout.strip():
        return proc.returncode, json.loads(stdout)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "error: " in lines[0], stderr  # one line, no traceback
    return proc.returncode, lines[0].split("error: ", 1)[1]


def _run(cmd: list[str], env: dict[str, str]) -> tuple[int, Any]:
    return _result(_start(cmd, env))


def _both(node: str, env: dict[str, str], paths: list[Path], options: tuple[str, ...]
          ) -> tuple[tuple[int, Any], tuple[int, Any]]:
    """Both verifiers on the same logs, run side by side (neither reads what the other
    writes): each one's exit code and verdicts."""
    args = ["verify", "--json", *options, *map(str, paths)]
    js = _start([node, str(CLI), *args], env)
    try:
        py = _start([sys.executable, "-m", "tarneeb", *args], env)
    except BaseException:
        js.kill()
        js.communicate()
        raise
    try:
        return _result(js), _result(py)
    finally:
        for proc in (js, py):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def _differ(a: Any, b: Any, at: str = "") -> list[str]:
    """Where two JSON values differ, as paths (``findings[2].message``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b), key=str)
                for d in _differ(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{at}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in _differ(x, y, f"{at}[{i}]")]
    return [] if a == b else [f"{at or '.'}: JS {json.dumps(a, ensure_ascii=False)[:300]} "
                              f"vs Python {json.dumps(b, ensure_ascii=False)[:300]}"]


def _compare(js_v: dict, py_v: dict, path: Path) -> list[str]:
    if js_v["verdict"] == "not-verified":  # only what the JS verifier cannot check of a
        # blind log (a v1 transcript, a deal that stopped), and never a fixture
        if py_v["dealing"] != "blind" or str(path).startswith(str(ROOT / "fixtures")):
            return [f"{path}: JS does not verify it: {js_v['error']}"]
        return []
    return [f"{path}: {d}" for d in _differ(js_v, py_v)]


def _disagreements(node: str, env: dict[str, str], paths: list[Path],
                   *options: str) -> list[str]:
    out: list[str] = []
    for i in range(0, len(paths), BATCH):
        part = paths[i:i + BATCH]
        (js_code, js), (py_code, py) = _both(node, env, part, options)
        if isinstance(js, str) or isinstance(py, str):
            if (js_code, js) != (py_code, py):
                out.append(f"{options}: JS {js_code} {js!r} vs Python {py_code} {py!r}")
            continue
        unchecked = any(v["verdict"] == "not-verified" for v in js)
        if js_code != py_code and not (unchecked and js_code == 2):
            out.append(f"{options} {part[0]}…: exit {js_code} (JS) vs {py_code} (Python)")
        for path, js_v, py_v in zip(part, js, py, strict=True):
            out.extend(_compare(js_v, py_v, path))
    return out


def _is_blind(path: Path) -> bool:
    """Whether a log's header says it is dealt blind."""
    from tarneeb.replay.log import parse_log

    try:
        return parse_log(path.read_bytes()).header.blind
    except ValueError:
        return False


def _vector_logs(tmp: Path) -> list[Path]:
    out = []
    for f in VECTORS:
        p = tmp / f"{f.stem}.tlog"
        p.write_bytes(bytes.fromhex(json.loads(f.read_text())["log"]))
        out.append(p)
    return out


def _all_logs(tmp: Path) -> list[Path]:
    return sorted((ROOT / "fixtures" / "matches").glob("*.tlog")) + \
        sorted((ROOT / "fixtures" / "altered").glob("*.tlog")) + _vector_logs(tmp)


def test_every_fixture_log_agrees(node: str, home: dict[str, str], tmp_path: Path) -> None:
    """Every corpus, altered and vector log: the same verdict JSON, without options."""
    paths = _all_logs(tmp_path)
    assert len(paths) > 110 and len(VECTORS) >= 8
    assert _disagreements(node, home, paths) == []


def test_every_fixture_log_agrees_with_options(node: str, home: dict[str, str],
                                               tmp_path: Path) -> None:
    """Every fixture log under another key, its own key (vectors), a season root, a keys
    file (naming some logs' keys, one platform under a name of two scripts) and server
    seeds: the same verdict JSON."""
    paths = _all_logs(tmp_path)
    signature = json.loads((ROOT / "fixtures" / "vectors" / "signature.json").read_text())
    other = tmp_path / "other.pem"
    other.write_text(signature["public_key_pem"])
    vec = [json.loads(f.read_text()) for f in VECTORS]
    keys = tmp_path / "keys.toml"
    keys.write_text("".join(f'"{name}" = "{v["public_key"]}"\n' for name, v in
                            zip(["Club 400", "نادي Club", "cardroom"], vec, strict=False)))
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    own = tmp_path / "own.pem"
    own.write_bytes(Ed25519PublicKey.from_public_bytes(bytes.fromhex(vec[2]["public_key"]))
                    .public_bytes(serialization.Encoding.PEM,
                                  serialization.PublicFormat.SubjectPublicKeyInfo))
    bad: list[str] = []
    # a blind log's transcript takes the JS verifier seconds a dealing attempt (pure
    # JavaScript ristretto255): the blind logs are compared under one option here, under
    # none in test_every_fixture_log_agrees, and cut in test_blind_logs_cut_short_agree
    # and the altered logs under the two keys; the root, keys file and server seed, which
    # the signature's and seeds' checks read before any damage, over the corpus and vectors
    seeded = [p for p in paths if not _is_blind(p)]
    whole = [p for p in seeded if p.parent.name != "altered"]
    for i, options in enumerate((("--key", str(other)), ("--key", str(own)),
                                 ("--root", "11" * 32), ("--keys", str(keys)),
                                 ("--server-seed", "22" * 32))):
        bad += _disagreements(node, home, paths if i == 0 else seeded if i == 1 else whole,
                              *options)
    # the true server seed of the logs cut before their end record
    from tarneeb.replay.log import parse_log

    manifest = json.loads((ROOT / "fixtures" / "altered" / "manifest.json").read_text())
    for entry in manifest:
        if entry["kind"] in ("cut-short", "seed-not-revealed"):
            base = parse_log((ROOT / "fixtures" / "matches" / entry["base"]).read_bytes())
            bad += _disagreements(node, home, [ROOT / "fixtures" / "altered" / entry["file"]],
                                  "--server-seed", base.end.server_seed.hex())
    assert bad == []


def _receipts(tmp: Path) -> list[tuple[Path, Path]]:
    """(receipt, log) pairs: each vector log with its own receipt, another log's, one
    whose commitment was changed after signing, and one signed by another key."""
    from tarneeb.audit.signing import private_key_from_raw
    from tarneeb.replay.log import parse_log
    from tarneeb.replay.verify.receipt import receipt_json

    logs = _vector_logs(tmp)
    out: list[tuple[Path, Path]] = []
    made: list[Path] = []
    for f, log in zip(VECTORS, logs, strict=True):
        v = json.loads(f.read_text())
        header = parse_log(log.read_bytes()).header
        if header.server_commitment is None:
            continue
        text = receipt_json(header, private_key_from_raw(bytes.fromhex(v["private_key"])))
        own = tmp / f"{f.stem}.receipt.json"
        own.write_text(text)
        doc = json.loads(text)
        doc["client_commitments"][1] = "00" * 32
        changed = tmp / f"{f.stem}.changed.json"
        changed.write_text(json.dumps(doc))
        stranger = tmp / f"{f.stem}.stranger.json"
        stranger.write_text(receipt_json(header, private_key_from_raw(bytes(32))))
        out += [(own, log), (changed, log), (stranger, log)]
        made.append(own)
    out += [(made[i], logs[(i + 1) % len(logs)]) for i in range(len(made))]
    return out


def test_receipts_agree(node: str, home: dict[str, str], tmp_path: Path) -> None:
    """--receipt: a log with its own receipt, another match's, a changed one, one signed by
    another key, with and without the key pinned: the same verdict JSON."""
    pairs = _receipts(tmp_path)
    assert len(pairs) >= 20
    bad: list[str] = []
    for receipt, log in pairs:
        bad += _disagreements(node, home, [log], "--receipt", str(receipt))
    assert bad == []
    (js_code, js), _ = _both(node, home, [pairs[0][1]], ("--receipt", str(pairs[0][0])))
    assert js_code == 0 and js[0]["notes"] == []  # compared with its receipt: no note


@pytest.mark.parametrize("text", [
    "not json", '{"format": "tarneeb-receipt", "format": "tarneeb-receipt"}', "[]",
    '{"format": "tarneeb-receipt", "colour": 1}',
    '{"format": "tarneeb-receipt", "protocol": "tarneeb-fair-v1"}',
    '{"format": "tarneeb-receipt", "protocol": "tarneeb-fair-v2", "seats": []}',
])
def test_bad_receipt_files_agree(node: str, home: dict[str, str], tmp_path: Path,
                                 text: str) -> None:
    """A receipt file that is not one: exit 2 and the same line from both."""
    receipt = tmp_path / "r.json"
    receipt.write_text(text)
    log = sorted((ROOT / "fixtures" / "matches").glob("*.tlog"))[0]
    js, py = _both(node, home, [log], ("--receipt", str(receipt)))
    assert js == py and js[0] == 2 and "not a receipt" in js[1]


# keys files a verifier must refuse, each for its own reason
BAD_NAMES = ["cardroom\u3000", "card\u200broom", "\u3164", "\uff43\uff41\uff52\uff44",
             "card  room", " cardroom", "\u0301card", "card\ue000", "card\u0378",
             "\u0415R\u0410\u041c", "card\x1broom", "cardroom\u180b", "\u2800"]
BAD_PAIRS = [("cardroom", "cardr00m"), ("cardroom", "CARDROOM"), ("Eram", "\u0415R\u0410\u041c x"),
             ("cardroom", "cardroorn"), ("PIatform", "Platform")]


@pytest.mark.parametrize("names", [[n] for n in BAD_NAMES] + [list(p) for p in BAD_PAIRS])
def test_bad_keys_files_agree(node: str, home: dict[str, str], tmp_path: Path,
                              names: list[str]) -> None:
    """A keys file with a name no platform may have, or two that look the same: exit 2 and
    the same line from both (the name quoted, the reason in the same words)."""
    keys = tmp_path / "keys.toml"
    keys.write_text("".join(f'{json.dumps(n)} = "{i + 1:02x}{"11" * 31}"\n'
                            for i, n in enumerate(names)), encoding="utf-8")
    log = sorted((ROOT / "fixtures" / "matches").glob("*.tlog"))[0]
    js, py = _both(node, home, [log], ("--keys", str(keys)))
    assert py[0] == 2, py
    assert js == py


def test_the_default_keys_file_is_read(node: str, home: dict[str, str], tmp_path: Path) -> None:
    """Without --key or --keys both read the user's keys file, and name its platform."""
    v = json.loads(VECTORS[0].read_text())
    config = Path(home["XDG_CONFIG_HOME"]) / "tarneeb"
    config.mkdir(parents=True, exist_ok=True)
    (config / "keys.toml").write_text(f'"Club 400" = "{v["public_key"]}"\n')
    try:
        log = _vector_logs(tmp_path)[0]
        (js_code, js), (py_code, py) = _both(node, home, [log], ())
        assert (js_code, js) == (py_code, py)
        assert js[0]["key"]["platform"] == "Club 400" and js[0]["key"]["pinned"]
    finally:
        (config / "keys.toml").unlink()


def test_name_rules_agree_on_every_kind_of_character(node: str) -> None:
    """The platform-name rules on the generated tables against the Python ones, code point
    by code point over a sample of every plane in use: the same problem (or none), the same
    scripts and the same look-alike keys."""
    from tarneeb.audit.names import name_keys, name_problem, name_scripts

    names = [f"a{chr(cp)}b" for cp in [*range(0, 0x3400, 3), *range(0x3400, 0x32000, 97),
                                       *range(0xE0000, 0xE0200), 0xF0000, 0x10FFFD]]
    names += ["ERAM", "\u0415\u0420\u0410\u041c", "Club \u0646\u0627\u062f\u064a",
              "\u6771\u4eac\u30ab\u30fc\u30c9 400",
              "\u06a9\u0627\u0631\u062a\u200c\u0631\u0648\u0645",
              "Stra\u00dfe", "\u0130stanbul", "\u03a3\u039f\u03a3", "cardr00m", "\u1f88"]
    script = (
        "import {nameProblem, nameScripts, nameKeys} from './js/dist/src/names.js';"
        "import {readFileSync} from 'node:fs';"
        "const names = JSON.parse(readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(names.map((n) => [nameProblem(n), nameScripts(n),"
        " [...nameKeys(n)].sort()])));")
    out = subprocess.run([node, "--input-type=module", "-e", script], input=json.dumps(names),
                         capture_output=True, text=True, check=True, cwd=ROOT)
    js = json.loads(out.stdout)
    bad = []
    for name, (problem, scripts, keys) in zip(names, js, strict=True):
        py = [name_problem(name), list(name_scripts(name)), sorted(name_keys(name))]
        if [problem, scripts, keys] != py:
            bad.append(f"{name!r}: JS {[problem, scripts, keys]} vs Python {py}")
    assert len(names) > 5000
    assert bad == [], f"{len(bad)} names judged differently:\n" + "\n".join(bad[:10])


def test_generated_logs_agree(node: str, home: dict[str, str], tmp_path: Path) -> None:
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
    bad = _disagreements(node, home, paths)
    keep = os.environ.get("TARNEEB_CONFORMANCE_KEEP")  # a folder to keep the logs that disagree in
    if keep and bad:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for line in bad:
            shutil.copy(line.split(":", 1)[0], keep)
    print(f"{len(paths)} generated and mutated logs compared, {len(bad)} disagreements")
    assert bad == [], f"{len(bad)} of {len(paths)} generated logs disagree:\n" + "\n".join(bad[:20])


BLIND_CUTS = [
    pytest.param("cut", 9000, id="inside-the-blind-record"),
    # the JS reader stops at an earlier play of the open end than the Python one (byte
    # 41569, trick 4, against 42619, trick 7): a disagreement the JS side must fix
    pytest.param("cut", 42631, id="among-plays-and-proofs", marks=pytest.mark.xfail(
        strict=True, reason="JS judges a blind log's open end among its proofs too early")),
    pytest.param("cut", -66, id="in-the-signature"),
    pytest.param("zeros", -66, id="zero-filled-signature"),
]


@pytest.mark.parametrize(("how", "at"), BLIND_CUTS)
def test_blind_logs_cut_short_agree(node: str, home: dict[str, str], tmp_path: Path,
                                    how: str, at: int) -> None:
    """The corpus log dealt blind cut short (or given a zero-filled tail): the same exit
    code, verdict, counts and findings in both, each finding's kind, hand, trick, seat, card
    and offset (an open end judged as for any log). The words of the open-end findings on
    a blind log are not yet the same (js/README.md), so they are not compared."""
    data = (ROOT / "fixtures" / "matches" / "qahwa5-blind.tlog").read_bytes()
    end = at % len(data)
    path = tmp_path / "cut.tlog"
    path.write_bytes(data[:end] + (bytes(len(data) - end) if how == "zeros" else b""))
    (js_code, js), (py_code, py) = _both(node, home, [path], ())
    assert js[0]["verdict"] != "not-verified"

    def summary(v: dict) -> dict:
        return {**{k: v[k] for k in ("verdict", "hands", "played", "deals_proven", "dealing")},
                "findings": [{k: f[k] for k in ("kind", "hand", "trick", "seat", "card",
                                                 "offset")} for f in v["findings"]]}

    assert (js_code, summary(js[0])) == (py_code, summary(py[0]))


def test_blind_transcripts_not_checked_are_not_verified(node: str, home: dict[str, str],
                                                        tmp_path: Path) -> None:
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
    _, py = _run([sys.executable, "-m", "tarneeb", "verify", "--json", *map(str, paths)], home)
    assert [v["dealing"] for v in py] == ["blind", "blind"]  # both logs read as blind
