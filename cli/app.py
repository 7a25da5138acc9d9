"""The ``tarneeb`` command: thin over the library (parse, call, print).

Each command imports the library modules it needs when it runs, so one command does
not pay for the others' imports; a plain ``tarneeb verify`` does not even load typer
(see :mod:`tarneeb.cli.verify_cmd`).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

import typer
from typer import _click as click

from tarneeb.audit.encoding import json_shown
from tarneeb.replay.log.stream import DEFAULT_LIMITS

from . import archive_cmd, audit_cmds, files_cmd, page_cmd, regress_cmd, rules_cmd, verify_cmd
from .common import (
    console,
    fail,
    json_form_instead,
    load_log,
    output_file,
    read_input,
    refuse_to_replace,
    shown_name,
    write_output,
)
from .helpstyle import GroupedCommands, plain_help
from .options import (
    CHECK,
    PLAY,
    MaxBytes,
    MaxHands,
    MaxRecords,
    PinKey,
    PinKeys,
    PinRoot,
    limits_of,
    option,
)

if TYPE_CHECKING:  # typer ships click as its own module: its classes are typer's
    from typer import _click as click

    from tarneeb.audit.signing import Ed25519PrivateKey
    from tarneeb.replay.log import BatchProof
    from tarneeb.replay.rules.ruleset import RuleSet

# --rules offers these names (help, completion, validation); a test keeps them the presets
RuleName = Literal["eram41", "qahwa41", "sahrat41", "sahrat400", "classic"]
RULE_SETS: tuple[str, ...] = get_args(RuleName)
# ... and the house-rule variants shipped in tarneeb/replay/rules/rulefiles (a test keeps them so)
VariantName = Literal["house400", "house400-31", "house400-61", "house400-double56",
                      "house400-double56-31", "house400-double56-61", "house-classic31"]
VARIANTS: tuple[str, ...] = get_args(VariantName)


def _rule_name(value: str | None) -> str | None:
    """``--rules``: a preset or a shipped variant; anything else is refused in one line
    that lists the choices."""
    if value is None or value in RULE_SETS or value in VARIANTS:
        return value
    raise typer.BadParameter(f"{value!r} is no rule set (choose from {', '.join(RULE_SETS)}, "
                             f"a shipped variant: {', '.join(VARIANTS)}, or a rules file "
                             "with --rules-file)")


def _complete_rule_name(incomplete: str) -> list[str]:
    return [n for n in (*RULE_SETS, *VARIANTS) if n.startswith(incomplete)]


def _version(value: bool) -> None:
    if value:
        from tarneeb import __version__
        from tarneeb.replay.rules.compiled import path_in_use

        print(f"tarneeb {__version__} ({path_in_use()})")
        raise typer.Exit(0)


app = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  cls=GroupedCommands, context_settings={"help_option_names": ["-h", "--help"]},
                  help="Verifiable deals and replay audits for Tarneeb (41, 400 and classic).")


@app.callback()
def _main(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the version and exit.")] = False,
) -> None:
    """Verifiable deals and replay audits for Tarneeb (41, 400 and classic)."""


class _Console:
    """The stdout (or stderr) rich console, made on first use: a command that prints
    nothing through it (a --json one, --version) does not load rich."""

    def __init__(self, stderr: bool = False) -> None:
        self._stderr = stderr

    def __getattr__(self, name: str) -> Any:
        return getattr(console(self._stderr), name)


out = _Console()
err = _Console(stderr=True)


def read_bytes(path: Path) -> bytes:
    """A small file's bytes (a season): at most 1 MiB, from a regular file or ``-``; a
    longer one, a FIFO or a read error ends the command in one line."""
    from tarneeb.audit.encoding import SMALL_FILE_BYTES

    data = read_input(path, SMALL_FILE_BYTES)
    if len(data) > SMALL_FILE_BYTES:  # standard input, one byte past the limit
        fail(f"{shown_name(path)}: more than the {SMALL_FILE_BYTES:,} bytes it may hold")
    return data


def write_atomically(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` (``-``: standard output) with the user's umask."""
    write_output(path, data)


