"""Platform names a person reads and compares by eye: which ones can name a platform, when
two look the same, and which scripts one uses.

A keys file names each platform's key, and a verdict says "signed by <name>". A name a
person cannot read as written (one that ends in an ideographic space, holds a
zero-width space or a Mongolian variation selector, or is a lone Hangul filler that
shows as nothing), or two names that look alike (Latin ``ERAM`` and ``ЕRАМ`` with
Cyrillic Е, А, М; ``cardroom``, ``cardr00m`` and ``cardroorn``), would let a forger's key
read as a trusted platform. :func:`name_problem` says what makes a name unfit;
:func:`name_keys` are the forms names are compared in (two names that share one look
the same); :func:`name_scripts` says which scripts a name's letters come from, so a
verdict can flag a name that mixes them.

The look-alike data is Unicode's own, in one table both verifiers read
(``audit/uts39.txt``, see :mod:`tarneeb.audit.uts39`): confusables.txt of UTS #39
(Unicode Security Mechanisms), with mappings to several characters (``m`` → ``rn``) and
``d`` → ``cl`` added, each character's Identifier_Status and Identifier_Type (a name is
held to the General Security Profile: :func:`profile_problem`), the default-ignorable
code points and the elongation marks (the Arabic tatweel). :func:`skeleton` is UTS #39's
skeleton computed from it; the scripts are those the ``confusable_homoglyphs`` package
ships.

>>> skeleton("cardr00m"), skeleton("cardroom")
('carclrOOrn', 'carclroorn')
>>> sorted(name_keys("\\u0415R\\u0410\\u041c") & name_keys("Eram"))
['erarn']
>>> name_keys("carc\\u01c0room") == name_keys("cardroom") == name_keys("carclroom")
True
>>> name_problem("cardroom\\u3000")
'it holds U+3000 (IDEOGRAPHIC SPACE), a space other than the plain space U+0020'
>>> name_scripts("\\u0415R\\u0410\\u041c"), name_scripts("Club 400")
(('Cyrillic', 'Latin'), ('Latin',))
"""

from __future__ import annotations

import functools
import unicodedata

from tarneeb.audit.encoding import ascii_name_keys
from tarneeb.audit.uts39 import table as uts39_table

# scripts that go with any other: digits, punctuation, spaces, combining marks
_NEUTRAL = frozenset({"COMMON", "INHERITED", "Unknown"})

# not default-ignorable, but drawn without ink: the blank braille pattern, the Khitan
# filler, the musical null notehead (the default-ignorable code points are in the UTS #39
# table, audit/uts39.txt)
_BLANK = frozenset({0x2800, 0x16FE4, 0x1D159})
_ZWNJ, _ZWJ = "\u200c", "\u200d"
# scripts whose letters join: between two of their letters a zero-width non-joiner
# changes the letters' shapes (Persian کارت‌روم), so it shows
_JOINING = frozenset({"ARABIC", "SYRIAC", "NKO", "MONGOLIAN", "MANDAIC", "MANICHAEAN",
                      "PSALTER_PAHLAVI", "ADLAM", "HANIFI_ROHINGYA", "SOGDIAN", "OLD_UYGHUR",
                      "PHAGS_PA", "CHORASMIAN"})
_VIRAMA = 9  # the canonical combining class of a virama


def invisible(c: str) -> bool:
    """A character that shows as nothing: a format character (zero-width space and
    joiners, soft hyphen, bidi marks, tags), a default-ignorable code point (variation
    selectors, Hangul fillers, Khmer inherent vowels) or a blank glyph (U+2800).

    >>> [invisible(c) for c in ("a", "\\u200b", "\\u3164", "\\u180b", "\\u17b4", "\\u2800")]
    [False, True, True, True, True, True]
    """
    cp = ord(c)
    return unicodedata.category(c) == "Cf" or cp in _BLANK or uts39_table().ignorable(cp)


def quoted(name: str) -> str:
    """``name`` quoted as Python writes it, with every character that shows as nothing
    (:func:`invisible`) escaped too, so a message shows where it is.

    >>> print(quoted("cardroom\u180b"), quoted("\u3164"), quoted("نادي"))
    'cardroom\\u180b' '\\u3164' 'نادي'
    """
    return "".join(c if not invisible(c) else
                   f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
                   for c in repr(name))


def _char(c: str) -> str:
    name = unicodedata.name(c, "")
    return f"U+{ord(c):04X}" + (f" ({name})" if name else "")


