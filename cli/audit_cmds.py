"""The audit commands: ``commit``, ``deal``, ``verify-seed``, ``keygen`` and ``pubkey``.

A thin layer over :mod:`tarneeb.audit`; :func:`register` adds them to the main app::

    app = typer.Typer()
    audit_cmds.register(app)

Exit codes: 0 success; 1 a check that did not pass (a seed that does not match its
commitment, a proof that does not lead to the root); 2 bad input (one line on stderr).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from tarneeb.audit import (
    PROTOCOL,
    AuditError,
    AuditInputError,
    DealDeriver,
    Season,
    SeasonLeaf,
    key_id,
    load_private_key_file,
    match_binding,
    new_server_seed,
    parse_hex,
    public_key_pem,
    server_commitment,
    verify_client_seed,
    verify_server_seed,
    write_key_pair,
)
from tarneeb.audit.encoding import SERVER_SEED_LEN, json_shown, shown
from tarneeb.audit.errors import CommitmentError, MerkleProofError, SignatureError, WeakKeyError
from tarneeb.audit.signing import public_key_raw, public_path_for
from tarneeb.audit.vectors import dumps
from tarneeb.replay.rules.cards import SUIT_LETTERS, SUIT_SYMBOLS, card_name, cards_of, format_hand
from tarneeb.replay.rules.dealing import hands_of, revealed_of, trump_of
from tarneeb.replay.rules.ruleset import PRESETS, RulesError, RuleSet, load_rules_file

from .options import PLAY, SEEDS

# a failed check (exit 1), not bad input: a weak key is bad input
_FAILED = (CommitmentError, MerkleProofError)


def _failed(e: Exception) -> bool:
    """Whether ``e`` says a check did not pass (exit 1) rather than bad input (exit 2)."""
    return isinstance(e, _FAILED) or (isinstance(e, SignatureError)
                                      and not isinstance(e, WeakKeyError))


SECRET_NOTE = ("SECRET: the server seed must stay private until its match is over; "
               "publish only the commitment (or the root)")
MAX_SEASON = 1_000_000


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"tarneeb: error: {shown(message)}", err=True)
    raise typer.Exit(code)


@contextmanager
def _errors() -> Iterator[None]:
    """Turn a failed check into exit 1 and bad input into exit 2, one line each."""
    try:
        yield
    except (CommitmentError, MerkleProofError) as e:
        _fail(f"verification failed: {e}", 1)
    except (AuditError, RulesError) as e:
        _fail(str(e))


def _emit_json(data: Any) -> None:
    typer.echo(json_shown(dumps(data)))


def _complete_rules(incomplete: str) -> list[str]:
    """Shell completion of --rules: the preset names (a rules file completes as a path)."""
    return [name for name in PRESETS if name.startswith(incomplete)]


def _load_rules(name: str) -> RuleSet:
    from tarneeb.replay.rules.house import shipped

    if name in PRESETS:
        return PRESETS[name]
    variants = shipped()
    if name in variants:  # as tarneeb play takes them
        return variants[name]
    path = Path(name)
    if path.suffix == ".toml" or path.exists():
        return load_rules_file(path)
    raise RulesError(f"unknown rule set {name!r} (known: {', '.join(PRESETS)}, a shipped "
                     "variant (tarneeb rules), or the path of a rules file)")


# ------------------------------------------------------------------ commit --

def commit(
    matches: Annotated[int | None, typer.Option(
        "--matches", "-n", metavar="N", min=1, max=MAX_SEASON,
        help="Commit to N matches at once: N seeds, one Merkle root, a proof per match.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    key: Annotated[Path | None, typer.Option(
        "--key", metavar="PRIVATE_KEY",
        help="With --matches: sign the season head (size and root) with this platform "
             "private key (PEM).")] = None,
) -> None:
    """Make a secret server seed and the commitment to publish.

    The output is SECRET: keep the seeds private. Publish the commitment (with
    --matches: the signed season head, size and root) before any card is dealt; reveal
    each seed only when its match is over.
    """
    with _errors():
        if key is not None and matches is None:
            raise AuditInputError("--key signs a season head: it goes with --matches")
        private = load_private_key_file(key) if key is not None else None
        typer.echo(SECRET_NOTE, err=True)
        if matches is None:
            seed = new_server_seed()
            commitment = server_commitment(seed)
            if as_json:
                _emit_json({"protocol": PROTOCOL, "secret": SECRET_NOTE,
                            "server_seed": seed.hex(), "commitment": commitment.hex()})
            else:
                typer.echo(f"protocol:    {PROTOCOL}")
                typer.echo(f"server seed: {seed.hex()}  (SECRET until the match is over)")
                typer.echo(f"commitment:  {commitment.hex()}  (publish before the deal)")
            return
        season = Season.new(matches)
        head = season.head
        signature = head.sign(private) if private is not None else None
        if as_json:
            _emit_json({
                "protocol": PROTOCOL, "secret": SECRET_NOTE, "size": season.size,
                "root": season.root.hex(),
                "head": {"size": head.size, "root": head.root.hex(),
                         "message": head.message().hex(),
                         "signature": None if signature is None else signature.hex(),
                         "key_id": None if private is None else key_id(private.public_key())},
                "matches": [{"index": i, "server_seed": season.seeds[i].hex(),
                             "commitment": season.commitments[i].hex(),
                             "proof": [p.hex() for p in season.proof(i)]}
                            for i in range(season.size)],
            })
            return
        typer.echo(f"protocol:   {PROTOCOL}")
        typer.echo(f"matches:    {season.size}")
        typer.echo(f"root:       {season.root.hex()}  (publish with the size before the "
                   "first match)")
        if signature is not None and private is not None:
            typer.echo(f"head signature: {signature.hex()}  (key {key_id(private.public_key())})")
        for i in range(season.size):
            typer.echo(f"match {i + 1} (leaf index {i}):")
            typer.echo(f"  server seed: {season.seeds[i].hex()}  (SECRET until the match is over)")
            typer.echo(f"  commitment:  {season.commitments[i].hex()}")
            proof = " ".join(p.hex() for p in season.proof(i))
            typer.echo(f"  proof:       {proof or '(none: a tree of one leaf)'}")


# -------------------------------------------------------------------- deal --

def deal(
    log: Annotated[Path | None, typer.Argument(
        metavar="[LOG]", show_default=False,
        help="A log: re-derive one of its hands (--hand) from its own seeds and match id, "
             "and say whether the log played that deal.")] = None,
    hand: Annotated[int, typer.Option(
        "--hand", metavar="N", min=1, help="With LOG: the hand, counted from 1.")] = 1,
    server_seed: Annotated[str | None, typer.Option(
        "--server-seed", "-s", metavar="HEX",
        help="The revealed server seed, 64 hex digits (with LOG: when the log does not "
             "reveal it).")] = None,
    client_seeds: Annotated[list[str] | None, typer.Option(
        "--client-seed", "-c", metavar="HEX",
        help="A client seed as hex; give it four times, seats 0 to 3 in order.")] = None,
    match_id: Annotated[str | None, typer.Option(
        "--match-id", "-m", metavar="ID",
        help="The match id as show, report and export print it (hex); an id that is not "
             "hex is taken as text (its UTF-8 bytes).")] = None,
    match_id_text: Annotated[str | None, typer.Option(
        "--match-id-text", metavar="TEXT",
        help="The match id as text, even when it looks like hex.")] = None,
    match_id_hex: Annotated[str | None, typer.Option(
        "--match-id-hex", metavar="HEX", help="The match id as hex.")] = None,
    deal_number: Annotated[int, typer.Option(
        "--deal", "-d", metavar="N", min=0, max=2**32 - 1,
        help="The deal number: dealing attempts count from 0, cancelled hands included.")] = 0,
    dealer: Annotated[int | None, typer.Option(
        "--dealer", metavar="SEAT", min=0, max=3,
        help="The dealer's seat; default: the derived first dealer + the deal number.")] = None,
    rules: Annotated[str, typer.Option(
        "--rules", "-r", metavar="NAME|FILE", autocompletion=_complete_rules,
        help=f"Rule set: {', '.join(PRESETS)}, or a rules file.")] = "eram41",
    root: Annotated[str | None, typer.Option(
        "--root", metavar="HEX", help="For a match of a season: the season root.")] = None,
    index: Annotated[int | None, typer.Option(
        "--index", metavar="N", min=0, help="For a match of a season: its leaf index.")] = None,
    size: Annotated[int | None, typer.Option(
        "--size", metavar="N", min=1,
        help="For a match of a season: the number of leaves.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Derive one deal from the seeds: hands, 13th card and trump.

    The four hands, the dealer's 13th card and the trump of one dealing attempt, as the
    protocol numbers them: deal numbers and seats from 0. With a LOG, hand --hand N
    (from 1) of that log, from its own seeds, and whether the log played it (exit 1 if
    not).
    """
    from .deal_log import deal_from_log, match_id_of, shown_id, text_of

    with _errors():
        if log is not None:
            raise typer.Exit(deal_from_log(log, hand, server_seed, as_json, _emit_json))
        if server_seed is None:
            raise AuditInputError("give the seeds (--server-seed and four --client-seed), or "
                                  "a LOG to take them from")
        seed = parse_hex(server_seed, "server seed", SERVER_SEED_LEN)
        client_seeds = client_seeds or []
        if len(client_seeds) != 4:
            raise AuditInputError(
                f"client seeds: {len(client_seeds)} given; give --client-seed four times, "
                "seats 0 to 3")
        seeds = [parse_hex(text, f"client seed of seat {seat}")
                 for seat, text in enumerate(client_seeds)]
        mid, warning = match_id_of(match_id, match_id_text, match_id_hex)
        if warning is not None:
            typer.echo(f"tarneeb: warning: {warning}", err=True)
        rule_set = _load_rules(rules)
        deriver = DealDeriver(seed, mid, seeds, _season_leaf(root, index, size))
        first = deriver.first_dealer()
        d = deriver.deal(deal_number, dealer)
        hands = hands_of(d)
        trump = trump_of(d, rule_set)
        revealed = revealed_of(d, rule_set)
        if as_json:
            _emit_json({
                "protocol": PROTOCOL,
                "match_id": text_of(mid),
                "match_id_hex": mid.hex(),
                "deal_number": deal_number,
                "first_dealer": first,
                "dealer": d.dealer,
                "rules": rule_set.name,
                "deck": list(d.deck),
                "deck_names": [card_name(c, symbols=False) for c in d.deck],
                "hands": [[card_name(c, symbols=False) for c in reversed(cards_of(h))]
                          for h in hands],
                "hands_text": [format_hand(h) for h in hands],
                "thirteenth": card_name(d.thirteenth, symbols=False),
                "revealed": None if revealed is None else card_name(revealed, symbols=False),
                "trump": None if trump is None else SUIT_LETTERS[trump],
                "trump_rule": rule_set.trump,
            })
            return
        typer.echo(f"match {shown_id(mid)}, deal {deal_number}, rules "
                   f"{rule_set.name}; first dealer: seat {first}")
        for s in range(4):
            who = " (dealer)" if s == d.dealer else ""
            typer.echo(f"seat {s}{who}: {format_hand(hands[s])}")
        shown = "revealed to all" if revealed is not None else "not shown"
        typer.echo(f"dealer's 13th card: {card_name(d.thirteenth)} ({shown})")
        if trump is None:
            typer.echo("trump: named by the auction winner")
        else:
            how = {"fixed": "fixed", "revealed": "the 13th card's suit"}.get(
                rule_set.trump, "colour-mate of the 13th card")
            typer.echo(f"trump: {SUIT_SYMBOLS[trump]} ({how})")


