"""The verifier page reads the key it is given as ``tarneeb verify`` does: a keys file whose
first platform's key is a PEM block is a keys file (every platform in it, by name), not
"the key you gave" (that first PEM block alone), and a file of two PEM keys is refused, as
``tarneeb verify --key`` refuses it. Before, the page took the first PEM block of any text
as the one pinned key: a keys file's other platforms were ignored (their logs failed as
signed by another key) and the keys file's own checks (look-alike names, weak keys, a key
listed twice) were skipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_verifier_page import FIXTURES, _python_verdict, check, page_file  # noqa: F401

LOG = FIXTURES / "matches" / "classic-timer.tlog"


def _other_pem() -> str:
    return Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def _platform_key() -> Ed25519PrivateKey:
    """The key the corpus signed ``LOG`` with."""
    from tarneeb.testing.corpus.specs import MATCHES, platform_key

    return platform_key(next(s for s in MATCHES if s.file == LOG.name))


def test_a_keys_file_led_by_a_pem_key_is_read_as_a_keys_file(
        chromium: Any, page_file: Path, tmp_path: Path, capsys: Any) -> None:  # noqa: F811
    log = LOG
    raw = _platform_key().public_key().public_bytes_raw().hex()
    keys = tmp_path / "platforms.toml"
    keys.write_text(f'"Club" = """\n{_other_pem()}"""\nqahwa-house = "{raw}"\n',
                    encoding="utf-8")
    want = _python_verdict(capsys, log, "--keys", str(keys))
    assert want["verdict"] == "clean" and want["key"]["platform"] == "qahwa-house"
    seen = check(chromium, page_file, log, key=keys)
    assert seen["errors"] == [] and seen["requests"] == []
    assert "a keys file of 2 platforms" in seen["key_status"], seen["key_status"]
    assert seen["verdict"] == "clean" and "qahwa-house" in seen["detail"]


def test_two_pem_keys_are_refused_as_tarneeb_verify_key_refuses_them(
        chromium: Any, page_file: Path, tmp_path: Path, capsys: Any) -> None:  # noqa: F811
    log = LOG
    mine = _platform_key().public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    two = tmp_path / "two.pem"
    two.write_text(mine + _other_pem(), encoding="utf-8")
    from cli_runner import run

    code, _, err = run(capsys, "verify", "--key", str(two), str(log))
    assert code == 2 and "one PEM public key and nothing else" in err
    seen = check(chromium, page_file, log, key=two)
    assert "one PEM public key and nothing else" in seen["key_status"], seen["key_status"]
    assert seen["verdict"] != "clean" or "nothing ties" in seen["headline"]


def test_a_keys_file_ending_in_a_pem_key_is_a_keys_file_for_the_page_and_the_cli(
        chromium: Any, page_file: Path, tmp_path: Path, capsys: Any) -> None:  # noqa: F811
    """Its last platform's PEM block closes the TOML string on its END line (the three
    quotes right after the dashes):
    ``--key`` refuses the file (it took that block alone: the other platforms were lost and
    the file's own checks skipped), and the page reads it as the keys file it is."""
    from cli_runner import run

    log = LOG
    raw = _platform_key().public_key().public_bytes_raw().hex()
    keys = tmp_path / "platforms.toml"
    keys.write_text(f'qahwa-house = "{raw}"\n"Club" = """\n{_other_pem().strip()}"""\n',
                    encoding="utf-8")
    code, _, err = run(capsys, "verify", "--key", str(keys), str(log))
    assert code == 2 and "one PEM public key and nothing else" in err, err
    seen = check(chromium, page_file, log, key=keys)
    assert "a keys file of 2 platforms" in seen["key_status"], seen["key_status"]
    assert seen["verdict"] == "clean" and "qahwa-house" in seen["detail"]
    # a byte-order mark before a keys file: refused by the page as by --keys (a browser's
    # File.text() dropped it, and put U+FFFD for bytes that are not UTF-8)
    keys.write_bytes(b"\xef\xbb\xbf" + keys.read_bytes())
    code, _, err = run(capsys, "verify", "--keys", str(keys), str(log))
    assert code == 2 and "byte-order mark" in err, err
    seen = check(chromium, page_file, log, key=keys)
    assert "byte-order mark" in seen["key_status"], seen["key_status"]
    assert seen["verdict"] != "clean" or "nothing ties" in seen["headline"]
