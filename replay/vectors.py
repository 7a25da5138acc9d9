"""Test vectors of the rules layer: what each deal of ``deals.json`` gives under each
rule set (hands, the card shown, the trump), written to ``hands.json``; and encoding
vectors of the log (``log-*.json``): a match's JSON form, its exact bytes and its
signature, for each rule set and for a cancelled hand, an abandoned match and recorded
deals, so a writer in another language can check its bytes (``docs/FORMAT.md``).

The deals themselves (deck orders, dealers) are the fairness layer's vectors
(:mod:`tarneeb.audit.vectors`); this file turns each into hands and a trump as
``docs/PROTOCOL.md`` §5.5 and ``docs/RULES.md`` say, so an outside implementer can
check that step too. Every seed in them is a public TEST VECTOR.

Regenerate (or check) the file::

    python -m tarneeb.replay.vectors fixtures/vectors
    python -m tarneeb.replay.vectors fixtures/vectors --check

>>> sorted(build_vectors())[:3]
['hands.json', 'log-abandoned.json', 'log-cancelled-hand.json']
"""

from __future__ import annotations

from typing import Any

from tarneeb.audit.derive import Deal
from tarneeb.audit.encoding import PROTOCOL
from tarneeb.audit.vectors import (
    CARD_NUMBERING,
    PLATFORM_KEY,
    WARNING,
    deal_vectors,
    render,
)
from tarneeb.audit.vectors import main as vectors_main
from tarneeb.replay.rules.cards import SUIT_LETTERS, card_name, cards_of, format_hand
from tarneeb.replay.rules.dealing import hands_of, revealed_of, trump_of
from tarneeb.replay.rules.ruleset import PRESETS


def _hands_vector(dv: dict[str, Any]) -> dict[str, Any]:
    deal = Deal(dv["deal_number"], dv["dealer"], tuple(dv["deck"]))
    hands = hands_of(deal)
    trump = {name: trump_of(deal, rules) for name, rules in PRESETS.items()}
    return {
        "deal_number": deal.deal_number,
        "dealer": deal.dealer,
        "deck": list(deal.deck),
        "deck_names": [card_name(c, symbols=False) for c in deal.deck],
        "hands": [cards_of(h) for h in hands],
        "hand_masks": hands,
        "hands_text": [format_hand(h, symbols=False) for h in hands],
        "thirteenth": deal.thirteenth,
        "thirteenth_name": card_name(deal.thirteenth, symbols=False),
        "trump": trump,
        "trump_names": {k: (SUIT_LETTERS[v] if v is not None else "named")
                        for k, v in trump.items()},
        "revealed": {name: revealed_of(deal, rules) for name, rules in PRESETS.items()},
    }


def hands_vectors() -> dict[str, Any]:
    """Hands, shown card and trump per preset for every deal of ``deals.json``."""
    return {
        "protocol": PROTOCOL,
        "warning": WARNING,
        "card_numbering": CARD_NUMBERING,
        "hand_masks": "bit c set for each card c held",
        "trump_numbering": "suit number 0-3 (C D H S); null: named by the auction winner",
        "rules": {name: rules.trump for name, rules in PRESETS.items()},
        "vectors": [{"name": v["name"], "deals": [_hands_vector(d) for d in v["deals"]]}
                    for v in deal_vectors()["vectors"]],
    }


def _log_vector(description: str, log: bytes, key: bytes) -> dict[str, Any]:
    from tarneeb.replay.log.jsonform import to_json
    from tarneeb.replay.log.parse import parse_log

    parsed = parse_log(log)
    assert parsed.signature is not None and parsed.signature_offset is not None
    return {
        "warning": WARNING,
        "format": "docs/FORMAT.md: the log, version 3; docs/PLATFORM.md",
        "description": description,
        "private_key": key.hex(),
        "public_key": (parsed.header.public_key or b"").hex(),
        "json": to_json(log),
        "log": log.hex(),
        "signed_bytes": parsed.signature_offset,
        "signature": parsed.signature.signature.hex(),
    }


