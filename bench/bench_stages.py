"""Where full verification's time goes: each stage of ``verify`` timed on its own.

The stages are what :func:`~tarneeb.replay.verify.replayer.verify_file` does for a clean log,
each run alone over the same logs, in CPU time, the least of ``rounds``:

* **read**: reading the file and decoding it into records (the one-pass reader);
* **signature**: the platform key's checks and one Ed25519 verification;
* **seeds**: the server seed and the four client seeds against their commitments, the
  match binding and the first dealer's draw;
* **deal**: each attempt's deck order (two HMAC blocks and the shuffle) and who holds
  each card;
* **hand**: each attempt's bids or auction and its 52 cards judged at once;
* **rest**: everything else (scoring, the claims compared, the match state, the
  verdict), the full time less the stages above.

That is the pure-Python path. When the compiled core is in use (``tarneeb --version``
says so), a clean log takes the compiled path, and its stages are timed instead:
**read** (the file, its header and the core's scan of its hands), **signature**,
**seeds**, and **core**: the C replay of every attempt (deck order, hands, calls,
tricks, scores, claims); **rest** is again the full time less those.

Times are µs per dealing attempt, so they add up to the full figure of
``bench_floor``. Run it as a script (``python bench/bench_stages.py``) or call
:func:`bench_stages`.

>>> import tempfile, pathlib
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> (d / "a.tlog").write_bytes(play_logged_match("qahwa41", seed=b"stages doc")) > 0
True
>>> r = bench_stages([d / "a.tlog"], rounds=1)
>>> set(r) == {"attempts", "path", "rest", "full", *stages_of(r["path"])}
True
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tarneeb.replay.log import read_log
from tarneeb.replay.rules import compiled as core_switch
from tarneeb.replay.rules.fastplay import hands_of, owners_from_order, whole_hand
from tarneeb.replay.rules.scoring import Hand
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.provenance import check_seeds, check_signature
from tarneeb.replay.verify.replayer import verify_file
from tarneeb.replay.verify.trust import NOTHING

STAGES = ("read", "signature", "seeds", "deal", "hand")
COMPILED_STAGES = ("read", "signature", "seeds", "core")


def stages_of(path: str) -> tuple[str, ...]:
    """The stages timed on ``path`` ("python" or "compiled")."""
    return COMPILED_STAGES if path == "compiled" else STAGES


def _least(work: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        work()
        best = min(best, time.process_time() - t0)
    return best


def bench_stages(paths: Sequence[Path], rounds: int = 5) -> dict[str, Any]:
    """µs per dealing attempt of each stage of verifying ``paths`` (clean logs), on the
    path ``verify`` takes here: the compiled core's when it is in use."""
    if core_switch.CORE is not None:
        return _compiled_stages(paths, rounds)
    names = [str(p) for p in paths]
    logs = [read_log(n) for n in names]
    derivers = []
    for log in logs:
        deriver, _ = check_seeds(log, Verdict("bench"))
        if deriver is None:
            raise SystemExit(f"bench: {log} has no seeds to derive its deals from")
        derivers.append(deriver)
    # every attempt as the replay meets it: the deal, then the hand on the totals so far
    attempts: list[tuple[Any, ...]] = []
    for log, deriver in zip(logs, derivers, strict=True):
        rules = log.header.rules
        history = _history(log)
        for rec, hand in zip(log.hands, history, strict=True):
            attempts.append((deriver, rec, hand, rules))
    n = len(attempts)

    def read() -> None:
        for name in names:
            read_log(name)

    def signature() -> None:
        for log in logs:
            check_signature(log, Verdict("bench"), None)

    def seeds() -> None:
        for log in logs:
            deriver, _ = check_seeds(log, Verdict("bench"))
            deriver.first_dealer()  # type: ignore[union-attr]

    def deal() -> None:
        for deriver, rec, _, _ in attempts:
            hands_of(owners_from_order(bytes(deriver.deck(rec.deal_number)), rec.dealer))

    owners = [owners_from_order(bytes(d.deck(r.deal_number)), r.dealer)
              for d, r, _, _ in attempts]

    def hand() -> None:
        for (_, rec, h, rules), own in zip(attempts, owners, strict=True):
            whole_hand(rules, h[0], rec.dealer, own, h[1], rec.calls, rec.trump, rec.plays)

    return _timed("python", n, names, rounds, (read, signature, seeds, deal, hand))


