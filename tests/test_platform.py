"""The platform API: ``import tarneeb``, the recorder, docs/PLATFORM.md's example, endings."""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import tarneeb
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.cards import parse_card
from tarneeb.replay.server.recorder import record_json
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.receipt import receipt_json
from tarneeb.replay.verify.trust import Trust

ROOT = Path(__file__).resolve().parent.parent
PLATFORM = ROOT / "docs" / "PLATFORM.md"


def test_version_and_typed_packages() -> None:
    assert tarneeb.__version__ == importlib.metadata.version("tarneeb")
    for package in ("tarneeb", "tarneeb.audit", "tarneeb.replay", "tarneeb.cli",
                    "tarneeb.testing", "tarneeb.report", "tarneeb.corpus"):
        assert (importlib.resources.files(package) / "py.typed").is_file(), package
    assert set(tarneeb.__all__) <= set(dir(tarneeb))


def test_the_recorder_needs_no_engine() -> None:
    """A server with its own engine imports the recorder without this package's engine."""
    code = ("import sys, tarneeb; tarneeb.MatchRecorder; "
            "print('tarneeb.replay.rules.engine' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def _sh(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A ``sh`` block of the doc, with this environment's ``tarneeb`` on the PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
           f"{os.environ.get('PATH', '')}"}
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_platform_doc_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Every ``python`` and ``sh`` block of docs/PLATFORM.md, in order, in an empty
    directory: the key made, the whole match, a seat's check of it; the match run a
    second time there (one RecorderError, the log untouched); then, the log cut short
    as a crash leaves it, the restarted process of "After a crash", and the check again."""
    blocks = re.findall(r"^```(python|sh)\n(.*?)^```$", PLATFORM.read_text(encoding="utf-8"),
                        re.S | re.M)
    assert [kind for kind, _ in blocks] == ["sh", "python", "sh", "python"]
    keygen, match, check, restart = (code for _, code in blocks)
    monkeypatch.chdir(tmp_path)
    assert _sh(keygen, tmp_path).returncode == 0
    namespace: dict[str, object] = {}
    exec(compile(match, str(PLATFORM), "exec"), namespace)  # the whole match
    out = capsys.readouterr().out
    assert "match.tlog clean: " in out
    assert re.search(r"^first trick: (\w[\w ]* (10|[2-9JQKA])[♣♦♥♠](, |$)){4}", out, re.M), out
    log = parse_log((tmp_path / "match.tlog").read_bytes())
    assert log.end is not None and log.end.winner in (0, 1) and log.signature is not None
    assert log.header.seats[0].name == "Ann" and not log.header.seats[0].computer
    assert log.header.rules == tarneeb.house_preset("qahwa41", {"target": 61})
    # the seat's receipt is the one the platform signed for this very log
    key = namespace["key"]
    assert isinstance(key, Ed25519PrivateKey)
    assert namespace["receipt"] == receipt_json(log.header, key)
    seat = _sh(check, tmp_path)
    assert seat.returncode == 0, seat.stdout + seat.stderr
    assert "clean" in seat.stdout and "pinned" in seat.stdout
    # a second run in the same directory: one line saying the log exists, nothing touched
    kept = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(tarneeb.RecorderError) as again:
        exec(compile(match, str(PLATFORM), "exec"), {})
    assert str(again.value).startswith("match.tlog exists: a recorder never writes over")
    assert "\n" not in str(again.value)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == kept
    # a crash: the log cut halfway, unsigned; the restarted process ends and signs it
    data = (tmp_path / "match.tlog").read_bytes()
    (tmp_path / "match.tlog").write_bytes(data[:len(data) // 2])
    exec(compile(restart, str(PLATFORM), "exec"), {})
    log = parse_log((tmp_path / "match.tlog").read_bytes())
    assert log.end is not None and log.end.abandoned is not None and log.signature is not None
    assert log.end.abandoned.cause == "server-fault"
    seat = _sh(check, tmp_path)
    assert seat.returncode == 0, seat.stdout + seat.stderr
    assert "restarted after a crash" in seat.stdout


def test_the_whole_match_uses_the_public_api_alone() -> None:
    """The walk-through imports nothing but ``tarneeb`` and calls only names of
    ``tarneeb.__all__``: what a platform needs is the public API, every step of it."""
    code = re.findall(r"```python\n(.*?)```", PLATFORM.read_text(encoding="utf-8"), re.S)[0]
    imports = re.findall(r"^(?:from|import) (\S+)", code, re.M)
    assert [m for m in imports if m.startswith("tarneeb")] == ["tarneeb"]
    used = set(re.findall(r"\btarneeb\.(\w+)", code))
    assert used <= set(tarneeb.__all__), used - set(tarneeb.__all__)
    for step in ("new_server_seed", "server_commitment", "match_binding", "client_commitment",
                 "make_receipt", "read_receipt", "verify_client_seed", "DealDeriver",
                 "house_preset", "MatchRecorder", "card_name", "verify_file"):
        assert step in used, step
    for call in ("rec.deal(", "rec.call(", "rec.play(", "rec.claim(", "rec.finish(",
                 "rec.sign(", "receipts=(tarneeb.read_receipt("):
        assert call in code, call


def test_import_tarneeb_loads_nothing_until_used() -> None:
    """``import tarneeb`` stays free (a one-log verify starts with it): each name of the
    API loads its module when first used, and the recorder loads no engine."""
    code = ("import sys, tarneeb; before = sorted(m for m in sys.modules if "
            "m.startswith(('tarneeb.', 'cryptography', 'msgpack'))); "
            "tarneeb.make_receipt; tarneeb.verify_client_seed; tarneeb.card_name; "
            "print(before, 'tarneeb.replay.rules.engine' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[] False"
    for name in tarneeb.__all__:
        assert getattr(tarneeb, name) is not None, name
    names = dir(tarneeb)  # once loaded, each name still listed once
    assert len(names) == len(set(names)) and set(tarneeb.__all__) <= set(names)


def test_make_receipt_is_the_receipt_of_the_log_to_come(tmp_path: Path) -> None:
    """A receipt made from the terms, before the log exists, is the very receipt of the
    log the recorder then writes; a receipt of other terms gives receipt-mismatch."""
    seed = b"platform/receipt"
    log = parse_log(play_logged_match("classic", seed=seed))
    h, s = log.header, MatchSecrets(seed)
    terms: dict[str, Any] = {
        "seats": [(x.name, x.computer) for x in h.seats], "match_id": h.match_id,
        "server_commitment": h.server_commitment, "client_commitments": h.client_commitments}
    made = tarneeb.make_receipt(s.key, rules="classic", **terms)
    assert made == receipt_json(h, s.key)
    path = tmp_path / "m.tlog"
    path.write_bytes(play_logged_match("classic", seed=seed))
    made_receipt = tarneeb.read_receipt(made.encode())
    assert tarneeb.verify_file(str(path), trust=Trust(receipts=(made_receipt,))).clean
    other = tarneeb.make_receipt(s.key, rules=tarneeb.house_preset("classic", {"target": 61}),
                                 **terms)
    other_receipt = tarneeb.read_receipt(other.encode())
    v = tarneeb.verify_file(str(path), trust=Trust(receipts=(other_receipt,)))
    assert [(f.kind, "rules" in f.message) for f in v.findings] == [("receipt-mismatch", True)]
    with pytest.raises(tarneeb.ReceiptError, match="rules: "):
        tarneeb.make_receipt(s.key, rules=tarneeb.preset("qahwa41", target=62), **terms)
    with pytest.raises(tarneeb.ReceiptError, match="four seats"):
        tarneeb.make_receipt(s.key, rules="classic", **{**terms, "seats": ["a"]})


def _replay_json(path: Path, doc: dict, secrets: MatchSecrets,
                 wrong_total_in: int | None = None) -> Path:
    """Record a match from plain values, as a server with its own engine would: here the
    values come from a log's JSON form, and nothing of the engine is used."""
    doc = json.loads(json.dumps(doc))
    if wrong_total_in is not None:
        hands = [r for r in doc["records"] if r["type"] == "hand"]
        hands[wrong_total_in]["totals"][1] += 1
    record_json(doc, path, key=secrets.key).close()
    return path


