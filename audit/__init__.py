"""Provably fair deals: commit-reveal seeds bound to what the server promised, HMAC
deal derivation, signed Merkle season heads, pre-play receipts and Ed25519 signatures
(protocol ``tarneeb-fair-v2``, see docs/PROTOCOL.md). It knows no rules: it hands
out deck orders and positions, and the rules layer makes hands and trumps of them.

>>> from tarneeb.audit import DealDeriver, server_commitment, verify_server_seed
>>> seed = bytes(32)                     # fixed seeds: examples only; use new_server_seed()
>>> verify_server_seed(seed, server_commitment(seed))
>>> deriver = DealDeriver(seed, "match-1", [bytes([s]) * 16 for s in range(4)])
>>> len(deriver.deck(0)), deriver.first_dealer() in range(4)
(52, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tarneeb import _lazy_exports

if TYPE_CHECKING:  # each name is loaded when first used: a verifier loads only what it needs
    from .derive import (
        DECK_SIZE,
        Deal,
        DealDeriver,
        Draw,
        HmacStream,
        accept_limit,
        deal_message,
        derive_deal,
        derive_deck,
        derive_first_dealer,
        draw_width,
        first_dealer_message,
        hmac_block,
        permutation,
        shuffle,
        uniform_index,
    )
    from .encoding import PROTOCOL, parse_hex
    from .errors import (
        AuditError,
        AuditInputError,
        ClientCommitmentError,
        CommitmentError,
        DealMismatchError,
        KeyFileError,
        MerkleProofError,
        ServerCommitmentError,
        SignatureError,
        WeakKeyError,
    )
    from .merkle import (
        MerkleTree,
        inclusion_proof,
        leaf_hash,
        merkle_root,
        node_hash,
        root_from_proof,
        verify_inclusion,
    )
    from .receipt import Receipt
    from .seeds import (
        Season,
        SeasonHead,
        SeasonLeaf,
        client_commitment,
        client_commitments,
        match_binding,
        new_client_seed,
        new_server_seed,
        server_commitment,
        verify_client_seed,
        verify_client_seeds,
        verify_server_seed,
    )
    from .signing import (
        check_public_key,
        generate_key_pair,
        generate_private_key,
        key_id,
        load_keys_file,
        load_private_key,
        load_private_key_file,
        load_public_key,
        load_public_key_file,
        parse_keys,
        private_key_from_raw,
        private_key_pem,
        public_key_from_raw,
        public_key_pem,
        public_key_raw,
        sign,
        verify,
        write_key_pair,
    )

_MODULES = {
    "derive": ("DECK_SIZE", "Deal", "DealDeriver", "Draw", "HmacStream", "accept_limit",
               "deal_message", "derive_deal", "derive_deck", "derive_first_dealer", "draw_width",
               "first_dealer_message", "hmac_block", "permutation", "shuffle", "uniform_index"),
    "encoding": ("PROTOCOL", "parse_hex"),
    "errors": ("AuditError", "AuditInputError", "ClientCommitmentError", "CommitmentError",
               "DealMismatchError", "KeyFileError", "MerkleProofError", "ServerCommitmentError",
               "SignatureError", "WeakKeyError"),
    "merkle": ("MerkleTree", "inclusion_proof", "leaf_hash", "merkle_root", "node_hash",
               "root_from_proof", "verify_inclusion"),
    "receipt": ("Receipt",),
    "seeds": ("Season", "SeasonHead", "SeasonLeaf", "client_commitment", "client_commitments",
              "match_binding", "new_client_seed", "new_server_seed", "server_commitment",
              "verify_client_seed", "verify_client_seeds", "verify_server_seed"),
    "signing": ("check_public_key", "generate_key_pair", "generate_private_key", "key_id",
                "load_keys_file", "load_private_key", "load_private_key_file", "load_public_key",
                "load_public_key_file", "parse_keys", "private_key_from_raw", "private_key_pem",
                "public_key_from_raw", "public_key_pem", "public_key_raw", "sign", "verify",
                "write_key_pair"),
}


__getattr__, __dir__ = _lazy_exports(
    __name__, {f".{module}": names for module, names in _MODULES.items()})


def verify_season_seed(server_seed: bytes, leaf: SeasonLeaf, proof: list[bytes]) -> None:
    """Check a revealed server seed against a season head: its commitment must be leaf
    ``leaf.index`` of the tree of ``leaf.size`` leaves with root ``leaf.root``."""
    from .seeds import server_commitment

    leaf.verify(server_commitment(server_seed), proof)


__all__ = [
    "DECK_SIZE", "PROTOCOL", "AuditError", "AuditInputError", "ClientCommitmentError",
    "CommitmentError", "Deal", "DealDeriver", "DealMismatchError", "Draw", "HmacStream",
    "KeyFileError", "MerkleProofError", "MerkleTree", "Receipt", "Season", "SeasonHead",
    "SeasonLeaf", "ServerCommitmentError",
    "SignatureError", "WeakKeyError", "accept_limit", "check_public_key", "client_commitment",
    "client_commitments",
    "deal_message", "derive_deal", "derive_deck", "derive_first_dealer", "draw_width",
    "first_dealer_message", "generate_key_pair", "generate_private_key", "hmac_block",
    "inclusion_proof", "key_id",
    "leaf_hash", "load_keys_file", "load_private_key", "load_private_key_file", "load_public_key",
    "load_public_key_file", "match_binding", "merkle_root", "new_client_seed",
    "new_server_seed", "node_hash",
    "parse_hex", "parse_keys", "permutation", "private_key_from_raw", "private_key_pem",
    "public_key_from_raw", "public_key_pem", "public_key_raw", "root_from_proof",
    "server_commitment", "shuffle", "sign", "uniform_index", "verify", "verify_client_seed",
    "verify_client_seeds", "verify_inclusion", "verify_season_seed", "verify_server_seed",
    "write_key_pair",
]