def _joiner_shows(name: str, i: int) -> bool:
    """Whether the joiner at ``name[i]`` changes how the name is drawn: after a virama
    (both joiners), or a non-joiner between two letters of a joining script (the rules of
    IDNA2008, RFC 5892 A.1 and A.2, with the script standing for the joining type, which
    Python's data does not give)."""
    if i > 0 and unicodedata.combining(name[i - 1]) == _VIRAMA:
        return True
    if name[i] != _ZWNJ:
        return False
    j, k = i - 1, i + 1  # the letters on either side, past combining marks (joining type T)
    while j >= 0 and unicodedata.category(name[j]) == "Mn":
        j -= 1
    while k < len(name) and unicodedata.category(name[k]) == "Mn":
        k += 1
    if j < 0 or k >= len(name) or not (name[j].isalpha() and name[k].isalpha()):
        return False
    from confusable_homoglyphs.categories import alias

    script = alias(name[j])
    return script in _JOINING and alias(name[k]) == script


def name_problem(name: str) -> str | None:
    """What makes ``name`` unfit to name a platform, as the end of a sentence; ``None``
    when a person can read it as it is written. A name must be:

    - in Unicode NFKC form: a compatibility character (fullwidth ``ｃａｒｄ``, a ligature,
      a roman numeral, a styled letter) shows like another text than its own;
    - without invisible characters (:func:`invisible`), controls, private-use or
      unassigned code points; the zero-width joiners only where they change the shapes
      of the letters around them (a Persian ``کارت‌روم``);
    - without an elongation mark (the Arabic tatweel U+0640 and the other join-causing
      characters): it lengthens a line between letters and changes no letter;
    - spaced with the plain space U+0020 alone, one between two words, none at either end;
    - not empty when drawn: a letter, digit, punctuation mark or symbol, and not begun by
      a combining mark;
    - of UTS #39's General Security Profile (:func:`profile_problem`);
    - of scripts that mix as a reader can see (:func:`mixing_problem`).

    >>> name_problem("Club Tarneeb") is None, name_problem("نادي الورق") is None
    (True, True)
    >>> name_problem("\\u3164")  # doctest: +ELLIPSIS
    'it holds U+3164 (HANGUL FILLER), a character that shows as nothing (a format ...)'
    >>> name_problem("card  room")
    'two spaces in a row'
    >>> name_problem("\\uff43\\uff41\\uff52\\uff44")
    "it is not in Unicode's NFKC form, which is 'card': it shows like another name"
    """
    for i, c in enumerate(name):
        if c in (_ZWNJ, _ZWJ):
            if _joiner_shows(name, i):
                continue
            return (f"it holds {_char(c)}, which shows as nothing here: a joiner is allowed "
                    "only where it changes the shape of the letters around it")
        if invisible(c):
            return (f"it holds {_char(c)}, a character that shows as nothing (a format "
                    "character, filler, default-ignorable code point or blank symbol)")
        category = unicodedata.category(c)
        if c != " " and (c.isspace() or category[0] == "Z"):
            return f"it holds {_char(c)}, a space other than the plain space U+0020"
        if category[0] == "C":  # Cc, Cs, Co, Cn: a control, a surrogate, private use, unassigned
            what = {"Cc": "a control character", "Cs": "a lone surrogate",
                    "Co": "a private-use character, drawn as a font chooses"}.get(
                        category, "an unassigned code point")
            return f"it holds U+{ord(c):04X}, {what}"
        if uts39_table().elongation(ord(c)):
            return (f"it holds {_char(c)}, an elongation mark: it lengthens the line joining "
                    "two letters and changes no letter, so the name reads as the same name "
                    "without it")
    if name.startswith(" ") or name.endswith(" "):
        return "it begins or ends with a space"
    if "  " in name:
        return "two spaces in a row"
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:
        return f"it is not in Unicode's NFKC form, which is {normal!r}: it shows like another name"
    if not any(unicodedata.category(c)[0] in "LNPS" for c in name):
        return "it shows as nothing"
    if unicodedata.category(name[0])[0] == "M":
        return f"it begins with {_char(name[0])}, a combining mark drawn on nothing"
    return profile_problem(name) or mixing_problem(name)


def profile_problem(name: str) -> str | None:
    """Why ``name`` is outside UTS #39's General Security Profile, or ``None``: each of its
    characters must have Identifier_Status Allowed (uts39.txt), but for the plain space
    between words and the joiners where they change the letters' shapes (judged by
    :func:`name_problem`). Symbols (``&``, ``♠``, musical and technical signs), letters of
    scripts no longer in use, and characters used only in technical notation are refused.

    >>> profile_problem("Club Tarneeb") is None
    True
    >>> profile_problem("Cards & Co")  # doctest: +ELLIPSIS
    "it holds '&' (U+0026), which UTS #39's General Security Profile ... (Not_XID)"
    """
    data = uts39_table()
    for c in name:
        if c in (" ", _ZWNJ, _ZWJ) or data.allowed(ord(c)):
            continue
        return (f"it holds {quoted(c)} (U+{ord(c):04X}), which UTS #39's General Security "
                "Profile does not allow in an identifier: its Identifier_Status is Restricted "
                f"({', '.join(data.types(ord(c))) or 'unassigned'})")
    return None


