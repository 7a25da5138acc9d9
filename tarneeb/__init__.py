"""tarneeb: verifiable deals and replay audits for the Tarneeb family of card games.

For a platform, the API is here, every name a server needs for a whole match
(``docs/PLATFORM.md`` walks through one, ``docs/API.md`` lists the names): the seeds
and their commitments (:func:`new_server_seed`, :func:`server_commitment`,
:func:`client_commitment`, :func:`verify_client_seed`, :class:`DealDeriver`), the
signing key, the pre-play receipt (:func:`make_receipt`, :func:`read_receipt`), the
rules (:func:`preset`, :func:`house_preset`, :class:`RuleSet`), card names
(:func:`card_name`), :class:`MatchRecorder`, which writes a match's signed log move by
move from plain values, with the :class:`Durability` the server chooses, and
:func:`verify_file` / :func:`verify_bytes`, which judge a log. This package's own
engine and computer players (:class:`MatchState`, :class:`BotPlayer`) are here too,
for a platform without an engine of its own or to stand in for one.

The rest of the library is in :mod:`tarneeb.audit` (seeds, commitments, deal
derivation, signatures, seasons, blind dealing), :mod:`tarneeb.replay` (rule sets,
the engine, the log format, the replayer) and :mod:`tarneeb.testing` (tools for other
engines' tests); the ``tarneeb`` command is :mod:`tarneeb.cli`.

Each name is loaded when first used, so ``import tarneeb`` costs nothing and a
server that only records loads no engine.

>>> import tarneeb
>>> tarneeb.__version__
'0.1.0'
>>> tarneeb.Durability.parse("group:5")
Durability(mode='group', interval_ms=5.0)
>>> tarneeb.card_name(34), tarneeb.parse_card("10♥")
('10♥', 34)
>>> tarneeb.house_preset("qahwa41", {"target": 61}).target
61
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # loaded when first used: ``import tarneeb.audit`` stays light
    from tarneeb.audit.derive import DealDeriver
    from tarneeb.audit.errors import AuditError, ClientCommitmentError, ServerCommitmentError
    from tarneeb.audit.receipt import Receipt
    from tarneeb.audit.seeds import (
        client_commitment,
        match_binding,
        new_client_seed,
        new_server_seed,
        server_commitment,
        verify_client_seed,
        verify_server_seed,
    )
    from tarneeb.audit.signing import (
        generate_private_key,
        key_id,
        load_private_key_file,
        load_public_key_file,
        private_key_pem,
        public_key_pem,
        public_key_raw,
    )
    from tarneeb.replay.log.writer import Durability
    from tarneeb.replay.rules.actions import BID_BASE, PASS, TRUMP_BASE
    from tarneeb.replay.rules.cards import card_name, deal_hands, parse_card
    from tarneeb.replay.rules.engine import MatchState, Phase
    from tarneeb.replay.rules.players import BotPlayer
    from tarneeb.replay.rules.ruleset import (
        RulesError,
        RuleSet,
        house_preset,
        load_rules_file,
        preset,
    )
    from tarneeb.replay.server.recorder import MatchRecorder, RecorderError
    from tarneeb.replay.verify.findings import Verdict
    from tarneeb.replay.verify.receipt import (
        ReceiptError,
        SignedReceipt,
        make_receipt,
        read_receipt,
    )
    from tarneeb.replay.verify.replayer import verify_bytes, verify_file
    from tarneeb.replay.verify.trust import Trust


def _lazy_exports(package: str, modules: Mapping[str, tuple[str, ...]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, which exports the names of each
    module of ``modules`` (a module name as ``importlib.import_module`` takes it, relative
    to ``package`` when it starts with a dot). A name is imported on first use and kept in
    the package's namespace (``tarneeb``, ``tarneeb.audit`` and ``tarneeb.testing`` use it,
    so that a verifier loads only the modules it uses).

    >>> import types, sys
    >>> demo = types.ModuleType("demo"); sys.modules["demo"] = demo
    >>> demo.__getattr__, demo.__dir__ = _lazy_exports("demo", {"json": ("dumps",)})
    >>> demo.dumps([1]), "dumps" in dir(demo)
    ('[1]', True)
    """
    where = {name: module for module, names in modules.items() for name in names}

    def getattr_(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def dir_() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return getattr_, dir_


_MODULES = {
    # seeds, commitments, the deals they give
    "tarneeb.audit.seeds": ("new_server_seed", "server_commitment", "verify_server_seed",
                            "new_client_seed", "client_commitment", "verify_client_seed",
                            "match_binding"),
    "tarneeb.audit.derive": ("DealDeriver",),
    "tarneeb.audit.errors": ("AuditError", "ClientCommitmentError", "ServerCommitmentError"),
    # the platform's signing key
    "tarneeb.audit.signing": ("generate_private_key", "public_key_raw", "key_id",
                              "private_key_pem", "public_key_pem", "load_private_key_file",
                              "load_public_key_file"),
    # the pre-play receipt
    "tarneeb.audit.receipt": ("Receipt",),
    "tarneeb.replay.verify.receipt": ("make_receipt", "read_receipt", "SignedReceipt",
                                      "ReceiptError"),
    # rules, cards
    "tarneeb.replay.rules.ruleset": ("RuleSet", "preset", "house_preset", "load_rules_file",
                             "RulesError"),
    "tarneeb.replay.rules.cards": ("card_name", "parse_card", "deal_hands"),
    # the log: written, judged
    "tarneeb.replay.server.recorder": ("MatchRecorder", "RecorderError"),
    "tarneeb.replay.log.writer": ("Durability",),
    "tarneeb.replay.verify.findings": ("Verdict",),
    "tarneeb.replay.verify.replayer": ("verify_bytes", "verify_file"),
    "tarneeb.replay.verify.trust": ("Trust",),
    # this package's engine and computer players
    "tarneeb.replay.rules.engine": ("MatchState", "Phase"),
    "tarneeb.replay.rules.actions": ("BID_BASE", "PASS", "TRUMP_BASE"),
    "tarneeb.replay.rules.players": ("BotPlayer",),
}


__getattr__, __dir__ = _lazy_exports(__name__, _MODULES)


__all__ = [
    "BID_BASE",
    "PASS",
    "TRUMP_BASE",
    "AuditError",
    "BotPlayer",
    "ClientCommitmentError",
    "DealDeriver",
    "Durability",
    "MatchRecorder",
    "MatchState",
    "Phase",
    "Receipt",
    "ReceiptError",
    "RecorderError",
    "RuleSet",
    "RulesError",
    "ServerCommitmentError",
    "SignedReceipt",
    "Trust",
    "Verdict",
    "__version__",
    "card_name",
    "client_commitment",
    "deal_hands",
    "generate_private_key",
    "house_preset",
    "key_id",
    "load_private_key_file",
    "load_public_key_file",
    "load_rules_file",
    "make_receipt",
    "match_binding",
    "new_client_seed",
    "new_server_seed",
    "parse_card",
    "preset",
    "private_key_pem",
    "public_key_pem",
    "public_key_raw",
    "read_receipt",
    "server_commitment",
    "verify_bytes",
    "verify_client_seed",
    "verify_file",
    "verify_server_seed",
]
