"""``tarneeb verify``: the command an archive runs once per log, so it starts fast.

:func:`run` does the work for the typer command in :mod:`tarneeb.cli.app`.
:func:`fast_path` serves a plain ``tarneeb verify [--json] [--key K] [--root R] LOG...``
without importing typer (whose start-up costs more than verifying a log); anything
else it does not recognise (``--help``, an unknown option, no log) goes to typer,
which gives the help and the usage errors.

>>> fast_path(["verify", "--help"]) is None
True
>>> parse_fast(["verify", "--json", "--key=k.pem", "a.tlog", "--", "-x.tlog"])
{'logs': ['a.tlog', '-x.tlog'], 'as_json': True, 'key': 'k.pem', 'keys': None, 'root': None}
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import console, expand_logs, fail, json_form_instead, load_log, shown_name
from .flags import FAST, FLAGS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tarneeb.replay.log.stream import Limits
    from tarneeb.replay.verify.findings import Verdict
    from tarneeb.replay.verify.receipt import SignedReceipt
    from tarneeb.replay.verify.trust import Trust

KEYS_FILE_NAME = "keys.toml"


def parse_fast(argv: list[str]) -> dict[str, Any] | None:
    """The arguments of a plain ``verify`` command line, or None to leave it to typer."""
    if not argv or argv[0] != "verify":
        return None
    parsed: dict[str, Any] = {"logs": []}
    parsed.update({FLAGS[f].dest: (None if FLAGS[f].takes_value else False) for f in FAST})
    seen: set[str] = set()
    tokens = iter(argv[1:])
    only_logs = False
    for token in tokens:
        if only_logs or token == "-" or not token.startswith("-"):
            parsed["logs"].append(token)
            continue
        if token == "--":
            only_logs = True
            continue
        name, eq, value = token.partition("=")
        if name not in FAST or name in seen:
            return None
        seen.add(name)
        flag = FLAGS[name]
        if not flag.takes_value:
            if eq:
                return None
            parsed[flag.dest] = True
            continue
        if not eq:
            nxt = next(tokens, None)
            if nxt is None:
                return None
            value = nxt
        parsed[flag.dest] = value
    return parsed if parsed["logs"] else None


def fast_path(argv: list[str]) -> int | None:
    """Run a plain ``verify`` and return its exit code; None when typer must parse it."""
    parsed = parse_fast(argv)
    if parsed is None:
        return None
    key, keys = (Path(p) if p is not None else None for p in (parsed["key"], parsed["keys"]))
    return run(parsed["logs"], parsed["as_json"], key, parsed["root"], keys)


def load_verifier(argv: list[str]) -> None:
    """Import what a ``verify`` command line uses (nothing for another command), so that
    the caller can load it all at once (:func:`tarneeb.cli.entry.main` holds the cyclic
    collector off meanwhile); a verify that typer parses uses the same modules."""
    if argv[:1] == ["verify"]:
        import tarneeb.replay.verify.people
        import tarneeb.replay.verify.replayer  # noqa: F401


def pinned_key(key: Path | None) -> bytes | None:
    """The raw public key in the PEM file ``key`` (None: no key pinned)."""
    if key is None:
        return None
    from tarneeb.audit.errors import AuditError
    from tarneeb.audit.signing import public_key_raw

    try:
        return public_key_raw(load_pinned_key(key))
    except AuditError as e:
        fail(str(e))


def load_pinned_key(key: Path) -> Any:
    """The public key in the PEM file ``key``; an :class:`~tarneeb.audit.errors.AuditError`
    when it is none, saying so (:func:`private_key_given`) when it holds a private key."""
    from tarneeb.audit.errors import AuditError, AuditInputError
    from tarneeb.audit.signing import load_public_key_file

    try:
        return load_public_key_file(key)
    except AuditError:
        if _holds_private_key(key):
            raise AuditInputError(private_key_given(key)) from None
        raise


def _holds_private_key(path: Path) -> bool:
    from tarneeb.audit.encoding import read_small_file

    try:  # a regular file of at most 1 MiB: never a FIFO's wait
        return b"PRIVATE KEY-----" in read_small_file(path)
    except OSError:
        return False


def private_key_given(path: Path) -> str:
    """What to say when ``--key`` names a private key file: the public one is wanted,
    the file ``tarneeb keygen`` wrote beside it.

    >>> print(private_key_given(Path("/nowhere/platform.pem")))  # doctest: +NORMALIZE_WHITESPACE
    /nowhere/platform.pem: a private key; --key pins the platform's public key: make it
    with 'tarneeb pubkey /nowhere/platform.pem > /nowhere/platform.pub.pem' and give that
    """
    from tarneeb.audit.signing import public_path_for

    public = public_path_for(path)
    if public.is_file():
        return (f"{path}: a private key; --key pins the platform's public key: give {public} "
                "(tarneeb keygen wrote it beside the private key)")
    return (f"{path}: a private key; --key pins the platform's public key: make it with "
            f"'tarneeb pubkey {path} > {public}' and give that")


def pinned_root(root: str | None) -> bytes | None:
    """The season root ``root`` (hex) the platform published (None: no root pinned)."""
    if root is None:
        return None
    from tarneeb.audit.encoding import parse_hex
    from tarneeb.audit.errors import AuditError

    try:
        return parse_hex(root, "season root", 32)
    except AuditError as e:
        fail(str(e))


def default_keys_path() -> Path:
    """The user's keys file: ``keys.toml`` in tarneeb's config directory
    (``~/.config/tarneeb`` on Linux, ``%APPDATA%\\tarneeb`` on Windows, as platformdirs
    names it: :func:`tarneeb.audit.seal.config_home`)."""
    from tarneeb.audit.seal import config_home

    return config_home() / KEYS_FILE_NAME


def platform_keys(keys: Path | None) -> dict[str, bytes] | None:
    """The keys file given, else the user's default one if it exists, else ``None``."""
    path = keys if keys is not None else default_keys_path()
    if keys is None and not path.is_file():
        return None
    from tarneeb.audit.errors import AuditError
    from tarneeb.audit.signing import load_keys_file

    try:
        return load_keys_file(path)
    except AuditError as e:
        fail(str(e))