def _season_leaf(root: str | None, index: int | None, size: int | None) -> SeasonLeaf | None:
    """The season leaf given by --root, --index and --size (all or none)."""
    given = (root, index, size)
    if all(v is None for v in given):
        return None
    if any(v is None for v in given):
        raise AuditInputError("a match of a season needs all of --root, --index and --size")
    assert root is not None and index is not None and size is not None
    return SeasonLeaf(index, size, parse_hex(root, "root", 32))


# ------------------------------------------------------------- verify-seed --

def verify_seed(
    seed: Annotated[str, typer.Argument(metavar="SEED", help="The revealed seed, as hex.")],
    commitment: Annotated[str | None, typer.Argument(
        metavar="COMMITMENT",
        help="Its published commitment, as hex (optional with --root).")] = None,
    root: Annotated[str | None, typer.Option(
        "--root", metavar="HEX",
        help="A published season root: check the seed's commitment is in it.")] = None,
    index: Annotated[int | None, typer.Option(
        "--index", metavar="N", min=0, help="The match's leaf index in the season tree.")] = None,
    size: Annotated[int | None, typer.Option(
        "--size", metavar="N", min=1, help="The number of leaves of the season tree.")] = None,
    proof: Annotated[list[str] | None, typer.Option(
        "--proof", metavar="HEX",
        help="The inclusion proof: hashes as hex, repeated or comma-separated, "
             "leaf side first.")] = None,
    seat: Annotated[int | None, typer.Option(
        "--seat", metavar="SEAT", min=0, max=3,
        help="Check a client seed of this seat instead.")] = None,
    match_id: Annotated[str | None, typer.Option(
        "--match-id", "-m", metavar="ID",
        help="The match id, for --seat: as show, report and export print it (hex); an id "
             "that is not hex is taken as text (its UTF-8 bytes).")] = None,
    match_id_text: Annotated[str | None, typer.Option(
        "--match-id-text", metavar="TEXT",
        help="The match id as text, even when it looks like hex, for --seat.")] = None,
    match_id_hex: Annotated[str | None, typer.Option(
        "--match-id-hex", metavar="HEX", help="The match id as hex, for --seat.")] = None,
    server_commitment_hex: Annotated[str | None, typer.Option(
        "--server-commitment", metavar="HEX",
        help="The match's server commitment, for --seat: client commitments are bound to it "
             "(and to --root, --index and --size for a match of a season).")] = None,
    head_signature: Annotated[str | None, typer.Option(
        "--head-signature", metavar="HEX",
        help="The platform's signature of the season head (size and root), as commit "
             "--matches --key prints it: with --key, it proves the size.")] = None,
    key: Annotated[Path | None, typer.Option(
        "--key", metavar="PUBLIC_KEY",
        help="The platform's public key (PEM), for --head-signature.")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the checks as JSON (also when one fails).")] = False,
) -> None:
    """Check a revealed seed against its commitment or season root.

    The commitment, the published season root, or both. A root alone does not fix the
    size of its tree: --head-signature and --key check the signed season head that does.
    Exit 0 when it matches, 1 when it does not, 2 on bad input.
    """
    checks: list[dict[str, Any]] = []

    def passed(text: str, note: str | None = None, **check: Any) -> None:
        checks.append({**check, "ok": True})
        if not as_json:
            typer.echo(f"ok: {text}")
            if note is not None:
                typer.echo(f"note: {note}")

    try:
        ids = (match_id, match_id_text, match_id_hex)
        _verify_seed(seed, commitment, root, index, size, proof, seat, ids, passed,
                     server_commitment_hex, head_signature, key)
    except AuditError as e:
        if not _failed(e):
            _fail(str(e))
        if not as_json:
            _fail(f"verification failed: {e}", 1)
        _emit_json({"ok": False, "checks": checks, "failed": str(e)})
        raise typer.Exit(1) from None
    except RulesError as e:
        _fail(str(e))
    if as_json:
        _emit_json({"ok": True, "checks": checks})


def _verify_seed(seed: str, commitment: str | None, root: str | None, index: int | None,
                 size: int | None, proof: list[str] | None, seat: int | None,
                 ids: tuple[str | None, str | None, str | None],
                 passed: Callable[..., None],
                 server_commitment_hex: str | None = None, head_signature: str | None = None,
                 key: Path | None = None) -> None:
    """The checks of ``verify-seed``: each one that passes is reported to ``passed``;
    the first that fails raises."""
    merkle = (root, index, size)
    if any(v is not None for v in merkle) and any(v is None for v in merkle):
        raise AuditInputError("a season check needs all of --root, --index and --size "
                              "(and --proof unless the tree has one leaf)")
    if (head_signature is None) != (key is None):
        raise AuditInputError("--head-signature and --key go together: the platform's "
                              "signature of the season head and the key that made it")
    if head_signature is not None and (root is None or seat is not None):
        raise AuditInputError("--head-signature checks the head of a season: it goes with "
                              "--root, --index and --size, for a server seed")
    if proof and root is None:
        raise AuditInputError("--proof needs --root, --index and --size")
    given_id = any(i is not None for i in ids)
    if seat is not None:
        from .deal_log import match_id_of, shown_id

        if not given_id or server_commitment_hex is None:
            raise AuditInputError("a client seed check (--seat) needs --match-id and "
                                  "--server-commitment")
        match_id, warning = match_id_of(*ids)
        if proof:
            raise AuditInputError("--proof checks a server seed, not a client seed")
        raw = parse_hex(seed, f"client seed of seat {seat}")
        want = parse_hex(commitment or "", "commitment", 32)
        binding = match_binding(parse_hex(server_commitment_hex, "server commitment", 32),
                                _season_leaf(root, index, size))
        if warning is not None:
            typer.echo(f"note: {warning}", err=True)
        verify_client_seed(match_id, seat, raw, want, binding)
        passed(f"the client seed of seat {seat} matches commitment {want.hex()} "
               f"for match {shown_id(match_id)}", check="client-seed", seat=seat,
               match_id_hex=match_id.hex(), commitment=want.hex())
        return
    if given_id or server_commitment_hex is not None:
        raise AuditInputError("--match-id and --server-commitment go with --seat "
                              "(client seeds)")
    if commitment is None and root is None:
        raise AuditInputError("give the COMMITMENT to check against, or --root with "
                              "--index, --size and --proof")
    raw = parse_hex(seed, "server seed", SERVER_SEED_LEN)
    # every value read before any check passes: a malformed one is bad input (exit 2)
    # with no "ok" printed before it
    committed = None if commitment is None else parse_hex(commitment, "commitment", 32)
    if root is not None:
        parse_hex(root, "root", 32)
    for i, h in enumerate(h for item in (proof or []) for h in item.split(",") if h.strip()):
        parse_hex(h, f"proof hash {i}", 32)
    if head_signature is not None:
        parse_hex(head_signature, "head signature", 64)
    if committed is not None:
        verify_server_seed(raw, committed)
        passed(f"the server seed matches commitment {committed.hex()}", check="commitment",
               commitment=committed.hex())
    if root is not None and index is not None and size is not None:
        root_b = parse_hex(root, "root", 32)
        hashes = [h for item in (proof or []) for h in item.split(",") if h.strip()]
        path = [parse_hex(h, f"proof hash {i}", 32) for i, h in enumerate(hashes)]
        leaf = server_commitment(raw)
        season = SeasonLeaf(index, size, root_b)
        head = None
        if head_signature is not None and key is not None:
            signature = parse_hex(head_signature, "head signature", 64)
            from .verify_cmd import load_pinned_key

            public = load_pinned_key(Path(key))  # (a private key said as verify --key says it)
            head = key_id(public)
            try:
                season.head.verify(public, signature)
            except SignatureError as e:
                raise SignatureError(f"the season head (size {size}, root {root_b.hex()[:16]}…) "
                                     f"is not the one signed: {e}") from None
        season.verify(leaf, path)
        # a proof fits more than one tree size under the same root (leaf 3 of 5 also of 6,
        # 7 and 8): only the platform's signature of the head (size and root) fixes it
        unproven = None if head is not None else (
            f"the size {size} is NOT proven: a root and proof fit more than one tree size "
            "(and so leaf index); only the platform's signed season head fixes it: give "
            "--head-signature and --key")
        passed(f"commitment {leaf.hex()} is leaf {index} of {size} under root "
               f"{root_b.hex()}" + ("" if head is None else
                                    f", a season head signed by key {head}"),
               unproven, check="season-root", commitment=leaf.hex(), index=index,
               size=size, root=root_b.hex(), size_proven=head is not None,
               **({} if head is None else {"key_id": head}))


# ------------------------------------------------------------------ keygen --

def keygen(
    private_path: Annotated[str, typer.Argument(
        metavar="PRIVATE_KEY", help="Where to write the private key (PEM, PKCS#8, mode 0600).")],
    public_path: Annotated[str | None, typer.Option(
        "--public", metavar="FILE", help="Where to write the public key; default: beside it, "
                         "key.pem → key.pub.pem.")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Replace existing key files.")] = False,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the files written and the key id as JSON.")] = False,
) -> None:
    """Make a platform key pair: a private and a public key file.

    An Ed25519 key pair: the private key (keep it secret) signs the platform's logs, the
    public key (KEY.pub.pem) is what players pin with 'tarneeb verify --key'.
    """
    from .common import output_name

    output_name(private_path)  # ('', '.', '/': no file to write, one line)
    if public_path is not None:
        output_name(public_path)
    for given, what in ((private_path, "PRIVATE_KEY"), (public_path, "--public")):
        if given == "-":  # (a file named "-" was written, and "-.pub")
            _fail(f"{what} -: a key pair is written to files (a private key, mode 0600, "
                 "never to a terminal): give a file name")
    with _errors():
        key = write_key_pair(private_path, public_path, force=force)
        pub = public_path if public_path is not None else public_path_for(private_path)
        if as_json:
            _emit_json({"private_key": str(private_path), "public_key": str(pub),
                        "key_id": key_id(key.public_key()),
                        "public_key_hex": public_key_raw(key.public_key()).hex()})
            return
        typer.echo(f"wrote private key {shown(str(private_path))} (mode 0600; keep it secret)")
        typer.echo(f"wrote public key  {shown(str(pub))}")
        typer.echo(f"key id: {key_id(key.public_key())}")


