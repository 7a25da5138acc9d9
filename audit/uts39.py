"""UTS #39 (Unicode Security Mechanisms) data for platform names: the one table both
verifiers read, ``audit/uts39.txt``.

The table holds, for the Unicode version its header names:

- ``allowed``: the code points whose Identifier_Status is Allowed (UTS #39 §3.1, the
  General Security Profile), as runs;
- ``types``: for every other code point, its Identifier_Type values (Not_XID, Technical,
  Obsolete …), so an error can say why a character is not allowed;
- ``ignorable``: Default_Ignorable_Code_Point (characters drawn as nothing);
- ``elongation``: Joining_Type = Join_Causing less the zero-width joiner (the Arabic
  tatweel U+0640, the N'Ko lajanyalan U+07FA, the Mongolian nirugu U+180A …): they
  lengthen the line joining two letters and change no letter;
- ``prototypes``: each character's prototype from confusables.txt (the skeleton's
  mapping, several characters for some: ``m`` → ``rn``), with this project's additions
  (:data:`ADDITIONS`), applied wherever a prototype holds the added character.

It is written from ICU (PyICU, from the ``pyicu-wheels`` package, which carries ICU's
libraries; ICU's data holds confusables.txt and the identifier properties of the
Unicode version it names): ``python -m tarneeb.audit.uts39`` (a development step,
not needed at run time; ``--check`` says whether the committed table is what it writes).
``js/scripts/tables.py`` copies the table's lines into ``js/src/data/names.ts``, and each
verifier reads the same lines with :func:`parse` (Python) and ``js/src/text/uts39.ts``.

>>> data = table()
>>> data.allowed(ord("a")), data.allowed(0x0640), data.prototypes["m"]
(True, False, 'rn')
>>> data.types(0x1D159), data.elongation(0x0640)
(('Not_XID', 'Technical'), True)
"""

from __future__ import annotations

import bisect
import functools
import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parent / "uts39.txt"

# Additions to confusables.txt, applied like its own mappings. ``d`` drawn next to ``cl``
# in most sans-serif faces is the same shape (``carclroom`` for ``cardroom``), and
# confusables.txt maps neither; so ``d`` (and every character whose prototype holds it)
# maps to ``cl``.
ADDITIONS = {"d": "cl"}

