"""The docs stand alone: no reference outside the repository, links that resolve, and
docs/RULES.md's value tables are the presets' own values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tarneeb.replay.rules.ruleset import PRESETS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "ARCHITECTURE.md",
        *sorted((ROOT / "docs").glob("*.md")), ROOT / "fixtures" / "README.md"]
RULES_MD = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_no_reference_outside_the_repository(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    assert not re.search(r"\.\./|shared folder|/work/|\bseeds/", text), doc


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_resolve(doc: Path) -> None:
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
        if not re.match(r"[a-z]+:", target):  # not an absolute URL
            assert (doc.parent / target).exists(), f"{doc.name}: link to {target} goes nowhere"


def _table(heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading`` (cells stripped of backticks)."""
    start = RULES_MD.index(heading)
    rows = []
    for line in RULES_MD[start:].splitlines()[1:]:
        if line.startswith("|"):
            rows.append([c.strip().replace("`", "") for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]  # below the head and its rule


def test_every_preset_value_table() -> None:
    rows = {r[0]: [int(v) for v in r[1:]] for r in _table("### The value of a bid")}
    for name, rules in PRESETS.items():
        if rules.scoring != "personal":
            continue
        if rules.values_high is None:
            assert rows[name] == [rules.bid_value(b, 0) for b in range(2, 14)], name
        else:
            assert rules.values_high_from == 30
            assert rows[f"{name}, own score below 30"] == [
                rules.bid_value(b, 29) for b in range(2, 14)]
            assert rows[f"{name}, own score 30 or more"] == [
                rules.bid_value(b, 30) for b in range(2, 14)]
    assert {r for r in rows if "," not in r} | {"sahrat400"} == {
        n for n, r in PRESETS.items() if r.scoring == "personal"}


def test_the_400_minimums() -> None:
    bids, totals = _table("### `sahrat400`: the rising minimums")
    r = PRESETS["sahrat400"]
    assert [int(v) for v in bids[1:]] == [r.min_bid, *(m for _, m in r.min_bid_steps)]
    assert [int(v) for v in totals[1:]] == [r.min_total, *(m for _, m in r.min_total_steps)]
    assert [s for s, _ in r.min_bid_steps] == [s for s, _ in r.min_total_steps] == [30, 40, 50]


def test_the_classic_scores() -> None:
    rows = {r[0]: r[1:] for r in _table("| the hand | B | O |")}
    c = PRESETS["classic"]
    assert rows["b < 13, made, all 13 tricks"][0] == f"+ {c.all_tricks_value}"
    assert rows["b = 13 (kaboot), made"][0] == f"+ {c.kaboot_made_value}"
    assert rows["b = 13, failed"][0] == f"− {c.kaboot_failed_value}"
    assert rows["b < 13, failed (t < b)"][1].endswith(f"+ {c.defenders_all_tricks_value} if O "
                                                       "took all 13")
    assert c.kaboot_defenders_factor == 1
    assert rows["b = 13, failed"][1].endswith(f"+ {c.kaboot_defenders_all_tricks_value} if O "
                                              "took all 13")


# The command's options, as the docs give them and as the command takes them. The docs a
# reader runs examples from: every option they give a command must be one it takes, and
# every option a command takes is named somewhere in the docs.
EXAMPLE_DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                ROOT / "js" / "README.md", ROOT / "examples" / "node" / "README.md",
                ROOT / "fixtures" / "README.md"]
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


def _options() -> dict[str, set[frozenset[str]]]:
    """Each command's options, an option being the set of its names (``-o``, ``--output``)."""
    import typer

    from tarneeb.cli.app import app

    group = typer.main.get_command(app)
    commands = getattr(group, "commands", {})
    assert commands, "the tarneeb command has no subcommands"
    return {name: {frozenset((*p.opts, *p.secondary_opts)) for p in cmd.params
                   if p.param_type_name == "option"}
            for name, cmd in commands.items()}


def _options_given(text: str, commands: set[str]) -> list[tuple[str, str, str]]:
    """(command, option, line) for every option written after ``tarneeb COMMAND`` on a line,
    up to the end of its code span, a comment, a pipe or the next command; quoted
    arguments (another program's command line) left out."""
    found = []
    names = "|".join(sorted(map(re.escape, commands), key=len, reverse=True))
    for line in text.splitlines():
        for m in re.finditer(rf"(?<![\w./-])tarneeb ({names})(?![\w-])", line):
            rest = re.split(r"`|\s#|\||;|&&|\)", line[m.end():])[0]
            rest = re.sub(r"\"[^\"]*\"|'[^']*'", "", rest)
            found += [(m.group(1), o, line.strip()) for o in _OPTION.findall(rest)]
    return found


def test_every_option_the_docs_give_a_command_is_one_it_takes() -> None:
    options = _options()
    wrong = []
    for doc in EXAMPLE_DOCS:
        for command, option, line in _options_given(doc.read_text(encoding="utf-8"),
                                                    set(options)):
            if option not in {"-h"} and not any(option in o for o in options[command]):
                wrong.append(f"{doc.name}: tarneeb {command} has no {option}: {line}")
    assert not wrong, "\n".join(wrong)


def test_every_option_of_every_command_is_documented() -> None:
    text = "\n".join(d.read_text(encoding="utf-8") for d in DOCS)
    named = set(_OPTION.findall(text))
    missing = [f"tarneeb {command} {'/'.join(sorted(option))}"
               for command, opts in _options().items() for option in opts
               if not option & named]
    assert not missing, f"options no doc names: {missing}"


def test_the_option_check_reads_commands_as_a_reader_does() -> None:
    given = _options_given(
        'tarneeb regress --engine-cmd "node e.js --fast" logs/  # not --this\n'
        "`tarneeb verify --key K LOG` and `python -c 'x' --other`\n", {"regress", "verify"})
    assert [(c, o) for c, o, _ in given] == [("regress", "--engine-cmd"), ("verify", "--key")]


def test_the_receipt_file_shown_has_the_fields_a_receipt_has() -> None:
    """docs/FORMAT.md's example receipt names every field ``tarneeb play --receipt-out``
    writes, and no other (a receipt with a field not listed is refused)."""
    import json

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tarneeb.replay.verify.receipt import make_receipt

    format_md = (ROOT / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    start = format_md.index("## Receipt file")
    shown = re.search(r"^```json\n(.*?)^```$", format_md[start:], re.S | re.M)
    assert shown
    made = make_receipt(Ed25519PrivateKey.generate(), rules="eram41",
                        seats=["A", "B", "C", "D"], match_id=bytes(8),
                        server_commitment=bytes(32), client_commitments=[bytes(32)] * 4)
    assert list(json.loads(shown.group(1))) == list(json.loads(made))


def test_the_readme_lists_every_exit_code() -> None:
    """0, 1, 2, the audit's 3 and 130 for a run interrupted (Ctrl-C), in the one sentence
    of the README that lists them."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    sentence = re.search(r"exit code 0 .*?\.", readme)
    assert sentence, "the README lists no exit codes"
    for code in ("0", "1", "2", "3", "130"):
        assert re.search(rf"\b{code}\b", sentence.group(0)), (code, sentence.group(0))