def read_signed_receipt(receipt: Path | None) -> SignedReceipt | None:
    """The pre-play receipt in the file ``receipt`` (None: no receipt given)."""
    if receipt is None:
        return None
    from tarneeb.audit.encoding import read_small_file
    from tarneeb.replay.verify.receipt import MAX_RECEIPT_BYTES, ReceiptError, read_receipt

    try:  # a regular file of at most MAX_RECEIPT_BYTES (64 KiB): no FIFO, no 3 GB read
        return read_receipt(read_small_file(receipt, MAX_RECEIPT_BYTES), str(receipt))
    except OSError as e:
        fail(f"{receipt}: cannot read: {e.strerror or e}")
    except ReceiptError as e:
        fail(str(e))


BOTH_PINNED = ("--key and --keys both given: pin one key (--key) or the platforms of a keys "
               "file (--keys), not both (a log signed by the one would not be checked "
               "against the other)")


def trust_of(key: Path | None = None, keys: Path | None = None, root: str | None = None,
             receipts: Sequence[Path] = (), server_seed: str | None = None,
             limits: Limits | None = None, require_proof: bool = False) -> Trust:
    """What the user trusts, from the options every command names the same way, built
    once and passed whole to the replayer, the report and the archive audit: a bad
    option ends in one line (exit 2)."""
    from tarneeb.audit.encoding import parse_hex
    from tarneeb.audit.errors import AuditError
    from tarneeb.replay.log.stream import DEFAULT_LIMITS
    from tarneeb.replay.verify.trust import Trust

    if key is not None and keys is not None:  # (one was taken, the other said nothing)
        fail(BOTH_PINNED)
    try:
        seed = parse_hex(server_seed, "server seed", 32) if server_seed is not None else None
    except AuditError as e:
        fail(str(e))
    source = str(key) if key is not None else str(keys) if keys is not None else None
    return Trust(public_key=pinned_key(key), keys=platform_keys(keys), key_source=source,
                 root=pinned_root(root),
                 receipts=tuple(r for r in map(read_signed_receipt, receipts) if r is not None),
                 server_seed=seed, limits=limits or DEFAULT_LIMITS, require_proof=require_proof)