def load_rules(name: str | None, options: list[str] | None, rules_file: Path | None) -> RuleSet:
    from tarneeb.replay.rules.house import check_shipped_name, rule_set
    from tarneeb.replay.rules.ruleset import (
        RulesError,
        check_preset_name,
        house_preset,
        load_rules_file,
        parse_option,
    )

    try:
        opts = dict(parse_option(o) for o in options or [])
        if rules_file is not None:
            return check_shipped_name(check_preset_name(
                load_rules_file(rules_file).with_options(**opts)))
        if name is None:
            fail(f"give --rules NAME ({', '.join(RULE_SETS)}, or a shipped variant: "
                 "tarneeb rules) or --rules-file FILE")
        if name in VARIANTS:
            return check_shipped_name(check_preset_name(rule_set(name).with_options(**opts)))
        return house_preset(name, opts)
    except (RulesError, TypeError) as e:
        fail(str(e))


# ------------------------------------------------------------------ verify
@app.command(rich_help_panel=CHECK)
def verify(
    logs: Annotated[list[str], typer.Argument(
        metavar="LOG...", help="Log files, directories of *.tlog files, quoted globs, "
                               "or - for standard input.", show_default=False)],
    as_json: Annotated[bool, option("--json")] = False,
    key: PinKey = None,
    keys: PinKeys = None,
    root: PinRoot = None,
    receipt: Annotated[Path | None, option("--receipt")] = None,
    server_seed: Annotated[str | None, option("--server-seed")] = None,
    max_bytes: MaxBytes = DEFAULT_LIMITS.max_bytes,
    max_records: MaxRecords = DEFAULT_LIMITS.max_records,
    max_hands: MaxHands = DEFAULT_LIMITS.max_hands,
    require_proof: Annotated[bool, option("--require-proof")] = False,
) -> None:
    """Replay logs and check every deal, move, score and the winner.

    The first line of each verdict names the signing key and whether it was pinned: a
    key the log names itself proves nothing about who wrote it. A log whose signature is
    missing, torn or wrong is not called signed: the line says so, and up to which byte
    the log was checked.

    Exit code: 0 every log clean, 1 findings (a log cut short included: everything
    before the cut is checked), 2 a log unreadable or not a log.
    """
    limits = limits_of(max_bytes, max_records, max_hands)
    raise typer.Exit(verify_cmd.run(logs, as_json, key, root, keys, limits, receipt,
                                    server_seed, require_proof))


# ------------------------------------------------------------------ show
@app.command(rich_help_panel=CHECK)
def show(
    log: Annotated[Path, typer.Argument(
        metavar="LOG", help="The log file (- for standard input).", show_default=False)],
    hand: Annotated[int | None, typer.Option(
        metavar="N", help="Only this hand, counted from 1 as the text shows them (with "
                         "--json too: its deal number is N-1).")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="The replayed match as JSON (numbers from 0, as in the log).")] = False,
    key: PinKey = None,
    keys: PinKeys = None,
    max_bytes: MaxBytes = DEFAULT_LIMITS.max_bytes,
    max_records: MaxRecords = DEFAULT_LIMITS.max_records,
    max_hands: MaxHands = DEFAULT_LIMITS.max_hands,
) -> None:
    """The match as players read it: hands, bids, tricks and scores.

    Who signed the log first, then every hand (or one, --hand N, counted from 1). Exit
    code as for verify: 0 clean, 1 findings (anywhere in the log), 2 unreadable.
    """
    from tarneeb.replay.log import LogError
    from tarneeb.replay.verify.narrate import describe, narrate
    from tarneeb.replay.verify.replayer import verify_log

    trust = verify_cmd.trust_of(key, keys, limits=limits_of(max_bytes, max_records,
                                                            max_hands))
    try:
        parsed = load_log(log, trust.limits)
    except LogError as e:
        fail(str(e))
    name = shown_name(log)
    verdict = verify_log(parsed, name, trust)
    # --hand counts from 1, as the text does, with --json too (whose deal numbers are N-1)
    deal = None if hand is None else hand - 1
    last = len(verdict.history)
    if hand is not None and hand < 1:
        fail(f"--hand {hand}: hands count from 1 ({name} has hands 1-{last})")
    if deal is not None and not any(h.deal_number == deal for h in verdict.history):
        fail(f"{name}: there is no hand {hand} (hands 1-{last})")
    if as_json:
        sys.stdout.write(json_shown(json.dumps(describe(parsed, verdict, verdict.history, deal),
                                               ensure_ascii=False, indent=1)) + "\n")
    else:
        for line in narrate(parsed, verdict, verdict.history, deal):
            out.print(line)  # rich Text: styled spans, no markup
    raise typer.Exit(verdict.exit_code)  # (it said 0 of a log with findings)


