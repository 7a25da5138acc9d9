"""Where a log comes from: who signed it, which seeds and season it names, which rules.

The checks of a log that come before any card is replayed: the signature and the
key that made it (pinned or not), the header's one byte form, the server seed
against its commitment and season head, each client seed against its commitment,
the rules against the preset or shipped variant they name; and which deal each
dealing attempt is replayed from (:func:`log_deriver`, :func:`deal_of`).
:mod:`tarneeb.replay.verify.replayer` calls them and replays the hands.
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Iterable, Mapping

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tarneeb.audit.derive import DealDeriver
from tarneeb.audit.errors import AuditError
from tarneeb.audit.seeds import (
    SeasonLeaf,
    client_commitments,
    match_binding,
    verify_server_seed,
)
from tarneeb.audit.signing import key_id, public_key_from_raw, verify
from tarneeb.replay.log.records import (
    EndRecord,
    HandRecord,
    Header,
    ParsedLog,
    SignatureRecord,
    encode_record,
)
from tarneeb.replay.rules.ruleset import PRESETS, RuleSet, preset_departures
from tarneeb.replay.verify.findings import Verdict

# the note on a log with committed seeds verified without a seat's receipt: a command that
# verifies many logs says it once for all of them
NO_RECEIPT_NOTE = ("not compared with a seat's pre-play receipt (--receipt): that the log is "
                   "the match promised before play rests on the platform's word")

def note_rules(rules: RuleSet, v: Verdict) -> None:
    """A preset's name on rules it does not offer is a finding; otherwise say, in words,
    where the rules differ from the preset (or shipped variant) of their name, or from the
    nearest preset: "values a 10 at 30 (sahrat400: 40)"."""
    base = PRESETS.get(rules.name)
    if base is not None and base != rules:
        departures = preset_departures(rules)
        if departures:  # a log that says eram41 must be a game ERAM CARDS offers
            mine = rules.to_dict(every=True)
            changed = [k for k, x in base.to_dict(every=True).items() if mine[k] != x]
            shown = ", ".join(f"{k}={mine[k]}" for k in changed)
            v.add("wrong-rules", f"the rules bear the name {rules.name}, but "
                  f"{rules.name} has another {', '.join(departures)} and offers no house "
                  f"option there ({shown}): these rules are not {rules.name}", offset=0)
            return
    v.notes.extend(rules_notes(rules))


@functools.lru_cache(maxsize=64)
def rules_notes(rules: RuleSet) -> tuple[str, ...]:
    """The verdict's notes on ``rules`` (none for a preset or shipped variant as it stands).

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> rules_notes(preset("qahwa41", target=61))
    ('rules qahwa41 with house options: plays to 61 (qahwa41: 41)',)
    """
    if rules == PRESETS.get(rules.name):
        return ()
    from tarneeb.replay.rules.house import explain, nearest_preset, shipped

    if rules.name in PRESETS:
        return (f"rules {rules.name} with house options: "
                + "; ".join(explain(rules, PRESETS[rules.name])),)
    variants = shipped()
    if rules.name in variants:
        if rules == variants[rules.name]:
            return ()
        return (f"house rules {rules.name!r} differ from the {rules.name} shipped with "
                "tarneeb: " + "; ".join(explain(rules, variants[rules.name])),)
    nearest = nearest_preset(rules)
    said = "; ".join(explain(rules, nearest)) or "none"
    other = _looks_like(rules.name, variants)
    alike = "" if other is None else f" (a name that looks like {other}'s, which they are not)"
    return (f"house rules {rules.name!r}{alike}, recorded in full in the log; their "
            f"differences from the nearest preset, {nearest.name}: {said}",)


def _looks_like(name: str, variants: Iterable[str]) -> str | None:
    """The preset or shipped rule set whose name ``name`` looks like but is not (UTS #39's
    confusables, case folded: ``еram41`` with a Cyrillic е, ``ERAM41``, ``eram4l``)."""
    from tarneeb.audit.names import name_keys

    keys = name_keys(name)
    return next((other for other in sorted({*PRESETS, *variants})
                 if other != name and keys & name_keys(other)), None)


@functools.lru_cache(maxsize=64)
def _rules_form(raw: bytes, rules: RuleSet) -> str | None:
    """What is wrong with the rules map's bytes ``raw``, against the one form of ``rules``."""
    canonical = msgpack.packb(rules.to_dict(), use_bin_type=True)
    if raw == canonical:
        return None
    order = list(msgpack.unpackb(raw))
    if order != list(rules.to_dict()):
        return ("the rules map's keys are not in the order FORMAT.md gives them (" +
                ", ".join(rules.to_dict()) + ")")
    return "the rules map does not have the one byte form of its rules (a value of another type)"


