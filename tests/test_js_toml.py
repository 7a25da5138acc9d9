"""Keys files that are not TOML (1.0, as tomllib reads it), or that hold what only TOML 1.1
allows: both verifiers refuse each with the same one line, ``FILE: not TOML from line N:
<what a keys file holds>``, not their parsers' own words (which differ, and place the
error differently: "line 1, column 18" and "end of document" for the same line).

The line is the one after the longest prefix of whole lines that is TOML
(``tarneeb.audit.tomltext``, ``js/src/text/tomltext.ts``). Every vector is read by Python's
``parse_keys`` in this process and by the JS ``parseKeys`` in one node run; some of them (and
more of TOML 1.1) go through both CLIs in tests/test_js_conformance.py (``KEY_FILES``).
"""

from __future__ import annotations

import json
import random
import subprocess
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_js_conformance import JS, node  # noqa: F401 (a fixture: js/ built)

from tarneeb.audit import tomltext
from tarneeb.audit.errors import KeyFileError
from tarneeb.audit.signing import parse_keys
from tarneeb.audit.tomltext import KEYS_HINT, from_line
from tarneeb.replay.rules.ruleset import RulesError, parse_rules_text

KEY = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
# (text, the line named): each was worded differently by the two parsers before
NOT_TOML = [
    ('"cardroom" = "abc\n', 1),  # a string not closed on its line
    ("cardroom = \n", 1),  # no value
    (f'"a" = "{KEY}"\n"a" = "{KEY}"\n', 2),  # a name given twice
    ("[x\n", 1),  # a table header not closed
    ("x = 1 2\n", 1),  # two values
    ('= "11"\n', 1),  # no name
    ('"a" "11"\n', 1),  # no =
    ('a = """abc\n', 1),  # a multi-line string not closed: "end of document" to tomllib
    ("a = [1, 2\n", 1),  # an array not closed
    ("a = {b = 1\n", 1),  # an inline table not closed
    ('a = "\\q"\n', 1),  # no such escape
    ("a = 1979-13-45\n", 1),  # no such date
    ("a = 0x\n", 1),
    ("a.b = 1\na = 2\n", 2),  # a table then a value of the same name
    ("a = 'x\n", 1),
    ("a = tru\n", 1),
    (f'a = "{KEY}"\n[a]\n', 2),
    (f'"Club 400" = "{KEY}"\n\n\n  b', 4),  # after blank lines, no newline at the end
    (f'"Club 400" = "{KEY}"\nx = [\n  1,\n]\ny = = 2\n', 5),  # after a multi-line array
    (f'# a comment\n"b" = """x\\\n  {KEY}\n', 2),
    # TOML 1.1 only (smol-toml reads 1.1, tomllib 1.0): an escape \xHH or \e in a string
    ('"\\x41" = "' + KEY + '"\n', 1),
    (f'"cardroom" = "\\x{KEY[:2]}{KEY[2:]}"\n', 1),
    ('"card\\eroom" = "' + KEY + '"\n', 1),
    (f'"Club 400" = "{KEY}"\n"b" = """x\\\n  \\x30"""\n', 2),
    ('a = """q""""\nb = "\\x41"\n', 2),
    # TOML 1.1 only: an inline table over several lines or with a comma before its }, a time
    # (or date-time) without seconds; tomllib stops there, smol-toml reads on
    (f'"Club 400" = "{KEY}"\n"b" = {{ k = "{KEY}"\n}}\n', 2),
    (f'"Club 400" = "{KEY}"\n\n"b" = {{ k = "{KEY}", }}\n', 3),
    ("a = 07:32\n", 1),
    (f'"Club 400" = "{KEY}"\nb = 1979-05-27 07:32\n', 2),
    (f'"Club 400" = "{KEY}"\nb = 1979-05-27T07:32:00Z\nc = 1979-05-27T07:32+01:00\n', 3),
    # in an array over several lines (the line after the last whole line before the array)
    (f'"Club 400" = "{KEY}"\nb = [\n  {{ k = [1,\n  2], m = """x\n"""}},\n  {{ k = 1,\n  }},\n]\n',
     2),
    ('a = { b = 1, }\nc = = 2\n', 1),  # before a line neither parser reads
]
# read alike (and TOML): what looks like TOML 1.1 (an escape, a time, an inline table) but
# is none
READ = [f"# \"\\x41\" in a comment\n'cardroom' = '{KEY}'\n",
        f'"Club\\u0020400" = """{KEY}"""\n"\\\\x" = \'\\x\'\n',
        # what looks like TOML 1.1 but is in a string or a comment, or is TOML 1.0
        f'"Club 07:32" = """\n{KEY}"""  # {{ k = 1, }} 07:32\n',
        f'"Club 400" = "{KEY}"\nb = {{ k = [\n  "{{ m = 1, }}", 07:32:00,\n],'
        ' n = 1979-05-27T07:32:00-05:00 }\n']