# ------------------------------------------------------------------ report
@app.command(rich_help_panel=CHECK)
def report(
    log: Annotated[Path, typer.Argument(
        metavar="LOG", help="The log file, or - for standard input.", show_default=False)],
    output: Annotated[str | None, typer.Option(
        "-o", "--output", metavar="HTML", help="The page to write, or - for standard output. "
        "Default: beside the log, its name ending in .html (m.tlog: m.html).",
        show_default=False)] = None,
    key: PinKey = None,
    keys: PinKeys = None,
    root: PinRoot = None,
    receipt: Annotated[Path | None, typer.Option(
        metavar="FILE", help="A seat's pre-play receipt ('tarneeb play --receipt-out'): the "
                             "page then shows the commitments as promised before play.")] = None,
    max_bytes: MaxBytes = DEFAULT_LIMITS.max_bytes,
    max_records: MaxRecords = DEFAULT_LIMITS.max_records,
    max_hands: MaxHands = DEFAULT_LIMITS.max_hands,
) -> None:
    """Write one self-contained HTML page of the match for players.

    The verdict in plain words, who signed the log, the proof that the deals were fair,
    every hand and trick.

    Exit code as for verify: 0 clean, 1 findings, 2 the log is unreadable.
    """
    from tarneeb.replay.log import LogError, ParsedLog
    from tarneeb.report.match import match_report

    output = output if output is not None else str(page_beside(log))
    refuse_to_replace(output, log, key, keys, receipt)
    trust = verify_cmd.trust_of(key, keys, root, () if receipt is None else (receipt,),
                                limits=limits_of(max_bytes, max_records, max_hands))
    try:
        parsed: ParsedLog | bytes = load_log(log, trust.limits)
    except LogError as e:  # a log's JSON form (tarneeb export) is read as verify reads it
        try:
            data = json_form_instead(log, str(e), trust.limits)
        except LogError as j:
            fail(str(j))
        if data is None:
            fail(str(e))
        parsed = data
    page, verdict = match_report(parsed, shown_name(log), trust)
    write_output(output, page.encode("utf-8"))
    if str(output) != "-":
        n = len(verdict.findings)
        state = "clean" if verdict.clean else f"{n} finding{'' if n == 1 else 's'}" \
            if verdict.findings else "unreadable"
        out.print(f"wrote {output}: {state}", markup=False)
    raise typer.Exit(verdict.exit_code)


def page_beside(log: Path) -> Path:
    """Where ``tarneeb report LOG`` writes without ``-o``: beside the log, its name ending
    in ``.html`` (never the log itself).

    >>> str(page_beside(Path("logs/m.tlog"))), str(page_beside(Path("m.html")))
    ('logs/m.html', 'm.html.html')
    """
    if str(log) == "-":
        fail("a log on standard input has no name to give its page: give -o HTML "
             "(- for standard output)")
    page = log.with_suffix(".html")
    return page if page != log else log.with_name(log.name + ".html")


# ------------------------------------------------------------------ play
DEFAULT_PLAY_RULES = "classic"  # what play deals without --rules or --rules-file