@pytest.mark.parametrize("rules", ["eram41", "classic"])
def test_an_outside_engine_records_and_verify_judges(tmp_path: Path, rules: str) -> None:
    seed = f"platform/{rules}".encode()
    log = play_logged_match(rules, seed=seed)
    doc = logjson.to_json(log)
    s = MatchSecrets(seed)
    path = _replay_json(tmp_path / "a.tlog", doc, secrets=s)
    assert path.read_bytes() == log  # plain values in, the very same bytes out
    assert tarneeb.verify_file(str(path)).clean
    wrong = _replay_json(tmp_path / "b.tlog", doc, secrets=s, wrong_total_in=2)
    v = tarneeb.verify_file(str(wrong))
    assert [(f.kind, f.hand, f.seat) for f in v.findings] == [("wrong-total", 2, 1)]


def _abandoned(tmp_path: Path, stop_after: int, cause: str = "disconnect",
               seat: int | None = 2) -> tuple[Path, tarneeb.Verdict]:
    """A match recorded from a real one, abandoned after ``stop_after`` moves of hand 1."""
    seed = b"platform/abandon"
    doc = logjson.to_json(play_logged_match("sahrat41", seed=seed))
    s = MatchSecrets(seed)
    header = doc["records"][0]
    hands = [r for r in doc["records"] if r["type"] == "hand"]
    path = tmp_path / f"abandoned-{stop_after}.tlog"
    with tarneeb.MatchRecorder(
            path, rules="sahrat41", seats=["Ann", "Ben", "Cat", "Dan"],
            match_id=bytes.fromhex(header["match_id"]), first_dealer=header["first_dealer"],
            public_key=bytes.fromhex(header["public_key"]),
            server_commitment=bytes.fromhex(header["server_commitment"]),
            client_commitments=[bytes.fromhex(c) for c in header["client_commitments"]],
            client_seeds=[bytes.fromhex(c) for c in header["client_seeds"]],
            durability="fsync") as rec:
        h = hands[0]
        rec.deal(h["dealer"], revealed=h["revealed"])
        for c in h["calls"]:
            rec.call(c["seat"], c["call"])
        for card in h["plays"]:
            rec.play(card)
        rec.claim(tricks=h["tricks"], scores=h["scores"], totals=h["totals"], trump=h["trump"])
        h = hands[1]
        rec.deal(h["dealer"], revealed=h["revealed"])
        moves = [("call", c) for c in h["calls"]] + [("play", p) for p in h["plays"]]
        for kind, value in moves[:stop_after]:
            if kind == "call":
                rec.call(value["seat"], value["call"])
            else:
                rec.play(value)
        rec.abandon(cause, seat, "no answer for 120 s", s.server_seed)
        rec.sign(s.key)
    return path, tarneeb.verify_file(str(path))