def _js(node_path: str, texts: list[str]) -> list[str]:
    script = ("import { parseKeys } from './dist/src/verify/keys.js';"
              "import { readFileSync } from 'node:fs';"
              "const texts = JSON.parse(readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(texts.map((t) => {"
              "try { return [...parseKeys(t, 'keys.toml').keys()].join('|'); }"
              " catch (e) { return 'error: ' + e.message; } })));")
    out = subprocess.run([node_path, "--input-type=module", "-e", script],
                         input=json.dumps(texts), capture_output=True, text=True, cwd=JS,
                         timeout=60, check=True)
    return list(json.loads(out.stdout))


def _py(text: str) -> str:
    try:
        return "|".join(parse_keys(text, "keys.toml"))
    except KeyFileError as e:
        return f"error: {e}"


def test_keys_files_that_are_not_toml_are_refused_in_the_same_words(
        node: str) -> None:  # noqa: F811
    texts = [t for t, _ in NOT_TOML] + READ
    py = [_py(t) for t in texts]
    assert _js(node, texts) == py
    for (text, line), said in zip(NOT_TOML, py, strict=False):
        assert said == f"error: keys.toml: not TOML from line {line}: {KEYS_HINT}", text
    assert py[len(NOT_TOML):] == ["cardroom", "error: keys.toml: '\\\\x': a name a person cannot "
                                  "read as it is written: it holds '\\\\' (U+005C), which UTS "
                                  "#39's General Security Profile does not allow in an "
                                  "identifier: its Identifier_Status is Restricted (Not_XID)",
                                  "Club 07:32", "error: keys.toml: b: the value must be a "
                                  "string: 64 hex digits or a PEM public key"]


def test_the_line_is_the_first_the_file_is_not_toml_from() -> None:
    assert from_line('a = 1\nb = "x\nc = 2\n') == 2
    assert from_line('a = 1\nb = "x\nc = 2\n', stopped_at=3) == 2  # a parser stopping later
    assert from_line("a = [\n1,\n]\nb = = 2", stopped_at=4) == 4


def test_a_rules_file_that_is_not_toml_is_said_the_same_way() -> None:
    with pytest.raises(RulesError) as e:
        parse_rules_text('name = "x"\nbase = "classic\ntarget = 41\n', "house.toml")
    assert str(e.value) == ("house.toml: not TOML from line 2: a rules file holds lines "
                            "field = value (docs/RULES.md)")


def _plain_from_line(text: str, stopped_at: int | None = None) -> int:
    """The line as the definition gives it: every prefix of whole lines tried from the
    parser's stop line back (no skipping, no budget)."""
    ends = [i + 1 for i, c in enumerate(text) if c == "\n"]
    if not text.endswith("\n"):
        ends.append(len(text))
    k = len(ends) - 1 if stopped_at is None else min(stopped_at, len(ends)) - 1
    while k > 0:
        try:
            tomllib.loads(text[:ends[k - 1]])
            break
        except (tomllib.TOMLDecodeError, RecursionError, ValueError):
            k -= 1
    return max(k, 0) + 1