def check_header_form(header: Header, v: Verdict) -> None:
    """The header's rules map re-encoded from the rules it gives must be the same bytes."""
    if header.rules_raw is None:
        return
    problem = _rules_form(msgpack.packb(header.rules_raw, use_bin_type=True), header.rules)
    if problem is not None:
        v.add("not-canonical", problem, offset=0)


def check_signature(log: ParsedLog, v: Verdict, pinned: bytes | None,
                     keys: Mapping[str, bytes] | None = None) -> None:
    key = log.header.public_key
    named = {raw: name for name, raw in keys.items()} if keys else {}
    if pinned is not None:
        if key is not None and key != pinned:
            v.add("key-mismatch", "the log names another platform key than the one given; "
                  "checking the signature against the key given")
        key = pinned
        v.key_pinned = True
    elif keys is not None:
        if key is not None and key in named:
            v.key_pinned = True
        elif key is not None:
            v.add("key-mismatch", f"the log's key {key_id(key)} is none of the "
                  f"{len(named)} platform keys given")
    if key is not None:
        v.key_id = key_id(key)
        v.signer = named.get(key)
        if v.signer is not None:
            from tarneeb.audit.names import name_scripts  # Unicode data: for a named key only

            v.signer_scripts = name_scripts(v.signer)
            if len(v.signer_scripts) > 1:  # Latin "ERAM" with Cyrillic Е, А, М reads as ERAM
                v.notes.append(f"the platform name {v.signer!r} in the keys file mixes "
                               f"{' and '.join(v.signer_scripts)} letters: a name written "
                               "to look like another platform's would too")
    v.checked_to = len(log.signed_bytes)
    if log.signature is None:
        v.signature = "absent"
        if log.end is not None:
            v.add("unsigned", "the log ends without the platform's signature",
                  offset=log.end_offset)
        return
    if key is None:
        v.add("unsigned", "there is no public key to check the signature against",
              offset=log.signature_offset)
        return
    try:
        public = _public_key(key)
    except AuditError as e:
        v.signature = "weak-key"
        v.add("weak-key", f"{e}: a signature under it proves nothing",
              offset=log.signature_offset)
        return
    try:
        verify(public, log.signed_bytes, log.signature.signature)
        v.signature_verified = True
        return
    except AuditError:
        v.signature = "broken"
    at = log.size - log.zero_tail
    # a torn write zero-fills the signature's own last bytes (the file keeps its length):
    # a crash can do it, and so can anyone who changed the log and hides it as a crash, so
    # a torn signature proves no more than a wrong one. Zeros after a whole signature record
    # are a tail, and leave the signature what it is.
    if log.zero_tail >= 4 and log.signature_offset is not None \
            and log.signature_offset < at < log.signature_offset + SIGNATURE_RECORD_LEN:
        v.add("broken-signature", f"the signature does not cover the log: it ends in "
              f"{log.zero_tail} zero bytes from byte {at}, as a torn write leaves it; torn by "
              "a crash or by someone who changed the log, it proves nothing of the "
              f"{v.checked_to} bytes before it", offset=at)
        return
    v.add("broken-signature", "the signature does not match the log: its bytes were "
          "changed after signing, or another key signed it", offset=log.signature_offset)


@functools.lru_cache(maxsize=16)
def _public_key(raw: bytes) -> Ed25519PublicKey:
    return public_key_from_raw(raw)


SIGNATURE_RECORD_LEN = len(encode_record(SignatureRecord(bytes(64))))  # 68 bytes


