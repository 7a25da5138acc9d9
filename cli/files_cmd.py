"""``tarneeb export``, ``import`` and ``dump``: a log in its JSON form and back, and an
annotated hex dump of its bytes."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from tarneeb.audit.encoding import json_shown
from tarneeb.replay.log.stream import DEFAULT_LIMITS

from .common import (
    LOG_MAGIC,
    fail,
    json_form,
    open_input,
    read_input,
    read_log_bytes,
    refuse_to_replace,
    shown_name,
)
from .common import write_output as write_atomically
from .options import FILES, MaxBytes, MaxHands, MaxRecords, limits_of


def register(app: typer.Typer) -> None:
    """Add the commands to ``app``."""
    @app.command("export", rich_help_panel=FILES)
    def export_json(
        log: Annotated[Path, typer.Argument(
            metavar="LOG", help="The log file (- for standard input).", show_default=False)],
        output: Annotated[str | None, typer.Option(
            "-o", "--output", metavar="FILE", help="JSON file (default or -: stdout).")] = None,
        max_bytes: MaxBytes = DEFAULT_LIMITS.max_bytes,
        max_records: MaxRecords = DEFAULT_LIMITS.max_records,
        max_hands: MaxHands = DEFAULT_LIMITS.max_hands,
    ) -> None:
        """Write a log in its JSON form (tarneeb import reads it back).

        The JSON converts back to the same log, byte for byte.
        """
        from tarneeb.replay.log import LogError
        from tarneeb.replay.log import jsonform as logjson

        if output is not None:
            refuse_to_replace(output, log)
        try:  # the bytes, read within the cap: a log cut short carries those after the cut
            limits = limits_of(max_bytes, max_records, max_hands)
            data = read_log_bytes(log, limits)
            text = logjson.dumps(data, shown_name(log), limits)
        except LogError as e:
            swapped = str(log) != "-" and "not a tarneeb log" in str(e) and _is_json_form(log)
            fail(f"{e}" + ("; it is a log's JSON form already: tarneeb import turns it back into "
                           "the log" if swapped else ""))
        if output is None:
            sys.stdout.write(json_shown(text) + "\n")
        else:
            write_atomically(output, (text + "\n").encode())


    @app.command("import", rich_help_panel=FILES)
    def import_json(
        source: Annotated[Path, typer.Argument(
            metavar="JSON", help="The JSON log (- for standard input).", show_default=False)],
        output: Annotated[str, typer.Option("-o", "--output", metavar="FILE",
                                            help="Where to write the log (- for stdout).")],
        sign_key: Annotated[Path | None, typer.Option(
            "--sign", metavar="KEY", help="Sign the log with this platform private key (PEM): "
            "the JSON then ends with its end record, without a signature.")] = None,
        max_bytes: MaxBytes = DEFAULT_LIMITS.max_bytes,
        max_records: MaxRecords = DEFAULT_LIMITS.max_records,
        max_hands: MaxHands = DEFAULT_LIMITS.max_hands,
    ) -> None:
        """Turn the JSON form of a log back into the log.

        Byte for byte as exported; or, with --sign, the JSON a server in another language
        wrote, signed with the platform's key.
        """
        from tarneeb.replay.log import LogError
        from tarneeb.replay.log import jsonform as logjson

        refuse_to_replace(output, source, sign_key)
        limits = limits_of(max_bytes, max_records, max_hands)
        private = None
        if sign_key is not None:
            from tarneeb.audit.errors import AuditError
            from tarneeb.audit.signing import load_private_key_file

            try:
                private = load_private_key_file(sign_key)
            except AuditError as e:
                fail(str(e))
        # a longer file is refused unread; from stdin one byte more says "too long"
        raw = read_input(source, limits.max_json_bytes,
                         "; a JSON log holds at most eight times --max-bytes")
        try:
            data = logjson.loads(raw.decode("utf-8"), limits, signing=private is not None)
            if private is not None:
                data = logjson.sign_log(data, private)
        except (UnicodeDecodeError, LogError) as e:
            what = "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else str(e)
            if LOG_MAGIC in raw[:16]:  # the log itself: its header record starts so
                what += "; it is a log, not its JSON form: tarneeb export writes the JSON"
            fail(f"{source}: {what}")
        write_atomically(output, data)




    def _is_json_form(path: Path) -> bool:
        """Whether ``path`` holds a log's JSON form (``tarneeb export``'s output)."""
        from tarneeb.replay.log import LogError

        try:
            return json_form(path) is not None
        except LogError:
            return False


    @app.command(rich_help_panel=FILES)
    def dump(
        log: Annotated[Path, typer.Argument(
            metavar="LOG", help="The log file (- for standard input).", show_default=False)],
        hands: Annotated[int | None, typer.Option(
            metavar="N", min=0, help="Show at most this many hand records.")] = None,
        max_bytes: MaxBytes = DEFAULT_LIMITS.max_bytes,
        max_records: MaxRecords = DEFAULT_LIMITS.max_records,
        max_hands: MaxHands = DEFAULT_LIMITS.max_hands,
        as_json: Annotated[bool, typer.Option(
            "--json", help="Every record and field as JSON: offset, bytes (hex), name, meaning.")
        ] = False,
    ) -> None:
        """An annotated hex dump of a log: every field at its offset.

        Every field of every record, at its byte offset. Bytes that are not a whole,
        readable log are dumped as far as they go, with the damage in place, and the
        first problem is named on stderr (exit 2).
        """
        from tarneeb.replay.log import LogError
        from tarneeb.replay.log.annotate import entries, first_problem, lines_of

        limits = limits_of(max_bytes, max_records, max_hands)
        problem = None
        # the bytes once (within the cap): dumped, then read by the log's own reader, which
        # checks what an annotation does not (a text field's characters, a record after
        # the signature): a log it finds unreadable is never a dump of exit 0
        with open_input(log) as given:
            data = given.read(limits.max_bytes + 1)  # (one byte more: the cap is said)
        with io.BytesIO(data) as f:
            try:
                if as_json:
                    shown_entries = list(entries(f, hands, limits))
                    sys.stdout.write(json_shown(json.dumps(shown_entries, ensure_ascii=False,
                                                           indent=1)) + "\n")
                    for e in shown_entries:
                        problem = first_problem(e, problem)
                else:
                    for e in entries(f, hands, limits):
                        problem = first_problem(e, problem)
                        for line in lines_of(e):
                            print(line)
            except LogError as e:
                e.path = shown_name(log)
                fail(str(e))
        if problem is None:
            from tarneeb.replay.log import parse_log

            try:
                cut = parse_log(data, shown_name(log), limits).cut_short
            except LogError as e:
                problem = str(e).removeprefix(f"{shown_name(log)}: ")
            else:
                problem = None if cut is None else f"{cut.message} at offset {cut.offset:#x}"
        if problem is not None:  # the dump shown whole, the damage in place
            fail(f"{shown_name(log)}: {problem}")
