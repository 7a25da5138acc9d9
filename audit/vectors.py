"""Test vectors of the ``tarneeb-fair-v2`` protocol, and the script that writes them.

Every seed and key here is a TEST VECTOR: fixed, public, derived from a label
such as ``SHA-256("tarneeb-fair-v2 test vector: server seed 0")``. Never use
them for real play.

Regenerate the files (or check that the files on disk are what the code gives)::

    python -m tarneeb.audit.vectors fixtures/vectors
    python -m tarneeb.audit.vectors fixtures/vectors --check

>>> sorted(build_vectors())
['commitments.json', 'deals.json', 'merkle.json', 'signature.json']
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
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
from .receipt import Receipt
from .seeds import (
    Season,
    SeasonHead,
    SeasonLeaf,
    client_commitment,
    match_binding,
    server_commitment,
)
from .signing import (
    Ed25519PrivateKey,
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
    """Fixed bytes for a test vector: SHA-256 of ``"tarneeb-fair-v2 test vector: " + label``,
    repeated and cut to ``length``.

    >>> fixed_bytes("server seed 0").hex()[:8]
    '0e13b90a'
    """
    out = b""
    counter = 0
    while len(out) < length:
        suffix = "" if counter == 0 else f" #{counter}"
        out += hashlib.sha256(f"{PROTOCOL} test vector: {label}{suffix}".encode()).digest()
        counter += 1
    return out[:length]


SEASON_SIZE = 5  # the season of the 'season-leaf' deal vector: leaves 0-4 of merkle.json
SEASON_INDEX = 3


def season_seeds(n: int) -> list[bytes]:
    """The server seeds of the test season (the leaves of ``merkle.json``)."""
    return [fixed_bytes(f"season server seed {i}") for i in range(n)]


def test_season(size: int = SEASON_SIZE) -> Season:
    return Season.from_seeds(season_seeds(size))


# (name, description, server seed, season leaf or None, match id, client seeds, deal numbers)
_DealCase = tuple[str, str, bytes, "SeasonLeaf | None", bytes, list[bytes], list[int]]


def _deal_cases() -> list[_DealCase]:
    season = test_season()
    return [
        ("basic",
         "32-byte client seeds, an ASCII match id, the first four deals (the dealer moves "
         "right); the match committed alone",
         fixed_bytes("server seed 0"), None, b"test-vector-match-0",
         [fixed_bytes(f"client seed {s}") for s in range(4)], [0, 1, 2, 3]),
        ("seed-lengths",
         "client seeds of 16, 64, 17 and 40 bytes, a UTF-8 match id, the largest deal number",
         fixed_bytes("server seed 1"), None, "طاولة-٧ test vector".encode(),
         [fixed_bytes("client seed 16 bytes", 16), fixed_bytes("client seed 64 bytes", 64),
          b"seat #2: 17 bytes", fixed_bytes("client seed 40 bytes", 40)],
         [0, 1, 4294967295]),
        ("max-match-id",
         "a match id of 64 bytes (the longest allowed)",
         fixed_bytes("server seed 2"), None, b"M" * 64,
         [fixed_bytes(f"client seed 2.{s}") for s in range(4)], [5]),
        ("season-leaf",
         f"a match of a season: leaf {SEASON_INDEX} of the {SEASON_SIZE}-leaf tree of "
         "merkle.json, so the binding names the head and the leaf",
         season.seeds[SEASON_INDEX], season.leaf(SEASON_INDEX), b"test-vector-season-match-3",
         [fixed_bytes(f"client seed 3.{s}") for s in range(4)], [0, 1]),
        ("third-block",
         "a deal whose 51 draws need more than 64 bytes: the stream runs into block 2",
         fixed_bytes("server seed 0"), None, b"test-vector-match-0",
         [fixed_bytes(f"client seed {s}") for s in range(4)], [THIRD_BLOCK_DEAL]),
    ]


THIRD_BLOCK_DEAL = 64730  # the first deal number of 'basic' whose deck reads a third block


def _draw_row(d: Draw) -> list[Any]:
    return [d.offset, d.bound, d.value, d.index]


def _deal_vector(deriver: DealDeriver, deal_number: int, dealer: int) -> dict[str, Any]:
    server_seed = deriver.server_seed
    message = deal_message(deriver.match_id, deriver.client_seeds, deal_number, deriver.binding)
    stream = HmacStream(server_seed, message)
    trace: list[Draw] = []
    deck = shuffle(DECK_SIZE, stream, trace)
    deriver_deck = deriver.deck(deal_number)
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


def _first_dealer_vector(deriver: DealDeriver) -> dict[str, Any]:
    message = first_dealer_message(deriver.match_id, deriver.client_seeds, deriver.binding)
    stream = HmacStream(deriver.server_seed, message)
    trace: list[Draw] = []
    first = uniform_index(SEATS, stream, 1, trace)
    return {"message": message.hex(), "blocks": [b.hex() for b in stream.blocks],
            "draws": [_draw_row(d) for d in trace], "first_dealer": first}


def _leaf_fields(leaf: SeasonLeaf | None) -> dict[str, Any] | None:
    if leaf is None:
        return None
    return {"index": leaf.index, "size": leaf.size, "root": leaf.root.hex()}


def deal_vectors() -> dict[str, Any]:
    vectors: list[dict[str, Any]] = []
    for name, description, server_seed, leaf, match_id, seeds, numbers in _deal_cases():
        mid = check_match_id(match_id)
        deriver = DealDeriver(server_seed, mid, seeds, leaf)
        first = _first_dealer_vector(deriver)
        deals = [_deal_vector(deriver, k, (first["first_dealer"] + k) % SEATS) for k in numbers]
        commitment = server_commitment(server_seed)
        vectors.append({
            "name": name,
            "description": description,
            "server_seed": server_seed.hex(),
            "server_commitment": commitment.hex(),
            "season": _leaf_fields(leaf),
            "binding": deriver.binding.hex(),
            "match_id": mid.hex(),
            "match_id_text": mid.decode("utf-8", "replace"),
            "client_seeds": [s.hex() for s in seeds],
            "client_commitments": [client_commitment(mid, i, s, deriver.binding).hex()
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
        seeds = [bytes([s + 1]) * (s + 16) for s in range(4)]
        first_dealers.append({"server_seed": server_seed.hex(), "match_id": mid.hex(),
                              "client_seeds": [s.hex() for s in seeds],
                              **_first_dealer_vector(DealDeriver(server_seed, mid, seeds))})
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
    season = test_season()
    c0 = server_commitment(fixed_bytes("server seed 0"))
    alone = match_binding(c0)
    leaf = season.leaf(SEASON_INDEX)
    in_season = match_binding(season.commitments[SEASON_INDEX], leaf)
    bindings = [
        {"label": "a match committed alone", "server_commitment": c0.hex(), "season": None,
         "binding": alone.hex()},
        {"label": f"leaf {SEASON_INDEX} of the {SEASON_SIZE}-leaf season of merkle.json",
         "server_commitment": season.commitments[SEASON_INDEX].hex(),
         "season": _leaf_fields(leaf), "binding": in_season.hex()},
    ]
    # the same proof fits trees of 6, 7 and 8 leaves (RFC 9162); the binding does not
    for size in (6, 7, 8):
        other = SeasonLeaf(SEASON_INDEX, size, season.root)
        bindings.append({"label": f"the same root and leaf claimed in a tree of {size} leaves: "
                                  "another binding",
                         "server_commitment": season.commitments[SEASON_INDEX].hex(),
                         "season": _leaf_fields(other),
                         "binding": match_binding(season.commitments[SEASON_INDEX], other).hex()})
    client = []
    for mid, seat, seed, binding in (
            (b"test-vector-match-0", 0, fixed_bytes("client seed 0"), alone),
            (b"test-vector-match-0", 1, fixed_bytes("client seed 0"), alone),
            (b"test-vector-match-1", 0, fixed_bytes("client seed 0"), alone),
            (b"test-vector-match-0", 0, fixed_bytes("client seed 0"), in_season),
            (b"m", 3, fixed_bytes("client seed 16 bytes", 16), alone),
            (b"M" * 64, 2, fixed_bytes("client seed 64 bytes", 64), in_season)):
        client.append({"match_id": mid.hex(), "seat": seat, "client_seed": seed.hex(),
                       "binding": binding.hex(),
                       "commitment": client_commitment(mid, seat, seed, binding).hex()})
    return {"protocol": PROTOCOL, "warning": WARNING,
            "server": server, "bindings": bindings, "client": client}


def merkle_vectors() -> dict[str, Any]:
    n = max(MERKLE_SIZES)
    seeds = season_seeds(n)
    leaves = [server_commitment(s) for s in seeds]
    trees = []
    for size in MERKLE_SIZES:
        tree = MerkleTree(leaves[:size])
        trees.append({"size": size, "root": tree.root.hex(),
                      "head_message": SeasonHead(size, tree.root).message().hex(),
                      "proofs": [[p.hex() for p in tree.proof(i)] for i in range(size)]})
    return {
        "protocol": PROTOCOL,
        "warning": WARNING,
        "leaves_are": "server commitments of the seeds labelled 'season server seed i'",
        "server_seeds": [s.hex() for s in seeds],
        "leaves": [x.hex() for x in leaves],
        "leaf_hashes": [leaf_hash(x).hex() for x in leaves],
        "empty_root": MerkleTree([]).root.hex(),
        "trees": trees,
    }


def _receipt_vector(key: Ed25519PrivateKey) -> dict[str, Any]:
    """A signed receipt for the 'season-leaf' deal vector."""
    case = next(c for c in _deal_cases() if c[0] == "season-leaf")
    _, _, server_seed, leaf, mid, seeds, _ = case
    commitment = server_commitment(server_seed)
    binding = match_binding(commitment, leaf)
    receipt = Receipt(
        match_id=mid, rules=b"(the rules map's msgpack bytes, as in the log header)",
        seats=tuple(f"seat {s} label".encode() for s in range(4)),
        server_commitment=commitment, season=leaf,
        client_commitments=tuple(client_commitment(mid, s, seeds[s], binding)
                                 for s in range(4)))
    bound = replace(receipt, dealing="tarneeb-blind-v3")
    return {"match_id": mid.hex(), "rules": receipt.rules.hex(),
            "seats": [x.hex() for x in receipt.seats],
            "server_commitment": commitment.hex(), "season": _leaf_fields(leaf),
            "binding": binding.hex(),
            "client_commitments": [c.hex() for c in receipt.client_commitments],
            "message": receipt.message().hex(), "signature": receipt.sign(key).hex(),
            # the same terms promising a dealing protocol: lp16(dealing) ends the message (a
            # receipt without it, as above, is one made before receipts named it)
            "dealing": bound.dealing, "dealing_message": bound.message().hex(),
            "dealing_signature": bound.sign(key).hex()}


# the platform key of signature.json (a public TEST key: the season log vector signs with it)
PLATFORM_KEY = fixed_bytes("platform signing key")


def signature_vectors() -> dict[str, Any]:
    raw = PLATFORM_KEY
    key = private_key_from_raw(raw)
    pub = key.public_key()
    messages: Sequence[bytes] = (b"", b"tarneeb", bytes(range(256)))
    head = test_season().head
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
        "season_head": {"size": head.size, "root": head.root.hex(),
                        "message": head.message().hex(), "signature": head.sign(key).hex()},
        "receipt": _receipt_vector(key),
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


BLIND_MATCH_ID = b"blind-vector-match"


def blind_vectors() -> dict[str, Any]:
    """The blind-dealing vectors (``blind.json``) as plain JSON values (hex strings, lists).

    Everything is derived from fixed labels through
    :func:`tarneeb.audit.blind.fixed_rng`, so the file is reproducible; the values are NOT
    secret. Another implementation checks itself against: the 52 card points, one proof
    of equal discrete logarithms, and one whole deal (each seat's scalar, permutation and
    public key, the four passes, every partial decryption with its proof, each seat's
    hand), and the same deal's ``tarneeb-blind-v2`` proofs (the generators, each pass's
    shuffle proof, the twelve batched proofs, with their contexts). libsodium (rbcl) is
    loaded only here.
    """
    from .blind import (
        BLIND_PROTOCOL,
        GROUP,
        BlindSeat,
        card_points,
        deal_blind,
        dleq_context,
        fixed_rng,
        mul,
        mul_base,
        prove_dleq,
    )

    rng = fixed_rng(b"blind-vector-proof", 0)
    x = BlindSeat.new(0, BLIND_MATCH_ID, 0, rng=rng).scalar
    h = card_points()[7]
    ctx = dleq_context(BLIND_MATCH_ID, 5, "play", 2, 30)
    seats = [BlindSeat.new(s, BLIND_MATCH_ID, 3, rng=fixed_rng(b"blind-vector-deal", s))
             for s in range(4)]
    deal = deal_blind(seats, BLIND_MATCH_ID, 3, dealer=2)
    from .blind.proofs import (
        BLIND_PROTOCOL_V2,
        batch_context,
        deal_blind_v2,
        generators,
        shuffle_context,
    )
    again = [BlindSeat.new(s, BLIND_MATCH_ID, 3, rng=fixed_rng(b"blind-vector-deal", s))
             for s in range(4)]
    v2 = deal_blind_v2(again, BLIND_MATCH_ID, 3, dealer=2, version=2)
    assert v2.passes == deal.passes  # the same seats: the same passes and decryptions
    from .blind.argument import BLIND_PROTOCOL_V3, generator_bytes
    v3 = deal_blind_v2(again, BLIND_MATCH_ID, 3, dealer=2, version=3)
    gs, hs, q, h3 = generator_bytes()
    return {
        "protocol": BLIND_PROTOCOL,
        "group": GROUP,
        "card_points": [p.hex() for p in card_points()],
        "dleq": {
            "scalar": x.hex(), "h": h.hex(), "y": mul_base(x).hex(), "z": mul(x, h).hex(),
            "context": ctx.hex(), "proof": prove_dleq(x, h, ctx).hex(),
        },
        "deal": {
            "match_id": BLIND_MATCH_ID.decode(),
            "deal_number": deal.deal_number,
            "dealer": deal.dealer,
            "seats": [{
                "scalar": s.scalar.hex(), "permutation": list(s.permutation),
                "public": s.public.hex(),
                "hand": [s.learned[p] for p in sorted(s.learned)],
            } for s in seats],
            "passes": [[e.hex() for e in d] for d in deal.passes],
            "partials": [[{"seat": q.seat, "element": q.element.hex(), "proof": q.proof.hex()}
                          for q in chain] for chain in deal.partials],
        },
        "v2": {  # the same deal under tarneeb-blind-v2: the proofs of §13.6
            "protocol": BLIND_PROTOCOL_V2,
            "generators": [g.hex() for g in generators()],
            "shuffle_contexts": [shuffle_context(BLIND_MATCH_ID, 3, s).hex() for s in range(4)],
            "shuffle_proofs": [p.hex() for p in v2.shuffle_proofs or ()],
            "batch_contexts": [batch_context(BLIND_MATCH_ID, 3, k, r).hex()
                               for r in range(3) for k in range(4)],
            "batch_proofs": [p.hex() for p in v2.batch_proofs or ()],
        },
        "v3": {  # and under tarneeb-blind-v3: the compact shuffle arguments of §13.9
            "protocol": BLIND_PROTOCOL_V3,
            "generators": {"G": [g.hex() for g in gs], "H": [g.hex() for g in hs],
                           "Q": q.hex(), "h": h3.hex()},
            "shuffle_contexts": [shuffle_context(BLIND_MATCH_ID, 3, s).hex() for s in range(4)],
            "shuffle_arguments": [p.hex() for p in v3.shuffle_proofs or ()],
            "batch_proofs": [p.hex() for p in v3.batch_proofs or ()],
        },
    }


def render(files: dict[str, Any]) -> dict[str, str]:
    """The text of each vector file, by file name."""
    return {name: dumps(data) + "\n" for name, data in files.items()}


def render_vectors() -> dict[str, str]:
    """Every vector file's text, by file name (blind dealing's too)."""
    texts = render(build_vectors())
    texts["blind.json"] = json.dumps(blind_vectors(), indent=1) + "\n"
    return texts


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
    """``python -m tarneeb.audit.vectors DIRECTORY [--check]``: exit 0 written (or the
    same), 1 a file differs (``--check``), 2 a bad command line (``-h`` for help)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog=f"python -m {prog}", description="Write the test vectors into DIRECTORY, or "
        "check that the files there are what the code gives.")
    parser.add_argument("directory", metavar="DIRECTORY")
    parser.add_argument("--check", action="store_true",
                        help="compare instead of writing (exit 1 if a file differs)")
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as e:  # a bad command line (2), or --help (0)
        return int(e.code or 0)
    if args.check:
        bad = check_vectors(args.directory, texts)
        for name in bad:
            print(f"{args.directory}/{name}: differs from what the code gives", file=sys.stderr)
        return 1 if bad else 0
    for path in write_vectors(args.directory, texts):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
