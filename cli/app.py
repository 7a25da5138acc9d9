"""The ``tarneeb`` command: thin over the library (parse, call, print)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.text import Text

from tarneeb.audit.encoding import parse_hex
from tarneeb.audit.errors import AuditError
from tarneeb.audit.merkle import verify_inclusion
from tarneeb.audit.seeds import server_commitment
from tarneeb.audit.signing import (
    load_keys_file,
    load_private_key_file,
    load_public_key_file,
    public_key_raw,
)
from tarneeb.replay import logjson
from tarneeb.replay.annotate import annotate
from tarneeb.replay.findings import Verdict
from tarneeb.replay.logformat import BatchProof, LogError, parse_log, read_log
from tarneeb.replay.logstream import DEFAULT_LIMITS, Limits
from tarneeb.replay.narrate import narrate
from tarneeb.replay.players import MatchTooLong
from tarneeb.replay.replayer import verify_file, verify_log
from tarneeb.replay.rules import (
    RulesError,
    RuleSet,
    house_preset,
    load_rules_file,
    parse_option,
)
from tarneeb.replay.simulate import play_logged_match, seed_bytes

from . import audit_cmds, regress_cmd

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  help="Verifiable deals and replay audits for Tarneeb (41, 400 and classic).")
audit_cmds.register(app)
regress_cmd.register(app)

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr and an exit code: the way every bad input ends."""
    err.print(f"tarneeb: error: {message}", markup=False)
    raise typer.Exit(code)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror or e}")


def write_atomically(path: Path, data: bytes) -> None:
    """Write to a temporary file beside ``path`` and rename: a reader never sees half a file."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent or Path("."), prefix=f".{path.name}.")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        fail(f"{path}: cannot write: {e.strerror or e}")


def pinned_key(key: Path | None) -> bytes | None:
    if key is None:
        return None
    try:
        return public_key_raw(load_public_key_file(key))
    except AuditError as e:
        fail(str(e))


KEYS_FILE_NAME = "keys.toml"


def default_keys_path() -> Path:
    """The user's keys file: ``keys.toml`` in tarneeb's config directory
    (``~/.config/tarneeb`` on Linux, as ``typer.get_app_dir`` gives it)."""
    return Path(typer.get_app_dir("tarneeb")) / KEYS_FILE_NAME


def platform_keys(keys: Path | None) -> dict[str, bytes] | None:
    """The keys file given, else the user's default one if it exists, else ``None``."""
    path = keys if keys is not None else default_keys_path()
    if keys is None and not path.is_file():
        return None
    try:
        return load_keys_file(path)
    except AuditError as e:
        fail(str(e))


def load_rules(name: str | None, options: list[str] | None, rules_file: Path | None) -> RuleSet:
    try:
        opts = dict(parse_option(o) for o in options or [])
        if rules_file is not None:
            return load_rules_file(rules_file).with_options(**opts)
        if name is None:
            fail("give --rules NAME (eram41, qahwa41, sahrat41, sahrat400, classic) "
                 "or --rules-file FILE")
        return house_preset(name, opts)
    except (RulesError, TypeError) as e:
        fail(str(e))


# the caps on an untrusted log (tarneeb.replay.logstream.Limits), raisable wherever logs are read
MaxBytes = Annotated[int, typer.Option(
    "--max-bytes", min=1, help="Refuse a log larger than this many bytes.")]
MaxRecords = Annotated[int, typer.Option(
    "--max-records", min=1, help="Refuse a log of more records than this.")]
MaxHands = Annotated[int, typer.Option(
    "--max-hands", min=1, help="Refuse a match of more dealing attempts than this.")]


def limits_of(max_bytes: int, max_records: int, max_hands: int) -> Limits:
    return Limits(max_bytes=max_bytes, max_records=max_records, max_hands=max_hands)


