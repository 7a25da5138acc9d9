"""What the verdict's first line says about who signed a log, tried from outside: a keys
file cannot hold a look-alike platform name, a log whose signature is absent, torn or wrong
is never called signed, a seed given to the verifier is compared with the one the log
reveals, and import makes the log cut short where its document says, or none."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.audit.signing import key_id, private_key_pem, public_key_pem, public_key_raw
from tarneeb.replay.log import parse_log
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.trust import Trust
from tarneeb.testing.alterations.base import EditableLog, rewrite

REAL, OTHER = b"test trust: the real platform", b"test trust: a forger"


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty config directory: no default keys file of the user's is read."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture(scope="module")
def real() -> bytes:
    return play_logged_match("eram41", seed=REAL)


def raw_key(seed: bytes) -> bytes:
    return public_key_raw(MatchSecrets(seed).key.public_key())


def rename_first_seat(log: EditableLog) -> None:
    seats = list(log.header.seats)
    seats[0] = replace(seats[0], name="Xorth bot")  # the same length
    log.header = replace(log.header, seats=seats)


# ---------------------------------------------------------------- look-alike names
@pytest.mark.parametrize("forged", ["cardroom\u3000", "cardroom ", "cardr00m", "cardroorn",
                                    "cardroom\u180b", "cardroom\u17b4", "cardroom\u2800",
                                    "\u3164"])
def test_a_look_alike_name_in_the_keys_file_does_not_pass_a_forger_s_log(
        tmp_path: Path, forged: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The keys file holds the real cardroom and a look-alike name for a forger's key: the
    forger's log verified exit 0, "signed by cardroom  (pinned)". Now the keys file is
    unreadable, in one line naming the file and the name."""
    log = tmp_path / "forged.tlog"
    log.write_bytes(play_logged_match("eram41", seed=OTHER))
    keys = tmp_path / "keys.toml"
    keys.write_text(f'"cardroom" = "{raw_key(REAL).hex()}"\n'
                    f'"{forged}" = "{raw_key(OTHER).hex()}"\n', encoding="utf-8")
    code, out, err = run(capsys, "verify", "--keys", str(keys), str(log))
    assert code == 2 and out == ""
    assert err.startswith(f"tarneeb: error: {keys}: ") and err.count("\n") == 1
    assert "a name a person cannot read as it is written" in err or \
        "looks the same as 'cardroom'" in err


def test_the_key_id_stands_next_to_every_signed_by_name(real: bytes) -> None:
    """A look-alike that slips through still shows a key of its own: the verdict, the
    match report's banner and the archive summary give the key id beside the name."""
    import html

    from tarneeb.replay.archive.words import key_label
    from tarneeb.replay.verify.replayer import verify_bytes
    from tarneeb.report.match import match_report

    keys = {"cardroom": raw_key(REAL)}
    kid = key_id(raw_key(REAL))
    said = verify_bytes(real, trust=Trust(keys=keys)).signed_by()
    assert said == f"signed by cardroom (key {kid}, pinned)"
    page, _ = match_report(real, trust=Trust(keys=keys))
    assert f"signed by cardroom (key {kid})" in html.unescape(page)
    assert key_label(kid, "cardroom", True) == f"cardroom (key {kid})"