def run(logs: list[str] | list[Path], as_json: bool, key: Path | None,
        root: str | None, keys: Path | None = None, limits: Limits | None = None,
        receipt: Path | None = None, server_seed: str | None = None,
        require_proof: bool = False) -> int:
    """Verify every log named (files, directories, globs, ``-``); return the exit code.

    ``receipt`` is a seat's pre-play receipt: the one log named must be the match it
    promised."""
    from tarneeb.replay.log import LogError
    from tarneeb.replay.verify.findings import Verdict
    from tarneeb.replay.verify.replayer import verify_file, verify_log

    trust = trust_of(key, keys, root, () if receipt is None else (receipt,), server_seed,
                     limits, require_proof)
    paths = expand_logs(logs)
    if receipt is not None and len(paths) != 1:
        fail(f"--receipt is the receipt of one match: give one LOG, not {len(paths)}")
    # only each verdict's exit code (and its JSON) is kept, not the replayed hands: memory
    # stays flat over an archive of any size
    codes: list[int] = []
    outputs: list[dict[str, object]] = []
    tally = Tally() if len(paths) > 1 and not as_json else None
    for path in paths:
        if path == "-":
            try:
                log = load_log(path, trust.limits)
            except LogError as e:
                v = Verdict(shown_name(path))
                v.error = str(e)
            else:
                v = verify_log(log, shown_name(path), trust, count_paths=as_json)
        else:
            v = verify_file(path, trust, count_paths=as_json)
            if v.error is not None and "not a tarneeb log" in v.error:
                v = _verify_json_form(v, trust, as_json)
        codes.append(v.exit_code)
        if as_json:
            outputs.append(v.to_json())
        elif tally is not None:
            tally.add(v)
        else:
            print_verdict(v)
    if as_json:
        import json

        from tarneeb.audit.encoding import json_shown

        sys.stdout.write(json_shown(json.dumps(outputs, ensure_ascii=False, indent=1)) + "\n")
    if tally is not None:
        tally.close()
    return max(codes)


def _verify_json_form(v: Verdict, trust: Trust, as_json: bool) -> Verdict:
    """The verdict of the log whose JSON form (``tarneeb export``) is at ``v.path``, as the
    verifier page accepts it; ``v`` (no tarneeb log) when the file is no JSON document."""
    from tarneeb.replay.log import LogError
    from tarneeb.replay.verify.replayer import verify_bytes

    try:
        data = json_form_instead(v.path, v.error or "", trust.limits)
    except LogError as e:
        v.error = str(e)
        return v
    return v if data is None else verify_bytes(data, v.path, trust, count_paths=as_json)