PIECES = ['a = 1', 'b = "x', '"', "'", '"""', "'''", "[", "]", "{", "}", " # c", "\\", "\n",
          "\n", "\n", "x = [", "1,", 'k = """y', "q = '''z", "[t]", "= 2", '"#"', "'['",
          '\\"', "\\\n", "\r\n", '""""', "c = {d = 1}", "é", "\U0001F0A1"]


@given(st.lists(st.sampled_from(PIECES), max_size=14))
@settings(max_examples=400, deadline=None)
def test_lines_ending_in_a_string_or_array_are_skipped_exactly(pieces: list[str]) -> None:
    """Skipping the prefixes that end inside a string, an array or an inline table
    (:func:`open_at_line_ends`) never skips one that is TOML: the line named is the
    definition's, every prefix parsed."""
    text = "".join(pieces)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert from_line(text) == _plain_from_line(text)


def test_a_file_left_open_on_its_first_line_is_named_at_it_by_both(node: str,  # noqa: F811
                                                                   monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    """A 1 MiB keys file with a string or an array left open on its first line: both
    verifiers name line 1, parsing no prefix (each of a thousand prefixes of about 1 MiB
    was parsed: minutes), and no search parses more than MOST_BYTES."""
    texts = ['"a" = """\n' + ("x" * 60 + "\n") * 17000,
             "a = [\n" + "1,\n" * 300000,
             # no prefix but the first line is TOML, none open: searched from the end (a
             # parser stopping there), the prefixes are parsed until the budget is spent
             "a = 1\n" * 200000]
    said = f"error: keys.toml: not TOML from line 1: {KEYS_HINT}"
    parsed: list[int] = []
    real = tomltext._parses
    monkeypatch.setattr(tomltext, "_parses", lambda t: parsed.append(len(t)) or real(t))
    assert [_py(t) for t in texts[:2]] == [said, said] and parsed == []
    assert tomltext.from_line(texts[2]) is None
    assert 0 < sum(parsed) <= tomltext.MOST_BYTES
    assert _js(node, texts[:2]) == [said, said]


def test_both_verifiers_find_the_same_open_line_ends(node: str) -> None:  # noqa: F811
    """js/src/text/tomltext.ts's openAtLineEnds gives what open_at_line_ends gives, on texts
    made of the pieces above (seeded: the same texts every run)."""
    rng = random.Random(7)
    texts = ["".join(rng.choices(PIECES, k=rng.randrange(20))) for _ in range(500)]
    script = ("import { openAtLineEnds } from './dist/src/text/tomltext.js';"
              "import { readFileSync } from 'node:fs';"
              "const texts = JSON.parse(readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(texts.map(openAtLineEnds)));")
    out = subprocess.run([node, "--input-type=module", "-e", script], input=json.dumps(texts),
                         capture_output=True, text=True, cwd=JS, timeout=60, check=True)
    assert json.loads(out.stdout) == [tomltext.open_at_line_ends(t) for t in texts]


def test_both_verifiers_search_for_the_line_on_the_same_budget(node: str) -> None:  # noqa: F811
    """The line a file stops being TOML from is searched for on the same budgets (parses,
    bytes parsed) in both verifiers, so a large file is named alike or not named by both."""
    script = ("import { MOST_BYTES, MOST_TRIES } from './dist/src/text/tomltext.js';"
              "process.stdout.write(JSON.stringify([MOST_BYTES, MOST_TRIES]));")
    out = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True,
                         text=True, cwd=JS, timeout=60, check=True)
    assert json.loads(out.stdout) == [tomltext.MOST_BYTES, tomltext.MOST_TRIES]
