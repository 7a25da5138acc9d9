"""``make demo``: a match for each rule set, verified, then one card altered in a copy,
two forgeries, and a season match moved to another leaf, caught by a seat's receipt;
then an archive audited, with a platform's bias for its computer seats caught.

Every step runs the real ``tarneeb`` command, shown as you would type it. The
matches are reproducible runs (``--seed``): their seeds and keys are public, which
is right for a demo and wrong for play.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.cards import card_name
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.verify.people import Table
from tarneeb.testing.alterations import alter
from tarneeb.testing.alterations.base import Alteration, NotApplicable

OUT = Path("out/demo")


def tarneeb(*args: str) -> int:
    """Run ``tarneeb ARGS`` as a user would, echoing the command line."""
    print(f"\n$ tarneeb {shlex.join(args)}", flush=True)
    return subprocess.run([sys.executable, "-m", "tarneeb", *args], check=False).returncode


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    print("Each rule set: a whole match between computer players, with committed seeds, "
          "signed by a platform key, then verified.")
    for name in PRESETS:
        log = OUT / f"{name}.tlog"
        if tarneeb("play", "--rules", name, "--seed", f"demo/{name}", "-o", str(log)) != 0:
            raise SystemExit(f"demo: tarneeb play failed for {name}")
        if tarneeb("verify", str(log)) != 0:
            raise SystemExit(f"demo: the {name} match did not verify clean")

    print("\nA player reads a match hand by hand (hands count from 1, as every text of "
          "tarneeb counts them; --json keeps the log's numbers, from 0):")
    if tarneeb("show", str(OUT / "sahrat41.tlog"), "--hand", "1") != 0:
        raise SystemExit("demo: tarneeb show failed")

    print("\nNow one card is changed in a copy of each log, as someone editing a log after "
          "the platform signed it would. The verdict must catch it.")
    caught = 0
    for name in PRESETS:
        original = (OUT / f"{name}.tlog").read_bytes()
        try:
            altered, what = alter("replace-played-card", original, choice=4)
        except NotApplicable:
            altered, what = alter("swap-plays", original, choice=4)
        copy = OUT / f"{name}-altered.tlog"
        copy.write_bytes(altered)
        print(f"\n# {copy}: {what_changed(original, altered, what)}")
        code = tarneeb("verify", str(copy))
        caught += code == 1
        print(f"(exit code {code}: {'caught' if code == 1 else 'NOT CAUGHT'})")
    print("\nTwo forgeries of the sahrat41 log that need no platform key: the seeds stripped "
          "and the log signed with the forger's own key, and the identity point as key with "
          "a signature that verifies anything under it.")
    forger = Ed25519PrivateKey.generate()
    original = (OUT / "sahrat41.tlog").read_bytes()
    forged = [alter("strip-seeds", original, resign=forger), alter("weak-key", original)]
    for (data, what), label in zip(forged, ("no-seeds", "weak-key"), strict=True):
        copy = OUT / f"sahrat41-{label}.tlog"
        copy.write_bytes(data)
        print(f"\n# {copy}: {what.description}")
        code = tarneeb("verify", str(copy))
        caught += code == 1
        print(f"(exit code {code}: {'caught' if code == 1 else 'NOT CAUGHT'})")
    caught += season_leaf_moved()
    tried = len(PRESETS) + len(forged) + 1
    print(f"\n{caught} of {tried} altered copies caught. Logs are in {OUT}/.")
    if caught != tried:
        raise SystemExit(1)

    print("\nFor the players of the altered sahrat41 match: one page with the verdict, the "
          "proof and every hand, the altered card marked where it was played.")
    page = OUT / "sahrat41-altered.html"
    tarneeb("report", str(OUT / "sahrat41-altered.tlog"), "-o", str(page))
    screenshot(page, OUT / "sahrat41-altered.png")
    archive_audit()


def what_changed(original: bytes, altered: bytes, what: Alteration) -> str:
    """The cards an alteration changed, said as the verdict says where: the hand counted
    from 1, the seat by its player's name (``hand 8, trick 12, West bot: its 9♣ replaced
    by 8♣``)."""
    before = parse_log(original)
    table = Table([seat.name for seat in before.header.seats])
    where = table.say(what.where())
    if what.hand is None:  # a change to the whole match
        return f"{where}: {table.say(what.description)}"
    was = next(h for h in before.hands if h.deal_number == what.hand).plays
    now = next(h for h in parse_log(altered).hands if h.deal_number == what.hand).plays
    moved = [k for k in range(min(len(was), len(now))) if was[k] != now[k]]
    if len(moved) == 1:
        k = moved[0]
        return f"{where}: its {card_name(was[k])} replaced by {card_name(now[k])}"
    if len(moved) == 2 and was[moved[0]] == now[moved[1]]:
        return (f"{where}: its {card_name(was[moved[0]])} and the "
                f"{card_name(was[moved[1]])} played later swapped")
    return f"{where}: {table.say(what.description)}"


def archive_audit() -> None:
    """Two small archives, one fair with committed seeds and one recorded by a platform
    that re-deals to favour its computer seats; one audit of both, with its report."""
    from tarneeb.replay.archive.audit import EXIT_BIAS
    from tarneeb.testing.archive import write_archive

    archive = OUT / "archive"
    print(f"\nAn archive: 40 matches with committed seeds, and 40 recorded by a platform that "
          f"re-deals to give its computer seats about a point more (reproducible, in {archive}/).")
    write_archive(archive / "proven", 40, seed=b"demo archive proven")
    write_archive(archive / "biased", 40, seed=b"demo archive biased", redeal=0.8)
    page = OUT / "archive.html"
    code = tarneeb("audit", str(archive), "--tables", str(OUT / "tables"), "--report", str(page))
    print(f"(exit code {code}: {'bias caught' if code == EXIT_BIAS else 'NOT CAUGHT'})")
    screenshot(page, OUT / "archive.png")
    if code != EXIT_BIAS:
        raise SystemExit(1)


def season_leaf_moved() -> int:
    """A season of 16 matches; the platform names match 5, the seats commit and get its
    receipt; then it plays the same seats and seeds as match 11 instead (leaf grinding).
    Returns 1 when the seat's receipt catches it."""
    print("\nA season of 16 matches under a signed head. The platform names match 5, the seats "
          "commit their seeds and each gets a signed receipt. Then the platform plays the same "
          "match, same seats and seeds, as match 11 of the season instead, as a server would "
          "that picks the leaf after seeing the seeds.")
    key, season = OUT / "platform.pem", OUT / "season.json"
    if tarneeb("keygen", str(key), "--force") != 0:
        raise SystemExit("demo: keygen failed")
    print(f"\n$ tarneeb commit --matches 16 --json --key {key} > {season}", flush=True)
    made = subprocess.run([sys.executable, "-m", "tarneeb", "commit", "--matches", "16", "--json",
                           "--key", str(key)], check=True, capture_output=True, text=True)
    season.write_text(made.stdout)
    common = ["--rules", "eram41", "--seed", "demo/season", "--season", str(season),
              "--key", str(key)]
    receipt, promised, moved = OUT / "receipt.json", OUT / "m5.tlog", OUT / "m5-as-11.tlog"
    for index, log, extra in (("5", promised, ["--receipt-out", str(receipt)]),
                              ("11", moved, [])):
        if tarneeb("play", *common, "--season-match", index, "-o", str(log), *extra) != 0:
            raise SystemExit("demo: tarneeb play failed for the season")
    if tarneeb("verify", "--receipt", str(receipt), str(promised)) != 0:
        raise SystemExit("demo: the promised season match did not verify clean")
    code = tarneeb("verify", "--receipt", str(receipt), str(moved))
    print(f"(exit code {code}: {'caught' if code == 1 else 'NOT CAUGHT'})")
    return int(code == 1)


def screenshot(page: Path, png: Path) -> None:
    """What a player sees first when opening ``page``, as headless Chromium shows it."""
    try:
        from tarneeb.report.browser import BrowserMissing, open_page

        with open_page(page, screenshot=png) as opened:
            problems = opened.errors + opened.requests
    except (ImportError, BrowserMissing) as e:
        print(f"(no screenshot: {e})")
        return
    if problems:
        raise SystemExit(f"demo: the page {page} is not self-contained: {problems}")
    print(f"Open {page} in a browser; {png} is its first screen.")


if __name__ == "__main__":
    main()