# ---------------------------------------------------------------- torn, wrong, absent
@pytest.mark.parametrize("pin", ["--key", "--keys", None])
def test_an_edit_under_a_torn_signature_is_not_called_signed_nor_only_a_crash(
        tmp_path: Path, real: bytes, pin: str | None,
        capsys: pytest.CaptureFixture[str]) -> None:
    """One seat renamed and the last 4 bytes of the signature zeroed: exit 1, with the first
    line "signed by the key given (pinned)" and the only finding "a torn write"."""
    data = rewrite(real, rename_first_seat)  # the platform's signature kept
    data = data[:-4] + bytes(4)
    log = tmp_path / "torn.tlog"
    log.write_bytes(data)
    pem, keys = tmp_path / "platform.pub.pem", tmp_path / "keys.toml"
    pem.write_bytes(public_key_pem(MatchSecrets(REAL).key.public_key()))
    keys.write_text(f'cardroom = "{raw_key(REAL).hex()}"\n')
    args = {"--key": ["--key", str(pem)], "--keys": ["--keys", str(keys)], None: []}[pin]
    code, out, _ = run(capsys, "verify", *args, str(log))
    first, _, said = out.splitlines()[:3]
    assert code == 1 and "signed by" not in first and "signature does NOT verify" in first
    at = parse_log(data).signature_offset
    assert said.endswith(f"signature does not verify: the signature does not cover the log "
                          f"(key {key_id(raw_key(REAL))}, "
                          f"{'pinned' if pin else 'named in the log itself'}; "
                          f"checked up to byte {at})")
    code, out, _ = run(capsys, "verify", "--json", *args, str(log))
    [verdict] = json.loads(out)
    assert [f["kind"] for f in verdict["findings"]] == ["broken-signature"]
    assert "does not cover the log" in verdict["findings"][0]["message"]
    assert "signed by" not in verdict["signed"]