@app.command(rich_help_panel=PLAY)
def play(
    output: Annotated[str, typer.Option("-o", "--output", metavar="FILE",
                                        help="Where to write the log (- for stdout).")],
    rules: Annotated[str | None, typer.Option(
        metavar="NAME", callback=_rule_name, autocompletion=_complete_rule_name,
        help=f"Rule set: {', '.join(RULE_SETS)}, or a shipped house-rule "
             "variant (tarneeb rules lists them); default: "
             f"{DEFAULT_PLAY_RULES}.")] = None,
    option: Annotated[list[str] | None, typer.Option(
        metavar="KEY=VALUE", help="House option, e.g. target=61 (repeatable).")] = None,
    rules_file: Annotated[Path | None, typer.Option(
        metavar="FILE", help="A TOML rules file (see docs/RULES.md).")] = None,
    seed: Annotated[str | None, typer.Option(
        metavar="TEXT", help="Reproducible run: derive every secret from this text "
                             "(NOT secret; for fixtures and demos only).")] = None,
    key: Annotated[Path | None, typer.Option(
        metavar="PRIVATE_KEY",
        help="Sign with this platform private key (PEM); default: a fresh key.")] = None,
    season: Annotated[Path | None, typer.Option(
        metavar="FILE", help="A season committed with 'tarneeb commit --matches N --json': "
                             "play one of its matches, with its seed and inclusion proof.")] = None,
    season_match: Annotated[int, typer.Option(
        metavar="N", help="Which match of --season (1 for the first, as the report counts "
                          "them).")] = 1,
    receipt_out: Annotated[str | None, typer.Option(
        metavar="FILE", help="Also write the pre-play receipt the platform gives each seat "
                             "(JSON), to check the log against later with 'tarneeb verify "
                             "--receipt'.")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Say what was written as JSON (path, rules, hands, winner, totals, "
                       "bytes, key id).")] = False,
    dealing: Annotated[str, typer.Option(
        metavar="MODE", help="seeds (dealt from the committed seeds) or blind (shuffled and "
                             "dealt by the four seats' own keys, so nobody sees a hand but "
                             "its own; see PROTOCOL.md §13).")] = "seeds",
    reveal_keys: Annotated[bool, typer.Option(
        help="With --dealing blind: the seats reveal their keys after the match, so every "
             "hand can be re-checked.")] = True,
) -> None:
    """Play a match between computer players and write its log.

    A whole match, its log signed by the platform key (--key, or a fresh one).
    """
    from tarneeb.audit.errors import AuditError
    from tarneeb.audit.signing import generate_private_key, load_private_key_file
    from tarneeb.replay.log import parse_log
    from tarneeb.replay.rules.players import MatchTooLong
    from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match, seed_bytes
    from tarneeb.replay.verify.receipt import receipt_json

    to_stdout = str(output) == "-"
    if dealing not in ("seeds", "blind"):
        fail(f"--dealing {dealing}: give seeds or blind")
    if dealing == "blind" and season is not None:
        fail("--season and --dealing blind: a season's matches are dealt from its seeds")
    if as_json and to_stdout:
        fail("--json and -o - would both write to standard output: give -o FILE")
    refuse_to_replace(output, key, rules_file, season, receipt_out)
    if receipt_out is not None:
        refuse_to_replace(receipt_out, key, rules_file, season)
        if receipt_out == "-" and to_stdout:
            fail("--receipt-out - and -o - would both write to standard output: give a file "
                 "for one")
        if receipt_out != "-" and not to_stdout and \
                os.path.abspath(receipt_out) == os.path.abspath(output):
            fail(f"--receipt-out {receipt_out} is the log's own file (-o): give another")
        output_file(receipt_out)  # (neither written when either cannot be: checked first)
    output_file(output)
    default = rules is None and rules_file is None
    ruleset = load_rules(DEFAULT_PLAY_RULES if default else rules, option, rules_file)
    secret = seed_bytes(seed) if seed is not None else None
    if key is not None:
        try:
            private = load_private_key_file(key)
        except AuditError as e:
            fail(str(e))
    else:
        private = MatchSecrets(secret).key if secret is not None else generate_private_key()
    server_seed, batch = season_match_of(season, season_match, private) if season \
        else (None, None)
    try:
        if dealing == "blind":
            data = _play_blind(ruleset, secret, private, reveal_keys)
        else:
            data = play_logged_match(ruleset, seed=secret, key=private,
                                     server_seed=server_seed, batch=batch)
    except MatchTooLong as e:
        fail(str(e))
    parsed = parse_log(data)
    if receipt_out is not None:  # the receipt comes first: it is given out when play starts
        write_atomically(receipt_out, receipt_json(parsed.header, private).encode())
    write_atomically(output, data)
    winner = parsed.end.winner if parsed.end else None
    totals = parsed.hands[-1].totals if parsed.hands else [0, 0, 0, 0]
    if as_json:
        from tarneeb.audit.signing import key_id

        pub = parsed.header.public_key
        sys.stdout.write(json_shown(json.dumps({
            "path": str(output), "rules": ruleset.name, "match_id": parsed.header.match_id.hex(),
            "hands": len(parsed.hands), "winner": winner, "totals": totals, "bytes": len(data),
            "key_id": key_id(pub) if pub is not None else None,
            "reproducible": seed is not None, "dealing": dealing}, ensure_ascii=False,
            indent=1)) + "\n")
        return
    from tarneeb.replay.verify.people import Table

    said = err if to_stdout else out  # the log itself is on stdout
    won = Table([s.name for s in parsed.header.seats]).team(winner) if winner is not None \
        else "nobody"
    said.print(f"wrote {'<stdout>' if to_stdout else output}: {ruleset.name}, "
               f"{len(parsed.hands)} dealing attempts"
               f"{' dealt blind' if dealing == 'blind' else ''}, "
               f"{won} won, totals {totals}, {len(data)} bytes", markup=False)
    if default:
        said.print(f"rules: {ruleset.name}, the default rule set (--rules NAME or --rules-file "
                   "FILE plays another; tarneeb rules lists them)", markup=False)
    if seed is not None:
        said.print("reproducible run: every seed and the signing key come from --seed; "
                   "they are not secret", markup=False)


