"""The log's encoding vectors (fixtures/vectors/log-*.json) and the JSON Schema of its JSON
form: JSON form → exact bytes → signature, and every exported log valid under the schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.signing import public_key_raw
from tarneeb.replay.log import RULE_FIELDS, parse_log
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.trust import Trust

ROOT = Path(__file__).resolve().parent.parent
VECTORS = sorted((ROOT / "fixtures" / "vectors").glob("log-*.json"))
VALIDATOR = jsonschema.Draft202012Validator(logjson.schema())


def test_the_vectors_cover_what_the_format_has() -> None:
    names = {p.stem for p in VECTORS}
    assert {"log-eram41", "log-qahwa41", "log-sahrat41", "log-sahrat400", "log-classic",
            "log-cancelled-hand", "log-abandoned", "log-recorded-deals", "log-season"} <= names
    docs = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in VECTORS}
    hands = [h for d in docs.values() for h in d["json"]["records"] if h["type"] == "hand"]
    assert any(h["tricks"] is None for h in hands)  # a cancelled hand
    assert any(not h["closed"] for h in hands)  # the hand an abandoned match stops in
    assert any(h["timer"] for h in hands)  # a two-byte move
    assert any(h["deal"] is not None for h in hands)  # a recorded deal
    assert docs["log-abandoned"]["json"]["records"][-2]["abandoned"]["cause"] == "timeout"
    assert any(d["json"]["records"][0]["batch"] is not None for d in docs.values())  # a season


def test_the_season_vector_is_the_season_of_the_protocol_vectors() -> None:
    """log-season.json's header holds leaf 3 of merkle.json's 5-leaf season, its proof and
    the head signature of signature.json: the pieces another implementation checks apart,
    together in one log, which verifies clean with the season's root pinned."""
    v = json.loads((ROOT / "fixtures" / "vectors" / "log-season.json").read_text("utf-8"))
    merkle = json.loads((ROOT / "fixtures" / "vectors" / "merkle.json").read_text("utf-8"))
    sig = json.loads((ROOT / "fixtures" / "vectors" / "signature.json").read_text("utf-8"))
    batch = v["json"]["records"][0]["batch"]
    tree = next(t for t in merkle["trees"] if t["size"] == 5)
    assert batch["root"] == tree["root"] and batch["index"] == 3 and batch["size"] == 5
    assert batch["path"] == tree["proofs"][3]
    assert batch["head_signature"] == sig["season_head"]["signature"]
    assert v["public_key"] == sig["public_key_raw"]
    log = bytes.fromhex(v["log"])
    verdict = verify_bytes(log, trust=Trust(public_key=bytes.fromhex(v["public_key"]),
                                            root=bytes.fromhex(tree["root"])))
    assert verdict.clean, [str(f) for f in verdict.findings]
    other = bytes(31) + b"\x01"
    assert not verify_bytes(log, trust=Trust(public_key=bytes.fromhex(v["public_key"]),
                                             root=other)).clean


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_json_form_gives_the_exact_bytes_and_signature(path: Path) -> None:
    v = json.loads(path.read_text(encoding="utf-8"))
    log = bytes.fromhex(v["log"])
    VALIDATOR.validate(v["json"])
    assert logjson.from_json(v["json"]) == log  # JSON form → exact log bytes
    assert logjson.to_json(log) == v["json"]
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["private_key"]))
    assert public_key_raw(key.public_key()).hex() == v["public_key"]
    signed = log[:v["signed_bytes"]]
    assert key.sign(signed).hex() == v["signature"]  # Ed25519 is deterministic
    assert log[v["signed_bytes"]:] == bytes.fromhex("92 03 c4 40") + bytes.fromhex(
        v["signature"])
    verdict = verify_bytes(log, trust=Trust(public_key=bytes.fromhex(v["public_key"])))
    assert verdict.clean, [str(f) for f in verdict.findings]
    if path.stem == "log-abandoned":
        assert verdict.ending is not None and verdict.ending.startswith(
            "abandoned at hand 1, trick 2: seat")


def exported(data: bytes) -> dict:
    return json.loads(logjson.dumps(data))


def test_every_exported_log_is_valid_under_the_schema() -> None:
    logs = [p.read_bytes() for p in sorted((ROOT / "fixtures").glob("*/*.tlog"))]
    logs += [play_logged_match(r, seed=b"schema", seeded=s) for r in ("classic", "sahrat400")
             for s in (True, False)]
    whole = logs[-2]  # sahrat400, deals derived: a deal record of 6 bytes
    at = parse_log(whole).offsets[2] + 6 + 4 + 10  # its deal, its 4 bids, 10 cards
    cut = whole[:at] + b"\x95\x04"  # and a claims record cut short
    logs.append(cut)
    checked = 0
    for data in logs:
        try:
            doc = exported(data)
        except ValueError:  # an altered log the reader refuses has no JSON form
            continue
        VALIDATOR.validate(doc)
        checked += 1
    assert checked >= 80
    assert exported(cut)["cut_short_at"] == at
    assert exported(cut)["records"][-1]["closed"] is False
    assert len(exported(cut)["records"][-1]["plays"]) == 10


@pytest.mark.parametrize("change, where", [
    (lambda d: d.update(version=2), "version"),
    (lambda d: d["records"][1].update(plays=["1X"]), "plays"),
    (lambda d: d["records"][1].pop("totals"), "totals"),
    (lambda d: d["records"][1]["calls"].append({"seat": 4, "call": 2}), "seat"),
    (lambda d: d["records"][0]["rules"].pop("target"), "target"),
    (lambda d: d["records"][-2].update(abandoned={"cause": "boredom", "seat": 1,
                                                  "reason": ""}), "cause"),
])
def test_the_schema_refuses_what_the_form_does_not_allow(change, where: str) -> None:
    doc = exported(play_logged_match("eram41", seed=b"schema refusals"))
    VALIDATOR.validate(doc)
    change(doc)
    errors = list(VALIDATOR.iter_errors(doc))
    assert errors, where


def test_the_schema_names_every_rule_field() -> None:
    rules = logjson.schema()["$defs"]["header"]["properties"]["rules"]
    assert rules["required"] == list(RULE_FIELDS)
