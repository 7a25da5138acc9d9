"""The fair-play analysis (tarneeb audit --play): DDS's values, the layouts a seat's
information allows, the score test, the command."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tarneeb.audit.fairness.scores import ScoreTally, holm_flags, score
from tarneeb.cli.app import app
from tarneeb.replay.fairplay import solver
from tarneeb.replay.fairplay.analyse import Decision, HandPlay, analyse_hand
from tarneeb.replay.fairplay.layouts import (
    InfoSet,
    actual_hands,
    hcp,
    infoset,
    sample_layouts,
    shape_layouts,
)
from tarneeb.replay.fairplay.solver import Position, solve, solve_many
from tarneeb.replay.fairplay.summary import MatchPlay, PlaySummary
from tarneeb.replay.rules.cards import SUIT_MASKS
from tarneeb.replay.rules.players import BotPlayer, play_match, shuffled_deals
from tarneeb.replay.rules.ruleset import preset
from tarneeb.replay.rules.scoring import trick_winner

pytest.importorskip("endplay")


def _minimax(hands: list[int], leader: int, trick: list[int], trump: int | None,
             ) -> dict[int, int]:
    """Tricks the side to move takes from here, per legal card: brute force."""
    seat = (leader + len(trick)) & 3
    own = hands[seat]
    legal = own & SUIT_MASKS[trick[0] // 13] if trick else 0
    legal = legal or own
    out = {}
    for c in (c for c in range(52) if legal >> c & 1):
        hands[seat] &= ~(1 << c)
        t = [*trick, c]
        if len(t) == 4:
            w = trick_winner(t, leader, trump)
            rest = 0 if not hands[0] else max(_minimax(hands, w, [], trump).values())
            mine = (w & 1) == (seat & 1)
            left = hands[w].bit_count() if hands[0] else 0
            # the winner's side takes this trick and `rest` of the remaining ones
            out[c] = (1 + rest if mine else left - rest)
        else:
            nxt = (seat + 1) & 3
            best = max(_minimax(hands, leader, t, trump).values())
            left = hands[seat].bit_count() + 1
            out[c] = best if (nxt & 1) == (seat & 1) else left - best
        hands[seat] |= 1 << c
    return out


def test_dds_values_are_the_games_own() -> None:
    rng = random.Random(4)
    for _ in range(25):
        deck = list(range(52))
        rng.shuffle(deck)
        n = rng.choice((2, 3))
        hands = [sum(1 << c for c in deck[s * n:(s + 1) * n]) for s in range(4)]
        trump = rng.choice((None, 0, 1, 2, 3))
        leader = rng.randrange(4)
        pos = Position((hands[0], hands[1], hands[2], hands[3]), leader, (), trump)
        assert solve(pos) == _minimax(list(hands), leader, [], trump)
        # a card already in the trick: the next seat's values
        lead = min(c for c in range(52) if hands[leader] >> c & 1)
        rest = list(hands)
        rest[leader] &= ~(1 << lead)
        pos2 = Position((rest[0], rest[1], rest[2], rest[3]), leader, (lead,), trump)
        assert solve_many([pos, pos2]) == [solve(pos), _minimax(rest, leader, [lead], trump)]


def _hand(seed: int = 3):  # type: ignore[no-untyped-def]
    st, _ = play_match(preset("classic"), 0, shuffled_deals(random.Random(seed)),
                       [BotPlayer(random.Random(i)) for i in range(4)])
    return next(h for h in st.history if not h.cancelled)


def test_layouts_agree_with_the_information_and_are_uniform() -> None:
    hand = _hand()
    info = infoset(hand, 41, reveals=True)
    layouts = sample_layouts(info, 3000, random.Random(1))
    for lay in layouts[:200]:
        assert lay[info.seat] == info.own
        for s in range(4):
            assert lay[s].bit_count() == info.counts[s]
            assert lay[s] & info.known[s] == info.known[s]
            for x in range(4):
                if info.voids[s] >> x & 1:
                    assert not lay[s] & SUIT_MASKS[x]
    # every layout that agrees, each about as often (exhaustive on a small position)
    hidden = [c for c in range(52) if info.hidden >> c & 1]
    others = [s for s in range(4) if s != info.seat]
    need = [info.counts[s] - info.known[s].bit_count() for s in others]
    valid = set()
    for owners in itertools.product(others, repeat=len(hidden)):
        if [owners.count(s) for s in others] != need:
            continue
        lay = list(info.known)
        for c, s in zip(hidden, owners, strict=True):
            lay[s] |= 1 << c
        if all(not (lay[s] & SUIT_MASKS[x]) for s in range(4) for x in range(4)
               if info.voids[s] >> x & 1):
            valid.add(tuple(lay))
    seen = Counter(layouts)
    assert set(seen) == valid
    expect = len(layouts) / len(valid)
    chi2 = sum((seen[v] - expect) ** 2 / expect for v in valid)
    assert chi2 < len(valid) + 5 * math.sqrt(2 * len(valid))


def _of_shape(info: Any, real: list[int]) -> set[tuple[int, ...]]:
    """Every layout of the hidden cards agreeing with ``info`` in which each hidden hand
    has its real number of cards in each suit (by enumeration: small positions only)."""
    hidden = [c for c in range(52) if info.hidden >> c & 1]
    others = [s for s in range(4) if s != info.seat]
    shape = [[(real[s] & info.hidden & SUIT_MASKS[x]).bit_count() for x in range(4)]
             for s in range(4)]
    out = set()
    for owners in itertools.product(others, repeat=len(hidden)):
        lay = list(info.known)
        for c, s in zip(hidden, owners, strict=True):
            lay[s] |= 1 << c
        if all(((lay[s] & ~info.known[s]) & SUIT_MASKS[x]).bit_count() == shape[s][x]
               for s in others for x in range(4)):
            out.add(tuple(lay))
    return out


def test_reference_layouts_keep_the_real_shape_and_are_uniform_within_it() -> None:
    """The audit's reference layouts: what the seat knows, each hidden hand's real number
    of cards in each suit, and every such layout about as often; ``keep`` holds a seat's
    real cards (the partner's hand known)."""
    hand = _hand()
    info = infoset(hand, 37, reveals=True)
    real = actual_hands(hand, 37)
    layouts = shape_layouts(info, real, 4000, random.Random(1))
    valid = _of_shape(info, real)
    seen = Counter(layouts)
    assert tuple(real) in valid and set(seen) == valid and len(valid) > 3
    expect = len(layouts) / len(valid)
    chi2 = sum((seen[v] - expect) ** 2 / expect for v in valid)
    assert chi2 < len(valid) + 5 * math.sqrt(2 * len(valid))
    partner = (info.seat + 2) & 3
    for lay in shape_layouts(info, real, 50, random.Random(2), keep=(partner,)):
        assert lay[partner] == real[partner] and lay[info.seat] == info.own


def test_reference_layouts_with_points_keep_each_hands_lengths_and_points() -> None:
    """The opening lead's references: every hidden hand keeps its real suit lengths and
    high-card points (with the partner's hand kept too), and the layouts vary."""
    hand = _hand()
    for index in (0, 1, 2, 3):
        info = infoset(hand, index, reveals=True)
        real = actual_hands(hand, index)
        partner = (info.seat + 2) & 3
        for keep in ((), (partner,)):
            layouts = shape_layouts(info, real, 30, random.Random(index), keep=keep,
                                    points=True)
            assert len(set(layouts)) > 20
            for lay in layouts:
                assert lay[info.seat] == info.own
                assert sum(lay) == sum(real) and not any(lay[a] & lay[b] for a in range(4)
                                                         for b in range(a))
                for s in range(4):
                    assert hcp(lay[s]) == hcp(real[s])
                    for x in range(4):
                        assert (lay[s] & SUIT_MASKS[x]).bit_count() == \
                            (real[s] & SUIT_MASKS[x]).bit_count()
                for s in keep:
                    assert lay[s] == real[s]


def test_reference_layouts_with_points_are_uniform_among_them() -> None:
    """Exhaustive on small positions where the points rule some layouts of the real shape
    out: every layout with the real lengths and points is drawn, about equally often."""
    hand = _hand()
    tested = 0
    for index in range(41, 29, -1):
        if tested == 2:
            break
        info = infoset(hand, index, reveals=True)
        real = actual_hands(hand, index)
        others = [s for s in range(4) if s != info.seat]
        shaped = _of_shape(info, real)
        valid = {lay for lay in shaped if all(hcp(lay[s]) == hcp(real[s]) for s in others)}
        if len(valid) < 3 or valid == shaped:
            continue
        tested += 1
        layouts = shape_layouts(info, real, 300 * len(valid), random.Random(index),
                                points=True)
        seen = Counter(layouts)
        assert tuple(real) in valid and set(seen) == valid
        expect = len(layouts) / len(valid)
        chi2 = sum((seen[v] - expect) ** 2 / expect for v in valid)
        assert chi2 < len(valid) + 5 * math.sqrt(2 * len(valid))
    assert tested


def test_a_seat_that_sees_its_partner_knows_the_partners_cards() -> None:
    hand = _hand()
    seat = infoset(hand, 24, reveals=False).seat
    partner = (seat + 2) & 3
    info = infoset(hand, 24, reveals=False, sees=(partner,))
    assert isinstance(info, InfoSet) and info.known[partner]
    for lay in sample_layouts(info, 20, random.Random(2)):
        assert lay[partner] == info.known[partner]


def test_score_is_standard_normal_under_the_null() -> None:
    rng = random.Random(5)
    zs = []
    for _ in range(300):
        t = ScoreTally()
        for _ in range(150):
            p = rng.random()
            draws = [float(rng.random() < p) for _ in range(8)]
            t.add(*score(float(rng.random() < p), draws))
        zs.append(t.result().z)
    mean = sum(zs) / len(zs)
    sd = math.sqrt(sum((z - mean) ** 2 for z in zs) / len(zs))
    assert abs(mean) < 0.2 and 0.85 < sd < 1.15
    assert sum(z > 1.645 for z in zs) / len(zs) < 0.09


def test_holm() -> None:
    assert holm_flags([0.01, 0.04, 0.03, 0.005], 0.05) == [
        (0.03, True), (0.06, False), (0.06, False), (0.02, True)]


def test_hand_records_round_trip_and_refuse_nonsense() -> None:
    hand = _hand()
    hp = analyse_hand(hand, True, random.Random(3), samples=6)
    assert hp.decisions
    assert HandPlay.from_json(json.loads(json.dumps(hp.to_json()))) == hp
    for bad in ([1, [[0, 0, 0, 2, 1, 3, 6, 1, 1, 1, 1]]], [1, [[0] * 5]], "x", None):
        with pytest.raises(ValueError, match="not a fair-play hand record"):
            HandPlay.from_json(bad)
    mp = MatchPlay("a.tlog", ("A", "B", "C", "D"), (True, False, True, False), [hp])
    assert MatchPlay.from_json(json.loads(json.dumps(mp.to_json()))) == mp
    with pytest.raises(ValueError, match="not a fair-play"):
        MatchPlay.from_json({"path": "a", "names": ["A"] * 4, "computer": [1, 0, 1, 0],
                             "hands": []})


def test_every_decisions_references_keep_each_hidden_hands_points(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference layouts of every analysed decision, the opening lead and tricks 6 to
    11 alike, keep each hidden hand's real high-card points as well as its lengths: with
    the lengths alone after the lead, an honest partnership that reads the bids for the
    honours beat the references and was flagged (docs/FAIRPLAY.md, "The null")."""
    from tarneeb.replay.fairplay import analyse
    from tarneeb.replay.fairplay.layouts import hcp

    drawn: list[tuple[int, bool]] = []
    real = analyse.shape_layouts

    def recording(info, actual, k, rng, keep=(), points=False):  # type: ignore[no-untyped-def]
        layouts = real(info, actual, k, rng, keep=keep, points=points)
        for lay in layouts:  # each hidden hand's points, as in the real layout
            assert [hcp(lay[s] & info.hidden) for s in range(4)] == \
                [hcp(actual[s] & info.hidden) for s in range(4)]
        drawn.append((info.index, points))
        return layouts

    monkeypatch.setattr(analyse, "shape_layouts", recording)
    hp = analyse_hand(_hand(), True, random.Random(3), own_share=1.0)
    assert hp.decisions and {i for i, _ in drawn} & {0} and max(i for i, _ in drawn) >= 20
    assert all(points for _, points in drawn)


def test_a_choice_best_by_information_scores_zero() -> None:
    d = Decision(0, 30, 5, 1, 1, 4, 10, 10, 10, 10, 10)  # best on every layout: no news
    assert d.excess == 0 and d.variance == 0
    cheat = Decision(0, 30, 5, 1, 1, 2, 10, 3, 13, 3, 17)
    assert cheat.excess > 0.3 and cheat.variance > 0


def test_the_partner_statistic_scores_what_the_partners_hand_adds() -> None:
    """A card that is best when the partner's hand is known, and seldom on the reference
    layouts, scores what the partner's cards added; a decision the partner's hand does not
    change is not partner-dependent and adds nothing."""
    told = Decision(0, 30, 5, 1, 1, 2, 10, 3, 13, 3, 17, 5, 5, 5)
    assert told.partner_dependent and told.partner_excess > 0.3
    same = Decision(0, 30, 5, 1, 1, 2, 10, 4, 10, 4, 10, 5, 2, 5)
    assert not same.partner_dependent and same.partner_excess == 0.0
    alone = Decision(0, 30, 5, 1, 1, 2, 10, 3, 13, 3, 17)  # the partner's hand was seen
    assert not alone.partner_dependent


def test_summaries_of_single_logs_merge_into_the_archives() -> None:
    """Per-log summaries (the record a state store keeps) merge into exactly the summary
    of the matches added one by one, through their JSON records too."""
    rng = random.Random(8)
    whole = PlaySummary()
    merged = PlaySummary()
    for i in range(30):
        ds = tuple(Decision(rng.randrange(4), 30 + j, 5, rng.randrange(2), 1, 2, 10,
                            rng.randrange(11), 13, 3, 17, 5, rng.randrange(6), 6)
                   for j in range(4))
        mp = MatchPlay(f"m{i}.tlog", ("Ann", "Bo", "Cy", "Di"), (False, True, False, True),
                       [HandPlay(i, ds)])
        whole.add(mp)
        one = PlaySummary()
        one.add(mp)
        merged.merge(PlaySummary.from_record(json.loads(json.dumps(one.to_record()))))
    a, b = whole.results(0.05), merged.results(0.05)
    assert [(r.kind, r.name, r.decisions, r.hands) for r in a] == [
        (r.kind, r.name, r.decisions, r.hands) for r in b]
    assert all(math.isclose(x.z, y.z, abs_tol=1e-9) and x.weighing == y.weighing
               and x.flagged == y.flagged for x, y in zip(a, b, strict=True))
    assert (merged.matches, merged.hands, merged.decisions) == (
        whole.matches, whole.hands, whole.decisions)
    assert ("partner-cards", "Ann & Cy") in whole.tallies
    with pytest.raises(ValueError, match="not a fair-play summary record"):
        PlaySummary.from_record({"matches": 1, "hands": 1, "decisions": 1,
                                 "groups": [["nobody", "x", 1, 0.0, 1.0, 1, []]]})
    with pytest.raises(ValueError, match="do not merge"):
        PlaySummary(cap=2).merge(whole)


def test_summary_groups_players_labels_partnerships() -> None:
    d = Decision(0, 0, 5, 1, 1, 2, 10, 3, 13, 3, 17)  # an opening lead: Ann's own figure
    e = Decision(1, 31, 6, 0, 1, 2, 10, 5, 15, 5, 25)
    ps = PlaySummary()
    for _ in range(60):
        ps.add(MatchPlay("a.tlog", ("Ann", "Bo", "Cy", "Di"), (False, True, False, True),
                         [HandPlay(0, (d, e))]))
    rs = ps.results(0.05)
    assert rs[0].flagged and rs[0].excess > 0.3
    assert {(r.kind, r.name) for r in rs if r.flagged} == {
        ("player", "Ann"), ("own", "Ann"), ("label", "human"), ("partnership", "Ann & Cy")}
    assert rs[0].weighing[0].path == "a.tlog" and rs[0].weighing[0].hand == 1


@pytest.fixture(scope="module")
def peeker_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tarneeb.testing.fairplay import write_play_archive

    d = tmp_path_factory.mktemp("peeker")
    write_play_archive(d, "peeker", 3, seed=b"test peeker")
    return d


def test_audit_play_flags_the_seat_that_sees_every_hand(peeker_archive: Path) -> None:
    """Three matches: the partnership of the seat that sees every hand is flagged (exit 3)
    and the seat's own figure is the strongest; too few of its opening leads were
    analysed to test its own figure, so it is not named, and nor is its partner."""
    r = CliRunner().invoke(app, ["audit", str(peeker_archive), "--play", "-j", "1", "--json"])
    assert r.exit_code == 3, r.output
    doc = json.loads(r.stdout)
    assert doc["exit_code"] == 3
    play = doc["fairplay"]
    assert "partnership Counter & Suspect" in play["flagged"]
    # the strongest figure over all its decisions (an honest seat's few opening leads, its
    # own figure, may by chance stand higher: each run draws its own Monte Carlo seed)
    top = next(g for g in play["groups"] if g["kind"] != "own")
    assert top["name"] == "Suspect" and top["excess"] > 0.03
    assert top["hands_that_weigh_most"][0]["path"].startswith(str(peeker_archive))
    players = [g for g in play["groups"] if g["kind"] == "player"]
    assert players[0]["name"] == "Suspect" and players[0]["z"] > players[1]["z"] + 2
    assert players[0]["significant"] and players[0]["partner_of"] == ""
    assert not any(g["flagged"] for g in players)  # no one named on three matches
    assert "player Suspect: not accused" in CliRunner().invoke(
        app, ["audit", str(peeker_archive), "--play", "-j", "1"]).stdout


def test_audit_play_sample_analyses_n_hands_a_player(peeker_archive: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``--play-sample N`` is a quick look: the same four players in three matches, so
    the first match's N hands give each of them N, and the other matches are not
    analysed at all (they would only be dropped by the cap); each run counts afresh."""
    import tarneeb.replay.fairplay as fairplay

    analysed: list[int] = []

    def counting(hand: Any, *args: Any, **kwargs: Any) -> HandPlay:
        analysed.append(hand.deal_number)
        return analyse_hand(hand, *args, **kwargs)

    monkeypatch.setattr(fairplay, "analyse_hand", counting)
    for _ in range(2):
        analysed.clear()
        r = CliRunner().invoke(app, ["audit", str(peeker_archive), "--play-sample", "2",
                                     "-j", "1"])
        assert len(analysed) == 2
        assert "fair play:" in r.stdout and "hands of 1 match" in r.stdout  # (analysed)
        assert r.exit_code in (0, 3)


def test_audit_play_without_endplay_says_how_to_install(peeker_archive: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        ) -> None:
    import sys

    monkeypatch.setattr(solver, "_dds", None)
    monkeypatch.setitem(sys.modules, "endplay._dds", None)  # import fails
    r = CliRunner().invoke(app, ["audit", str(peeker_archive), "--play"])
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'tarneeb[play]'" in lines[0]


def test_report_lists_groups_worst_first_with_a_hand_to_replay() -> None:
    from tarneeb.replay.archive.audit import ArchiveSummary
    from tarneeb.report.archive import archive_page

    d = Decision(0, 30, 5, 1, 1, 2, 10, 3, 13, 3, 17)
    e = Decision(1, 31, 6, 0, 1, 2, 10, 5, 15, 5, 25)
    ps = PlaySummary()
    for i in range(60):
        ps.add(MatchPlay(f"m{i}.tlog", ("Ann <b>", "Bo", "Cy", "Di"),
                         (False, True, False, True), [HandPlay(i, (d, e))]))
    page = archive_page(ArchiveSummary(), {}, 0.05, play=ps.results(0.05))
    section = page[page.index('<section id="fairplay">'):]
    section = section[:section.index("</section>")]
    assert "Evidence of play with cards not seen" in section
    assert "Ann &lt;b&gt;" in section and "<b>" not in section
    rows = section[section.index("<tbody>"):]
    assert rows.index("player Ann") < rows.index("player Bo")
    assert "tarneeb show m" in rows and "--hand" in rows


def test_play_gives_the_same_figures_on_two_jobs_and_a_dask_cluster(
        peeker_archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--play`` runs where the audit runs: one job, two processes and a local Dask
    cluster give the same verdict and the same ``--json`` (the Monte Carlo seed held
    fixed, as a rerun with the same seed would)."""
    import dataclasses

    import distributed  # noqa: F401  (the [cluster] extra, which make test installs)

    from tarneeb.cli import archive_cmd

    chosen = archive_cmd._play_options
    monkeypatch.setattr(archive_cmd, "_play_options", lambda wanted, n: None if (
        o := chosen(wanted, n)) is None else dataclasses.replace(o, seed=b"fixed seed"))
    docs = []
    for how in (["-j", "1"], ["-j", "2"], ["--scheduler", "local:2"]):
        r = CliRunner().invoke(app, ["audit", str(peeker_archive), "--play-sample", "2",
                                     "--json", *how])
        assert r.exit_code in (0, 3), r.output
        docs.append((r.exit_code, json.loads(r.stdout)))
    assert docs[0][1]["fairplay"]["decisions"] > 0
    assert docs[1] == docs[0] and docs[2] == docs[0]


def _table(ann_own: bool, cy_own: bool) -> PlaySummary:
    """120 hands at one table: Ann (seat 0) picks a card best at p 0.3 on every decision of
    tricks 6 to 11, her partner Cy two times in three at p 0.5; each leads a hand in two
    (decision index 0, before its partner played), and beats its information there when
    ``ann_own`` / ``cy_own``, else not (a card best at p 0.5, half the time). Bo and Di
    are honest alike."""
    ps = PlaySummary()
    for i in range(120):
        lead = 0 if i % 2 else 2
        beats = ann_own if lead == 0 else cy_own
        ds = (Decision(lead, 0, 1, 1 if beats else i // 2 % 2, 1, 2, 10, 3 if beats else 5,
                       13 if beats else 10, 3 if beats else 5, 17 if beats else 10),
              Decision(0, 20, 5, 1, 1, 2, 10, 3, 13, 3, 17),
              Decision(1, 21, 6, i % 2, 1, 2, 10, 5, 10, 5, 10),
              Decision(2, 22, 7, int(i % 3 != 0), 1, 2, 10, 5, 10, 5, 10),
              Decision(3, 23, 8, (i + 1) % 2, 1, 2, 10, 5, 10, 5, 10))
        ps.add(MatchPlay(f"m{i}.tlog", ("Ann", "Bo", "Cy", "Di"), (False, True, False, True),
                         [HandPlay(i, ds)]))
    return ps


def test_a_player_is_named_on_its_own_figure_and_its_partner_only_as_partner() -> None:
    """Cy's whole figure is significant (she plays after Ann, who sees the cards) but her
    opening leads, chosen before Ann played, are not: she is not named (text, JSON,
    report), only as Ann's partner; Ann, whose own figure is flagged, is named. The
    archive's exit code is 3 either way."""
    from tarneeb.cli.archive_cmd import _exit_code
    from tarneeb.replay.archive.audit import ArchiveSummary
    from tarneeb.replay.fairplay.summary import play_lines
    from tarneeb.report.archive import archive_page

    ps = _table(True, False)
    rs = ps.results(0.05)
    by = {(r.kind, r.name): r for r in rs}
    ann, cy = by[("player", "Ann")], by[("player", "Cy")]
    assert ann.flagged and by[("own", "Ann")].flagged and ann.own is not None
    assert cy.significant and not cy.flagged and not by[("own", "Cy")].significant
    assert cy.partner_of == "Ann" and ann.partner_of is None
    assert not any(by[("player", n)].significant for n in ("Bo", "Di"))
    words = "named only as the partner of Ann"
    text = play_lines(ps, rs, 0.05)
    assert not any(x.startswith("fair play: FLAGGED player Cy") for x in text)
    named_ann = [x for x in text if x.startswith("fair play: FLAGGED player Ann")]
    # the bar it passed is its own figure's (its whole figure's p was printed)
    assert named_ann and all(x.endswith(f"named on its own figure: p (Holm) = "
                                        f"{by[('own', 'Ann')].p_adjusted:.2g}")
                             for x in named_ann)
    assert any("player Cy: not accused" in x and words in x for x in text)
    doc = ps.to_json(rs)
    assert "player Cy" not in doc["flagged"] and "player Ann" in doc["flagged"]
    entry = next(g for g in doc["groups"] if g["kind"] == "player" and g["name"] == "Cy")
    assert entry["partner_of"] == "Ann" and entry["significant"] and not entry["flagged"]
    assert _exit_code(0, rs) == 3
    page = archive_page(ArchiveSummary(), {}, 0.05, play=rs)
    section = page[page.index('<section id="fairplay">'):page.index("</section>",
                                                                  page.index("fairplay"))]
    at = section.index("fairplay-verdict")
    verdict = section[at:section.index("</p>", at)]
    assert "player Ann" in verdict and "player Cy" not in verdict
    assert section.count(words) == 1


def test_partners_named_when_both_own_figures_are_and_neither_when_none_is() -> None:
    """Two partners who both beat their information before the other played are both
    named; when neither does, neither is named, and the partnership carries the flag."""
    both = {(r.kind, r.name): r for r in _table(True, True).results(0.05)}
    assert both[("player", "Ann")].flagged and both[("player", "Cy")].flagged
    assert both[("player", "Cy")].partner_of is None
    rs = _table(False, False).results(0.05)
    none = {(r.kind, r.name): r for r in rs}
    assert not none[("player", "Ann")].flagged and none[("player", "Ann")].significant
    assert none[("player", "Ann")].partner_of == ""
    assert "partnership's play is in question" in none[("player", "Ann")].caveat()
    assert none[("partnership", "Ann & Cy")].flagged


def test_the_opening_lead_of_a_seat_that_sees_every_hand_is_best_on_the_real_layout() -> None:
    """The opening lead is analysed on a share of hands, on its own reference layouts, as
    a decision taken before the partner played; a seat that sees every hand leads a
    double-dummy best card (x = 1) every time."""
    from tarneeb.replay.fairplay.analyse import OWN_SAMPLES
    from tarneeb.testing.fairplay import simulate

    rng = random.Random("lead")
    (names, _, hands), = simulate("peeker", 1, rng)
    leads = [d for h in hands[:10]
             for d in analyse_hand(h, True, rng, first_trick=6, last_trick=5,
                                   own_share=1.0).decisions]
    assert leads and all(d.index == 0 and d.before_partner and d.samples == OWN_SAMPLES
                         and d.p_samples == 0 for d in leads)
    assert all(d.x == 1 for d in leads if names[d.seat] == "Suspect")
    assert not analyse_hand(hands[0], True, rng, first_trick=6, last_trick=5,
                            own_share=0.0).decisions


def test_which_decisions_count_never_depends_on_the_reference_draws() -> None:
    """A decision is left out only for what the seat knew (one legal card, or cards it can
    see are equivalent), never for what its reference layouts drew: leaving out those
    whose cards were all worth the same on every draw kept the others' reference mean
    low (their own references are never all ties) while their real score was not, which
    pushed an honest player's figure up, towards an accusation. The same hands analysed
    with other Monte Carlo streams count the same decisions."""
    for seed in range(3, 9):
        hand = _hand(seed)
        counted = {tuple((d.seat, d.index) for d in analyse_hand(
            hand, True, random.Random(stream), samples=3, own_share=0.0).decisions)
            for stream in range(6)}
        assert len(counted) == 1


def test_a_log_another_log_of_its_match_contradicts_is_not_analysed(tmp_path: Path) -> None:
    """Only clean logs are analysed: two logs of one match with other bytes (a
    conflicting-log finding on both, found when the later is read) are both left out of
    the fair-play figures, as neither is known to be the match as played."""
    from test_archive_state import renamed

    from tarneeb.testing.archive import write_archive

    seed = b"test fair play conflict"
    paths = write_archive(tmp_path, 3, seed=seed)
    (tmp_path / "zz-second-log.tlog").write_bytes(renamed(paths[0].read_bytes(), seed))
    r = CliRunner().invoke(app, ["audit", str(tmp_path), "--play", "-j", "1", "--json",
                                 "--no-stats"])
    doc = json.loads(r.stdout)
    assert doc["findings_by_kind"] == {"conflicting-log": 2}
    assert doc["fairplay"]["matches"] == 2
