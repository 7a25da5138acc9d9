"""One recorder per log, across the two recorders: the Python recorder and the Node recorder
(``tarneeb-js/server``) take the same lock on a log (``flock``), so each refuses the other.

A log the Python recorder holds (made or resumed) is refused to the Node recorder's resume
with the words of :func:`~tarneeb.replay.server.filelock.held`, and the file is left as it is
(bytes a resume would cut, still there); the other way round too. The Node recorder's lock
goes when it signs the log while its process goes on, and when its process is killed with
SIGKILL: a Python resume right after the kill goes on with the log."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from js_build import DIST, built

from tarneeb.replay.server.filelock import held, lock_log
from tarneeb.replay.server.recorder import MatchRecorder, RecorderError

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("flock") is None,
    reason="the Node recorder locks through util-linux's flock(1) (Linux)")

# node -e SCRIPT DIST MODE PATH
#   hold-create: a recorder made on PATH (a deal, a call); "ready"; waits to be killed
#   hold-resume: PATH resumed; "ready" and what resume said; waits to be killed
#   sign: a recorder made on PATH, the match abandoned and signed; "ready"; waits
#   resume: PATH resumed, what it said on one line (or "refused: ..." and exit 3); closed
SCRIPT = r"""
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const [dist, mode, path] = process.argv.slice(1);
const server = pathToFileURL(join(dist, "server.js")).href;
const { MatchRecorder, RecorderError, generateSigningKey } = await import(server);
const wait = () => setInterval(() => {}, 60_000);
const made = () => {
  const rec = MatchRecorder.create({ path, rules: "eram41", seats: ["A", "B", "C", "D"],
    matchId: Uint8Array.of(1), firstDealer: 2 });
  rec.deal({ dealer: 2, revealed: "A♠" });
  rec.call({ seat: 3, bid: 5 });
  return rec;
};
const resumed = async () => {
  try {
    return await MatchRecorder.resume({ path });
  } catch (e) {
    if (!(e instanceof RecorderError)) throw e;
    process.stdout.write(`refused: ${e.message}\n`);
    process.exit(3);
  }
};
if (mode === "hold-create") {
  made();
  process.stdout.write("ready\n");
  wait();
} else if (mode === "sign") {
  const rec = made();
  rec.abandon({ cause: "server-fault", seat: null, reason: "stopped", serverSeed: null });
  await rec.sign((await generateSigningKey()).privateKey);
  process.stdout.write("ready\n");
  wait();
} else {
  const rec = await resumed();
  process.stdout.write(`${JSON.stringify({ cut: rec.cut, size: rec.writer.size })}\n`);
  if (mode === "hold-resume") wait();
  else rec.close();
}
"""

GARBAGE = b"\xc1\xc1"  # bytes no writer writes: a resume cuts them


@pytest.fixture(scope="module")
def node() -> str:
    return built("server.js")


def _python_log(path: Path) -> MatchRecorder:
    rec = MatchRecorder(path, rules="eram41", seats=["A", "B", "C", "D"], match_id=b"\x01",
                        first_dealer=2)
    rec.deal(2, revealed="A♠")
    rec.call(3, 5)
    return rec


def _node(node: str, mode: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([node, "--input-type=module", "-e", SCRIPT, str(DIST), mode, str(path)],
                          capture_output=True, text=True, timeout=120, check=False)


class Holder:
    """A Node process holding ``path`` (its recorder made or resumed), until killed."""

    def __init__(self, node: str, mode: str, path: Path) -> None:
        self.proc = subprocess.Popen(
            [node, "--input-type=module", "-e", SCRIPT, str(DIST), mode, str(path)],
            stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.said = self.proc.stdout.readline()  # once it holds the log (EOF: it died)
        assert self.said.strip() == "ready" or self.said.startswith("{"), self.said

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        assert self.proc.wait(60) == -signal.SIGKILL
        assert self.proc.stdout is not None
        self.proc.stdout.close()


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    made: list[Holder] = []
    yield made
    for h in made:
        if h.proc.poll() is None:
            h.kill()


def _refused_in_python(path: Path) -> None:
    with pytest.raises(RecorderError) as e:
        MatchRecorder.resume(path)
    assert str(e.value) == held(path)


def _refused_in_node(node: str, path: Path) -> None:
    done = _node(node, "resume", path)
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout == f"refused: {held(path)}\n"


@pytest.mark.parametrize("how", ["made", "resumed"])
def test_a_log_the_python_recorder_holds_is_refused_to_the_node_recorder(
        node: str, tmp_path: Path, how: str) -> None:
    path = tmp_path / "m.tlog"
    rec = _python_log(path)
    if how == "resumed":
        rec.close()
        rec = MatchRecorder.resume(path)
    with path.open("ab") as f:  # not a recorder: a lock only keeps recorders out
        f.write(GARBAGE)
    before = path.read_bytes()
    _refused_in_node(node, path)
    assert path.read_bytes() == before  # nothing cut, nothing written
    rec.close()
    done = _node(node, "resume", path)  # the lock went with the close
    assert done.returncode == 0, done.stdout + done.stderr
    said = json.loads(done.stdout)
    assert said["size"] == len(before) - len(GARBAGE) and said["cut"].startswith("cut 2 bytes")
    assert path.read_bytes() == before[:-len(GARBAGE)]


@pytest.mark.parametrize("how", ["hold-create", "hold-resume"])
def test_a_log_the_node_recorder_holds_is_refused_until_its_process_is_killed(
        node: str, tmp_path: Path, holders: list[Holder], how: str) -> None:
    path = tmp_path / "m.tlog"
    if how == "hold-resume":
        _python_log(path).close()
        size = path.stat().st_size
    holder = Holder(node, how, path)
    holders.append(holder)
    if how == "hold-create":
        size = path.stat().st_size
    with path.open("ab") as f:
        f.write(GARBAGE)
    before = path.read_bytes()
    _refused_in_python(path)
    _refused_in_node(node, path)  # nor a second Node recorder
    assert path.read_bytes() == before
    holder.kill()
    rec = MatchRecorder.resume(path)  # at once: the lock went with the process
    assert rec.writer.size == size and rec.cut is not None and rec.cut.startswith("cut 2 bytes")
    rec.call(0, 6)
    rec.close()
    assert path.read_bytes() == before[:size] + bytes([0x40 | 0 << 4 | 6])


def test_the_node_recorder_frees_the_log_when_it_signs_it(
        node: str, tmp_path: Path, holders: list[Holder]) -> None:
    path = tmp_path / "m.tlog"
    holder = Holder(node, "sign", path)
    holders.append(holder)
    assert holder.proc.poll() is None  # still running, the log signed
    with path.open("rb") as f:
        assert lock_log(f)  # free: the Python recorder's lock is granted
    with pytest.raises(RecorderError, match="the log is signed"):
        MatchRecorder.resume(path)