def test_an_abandoned_match_verifies_up_to_where_it_stopped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, v = _abandoned(tmp_path, 4 + 9)  # hand 1: its four bids, then 9 cards
    assert v.clean and v.exit_code == 0, [str(f) for f in v.findings]
    assert v.ending == "abandoned at hand 1, trick 3: seat 2 (Cat) disconnected: no answer " \
        "for 120 s"
    assert v.to_json()["ending"] == v.ending
    _, v = _abandoned(tmp_path, 2, "server-fault", None)
    assert v.clean and v.ending == "abandoned at hand 1, in the bidding: the server failed: " \
        "no answer for 120 s"
    from tarneeb.cli.entry import main as cli_main
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        cli_main(["verify", str(path)])
    assert e.value.code == 0
    out = capsys.readouterr().out
    # the text counts hands from 1 and names the player; the JSON's ending is the above
    assert ": clean, " in out and "\n  abandoned at hand 2, trick 3: Cat " \
        "disconnected: “no answer for 120 s”\n" in out  # (the platform's words, quoted)


def test_an_abandoned_match_with_a_wrong_move_is_not_clean(tmp_path: Path) -> None:
    path, _ = _abandoned(tmp_path, 4 + 9)
    data = bytearray(path.read_bytes())
    log = parse_log(bytes(data))
    start = log.offsets[1] + 6 + 4  # hand 1's first card
    data[start + 1], data[start + 2] = data[start + 2], data[start + 1]  # two cards swapped
    v = tarneeb.verify_bytes(bytes(data))
    assert not v.clean and v.ending is not None
    assert {f.kind for f in v.findings} & {"played-out-of-turn", "card-not-held", "renege",
                                            "broken-signature"}


def test_recorder_refuses_calls_out_of_order(tmp_path: Path) -> None:
    rec = tarneeb.MatchRecorder(tmp_path / "x.tlog", rules="qahwa41",
                                seats=["a", "b", "c", "d"], match_id=b"m", first_dealer=0)
    with pytest.raises(tarneeb.RecorderError, match="before the hand's deal"):
        rec.play("A♥")
    rec.deal(0)
    rec.play(parse_card("A♥"))
    with pytest.raises(tarneeb.RecorderError, match="a call after"):
        rec.call(1, 5)
    with pytest.raises(tarneeb.RecorderError, match="not named by a player"):
        rec.name_trump("♥")
    other = tarneeb.MatchRecorder(tmp_path / "y.tlog", rules="qahwa41", seats=["a"] * 4,
                                  match_id=b"m", first_dealer=0)
    other.deal(0)
    with pytest.raises(tarneeb.RecorderError, match="a bid is 0-13"):
        other.call(0, 14)
    other.close()
    with pytest.raises(tarneeb.RecorderError, match="tricks and scores go together"):
        rec.claim(totals=[0, 0, 0, 0], tricks=[13, 0, 0, 0])
    with pytest.raises(tarneeb.RecorderError, match="is open"):
        rec.finish(0, None)
    with pytest.raises(tarneeb.RecorderError, match="sign after"):
        rec.sign(lambda data: bytes(64))
    with pytest.raises(tarneeb.RecorderError, match="exists: a recorder never writes over"):
        tarneeb.MatchRecorder(tmp_path / "x.tlog", rules="qahwa41", seats=["a"] * 4,
                              match_id=b"m", first_dealer=0)
    with pytest.raises(FileExistsError):  # a log is never overwritten
        tarneeb.MatchRecorder(tmp_path / "x.tlog", rules="qahwa41", seats=["a"] * 4,
                              match_id=b"m", first_dealer=0)
    rec.close()