def print_verdict(v: Verdict) -> None:
    """The verdict of one log in a few lines: its first line, short, names the file, the
    verdict and who signed it; below it what was replayed, the advice about the key (once),
    the findings, the ending and the notes. Colour on a terminal, plain in a pipe (data
    never goes through markup). Players are named and hands counted from 1, as a person
    reads them (``--json`` keeps the log's seats 0–3 and deal numbers from 0)."""
    from tarneeb.replay.verify.people import Table

    say = Table.of(v).say
    lines: list[tuple[str, str | None, str]] = []  # (styled part, its style, plain rest)
    if v.findings or v.error is None:
        head, style = ((f"{v.path}: {_plural(len(v.findings), 'finding')}", "bold red")
                       if v.findings else (f"{v.path}: clean", "green"))
        who = signer_words(v)
        lines.append((head, style, f", {deals_words(v)}, {who}"))
        lines.append((f"  {v.deals_line()}", None, ""))
        if v.signed_by() != who:  # what the signature proves, and the advice: said once
            lines.append((f"  {v.signed_by()}", None, ""))
        lines.extend((f"  {say(str(f))}", None, "") for f in v.findings)
        if v.ending is not None:
            lines.append((f"  {Table.of(v).ending(v)}", None, ""))
    lines.extend((f"  note: {say(note)}", None, "") for note in v.notes)
    _emit(lines)
    if v.error is not None:
        sys.stdout.flush()
        from tarneeb.audit.encoding import shown

        sys.stderr.write(f"tarneeb: error: {shown(v.error)}\n")


def _plural(n: int, word: str, words: str | None = None) -> str:
    """``1 log``, ``2 logs``.

    >>> _plural(1, "finding"), _plural(3, "finding"), _plural(2, "match", "matches")
    ('1 finding', '3 findings', '2 matches')
    """
    return f"{n} {word if n == 1 else words or word + 's'}"


def _clip(text: str, most: int) -> str:
    """``text`` cut at a word to at most ``most`` characters, ``…`` marking the cut.

    >>> _clip("the signature does not match the log", 20)
    'the signature does…'
    """
    if len(text) <= most:
        return text
    cut = text[:most].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def key_words(v: Verdict) -> str:
    """The key a verdict checked the signature against, in a few words: the platform the
    keys file names for it, or its id and whether it was pinned.

    >>> from tarneeb.replay.verify.findings import Verdict
    >>> key_words(Verdict("m.tlog", key_id="139e3940e64b5491"))
    'key 139e3940e64b5491 not pinned'
    >>> key_words(Verdict("m.tlog", key_id="139e3940e64b5491", key_pinned=True, signer="room"))
    'room (key 139e3940e64b5491)'
    """
    if v.key_id is None:
        return "no key"
    if not v.key_pinned:
        return f"key {v.key_id} not pinned"
    return f"{v.signer} (key {v.key_id})" if v.signer is not None else f"key {v.key_id} pinned"


def signer_words(v: Verdict) -> str:
    """Who signed a log, in a few words for a verdict's first line (what that proves, and
    the advice, go below it: :meth:`Verdict.signed_by`).

    >>> from tarneeb.replay.verify.findings import Verdict
    >>> signer_words(Verdict("m.tlog", key_id="139e3940e64b5491", signature_verified=True))
    'signed by key 139e3940e64b5491, not pinned'
    >>> signer_words(Verdict("m.tlog", key_id="139e3940e64b5491"))
    'signature does NOT verify (key 139e3940e64b5491)'
    """
    if v.signature == "absent":
        return "not signed yet"
    if v.key_id is None:
        return "no key to check a signature against"
    if not v.signature_verified:
        return f"signature does NOT verify (key {v.key_id})"
    if v.key_pinned:
        return v.signed_by()
    return f"signed by key {v.key_id}, not pinned"


def deals_words(v: Verdict) -> str:
    """How many dealing attempts were replayed, and where their deals came from when
    the seeds (or a blind deal's transcript) did not prove them all.

    >>> from tarneeb.replay.verify.findings import Verdict
    >>> deals_words(Verdict("m.tlog", hands=3, deals_proven=True))
    '3 hands'
    >>> deals_words(Verdict("m.tlog", hands=3, recorded=3, not_replayed=[3]))
    '3 hands (deals recorded, not proven; 1 NOT replayed)'
    """
    if v.deals_proven:
        source = ""
    elif v.recorded:
        source = "deals recorded, not proven" if v.recorded == v.hands else \
            f"{v.recorded} deals recorded, not proven"
    else:
        source = "deals not proven"
    if v.not_replayed:
        source += ("; " if source else "") + f"{len(v.not_replayed)} NOT replayed"
    return _plural(v.hands, "hand") + (f" ({source})" if source else "")