def _timed(path: str, n: int, names: list[str], rounds: int,
           works: Sequence[Callable[[], object]]) -> dict[str, Any]:
    """Each stage's and the full verification's least CPU time, µs per attempt."""
    def full() -> None:
        for name in names:
            verify_file(name)

    full()
    out: dict[str, Any] = {"attempts": n, "path": path}
    for stage, work in zip(stages_of(path), works, strict=True):
        out[stage] = 1e6 * _least(work, rounds) / n
    out["full"] = 1e6 * _least(full, rounds) / n
    out["rest"] = out["full"] - sum(out[s] for s in stages_of(path))
    return out


def _compiled_stages(paths: Sequence[Path], rounds: int) -> dict[str, Any]:
    """The stages of the compiled path (see the module)."""
    from tarneeb.replay.log.fastread import _record
    from tarneeb.replay.verify.compiled import confirm, rules_params

    core = core_switch.CORE
    names = [str(p) for p in paths]
    limits = NOTHING.limits
    jobs = []
    for name in names:
        data = Path(name).read_bytes()
        confirmed = confirm(data, name)
        if confirmed is None:
            raise SystemExit(f"bench: the compiled core does not confirm {name}")
        log = confirmed[1]
        header, start = _record(data, 0, limits)
        deriver, _ = check_seeds(log, Verdict("bench"))
        if deriver is None:
            raise SystemExit(f"bench: {name} has no seeds to derive its deals from")
        count = core.scan(data, start, limits.max_hands)[1]
        jobs.append((data, log, deriver, start, count, rules_params(header.rules)))
    n = sum(job[4] for job in jobs)

    def read() -> None:
        for name in names:
            data = Path(name).read_bytes()
            _, start = _record(data, 0, limits)
            core.scan(data, start, limits.max_hands)

    def signature() -> None:
        for _, log, _, _, _, _ in jobs:
            check_signature(log, Verdict("bench"), None)

    def seeds() -> None:
        for _, log, _, _, _, _ in jobs:
            deriver, _ = check_seeds(log, Verdict("bench"))
            deriver.first_dealer()  # type: ignore[union-attr]

    def replay() -> None:
        for data, log, deriver, start, count, params in jobs:
            inner, outer = deriver.deal_hashes()
            core.replay(data, start, count, params, log.header.first_dealer, inner, outer)

    return _timed("compiled", n, names, rounds, (read, signature, seeds, replay))


def _history(log: Any) -> list[tuple[list[int], int | None]]:
    """Each attempt's totals before it and the trump its deal gives, from a replay."""
    from tarneeb.replay.verify.replayer import verify_log

    v = verify_log(log)
    out = []
    totals = [0, 0, 0, 0]
    rules = log.header.rules
    for h in v.history:
        assert isinstance(h, Hand)
        out.append((list(totals), rules.trump_for_deal(h.thirteenth)))
        totals = list(h.totals) if h.totals is not None else totals
    return out


def line(r: dict[str, Any]) -> str:
    parts = ", ".join(f"{s} {r[s]:.1f}" for s in (*stages_of(r["path"]), "rest"))
    rest = ("the verdict" if r["path"] == "compiled"
            else "scoring, claims, match state, verdict")
    return (f"where full verification's {r['full']:.1f} µs CPU per dealing attempt go, on "
            f"the {r['path']} path: {parts} (each stage timed alone; rest: {rest})")


def main(argv: list[str] | None = None) -> int:
    import tempfile

    from bench_floor import write_matches

    args = sys.argv[1:] if argv is None else argv
    per_rules = int(args[0]) if args else 10
    with tempfile.TemporaryDirectory() as tmp:
        print(line(bench_stages(write_matches(Path(tmp), per_rules))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
