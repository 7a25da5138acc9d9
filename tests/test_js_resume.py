"""The js package's writer for Node servers taking a log up again (``MatchRecorder.resume`` of
``tarneeb-js/server``), driven by ``tests/node/record_match.mjs`` as a server would.

A Node server killed with SIGKILL after any value, resumed in Node and played to its end,
leaves the very log an uninterrupted run writes, clean in the Python verifier; a log the
Python recorder started goes on in Node, and one the Node recorder started in Python, to
the same bytes; a power-loss image (every fsynced byte kept, then random bytes) is cut
where the Python recorder cuts it, with the same words, and goes on to the same bytes.
Matches dealt blind too: a deal with its blind record, a card with its proof."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from js_build import built

from tarneeb.audit.signing import private_key_pem, public_key_pem
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.players import BotPlayer
from tarneeb.replay.rules.ruleset import preset
from tarneeb.replay.server.blind import play_blind_match
from tarneeb.replay.server.recorder import MatchRecorder, match_calls, record_json
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.server.values import RecorderError
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.tail import value_ends
from tarneeb.replay.verify.trust import Trust

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "node" / "record_match.mjs"
CLI = ROOT / "js" / "dist" / "src" / "cli.js"


@pytest.fixture(scope="module")
def node() -> str:
    return built("server.js")


class Match:
    """A whole match the Python side plays: its log, JSON form, key, calls, and the log's
    size after the header and after each recorder call (the signature last)."""

    def __init__(self, log: bytes, label: bytes, tmp: Path) -> None:
        self.log, self.secrets = log, MatchSecrets(label)
        self.parsed = parse_log(log)
        self.doc = logjson.to_json(log)
        self.calls = list(match_calls(self.doc))
        sizes: list[int] = []
        record_json(self.doc, io.BytesIO(), key=self.secrets.key,
                    each=lambda rec: sizes.append(rec.writer.size))
        assert sizes[-1] == len(log)
        self.sizes = sizes
        tmp.mkdir(parents=True, exist_ok=True)
        self.json, self.key = tmp / "match.json", tmp / "key.pem"
        self.json.write_text(logjson.dumps(log), encoding="utf-8")
        self.key.write_bytes(private_key_pem(self.secrets.key))
        self.seed = self.parsed.end.server_seed if self.parsed.end is not None else None

    def clean(self, data: bytes) -> bool:
        return verify_bytes(data, trust=Trust(public_key=self.parsed.header.public_key)).clean

    def python_goes_on(self, rec: MatchRecorder) -> None:
        for call in self.calls[self.sizes.index(rec.writer.size):]:
            call(rec)
        rec.sign(self.secrets.key)
        rec.close()


def _short(rules: str, label: bytes, target: int, timer_rate: float = 0.0) -> bytes:
    bots = [BotPlayer(random.Random(label + bytes([s])), timer_rate=timer_rate)
            for s in range(4)]
    ruleset = preset(rules).with_options(name=f"{rules}-short", target=target)
    return play_logged_match(ruleset, seed=label, players=bots)


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Match]:
    tmp = tmp_path_factory.mktemp("matches")
    logs = {
        "eram": (_short("eram41", b"js resume eram", 21), b"js resume eram"),
        "classic": (_short("classic", b"js resume classic", 16, timer_rate=0.1),
                    b"js resume classic"),  # named trumps, timer moves (two bytes)
        "blind": (play_blind_match("qahwa41", seed=b"js resume blind", target=5),
                  b"js resume blind"),
    }
    return {name: Match(log, label, tmp / name) for name, (log, label) in logs.items()}


def _node_resume(node: str, m: Match, path: Path, durability: str = "flush",
                 seed: bytes | None = None) -> dict[str, object]:
    """Resume ``path`` in Node and go on to the end of ``m``: what resume said."""
    done = subprocess.run([node, str(SCRIPT), "resume", str(m.json), str(path), str(m.key),
                           durability, *([seed.hex()] if seed else [])],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    said = json.loads(lines[0])
    said["abandoned"] = "abandoned" in lines
    return said


def _kill_node(node: str, m: Match, path: Path, durability: str, after: int,
               running: bool = False) -> None:
    """A Node server recording ``m``, SIGKILLed once it has written ``after`` values (the
    header counted): stopped there, between two of its writes; or, ``running``, as it goes
    on writing (wherever the kill lands, but never past the 11th value after ``after``,
    where it waits: a busy machine may run the kill late, and the match must not end)."""
    hold = min(after + 11, len(m.sizes) - 1) if running else after
    proc = subprocess.Popen([node, str(SCRIPT), "replay", str(m.json), str(path), str(m.key),
                             durability, "0", str(hold)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for acked, line in enumerate(proc.stdout):
        if line.strip() == "stopped" or (running and acked == after):
            break
        assert line.startswith("ack "), line
    else:
        pytest.fail("the Node server ended before it was killed")
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    proc.stdout.close()


@pytest.mark.parametrize("which", ["eram", "classic", "blind"])
def test_a_node_server_killed_anywhere_resumes_in_node_and_goes_on_to_the_same_log(
        node: str, tmp_path: Path, matches: dict[str, Match], which: str) -> None:
    m = matches[which]
    rng = random.Random(f"js kill {which}")
    for i in range(6 if which == "blind" else 8):
        durability = ("flush", "group:3", "fsync")[i % 3]
        running = i % 2 == 1
        # never after the signature; running, a few values before it (it must not get there)
        after = rng.randrange(1, len(m.sizes) - (12 if running else 1))
        path = tmp_path / f"kill-{i}.tlog"
        _kill_node(node, m, path, durability, after, running)
        killed = path.read_bytes()
        if running:  # every value acknowledged is in the file, then whatever was written
            assert len(killed) >= m.sizes[after - 1] and killed == m.log[:len(killed)]
        else:
            assert killed == m.log[:m.sizes[after - 1]]
        said = _node_resume(node, m, path, durability)
        if said["cut"] is None:  # killed between two writes
            assert said["size"] == len(killed) and len(killed) in m.sizes
        else:  # inside one: the torn value cut off
            assert said["size"] < len(killed) and said["size"] in m.sizes
        data = path.read_bytes()
        assert data == m.log, (i, after, durability)  # byte for byte the uninterrupted run
        assert m.clean(data)


def _calls(m: Match, upto: int) -> Callable[[MatchRecorder], None]:
    def run(rec: MatchRecorder) -> None:
        for call in m.calls[:upto]:
            call(rec)
    return run


@pytest.mark.parametrize("which", ["classic", "blind"])
def test_a_log_either_recorder_started_goes_on_in_the_other(
        node: str, tmp_path: Path, matches: dict[str, Match], which: str) -> None:
    """Python starts, Node goes on; Node starts (killed), Python goes on: the same log."""
    m = matches[which]
    rng = random.Random(f"js both {which}")
    h = m.parsed.header
    for i in range(3):
        upto = rng.randrange(0, len(m.calls))
        path = tmp_path / f"python-{i}.tlog"
        rec = MatchRecorder(path, rules=h.rules, seats=[(s.name, s.computer) for s in h.seats],
                            match_id=h.match_id, first_dealer=h.first_dealer,
                            public_key=h.public_key, server_commitment=h.server_commitment,
                            client_commitments=h.client_commitments,
                            client_seeds=h.client_seeds, dealing="blind" if h.blind else "seeds")
        _calls(m, upto)(rec)
        rec.close()  # the Python server stops here
        assert path.read_bytes() == m.log[:m.sizes[upto]]
        said = _node_resume(node, m, path, "group:2")
        assert said["cut"] is None
        assert path.read_bytes() == m.log
        after = rng.randrange(1, len(m.sizes))
        path = tmp_path / f"node-{i}.tlog"
        _kill_node(node, m, path, "flush", after)
        m.python_goes_on(MatchRecorder.resume(path))
        assert path.read_bytes() == m.log
    assert m.clean(m.log)


def _torn(m: Match, rng: random.Random) -> tuple[int, bytes]:
    """A power-loss image: the log up to a value boundary (what an fsync covered), then a
    torn value, zeros or random bytes."""
    ends = [at for at in value_ends(m.log, m.parsed.offsets[0])
            if at < (m.parsed.end_offset or 0)]
    cut = rng.choice(ends)
    tail = rng.choice(["torn", "zeros", "random"])
    if tail == "torn":  # part of the next value, then nothing or zeros
        nxt = next(e for e in [*ends, len(m.log)] if e > cut)
        part = m.log[cut:rng.randrange(cut, nxt)]
        return cut, m.log[:cut] + part + bytes(rng.choice((0, 0, 5, 300)))
    if tail == "zeros":
        return cut, m.log[:cut] + bytes(rng.choice((1, 17, 4096)))
    return cut, m.log[:cut] + rng.randbytes(rng.choice((1, 2, 3, 8, 64, 512)))


@pytest.mark.parametrize("which", ["eram", "blind"])
def test_a_power_loss_image_is_cut_as_the_python_recorder_cuts_it(
        node: str, tmp_path: Path, matches: dict[str, Match], which: str) -> None:
    """Node and Python resume the same image, given the server seed: the same bytes kept, the
    same words for what was cut; then the match goes on (or, where garbage read as legal
    moves was kept, is abandoned as a server fault) to the same signed log, clean."""
    m = matches[which]
    rng = random.Random(f"js image {which}")
    went_on = 0
    cases = 12 if which == "blind" else 30
    for i in range(cases):
        cut, data = _torn(m, rng)
        mine, theirs = tmp_path / f"node-{i}.tlog", tmp_path / f"python-{i}.tlog"
        mine.write_bytes(data)
        theirs.write_bytes(data)
        said = _node_resume(node, m, mine, "flush", m.seed)
        rec = MatchRecorder.resume(theirs, server_seed=m.seed)
        assert (said["size"], said["cut"]) == (rec.writer.size, rec.cut), (i, cut)
        assert said["size"] >= cut and said["moves"] == rec.moves
        if not said["abandoned"]:
            went_on += 1
            m.python_goes_on(rec)
            assert mine.read_bytes() == m.log
        else:
            rec.abandon("server-fault", None, "restarted after a power loss", m.seed)
            rec.sign(m.secrets.key)
            rec.close()
        assert mine.read_bytes() == theirs.read_bytes()
        assert m.clean(mine.read_bytes()), i
    assert went_on >= cases * 0.7, went_on


def test_node_refuses_to_resume_what_python_refuses(node: str, tmp_path: Path,
                                                    matches: dict[str, Match]) -> None:
    """The same refusal in the same words (a recorder's error, one line): a signed log, a
    torn header, a directory, no file, a FIFO (its read waited for ever in both, the log's
    lock held), a server seed not 32 bytes (Python took it), and one the header does not
    commit to (both took it, and the tail was judged by another match's deals)."""
    m = matches["eram"]
    assert m.seed is not None
    signed, torn = tmp_path / "signed.tlog", tmp_path / "torn.tlog"
    signed.write_bytes(m.log)
    torn.write_bytes(m.log[:10])
    cut = tmp_path / "cut\nshort.tlog"  # (a new line in its name: shown as an escape)
    cut.write_bytes(m.log[:m.sizes[5]])
    fifo, folder = tmp_path / "fifo.tlog", tmp_path / "folder.tlog"
    os.mkfifo(fifo)
    folder.mkdir()
    cases = [(signed, None), (torn, None), (folder, None), (tmp_path / "gone.tlog", None),
             (signed / "inside.tlog", None),  # (a file taken for a directory: ENOTDIR)
             (fifo, None), (cut, m.seed[:5]), (cut, bytes(32))]
    for path, seed in cases:
        done = subprocess.run([node, str(SCRIPT), "resume", str(m.json), str(path), str(m.key),
                               "flush", *([seed.hex()] if seed is not None else [])],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 3 and done.stdout.startswith("refused: "), done.stdout
        with pytest.raises(RecorderError) as python:
            MatchRecorder.resume(path, server_seed=seed)
        # (each names the option as its language spells it)
        said = str(python.value).replace("server_seed", "serverSeed")
        assert done.stdout.strip() == f"refused: {said}" and "\n" not in said
    assert signed.read_bytes() == m.log and torn.read_bytes() == m.log[:10]  # untouched
    assert cut.read_bytes() == m.log[:m.sizes[5]]
    assert "commits to" in str(python.value) and "cut\\nshort.tlog" in str(python.value)
    MatchRecorder.resume(cut, server_seed=m.seed).close()  # its own seed: taken up


def _js_verdict(node: str, path: Path, public: Path) -> dict[str, object]:
    out = subprocess.run([node, str(CLI), "verify", "--json", "--key", str(public), str(path)],
                         capture_output=True, text=True, timeout=300, check=False)
    return json.loads(out.stdout)[0]


BLIND_RULES = ["eram41", "qahwa41", "sahrat41", "sahrat400", "classic"]


@pytest.mark.parametrize("rules", BLIND_RULES)
def test_the_node_recorder_writes_the_python_recorders_blind_bytes(
        node: str, tmp_path: Path, rules: str) -> None:
    """A match dealt blind (the transcripts made by the Python side's seats), recorded move by
    move by both recorders from the same values: byte for byte the same log, which both
    verifiers find clean, every deal proven."""
    label = f"js blind {rules}".encode()
    log = play_blind_match(rules, seed=label, target=3, reveal_keys=rules != "sahrat400")
    m = Match(log, label, tmp_path)
    python = io.BytesIO()
    record_json(m.doc, python, key=m.secrets.key)
    assert python.getvalue() == log
    out = tmp_path / "node.tlog"
    done = subprocess.run([node, str(SCRIPT), "replay", str(m.json), str(out), str(m.key),
                           "group:2"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == log
    v = verify_bytes(log, trust=Trust(public_key=m.parsed.header.public_key))
    assert v.clean and v.blind and v.deals_proven, [str(f) for f in v.findings]
    public = tmp_path / "key.pub.pem"
    public.write_bytes(public_key_pem(m.secrets.key.public_key()))
    js = _js_verdict(node, out, public)
    assert (js["verdict"], js["dealing"], js["deals_proven"]) == ("clean", "blind", True), js


def test_a_blind_deal_stopped_at_a_seat_is_recorded_as_python_records_it(
        node: str, tmp_path: Path) -> None:
    """A deal the seats did not finish (a seat's partial decryptions never came, §13.8) and
    the match abandoned there: the same bytes, clean in both verifiers (the timeout blames
    the seat whose step is missing)."""
    label = b"js blind stalled"
    log = play_blind_match("eram41", seed=label, target=3, stall=(0, 9))
    m = Match(log, label, tmp_path)
    assert m.parsed.hands[-1].blind is not None and m.parsed.end is not None
    out = tmp_path / "node.tlog"
    done = subprocess.run([node, str(SCRIPT), "replay", str(m.json), str(out), str(m.key),
                           "flush"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == log
    assert m.clean(log)
    public = tmp_path / "key.pub.pem"
    public.write_bytes(public_key_pem(m.secrets.key.public_key()))
    js = _js_verdict(node, out, public)
    assert (js["verdict"], js["dealing"]) == ("clean", "blind"), js
    assert "in its blind deal, waiting for seat 1" in js["ending"], js  # step 9: round 2