@pytest.mark.parametrize("durability", ["flush", "fsync", "group:2"])
def test_every_durability_writes_the_same_bytes(tmp_path: Path, durability: str) -> None:
    seed = b"platform/durability"
    log = play_logged_match("classic", seed=seed)
    path = _replay_json(tmp_path / f"{durability}.tlog", logjson.to_json(log),
                        secrets=MatchSecrets(seed))
    assert path.read_bytes() == log
    w = tarneeb.MatchRecorder(tmp_path / f"w-{durability}.tlog", rules="classic",
                              seats=["a"] * 4, match_id=b"m", first_dealer=0,
                              durability=durability)
    w.deal(0)
    w.call(1, 7)
    assert w.writer.wait_durable(5) == (durability != "flush")
    assert os.path.getsize(tmp_path / f"w-{durability}.tlog") == w.writer.size
    w.close()


def test_import_sign_turns_a_foreign_servers_json_into_a_signed_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A server in another language writes the JSON form without a key or signature;
    ``tarneeb import --sign KEY`` signs it, and verify pinning that key finds it clean."""
    from tarneeb.audit.signing import generate_private_key, private_key_pem, public_key_pem
    from tarneeb.cli.entry import main as cli_main

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    doc = logjson.to_json(play_logged_match("qahwa41", seed=b"platform/import"))
    doc["records"] = doc["records"][:-1]  # no signature
    doc["records"][0]["public_key"] = None  # nor a key: the signing key goes in
    (tmp_path / "match.json").write_text(json.dumps(doc), encoding="utf-8")
    key = generate_private_key()
    (tmp_path / "key.pem").write_bytes(private_key_pem(key))
    (tmp_path / "key.pub").write_bytes(public_key_pem(key.public_key()))

    def cli(*argv: str) -> int:
        with pytest.raises(SystemExit) as e:
            cli_main(list(argv))
        return int(e.value.code or 0)

    assert cli("import", str(tmp_path / "match.json"), "-o", str(tmp_path / "m.tlog"),
               "--sign", str(tmp_path / "key.pem")) == 0
    capsys.readouterr()
    assert cli("verify", "--key", str(tmp_path / "key.pub"), str(tmp_path / "m.tlog")) == 0
    assert "clean" in capsys.readouterr().out
    assert cli("import", str(tmp_path / "match.json"), "-o", str(tmp_path / "n.tlog")) == 0
    assert cli("verify", str(tmp_path / "n.tlog")) == 1  # unsigned without --sign
    other = generate_private_key()
    (tmp_path / "other.pem").write_bytes(private_key_pem(other))
    signed = logjson.to_json((tmp_path / "m.tlog").read_bytes())
    (tmp_path / "signed.json").write_text(json.dumps(signed), encoding="utf-8")
    capsys.readouterr()
    assert cli("import", str(tmp_path / "signed.json"), "-o", str(tmp_path / "o.tlog"),
               "--sign", str(tmp_path / "other.pem")) == 2
    assert "signed already" in capsys.readouterr().err


def test_show_tells_the_hand_a_log_stops_in_and_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tarneeb.cli.entry import main as cli_main

    vector = json.loads((ROOT / "fixtures" / "vectors" / "log-abandoned.json")
                        .read_text(encoding="utf-8"))
    path = tmp_path / "abandoned.tlog"
    path.write_bytes(bytes.fromhex(vector["log"]))
    with pytest.raises(SystemExit) as e:
        cli_main(["show", str(path)])
    out = capsys.readouterr().out
    assert e.value.code == 0
    assert "Hand 2 — dealer: Cat; the log stops in it, after 4 calls and 5 cards" in out
    assert "\nAbandoned at hand 2, trick 2: Cat timed out: “no move within 60 s, " \
        "three times”\n" in out