def _play_blind(ruleset: RuleSet, secret: bytes | None, private: Ed25519PrivateKey,
                reveal_keys: bool) -> bytes:
    try:
        from tarneeb.replay.server.blind import play_blind_match
    except ImportError as e:  # rbcl (libsodium, bundled in its wheel) is missing
        fail(f"--dealing blind needs the rbcl package (pip install rbcl: a dependency of "
             f"tarneeb, the install is incomplete): {e}")
    return play_blind_match(ruleset, seed=secret, key=private, reveal_keys=reveal_keys)


def season_match_of(path: Path, number: int,
                    key: Ed25519PrivateKey) -> tuple[bytes, BatchProof]:
    """Match ``number`` (counted from 1) of a season file: its server seed and inclusion
    proof, checked, and the season head signed by ``key`` (a head signed at commit time
    must be by that key)."""
    from tarneeb.audit.encoding import parse_hex
    from tarneeb.audit.jsontext import read_json
    from tarneeb.audit.seeds import SeasonLeaf, server_commitment
    from tarneeb.replay.log import BatchProof

    try:
        # one reading, as a receipt's: a key given twice is refused, not its last taken
        doc = read_json(read_bytes(path), "a season file")
        size, root = doc["size"], parse_hex(doc["root"], "season root", 32)
        index = number - 1  # the leaf index, which counts from 0
        entry = next((m for m in doc["matches"] if m["index"] == index), None)
        if entry is None:
            fail(f"{path}: the season has no match {number} (matches 1-{size})")
        seed = parse_hex(entry["server_seed"], f"match {number} server seed", 32)
        written = entry.get("commitment")
        if written is not None and parse_hex(written, f"match {number} commitment", 32) \
                != server_commitment(seed):
            raise ValueError(f"match {number}'s commitment is not its server seed's")
        proof = [parse_hex(h, f"match {number} proof", 32) for h in entry["proof"]]
        leaf = SeasonLeaf(index, size, root)
        leaf.verify(server_commitment(seed), proof)
        signed = (doc.get("head") or {}).get("signature")
        head_signature = leaf.head.sign(key)
        if signed is not None:
            leaf.head.verify(key.public_key(), parse_hex(signed, "season head signature", 64))
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
        what = f"missing field {e}" if isinstance(e, KeyError) else str(e)
        fail(f"{path}: not a season from 'tarneeb commit --matches N --json' signed by this "
             f"platform key: {what}")
    return seed, BatchProof(index, size, proof, root, head_signature)


# the commands of the other modules, after verify, show, report and play in the help
files_cmd.register(app)
archive_cmd.register(app)
audit_cmds.register(app)
rules_cmd.register(app)
regress_cmd.register(app)
page_cmd.register(app)


@functools.cache
def _command() -> click.Command:
    """The click command typer builds from the app, built once (it takes longer than
    reading a log)."""
    return plain_help(typer.main.get_command(app))


def run(argv: list[str]) -> None:
    """Run ``argv`` through the typer app: bad input ends in one line on stderr and exit
    code 2, never a traceback."""
    command = _command()
    try:
        code = command.main(args=argv, prog_name="tarneeb", standalone_mode=False)
        if code == 130:  # typer's answer to Ctrl-C, said by nothing (no command exits 130)
            err.print("tarneeb: interrupted", markup=False)
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


__all__ = ["app", "fail", "plain_help", "run"]


if __name__ == "__main__":
    run(sys.argv[1:])
