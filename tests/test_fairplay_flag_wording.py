"""A flagged group's sentence says what its figure is measured against (the reference
layouts, which keep the real lengths but not what the bids say of which cards), and the
guide does not say that a significant group proves a cheat."""

from pathlib import Path

from tarneeb.replay.fairplay.summary import GroupResult

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "FAIRPLAY.md"


def test_a_flagged_groups_sentence_names_its_reference_not_all_the_information() -> None:
    r = GroupResult("partnership", "Bo & Sam", 19544, 2284, 0.007, 4.37, 6.2e-6, 7.4e-5,
                    flagged=True, significant=True)
    line = r.describe()
    assert "over its reference layouts" in line
    assert "with the real lengths and points; not what the bids say of which cards" in line
    assert "what its information allows" not in line


def test_the_guide_says_an_honest_partnership_can_be_significant() -> None:
    text = " ".join(GUIDE.read_text(encoding="utf-8").split())
    assert "the archive holds a cheat either way" not in text
    assert "An honest partnership can be flagged." in text
    assert "A seat that uses its partner's hand at its own opening lead gains there" in text
