"""The public API answers an argument of the wrong type with a clear error of its own (or a
TypeError naming what it takes), never an AttributeError from deep inside; and takes the
forms its own values come in (a receipt's key as raw bytes)."""

from __future__ import annotations

import pytest

import tarneeb
from tarneeb.audit.errors import SignatureError
from tarneeb.audit.receipt import Receipt
from tarneeb.audit.signing import generate_private_key, key_id, public_key_raw
from tarneeb.replay.rules.cards import CardError, card_name, deal_hands, parse_card, parse_suit
from tarneeb.replay.rules.ruleset import house_preset, preset

KEY = generate_private_key()
C = bytes(32)
RECEIPT = Receipt(b"m", b"r", (b"a",) * 4, C, None, (C,) * 4)


def test_a_receipt_verifies_with_the_raw_key_a_signed_receipt_holds() -> None:
    signature = RECEIPT.sign(KEY)
    raw = public_key_raw(KEY.public_key())
    RECEIPT.verify(raw, signature)
    RECEIPT.verify(bytearray(raw), signature)
    RECEIPT.verify(KEY.public_key(), signature)
    with pytest.raises(SignatureError):
        RECEIPT.verify(public_key_raw(generate_private_key().public_key()), signature)
    with pytest.raises(TypeError, match="Ed25519 public key or its 32 raw bytes"):
        RECEIPT.verify("ab" * 32, signature)  # type: ignore[arg-type]
    with pytest.raises(tarneeb.AuditError):
        RECEIPT.verify(raw[:5], signature)


@pytest.mark.parametrize("value", [None, "text", 5])
def test_key_id_of_what_is_no_key_is_a_type_error(value: object) -> None:
    with pytest.raises(TypeError, match="key_id takes an Ed25519 public key"):
        key_id(value)  # type: ignore[arg-type]
    assert key_id(KEY.public_key()) == key_id(public_key_raw(KEY.public_key()))


def test_public_key_raw_of_a_private_key_names_its_public_key() -> None:
    with pytest.raises(TypeError, match=r"not Ed25519PrivateKey \(its public key is"):
        public_key_raw(KEY)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not bytes"):
        public_key_raw(bytes(32))  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["x", "10♥", None, 2.5])
def test_card_name_of_what_is_no_card_number_is_a_card_error(value: object) -> None:
    with pytest.raises(CardError, match="not a card number"):
        card_name(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [5, None, b"AS"])
def test_parse_card_and_suit_of_what_is_no_text_are_card_errors(value: object) -> None:
    with pytest.raises(CardError, match="not a card"):
        parse_card(value)  # type: ignore[arg-type]
    with pytest.raises(CardError, match="not a suit"):
        parse_suit(value)  # type: ignore[arg-type]
    assert parse_card("10♥") == 34


def test_house_preset_takes_none_as_no_options_and_refuses_what_is_no_mapping() -> None:
    assert house_preset("qahwa41", None) == preset("qahwa41")
    assert house_preset("qahwa41") == preset("qahwa41")
    with pytest.raises(TypeError, match="options are a mapping"):
        house_preset("qahwa41", [("target", 61)])  # type: ignore[arg-type]


@pytest.mark.parametrize(("deck", "why"), [
    ([0, 1, 2], "3 cards"), (list(range(53)), "53 cards"),
    ([*range(51), 50], "K♠ 2 times"), ([*range(51), 52], "holding 52"),
    ([*range(51), -53], "holding -53"), ([*range(51), "x"], "holding 'x'"),
    (None, "NoneType"), (bytes(range(51)) + b"\x00", "2♣ 2 times"),
])
def test_deal_hands_refuses_a_deck_that_is_not_the_52_cards(deck: object, why: str) -> None:
    with pytest.raises(CardError, match=f"52 cards 0-51, each once, not .*{why}"):
        deal_hands(deck, 0)  # type: ignore[arg-type]


def test_deal_hands_deals_every_card_once() -> None:
    hands = deal_hands(bytes(range(52)), 3)
    assert sum(hands) == (1 << 52) - 1 and all(h.bit_count() == 13 for h in hands)
    assert deal_hands(list(range(52)), 3) == hands