# ------------------------------------------------------------------ verify
@app.command()
def verify(
    logs: Annotated[list[Path], typer.Argument(help="Log files to verify.", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="The verdicts as JSON.")] = False,
    key: Annotated[Path | None, typer.Option(
        help="The platform's public key (PEM) to pin; otherwise the key inside the log.")] = None,
    keys: Annotated[Path | None, typer.Option(
        help="A keys file (TOML: platform name = its public key, hex or PEM) to pin: the log "
             "must be signed by one of them. Default: keys.toml in the user's config "
             "directory, when it exists.")] = None,
    root: Annotated[str | None, typer.Option(
        help="The season root the platform published (hex), to pin.")] = None,
    max_bytes: MaxBytes = DEFAULT_LIMITS.max_bytes,
    max_records: MaxRecords = DEFAULT_LIMITS.max_records,
    max_hands: MaxHands = DEFAULT_LIMITS.max_hands,
) -> None:
    """Replay logs and check every deal, move, score and the winner.

    The first line of each verdict names the signing key and whether it was pinned: a
    key the log names itself proves nothing about who wrote it.

    Exit code: 0 every log clean, 1 findings, 2 a log unreadable or not a log.
    """
    limits = limits_of(max_bytes, max_records, max_hands)
    public = pinned_key(key)
    named = platform_keys(keys)
    try:
        pinned_root = parse_hex(root, "season root", 32) if root is not None else None
    except AuditError as e:
        fail(str(e))
    verdicts = []
    for path in logs:
        v = verify_file(str(path), public, count_paths=as_json, root=pinned_root, keys=named,
                        limits=limits)
        verdicts.append(v)
        if not as_json:
            _print_verdict(v)
    if as_json:
        print(json.dumps([v.to_json() for v in verdicts], ensure_ascii=False, indent=1))
    raise typer.Exit(max(v.exit_code for v in verdicts))


def _print_verdict(v: Verdict) -> None:
    """The verdict: its first line says what was replayed and who signed it (data is
    never passed through rich markup)."""
    if v.findings or v.error is None:
        head = (f"{v.path}: {len(v.findings)} finding(s)", "bold red") if v.findings \
            else (f"{v.path}: clean", "green")
        out.print(Text.assemble(head, f" ({v.deals_line()}); {v.signed_by()}"))
        for f in v.findings:
            out.print(f"  {f}", markup=False)
    for note in v.notes:
        out.print(f"  note: {note}", markup=False)
    if v.error is not None:
        err.print(f"tarneeb: error: {v.error}", markup=False)


# ------------------------------------------------------------------ show
@app.command()
def show(
    log: Annotated[Path, typer.Argument(help="The log file.", show_default=False)],
    hand: Annotated[int | None, typer.Option(help="Only this dealing attempt (0-based).")] = None,
    max_bytes: MaxBytes = DEFAULT_LIMITS.max_bytes,
    max_records: MaxRecords = DEFAULT_LIMITS.max_records,
    max_hands: MaxHands = DEFAULT_LIMITS.max_hands,
) -> None:
    """The match as a player would read it: hands, bids, tricks, scores."""
    try:
        parsed = read_log(str(log), limits_of(max_bytes, max_records, max_hands))
    except LogError as e:
        fail(str(e))
    verdict = verify_log(parsed, str(log))
    if hand is not None and not any(h.deal_number == hand for h in verdict.history):
        fail(f"{log}: there is no hand {hand} (hands 0-{len(verdict.history) - 1})")
    for line in narrate(parsed, verdict, verdict.history, hand):
        out.print(line)
    if parsed.cut_short is not None:
        fail(str(parsed.cut_short))


# ------------------------------------------------------------------ play
@app.command()
def play(
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write the log.")],
    rules: Annotated[str | None, typer.Option(help="Rule set: eram41, qahwa41, sahrat41, "
                                              "sahrat400 or classic.")] = None,
    option: Annotated[list[str] | None, typer.Option(
        help="House option KEY=VALUE, e.g. target=61 (repeatable).")] = None,
    rules_file: Annotated[Path | None, typer.Option(help="A TOML rules file.")] = None,
    seed: Annotated[str | None, typer.Option(
        help="Reproducible run: derive every secret from this text (NOT secret; for "
             "fixtures and demos only).")] = None,
    key: Annotated[Path | None, typer.Option(
        help="Sign with this platform private key (PEM); default: a fresh key.")] = None,
    season: Annotated[Path | None, typer.Option(
        help="A season committed with 'tarneeb commit --matches N --json': play one of its "
             "matches, with its seed and inclusion proof.")] = None,
    season_match: Annotated[int, typer.Option(help="Which match of --season (0-based).")] = 0,
) -> None:
    """Play a whole match between computer players and write its signed log."""
    ruleset = load_rules(rules, option, rules_file)
    private = None
    if key is not None:
        try:
            private = load_private_key_file(key)
        except AuditError as e:
            fail(str(e))
    server_seed, batch = season_match_of(season, season_match) if season else (None, None)
    try:
        data = play_logged_match(ruleset, seed=seed_bytes(seed) if seed is not None else None,
                                 key=private, server_seed=server_seed, batch=batch)
    except MatchTooLong as e:
        fail(str(e))
    write_atomically(output, data)
    parsed = parse_log(data)
    winner = parsed.end.winner if parsed.end else None
    totals = parsed.hands[-1].totals if parsed.hands else [0, 0, 0, 0]
    out.print(f"wrote {output}: {ruleset.name}, {len(parsed.hands)} dealing attempts, "
              f"{'team 0+2' if winner == 0 else 'team 1+3'} won, totals {totals}, "
              f"{len(data)} bytes", markup=False)
    if seed is not None:
        out.print("reproducible run: every seed and the signing key come from --seed; "
                  "they are not secret", markup=False)


