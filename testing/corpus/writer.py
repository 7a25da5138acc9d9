"""Writing ``fixtures/``: every corpus log made in memory, then ``matches/*.tlog``,
``altered/*.tlog``, ``altered/manifest.json`` and ``README.md`` written; and the
command line that does it (``python -m tarneeb.testing.corpus fixtures``, which
``make fixtures`` runs).

What the corpus holds is :mod:`tarneeb.testing.corpus.specs`; this module only builds and
writes it.

>>> "manifest.json" in readme(Written())
True
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.house import nearest_preset, rule_set
from tarneeb.replay.rules.paths import all_paths
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.verify.findings import KINDS
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing.corpus.specs import (
    ALTERED,
    MATCHES,
    NOT_PRODUCIBLE,
    REGENERATE,
    RULE_SETS,
    AlteredSpec,
    MatchSpec,
    make_altered,
    make_match,
    platform_key,
    search_variant,
)
from tarneeb.testing.corpus.steering import SteeringFailed

# ---------------------------------------------------------------- writing fixtures/

@dataclass
class Written:
    """What :func:`write_corpus` wrote: file → bytes, and the manifest."""

    matches: dict[str, bytes] = field(default_factory=dict)
    altered: dict[str, bytes] = field(default_factory=dict)
    manifest: list[dict[str, object]] = field(default_factory=list)


def build(specs: Sequence[MatchSpec] = MATCHES,
          altered: Sequence[AlteredSpec] = ALTERED) -> Written:
    """Make every clean and altered log in memory."""
    out = Written()
    files = [a.file for a in altered]
    if len(set(files)) != len(files):
        raise ValueError("two altered logs have the same file name")
    keys: dict[str, Ed25519PrivateKey] = {}
    clean: dict[str, bytes] = {}
    for spec in specs:
        data = make_match(spec)
        out.matches[spec.file] = data
        name = spec.file.removesuffix(".tlog")
        clean[name] = data
        keys[name] = platform_key(spec)
    for a in altered:
        data, alt = make_altered(a, clean, keys)
        out.altered[a.file] = data
        entry: dict[str, object] = {
            "file": a.file, "kind": a.kind, "hand": alt.hand, "trick": alt.trick,
            "seat": alt.seat, "description": alt.description, "base": f"{a.base}.tlog",
            "alteration": alt.name, "resigned": a.resign}
        if alt.pin_key is not None:
            entry["public_key"] = alt.pin_key.hex()
        out.manifest.append(entry)
    return out


def write_corpus(root: Path, written: Written) -> None:
    """Replace ``root/matches``, ``root/altered`` and ``root/README.md``."""
    for sub, files in (("matches", written.matches), ("altered", written.altered)):
        d = root / sub
        d.mkdir(parents=True, exist_ok=True)
        for old in d.glob("*.tlog"):
            if old.name not in files:
                old.unlink()
        for name, data in files.items():
            (d / name).write_bytes(data)
    (root / "altered" / "manifest.json").write_text(
        json.dumps(written.manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (root / "README.md").write_text(readme(written), encoding="utf-8")


def summary(matches: Mapping[str, bytes]) -> str:
    """The clean corpus in one line of ``fixtures/README.md``: the one place its counts
    are written. The other docs that give them (README.md, docs/ENGINES.md) are checked
    against it by ``tests/test_corpus.py``.

    >>> summary({})
    '0 matches, 0 hands (dealing attempts), 0 bytes.'
    """
    hands = sum(len(parse_log(data).hands) for data in matches.values())
    size = sum(map(len, matches.values()))
    return f"{len(matches)} matches, {hands:,} hands (dealing attempts), {size:,} bytes."


def readme(written: Written) -> str:
    """The text of ``fixtures/README.md``."""
    lines = [
        "# Fixtures",
        "",
        "Everything here except `vectors/` is generated; regenerate it with",
        "",
        "```sh",
        f"{REGENERATE}      # or: make fixtures",
        "```",
        "",
        "Regeneration is deterministic: the same code writes the same bytes (signatures",
        "included: Ed25519 is deterministic). Do not edit a log by hand; change",
        "`testing/corpus/specs.py` and regenerate.",
        "",
        "## `matches/`: clean recorded matches",
        "",
        "Each log is a whole signed match made the way `tarneeb play` makes one,",
        "`play_logged_match` with a fixed seed (the `--seed` text below). The plain ones",
        "(`-01`) use the default players: `tarneeb play --rules eram41 --seed",
        "corpus-eram41-01 -o x.tlog` writes the same bytes as `matches/eram41-01.tlog`.",
        "The others pass steered computer players: bots that leave moves to the turn",
        "timer, or bots whose bids (and, in a few hands, card play where one side lets",
        "the other take the tricks) are chosen by the `Director` of `testing/corpus/specs.py`,",
        "which looks ahead one hand at a time to walk the match through a rare path. A",
        "variant number (`/vN` in the seed text) is the first seed under which the",
        "steering got there; it is recorded in `testing/corpus/specs.py` so regeneration does",
        "not search. Every log verifies clean; `eram41-recorded-deals` has a note that its",
        "deals are recorded, not proven (a platform without the seed protocol).",
        "",
        "| file | seed text | dealing attempts | bytes | what it shows |",
        "|---|---|---|---|---|",
    ]
    by_file = {m.file: m for m in MATCHES}
    for name, data in written.matches.items():
        spec = by_file[name]
        hands = len(parse_log(data).hands)
        lines.append(f"| `{name}` | `{spec.seed_text}` | {hands} | {len(data)} | {spec.about} |")
    lines += [
        "",
        summary(written.matches),
        "",
        "### Rule paths",
        "",
        "`tarneeb.replay.rules.paths.exercised_paths` names the paths of RULES.md a match went",
        "through; `all_paths(rules)` lists those a corpus must cover, and",
        "`tests/test_corpus.py` fails when a path of any preset has no log. The names:",
        "",
        "| path | meaning |",
        "|---|---|",
        *(f"| `{p}` | {m} |" for p, m in PATH_MEANINGS),
        "",
        "Paths per rule set, and the logs that show each:",
        "",
    ]
    # a house rule set made for one log (the blind match) adds no path of its own
    for rules_name in dict.fromkeys([*RULE_SETS, *(m.rules for m in MATCHES if m.base is None)]):
        rules = rule_set(rules_name)
        seen: dict[str, list[str]] = {}
        for name, data in written.matches.items():
            if by_file[name].rules != rules_name:
                continue
            for p in verify_bytes(data, count_paths=True).paths:
                seen.setdefault(p, []).append(name.removesuffix(".tlog")
                                              .removeprefix(rules_name + "-"))
        wanted = all_paths(rules)
        if rules_name not in PRESETS:  # a variant: the paths its own fields add
            wanted -= all_paths(nearest_preset(rules))
            wanted |= set(seen) & {"kaboot-failed", "declarers-no-trick",
                                   "kaboot-failed-no-trick"}
        lines.append(f"- **{rules_name}**" + ("" if rules_name in PRESETS else
                                             " (shipped variant: the paths its fields add)")
                     + ": " + "; ".join(f"`{p}` ({', '.join(seen.get(p, ['MISSING']))})"
                                        for p in sorted(wanted)))
    lines += [
        "",
        "## `altered/`: logs altered in exactly one way",
        "",
        "Each is a clean log of `matches/` changed in one place by `tarneeb.testing.alterations`",
        "and, unless the change is to the signature itself, signed again with the",
        "platform's key (as when a platform itself wrote a wrong log), so the rule finding",
        "is what shows. `manifest.json` lists, for each file, the finding it must produce:",
        "`kind`, `hand` (deal number), `trick` (1-13) and `seat` (null where the finding",
        "names none), with a `description`, the `base` log and the `alteration`. Where",
        "`public_key` is given (raw Ed25519 key, hex), verify with that key pinned",
        "(`verify_bytes(data, trust=Trust(public_key=...))`, or `tarneeb verify --key` with",
        "the key as PEM): the log was re-signed by another key that it names itself. The test",
        "`tests/test_corpus.py` checks that each altered log gives its finding and that no",
        "clean log gives any.",
        "",
        "| file | finding | where | what was changed |",
        "|---|---|---|---|",
    ]
    for e in written.manifest:
        where = ", ".join(f"{k} {e[k]}" for k in ("hand", "trick", "seat")
                          if e[k] is not None) or "match"
        lines.append(f"| `{e['file']}` | `{e['kind']}` | {where} | {e['description']} |")
    covered = {e["kind"] for e in written.manifest}
    lines += [
        "",
        f"{len(written.manifest)} altered logs cover {len(covered)} of the {len(KINDS)} finding "
        "kinds of `tarneeb.replay.verify.findings.KINDS`."
        + (" Not covered:" if NOT_PRODUCIBLE else ""),
        "",
        *(f"- `{k}`: {why}." for k, why in NOT_PRODUCIBLE.items()),
        "A log whose deals are recorded by the platform rather than derived from committed "
        "seeds breaks no rule: the verdict says so in a note, not a finding.",
        "",
    ]
    return "\n".join(lines)


PATH_MEANINGS: tuple[tuple[str, str], ...] = (
    ("made:C / failed:C", "a personal bid of value class C made / failed: `face` (worth its "
     "number), `double`, `triple`, `quadruple`, `value-N` (another value); `@30` marks a "
     "value that the bidder's own score changed (400: 5 and 6 worth 5 and 6 from 30 on)"),
    ("cancelled", "a hand cancelled: personal bids below the minimum total, or all four pass"),
    ("cancelled-in-a-row", "a cancelled hand right after another (counted once per hand from "
     "the second)"),
    ("negative-total", "a running total below zero after a hand"),
    ("partner-blocks-win", "a player on the target whose partner is at zero or below: no win"),
    ("partner-blocks-win:zero", "the same, with the partner at exactly zero"),
    ("both-qualify:RULE", "both teams qualify after the same hand, under tie rule RULE"),
    ("both-qualify-equal", "both qualify and the tie rule finds them equal: another hand"),
    ("both-qualify-decided", "both qualify and the tie rule picks the winner"),
    ("min-bid:N", "400: a hand dealt while some player's lowest bid is N (score 30, 40, 50 "
     "and up)"),
    ("min-total:N", "400: a hand dealt while the lowest total of the bids is N"),
    ("timer-bid / timer-play / timer-trump", "a move made by the turn timer when bidding, "
     "playing a card, naming the trump"),
    ("match-won", "the match ends with a winner"),
    ("bid-N-made / bid-N-failed", "a bid (classic: a contract) of N = 11, 12 or 13 made / "
     "failed"),
    ("no-trick", "a personal bidder who takes no trick"),
    ("declarers-no-trick", "classic: the declarers take no trick on a contract below 13 "
     "(the defenders take all 13)"),
    ("kaboot-failed-no-trick", "classic: the defenders take all 13 tricks against a 13"),
    ("made-13-wins", "a made 13 wins a match the totals had not (rules where it does)"),
    ("timer-bid-reaches-minimum", "the timer raises the last bid to the table minimum "
     "(`timer_bid = \"reach_minimum\"`)"),
    ("auction-passes-after-13", "classic: the others pass in turn after a 13 "
     "(`auction_ends_on_13 = false`)"),
    ("tie-decided:STEP", "both teams qualify and that step of a tie chain ending in a team "
     "decides"),
    ("classic-made / classic-failed", "classic: a contract below 13 made / failed"),
    ("kaboot-made / kaboot-failed", "classic: a bid of 13 made / failed"),
    ("auction-ended-on-13", "classic: the auction ended at once on a bid of 13"),
    ("auction-all-pass", "classic: all four passed"),
    ("all-13-without-13", "classic: one team took all 13 tricks on a contract below 13"),
)


# ---------------------------------------------------------------- command line

def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tarneeb.testing.corpus DIR [--search]``."""
    ap = argparse.ArgumentParser(prog="python -m tarneeb.testing.corpus",
                                 description="Regenerate the fixture corpus.")
    ap.add_argument("root", type=Path, help="the fixtures directory, e.g. fixtures")
    ap.add_argument("--search", action="store_true",
                    help="search the variant of every steered log again (slow) and print "
                         "the VARIANTS table to keep in testing/corpus/specs.py")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    specs = MATCHES
    if args.search:
        specs = [search_variant(m) if m.steered else m for m in MATCHES]
        print("VARIANTS: dict[str, int] = {")
        for m in specs:
            if m.variant:
                print(f"    {m.file!r}: {m.variant},")
        print("}")
    try:
        written = build(specs)
    except SteeringFailed as e:
        print(f"corpus: {e}; run with --search to find new variants", file=sys.stderr)
        return 1
    write_corpus(args.root, written)
    size = sum(map(len, written.matches.values()))
    print(f"wrote {len(written.matches)} logs ({size} bytes) to {args.root / 'matches'} and "
          f"{len(written.altered)} altered logs to {args.root / 'altered'} in "
          f"{time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
