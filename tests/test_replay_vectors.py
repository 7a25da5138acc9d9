"""The rules layer's vectors (fixtures/vectors/hands.json): the file is what the code
gives, and each deal's hands and trump follow from its deck by PROTOCOL.md §5.5 alone."""

from __future__ import annotations

import json
from pathlib import Path

from tarneeb.audit.vectors import check_vectors
from tarneeb.replay.vectors import main, render_vectors

VECTORS = Path(__file__).resolve().parent.parent / "fixtures" / "vectors"


def test_file_is_what_the_code_gives():
    assert check_vectors(VECTORS, render_vectors()) == [], \
        "run: python -m tarneeb.replay.vectors fixtures/vectors"


def test_script_writes_and_checks(tmp_path, capsys):
    assert main([str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir())[:3] == ["hands.json", "log-abandoned.json",
                                                               "log-cancelled-hand.json"]
    assert main([str(tmp_path), "--check"]) == 0
    (tmp_path / "hands.json").write_text("{}")
    assert main([str(tmp_path), "--check"]) == 1
    assert "hands.json: differs" in capsys.readouterr().err


def test_hands_and_trump_by_the_document():
    hands_doc = json.loads((VECTORS / "hands.json").read_text(encoding="utf-8"))
    deals_doc = json.loads((VECTORS / "deals.json").read_text(encoding="utf-8"))
    assert hands_doc["protocol"] == deals_doc["protocol"]
    deals = {(v["name"], d["deal_number"]): d for v in deals_doc["vectors"] for d in v["deals"]}
    seen = 0
    for v in hands_doc["vectors"]:
        for d in v["deals"]:
            src = deals[(v["name"], d["deal_number"])]
            deck, dealer = src["deck"], src["dealer"]
            assert d["deck"] == deck and d["dealer"] == dealer
            hands: list[list[int]] = [[], [], [], []]
            for p, card in enumerate(deck):
                hands[(dealer + 1 + p) % 4].append(card)
            assert d["hands"] == [sorted(h) for h in hands] == src["cards_by_seat"]
            assert d["hand_masks"] == [sum(1 << c for c in h) for h in hands]
            mate = 3 - deck[51] // 13  # the colour-mate: clubs <-> spades, diamonds <-> hearts
            assert d["trump"] == {"eram41": mate, "qahwa41": 2, "sahrat41": mate,
                                  "sahrat400": 2, "classic": None}
            assert d["revealed"] == {"eram41": deck[51], "qahwa41": None, "sahrat41": deck[51],
                                     "sahrat400": None, "classic": None}
            assert d["trump_names"]["classic"] == "named"
            seen += 1
    assert seen == len(deals)


RECEIPTS = json.loads((VECTORS / "receipts.json").read_text(encoding="utf-8"))


def test_the_refused_receipts_are_refused_with_their_line():
    """Each refused receipt of receipts.json gives its one line; those that read verify the
    match of its log clean (the same line of the JS verifier: test_js_conformance)."""
    import pytest

    from tarneeb.replay.log.parse import parse_log
    from tarneeb.replay.verify.findings import Verdict
    from tarneeb.replay.verify.receipt import ReceiptError, check_receipt, read_receipt

    kinds = {v["error"].split(":")[0].split(" (")[0] for v in RECEIPTS["refused"]}
    assert len(RECEIPTS["refused"]) >= 10 and len(kinds) >= 6
    for v in RECEIPTS["refused"]:
        with pytest.raises(ReceiptError) as e:
            read_receipt(bytes.fromhex(v["receipt"]), "r.json")
        assert str(e.value) == f"r.json: not a receipt: {v['error']}", v["description"]
    log = json.loads((VECTORS / RECEIPTS["log"]).read_text(encoding="utf-8"))["log"]
    header = parse_log(bytes.fromhex(log)).header
    for v in RECEIPTS["accepted"]:
        verdict = Verdict("m.tlog")
        check_receipt(header, read_receipt(bytes.fromhex(v["receipt"])), verdict)
        assert verdict.findings == [], v["description"]