# the note of a log of a season checked without the root the platform published
ROOT_NOT_PINNED = ("the season root named in the log was not compared with the published "
                   "one; pass it to pin it")


def check_seeds(log: ParsedLog, v: Verdict, root: bytes | None = None,
                 pinned_key: bytes | None = None,
                 given_seed: bytes | None = None) -> tuple[DealDeriver | None, str]:
    """The deriver of the deals when the seeds allow it, and why not otherwise."""
    h = log.header
    if root is not None and (h.batch is None or not hmac.compare_digest(h.batch.root, root)):
        v.add("batch-proof", "the log does not place the match in the published season root "
              f"{root.hex()[:16]}…" + ("" if h.batch is None else
                                      f" (it names root {h.batch.root.hex()[:16]}…)"))
    elif h.batch is not None and root is None:
        v.notes.append(ROOT_NOT_PINNED)
    if h.server_commitment is None:
        stray = [name for name, value in (
            ("a season proof", h.batch), ("client commitments", h.client_commitments),
            ("client seeds", h.client_seeds),
            ("a server seed", log.end.server_seed if log.end is not None else None))
            if value is not None]
        if stray:
            v.add("not-canonical", f"the log has no server commitment, but carries "
                  f"{', '.join(stray)}: a log without the seed protocol has nil there",
                  offset=0)
        if given_seed is not None:  # the platform revealed a seed for a match without one
            v.add("server-seed", "a server seed was given to the verifier, but the log "
                  "commits to no server seed: the seed and the log are not of one match",
                  offset=0)
        if h.blind:  # the seeds draw a blind match's first dealer (PROTOCOL.md §13)
            v.add("wrong-first-dealer", "the log is dealt blind but commits to no seeds, which "
                  f"draw the first dealer: seat {h.first_dealer} dealing first is the "
                  "platform's word alone", seat=h.first_dealer, offset=0)
        return None, NO_DEAL
    seed = log.end.server_seed if log.end is not None else None
    if seed is None and given_seed is not None:
        seed = given_seed
        v.notes.append("the server seed is not in the log: it was given to the verifier")
    elif given_seed is not None and seed is not None:
        if not hmac.compare_digest(seed, given_seed):  # one of the two is not the platform's
            v.add("server-seed", "the server seed given to the verifier is not the one the "
                  "log reveals: they cannot both be this match's seed", offset=log.end_offset)
        else:
            v.notes.append("the server seed given to the verifier is the one the log reveals")
    if seed is None:
        why = ("the log ends before its end record" if log.end is None else
               "the end record does not reveal it")
        v.add("seed-not-revealed", f"the server seed is not revealed ({why}), so the deals "
              "cannot be re-derived", offset=log.end_offset)
        return None, f"the server seed is not revealed ({why}), so the deal cannot be derived"
    try:
        verify_server_seed(seed, h.server_commitment)
    except AuditError:
        v.add("server-seed", "the revealed server seed does not match the commitment published "
              "before play", offset=log.end_offset)
        return None, ("the revealed server seed does not match its commitment, so the deal "
                      "cannot be derived")
    leaf = season_leaf(h)
    if h.batch is not None and leaf is not None:
        _check_season(h.batch.path, h.batch.head_signature, h.server_commitment, leaf, v,
                      pinned_key if pinned_key is not None else h.public_key)
    if h.client_seeds is None or h.client_commitments is None:
        v.add("client-seed", "the log lacks the client seeds or their commitments, so the "
              "deals cannot be re-derived")
        return None, "the log lacks the client seeds, so the deal cannot be derived"
    binding = match_binding(h.server_commitment, leaf)
    try:
        made = client_commitments(h.match_id, h.client_seeds, binding)
    except AuditError:  # a seed the reader would refuse (a log built by hand): none matches
        made = (b"",) * 4
    for seat in range(4):
        made_here = h.client_commitments[seat]
        if not (isinstance(made_here, bytes) and hmac.compare_digest(made[seat], made_here)):
            v.add("client-seed", f"seat {seat}'s client seed does not match the commitment it "
                  "made before the seeds were revealed, for this match and this binding",
                  seat=seat)
    return DealDeriver(seed, h.match_id, tuple(h.client_seeds), leaf, binding), ""


