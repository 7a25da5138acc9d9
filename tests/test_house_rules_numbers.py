"""Whole numbers in a rules file are TOML's 64-bit integers: a larger one (which no log can
hold) is refused in one line, as a keys file's is, not taken and then crashing ``play``."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.audit.errors import KeyFileError
from tarneeb.audit.signing import parse_keys
from tarneeb.replay.rules.ruleset import RulesError, parse_option, parse_rules_text
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes

HINT = "a rules file holds lines field = value (docs/RULES.md)"
TOO_LARGE = ["9223372036854775808", "-9223372036854775809", "18446744073709551616",
             "0xffffffffffffffff"]


def rules_text(field: str, value: str) -> str:
    return f'name = "club400"\nbase = "sahrat400"\n{field} = {value}\n'


@pytest.mark.parametrize("number", TOO_LARGE)
@pytest.mark.parametrize("field", ["values_high_from", "min_total_steps", "min_bid_steps"])
def test_a_number_past_64_bits_makes_a_rules_file_no_toml(field: str, number: str) -> None:
    value = number if field == "values_high_from" else f"[[{number}, 13]]"
    with pytest.raises(RulesError) as e:
        parse_rules_text(rules_text(field, value), "club.toml")
    assert str(e.value) == f"club.toml: not TOML from line 3: {HINT}"


def test_the_largest_64_bit_numbers_are_read_and_recorded() -> None:
    for value in ("9223372036854775807", "-9223372036854775808"):
        rules = parse_rules_text(rules_text("values_high_from", value), "club.toml")[0]
        assert rules.values_high_from == int(value)
        assert verify_bytes(play_logged_match(rules, seed=b"64 bits")).findings == []


def test_play_refuses_such_a_rules_file_in_one_line(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "club.toml"
    path.write_text(rules_text("min_total_steps", "[[18446744073709551616, 12]]"))
    code, _, err = run(capsys, "play", "--rules-file", str(path), "--seed", "x",
                       "-o", str(tmp_path / "m.tlog"))
    assert code == 2 and err == f"tarneeb: error: {path}: not TOML from line 3: {HINT}\n"
    assert not (tmp_path / "m.tlog").exists()


def test_an_option_past_64_bits_is_refused() -> None:
    with pytest.raises(RulesError, match=r"^option values_high_from: a whole number outside "
                                         r"TOML's 64-bit integers"):
        parse_option("values_high_from=18446744073709551616")
    assert parse_option("values_high_from=9223372036854775807") == (
        "values_high_from", 2**63 - 1)


def test_a_keys_file_reads_numbers_as_the_js_verifier_does() -> None:
    with pytest.raises(KeyFileError, match=r"^keys\.toml: not TOML from line 2: "):
        parse_keys('a = "x"\nb = [1, { c = 9223372036854775808 }]\n', "keys.toml")
    with pytest.raises(KeyFileError, match="the value must be a string"):
        parse_keys('"Club 400" = 9223372036854775807\n', "keys.toml")