# the Identifier_Type values of UTS #39 (IdentifierType.txt), in the table's order
TYPES = ("Not_Character", "Deprecated", "Default_Ignorable", "Not_NFKC", "Not_XID",
         "Exclusion", "Obsolete", "Technical", "Uncommon_Use", "Limited_Use", "Inclusion",
         "Recommended")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def b36(n: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _DIGITS[r] + out
        if not n:
            return out


def _runs(flags: list[int]) -> str:
    """Alternating run lengths of a value over every code point, starting with value 0's
    run (possibly empty), each run's value given after a dot when not a yes/no."""
    out: list[str] = []
    prev, start = flags[0], 0
    for cp in range(1, len(flags) + 1):
        v = flags[cp] if cp < len(flags) else -1
        if v != prev:
            out.append(b36(cp - start) + "." + b36(prev))
            prev, start = v, cp
    return ",".join(out)


def _decode_runs(text: str) -> tuple[list[int], list[int]]:
    starts: list[int] = []
    values: list[int] = []
    at = 0
    for row in text.split(","):
        n, v = row.split(".")
        starts.append(at)
        values.append(int(v, 36))
        at += int(n, 36)
    return starts, values


@dataclass(frozen=True)
class Uts39:
    version: str
    _allowed: tuple[list[int], list[int]]
    _types: tuple[list[int], list[int]]
    _ignorable: tuple[list[int], list[int]]
    _elongation: tuple[list[int], list[int]]
    prototypes: dict[str, str]

    @staticmethod
    def _at(runs: tuple[list[int], list[int]], cp: int) -> int:
        return runs[1][bisect.bisect_right(runs[0], cp) - 1]

    def allowed(self, cp: int) -> bool:
        """Identifier_Status = Allowed."""
        return self._at(self._allowed, cp) == 1

    def types(self, cp: int) -> tuple[str, ...]:
        """The Identifier_Type values of ``cp``."""
        bits = self._at(self._types, cp)
        return tuple(t for i, t in enumerate(TYPES) if bits >> i & 1)

    def ignorable(self, cp: int) -> bool:
        """Default_Ignorable_Code_Point."""
        return self._at(self._ignorable, cp) == 1

    def elongation(self, cp: int) -> bool:
        """Joining_Type = Join_Causing, the zero-width joiner excepted (the tatweel …)."""
        return self._at(self._elongation, cp) == 1


def parse(text: str) -> Uts39:
    """The table from its text (the lines of ``uts39.txt``: ``key value``; ``#`` comments)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition(" ")
            fields[key] = value
    protos: dict[str, str] = {}
    prev = 0
    for row in fields["prototypes"].split(","):
        delta, to = row.split(":")
        prev += int(delta, 36)
        protos[chr(prev)] = "".join(chr(int(x, 36)) for x in to.split(".") if x)  # "": removed
    return Uts39(fields["version"], _decode_runs(fields["allowed"]), _decode_runs(fields["types"]),
                 _decode_runs(fields["ignorable"]), _decode_runs(fields["elongation"]), protos)


@functools.cache
def table() -> Uts39:
    """The table this package ships (read once)."""
    return parse(TABLE.read_text(encoding="utf-8"))


def write() -> str:
    """The table's text, from ICU's data (needs PyICU: ``pip install pyicu-wheels``)."""
    icu: Any = importlib.import_module("icu")
    spoof = icu.SpoofChecker()

    def members(pattern: str) -> list[int]:
        s = icu.UnicodeSet(pattern)
        flags = [0] * 0x110000
        for i in range(s.getRangeCount()):
            for cp in range(ord(s.getRangeStart(i)), ord(s.getRangeEnd(i)) + 1):
                flags[cp] = 1
        return flags

    allowed = members("[:Identifier_Status=Allowed:]")
    types = [0] * 0x110000
    for i, name in enumerate(TYPES):
        for cp, yes in enumerate(members(f"[:Identifier_Type={name}:]")):
            if yes and not allowed[cp]:
                types[cp] |= 1 << i
    ignorable = members("[:Default_Ignorable_Code_Point:]")
    elongation = members("[:Joining_Type=Join_Causing:]")
    elongation[0x200D] = 0  # the zero-width joiner: a joiner, judged as one
    nfd = icu.Normalizer2.getNFDInstance()
    protos: dict[int, str] = {}
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        if nfd.normalize(c) != c:
            continue  # the skeleton decomposes it first: never looked up
        skel = spoof.getSkeleton(0, c)
        skel = "".join(ADDITIONS.get(x, x) for x in skel)
        if skel != c:
            protos[cp] = skel
    rows, prev = [], 0
    for cp in sorted(protos):
        rows.append(b36(cp - prev) + ":" + ".".join(b36(ord(x)) for x in protos[cp]))
        prev = cp
    return ("# UTS #39 data for platform names, read by both verifiers: written by\n"
            "# python -m tarneeb.audit.uts39 from ICU's data: do not edit.\n"
            "# Unicode data: Copyright (c) 1991-2024 Unicode, Inc., under the Unicode License\n"
            "# v3 (https://www.unicode.org/license.txt); confusables.txt with the additions of\n"
            f"# audit/uts39.py: {', '.join(f'{k} -> {v}' for k, v in ADDITIONS.items())}.\n"
            f"# Runs are base-36 length.value over every code point; prototypes are\n"
            f"# base-36 delta:code.points.\n"
            f"version {icu.UNICODE_VERSION}\n"
            f"icu {icu.ICU_VERSION}\n"
            f"allowed {_runs(allowed)}\n"
            f"types {_runs(types)}\n"
            f"ignorable {_runs(ignorable)}\n"
            f"elongation {_runs(elongation)}\n"
            f"prototypes {','.join(rows)}\n")


def main(argv: list[str]) -> int:
    text = write()
    if "--check" in argv:
        if TABLE.read_text(encoding="utf-8") != text:
            print("audit/uts39.txt is not what python -m tarneeb.audit.uts39 writes",
                  file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