def _check_season(path: list[bytes], head_signature: bytes, commitment: bytes,
                  leaf: SeasonLeaf, v: Verdict, key: bytes | None) -> None:
    """The commitment must be the named leaf of a season head the platform signed."""
    try:
        leaf.verify(commitment, path)
    except AuditError:
        v.add("batch-proof", f"the commitment is not match {leaf.index} of the published "
              f"root {leaf.root.hex()[:16]}…: its inclusion proof does not lead there")
    try:
        if key is None:
            raise AuditError("no key")
        leaf.head.verify(_public_key(key), head_signature)
    except AuditError:
        v.add("batch-proof", f"the season head (size {leaf.size}, root {leaf.root.hex()[:16]}…) "
              "is not signed by the platform's key: the size and root are not the ones "
              "published")


def _runs(numbers: list[int]) -> str:
    """``0-3, 7, 9-10`` for ``[0, 1, 2, 3, 7, 9, 10]``.

    >>> _runs([0, 1, 2, 3, 7, 9, 10])
    '0-3, 7, 9-10'
    """
    out: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(out)


def report_not_replayed(v: Verdict, missing: list[tuple[int, int, str]]) -> None:
    """One finding per reason for the dealing attempts that had no deal to replay."""
    by_reason: dict[str, list[tuple[int, int]]] = {}
    for n, offset, why in missing:
        by_reason.setdefault(why, []).append((n, offset))
    for why, hands in by_reason.items():
        numbers = [n for n, _ in hands]
        v.not_replayed.extend(numbers)
        if len(hands) == 1:
            v.add("not-replayed", f"the hand could not be replayed: {why}; none of its bids, "
                  "cards or claims are checked", hand=numbers[0], offset=hands[0][1])
        else:
            v.add("not-replayed", f"hands {_runs(numbers)} ({len(numbers)} dealing attempts) "
                  f"could not be replayed: {why}; none of their bids, cards or claims are "
                  "checked", offset=hands[0][1])
    v.not_replayed.sort()


NO_DEAL = "the log has neither seeds to derive the deal nor a recorded deal"
SECRET_HAND = ("a blind deal that was not played out, and whose seats did not reveal their "
               "keys: its cards stay secret, so its plays cannot be checked against the hands")


def note_secret_hands(v: Verdict, hands: list[int]) -> None:
    if hands:
        v.notes.append(f"hand(s) {_runs(hands)} dealt blind and never played out (cancelled "
                       "in the bidding, or the log stops in its bidding): their "
                       "cards were never shown and no keys were revealed; their calls "
                       "do not depend on them and are checked")


def season_leaf(header: Header) -> SeasonLeaf | None:
    """Where the log places its match in a season, or ``None`` for a match committed alone."""
    b = header.batch
    return None if b is None else SeasonLeaf(b.index, b.size, b.root)


def log_deriver(header: Header, end: EndRecord | None) -> DealDeriver | None:
    """The deriver of a log's deals from its revealed seeds, or ``None`` without them.

    It checks nothing: :func:`verify_log` checks the seeds against their commitments.
    """
    if header.server_commitment is None or header.client_seeds is None or end is None \
            or end.server_seed is None:
        return None
    return DealDeriver(end.server_seed, header.match_id, tuple(header.client_seeds),
                       season_leaf(header))


Deal = tuple[tuple[int, int, int, int], int | None]


def deal_of(rec: HandRecord, deriver: DealDeriver | None, n: int, dealer: int) -> Deal | None:
    """The four hands and the dealer's 13th card of dealing attempt ``n``: derived from the
    seeds where the log has them, else as the log records them; ``None`` without either."""
    if deriver is not None:
        h0, h1, h2, h3, thirteenth = deriver.dealt(n, dealer)
        return (h0, h1, h2, h3), thirteenth
    if rec.deal is not None:
        return rec.deal.hands, rec.deal.thirteenth
    return None


__all__ = ["NO_DEAL", "SECRET_HAND", "check_header_form", "check_seeds", "check_signature",
           "deal_of", "log_deriver", "note_rules", "note_secret_hands", "report_not_replayed",
           "rules_notes", "season_leaf"]