class Tally:
    """The verdicts of many logs, one short line each; the hints they share are said
    once at the end (:meth:`close`), then how many logs were clean, as test runners do.
    ``tarneeb verify LOG`` on one log gives its verdict in full."""

    FINDING_ROOM = 80  # characters of a log's first finding shown on its line

    def __init__(self) -> None:
        self.clean = self.with_findings = self.unreadable = 0
        self.not_pinned = self.no_receipt = 0
        self.more = False  # a log has findings or notes its line does not show in full

    def add(self, v: Verdict) -> None:
        """Print the line of one log's verdict and count it."""
        from tarneeb.replay.verify.people import Table
        from tarneeb.replay.verify.replayer import NO_RECEIPT_NOTE

        if v.error is not None:
            self.unreadable += 1
            said = v.error.removeprefix(f"{v.path}: ")
            _emit([(f"{v.path}: unreadable", "bold red", f": {said}")])
            return
        notes = [n for n in v.notes if n != NO_RECEIPT_NOTE]
        self.no_receipt += len(notes) < len(v.notes)
        self.not_pinned += v.key_id is not None and not v.key_pinned
        self.more |= bool(v.findings or notes or v.ending)
        about = f", {deals_words(v)}, {key_words(v)}"
        if notes:
            about += f", {_plural(len(notes), 'note')}"
        if not v.findings:
            self.clean += 1
            _emit([(f"{v.path}: clean", "green", about)])
            return
        self.with_findings += 1
        first = _clip(Table.of(v).say(str(v.findings[0])), self.FINDING_ROOM)
        _emit([(f"{v.path}: {_plural(len(v.findings), 'finding')}", "bold red",
                f"{about}: {first}")])

    def close(self) -> None:
        """The hints the logs share, each once, and the count of logs by verdict."""
        lines: list[tuple[str, str | None, str]] = []
        if self.not_pinned:
            lines.append(("note: ", None, f"{_plural(self.not_pinned, 'log')} checked against "
                          "a key named in the log itself, NOT PINNED: anyone could have made "
                          "them with a key of their own (pin the platform's key: tarneeb "
                          "verify --key or --keys)"))
        if self.no_receipt:
            lines.append(("note: ", None, f"{_plural(self.no_receipt, 'log')} not compared "
                          "with a seat's pre-play receipt: that each is the match promised "
                          "before play rests on the platform's word (tarneeb verify --receipt "
                          "FILE LOG checks one)"))
        if self.more:
            lines.append(("note: ", None, "tarneeb verify LOG gives one log's findings and "
                          "notes in full"))
        total = self.clean + self.with_findings + self.unreadable
        counts = [f"{self.clean} clean"]
        if self.with_findings:
            counts.append(f"{self.with_findings} with findings")
        if self.unreadable:
            counts.append(f"{self.unreadable} unreadable")
        style = "green" if self.clean == total else "bold red"
        lines.append((f"{_plural(total, 'log')}: {', '.join(counts)}", style, ""))
        _emit(lines)


def _emit(lines: list[tuple[str, str | None, str]]) -> None:
    """Print lines, styled only on a terminal: a pipe gets plain text without loading rich.
    A file name (or anything else) holding a control character is shown escaped."""
    from tarneeb.audit.encoding import shown

    if not sys.stdout.isatty():
        sys.stdout.write("".join(shown(head + rest) + "\n" for head, _, rest in lines))
        return
    from rich.text import Text

    out = console()
    for head, style, rest in lines:
        out.print(Text.assemble((shown(head), style or ""), shown(rest)))


__all__ = ["Tally", "deals_words", "default_keys_path", "fast_path",
           "key_words", "parse_fast", "pinned_key", "pinned_root", "platform_keys",
           "print_verdict", "run", "signer_words", "trust_of"]
