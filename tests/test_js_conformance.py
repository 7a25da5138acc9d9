"""Two verifiers that agree: the TypeScript verifier in ``js/`` (written from docs/FORMAT.md,
docs/PROTOCOL.md and docs/RULES.md) against ``tarneeb verify --json``.

Over every corpus log, every altered log, every log of ``fixtures/vectors``, generated and
mutated logs (hypothesis strategies, each also cut, changed in one byte or given a
zero-filled tail), with and without ``--key``, ``--keys``, ``--root``, ``--server-seed`` and
``--receipt``, the two must give the same exit code and the **same verdict JSON, field for
field**: verdict, error, counts, key (id, pinned, platform, scripts), the signed line, the
ending, the players (the seats' names), every finding (kind, message, hand, trick, seat,
card, offset), the notes and the rule paths. No field is exempt. A bad option, key, keys
file or receipt ends both with exit 2 and the same one line (after each program's
``error:`` prefix).

A log dealt blind is compared as any other (its transcripts checked from the proofs alone
by both): every blind log of the corpus and the altered logs, ``tarneeb-blind-v1`` logs
clean and cheated, blind deals that stopped at a seat (PROTOCOL.md §13.8), and the corpus
blind log cut short, all in full.

``TARNEEB_CONFORMANCE=N`` sets how many logs are generated (default 2,000, in eight parts
that pytest-xdist runs side by side, each from its own hypothesis seed); about three in
four also give a cut, a changed byte or a zero-filled tail of themselves, so that over
3,300 generated and mutated logs are compared by default (a longer run: a larger N); and
``TARNEEB_CONFORMANCE_KEEP=DIR`` keeps the logs that disagree there.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "js"
CLI = JS / "dist" / "src" / "cli.js"
COUNT = int(os.environ.get("TARNEEB_CONFORMANCE", "2000"))
PARTS = 8  # the generated logs' parts, each its own test (pytest-xdist spreads them)
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
        if js_code != py_code:
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


OPTION_SETS = ["other-key", "own-key", "root", "keys", "server-seed", "true-server-seed"]


@pytest.mark.parametrize("option_set", OPTION_SETS)
def test_every_fixture_log_agrees_with_options(node: str, home: dict[str, str],
                                               tmp_path: Path, option_set: str) -> None:
    """Every fixture log under another key, its own key (vectors), a season root, a keys
    file (naming some logs' keys, one platform under a name of two scripts) and server
    seeds: the same verdict JSON (one option set a part, which pytest-xdist runs side by
    side)."""
    paths = _all_logs(tmp_path)
    bad: list[str] = []
    # a blind log's transcript takes the JS verifier seconds a dealing attempt (pure
    # JavaScript ristretto255): the blind logs are compared under one option here, under
    # none in test_every_fixture_log_agrees, and cut in test_blind_logs_cut_short_agree
    # and the altered logs under the two keys; the root, keys file and server seed, which
    # the signature's and seeds' checks read before any damage, over the corpus and vectors
    seeded = [p for p in paths if not _is_blind(p)]
    whole = [p for p in seeded if p.parent.name != "altered"]
    vec = [json.loads(f.read_text()) for f in VECTORS]
    if option_set == "other-key":
        signature = json.loads((ROOT / "fixtures" / "vectors" / "signature.json").read_text())
        other = tmp_path / "other.pem"
        other.write_text(signature["public_key_pem"])
        bad += _disagreements(node, home, paths, "--key", str(other))
    elif option_set == "own-key":
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        own = tmp_path / "own.pem"
        own.write_bytes(Ed25519PublicKey.from_public_bytes(bytes.fromhex(vec[2]["public_key"]))
                        .public_bytes(serialization.Encoding.PEM,
                                      serialization.PublicFormat.SubjectPublicKeyInfo))
        bad += _disagreements(node, home, seeded, "--key", str(own))
    elif option_set == "root":
        bad += _disagreements(node, home, whole, "--root", "11" * 32)
    elif option_set == "keys":
        keys = tmp_path / "keys.toml"
        keys.write_text("".join(f'"{name}" = "{v["public_key"]}"\n' for name, v in
                                zip(["Club 400", "نادي Club", "cardroom"], vec, strict=False)))
        bad += _disagreements(node, home, whole, "--keys", str(keys))
    elif option_set == "server-seed":
        bad += _disagreements(node, home, whole, "--server-seed", "22" * 32)
    else:  # the true server seed of the logs cut before their end record
        from tarneeb.replay.log import parse_log

        manifest = json.loads((ROOT / "fixtures" / "altered" / "manifest.json").read_text())
        cut = [e for e in manifest if e["kind"] in ("cut-short", "seed-not-revealed")]
        assert cut
        for entry in cut:
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


@pytest.mark.parametrize("part", range(4))
def test_receipts_agree(node: str, home: dict[str, str], tmp_path: Path, part: int) -> None:
    """--receipt: a log with its own receipt, another match's, a changed one, one signed by
    another key, with and without the key pinned: the same verdict JSON (a run of both
    verifiers for each pair; every fourth pair a part, which pytest-xdist runs side by
    side)."""
    pairs = _receipts(tmp_path)
    assert len(pairs) >= 20
    bad: list[str] = []
    for receipt, log in pairs[part::4]:
        bad += _disagreements(node, home, [log], "--receipt", str(receipt))
    assert bad == []
    if part == 0:
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


RECEIPTS = json.loads((ROOT / "fixtures" / "vectors" / "receipts.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("vector", RECEIPTS["refused"] + RECEIPTS["accepted"],
                         ids=lambda v: v["description"][:40])
def test_receipt_vectors_read_alike(node: str, home: dict[str, str], tmp_path: Path,
                                    vector: dict[str, str]) -> None:
    """fixtures/vectors/receipts.json against its log: a refused receipt ends both with exit
    2 and its line (a leaf index 0.0 or 0e0, a byte-order mark, a key given twice …); an
    accepted one verifies the log clean in both."""
    receipt = tmp_path / "receipt.json"
    receipt.write_bytes(bytes.fromhex(vector["receipt"]))
    log = tmp_path / "m.tlog"
    log.write_bytes(bytes.fromhex(json.loads(
        (ROOT / "fixtures" / "vectors" / RECEIPTS["log"]).read_text())["log"]))
    js, py = _both(node, home, [log], ("--receipt", str(receipt)))
    assert js == py
    if "error" in vector:
        assert py[0] == 2 and str(py[1]).endswith(f"not a receipt: {vector['error']}"), py
    else:
        assert py[0] == 0, py


def _pem(raw_hex: str, body: Callable[[str], str] = lambda b: b) -> str:
    import base64

    der = bytes.fromhex("302a300506032b6570032100" + raw_hex)
    return ("-----BEGIN PUBLIC KEY-----\n" + body(base64.b64encode(der).decode())
            + "\n-----END PUBLIC KEY-----\n")


# key files the two verifiers once read differently (JS clean, Python refused, or the other
# way): a byte-order mark, white space that JavaScript's \s or trim() counts and Python's
# bytes.fromhex or str.strip does not (or the other way), spaces inside a PEM's base64
KEY_FILES = [
    ("keys", lambda k: b"\xef\xbb\xbf" + f'"cardroom" = "{k}"\n'.encode(), 2),
    ("keys", lambda k: f'"cardroom" = "{k[:32]}\u00a0{k[32:]}"\n'.encode(), 2),
    ("keys", lambda k: f'"cardroom" = "{k[:32]}\u3000{k[32:]}"\n'.encode(), 2),
    ("keys", lambda k: f'"cardroom" = "\ufeff{k}"\n'.encode(), 2),
    ("keys", lambda k: f'"cardroom" = "\\u001c{k}\\u0085"\n'.encode(), 0),
    ("keys", lambda k: f'"cardroom" = "{k[:32]} \t{k[32:]}"\r\n'.encode(), 0),
    ("key", lambda k: _pem(k, lambda b: b[:8] + " \t" + b[8:]).encode(), 0),
    ("key", lambda k: _pem(k).replace("\n", "\r\n").encode(), 0),
    # not TOML, in the parsers' own words once (tests/test_js_toml.py has more), and an
    # escape of TOML 1.1 that smol-toml read and tomllib refuses
    ("keys", lambda k: f'"cardroom" = "{k}"\n"club" = "{k[:10]}\n'.encode(), 2),
    ("keys", lambda k: f'"cardroom" = "\\x{k[:2]}{k[2:]}"\n'.encode(), 2),
    # TOML 1.1 only, which smol-toml read and tomllib refuses: an inline table over several
    # lines (alone and in an array), one with a comma before its }, a time without seconds;
    # and what looks like them in a string and a comment, TOML 1.0 and read by both
    ("keys", lambda k: f'"cardroom" = "{k}"\n"club" = {{ k = "{k}"\n}}\n'.encode(), 2),
    ("keys", lambda k: f'"cardroom" = "{k}"\n\nx = [\n  {{ k = 1,\n}}]\n'.encode(), 2),
    ("keys", lambda k: f'"cardroom" = "{k}"\n"club" = {{ k = "{k}", }}\n'.encode(), 2),
    ("keys", lambda k: f'"cardroom" = "{k}"\n"club" = 1979-05-27T07:32\n'.encode(), 2),
    ("keys", lambda k: f'"cardroom" = "{k}"  # {{ k = 1, }}\n"Club 07:32" = "{"ab" * 32}"\n'
     .encode(), 0),
]


@pytest.mark.parametrize(("option", "make", "code"), KEY_FILES)
def test_key_files_read_alike(node: str, home: dict[str, str], tmp_path: Path, option: str,
                              make: Callable[[str], bytes], code: int) -> None:
    """The same keys file or PEM key file, the same reading: both verify the log clean, or
    both refuse the file with the same line."""
    v = json.loads(VECTORS[0].read_text())
    keys = tmp_path / "k"
    keys.write_bytes(make(v["public_key"]))
    log = _vector_logs(tmp_path)[0]
    js, py = _both(node, home, [log], (f"--{option}", str(keys)))
    assert py[0] == code, py
    assert js == py


def test_key_and_keys_together_are_refused_alike(node: str, home: dict[str, str],
                                                 tmp_path: Path) -> None:
    """--key and --keys together: before, both verifiers took the key and said nothing of
    the keys file (a log signed by the key was clean, the file naming only another
    platform). Both refuse the two in one line, exit 2."""
    v = json.loads(VECTORS[0].read_text())
    pem, keys = tmp_path / "platform.pub.pem", tmp_path / "keys.toml"
    pem.write_text(_pem(v["public_key"]))
    keys.write_text(f'"rival" = "{"11" * 32}"\n')
    log = _vector_logs(tmp_path)[0]
    js, py = _both(node, home, [log], ("--key", str(pem)))
    assert py[0] == 0 and js[0] == 0  # (the key alone: clean)
    js, py = _both(node, home, [log], ("--key", str(pem), "--keys", str(keys)))
    assert py[0] == 2 and js == py
    assert py[1].startswith("--key and --keys both given")


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


# a real name beside a look-alike that pinned another key (issue 31): the log signed by the
# look-alike's key verified clean, "signed by <look-alike> (pinned)", in both verifiers
LOOK_ALIKES = [("\u0643\u0627\u0631\u062f", "\u0643\u0640\u0627\u0631\u062f", "elongation mark"),
               ("cardroom", "cardroom\U0001d159", "shows as nothing"),
               ("cardroom", "card\u0640room", "elongation mark"),
               ("cardroom", "carc\u01c0room", "General Security Profile"),
               ("cardroom", "carclroom", "looks the same as")]


@pytest.mark.parametrize(("real", "fake", "said"), LOOK_ALIKES)
def test_a_log_signed_by_a_look_alikes_key_is_not_verified(
        node: str, home: dict[str, str], tmp_path: Path, real: str, fake: str, said: str) -> None:
    """The keys file pins the real name to another key and the look-alike to the log's
    signer: both verifiers refuse the keys file (exit 2, the same line, the reason named)."""
    v = json.loads(VECTORS[0].read_text())
    keys = tmp_path / "keys.toml"
    keys.write_text(f'{json.dumps(real, ensure_ascii=False)} = "{"11" * 32}"\n'
                    f'{json.dumps(fake, ensure_ascii=False)} = "{v["public_key"]}"\n',
                    encoding="utf-8")
    log = _vector_logs(tmp_path)[0]
    js, py = _both(node, home, [log], ("--keys", str(keys)))
    assert py[0] == 2 and said in str(py[1]), py
    assert js == py


def _look_alikes() -> list[tuple[str, str]]:
    """(name, look-alike) pairs made from the UTS #39 table: each character of a few names
    replaced by every character whose prototype it is, or by its own prototype (m → rn,
    d → cl); and every elongation mark, default-ignorable and blank character put inside."""
    from tarneeb.audit.names import skeleton
    from tarneeb.audit.uts39 import table

    data = table()
    sources: dict[str, list[str]] = {}
    for src, proto in data.prototypes.items():
        sources.setdefault(proto, []).append(src)
    inserts = [chr(cp) for cp in [*range(0x0600, 0x0900), *range(0x1800, 0x1900),
                                  *range(0x2000, 0x2070), *range(0xFE00, 0xFE10),
                                  0x3164, 0xFFA0, 0x115F, 0x1160, 0x2800, 0x1D159, 0x16FE4,
                                  *range(0x1D173, 0x1D17B), *range(0xE0000, 0xE0080)]
               if data.elongation(cp) or data.ignorable(cp) or cp in (0x2800, 0x1D159, 0x16FE4)]
    pairs = []
    for base in ("cardroom", "Platform", "Club 400", "\u0643\u0627\u0631\u062f",
                 "\u0646\u0627\u062f\u064a \u0627\u0644\u0648\u0631\u0642", "\u0415RAM x",
                 "\u6771\u4eac\u30ab\u30fc\u30c9"):
        for i, c in enumerate(base):
            for other in [*sources.get(skeleton(c), ()), skeleton(c)]:
                if other != c:
                    pairs.append((base, base[:i] + other + base[i + 1:]))
        for mark in inserts:
            pairs.append((base, base[:2] + mark + base[2:]))
    return pairs


def test_the_two_verifiers_refuse_every_generated_look_alike(node: str) -> None:
    """Over a list of look-alikes made from the UTS #39 table (some 2,700): beside the name it
    imitates, each makes the keys file unreadable in both verifiers, with the same line."""
    from tarneeb.audit.errors import KeyFileError
    from tarneeb.audit.signing import check_platform_names

    pairs = _look_alikes()
    script = (
        "import {checkPlatformNames} from './js/dist/src/text/names.js';"
        "import {readFileSync} from 'node:fs';"
        "const pairs = JSON.parse(readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(pairs.map((p) => {"
        " try { checkPlatformNames(p); return null; } catch (e) { return e.message; } })));")
    out = subprocess.run([node, "--input-type=module", "-e", script], input=json.dumps(pairs),
                         capture_output=True, text=True, check=True, cwd=ROOT)
    js = json.loads(out.stdout)
    bad = []
    for pair, js_said in zip(pairs, js, strict=True):
        try:
            check_platform_names(list(pair))
            py_said = None
        except KeyFileError as e:
            py_said = str(e)
        if py_said is None or py_said != js_said:
            bad.append(f"{pair!r}: JS {js_said!r} vs Python {py_said!r}")
    assert len(pairs) > 2000
    assert bad == [], f"{len(bad)} look-alikes kept or judged differently:\n" + "\n".join(bad[:10])


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
        "import {nameProblem, nameScripts, nameKeys} from './js/dist/src/text/names.js';"
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


@pytest.mark.parametrize("part", range(PARTS))
def test_generated_logs_agree(node: str, home: dict[str, str], tmp_path: Path,
                              part: int) -> None:
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    from tarneeb.testing import edited_logs, logs

    made: list[bytes] = []
    examples = [0]  # the logs generated (the others: their cuts and damage)

    share = -(-COUNT // PARTS)  # this part's examples: at least COUNT in all

    @seed(part)  # reproducible, and another part's examples than the others'
    @settings(max_examples=share, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.one_of(logs(), edited_logs()), st.integers(0, 2**32 - 1), st.integers(0, 255))
    def collect(log: bytes, at: int, byte: int) -> None:
        made.append(log)
        examples[0] += 1
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
        p = tmp_path / f"gen-{part}-{i:05d}.tlog"
        p.write_bytes(log)
        paths.append(p)
    # every example made, and most with a cut or damaged copy (3 in 4 of the ``at`` drawn,
    # fewer as Hypothesis draws small numbers first): over 3,000 logs in all
    assert examples[0] >= share and len(paths) - examples[0] >= share // 2
    bad = _disagreements(node, home, paths)
    keep = os.environ.get("TARNEEB_CONFORMANCE_KEEP")  # a folder to keep the logs that disagree in
    if keep and bad:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for line in bad:
            shutil.copy(line.split(":", 1)[0], keep)
    print(f"{len(paths)} generated and mutated logs compared, {len(bad)} disagreements")
    assert bad == [], f"{len(bad)} of {len(paths)} generated logs disagree:\n" + "\n".join(bad[:20])


def _values(name: str) -> list[Any]:
    """A corpus log's values, each record and move as msgpack reads it."""
    import msgpack

    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed((ROOT / "fixtures" / "matches" / name).read_bytes())
    return list(unpacker)


_BAD_TEXT = "\x00bad-utf8\x00"  # packed, then its bytes replaced by a str of bytes ff fe


def _pack(values: list[Any]) -> bytes:
    import msgpack

    data = b"".join(msgpack.packb(v, use_bin_type=True) for v in values)
    return data.replace(msgpack.packb(_BAD_TEXT), b"\xa2\xff\xfe")


def _with(name: str, at: int, edit: Any) -> bytes:
    """A corpus log with its value ``at`` (a record index; -1 its first deal record after
    the first, -2 its first claims record) given by ``edit(old value)``."""
    values = _values(name)
    if at < 0:
        kind = 1 if at == -1 else 4
        at = [i for i, v in enumerate(values) if isinstance(v, list) and v[0] == kind][-at % 2]
    values[at] = edit(values[at])
    return _pack(values)


def _card_more(name: str) -> bytes:
    """A corpus log with a 53rd card before the claims of its first hand played out."""
    values = _values(name)
    at = next(i for i, v in enumerate(values) if isinstance(v, list) and v[0] == 4
              and all(type(x) is int and 1 <= x <= 52 for x in values[i - 52:i]))
    return _pack([*values[:at], 1, *values[at:]])


def _set(i: int, value: Any) -> Any:
    return lambda rec: [*rec[:i], value, *rec[i + 1:]]


def _rules(**fields: Any) -> Any:
    return lambda h: [*h[:3], {**h[3], **fields}, *h[4:]]


def _seat_name(seat: int, name: str) -> Any:
    return lambda h: [*h[:4], [[name, c] if i == seat else [n, c] for i, (n, c) in
                               enumerate(h[4])], *h[5:]]


@functools.cache
def _header_cases() -> dict[str, tuple[bytes, str]]:
    """Hand-made logs where the two readers once worded a refusal differently: each with
    words its verdict must hold."""
    import msgpack

    ext = msgpack.ExtType(1, b"ab")
    header = msgpack.packb(_values("eram41-01.tlog")[0], use_bin_type=True)
    zero = [i for i in range(2, len(header)) if header[i - 1] == 0][1]  # a cut after a zero
    recorded = "eram41-recorded-deals.tlog"
    return {
        # a whole number past 2^53 (a double rounds it): the field named, the number exact
        "deal-hand-past-2^64": (_with(recorded, -1, lambda d: [*d[:4], [2**64 - 1, *d[4][1:]]]),
                                "deal hand must be a whole number 0-4503599627370495, not "
                                "18446744073709551615"),
        "deal-hand-2^53+1": (_with(recorded, -1, lambda d: [*d[:4], [d[4][0], 2**53 + 1,
                                                                     *d[4][2:]]]),
                             "not 9007199254740993"),
        "dealer-minus-2^63": (_with("eram41-01.tlog", -1, _set(2, -2**63)),
                              "dealer must be a whole number 0-3, not -9223372036854775808"),
        "totals-2^60": (_with("eram41-01.tlog", -2, _set(4, [2**60, 0, 0, 0])),
                        "totals must be a whole number -2147483648-2147483648, not "
                        "1152921504606846976"),
        "bare-int-past-2^62": (_with("eram41-01.tlog", -1, lambda d: 2**62 + 7),
                               "found 4611686018427387911 (0x4000000000000007 is no move)"),
        "first-dealer-2^64-2": (_with("eram41-01.tlog", 0, _set(10, 2**64 - 2)),
                                "first_dealer must be a whole number 0-3, not "
                                "18446744073709551614"),
        "rules-target-2^62": (_with("house400-01.tlog", 0, _rules(target=2**62)),
                              "target must be 1-10000"),
        "rules-min-total-2^60": (_with("sahrat400-min-steps.tlog", 0,
                                       _rules(min_total_steps=[[0, 2**60]])),
                                 "below the minimum of 1152921504606846976"),
        "rules-second-table-from-2^63": (_with("house400-01.tlog", 0,
                                               _rules(values_high_from=2**63)),
                                         "from an own score of 9223372036854775808"),
        # a rules field of the wrong shape, refused (as the Python reader does) before the
        # rule set is made, and the first in the map's order
        "rules-second-table-not-a-list": (_with("eram41-01.tlog", 0, _rules(values_high=0)),
                                          "values_high must be a list of 12 numbers"),
        "rules-steps-not-pairs": (_with("eram41-01.tlog", 0, _rules(min_bid_steps=[[1, 2, 3]])),
                                  "min_bid_steps must be a list of [score, value] pairs"),
        # a hand holding too many moves is named as a whole, not by the move's number
        "a-53rd-card": (_card_more("eram41-01.tlog"), "has more than 52 cards"),
        # a header the file stops inside: where its bytes stop, a last byte zero or not;
        # zeros after it that make no whole value are not told from a header cut there
        "header-9c-00": (bytes([0x9c, 0x00]), "byte 2: log cut short inside its header"),
        "header-cut-after-a-zero": (header[:zero], f"byte {zero}: log cut short inside"),
        "header-cut-then-too-few-zeros": (header[:zero] + bytes(2),
                                          f"byte {zero + 2}: log cut short inside"),
        "header-cut-then-zero-filled": (header[:zero] + bytes(2000),
                                        f"byte {len(header[:zero].rstrip(bytes(1)))}: log cut "
                                        "short inside"),
        # a text that is not UTF-8 and an ext value: the first in the header's bytes named
        "header-text-then-ext": (_with("eram41-01.tlog", 0, lambda h: _set(11, ext)(
            _seat_name(1, _BAD_TEXT)(h))), "byte 0: a text field is not valid UTF-8"),
        "header-ext-then-text": (_with("eram41-01.tlog", 0, lambda h: _rules(name=ext)(
            _seat_name(3, _BAD_TEXT)(h))), "(not msgpack: 3 exceeds max_ext_len(0))"),
        "header-int-key-of-a-bad-text": (_with("eram41-01.tlog", 0, _rules(**{"7": 0}))
                                         .replace(b"\xa17\x00", b"\x07\xa2\xff\xfe"),
                                         "byte 0: a text field is not valid UTF-8"),
        # past the header: a record cut short holding a text that is not UTF-8 is
        # unreadable from it, not a torn record; a torn one zeros made whole is judged
        "record-cut-short-in-a-bad-text": (_pack(_values("eram41-01.tlog")[:-2])
                                           + b"\x94\x02\xa2\xff\xfe",
                                           ": a text field is not valid UTF-8, after 16"),
        "end-record-of-another-cause": (_pack([*_values("eram41-01.tlog")[:-2],
                                               [2, None, None, ["quit", 1, "gone"]]]),
                                        "abandoned must be nil or [cause, seat, reason], "
                                        "the cause one of disconnect, timeout, resignation, "
                                        "server-fault, the reason text of at most 1024"),
        # msgpack's reader opens at most 1024 arrays and maps, one inside another
        "nested-1025-deep": (_pack(_values("eram41-01.tlog")[:-2]) + b"\x91" * 1025 + b"\x01",
                             "not valid msgpack: a byte that no msgpack value holds there"),
        "header-nested-1025-deep-then-a-bad-text": (b"\x9c\x00" + b"\x91" * 1024
                                                    + b"\xa2\xff\xfe", "byte 0: not a "
                                                    "tarneeb log (not msgpack: a byte that"),
    }


HEADER_CASES = sorted(_header_cases())


def _verdicts(node: str, home: dict[str, str], logs: dict[str, bytes], tmp: Path
              ) -> dict[str, tuple[Any, Any, int, int]]:
    """Both verifiers over ``logs`` in one run each (neither reads its files otherwise than
    alone: a verdict is a file's own): by name, the JS verdict, the Python one and each
    run's exit code."""
    paths = [tmp / f"{name}.tlog" for name in logs]
    for path, data in zip(paths, logs.values(), strict=True):
        path.write_bytes(data)
    (js_code, js), (py_code, py) = _both(node, home, paths, ())
    assert isinstance(js, list) and isinstance(py, list), (js, py)
    return {name: (j, p, js_code, py_code) for name, j, p in zip(logs, js, py, strict=True)}


@pytest.fixture(scope="module")
def hand_made(node: str, home: dict[str, str], tmp_path_factory: pytest.TempPathFactory
              ) -> dict[str, tuple[Any, Any, int, int]]:
    """The verdicts of every hand-made case, from one run of each verifier."""
    cases = _header_cases()
    return _verdicts(node, home, {name: data for name, (data, _) in cases.items()},
                     tmp_path_factory.mktemp("hand-made"))


@pytest.mark.parametrize("case", HEADER_CASES)
def test_hand_made_refusals_agree_word_for_word(
        hand_made: dict[str, tuple[Any, Any, int, int]], case: str) -> None:
    """A whole number past 2^53 in a record, a header torn (and zero-filled) after a zero
    byte, a header holding a text that is not UTF-8 and an ext value, values nested past
    msgpack's stack: the same exit code and the same verdict JSON, every field, from both;
    and the words that say it."""
    words = _header_cases()[case][1]
    js, py, js_code, py_code = hand_made[case]
    assert js_code == py_code
    assert js == py
    assert words in json.dumps(py, ensure_ascii=False), py


BLIND_CUTS = [
    pytest.param("cut", 9000, id="inside-the-blind-record"),
    pytest.param("cut", 40727, id="inside-the-first-moves"),
    pytest.param("cut", 42620, id="after-a-card-before-its-proof"),
    pytest.param("cut", 42631, id="among-plays-and-proofs"),
    pytest.param("zeros", 40760, id="zeros-inside-a-proof"),
    pytest.param("cut", 44400, id="inside-the-end-record"),
    pytest.param("cut", 44500, id="inside-the-keys-record"),
    pytest.param("cut", -66, id="in-the-signature"),
    pytest.param("zeros", -66, id="zero-filled-signature"),
]


@pytest.fixture(scope="module")
def blind_cuts(node: str, home: dict[str, str], tmp_path_factory: pytest.TempPathFactory
               ) -> dict[str, tuple[Any, Any, int, int]]:
    """The verdicts of every cut of :data:`BLIND_CUTS`, from one run of each verifier."""
    data = (ROOT / "fixtures" / "matches" / "qahwa5-blind.tlog").read_bytes()
    logs = {}
    for cut in BLIND_CUTS:
        how, at = cut.values
        end = at % len(data)
        logs[cut.id] = data[:end] + (bytes(len(data) - end) if how == "zeros" else b"")
    return _verdicts(node, home, logs, tmp_path_factory.mktemp("blind-cuts"))


@pytest.mark.parametrize("cut", [c.id for c in BLIND_CUTS])
def test_blind_logs_cut_short_agree(blind_cuts: dict[str, tuple[Any, Any, int, int]],
                                    cut: str) -> None:
    """The corpus log dealt blind cut short (or given a zero-filled tail) — inside its
    blind record, between a card and its proof, inside a proof, its end, keys or signature
    record: the same exit code and the same verdict JSON, field for field (its open end
    judged as for any log: a card and its proof are one value, as a writer writes them)."""
    js, py, js_code, py_code = blind_cuts[cut]
    assert js["verdict"] == py["verdict"] == "findings"
    assert js_code == py_code
    assert _differ(js, py) == []


def _agree(node: str, home: dict[str, str], logs: dict[str, bytes], tmp: Path
           ) -> tuple[dict[str, dict], list[str]]:
    """Both verifiers over ``logs`` in one run each: the JS verdicts by name, and every
    difference (exit code, or any field of any verdict)."""
    paths = []
    for name, data in logs.items():
        paths.append(tmp / f"{name}.tlog")
        paths[-1].write_bytes(data)
    (js_code, js), (py_code, py) = _both(node, home, paths, ())
    bad = [] if js_code == py_code else [f"exit {js_code} (JS) vs {py_code} (Python)"]
    for path, js_v, py_v in zip(paths, js, py, strict=True):
        bad += [f"{path.stem}: {d}" for d in _differ(js_v, py_v)]
    return {p.stem: v for p, v in zip(paths, js, strict=True)}, bad


def _v1_log(rules: str, target: int, keys: bool = True) -> bytes:
    """A match dealt blind under ``tarneeb-blind-v1`` by the Python recorder (its passes
    without shuffle proofs, a proof for every partial decryption)."""
    from tarneeb.replay.server import blind as blindplay

    return blindplay.play_blind_match(rules, seed=f"v1 {rules}".encode(), target=target,
                                      reveal_keys=keys, version=1)


@pytest.fixture(scope="module")
def v1_logs() -> dict[str, dict[str, bytes]]:
    """The ``tarneeb-blind-v1`` logs of :func:`test_blind_v1_logs_agree`, in three groups
    that its three parts compare (pytest-xdist runs them side by side): the clean ones, cut
    and changed (``plain``); each seat's cheat a v1 transcript can hold, with the keys
    revealed (``keys``) and without them (``bare``). A match of two hands, so that a cheat
    in the second hand (``choice=1``) follows a hand that is clean."""
    from tarneeb.replay.log import parse_log
    from tarneeb.replay.server.simulate import MatchSecrets
    from tarneeb.testing.alterations import REGISTRY, NotApplicable
    from tarneeb.testing.alterations.base import _close, _open

    data = _v1_log("sahrat41", 5)
    key = MatchSecrets(b"v1 sahrat41").key
    hands = parse_log(data).hands
    assert len(hands) == 2 and all(h.blind is not None and h.blind.version == 1 for h in hands)
    log = _open(data)
    log.keys = []
    bare = _close(log, key)
    plain = {"clean": data, "no-keys": bare, "qahwa41": _v1_log("qahwa41", 3, keys=False),
             "cut-in-a-hand": bare[:len(bare) - 3000]}
    t = parse_log(bare).hands[1].blind
    assert t is not None
    for name, field in (("pass", t.passes[2]), ("partial", t.partials[1]),
                        ("proof", t.partial_proofs[2])):  # one byte changed in each
        at = bare.index(field) + 700
        plain[f"changed-{name}"] = bare[:at] + bytes([bare[at] ^ 4]) + bare[at + 1:]
    groups: dict[str, dict[str, bytes]] = {"plain": plain, "keys": {}, "bare": {}}
    for name, alteration in REGISTRY.items():
        if getattr(alteration, "blind", False):
            for label, base in (("keys", data), ("bare", bare)):
                try:
                    groups[label][f"{name}+{label}"] = alteration(base, choice=1, resign=key)[0]
                except NotApplicable:
                    continue
    return groups


@pytest.mark.parametrize("group", ["plain", "keys", "bare"])
def test_blind_v1_logs_agree(node: str, home: dict[str, str], tmp_path: Path,
                             v1_logs: dict[str, dict[str, bytes]], group: str) -> None:
    """``tarneeb-blind-v1`` logs — clean, with and without revealed keys, each seat's cheat
    a v1 transcript can hold (with the keys, and some without them), cut in a hand, a byte
    of a pass, a partial decryption or a proof changed — get the same verdict JSON from
    both, field for field: the passes not proven said in a note, every partial decryption
    checked by its own proof."""
    js, bad = _agree(node, home, v1_logs[group], tmp_path)
    assert bad == []
    if group == "plain":
        assert js["clean"]["verdict"] == "clean" and js["clean"]["deals_proven"]
        assert any("tarneeb-blind-v1" in n for n in js["clean"]["notes"])
    elif group == "bare":
        assert {f["kind"] for f in js["wrong-partial-decryption+bare"]["findings"]} >= \
            {"wrong-decryption"}
    else:
        cheats = {n.split("+")[0] for n in js}
        assert {"wrong-partial-decryption", "pass-duplicates-card", "pass-drops-card",
                "play-not-dealt", "forged-play-proof", "drop-play-proof",
                "wrong-revealed-key"} <= cheats
        assert {c: js[f"{c}+keys"]["verdict"] for c in cheats} == \
            dict.fromkeys(cheats, "findings")


def _stalled(rules: str, step: int, deal: int = 0, target: int = 3) -> bytes:
    from tarneeb.replay.server.blind import play_blind_match

    return play_blind_match(rules, seed=b"blind stall", target=target, stall=(deal, step))


def test_stalled_blind_deals_agree(node: str, home: dict[str, str], tmp_path: Path) -> None:
    """A blind deal that stopped at a seat that did not deliver (PROTOCOL.md §13.8) — at
    every kind of step (before the first pass, between passes, in each round of partial
    decryptions, its last batch), in a later deal, the timeout blamed on another seat or on
    nobody, a disconnect or a server fault, a cheat in a step delivered, a hand that goes on
    or is closed, a public key that is no element, cut short — gets the same verdict JSON
    from both, field for field."""
    from tarneeb.replay.log import parse_log
    from tarneeb.replay.log.records import Abandonment, EndRecord
    from tarneeb.replay.server.simulate import MatchSecrets
    from tarneeb.testing.alterations.base import _close, _open

    key = MatchSecrets(b"blind stall").key
    logs = {f"step-{step}": _stalled("eram41", step) for step in (0, 2, 3, 4, 7, 9, 12, 15)}
    logs["later-deal"] = _stalled("sahrat41", 6, deal=1, target=8)

    def edit(base: bytes, change: Callable[[Any], None]) -> bytes:
        log = _open(base)
        change(log)
        return _close(log, key)

    def blame(seat: int | None, cause: str = "timeout") -> Callable[[Any], None]:
        def change(log: Any) -> None:
            log.end = EndRecord(None, log.end.server_seed, Abandonment(cause, seat, "no answer"))
        return change

    for rules in ("qahwa41", "classic"):
        logs[f"wrong-seat-{rules}"] = edit(_stalled(rules, 6), blame(0))
    logs["wrong-seat-in-the-passes"] = edit(logs["step-2"], blame(3))
    logs["wrong-seat-last-batch"] = edit(logs["step-15"], blame(1))
    logs["no-seat"] = edit(logs["step-9"], blame(None))
    logs["disconnect-other-seat"] = edit(logs["step-9"], blame(0, "disconnect"))

    def swap_pass(log: Any) -> None:  # seat 1's pass is not the one it proved
        t = log.hands[-1].blind
        t.passes[1] = t.passes[1][32:64] + t.passes[1][:32] + t.passes[1][64:]

    def wrong_element(log: Any) -> None:  # a wrong element under seat 0's first batch
        t = log.hands[-1].blind
        e = t.partials[0]
        t.partials[0] = bytes(32) + e[32:] if any(e[:32]) else e[32:64] + e[32:]

    def bad_key(log: Any) -> None:
        t = log.hands[-1].blind
        t.publics = t.publics[:64] + b"\xff" * 32 + t.publics[96:]

    def goes_on(log: Any) -> None:
        log.hands[-1].calls = [(1, 7)]

    def closed(log: Any) -> None:  # a claims record closes the hand whose deal stopped
        log.hands[-1].closed, log.hands[-1].totals = True, log.hands[-2].totals

    logs["wrong-pass-delivered"] = edit(logs["step-2"], swap_pass)
    logs["wrong-batch-delivered"] = edit(logs["step-9"], wrong_element)
    logs["public-key-no-element"] = edit(logs["step-7"], bad_key)
    logs["goes-on"] = edit(logs["step-3"], goes_on)
    logs["closed"] = edit(logs["later-deal"], closed)
    logs["server-fault"] = edit(logs["step-9"], blame(None, "server-fault"))
    whole = logs["step-12"]
    logs["cut-in-the-blind-record"] = whole[:len(whole) - 9000]
    logs["cut-before-the-end-record"] = whole[:parse_log(whole).end_offset]
    js, bad = _agree(node, home, logs, tmp_path)
    assert bad == []
    assert js["step-9"]["verdict"] == "clean"
    assert "in its blind deal, waiting for seat 1" in js["step-9"]["ending"]
    assert [(f["kind"], f["seat"]) for f in js["wrong-seat-last-batch"]["findings"]] == \
        [("timeout-out-of-turn", 1)]
    assert ("wrong-shuffle", 1) in {(f["kind"], f["seat"])
                                    for f in js["wrong-pass-delivered"]["findings"]}
    assert "wrong-decryption" in {f["kind"] for f in js["wrong-batch-delivered"]["findings"]}
    assert js["cut-before-the-end-record"]["verdict"] == "findings"
    assert "not finished" in js["closed"]["findings"][0]["message"]


def test_blind_keys_revealed_in_part_agree(node: str, home: dict[str, str],
                                           tmp_path: Path) -> None:
    """A seat's key revealed in part (its scalar without its permutation, or the other way
    round; FORMAT.md lets each be nil): the half revealed is checked on its own by both.
    Before, both passed over a seat's key unless both halves were there: a wrong scalar,
    one out of range, or a permutation of 52 zeros, re-signed by the platform, was clean."""
    from tarneeb.replay.server.blind import play_blind_match
    from tarneeb.replay.server.simulate import MatchSecrets
    from tarneeb.testing.alterations.base import _close, _open

    seed = b"blind half keys"
    base = play_blind_match("qahwa41", seed=seed, target=1)
    key = MatchSecrets(seed).key

    def edit(change: Callable[[Any], None]) -> bytes:
        log = _open(base)
        change(log.keys[0])
        return _close(log, key)

    def flipped(k: Any) -> None:  # seat 1's scalar one bit off, its permutation kept
        k.scalars[1], k.permutations[1] = bytes([k.scalars[1][0] ^ 4]) + k.scalars[1][1:], None

    def out_of_range(k: Any) -> None:  # every scalar past the group's order
        k.scalars[:], k.permutations[:] = [b"\xff" * 32] * 4, [None] * 4

    def zeros(k: Any) -> None:  # seat 2's permutation no permutation, its scalar kept
        k.scalars[2], k.permutations[2] = None, bytes(52)

    def scalar_alone(k: Any) -> None:  # a right scalar, its permutation kept: nothing false
        k.permutations[3] = None

    logs = {"flipped": edit(flipped), "out-of-range": edit(out_of_range),
            "zeros": edit(zeros), "scalar-alone": edit(scalar_alone)}
    js, bad = _agree(node, home, logs, tmp_path)
    assert bad == []
    wrong = {name: [(f["kind"], f["seat"]) for f in v["findings"]] for name, v in js.items()}
    assert wrong["flipped"] == [("wrong-key", 1)] and wrong["zeros"] == [("wrong-key", 2)]
    assert wrong["out-of-range"] == [("wrong-key", s) for s in range(4)]
    assert wrong["scalar-alone"] == [] and js["scalar-alone"]["verdict"] == "clean"



def test_refusals_python_said_more_of_are_said_alike(node: str, home: dict[str, str],
                                                     tmp_path: Path) -> None:
    """A header with a 13th field that is not ``"blind"``, and a blind log with a keys
    record moved before its end record: TypeScript said less than Python of each (why the
    13th field, when keys are revealed); both say the same words."""
    import io

    import msgpack

    def values(name: str) -> list[Any]:
        data = (ROOT / "fixtures" / "matches" / name).read_bytes()
        return list(msgpack.Unpacker(io.BytesIO(data), raw=False, strict_map_key=False))

    header = values("eram41-01.tlog")
    header[0].append(None)
    blind = values("qahwa5-blind.tlog")
    keys = next(i for i, v in enumerate(blind) if isinstance(v, list) and v[0] == 7)
    end = next(i for i, v in enumerate(blind) if isinstance(v, list) and v[0] == 2)
    blind.insert(end, blind.pop(keys))
    paths = []
    for name, vals in (("header", header), ("keys", blind)):
        paths.append(tmp_path / f"{name}.tlog")
        paths[-1].write_bytes(b"".join(msgpack.packb(v) for v in vals))
    (js_code, js), (py_code, py) = _both(node, home, paths[:1], ())
    assert js_code == py_code == 2 and _differ(js, py) == []
    assert py[0]["error"].endswith("not None; a log dealt from the seeds has no 13th field")
    (js_code, js), (py_code, py) = _both(node, home, paths[1:], ())
    assert js_code == py_code == 1 and _differ(js, py) == []
    assert any("a keys record before the end record: keys are revealed after the match"
               in f["message"] for f in py[0]["findings"])