def pubkey(
    private_path: Annotated[Path, typer.Argument(
        metavar="PRIVATE_KEY", help="A private key file (PEM).")],
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the public key (PEM and hex) and its key id as JSON.")] = False,
) -> None:
    """Print the public key (PEM) and key id of a private key file."""
    with _errors():
        key = load_private_key_file(private_path)
        if as_json:
            _emit_json({"public_key_pem": public_key_pem(key.public_key()).decode("ascii"),
                        "public_key_hex": public_key_raw(key.public_key()).hex(),
                        "key_id": key_id(key.public_key())})
            return
        sys.stdout.write(public_key_pem(key.public_key()).decode("ascii"))
        typer.echo(f"key id: {key_id(key.public_key())}", err=True)


COMMANDS: dict[str, Callable[..., None]] = {
    "verify-seed": verify_seed,
    "deal": deal,
    "commit": commit,
    "keygen": keygen,
    "pubkey": pubkey,
}
PANEL = {"verify-seed": SEEDS, "deal": SEEDS, "commit": SEEDS, "keygen": PLAY, "pubkey": PLAY}


def register(app: typer.Typer) -> None:
    """Add the audit commands to ``app``."""
    for name, fn in COMMANDS.items():
        app.command(name, rich_help_panel=PANEL[name])(fn)


__all__ = ["COMMANDS", "register"]
