"""The verifier page writes the names of the files a player gives it (a log, a key, a
receipt) as the match report writes them: a bidi override, an isolate or a control
character in a file name is written as an escape, so it cannot reorder or hide the words
that follow it on the page."""

from __future__ import annotations

import re

from test_verifier_page import FIXTURES, check, page_file  # noqa: F401 (a fixture)

RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def test_file_names_with_bidi_controls_are_shown_escaped(chromium, page_file, tmp_path):  # noqa: F811
    log = tmp_path / "match\u202egolt.tlog"
    log.write_bytes((FIXTURES / "matches" / "classic-01.tlog").read_bytes())
    key = tmp_path / "key\u2067s.pem"
    key.write_text("not a key")
    receipt = tmp_path / "receipt\u202d\x1b[2J.json"
    receipt.write_text("not a receipt")
    seen = check(chromium, page_file, log, key=key, receipt=receipt)
    # (a receipt that cannot be read checks nothing, as tarneeb verify refuses it)
    assert seen["verdict"] == "unreadable"
    assert "receipt\\u202d\\x1b[2J.json" in seen["detail"] + seen["headline"]
    assert RAW.search(seen["text"]) is None, seen["text"]
    assert seen["key_status"].startswith("key\\u2067s.pem: not a public key")
    assert seen["receipt_status"].startswith("receipt\\u202d\\x1b[2J.json: not a receipt")
    assert seen["errors"] == []


def test_an_unreadable_log_is_named_escaped(chromium, page_file, tmp_path):  # noqa: F811
    junk = tmp_path / "junk\u202e\r.tlog"
    junk.write_bytes(b"not a log")
    seen = check(chromium, page_file, junk)
    assert seen["verdict"] == "unreadable"
    assert "junk\\u202e\\r.tlog: " in seen["detail"]
    assert RAW.search(seen["text"]) is None, seen["text"]


def test_the_seat_picker_names_players_as_the_verdict_does(chromium, page_file, tmp_path):  # noqa: F811
    """A player named "seat 3" at seat 2 was offered as "seat 3 (seat 2)": quoted, with its
    seat, as everywhere else on the page."""
    import dataclasses

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tarneeb.testing.alterations.base import rewrite

    def names(log) -> None:  # type: ignore[no-untyped-def]
        log.header = dataclasses.replace(log.header, seats=[
            dataclasses.replace(s, name=n)
            for s, n in zip(log.header.seats, ["Ana", "seat 3", "", "Dee"], strict=True)])

    log = tmp_path / "named.tlog"
    log.write_bytes(rewrite((FIXTURES / "matches" / "classic-01.tlog").read_bytes(), names,
                            resign=Ed25519PrivateKey.generate()))
    seen = check(chromium, page_file, log)
    assert seen["seats"] == ["Ana (seat 1)", "“seat 3” (Seat 2)", "Seat 3", "Dee (seat 4)"]
