"""The js package checks ``tarneeb-blind-v3``'s shuffle argument as ``audit/blind/argument.py``
does: honest arguments of 52, 5, 8 and 64 cards made by the reference prover accepted, and of
the wrong ones (an output replaced, two swapped, another context, key or secret scalar, a byte
changed anywhere, a scalar not reduced, the identity or a non-element in the statement, a proof
of another length) exactly those the reference accepts; the argument's generators are the
reference's; a pass's proof in its two bins is checked by its version's verifier
(``tests/node/shuffle_argument.mjs`` drives the js side); and a match dealt blind with each
pass proven by a v3 argument, written by the js recorder, gets from the js verifier the
verdict its v2 log gets (clean, a deal stopped at a seat), a wrong argument named on its seat,
and a blind record mixing v2 and v3 passes is refused."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from js_build import built

from tarneeb.audit.blind import L, card_points
from tarneeb.audit.blind import group as _group
from tarneeb.audit.blind.argument import (
    argument_len,
    generator_bytes,
    prove_shuffle,
    shape,
    verify_shuffle,
)
from tarneeb.audit.blind.proofs import shuffle_context
from tarneeb.audit.signing import private_key_pem
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.server.blind import play_blind
from tarneeb.replay.server.simulate import MatchSecrets

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "node" / "shuffle_argument.mjs"
RECORDER = ROOT / "tests" / "node" / "record_match.mjs"
CLI = ROOT / "js" / "dist" / "src" / "cli.js"
CTX = shuffle_context(b"v3 argument", 7, 2)
SEED = b"v3 log"
KEY = private_key_pem(MatchSecrets(SEED).key)
Secrets = dict[int, tuple[list[bytes], list[bytes]]]
"""Each deal's seats' scalars and permutations, by deal number."""


def _enc_mul(s: int, p: bytes) -> bytes:
    return _group.encode(_group.mul(s, _group.decode(p)))


group = SimpleNamespace(  # the group's operations on encodings, as a log holds elements
    from_hash=lambda h: _group.encode(_group.from_hash(h)), mul=_enc_mul,
    mul_base=lambda s: _group.encode(_group.mul_base(s)), identity=lambda: bytes(32))


@pytest.fixture(scope="module")
def node() -> str:
    return built("shuffleargument.js")


class Case:
    """One statement and proof, and whether the reference verifier accepts it."""

    def __init__(self, name: str, y: bytes, deck_in: list[bytes], deck_out: list[bytes],
                 proof: bytes, ctx: bytes = CTX) -> None:
        self.name, self.y, self.deck_in, self.deck_out, self.proof, self.ctx = \
            name, y, deck_in, deck_out, proof, ctx
        self.python = verify_shuffle(y, deck_in, deck_out, proof, ctx)

    def json(self) -> dict[str, object]:
        return {"y": self.y.hex(), "in": [p.hex() for p in self.deck_in],
                "out": [p.hex() for p in self.deck_out], "proof": self.proof.hex(),
                "ctx": self.ctx.hex()}


def _scalar(label: bytes) -> int:
    return int.from_bytes(hashlib.sha512(label).digest(), "little") % L


def _deck(n: int) -> list[bytes]:
    if n == 52:
        return list(card_points())
    return [group.from_hash(hashlib.sha512(b"v3 deck" + bytes([n, i])).digest()) for i in range(n)]


def _changed(proof: bytes, at: int, xor: int) -> bytes:
    return proof[:at] + bytes([proof[at] ^ xor]) + proof[at + 1:]


def _cases() -> tuple[list[Case], list[Case]]:
    """The honest cases, and the wrong ones."""
    rng = random.Random(b"v3 argument")
    honest: list[Case] = []
    wrong: list[Case] = []
    for n in (52, 5, 8, 64):
        x = _scalar(b"x" + bytes([n]))
        perm = rng.sample(range(n), n)
        deck_in = _deck(n)
        deck_out = [group.mul(x, deck_in[i]) for i in perm]
        y = group.mul_base(x)
        proof = prove_shuffle(x.to_bytes(32, "little"), perm, deck_in, deck_out, CTX)
        assert len(proof) == argument_len(n)
        honest.append(Case(f"{n} cards", y, deck_in, deck_out, proof))
        if n not in (52, 5):
            continue
        other = group.from_hash(hashlib.sha512(b"another card").digest())

        def bad(name: str, *, y_: bytes = y, out: list[bytes] = deck_out, p: bytes = proof,
                n_: int = n, deck: list[bytes] = deck_in) -> None:
            wrong.append(Case(f"{n_} cards: {name}", y_, deck, out, p))

        bad("an output replaced", out=[*deck_out[:3], group.mul(x, other), *deck_out[4:]])
        bad("two outputs swapped", out=[deck_out[1], deck_out[0], *deck_out[2:]])
        bad("a proof for another context",
            p=prove_shuffle(x.to_bytes(32, "little"), perm, deck_in, deck_out,
                            shuffle_context(b"v3 argument", 7, 3)))
        x2 = _scalar(b"another x")
        bad("a proof made with another scalar",
            p=prove_shuffle(x2.to_bytes(32, "little"), perm, deck_in, deck_out, CTX))
        bad("another key", y_=group.mul_base(x2))
        for at in rng.sample(range(len(proof)), 12):
            bad(f"byte {at} changed", p=_changed(proof, at, rng.randrange(1, 256)))
        at = 32 * shape(n)[2]  # t̂, the first scalar
        first = int.from_bytes(proof[at:at + 32], "little") + L  # t̂ + L: the same value mod L
        bad("a scalar not reduced", p=proof[:at] + first.to_bytes(32, "little") + proof[at + 32:])
        bad("an element the identity", p=bytes(32) + proof[32:])
        bad("an element that does not decode", p=b"\xff" * 32 + proof[32:])
        bad("a proof a scalar short", p=proof[:-32])
        bad("a proof a scalar long", p=proof + proof[-32:])
        bad("the identity as the key", y_=group.identity())
        bad("a key that does not decode", y_=b"\xff" * 32)
        bad("the identity in the deck", deck=[group.identity(), *deck_in[1:]])
        bad("one card", deck=deck_in[:1], out=deck_out[:1], n_=1)
        # statements the argument holds for, refused for the identity in them: the zero
        # scalar (its key and every output the identity), and a deck holding the identity
        zeros = [group.identity()] * n
        bad("the zero scalar", y_=group.identity(), out=zeros,
            p=prove_shuffle(bytes(32), perm, deck_in, zeros, CTX))
        with_id = [group.identity(), *deck_in[1:]]
        out_id = [group.mul(x, with_id[i]) for i in perm]
        bad("an honest pass of a deck holding the identity", deck=with_id, out=out_id,
            p=prove_shuffle(x.to_bytes(32, "little"), perm, with_id, out_id, CTX))
    too_many = [*_deck(64), group.from_hash(hashlib.sha512(b"65th").digest())]
    wrong.append(Case("65 cards", honest[-1].y, too_many, [*honest[-1].deck_out, too_many[0]],
                      honest[-1].proof))
    return honest, wrong


@pytest.fixture(scope="module")
def checked(node: str) -> tuple[list[Case], list[Case], dict[str, object]]:
    honest, wrong = _cases()
    out = subprocess.run([node, str(SCRIPT)], capture_output=True, text=True, check=True,
                         input=json.dumps({"cases": [c.json() for c in honest + wrong]}))
    return honest, wrong, json.loads(out.stdout)


def test_js_accepts_exactly_what_python_accepts(
        checked: tuple[list[Case], list[Case], dict[str, object]]) -> None:
    honest, wrong, js = checked
    cases = honest + wrong
    assert all(c.python for c in honest)
    assert not any(c.python for c in wrong), [c.name for c in wrong if c.python]
    verdicts = {c.name: (c.python, a) for c, a in zip(cases, js["accepted"], strict=True)}  # type: ignore[call-overload]
    assert {k: v for k, v in verdicts.items() if v[0] != v[1]} == {}
    assert len(wrong) > 40


def test_a_pass_in_its_two_bins_is_checked_by_the_v3_argument(
        checked: tuple[list[Case], list[Case], dict[str, object]]) -> None:
    """verifyPass (what the log's transcript check calls) on the elements' and the scalars'
    bins gives the argument's verdict; a proof of another length fails."""
    honest, wrong, js = checked
    for c, accepted, passed in zip(honest + wrong, js["accepted"], js["passes"], strict=True):  # type: ignore[call-overload]
        assert passed == (accepted and len(c.proof) == argument_len(len(c.deck_in))), c.name
    assert all(js["passes"][:len(honest)])  # type: ignore[index]


def test_the_generators_are_the_reference_ones(
        checked: tuple[list[Case], list[Case], dict[str, object]]) -> None:
    gs, hs, q, h = generator_bytes()
    assert checked[2]["generators"] == {"G": [g.hex() for g in gs], "H": [g.hex() for g in hs],
                                        "Q": q.hex(), "h": h.hex()}


def _as_v3(doc: dict[str, Any], secrets: Secrets, context: Any = shuffle_context) -> None:
    """Each pass of each blind record of ``doc`` proven by a v3 argument, in its two bins."""
    match_id = bytes.fromhex(doc["records"][0]["match_id"])
    for r in doc["records"]:
        if r.get("blind") is None:
            continue
        n, b = r["deal_number"], r["blind"]
        scalars, perms = secrets[n]
        deck, halves = list(card_points()), []
        for s, raw in enumerate(b["passes"]):
            out = [bytes.fromhex(raw[i:i + 64]) for i in range(0, len(raw), 64)]
            proof = prove_shuffle(scalars[s], list(perms[s]), deck, out, context(match_id, n, s))
            halves += [proof[:704].hex(), proof[704:].hex()]
            deck = out
        b["shuffle_proofs"] = halves


def _verdicts(node: str, *paths: Path) -> list[dict[str, Any]]:
    """The js verifier's verdict of each log, from one run over them all."""
    out = subprocess.run([node, str(CLI), "verify", "--json", *map(str, paths)],
                         capture_output=True, text=True, check=False, cwd=ROOT)
    assert out.stdout.strip(), out.stderr
    vs: list[dict[str, Any]] = json.loads(out.stdout)
    assert [v["path"] for v in vs] == [str(p) for p in paths]
    return [{k: v[k] for k in ("verdict", "error", "hands", "deals_proven", "findings",
                               "ending")} for v in vs]


def _record(node: str, tmp: Path, doc: dict[str, Any], key: bytes,
            name: str = "v3.tlog") -> subprocess.CompletedProcess[str]:
    """``doc`` written by the js recorder to ``tmp / name``."""
    (tmp / "match.json").write_text(json.dumps(doc), encoding="utf-8")
    (tmp / "key.pem").write_bytes(key)
    return subprocess.run([node, str(RECORDER), "replay", str(tmp / "match.json"),
                           str(tmp / name), str(tmp / "key.pem"), "flush"],
                          capture_output=True, text=True, timeout=300, check=False)


def _secrets(stall: tuple[int, int] | None) -> tuple[bytes, Secrets]:
    """A short match dealt blind (under v2) and its seats' scalars and permutations, by deal
    (stopped at the seat of ``stall``'s step in its deal: that deal's seats too)."""
    log, table = play_blind("qahwa41", seed=SEED, target=5, stall=stall, version=2)
    secrets = {k.deal_number: (list(k.scalars), list(k.permutations)) for k in table.keys}
    if stall is not None:
        secrets[stall[0]] = ([s.scalar for s in table.seats],
                             [bytes(s.permutation) for s in table.seats])
    return log, secrets


@pytest.mark.parametrize("stall", [None, (1, 2), (1, 6)],
                         ids=["whole", "stopped-after-two-passes", "stopped-in-round-1"])
def test_a_match_dealt_under_v3_gets_its_v2_verdict(node: str, tmp_path: Path,
                                                    stall: tuple[int, int] | None) -> None:
    """The same match, each pass proven by v3's argument instead of v2's proof: the js
    verifier judges both logs the same (clean; a deal stopped at a seat, §13.8, abandoned
    there), and the v3 log is about half the bytes; seat 1's argument in the last deal made
    for another deal is named, on that seat, as a pass not proven."""
    log, secrets = _secrets(stall)
    doc = logjson.to_json(log)
    _as_v3(doc, secrets)
    done = _record(node, tmp_path, doc, KEY)
    assert done.returncode == 0, done.stderr
    v3 = tmp_path / "v3.tlog"
    (tmp_path / "v2.tlog").write_bytes(log)
    assert v3.stat().st_size < 0.6 * len(log)
    last = max(secrets)
    doc = logjson.to_json(log)
    _as_v3(doc, secrets, lambda m, n, s: shuffle_context(m, n + (n == last and s == 1), s))
    assert _record(node, tmp_path, doc, KEY, "wrong.tlog").returncode == 0
    mine, theirs, wrong = _verdicts(node, v3, tmp_path / "v2.tlog", tmp_path / "wrong.tlog")
    assert mine == theirs
    assert mine["verdict"] == "clean" and mine["deals_proven"]
    if stall is not None:
        assert f"in its blind deal, waiting for seat {stall[1] % 4}" in mine["ending"]
    assert [(f["kind"], f["hand"], f["seat"]) for f in wrong["findings"]] == [
        ("wrong-shuffle", last, 1)], wrong["findings"]


def test_a_record_mixing_v2_and_v3_passes_is_refused(node: str, tmp_path: Path) -> None:
    """The first pass proven under v3, the others under v2: the recorder refuses the blind
    record as the reader would."""
    log, secrets = _secrets(None)
    doc = logjson.to_json(log)
    v2_halves = list(doc["records"][1]["blind"]["shuffle_proofs"])
    _as_v3(doc, secrets)
    blind = doc["records"][1]["blind"]
    blind["shuffle_proofs"] = blind["shuffle_proofs"][:2] + v2_halves[2:]
    done = _record(node, tmp_path, doc, KEY)
    assert done.returncode != 0
    assert "blind: v3 shuffle proofs' elements must be 4 byte strings of 704 bytes" in done.stderr