def season_match_of(path: Path, index: int) -> tuple[bytes, BatchProof]:
    """Match ``index`` of a season file: its server seed and inclusion proof, checked."""
    try:
        doc = json.loads(read_bytes(path))
        size, root = doc["size"], parse_hex(doc["root"], "season root", 32)
        entry = next((m for m in doc["matches"] if m["index"] == index), None)
        if entry is None:
            fail(f"{path}: the season has no match {index} (matches 0-{size - 1})")
        seed = parse_hex(entry["server_seed"], f"match {index} server seed", 32)
        proof = [parse_hex(h, f"match {index} proof", 32) for h in entry["proof"]]
        verify_inclusion(server_commitment(seed), index, size, proof, root)
    except (ValueError, KeyError, TypeError) as e:  # JSON, field and proof errors
        what = f"missing field {e}" if isinstance(e, KeyError) else str(e)
        fail(f"{path}: not a season from 'tarneeb commit --matches N --json': {what}")
    return seed, BatchProof(index, size, proof, root)


# ------------------------------------------------------------------ export / import
@app.command("export")
def export_json(
    log: Annotated[Path, typer.Argument(help="The log file.", show_default=False)],
    output: Annotated[Path | None, typer.Option("-o", "--output",
                                                help="JSON file (default: stdout).")] = None,
    max_bytes: MaxBytes = DEFAULT_LIMITS.max_bytes,
    max_records: MaxRecords = DEFAULT_LIMITS.max_records,
    max_hands: MaxHands = DEFAULT_LIMITS.max_hands,
) -> None:
    """The JSON form of a log (converts back without loss with ``tarneeb import``)."""
    try:
        text = logjson.dumps_log(read_log(str(log), limits_of(max_bytes, max_records, max_hands)))
    except LogError as e:
        fail(str(e))
    if output is None:
        sys.stdout.write(text + "\n")
    else:
        write_atomically(output, (text + "\n").encode())


@app.command("import")
def import_json(
    source: Annotated[Path, typer.Argument(help="The JSON log.", show_default=False)],
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write the log.")],
) -> None:
    """A log from its JSON form, byte for byte as exported."""
    raw = read_bytes(source)
    try:
        data = logjson.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        fail(f"{source}: not UTF-8 text")
    except LogError as e:
        fail(f"{source}: {e}")
    write_atomically(output, data)


@app.command()
def dump(
    log: Annotated[Path, typer.Argument(help="The log file.", show_default=False)],
    hands: Annotated[int | None, typer.Option(help="Show at most this many hand records.")] = None,
) -> None:
    """An annotated hex dump: every field of every record at its byte offset."""
    data = read_bytes(log)
    for line in annotate(data, hands):
        print(line)


def main(argv: list[str] | None = None) -> None:
    """Entry point: bad input ends in one line on stderr and exit code 2, never a traceback."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv if argv is not None else sys.argv[1:], prog_name="tarneeb",
                             standalone_mode=False)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.TyperException as e:  # click's usage errors, as typer ships them
        message = e.format_message() if hasattr(e, "format_message") else str(e)
        ctx = getattr(e, "ctx", None)
        if type(e).__name__ == "NoArgsIsHelpError" and ctx is not None:
            out.print(ctx.get_help(), markup=False)
            sys.exit(2)
        where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        err.print(f"tarneeb: error: {message}{where}", markup=False)
        sys.exit(getattr(e, "exit_code", 2) or 2)
    except KeyboardInterrupt:
        err.print("tarneeb: interrupted", markup=False)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