# UTS #39 §5.2, Moderately Restrictive: one script; or Latin with Han and Hiragana and
# Katakana, with Han and Bopomofo, or with Han and Hangul (the ways Japanese, Chinese and
# Korean are written); or Latin and one other script, but not Cyrillic or Greek, whose
# letters pass for Latin ones
_CJK = (frozenset({"Han", "Hiragana", "Katakana"}), frozenset({"Han", "Bopomofo"}),
        frozenset({"Han", "Hangul"}))
_PASS_FOR_LATIN = frozenset({"Cyrillic", "Greek"})


def mixing_problem(name: str) -> str | None:
    """Why the scripts of ``name`` mix in a way a reader cannot see, or ``None``: a name
    must be at most *Moderately Restrictive* (UTS #39 §5.2). ``ЕRАМ`` with a Cyrillic Е,
    А, М reads as Latin ``ERAM``, so Latin with Cyrillic or Greek is refused; a Japanese
    name with Latin letters, or Latin with Arabic, is not.

    >>> mixing_problem("\u0415R\u0410\u041c")  # doctest: +ELLIPSIS
    'its letters mix Cyrillic and Latin (UTS #39 ... letters of one pass for the other'
    >>> names = ("ERAM", "\u0415\u0420\u0410\u041c", "Club \u0646\u0627\u062f\u064a",
    ...          "\u6771\u4eac\u30ab\u30fc\u30c9 400")
    >>> [mixing_problem(n) for n in names]
    [None, None, None, None]
    """
    scripts = frozenset(name_scripts(name))
    if len(scripts) <= 1:
        return None
    if any(scripts - {"Latin"} <= cjk for cjk in _CJK):
        return None
    if len(scripts) == 2 and "Latin" in scripts and not scripts & _PASS_FOR_LATIN:
        return None
    return (f"its letters mix {' and '.join(sorted(scripts))} (UTS #39 lets a name mix Latin "
            "with one other script, not Cyrillic or Greek, or write Chinese, Japanese or "
            "Korean with Latin): letters of one pass for the other")


def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``: NFD, each character replaced by its prototype from
    confusables.txt, NFD again. Two texts with the same skeleton are confusable.

    >>> skeleton("PIatform") == skeleton("Platform"), skeleton("\\u0441\\u0430rd")
    (True, 'carcl')
    """
    protos = uts39_table().prototypes
    mapped = "".join(protos.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def name_keys(name: str) -> frozenset[str]:
    """The forms in which two names that look the same share one: the UTS #39 skeleton of
    the name in NFKC form without joiners, case folded once before it (``CARDROOM`` is
    ``cardroom``, though capital O looks like 0 and small o does not) and once after it,
    then the skeleton again (``ЕRАМ`` is ``ERAM``, though small Cyrillic м looks like no
    Latin letter; ``cardr00m`` is ``cardroom``, its zeros capital O's).

    >>> keys = [name_keys(n) for n in ("cardr00m", "Cardroom", "cardroorn")]
    >>> sorted(keys[0] & keys[1] & keys[2])
    ['carclroorn']
    """
    keys = ascii_name_keys(name)  # (a name of printable ASCII: as below, to the letter)
    if keys is not None:
        return keys
    plain = "".join(c for c in unicodedata.normalize("NFKC", name)
                    if c not in (_ZWNJ, _ZWJ) and not invisible(c)
                    and not uts39_table().elongation(ord(c)))
    first = skeleton(unicodedata.normalize("NFKC", plain.casefold()))
    then = skeleton(unicodedata.normalize("NFKC", skeleton(plain).casefold()))
    return frozenset(unicodedata.normalize("NFC", k) for k in (first, then))


@functools.lru_cache(maxsize=64)
def name_scripts(name: str) -> tuple[str, ...]:
    """The scripts a name's letters come from, sorted (digits, spaces and punctuation go
    with any script and are not counted). Cached: a verifier asks it of the same few
    signers' names once per log.

    >>> name_scripts("Club Tarneeb 400"), name_scripts("2024")
    (('Latin',), ())
    """
    if name.isascii():  # its letters are Latin, the rest goes with any script: no data to load
        return ("Latin",) if any(c.isalpha() for c in name) else ()
    from confusable_homoglyphs.categories import alias

    return tuple(sorted({alias(c).title() for c in unicodedata.normalize("NFKC", name)
                         if alias(c) not in _NEUTRAL and not invisible(c)}))


__all__ = ["invisible", "mixing_problem", "name_keys", "name_problem", "name_scripts",
           "profile_problem", "quoted", "skeleton"]
