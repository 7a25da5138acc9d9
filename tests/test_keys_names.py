"""A keys file's platform names: two that look the same are refused (a forger's key must not
read as a trusted platform), and a name that mixes scripts is flagged in the verdict."""

from __future__ import annotations

import pytest

from tarneeb.audit.errors import KeyFileError
from tarneeb.audit.names import name_keys, name_scripts
from tarneeb.audit.signing import parse_keys, private_key_from_raw, public_key_raw
from tarneeb.replay.replayer import verify_bytes
from tarneeb.replay.simulate import MatchSecrets, play_logged_match

KEY_A = public_key_raw(private_key_from_raw(bytes(31) + b"\x01").public_key()).hex()
KEY_B = public_key_raw(private_key_from_raw(bytes(31) + b"\x02").public_key()).hex()


def keys_text(a: str, b: str) -> str:
    return f'"{a}" = "{KEY_A}"\n"{b}" = "{KEY_B}"\n'


@pytest.mark.parametrize(("trusted", "forged"), [
    ("ERAM", "\u0415R\u0410\u041c"),       # Cyrillic Е, А, М among Latin letters
    ("eram club", "\u0435r\u0430m club"),  # Cyrillic е, а in lower case
    ("Cardroom", "\uff23\uff41\uff52\uff44\uff52\uff4f\uff4f\uff4d"),  # fullwidth: NFKC
    ("cardroom", "card\u200broom"),        # a zero-width space
    ("cardroom", "cardro\u00adom"),        # a soft hyphen
    ("cardroom", "CardRoom"),              # case
    ("Cardroom", "\uff23\uff21\uff32\uff24\uff32\uff2f\uff2f\uff2d"),  # ＣＡＲＤＲＯＯＭ
    ("Platform", "PIatform"),              # capital i for l
    ("club", "c\u217cub"),                 # small roman numeral fifty
    ("Tarneeb", "T\u0430rn\u0435\u0435b"),  # mixed into every letter it can
])
def test_names_that_look_the_same_make_the_keys_file_unreadable(trusted: str,
                                                                 forged: str) -> None:
    assert trusted != forged
    for a, b in ((trusted, forged), (forged, trusted)):
        with pytest.raises(KeyFileError, match="looks the same as") as e:
            parse_keys(keys_text(a, b), "keys.toml")
        message = str(e.value)
        assert message.startswith("keys.toml: ") and "\n" not in message
        assert repr(a) in message and repr(b) in message  # both shown escaped


@pytest.mark.parametrize(("a", "b"), [("eram", "qahwa"), ("cardroom", "card room"),
                                      ("ERAM", "\u0415\u0420\u0410\u041c"),  # ЕРАМ ≠ ERAM
                                      ("Club 1", "Club 2")])
def test_names_that_differ_to_the_eye_are_kept(a: str, b: str) -> None:
    assert set(parse_keys(keys_text(a, b))) == {a, b}


def test_the_name_key_and_scripts() -> None:
    assert name_keys("\u0415R\u0410\u041c") & name_keys("eram") == {"eram"}
    assert name_keys("CARDROOM") & name_keys("Cardroom") == {"cardroom"}
    assert name_scripts("\u0415R\u0410\u041c") == ("Cyrillic", "Latin")
    assert name_scripts("Club Tarneeb 400") == ("Latin",)
    assert name_scripts("\u0643\u0627\u0631\u062a") == ("Arabic",)
    assert name_scripts("2024") == ()


def test_a_signer_whose_name_mixes_scripts_is_flagged_in_the_verdict() -> None:
    seed = b"test keys names"
    log = play_logged_match("eram41", seed=seed)
    raw = public_key_raw(MatchSecrets(seed).key.public_key())
    mixed = "\u0415R\u0410\u041c"
    v = verify_bytes(log, keys={mixed: raw})
    assert v.clean and v.signer == mixed
    assert "mixes Cyrillic and Latin" in v.signed_by()
    assert any("mixes Cyrillic and Latin" in n for n in v.notes)
    assert v.to_json()["key"]["scripts"] == ["Cyrillic", "Latin"]
    plain = verify_bytes(log, keys={"ERAM": raw})
    assert plain.clean and "mixes" not in plain.signed_by()
    assert plain.to_json()["key"]["scripts"] == ["Latin"]
    assert not any("mixes" in n for n in plain.notes)


def test_the_match_report_flags_a_signer_name_that_mixes_scripts() -> None:
    import html

    from tarneeb.report.match import match_report

    seed = b"test keys names"
    log = play_logged_match("eram41", seed=seed)
    raw = public_key_raw(MatchSecrets(seed).key.public_key())
    page, _ = match_report(log, keys={"\u0415R\u0410\u041c": raw})
    assert "mixes Cyrillic and Latin letters" in html.unescape(page)
    page, _ = match_report(log, keys={"ERAM": raw})
    assert "mixes" not in html.unescape(page)
