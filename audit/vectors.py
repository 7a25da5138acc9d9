"""Test vectors of the ``tarneeb-fair-v1`` protocol, and the script that writes them.

Every seed and key here is a TEST VECTOR: fixed, public, derived from a label
such as ``SHA-256("tarneeb-fair-v1 test vector: server seed 0")``. Never use
them for real play.

Regenerate the files (or check that the files on disk are what the code gives)::

    python -m tarneeb.audit.vectors fixtures/vectors
    python -m tarneeb.audit.vectors fixtures/vectors --check

>>> data = build_vectors()
>>> sorted(data)
['commitments.json', 'deals.json', 'merkle.json', 'signature.json']
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .derive import (
    DECK_SIZE,
    SEATS,
    Deal,
    DealDeriver,
    Draw,
    HmacStream,
    accept_limit,
    deal_message,
    first_dealer_message,
    shuffle,
    uniform_index,
)
from .encoding import PROTOCOL, check_match_id
from .merkle import MerkleTree, leaf_hash
from .seeds import client_commitment, server_commitment
from .signing import (
    key_id,
    private_key_from_raw,
    private_key_pem,
    public_key_pem,
    public_key_raw,
    sign,
)

WARNING = ("TEST VECTORS: every seed and key in this file is public and fixed; "
           "never use them for real play")
CARD_NUMBERING = ("card = 13 * suit + rank; suits C=0 D=1 H=2 S=3; ranks 2=0 3=1 ... "
                  "10=8 J=9 Q=10 K=11 A=12")
MERKLE_SIZES = (1, 2, 3, 4, 5, 6, 7, 8, 13, 16, 17)


def fixed_bytes(label: str, length: int = 32) -> bytes:
    """Fixed bytes for a test vector: SHA-256 of ``"tarneeb-fair-v1 test vector: " + label``,
    repeated and cut to ``length``.

    >>> fixed_bytes("server seed 0").hex()[:8]
    '2829ea4e'
    """
    out = b""
    counter = 0
    while len(out) < length:
        suffix = "" if counter == 0 else f" #{counter}"
        out += hashlib.sha256(f"{PROTOCOL} test vector: {label}{suffix}".encode()).digest()
        counter += 1
    return out[:length]


# (name, description, server seed label, match id, client seeds, deal numbers)
_DEAL_CASES: list[tuple[str, str, str, bytes, list[bytes], list[int]]] = [
    ("basic",
     "32-byte client seeds, an ASCII match id, the first four deals (the dealer moves right)",
     "server seed 0", b"test-vector-match-0",
     [fixed_bytes(f"client seed {s}") for s in range(4)], [0, 1, 2, 3]),
    ("seed-lengths",
     "client seeds of 1, 64, 7 and 2 bytes, a UTF-8 match id, the largest deal number",
     "server seed 1", "طاولة-٧ test vector".encode(),
     [b"\x00", fixed_bytes("client seed 64 bytes", 64), b"seat #2", b"\xff\xfe"],
     [0, 1, 4294967295]),
    ("max-match-id",
     "a match id of 64 bytes (the longest allowed)",
     "server seed 2", b"M" * 64,
     [fixed_bytes(f"client seed 2.{s}") for s in range(4)], [5]),
    ("third-block",
     "a deal whose 51 draws need 65 bytes (14 rejections): the stream runs into block 2",
     "server seed 0", b"test-vector-match-0",
     [fixed_bytes(f"client seed {s}") for s in range(4)], [273435]),
]


def _draw_row(d: Draw) -> list[Any]:
    return [d.offset, d.bound, d.value, d.index]


def _deal_vector(server_seed: bytes, match_id: bytes, seeds: list[bytes], deal_number: int,
                 dealer: int) -> dict[str, Any]:
    message = deal_message(match_id, seeds, deal_number)
    stream = HmacStream(server_seed, message)
    trace: list[Draw] = []
    deck = shuffle(DECK_SIZE, stream, trace)
    deriver_deck = DealDeriver(server_seed, match_id, seeds).deck(deal_number)
    if deck != deriver_deck:  # pragma: no cover - the two paths must agree
        raise AssertionError(f"fast and reference derivations differ for deal {deal_number}")
    deal = Deal.from_deck(deck, dealer, deal_number)
    return {
        "deal_number": deal_number,
        "dealer": dealer,
        "message": message.hex(),
        "blocks": [b.hex() for b in stream.blocks],
        "bytes_used": stream.offset,
        "draws_columns": ["offset", "bound", "value", "index (null: rejected)"],
        "draws": [_draw_row(d) for d in trace],
        "rejected": [{"offset": d.offset, "bound": d.bound, "value": d.value,
                      "limit": accept_limit(d.bound, 1)} for d in trace if not d.accepted],
        "deck": deck,
        "cards_by_seat": [sorted(deal.cards(seat)) for seat in range(SEATS)],
        "thirteenth": deal.thirteenth,
    }


def _first_dealer_vector(server_seed: bytes, match_id: bytes,
                         seeds: list[bytes]) -> dict[str, Any]:
    message = first_dealer_message(match_id, seeds)
    stream = HmacStream(server_seed, message)
    trace: list[Draw] = []
    first = uniform_index(SEATS, stream, 1, trace)
    return {"message": message.hex(), "blocks": [b.hex() for b in stream.blocks],
            "draws": [_draw_row(d) for d in trace], "first_dealer": first}


def deal_vectors() -> dict[str, Any]:
    vectors = []
    for name, description, seed_label, match_id, seeds, numbers in _DEAL_CASES:
        server_seed = fixed_bytes(seed_label)
        mid = check_match_id(match_id)
        first = _first_dealer_vector(server_seed, mid, seeds)
        deals = [_deal_vector(server_seed, mid, seeds, k, (first["first_dealer"] + k) % SEATS)
                 for k in numbers]
        vectors.append({
            "name": name,
            "description": description,
            "server_seed": server_seed.hex(),
            "server_seed_label": f"{PROTOCOL} test vector: {seed_label}",
            "server_commitment": server_commitment(server_seed).hex(),
            "match_id": mid.hex(),
            "match_id_text": mid.decode("utf-8", "replace"),
            "client_seeds": [s.hex() for s in seeds],
            "client_commitments": [client_commitment(mid, i, s).hex()
                                   for i, s in enumerate(seeds)],
            "first_dealer": first,
            "deals": deals,
        })
    if not any(d["rejected"] for v in vectors for d in v["deals"]):  # pragma: no cover
        raise AssertionError("no deal vector exercises a rejected draw")
    third = next(v for v in vectors if v["name"] == "third-block")["deals"][0]
    if len(third["blocks"]) != 3:  # pragma: no cover
        raise AssertionError("the third-block vector no longer needs three blocks")
    # Many matches' first dealers, so that all four values appear.
    first_dealers = []
    for i in range(8):
        server_seed = fixed_bytes(f"first dealer server seed {i}")
        mid = f"first-dealer-{i}".encode()
        seeds = [bytes([s + 1]) * (s + 1) for s in range(4)]
        first_dealers.append({"server_seed": server_seed.hex(), "match_id": mid.hex(),
                              "client_seeds": [s.hex() for s in seeds],
                              **_first_dealer_vector(server_seed, mid, seeds)})
    return {
        "protocol": PROTOCOL,
        "warning": WARNING,
        "card_numbering": CARD_NUMBERING,
        "vectors": vectors,
        "first_dealers": first_dealers,
    }


def commitment_vectors() -> dict[str, Any]:
    server = []
    for label, seed in (("all zero bytes", bytes(32)), ("bytes 0..31", bytes(range(32))),
                        ("server seed 0", fixed_bytes("server seed 0"))):
        server.append({"label": label, "server_seed": seed.hex(),
                       "commitment": server_commitment(seed).hex()})
    client = []
    for mid, seat, seed in ((b"test-vector-match-0", 0, fixed_bytes("client seed 0")),
                            (b"test-vector-match-0", 1, fixed_bytes("client seed 0")),
                            (b"test-vector-match-1", 0, fixed_bytes("client seed 0")),
                            (b"m", 3, b"\x00"),
                            (b"M" * 64, 2, fixed_bytes("client seed 64 bytes", 64))):
        client.append({"match_id": mid.hex(), "seat": seat, "client_seed": seed.hex(),
                       "commitment": client_commitment(mid, seat, seed).hex()})
    return {"protocol": PROTOCOL, "warning": WARNING,
            "server": server, "client": client}


def merkle_vectors() -> dict[str, Any]:
    n = max(MERKLE_SIZES)
    leaves = [server_commitment(fixed_bytes(f"season server seed {i}")) for i in range(n)]
    trees = []
    for size in MERKLE_SIZES:
        tree = MerkleTree(leaves[:size])
        trees.append({"size": size, "root": tree.root.hex(),
                      "proofs": [[p.hex() for p in tree.proof(i)] for i in range(size)]})
    return {
        "protocol": PROTOCOL,
        "warning": WARNING,
        "leaves_are": "server commitments of the seeds labelled 'season server seed i'",
        "server_seeds": [fixed_bytes(f"season server seed {i}").hex() for i in range(n)],
        "leaves": [x.hex() for x in leaves],
        "leaf_hashes": [leaf_hash(x).hex() for x in leaves],
        "empty_root": MerkleTree([]).root.hex(),
        "trees": trees,
    }


def signature_vectors() -> dict[str, Any]:
    raw = fixed_bytes("platform signing key")
    key = private_key_from_raw(raw)
    pub = key.public_key()
    messages: Sequence[bytes] = (b"", b"tarneeb", bytes(range(256)))
    return {
        "protocol": PROTOCOL,
        "warning": WARNING,
        "algorithm": "Ed25519 (RFC 8032)",
        "private_key_raw": raw.hex(),
        "private_key_pem": private_key_pem(key).decode("ascii"),
        "public_key_raw": public_key_raw(pub).hex(),
        "public_key_pem": public_key_pem(pub).decode("ascii"),
        "key_id": key_id(pub),
        "signatures": [{"message": m.hex(), "signature": sign(key, m).hex()} for m in messages],
    }


def build_vectors() -> dict[str, Any]:
    """Every vector file, by file name."""
    return {
        "commitments.json": commitment_vectors(),
        "deals.json": deal_vectors(),
        "merkle.json": merkle_vectors(),
        "signature.json": signature_vectors(),
    }


def _is_flat(x: Any) -> bool:
    return isinstance(x, list) and all(not isinstance(v, list | dict) for v in x)


def dumps(obj: Any, indent: int = 0) -> str:
    """JSON with short lists (of numbers or strings) kept on one line."""
    pad = "  " * (indent + 1)
    end = "  " * indent
    if isinstance(obj, dict) and obj and len(obj) <= 5 and all(
            isinstance(v, int | None) for v in obj.values()):
        return json.dumps(obj, ensure_ascii=False)
    if isinstance(obj, dict) and obj:
        items = [f"{pad}{json.dumps(k)}: {dumps(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if isinstance(obj, list) and obj and not (_is_flat(obj) and len(obj) <= 64
                                              and all(not isinstance(v, str) or len(v) <= 8
                                                      for v in obj)):
        items = [f"{pad}{dumps(v, indent + 1)}" for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + end + "]"
    return json.dumps(obj, ensure_ascii=False)


def render(files: dict[str, Any]) -> dict[str, str]:
    """The text of each vector file, by file name."""
    return {name: dumps(data) + "\n" for name, data in files.items()}


def render_vectors() -> dict[str, str]:
    """Every vector file's text, by file name."""
    return render(build_vectors())


def write_vectors(directory: str | Path, texts: dict[str, str] | None = None) -> list[Path]:
    """Write the vector files (``texts``, by default this module's) into ``directory``."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (render_vectors() if texts is None else texts).items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def check_vectors(directory: str | Path, texts: dict[str, str] | None = None) -> list[str]:
    """The names of the vector files in ``directory`` that differ from what the code gives."""
    out = Path(directory)
    bad = []
    for name, text in (render_vectors() if texts is None else texts).items():
        path = out / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            bad.append(name)
    return bad


def main(argv: list[str] | None = None, texts: dict[str, str] | None = None,
         prog: str = "tarneeb.audit.vectors") -> int:
    """``python -m tarneeb.audit.vectors DIRECTORY [--check]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if len(args) != 1:
        print(f"usage: python -m {prog} DIRECTORY [--check]", file=sys.stderr)
        return 2
    if check:
        bad = check_vectors(args[0], texts)
        for name in bad:
            print(f"{args[0]}/{name}: differs from what the code gives", file=sys.stderr)
        return 1 if bad else 0
    for path in write_vectors(args[0], texts):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
