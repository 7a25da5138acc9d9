"""The tarneeb command as a user runs it: exit codes, output, bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.audit.signing import generate_private_key, key_id, public_key_pem
from tarneeb.cli.entry import main as entry
from tarneeb.replay.log import parse_log


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's config directory (where the default keys file lives), empty."""
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    return config / "tarneeb"


@pytest.fixture
def log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "m.tlog"
    code, out, _ = run(capsys, "play", "--rules", "eram41", "--seed", "cli-test", "-o", str(path))
    assert code == 0 and "reproducible run" in out
    return path


def test_play_then_verify_clean(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "verify", str(log))
    assert code == 0 and err == ""
    first, deals, signed = out.splitlines()[:3]
    kid = key_id(parse_log(log.read_bytes()).header.public_key)
    assert first.startswith(f"{log}: clean, ") and first.endswith(f"key {kid}, not pinned")
    assert "deals proven by the committed seeds" in deals
    # unpinned, the line below says the signature proves nothing about who made the log
    assert f"signed by key {kid} named in the log itself, NOT PINNED: anyone could have made " \
        "this log with a key of their own" in signed


def test_verify_names_the_platform_from_a_keys_file(
        log: Path, tmp_path: Path, own_config_dir: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    raw = parse_log(log.read_bytes()).header.public_key
    keys = tmp_path / "keys.toml"
    keys.write_text(f'"card room" = "{raw.hex()}"\nother = """\n'
                    + public_key_pem(generate_private_key().public_key()).decode() + '"""\n')
    code, out, _ = run(capsys, "verify", "--keys", str(keys), str(log))
    assert code == 0
    assert out.splitlines()[0].endswith(f"signed by card room (key {key_id(raw)}, pinned)")
    code, out, _ = run(capsys, "verify", "--json", "--keys", str(keys), str(log))
    assert json.loads(out)[0]["key"] == {"id": key_id(raw), "pinned": True,
                                         "platform": "card room", "scripts": ["Latin"]}
    # the default keys file in the user's config directory does the same
    own_config_dir.mkdir(parents=True)
    (own_config_dir / "keys.toml").write_text(keys.read_text())
    code, out, _ = run(capsys, "verify", str(log))
    assert code == 0 and "signed by card room" in out.splitlines()[0]
    # a log signed by a key none of them is: a finding
    (own_config_dir / "keys.toml").write_text(keys.read_text().split("\n", 1)[1])
    code, out, _ = run(capsys, "verify", str(log))
    assert code == 1 and f"the log's key {key_id(raw)} is none of the 1 platform keys" in out


@pytest.mark.parametrize("text, message", [
    ('weak = "01' + "00" * 31 + '"', "weak: weak Ed25519 public key 0100000000000000…: a point "
     "of small order (the identity)"),
    ('p = "ef' + "ff" * 30 + '7f"', "not canonically encoded (y ≥ p)"),
    ('p = "abcd"', "a raw Ed25519 key is 64 hex digits, not 4"),
    ('p = "xyz"', "not hex and not a PEM public key"),
    ("p = [1]", "the value must be a string"),
    ("p = ", "not TOML"),
])
def test_bad_keys_file_is_one_line(log: Path, tmp_path: Path, text: str, message: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text(text)
    code, out, err = run(capsys, "verify", "--keys", str(keys), str(log))
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_play_is_reproducible_only_with_seed(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    paths = [tmp_path / f"{i}.tlog" for i in range(4)]
    for p in paths[:2]:
        run(capsys, "play", "--rules", "classic", "--seed", "s", "-o", str(p))
    for p in paths[2:]:
        run(capsys, "play", "--rules", "classic", "-o", str(p))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[2].read_bytes() != paths[3].read_bytes()


def test_verify_json_and_findings_exit_1(log: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.tlog"
    data = bytearray(log.read_bytes())
    data[-3] ^= 0xFF  # inside the signature
    bad.write_bytes(bytes(data))
    code, out, _ = run(capsys, "verify", "--json", str(log), str(bad))
    assert code == 1
    verdicts = json.loads(out)
    assert [v["verdict"] for v in verdicts] == ["clean", "findings"]
    assert verdicts[1]["findings"][0]["kind"] == "broken-signature"
    assert verdicts[0]["paths"]["match-won"] == 1
    code, out, _ = run(capsys, "verify", str(bad))
    assert code == 1 and "1 finding, " in out and "signature does not match" in out


def test_verify_pinned_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "platform.pem"
    assert run(capsys, "keygen", str(key))[0] == 0
    log = tmp_path / "k.tlog"
    assert run(capsys, "play", "--rules", "qahwa41", "--key", str(key), "-o", str(log))[0] == 0
    pub = tmp_path / "platform.pub.pem"
    code, out, _ = run(capsys, "verify", "--key", str(pub), str(log))
    assert code == 0 and "pass the platform's public key" not in out
    other = tmp_path / "other.pem"
    run(capsys, "keygen", str(other))
    code, out, _ = run(capsys, "verify", "--key", str(tmp_path / "other.pub.pem"), str(log))
    assert code == 1 and "another platform key" in out


def test_show_is_plain_when_piped(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", str(log))
    assert code == 0
    assert "\x1b[" not in out  # no colour codes when not on a terminal
    assert "North bot [computer], seat 1, partner of South bot" in out
    assert "trick  1:" in out and "→ East bot" in out and "revealed:" in out
    assert "seat 0" not in out and "Hand 0 —" not in out  # people count from 1
    assert "Verdict: clean (" in out and "dealing attempts replayed" in out
    assert "named in the log itself, NOT PINNED: anyone could have made this log" in out
    code, out, _ = run(capsys, "show", str(log), "--hand", "2")
    assert code == 0 and "Hand 2 —" in out and "Hand 1 —" not in out
    code, _, err = run(capsys, "show", str(log), "--hand", "99")
    assert code == 2 and "there is no hand 99 (hands 1-" in err
    code, _, err = run(capsys, "show", str(log), "--hand", "0")
    assert code == 2 and "--hand 0: hands count from 1 (" in err


def test_export_import_round_trip(log: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    js = tmp_path / "m.json"
    back = tmp_path / "back.tlog"
    assert run(capsys, "export", str(log), "-o", str(js))[0] == 0
    assert run(capsys, "import", str(js), "-o", str(back))[0] == 0
    assert back.read_bytes() == log.read_bytes()
    code, out, _ = run(capsys, "export", str(log))
    assert code == 0 and json.loads(out)["format"] == "tarneeb-log-json"


def test_house_options_and_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "q.tlog"
    code, _, _ = run(capsys, "play", "--rules", "qahwa41", "--option", "target=31",
                     "--option", "min_total=12", "-o", str(out_path))
    assert code == 0
    rules = parse_log(out_path.read_bytes()).header.rules
    assert (rules.target, rules.min_total) == (31, 12)
    rf = tmp_path / "club.toml"
    rf.write_text('name = "club400"\nbase = "sahrat400"\n'
                  'values = [2, 3, 4, 10, 12, 14, 16, 27, 30, 33, 36, 40]\npartner_min = 0\n')
    code, _, _ = run(capsys, "play", "--rules-file", str(rf), "-o", str(out_path))
    assert code == 0
    rules = parse_log(out_path.read_bytes()).header.rules
    assert rules.name == "club400" and rules.values[-1] == 40 and rules.partner_min == 0
    code, out, _ = run(capsys, "verify", str(out_path))
    assert code == 0 and "house rules 'club400'" in out


@pytest.mark.parametrize("argv, message", [
    (["verify"], "Missing argument"),
    (["verify", "/no/such/file.tlog"], "/no/such/file.tlog: cannot read"),
    (["show", "/no/such/file.tlog"], "/no/such/file.tlog: cannot read"),
    (["play", "--rules", "nine", "-o", "x"], "'nine' is no rule set (choose from eram41,"),
    (["play", "--rules", "qahwa41", "--option", "target=62", "-o", "x"],
     "qahwa41 offers target 31, 41 or 61, not 62"),
    (["play", "--rules", "eram41", "--option", "nonsense", "-o", "x"], "is not KEY=VALUE"),
    (["play", "--rules", "house400", "--option", "name=cl", "--option", "=5", "-o", "x"],
     "option '=5' has no KEY before its '='"),
    (["verify", "--key", "/no/key.pem", "x"], "cannot read public key file"),
    (["verify", "--frobnicate"], "No such option"),
])
def test_bad_input_is_one_line_exit_2(argv: list[str], message: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("tarneeb: error: ")
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize("content, message", [
    (b"", "empty file"),
    (b"\x00\x01\x02garbage", "not a tarneeb log"),
    (b'{"json": true}', "not a tarneeb log"),
])
def test_not_a_log_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          content: bytes, message: str) -> None:
    p = tmp_path / "x.tlog"
    p.write_bytes(content)
    for cmd in ("verify", "show", "export"):
        code, _, err = run(capsys, cmd, str(p))
        assert code == 2 and message in err and f"{p}: byte 0:" in err
        assert err.count("\n") == 1


def test_truncated_log_reports_offset_and_keeps_whole_records(
        log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parsed = parse_log(log.read_bytes())
    cut = tmp_path / "cut.tlog"
    cut.write_bytes(log.read_bytes()[:parsed.offsets[3] + 7])
    code, out, err = run(capsys, "verify", str(cut))
    assert code == 1 and not err  # a cut log is a finding, not an unreadable log
    assert f"cut at byte {parsed.offsets[3] + 7}: the log ends, after 4 dealing attempts" in out
    assert "the server seed is not revealed" in out  # it is in the end record, cut off
    code, out, err = run(capsys, "show", str(cut))
    assert code == 1 and "Hand 2 —" in out


def test_import_bad_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "x.json"
    p.write_text("{oops")
    code, _, err = run(capsys, "import", str(p), "-o", str(tmp_path / "y.tlog"))
    assert code == 2 and "not valid JSON" in err and not (tmp_path / "y.tlog").exists()


def test_show_marks_timer_moves_and_findings(capsys: pytest.CaptureFixture[str]) -> None:
    fixtures = Path(__file__).parent.parent / "fixtures"
    code, out, _ = run(capsys, "show", str(fixtures / "matches" / "classic-timer.tlog"))
    assert code == 0 and "⏱ a move the turn timer made" in out
    assert any("⏱" in line and "trick" in line for line in out.splitlines())
    manifest = json.loads((fixtures / "altered" / "manifest.json").read_text(encoding="utf-8"))
    entry = next(e for e in manifest if e["file"] == "renege-eram41.tlog")
    path = fixtures / "altered" / entry["file"]
    code, out, _ = run(capsys, "show", str(path))
    assert code == 1  # a finding, as verify and report say (it was 0)
    name = parse_log(path.read_bytes()).header.seats[entry["seat"]].name
    assert f"! hand {entry['hand'] + 1}, trick {entry['trick']}, {name}: renege: " in out


def test_text_names_players_and_counts_hands_from_1_where_json_counts_from_0(
        capsys: pytest.CaptureFixture[str]) -> None:
    """verify and show say hand N+1 and the player's name where --json says deal N, seat s."""
    path = Path(__file__).parent.parent / "fixtures" / "altered" / "renege-eram41.tlog"
    names = [s.name for s in parse_log(path.read_bytes()).header.seats]
    code, out, _ = run(capsys, "verify", "--json", str(path))
    finding = next(f for f in json.loads(out)[0]["findings"] if f["kind"] == "renege")
    deal, trick, seat = finding["hand"], finding["trick"], finding["seat"]
    code, json_show, _ = run(capsys, "show", "--json", "--hand", str(deal + 1), str(path))
    assert [h["deal_number"] for h in json.loads(json_show)["hands"]] == [deal]
    said = f"hand {deal + 1}, trick {trick}, {names[seat]}: renege: {names[seat]}"
    for argv in (["verify", str(path)], ["verify", "--max-bytes", "9999999", str(path)],
                 ["show", str(path)], ["show", "--hand", str(deal + 1), str(path)]):
        # plain verify takes the typer-free path, --max-bytes the typer one
        with pytest.raises(SystemExit) as e:
            entry(argv)
        code, out = int(e.value.code or 0), capsys.readouterr().out
        assert code in (0, 1) and said in out, argv
        renege = [line for line in out.splitlines() if "renege" in line]
        assert renege and not any("seat" in line or f"hand {deal}," in line
                                  for line in renege), renege
    code, out, _ = run(capsys, "show", "--hand", str(deal + 1), str(path))
    assert f"Hand {deal + 1} —" in out and f"Hand {deal} —" not in out


def test_play_a_season_match_and_pin_the_root(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "commit", "--matches", "3", "--json")
    assert code == 0
    season = tmp_path / "season.json"
    season.write_text(out)
    root = json.loads(out)["root"]
    log = tmp_path / "s.tlog"
    assert run(capsys, "play", "--rules", "sahrat41", "--season", str(season),
               "--season-match", "3", "-o", str(log))[0] == 0
    header = parse_log(log.read_bytes()).header
    assert header.batch is not None and (header.batch.index, header.batch.size) == (2, 3)
    code, out, _ = run(capsys, "verify", str(log))
    assert code == 0 and "season root named in the log was not compared" in out
    assert run(capsys, "verify", "--root", root, str(log))[0] == 0
    # the report's season step is "checked" only against the root the user gave (it was
    # marked checked against the log's own root, which proves nothing of what was published)
    page = tmp_path / "s.html"
    for pin, status in (([], "skip"), (["--root", root], "pass")):
        assert run(capsys, "report", *pin, str(log), "-o", str(page))[0] == 0
        step = page.read_text().split("published a season root", 1)[0].rsplit("<li", 1)[1]
        assert f'data-status="{status}"' in step, step
    code, out, _ = run(capsys, "verify", "--root", "00" * 32, str(log))
    assert code == 1 and "does not place the match in the published season root" in out
    code, _, err = run(capsys, "play", "--rules", "eram41", "--season", str(season),
                       "--season-match", "4", "-o", str(log))
    assert code == 2 and "the season has no match 4 (matches 1-3)" in err
    code, _, err = run(capsys, "play", "--rules", "eram41", "--season", str(season),
                       "--season-match", "0", "-o", str(log))
    assert code == 2 and "the season has no match 0 (matches 1-3)" in err
    # one reading, as a receipt's: a server seed given twice (the last was taken), and a
    # match's commitment that is not its seed's (it was not looked at)
    doc = json.loads(season.read_text())
    entry = next(m for m in doc["matches"] if m["index"] == 2)
    twice = season.read_text().replace(f'"server_seed": "{entry["server_seed"]}"',
                                       f'"server_seed": "{"00" * 32}", '
                                       f'"server_seed": "{entry["server_seed"]}"', 1)
    assert twice != season.read_text()
    season.write_text(twice)
    code, _, err = run(capsys, "play", "--rules", "eram41", "--season", str(season),
                       "--season-match", "3", "-o", str(log))
    assert code == 2 and "a key appears twice in one JSON object" in err, err
    entry["commitment"] = "11" * 32
    season.write_text(json.dumps(doc))
    code, _, err = run(capsys, "play", "--rules", "eram41", "--season", str(season),
                       "--season-match", "3", "-o", str(log))
    assert code == 2 and "commitment is not its server seed's" in err, err


def test_verify_of_many_logs_is_one_short_line_each_then_the_hints_once_and_a_count(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Many logs: one line per log (its verdict, hands, key and first finding), the advice
    every log shares said once at the end, and how many logs were clean, as pytest or ruff
    end; one log keeps its verdict in full."""
    fixtures = Path(__file__).resolve().parent.parent / "fixtures"
    clean = [str(fixtures / "matches" / n) for n in ("eram41-01.tlog", "classic-01.tlog")]
    altered, junk = str(fixtures / "altered" / "renege-eram41.tlog"), tmp_path / "junk.tlog"
    junk.write_bytes(b"not a log")
    code, out, err = _run_entry(capsys, "verify", *clean, altered, str(junk))
    lines = out.splitlines()
    assert code == 2 and err == ""
    assert [line.split(": ", 1)[0] for line in lines[:4]] == [*clean, altered, str(junk)]
    first = parse_log(Path(clean[0]).read_bytes()).header.public_key
    assert lines[0] == f"{clean[0]}: clean, 16 hands, key {key_id(first)} not pinned"
    assert lines[2].startswith(f"{altered}: 4 findings, 16 hands, key ")
    assert ": hand 12, trick 2, East bot: renege: East bot played 6♠" in lines[2]
    assert lines[3].startswith(f"{junk}: unreadable: byte 0: not a tarneeb log")
    assert all(len(line) < 200 for line in lines[:4])
    assert out.count("NOT PINNED") == 1 and out.count("pre-play receipt") == 1
    assert lines[-1] == "4 logs: 2 clean, 1 with findings, 1 unreadable"
    code, out, _ = _run_entry(capsys, "verify", clean[0])  # one log: in full
    assert code == 0 and "NOT PINNED" in out.splitlines()[2] and "pre-play receipt" in out
    assert "logs:" not in out


def _run_entry(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The command line through the program's entry point (the fast verify included)."""
    with pytest.raises(SystemExit) as e:
        entry(list(argv))
    out, err = capsys.readouterr()
    return int(e.value.code or 0), out, err


def test_a_private_key_given_to_pin_points_to_the_public_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "platform.pem"
    assert run(capsys, "keygen", str(key))[0] == 0
    log = tmp_path / "k.tlog"
    assert run(capsys, "play", "--rules", "qahwa41", "--key", str(key), "-o", str(log))[0] == 0
    for argv in (["verify", "--key", str(key), str(log)],
                 ["verify", "--max-bytes", "99999", "--key", str(key), str(log)],
                 ["show", "--key", str(key), str(log)]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "", argv
        assert err == (f"tarneeb: error: {key}: a private key; --key pins the platform's public "
                       f"key: give {tmp_path / 'platform.pub.pem'} (tarneeb keygen wrote it "
                       "beside the private key)\n"), argv
    (tmp_path / "platform.pub.pem").unlink()
    _, _, err = run(capsys, "verify", "--key", str(key), str(log))
    assert f"make it with 'tarneeb pubkey {key} > {tmp_path / 'platform.pub.pem'}'" in err


def test_report_without_o_writes_the_page_beside_the_log_and_says_where(
        log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "report", str(log))
    page = log.with_suffix(".html")
    assert code == 0 and out == f"wrote {page}: clean\n"
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    code, _, err = run(capsys, "report", "-")
    assert code == 2 and "give -o HTML" in err


def test_play_names_the_winning_team_by_its_players(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Text counts seats from 1 or names them: no "team 0+2" for a person to translate."""
    path = tmp_path / "m.tlog"
    code, out, _ = run(capsys, "play", "--rules", "eram41", "--seed", "cli-test", "-o", str(path))
    seats = [s.name for s in parse_log(path.read_bytes()).header.seats]
    winner = parse_log(path.read_bytes()).end.winner
    assert code == 0 and f"{seats[winner]} & {seats[winner + 2]} won" in out
    assert "team 0+2" not in out and "team 1+3" not in out


@pytest.mark.parametrize("name", ["eram41", "qahwa41", "sahrat41", "sahrat400", "classic"])
def test_rules_printed_as_toml_play_back_as_the_same_rules(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tarneeb rules NAME > f.toml && tarneeb play --rules-file f.toml``: the same rules."""
    from tarneeb.replay.rules.ruleset import PRESETS

    code, toml, _ = run(capsys, "rules", name)
    assert code == 0
    (tmp_path / "f.toml").write_text(toml, encoding="utf-8")
    log = tmp_path / "m.tlog"
    code, _, err = run(capsys, "play", "--rules-file", str(tmp_path / "f.toml"), "--seed", name,
                       "-o", str(log))
    assert code == 0, err
    assert parse_log(log.read_bytes()).header.rules == PRESETS[name]
    assert run(capsys, "verify", str(log))[0] == 0


def test_a_log_without_a_second_value_table_is_told_it_says_so_with_null(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log's rules with ``values_high = []`` (as a rules file spells "none") are refused
    with what the log must hold instead: nil (null in its JSON form)."""
    log = tmp_path / "m.tlog"
    assert run(capsys, "play", "--rules", "eram41", "--seed", "x", "-o", str(log))[0] == 0
    code, text, _ = run(capsys, "export", str(log))
    doc = json.loads(text)
    assert doc["records"][0]["rules"]["values_high"] is None
    doc["records"][0]["rules"]["values_high"] = []
    (tmp_path / "m.json").write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = run(capsys, "import", str(tmp_path / "m.json"), "-o", str(tmp_path / "n.tlog"))
    assert code == 2 and len(err.splitlines()) == 1
    assert "values_high must list 12 whole numbers, the values of bids 2 to 13 (or be none, " \
           "for no second table: nil in a log, null in its JSON form, values_high = [] in a " \
           "rules file)" in err
    rules = tmp_path / "bad.toml"
    rules.write_text('name = "mine"\nbase = "sahrat400"\nvalues_high = [1, 2]\n')
    code, _, err = run(capsys, "play", "--rules-file", str(rules), "-o", str(tmp_path / "r"))
    assert code == 2 and "values_high = [] in a rules file" in err


def test_play_writes_its_log_and_receipt_to_two_places_or_neither(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``play -o F --receipt-out F`` wrote the receipt, then the log over it (exit 0, the
    receipt lost); ``-o - --receipt-out -`` mixed both on standard output; a log that could
    not be written left the receipt of a match never recorded. Each is one line, exit 2,
    and nothing written."""
    monkeypatch.chdir(tmp_path)
    for argv, said in (
            (["-o", "z.tlog", "--receipt-out", "z.tlog"], "is the log's own file"),
            (["-o", "z.tlog", "--receipt-out", "./z.tlog"], "is the log's own file"),
            (["-o", "-", "--receipt-out", "-"], "would both write to standard output"),
            (["-o", "nodir/x.tlog", "--receipt-out", "r.json"], "its directory is not there"),
            (["-o", "x.tlog", "--receipt-out", "nodir/r.json"], "its directory is not there")):
        code, out, err = run(capsys, "play", "--rules", "classic", *argv)
        assert (code, out) == (2, "") and said in err and err.count("\n") == 1, argv
    assert list(tmp_path.iterdir()) == []
    assert run(capsys, "play", "--rules", "classic", "-o", "z.tlog",
               "--receipt-out", "r.json")[0] == 0
    assert json.loads((tmp_path / "r.json").read_text())


def test_keygen_dash_and_an_empty_keys_file_are_bad_input(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``keygen -`` wrote files named ``-`` and ``-.pub``; a keys file that names no
    platform made every log a finding ("none of the 0 platform keys given", exit 1)."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "keygen", "-")
    assert (code, out) == (2, "") and "give a file name" in err and not list(tmp_path.iterdir())
    keys = tmp_path / "keys.toml"
    keys.write_text("# no platform yet\n")
    log = Path(__file__).parent.parent / "fixtures" / "matches" / "eram41-01.tlog"
    code, out, err = run(capsys, "verify", "--keys", str(keys), str(log))
    assert (code, out) == (2, "") and "names no platform" in err and err.count("\n") == 1