def _abandoned_log(seed: bytes) -> bytes:
    """A sahrat400 match abandoned in its second hand: its first hand played in full,
    then the bids and five cards of the second (the turn timer made one of these moves:
    a two-byte move), then a timeout."""
    import io
    import random

    from tarneeb.replay.log.jsonform import to_json
    from tarneeb.replay.rules.players import BotPlayer
    from tarneeb.replay.server.recorder import MatchRecorder
    from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
    from tarneeb.replay.verify.replayer import verify_bytes

    s = MatchSecrets(seed)
    rng = random.Random(seed)
    bots = [BotPlayer(random.Random(rng.getrandbits(64)), timer_rate=0.3) for _ in range(4)]
    full = play_logged_match("sahrat400", seed=seed, players=bots)
    doc = to_json(full)
    second = verify_bytes(full).history[1]
    to_move = (second.trick_leaders[5 // 4] + 5 % 4) & 3  # the seat of the 6th card: it timed out
    header = doc["records"][0]
    hands = [r for r in doc["records"] if r["type"] == "hand"]
    out = io.BytesIO()
    rec = MatchRecorder(out, rules="sahrat400", seats=["Ann", "Ben", "Cat", "Dan"],
                        match_id=s.match_id, first_dealer=header["first_dealer"],
                        public_key=bytes.fromhex(header["public_key"]),
                        server_commitment=bytes.fromhex(header["server_commitment"]),
                        client_commitments=s.client_commitments(), client_seeds=s.client_seeds)
    for n, h in enumerate(hands[:2]):
        rec.deal(h["dealer"], revealed=h["revealed"])
        timer = set(h["timer"])
        for k, c in enumerate(h["calls"]):
            rec.call(c["seat"], c["call"], timer=k in timer)
        for k, card in enumerate(h["plays"] if n == 0 else h["plays"][:5], len(h["calls"])):
            rec.play(card, timer=k in timer)
        if n == 0:
            rec.claim(tricks=h["tricks"], scores=h["scores"], totals=h["totals"],
                      trump=h["trump"])
    rec.abandon("timeout", to_move, "no move within 60 s, three times",
                s.server_seed)
    rec.sign(s.key)
    return out.getvalue()


def _season_log(seed: bytes) -> bytes:
    """An eram41 match whose server seed is leaf 3 of the test season (audit/vectors.py),
    the head signed as signature.json signs it: the header's batch proof in full."""
    from tarneeb.audit.signing import private_key_from_raw
    from tarneeb.audit.vectors import SEASON_INDEX, test_season
    from tarneeb.replay.log.records import BatchProof
    from tarneeb.replay.server.simulate import play_logged_match

    key = private_key_from_raw(PLATFORM_KEY)
    season = test_season()
    batch = BatchProof(SEASON_INDEX, season.size, season.proof(SEASON_INDEX), season.root,
                       season.head.sign(key))
    return play_logged_match("eram41", seed=seed, key=key,
                             server_seed=season.seeds[SEASON_INDEX], batch=batch)


def log_vectors() -> dict[str, Any]:
    """The encoding vectors of the log, by file name: reproducible matches (their seeds
    and keys are public TEST VECTORS)."""
    from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match

    def key(seed: bytes) -> bytes:
        return MatchSecrets(seed).key.private_bytes_raw()

    out: dict[str, Any] = {}
    for name in PRESETS:
        seed = f"log vector/{name}".encode()
        out[f"log-{name}.json"] = _log_vector(
            f"a whole {name} match between computer players, deals derived from the seeds",
            play_logged_match(name, seed=seed), key(seed))
    from tarneeb.replay.log.parse import parse_log

    seed = next(f"log vector/cancelled/{i}".encode() for i in range(100)
                if any(h.tricks is None for h in parse_log(play_logged_match(
                    "eram41", seed=f"log vector/cancelled/{i}".encode())).hands))
    out["log-cancelled-hand.json"] = _log_vector(
        "an eram41 match with a cancelled hand (the bids total under 11: no trump, tricks "
        "or scores in its claims record)", play_logged_match("eram41", seed=seed), key(seed))
    seed = b"log vector/abandoned/0"
    out["log-abandoned.json"] = _log_vector(
        "a sahrat400 match abandoned in its second hand after the turn timer played a card "
        "(a two-byte move): the end record says timeout, the seat and the reason",
        _abandoned_log(seed), key(seed))
    seed = b"log vector/season"
    out["log-season.json"] = _log_vector(
        "an eram41 match of a season: its server seed leaf 3 of the 5-leaf season of "
        "merkle.json (its inclusion proof proofs[3] there), the season head signed by the key "
        "of signature.json (its season_head signature), which signs the log too",
        _season_log(seed), PLATFORM_KEY)
    seed = b"log vector/recorded"
    out["log-recorded-deals.json"] = _log_vector(
        "a qahwa41 match of a platform without the seed protocol: every deal recorded in "
        "its deal record, nothing committed", play_logged_match("qahwa41", seed=seed,
                                                                  seeded=False), key(seed))
    return out


def receipt_vectors() -> dict[str, Any]:
    """Receipt files of the match of ``log-eram41.json`` (signed with its key): two that
    read (one with CRLF line ends), and one for each way a receipt's JSON is refused
    (docs/PROTOCOL.md §8.1), each with the one line a verifier gives after
    ``not a receipt:``. Both verifiers are tested on them."""
    import json

    from tarneeb.replay.log.parse import parse_log
    from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
    from tarneeb.replay.verify.receipt import ReceiptError, read_receipt, receipt_json

    seed = b"log vector/eram41"
    text = receipt_json(parse_log(play_logged_match("eram41", seed=seed)).header,
                        MatchSecrets(seed).key)
    doc = json.loads(text)

    def edited(season: str | None = None, **fields: str) -> bytes:
        """The receipt with fields replaced by raw JSON text (and a season leaf)."""
        parts = [f"{json.dumps(k)}: {fields.get(k, json.dumps(v, ensure_ascii=False))}"
                 for k, v in doc.items()]
        if season is not None:
            parts = [p if not p.startswith('"season"') else f'"season": {season}' for p in parts]
        return ("{" + ", ".join(parts) + "}\n").encode()

    root = '"' + "00" * 32 + '"'
    refused = [
        ("a leaf index written 0.0", edited(f'{{"index": 0.0, "size": 1, "root": {root}}}')),
        ("a leaf index written 0e0", edited(f'{{"index": 0e0, "size": 1, "root": {root}}}')),
        ("a leaf index written -0", edited(f'{{"index": -0, "size": 1, "root": {root}}}')),
        ("a season size past 2^53 - 1 (2^53 + 1, which a double cannot hold)",
         edited(f'{{"index": 0, "size": 9007199254740993, "root": {root}}}')),
        ("a leaf index written NaN", edited(f'{{"index": NaN, "size": 1, "root": {root}}}')),
        ("a season size written Infinity",
         edited(f'{{"index": 0, "size": Infinity, "root": {root}}}')),
        ("a number with a fraction in the rules map",
         edited(rules=json.dumps({**doc["rules"], "target": 41.0}))),
        ("the file begins with a UTF-8 byte-order mark", b"\xef\xbb\xbf" + text.encode()),
        ("the match id given twice", edited(season=None).replace(
            b'"match_id"', b'"match_id": "00", "match_id"', 1)),
        ("a seat's name holding a lone surrogate (the escape \\ud800)",
         edited(seats='[["\\ud800", false], ["b", false], ["c", false], ["d", false]]')),
        ("arrays nested 17 deep in the rules map",
         edited(rules=json.dumps({**doc["rules"], "x": 0}).replace('"x": 0', '"x": '
                                                                    + "[" * 16 + "]" * 16))),
        ("a byte that is not UTF-8 in a seat's name", text.encode().replace(
            json.dumps(doc["seats"][0][0]).encode(), b'"\xff"', 1)),
    ]
    out_refused = []
    for description, data in refused:
        try:
            read_receipt(data, "receipt.json")
        except ReceiptError as e:
            error = str(e)
        else:
            raise AssertionError(f"the receipt vector {description!r} reads")
        out_refused.append({"description": description, "receipt": data.hex(),
                            "error": error.removeprefix("receipt.json: not a receipt: ")})
    accepted = [("the receipt as tarneeb writes it", text.encode()),
                ("the same with CRLF line ends (JSON's white space)",
                 text.replace("\n", "\r\n").encode())]
    for _, data in accepted:
        read_receipt(data)
    return {
        "warning": WARNING,
        "format": "docs/PROTOCOL.md §8.1: receipt files, and the JSON a verifier reads in them",
        "log": "log-eram41.json",
        "accepted": [{"description": d, "receipt": data.hex()} for d, data in accepted],
        "refused": out_refused,
    }


def build_vectors() -> dict[str, Any]:
    """The rules layer's vector files, by file name."""
    return {"hands.json": hands_vectors(), **log_vectors(), "receipts.json": receipt_vectors()}


def render_vectors() -> dict[str, str]:
    return render(build_vectors())


def main(argv: list[str] | None = None) -> int:
    """``python -m tarneeb.replay.vectors DIRECTORY [--check]``."""
    return vectors_main(argv, render_vectors(), prog="tarneeb.replay.vectors")


if __name__ == "__main__":
    raise SystemExit(main())