def test_a_wrong_signature_under_a_pinned_key_is_not_called_signed(
        tmp_path: Path, real: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(real)
    data[-3] ^= 0xFF  # inside the signature
    log, pem = tmp_path / "bad.tlog", tmp_path / "platform.pub.pem"
    log.write_bytes(bytes(data))
    pem.write_bytes(public_key_pem(MatchSecrets(REAL).key.public_key()))
    code, out, _ = run(capsys, "verify", "--key", str(pem), str(log))
    first, _, said = out.splitlines()[:3]
    assert code == 1 and "signed by" not in first
    assert "signature does not verify: the signature does not cover the log" in said
    code, out, _ = run(capsys, "show", "--key", str(pem), str(log))
    assert out.splitlines()[1].startswith("Signature: NOT VALID")
    assert "signed by" not in out.splitlines()[-1]


@pytest.mark.parametrize("where", ["before the end record", "before the signature",
                                   "inside the signature", "inside a hand"])
def test_a_crashed_log_says_it_is_not_signed_yet_and_how_far_it_was_checked(
        tmp_path: Path, real: bytes, where: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A log cut before its signature said "signed by key … named in the log itself" on its
    first line (and ``show`` "Signature: valid")."""
    p = parse_log(real)
    at = {"before the end record": p.end_offset, "before the signature": p.signature_offset,
          "inside the signature": p.signature_offset + 10,
          "inside a hand": p.offsets[3] + 5}[where]
    log = tmp_path / "crashed.tlog"
    log.write_bytes(real[:at])
    checked = len(parse_log(real[:at]).signed_bytes)  # where the whole records end
    assert checked <= at
    code, out, _ = run(capsys, "verify", str(log))
    first, _, said = out.splitlines()[:3]
    assert code == 1 and "signed by" not in first and first.endswith(", not signed yet")
    assert said == f"  not signed yet: checked up to byte {checked} (crashed or still " \
        "being written)"
    code, out, _ = run(capsys, "show", str(log))
    said = out.splitlines()[1]
    assert said.startswith("Signature: NONE — not signed yet" if p.end_offset >= at else
                           "Signature: NOT VALID — the log ends without the platform's signature")
    assert "not signed yet" in out.splitlines()[-1]


def test_an_archive_does_not_count_a_crashed_log_as_signed(tmp_path: Path, real: bytes) -> None:
    """The summary's "signed by a key named in the log itself, NOT PINNED" is verify's first
    line for many logs: a log not signed is not one of them."""
    from tarneeb.replay.archive.audit import ArchiveSummary, audit_chunk
    from tarneeb.replay.archive.words import verdict_lines

    (tmp_path / "whole.tlog").write_bytes(real)
    (tmp_path / "crashed.tlog").write_bytes(real[:parse_log(real).signature_offset])
    summary = ArchiveSummary()
    summary.add(audit_chunk([str(tmp_path / "whole.tlog"), str(tmp_path / "crashed.tlog")]))
    assert summary.unpinned == 1
    assert "1 log is signed by a key named in the log itself" in verdict_lines(summary)[0]


# ---------------------------------------------------------------- --server-seed
def test_a_server_seed_given_is_compared_with_the_one_the_log_reveals(
        tmp_path: Path, real: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    """``verify --server-seed S`` on a complete log whose own seed differs from S exited 0."""
    log = tmp_path / "m.tlog"
    log.write_bytes(real)
    own = parse_log(real).end.server_seed
    other = bytes(32)
    code, out, _ = run(capsys, "verify", "--json", "--server-seed", other.hex(), str(log))
    [verdict] = json.loads(out)
    assert code == 1 and [f["kind"] for f in verdict["findings"]] == ["server-seed"]
    assert "not the one the log reveals" in verdict["findings"][0]["message"]
    code, out, _ = run(capsys, "verify", "--server-seed", own.hex(), str(log))
    assert code == 0 and "the server seed given to the verifier is the one the log reveals" in out


def test_a_server_seed_given_for_a_log_without_seeds_is_a_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "recorded.tlog"
    log.write_bytes(play_logged_match("eram41", seed=REAL, seeded=False))
    assert run(capsys, "verify", str(log))[0] == 0
    code, out, _ = run(capsys, "verify", "--server-seed", bytes(32).hex(), str(log))
    assert code == 1 and "commits to no server seed" in out


# ---------------------------------------------------------------- import, cut short
def _doc(data: bytes) -> dict[str, object]:
    from tarneeb.replay.log import jsonform as logjson

    return json.loads(logjson.dumps(data))


@pytest.mark.parametrize("case", ["whole log", "before the cut", "not a number"])
def test_import_refuses_a_document_whose_cut_it_cannot_write(
        tmp_path: Path, real: bytes, case: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A document that says ``cut_short_at`` was imported as the whole log, exit 0."""
    p = parse_log(real)
    cut = real[:p.offsets[5] + 7]
    doc = {"whole log": {**_doc(real), "cut_short_at": len(real)},
           "before the cut": {**_doc(cut), "cut_short_at": p.offsets[2]},
           "not a number": {**_doc(cut), "cut_short_at": "7"}}[case]
    source, out_log = tmp_path / "m.json", tmp_path / "m.tlog"
    source.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = run(capsys, "import", str(source), "-o", str(out_log))
    assert code == 2 and not out_log.exists() and err.count("\n") == 1
    assert "cut_short_at" in err


def test_import_writes_the_log_cut_where_its_document_says(
        tmp_path: Path, real: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    p = parse_log(real)
    cut = real[:p.signature_offset + 20]  # a crash inside the signature
    doc = _doc(cut)
    assert doc["cut_short_at"] == p.signature_offset
    # export keeps the bytes after the cut (import gives back the very log, tests in
    # test_export_import.py); a document without them gives the log cut where it says
    assert doc.pop("cut_bytes") == cut[p.signature_offset:].hex()
    source, out_log = tmp_path / "m.json", tmp_path / "m.tlog"
    source.write_text(json.dumps(doc), encoding="utf-8")
    assert run(capsys, "import", str(source), "-o", str(out_log))[0] == 0
    assert out_log.read_bytes() == real[:p.signature_offset]
    code, out, _ = run(capsys, "verify", str(out_log))
    assert code == 1 and f"not signed yet: checked up to byte {p.signature_offset}" in out
    key = tmp_path / "platform.pem"
    key.write_bytes(private_key_pem(MatchSecrets(REAL).key))
    signed = tmp_path / "signed.tlog"
    code, _, err = run(capsys, "import", str(source), "--sign", str(key), "-o", str(signed))
    assert code == 2 and "cut short at byte" in err and not signed.exists()
